"""Where a build's stages run: a Dask client, to a local cluster (default), a running scheduler
(`--scheduler` or `[build] scheduler`), or worker jobs of a batch system (`[build] cluster = "slurm" | "pbs"`).

A cluster is started only when a stage has to run, so a build with nothing to do stays instant and never
contacts a scheduler. `seqanim watch` keeps one local cluster for all its rebuilds (`session`).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from seqanim.config import Lecture
from seqanim.errors import SeqanimError
from seqanim.files import FULL, disk_full
from seqanim.workspace import current

PRELOAD = "seqanim.preload"
_session: Any = None  # a client kept open across builds (seqanim watch)


def local_directory() -> Path:
    """This build process's workers' folder: scratch workspaces and code bundles of the local cluster."""
    return current().state_dir / "dask" / str(os.getpid())


def _quiet() -> None:
    # A task carries its inputs' bytes, and a killed worker is expected: neither is news for a lecturer.
    warnings.filterwarnings("ignore", module="distributed")
    warnings.filterwarnings("ignore", message=".*Large object.*")
    for name in ("distributed", "dask_jobqueue", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


@contextmanager
def _stderr_to(log: Path) -> Iterator[None]:
    """Processes started meanwhile (the local workers) write to `log` instead of the terminal."""
    log.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sys.stderr.flush()
    terminal = os.dup(2)
    os.dup2(descriptor, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(terminal, 2)
        os.close(terminal)
        os.close(descriptor)


def _local(jobs: int, kinds: set[str] | None = None) -> Any:
    import dask
    from distributed import LocalCluster

    # A stage gets the machine's threads, as a stage process of its own had: Dask's default environment for
    # worker processes (OpenMP, MKL and OpenBLAS at one thread, freed memory trimmed at 64 KB) made the
    # training stages 35 % slower here (seq2seq_sort: 50 s -> 68 s on a clean clone).
    dask.config.set({"distributed.nanny.pre-spawn-environ": {}})
    # Every stage is new to the scheduler (its duration unknown, 0.5 s by default), and a deck's inputs are
    # 150 MB: it would queue a ready deck behind the worker holding them rather than send them to an idle one.
    dask.config.set({"distributed.scheduler.unknown-task-duration": "1h"})
    # An idle local cluster of 2 workers used 15 % of a core, taken from the stages: a profiler sampling each
    # worker's task thread (which only waits for its stage's process) every 10 ms, and a 20 ms event-loop
    # tick in every process. Work stealing stays: without it a ready stage waited on a busy worker.
    dask.config.set({"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s"})

    log = current().logs / "dask-workers.log"
    with _stderr_to(log):
        return LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,  # one stage per worker process, as one process per stage was before
            processes=True,
            local_directory=str(local_directory()),
            dashboard_address=None,
            preload=[PRELOAD],
            preload_argv=["--log", str(log), *(["--kinds", ",".join(sorted(kinds))] if kinds else [])],
            silence_logs=logging.CRITICAL,
        )


def _started(jobs: int, kinds: set[str] | None = None) -> Any:
    """The local cluster, or one line saying why it did not start."""
    try:
        return _local(jobs, kinds)
    except OSError as error:
        if error.errno in FULL:
            raise disk_full(error, error.filename or local_directory()) from None
        raise SeqanimError(f"the local Dask cluster did not start: {error}") from None


def _batch(lecture: Lecture) -> Any:
    settings = lecture.build
    try:
        import dask_jobqueue
    except ImportError:
        raise SeqanimError(
            f'[build] cluster = "{settings.cluster}" needs dask-jobqueue; run `.venv/bin/pip install dask-jobqueue`'
        ) from None
    kind = dask_jobqueue.SLURMCluster if settings.cluster == "slurm" else dask_jobqueue.PBSCluster
    cluster = kind(
        cores=1,
        processes=1,
        memory=settings.batch_memory,
        walltime=settings.batch_walltime,
        queue=settings.batch_queue or None,
        account=settings.batch_account or None,
        job_script_prologue=list(settings.batch_setup),
        worker_extra_args=["--preload", PRELOAD],
    )
    cluster.scale(jobs=settings.batch_workers)
    return cluster


@contextmanager
def client(lecture: Lecture, jobs: int, scheduler: str | None, kinds: set[str]) -> Iterator[tuple[Any, bool]]:
    """A Dask client for one build, and whether its workers are on this machine: the watch session's, or
    one to the configured cluster, closed after."""
    _quiet()
    if _session is not None:
        yield _session, True
        return
    from distributed import Client

    address = scheduler or lecture.build.scheduler
    cluster = None
    if address:
        try:
            connected = Client(address, timeout="10s")
        except (OSError, TimeoutError):
            raise SeqanimError(
                f"cannot reach the Dask scheduler at {address} within 10 s; start it with `dask scheduler`, "
                "or fix --scheduler / [build] scheduler"
            ) from None
        services = connected.scheduler_info().get("services", {})
        board = connected.dashboard_link if "dashboard" in services else "none (the scheduler runs without one)"
        print(f"dask scheduler {address}; dashboard: {board}", file=sys.stderr)
    else:
        cluster = _batch(lecture) if lecture.build.cluster != "local" else _started(jobs, kinds)
        connected = Client(cluster)
        if cluster is not None and lecture.build.cluster != "local":
            print(f"dask {lecture.build.cluster} cluster; dashboard: {connected.dashboard_link}", file=sys.stderr)
    try:
        yield connected, not address and lecture.build.cluster == "local"
    finally:
        _close(connected, cluster)


def _close(connected: Any, cluster: Any) -> None:
    import shutil

    from distributed import LocalCluster

    logging.disable(logging.WARNING)  # the scheduler's "closing all comms" and the like
    try:
        with _stderr_to(current().logs / "dask-workers.log"):
            connected.close()
            if isinstance(cluster, LocalCluster):
                _stop_workers(cluster)
            if cluster is not None:
                cluster.close()
    finally:
        logging.disable(logging.NOTSET)
    shutil.rmtree(local_directory(), ignore_errors=True)


def _stop_workers(cluster: Any) -> None:
    """Kill the local workers: they hold nothing the build needs any more, and a polite shutdown takes 2 s.
    A stage still running (Ctrl-C) dies with its worker."""
    for nanny in list(cluster.workers.values()):
        process = getattr(getattr(nanny, "process", None), "process", None)
        pid = getattr(process, "pid", None)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@contextmanager
def session(jobs: int) -> Iterator[None]:
    """One local cluster for every build inside (`seqanim watch`), started at once."""
    global _session
    _quiet()
    from distributed import Client

    cluster = _started(jobs)
    _session = Client(cluster)
    try:
        yield
    finally:
        connected, _session = _session, None
        _close(connected, cluster)


def remove_stale() -> None:
    """Workers' folders of builds that are gone (a SIGKILLed build runs no cleanup)."""
    import shutil

    folder = current().state_dir / "dask"
    for entry in folder.iterdir() if folder.exists() else []:
        try:
            os.kill(int(entry.name), 0)
        except (ValueError, ProcessLookupError):
            shutil.rmtree(entry, ignore_errors=True)
        except PermissionError:
            pass
