"""One build stage as a Dask task: `run_stage(request, *inputs)` runs the stage on its worker and returns the
stage's output files as bytes. Nothing is written to the project here; the build process publishes them.

The worker runs its own checkout's code: a local cluster's workers are this checkout's processes, and a remote
worker (`dask worker ADDRESS --preload seqanim.engine.preload`) runs the clone it was started in. The request carries
a digest of the build's code; a worker whose `seqanim/`, `precompute/` and `scenes/` differ refuses the stage
in one line naming both commits.

The stage runs in a scratch workspace in the worker's folder: its inputs (the results of the stages it reads,
passed by Dask) are written there, the lecture's folders are links into the checkout, and the caches
(`.seqanim/voice`, `.seqanim/media`) are the checkout's own. It runs in a child forked from the worker, which
imported torch and manim once (seqanim.engine.preload); the child imports the project's code afresh. It leads a
process group of its own (LaTeX, ffmpeg and chromium go with it), which is killed when the worker dies (the
child watches a pipe) or when Dask cancels the task (the build stopped or was killed).
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

TOPIC = "seqanim-stage"  # the workers' "stage started" events, which the build's display follows
ENGINE = Path(__file__).resolve().parent.parent
CODE = ("precompute", "scenes")  # the lecture's code; with seqanim/, what the code digest covers
FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def constant(value: Any) -> Any:
    """A value as a task: an input already built, kept in the graph so a worker that dies holding it loses nothing."""
    return value


def code_digest(root: Path) -> str:
    """A hash of the engine (this seqanim/) and of `root`'s precompute/ and scenes/, file by file."""
    hasher = hashlib.sha256()
    for name, folder in (("seqanim", ENGINE), *((name, root / name) for name in CODE)):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                label = f"{name}/{path.relative_to(folder).as_posix()}"
                hasher.update(label.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return hasher.hexdigest()


def commit(checkout: Path) -> str:
    """The checkout's commit, as the message of a refused stage names it."""
    git = ["git", "-C", str(checkout)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "an unknown commit (not a git checkout)"
    changes = subprocess.run([*git, "status", "--porcelain", "--", "seqanim", *CODE], capture_output=True, text=True)
    return head.stdout.strip() + (" (with uncommitted changes)" if changes.stdout.strip() else "")


def read_outputs(root: Path, labels: list[str]) -> dict[str, bytes]:
    """Files under `root` by label (a folder: every file inside, by its own label)."""
    files: dict[str, bytes] = {}
    for label in labels:
        path = root / label
        for item in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if item.is_file():
                files[item.relative_to(root).as_posix()] = item.read_bytes()
    return files


def run_stage(request: dict[str, Any], *inputs: dict[str, Any]) -> dict[str, Any]:
    """Run the stage `request` names, with `inputs` (the results of the stages it reads) as its input files.

    Returns {"ok": True, "files": {label: bytes}, "folders": [...], "log", "worker", "seconds"} when the stage
    succeeded; {"ok": False, "log", "exit_code", ...} when it failed; {"ok": False, "error": line} when the
    worker refused it; {"ok": False, "disk_full": path} when the worker's disk is full; and {"ok": False,
    "skipped": True} at once when an input failed.
    """
    from distributed import get_worker

    if not all(result["ok"] for result in inputs):
        return {"ok": False, "skipped": True}
    worker = get_worker()
    worker.log_event(TOPIC, {"stage": request["stage"], "worker": worker.address, "build": request["build"]})
    # A local cluster runs the build's own lecture folders; a remote worker the checkout it was started in.
    checkout = Path(request["root"]) if request["root"] else ENGINE.parent
    if code_digest(checkout) != request["code"]:
        return {"ok": False, "error": _refusal(worker.address, checkout, request)}
    tasks = Path(worker.local_directory) / "seqanim" / "tasks"
    scratch = None
    try:
        tasks.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=request["stage"].replace(":", "-") + "-", dir=tasks))
        _lay_out(scratch, checkout, request, inputs)
        started = time.perf_counter()
        exit_code = _run_child(scratch, request, worker)
        log_file = scratch / ".seqanim" / "task.log"
        log = log_file.read_text(errors="replace") if log_file.exists() else ""
        result = {"ok": exit_code == 0, "exit_code": exit_code, "log": log, "worker": worker.address}
        if exit_code != 0:
            return result
        missing = [label for label in request["outputs"] if not (scratch / label).exists()]
        if missing:
            return {**result, "ok": False, "log": log + f"\noutput missing: {missing[0]}"}
        folders = [label for label in request["outputs"] if (scratch / label).is_dir()]
        seconds = round(time.perf_counter() - started, 2)
        return {**result, "seconds": seconds, "folders": folders, "files": read_outputs(scratch, request["outputs"])}
    except OSError as error:  # the worker's disk is full: the stage's failure, said in one line by the build
        if error.errno not in FULL:
            raise
        where = str(error.filename or scratch or worker.local_directory)
        return {"ok": False, "disk_full": where, "errno": error.errno, "worker": worker.address}
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _refusal(address: str, checkout: Path, request: dict[str, Any]) -> str:
    """Why a worker whose code differs from the build's does not run the stage."""
    if request["root"]:  # the build's own folders: edited while it ran, after its keys were computed
        return "seqanim/, precompute/ or scenes/ changed while the build ran; build again"
    build = request["commit"]
    return (
        f"worker {address} runs seqanim at commit {commit(checkout)}, the build is at {build}; "
        f"check out {build.split()[0]} there and restart the worker"
    )


def _lay_out(scratch: Path, checkout: Path, request: dict[str, Any], inputs: tuple[dict[str, Any], ...]) -> None:
    """A workspace: links to the code and the lecture's folders, the parameters, the input files, the caches."""
    for name in request["links"]:  # seqanim, precompute, scenes, node_modules, narration, a voice model's folder
        source = ENGINE if name == "seqanim" else checkout / name
        if source.exists():
            (scratch / name).symlink_to(source)
    (scratch / "lecture.toml").write_text(request["lecture_toml"])
    state = scratch / ".seqanim"
    (state / "run").mkdir(parents=True)
    (state / "run" / "lecture.json").write_text(request["config"])
    for cache in ("voice", "media"):  # voice clips, manim's LaTeX and partial movies: shared by the checkout's stages
        (checkout / ".seqanim" / cache).mkdir(parents=True, exist_ok=True)
        (state / cache).symlink_to(checkout / ".seqanim" / cache)
    for result in inputs:
        for label, payload in result["files"].items():
            path = scratch / label
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(payload)


def _run_child(scratch: Path, request: dict[str, Any], worker: Any) -> int:
    """Fork the stage's process and wait for it; kill its process group if Dask cancels the task.

    os.fork, not multiprocessing: a worker under a nanny is a daemonic process, which multiprocessing
    forbids to have children.
    """
    watched, held = os.pipe()  # the child reads EOF from `watched` the moment this process dies
    pid = os.fork()
    if pid == 0:
        os.close(held)
        code = 1
        try:
            _child(scratch, request, watched)
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
    key = worker.get_current_task()
    try:
        while True:
            ended, status = os.waitpid(pid, os.WNOHANG)
            if ended:
                return os.waitstatus_to_exitcode(status)
            task = worker.state.tasks.get(key)
            if task is None or task.state == "cancelled":  # the build stopped, or its client is gone
                os.killpg(pid, signal.SIGKILL)
            time.sleep(0.2)
    finally:
        os.close(held)


def _child(scratch: Path, request: dict[str, Any], watched: int) -> None:
    """In the forked child: lead a process group that dies with the worker, log to the scratch workspace, and
    run `seqanim.engine.worker` there."""
    os.setpgid(0, 0)

    def watch() -> None:
        os.read(watched, 1)  # nothing is ever written: returns when the worker's end closes
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, name="die-with-the-worker", daemon=True).start()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.environ.update(request["env"])
    os.environ.update({
        "SEQANIM_WORKSPACE": str(scratch), "SEQANIM_CONFIG_JSON": str(scratch / ".seqanim" / "run" / "lecture.json"),
        "PYTHONPATH": str(scratch), "SEQANIM_QUIET": "1", "PYTHONUNBUFFERED": "1",
    })  # fmt: skip
    os.chdir(scratch)
    # The worker has seqanim's modules loaded (multiprocessing ran the build's command as its __main__): the
    # stage imports the code on disk afresh, and finds the workspace it runs in.
    for name in [name for name in sys.modules if name.split(".")[0] in ("seqanim", *CODE)]:
        del sys.modules[name]
    sys.path.insert(0, str(scratch))
    log = os.open(scratch / ".seqanim" / "task.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(log, 1)  # the stage's output and its tools' (LaTeX, ffmpeg): its log, which goes back to the build
    os.dup2(log, 2)
    os.close(log)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    from seqanim.engine.worker import main

    main(request["argv"], prog_name="seqanim.engine.worker")
