"""Execute a plan: run pending stages in parallel (one process each), restore from cache where possible,
record each stage only after its outputs are in place, and show one combined progress display."""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from seqanim import graph, launch
from seqanim.config import CONFIG_ENV, Lecture
from seqanim.errors import BuildLocked, DiskFull
from seqanim.files import atomic_write_text, digest, disk_full
from seqanim.workspace import WORKSPACE_ENV, current


@dataclass
class Outcome:
    ran: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # stage id -> one-line error
    skipped: list[str] = field(default_factory=list)  # not run because an input failed
    seconds: dict[str, float] = field(default_factory=dict)


@contextmanager
def build_lock() -> Iterator[None]:
    """One build at a time per tree; a second one fails at once instead of racing on outputs."""
    workspace = current()
    workspace.state_dir.mkdir(parents=True, exist_ok=True)
    with open(workspace.state_dir / "build.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildLocked("another seqanim build is running in this folder; wait for it or stop it") from None
        shutil.rmtree(workspace.staging, ignore_errors=True)  # leftovers of a killed build
        _remove_leftovers()
        yield


# What a stage writes beside an output before renaming it in place (files.py, render.py, decks/, graph.py):
# `.NAME.*.tmp`, `.NAME.old-PID`, `.NAME.restore-PID`, `.stage-DECK-*` (html), `.DECK-video-*` (the joined video).
LEFTOVER = re.compile(r"^\.(stage-|.*(\.tmp|\.old-\d|\.restore-\d|-video-))")


def _remove_leftovers() -> None:
    """Temporary files and folders a killed build left beside the outputs, and its half-stored cache entries:
    SIGKILL runs no cleanup. Called with the build lock held, when no other build can be writing them."""
    workspace = current()
    for folder in (*workspace.generated, workspace.cache):
        for path in list(folder.rglob(".*")) if folder.exists() else []:
            if LEFTOVER.match(path.name) or path.parent == workspace.cache:
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)


def resolved_config(lecture: Lecture) -> Path:
    """Write the validated parameters (with --set applied) where worker processes read them."""
    text = lecture.model_dump_json()
    path = current().state_dir / "run" / f"{digest(text)[:16]}.json"
    if not path.exists():
        atomic_write_text(path, text)
    return path


def _worker_argv(stage: graph.Stage) -> list[str]:
    """The stage's `python -m seqanim.worker` arguments."""
    argv = [stage.kind, stage.name]
    return argv + ["--quality", stage.quality] if stage.quality else argv


def _last_error(log: Path, exit_code: int | None = None) -> str:
    text = log.read_text(errors="replace") if log.exists() else ""
    lines = [line for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("error: "):
            return line.removeprefix("error: ")
    if exit_code == DiskFull.stage_exit_code:  # the error line did not fit on the disk either
        return str(disk_full(OSError(errno.ENOSPC, "no space"), current().state_dir))
    return (lines[-1] if lines else "failed with no output") + f" (log: {current().label(log)})"


def execute(
    lecture: Lecture,
    stages: dict[str, graph.Stage],
    todo: dict[str, str],
    *,
    jobs: int,
    console: Console,
    explicit: set[str] = frozenset(),  # type: ignore[assignment]
) -> Outcome:
    """Run the stages in `todo` (id -> reason) respecting dependencies, `jobs` processes at a time."""
    outcome = Outcome()
    state = graph.read_state()
    workspace = current()
    env = {
        **os.environ, CONFIG_ENV: str(resolved_config(lecture)), WORKSPACE_ENV: str(workspace.root),
        "SEQANIM_QUIET": "1", "PYTHONUNBUFFERED": "1",
    }  # fmt: skip
    workspace.logs.mkdir(parents=True, exist_ok=True)
    waiting = list(todo)
    running: dict[str, tuple[launch.Stage, float, int]] = {}
    kinds = {stages[stage_id].kind for stage_id in todo}
    priority = graph.priorities(stages, todo, state)
    done: set[str] = set()

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    # Live progress on a terminal only; logs and captured output get just the outcome.
    try:
        with Progress(
            *columns, console=console, transient=True, disable=not todo or not console.is_terminal
        ) as progress:
            overall = progress.add_task("[bold]build", total=len(todo))
            while waiting or running:
                # Longest chain first: on 2 cores a long training run started last would finish alone.
                waiting.sort(key=lambda stage_id: -priority[stage_id])
                for stage_id in list(waiting):
                    stage = stages[stage_id]
                    if any(dep in outcome.failed or dep in outcome.skipped for dep in stage.deps):
                        waiting.remove(stage_id)
                        outcome.skipped.append(stage_id)
                        progress.advance(overall)
                        continue
                    if any(dep in todo and dep not in done for dep in stage.deps) or len(running) >= jobs:
                        continue
                    waiting.remove(stage_id)
                    reason = todo[stage_id]
                    if (
                        "changed since it was built" in reason
                        or "made from other parameters" in reason
                        or "is corrupt" in reason
                    ):
                        if stage_id not in explicit:
                            fix = {"experiment": "precompute", "scene": "render", "deck": "slides"}.get(stage.kind)
                            command = f"seqanim {fix} {stage.name}" if fix else "seqanim build"
                            outcome.failed[stage_id] = f"{reason}; run `{command}` to rebuild it"
                            progress.advance(overall)
                            continue
                    if graph.cache_restore(stage):
                        graph.record(stage, state)
                        outcome.restored.append(stage_id)
                        done.add(stage_id)
                        progress.advance(overall)
                        continue
                    log = workspace.logs / f"{stage_id.replace(':', '-')}.log"
                    process = launch.Stage(_worker_argv(stage), log, env, workspace.root, kinds)
                    task = progress.add_task(f"{stage.kind} {stage.name}", total=None)
                    running[stage_id] = (process, time.perf_counter(), task)
                for stage_id, (process, started, task) in list(running.items()):
                    exit_code = process.poll()
                    if exit_code is None:
                        continue
                    del running[stage_id]
                    progress.remove_task(task)
                    progress.advance(overall)
                    stage = stages[stage_id]
                    outcome.seconds[stage_id] = round(time.perf_counter() - started, 2)
                    log = workspace.logs / f"{stage_id.replace(':', '-')}.log"
                    if exit_code == 0 and all(path.exists() for path in stage.outputs):
                        graph.record(stage, state, outcome.seconds[stage_id])
                        graph.cache_store(stage)
                        outcome.ran.append(stage_id)
                        done.add(stage_id)
                    else:
                        outcome.failed[stage_id] = _last_error(log, exit_code)
                if running:  # until a stage ends (or the spinner's next tick), not a fixed poll interval
                    wait([process.sentinel for process, _, _ in running.values()], timeout=0.1)
    except BaseException:  # Ctrl-C or a bug here: stop the stages instead of waiting for them at exit
        for process, _, _ in running.values():
            process.kill()
        raise
    graph.cache_trim(lecture.build.cache_mb)
    return outcome
