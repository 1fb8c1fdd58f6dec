"""One build stage as a Dask task: `run_stage(request, *inputs)` runs the stage on its worker and returns the
stage's output files as bytes, or raises StageFailed. Nothing is written to the project here; the build
process publishes the files.

The worker runs its own checkout's code: a local cluster's workers are threads of the build's process, and a remote
worker (`dask worker ADDRESS --nthreads 1`) runs the clone it was started in. The request carries a digest of
the build's code; a worker whose `seqanim/`, `precompute/` and `scenes/` differ refuses the stage in one line
naming both commits.

The stage runs as `python -m seqanim.engine.worker` in a scratch workspace in the worker's folder: its inputs
(the files of the stages it reads, passed by Dask) are written there, the lecture's folders are links into the
checkout, and the caches (`.seqanim/voice`, `.seqanim/media`) are the checkout's own. The process leads a
session and process group of its own (LaTeX, ffmpeg and chromium are in it), killed whole when Dask cancels the
task or when the stage ends leaving a tool behind, and killed by itself when the worker dies
(seqanim.engine.worker watches a pipe the worker holds).
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from seqanim.errors import DiskFull, StageFailed
from seqanim.files import FULL, disk_full
from seqanim.workspace import ENGINE

TOPIC = "seqanim-stage"  # the workers' "stage started" events, which the build's display follows
CODE = ("precompute", "scenes")  # the lecture's code; with seqanim/, what the code digest covers
# glibc keeps up to 256 MB of freed memory instead of returning it to the OS: under Dask's worker environment
# (a 64 KB trim threshold) a high-quality render of EchoOfAPulse page-faulted its frames back in, 3.6-7.3
# million faults instead of 0.2 million, and took 1.8x the CPU time; the training stages ~5 % more.
MALLOC = {"MALLOC_TRIM_THRESHOLD_": str(256 << 20), "MALLOC_MMAP_THRESHOLD_": str(32 << 20)}


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

    Returns {"files": {label: bytes}, "folders": [...], "log", "seconds"}; raises StageFailed when the stage
    failed, the worker refused it or its disk is full. Dask runs no stage whose input failed: it hands the
    input's StageFailed to the build instead.
    """
    from distributed import get_worker

    worker = get_worker()
    stage = request["stage"]
    worker.log_event(TOPIC, {"stage": stage, "worker": worker.address, "build": request["build"]})
    # A local cluster runs the build's own lecture folders; a remote worker the checkout it was started in.
    checkout = Path(request["root"]) if request["root"] else ENGINE.parent
    if code_digest(checkout) != request["code"]:
        raise StageFailed(_refusal(worker.address, checkout, request), stage)
    tasks = Path(worker.local_directory) / "seqanim" / "tasks"
    try:
        tasks.mkdir(parents=True, exist_ok=True)
        prefix = re.sub(r"[^\w.=@-]+", "-", stage)  # a variant's string value may hold a slash
        with tempfile.TemporaryDirectory(prefix=prefix + "-", dir=tasks) as folder:
            scratch = Path(folder)
            _lay_out(scratch, checkout, request, inputs)
            started = time.perf_counter()
            exit_code, output = _run(scratch, request, worker)
            log = f"ran on worker {worker.address}\n{output}"
            missing = [label for label in request["outputs"] if not (scratch / label).exists()]
            if exit_code != 0 or missing:
                line = _last_line(output) if exit_code else f"output missing: {missing[0]}"
                raise StageFailed(line, stage, log, exit_code == DiskFull.stage_exit_code)
            files = read_outputs(scratch, request["outputs"])
            folders = [label for label in request["outputs"] if (scratch / label).is_dir()]
            return {"files": files, "folders": folders, "log": log, "seconds": round(time.perf_counter() - started, 2)}
    except StageFailed:
        raise
    except Exception as error:  # the worker's own disk is full (laying out the stage, reading its outputs), or a bug
        if getattr(error, "errno", None) not in FULL:
            line = f"the task failed on worker {worker.address}: {type(error).__name__}: {error}"
            raise StageFailed(line, stage) from error
        if request["root"]:  # a local worker: the project's own disk
            full = disk_full(error, Path(request["published"]) / request["outputs"][0])
            raise StageFailed(str(full), stage, "", True) from None
        where = error.filename or tasks
        line = f"no space left on worker {worker.address}'s disk ({where}); free some space there and build again"
        raise StageFailed(line, stage, disk_full=True) from None


def _refusal(address: str, checkout: Path, request: dict[str, Any]) -> str:
    """Why a worker whose code differs from the build's does not run the stage."""
    if request["root"]:  # the build's own folders: edited while it ran, after its keys were computed
        return "seqanim/, precompute/ or scenes/ changed while the build ran; build again"
    build = request["commit"]
    return (
        f"worker {address} runs seqanim at commit {commit(checkout)}, the build is at {build}; "
        f"check out {build.split()[0]} there and restart the worker"
    )


def _last_line(output: str) -> str:
    """A failed stage's one line: its `error:` line, else its last line (at most 2,000 characters: Dask cuts a
    longer exception's message)."""
    lines = [line for line in output.splitlines() if line.strip()]
    errors = [line.removeprefix("error: ") for line in lines if line.startswith("error: ")]
    return (errors[-1] if errors else (lines[-1] if lines else "failed with no output"))[:2000]


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
    # Voice clips, and manim's LaTeX and partial movies: shared by the checkout's stages of one parameter set (a
    # variant's renders keep their own media, so a scene's and its variant's partial movies do not replace each other).
    for cache, shared in (("voice", ".seqanim/voice"), ("media", request["media"])):
        (checkout / shared).mkdir(parents=True, exist_ok=True)
        (state / cache).symlink_to(checkout / shared)
    for result in inputs:
        for label, payload in result["files"].items():
            path = scratch / label
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(payload)


def _run(scratch: Path, request: dict[str, Any], worker: Any) -> tuple[int, str]:
    """Run the stage's process and return its exit code and output; kill its session if Dask cancels the task
    (the build stopped, or its client is gone)."""
    watched, held = os.pipe()  # the stage reads EOF from `watched` the moment this process dies
    env = {
        **os.environ, **MALLOC, **request["env"], "SEQANIM_WORKER_PIPE": str(watched),
        "SEQANIM_WORKSPACE": str(scratch), "SEQANIM_CONFIG_JSON": str(scratch / ".seqanim" / "run" / "lecture.json"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(scratch), os.environ.get("PYTHONPATH")])),
        "PYTHONUNBUFFERED": "1",
    }  # fmt: skip
    command = [sys.executable, "-m", "seqanim.engine.worker", *request["argv"]]
    key = worker.get_current_task()
    try:
        stage = subprocess.Popen(
            command, cwd=scratch, env=env, pass_fds=[watched], start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        os.close(watched)
        watched = -1
        while True:
            try:
                output, _ = stage.communicate(timeout=0.2)
                return stage.returncode, output.decode(errors="replace")
            except subprocess.TimeoutExpired:
                task = worker.state.tasks.get(key)
                ended = os.waitid(os.P_PID, stage.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
                # Cancelled (the build stopped, or its client is gone), or ended with a tool left holding its output.
                if ended or task is None or task.state == "cancelled":
                    os.killpg(stage.pid, signal.SIGKILL)
    finally:
        os.close(held)
        if watched != -1:
            os.close(watched)
