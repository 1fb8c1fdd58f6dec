"""Where a build's stages run: a Dask client to a local cluster (default), a running scheduler (`--scheduler` or
`[build] scheduler`), or worker jobs of a batch system (`[build] cluster = "slurm" | "pbs"`).

A cluster is started only when a stage has to run, so a build with nothing to do stays instant and never
contacts a scheduler. `seqanim watch` keeps one local cluster for all its rebuilds (`session`). The local
workers are threads of the build's process, each starting its stages' processes, and Dask's logging stays silent.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from seqanim.errors import SeqanimError
from seqanim.files import FULL, disk_full
from seqanim.lecture.config import Lecture
from seqanim.workspace import current

_session: Any = None  # a client kept open across builds (seqanim watch)


def local_directory() -> Path:
    """This build process's local workers' folder: their stages' scratch workspaces."""
    return current().state_dir / "dask" / str(os.getpid())


def _quiet() -> None:
    """No library logging below WARNING, and none of Dask's: a task carries its inputs' bytes, and a killed
    worker is expected; neither is news for a lecturer. (manim, once imported to discover the scenes, logs
    the root logger's INFO records to stdout.)"""
    import distributed  # noqa: F401 - its import sets its loggers' levels: set them after it

    warnings.filterwarnings("ignore", module="distributed")
    warnings.filterwarnings("ignore", message=".*Large object.*")
    logging.getLogger().setLevel(logging.WARNING)
    for name in ("distributed", "dask_jobqueue", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _local(jobs: int) -> Any:
    import dask
    from distributed import LocalCluster

    dask.config.set({
        # Every stage is new to the scheduler (its duration unknown, 0.5 s by default), and a deck's inputs are
        # 150 MB: it would queue a ready deck behind the worker holding them rather than send them to an idle one.
        "distributed.scheduler.unknown-task-duration": "1h",
        # An idle local cluster of 2 workers used 15 % of a core, taken from the stages: a profiler sampling each
        # worker's task thread (which only waits for its stage's process) every 10 ms, and a 20 ms event-loop
        # tick.
        "distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s",
    })  # fmt: skip
    # Workers as threads of this process: a task only starts its stage's process and waits for it, so a worker
    # process of its own (a nanny, a fork server, distributed imported again in each) isolated nothing and cost
    # each build 0.9 s of start-up. The stages inherit this process's environment: its threads (OpenMP, MKL),
    # not the one-thread default Dask gives worker processes.
    return LocalCluster(
        n_workers=jobs,
        threads_per_worker=1,  # one stage at a time per worker
        processes=False,
        local_directory=str(local_directory()),
        dashboard_address=None,
        silence_logs=logging.CRITICAL,
    )


def _started(jobs: int) -> Any:
    """The local cluster, or one line saying why it did not start."""
    try:
        return _local(jobs)
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
    )
    cluster.scale(jobs=settings.batch_workers)
    return cluster


@contextmanager
def client(lecture: Lecture, jobs: int, scheduler: str | None) -> Iterator[tuple[Any, bool]]:
    """A Dask client for one build, and whether its workers are this machine's local cluster: the watch
    session's, or one to the configured cluster, closed after."""
    _quiet()
    if _session is not None:
        yield _session, True
        return
    from distributed import Client

    address = scheduler or lecture.build.scheduler
    cluster = None
    if address:
        try:
            connected = Client(address, timeout=f"{lecture.build.scheduler_timeout}s")
        except (OSError, TimeoutError):
            raise SeqanimError(
                f"cannot reach the Dask scheduler at {address} within {lecture.build.scheduler_timeout:g} s; start "
                "it with `dask scheduler`, or fix --scheduler / [build] scheduler (or wait longer: [build] "
                "scheduler_timeout)"
            ) from None
        services = connected.scheduler_info().get("services", {})
        board = connected.dashboard_link if "dashboard" in services else "none (the scheduler runs without one)"
        print(f"dask scheduler {address}; dashboard: {board}", file=sys.stderr)
    else:
        cluster = _batch(lecture) if lecture.build.cluster != "local" else _started(jobs)
        connected = Client(cluster)
        if lecture.build.cluster != "local":
            print(f"dask {lecture.build.cluster} cluster; dashboard: {connected.dashboard_link}", file=sys.stderr)
    try:
        yield connected, not address and lecture.build.cluster == "local"
    finally:
        _close(connected, cluster)


def _close(connected: Any, cluster: Any) -> None:
    connected.close()
    if cluster is not None:
        cluster.close()
    shutil.rmtree(local_directory(), ignore_errors=True)


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
