"""One build stage as a Dask task, on any worker: it receives what the stage reads and returns what it writes.

The worker needs the project's Python packages (torch, manim, ...), not the project: the lecture's code
comes with the task (a zip, unpacked once per worker and code version), so does every input file, and the
outputs go back as bytes for the client to check and publish. Nothing is written to the project from here.

On the client's own machine (a local cluster) the bytes need not travel: a task links its inputs from the
project and leaves its outputs in its scratch folder, on the project's disk, for the client to rename in.

Isolation is today's one process per stage: the task forks a child from the worker, which has imported
torch and manim once (seqanim.preload) but never runs stage code itself. The child starts with the
worker's clean module state, runs `seqanim.worker` in a scratch copy of the workspace, and dies with the
worker (it watches the worker's end of a pipe), so a killed worker leaves no stage behind.

This module is sent to workers by value (cloudpickle), so it imports nothing of seqanim's.
"""

from __future__ import annotations

import ctypes
import errno
import io
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

TOPIC = "seqanim-stage"  # the worker's events the client's progress display follows


def constant(value: Any) -> Any:
    """A value as a task: kept in the task graph, so a worker that dies holding it loses nothing."""
    return value


def run_stage(request: dict[str, Any], *inputs: dict[str, Any]) -> dict[str, Any]:
    """Run the stage `request` names. `inputs`: the results of the stages it reads. The code bundle (a zip)
    is in the Dask variable request["code_key"], fetched only by a worker that has not unpacked it yet:
    as an argument it would be a dependency, and Dask places a task where its dependencies are (every
    stage went to the one worker holding the code while the other idled).

    Returns {"ok": True, "files": {label: bytes}, "folders": [...], "log": str} when the stage succeeded
    (with request["project"] set: "scratch", the folder holding the outputs, instead of "files"), and
    {"ok": False, "exit_code": int, "log": str} when it failed.
    """
    worker = _worker()
    base = Path(worker.local_directory if worker else tempfile.gettempdir()) / "seqanim"
    address = worker.address if worker else "local"
    if worker is not None:
        worker.log_event(TOPIC, {"stage": request["stage"], "worker": address, "build": request["build"]})
    try:
        code_dir = _unpack(request["code_key"], request["code_digest"], base)
        (base / "tasks").mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=request["stage"].replace(":", "-") + "-", dir=base / "tasks"))
    except OSError as error:
        return _failed_writing(error, address, request)
    started = time.perf_counter()
    handed_over = False
    try:
        _lay_out(scratch, code_dir, request, inputs)
        exit_code = _run_child(scratch, request, worker)
        log_file = scratch / ".seqanim" / "task.log"
        log = log_file.read_text(errors="replace") if log_file.exists() else ""
        if exit_code != 0:
            return {"ok": False, "exit_code": exit_code, "log": log, "worker": address}
        missing = [label for label in request["outputs"] if not (scratch / label).exists()]
        if missing:
            return {"ok": False, "exit_code": 0, "log": log + f"\noutput missing: {missing[0]}", "worker": address}
        folders = [label for label in request["outputs"] if (scratch / label).is_dir()]
        seconds = round(time.perf_counter() - started, 2)
        result = {"ok": True, "folders": folders, "log": log, "worker": address, "seconds": seconds}
        if request.get("project"):
            handed_over = True  # the client renames the outputs in, then removes the folder
            return {**result, "scratch": str(scratch)}
        return {**result, "files": _collect(scratch, request["outputs"])}
    except OSError as error:
        return _failed_writing(error, address, request)
    finally:
        if not handed_over:
            shutil.rmtree(scratch, ignore_errors=True)


def _failed_writing(error: OSError, address: str, request: dict[str, Any]) -> dict[str, Any]:
    """A full disk on the worker is the stage's failure, said in one line by the client; anything else is a bug."""
    if error.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        raise error
    where = str(error.filename or "its scratch folder")
    local = bool(request.get("project"))
    return {
        "ok": False,
        "exit_code": 28,
        "log": "",
        "worker": address,
        "disk_full": where,
        "errno": error.errno,
        "local": local,
    }


def _worker() -> Any:
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):  # called outside a worker (a direct call in a test)
        return None


def _unpack(code_key: str, code_digest: str, base: Path) -> Path:
    """The code bundle as a folder, once per worker and code version (the last few versions are kept)."""
    folder = base / f"code-{code_digest[:16]}"
    if not folder.exists():
        from distributed import Variable, worker_client

        with worker_client() as client:  # leaves the worker's thread free meanwhile, should it have to compute it
            code = Variable(code_key, client=client).get().result()
        base.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".code-", dir=base))
        zipfile.ZipFile(io.BytesIO(code)).extractall(staging)
        try:
            os.replace(staging, folder)
        except OSError:  # another task of this worker got there first
            shutil.rmtree(staging, ignore_errors=True)
        for old in sorted(base.glob("code-*"), key=lambda path: path.stat().st_mtime)[:-4]:
            shutil.rmtree(old, ignore_errors=True)
    os.utime(folder)
    return folder


def _lay_out(scratch: Path, code_dir: Path, request: dict[str, Any], inputs: tuple[dict[str, Any], ...]) -> None:
    """A workspace: the code (links into the bundle), the parameters, the input files, the build's caches."""
    for entry in code_dir.iterdir():  # seqanim/, precompute/, scenes/, and node_modules/, narration/ if sent
        (scratch / entry.name).symlink_to(entry)
    (scratch / "lecture.toml").write_text(request["lecture_toml"])
    state = scratch / ".seqanim"
    (state / "run").mkdir(parents=True)
    (state / "run" / "lecture.json").write_text(request["config"])
    # On the client's machine (a local cluster) a stage shares the build's caches: voice clips, manim's
    # LaTeX and partial movies. Elsewhere it starts without them and nothing of it stays on the worker.
    if request.get("caches"):
        for cache in ("voice", "media"):
            (Path(request["caches"]) / cache).mkdir(parents=True, exist_ok=True)
            (state / cache).symlink_to(Path(request["caches"]) / cache)
    for result in inputs:
        for label, payload in result.get("files", {}).items():
            path = scratch / label
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(payload)
        for label in result.get("linked", []):  # a local cluster: the published file itself, not a copy
            _link_tree(Path(request["project"]) / label, scratch / label, copy=result.get("copy", False))


def _link_tree(source: Path, target: Path, copy: bool) -> None:
    """A hard link to each file (outputs are replaced by rename, never edited, so the published one stays
    whole); a copy where the stage may rewrite it in place, or where links are not possible."""
    for item in sorted(source.rglob("*")) if source.is_dir() else [source]:
        if not item.is_file():
            continue
        destination = target / item.relative_to(source) if source.is_dir() else target
        destination.parent.mkdir(parents=True, exist_ok=True)
        if not copy:
            try:
                os.link(item, destination)
                continue
            except OSError as error:  # another disk, or a filesystem without links: copy it
                if error.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise
        shutil.copyfile(item, destination)


def _run_child(scratch: Path, request: dict[str, Any], worker: Any) -> int:
    """Fork the stage's process and wait for it; stop it when the build is cancelled.

    os.fork, not multiprocessing: a worker under a nanny is a daemonic process, which multiprocessing
    forbids to have children.
    """
    watched, held = os.pipe()  # the child reads EOF from `watched` the moment this process dies
    pid = os.fork()
    if pid == 0:
        os.close(held)
        code = 1
        try:
            _child(scratch, request["argv"], request["env"], watched)
        except SystemExit as end:
            code = end.code if isinstance(end.code, int) else (0 if end.code is None else 1)
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(watched)
    stop = _stop_event(request["build"]) if worker is not None else None
    try:
        tick = 0
        while True:
            ended, status = os.waitpid(pid, os.WNOHANG)
            if ended:
                return os.waitstatus_to_exitcode(status)
            tick += 1
            if stop is not None and tick % 5 == 0 and _is_set(stop):  # asks the scheduler once a second
                _kill_group(pid)
            time.sleep(0.2)
    finally:
        os.close(held)


def _stop_event(build: str) -> Any:
    try:
        from distributed import Event

        return Event(f"seqanim-stop-{build}")
    except Exception:  # no scheduler to ask: the stage runs to its end
        return None


def _is_set(event: Any) -> bool:
    try:
        return bool(event.is_set())
    except Exception:  # the scheduler went away: the worker is about to go too
        return False


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def _child(scratch: Path, argv: list[str], env: dict[str, str], watched: int) -> None:
    """In the forked child: its own process group (LaTeX, ffmpeg and the cards renderer die with it), dead the
    moment the worker is, and seqanim's modules imported afresh from the bundle, not the worker's."""
    os.setpgid(0, 0)

    def watch() -> None:
        os.read(watched, 1)  # nothing is ever written: returns when the worker's end closes
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, name="die-with-the-worker", daemon=True).start()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _keep_freed_memory()
    os.environ.update(env)
    os.environ.update({
        "SEQANIM_WORKSPACE": str(scratch), "SEQANIM_CONFIG_JSON": str(scratch / ".seqanim" / "run" / "lecture.json"),
        "PYTHONPATH": str(scratch), "SEQANIM_QUIET": "1", "PYTHONUNBUFFERED": "1",
    })  # fmt: skip
    os.chdir(scratch)
    for name in [name for name in sys.modules if name.split(".")[0] in ("seqanim", "precompute", "scenes")]:
        del sys.modules[name]
    sys.path.insert(0, str(scratch))
    descriptor = os.open(scratch / ".seqanim" / "task.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(descriptor, 1)
    os.dup2(descriptor, 2)
    os.close(descriptor)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    from seqanim.worker import main

    main(argv, prog_name="seqanim.worker")


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def _keep_freed_memory() -> None:
    """glibc returns large freed blocks to the OS, so a training loop page-faults its temporaries back in on
    every step; keeping up to 256 MB around makes the adding and seq2seq experiments ~5 % faster (and undoes
    a worker's MALLOC_TRIM_THRESHOLD_, which Dask sets to 64 KB)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to tune
        return
    libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)
    libc.mallopt(M_TRIM_THRESHOLD, 256 << 20)


def _collect(scratch: Path, outputs: list[str]) -> dict[str, bytes]:
    """The stage's output files (a folder's: every file inside) as bytes, by workspace label."""
    files: dict[str, bytes] = {}
    for label in outputs:
        path = scratch / label
        for item in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if item.is_file():
                files[item.relative_to(scratch).as_posix()] = item.read_bytes()
    return files
