"""Execute a plan: restore what the cache holds, hand every other pending stage to Dask at once, publish each
stage's outputs atomically as its task returns them, and record the stage only then.

Each stage is one Dask future (seqanim.engine.task.run_stage). Its arguments are the futures of the stages it reads,
whose results are their output files as bytes, or for an input built earlier, its files read from the
project. Dask decides where and when each stage runs; its priority is the expected length of the chain of
stages waiting on it (graph.priorities), so the longest chain starts first. A stage that fails raises
StageFailed, which Dask hands to the stages that read it instead of running them (they are skipped). Only this
process writes to the project: each output file by a rename, each output folder swapped in whole.

On a terminal a progress display follows the stages; otherwise each finished stage prints one line.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from seqanim.engine import cluster, graph, task
from seqanim.errors import BuildLocked, DiskFull, SeqanimError, StageFailed
from seqanim.files import atomic_write_bytes, atomic_write_text, naming_a_full_disk, remove_orphans, replace_dir
from seqanim.lecture.config import CONFIG_ENV, Lecture
from seqanim.stages import KINDS
from seqanim.workspace import ENGINE, WORKSPACE_ENV, current


@dataclass
class Outcome:
    ran: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # stage id -> one-line error
    skipped: list[str] = field(default_factory=list)  # not run because an input failed (or the disk is full)
    seconds: dict[str, float] = field(default_factory=dict)
    disk_full: bool = False  # a stage found the disk full: no other stage starts, and one line says so


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
        remove_orphans(workspace.state_dir / "dask")  # local workers' folders of killed builds
        yield


# What a stage writes beside an output before renaming it in place (files.py, render.py, decks/, graph.py):
# `.NAME.*.tmp`, `.NAME.old-PID`, `.NAME.restore-PID`, `.stage-DECK-*` (html), `.DECK-video-*` (the joined video).
LEFTOVER = re.compile(r"^\.(stage-|.*(\.tmp|\.old-\d|\.restore-\d|-video-))")


def _remove_leftovers() -> None:
    """Temporary files and folders a killed build left beside the outputs, and its half-stored cache entries:
    SIGKILL runs no cleanup. Called with the build lock held, when no other build can be writing them."""
    workspace = current()
    for folder in (*workspace.generated, workspace.cache, workspace.variants):
        for path in list(folder.rglob(".*")) if folder.exists() else []:
            if LEFTOVER.match(path.name) or path.parent == workspace.cache:
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)


def _refused(stage: graph.Stage, reason: str, explicit: set[str]) -> str | None:
    """A damaged output is rebuilt only on request: the line says which command rebuilds it."""
    damaged = ("changed since it was built", "made from other parameters", "is corrupt")
    if stage.id in explicit or stage.variant or not any(words in reason for words in damaged):
        return None  # (a variant's outputs are not the lecturer's own: they are rebuilt)
    # The quality is named: the fix rebuilds this output, whatever quality lecture.toml's [render] says.
    at = f" --quality {stage.quality}" if stage.quality else ""
    command = f"seqanim {KINDS[stage.kind].rebuild} {stage.name}{at}"
    return f"{reason}; run `{command}` to rebuild it"


def execute(
    lecture: Lecture,
    stages: dict[str, graph.Stage],
    todo: dict[str, str],
    *,
    jobs: int,
    console: Console,
    explicit: set[str] = frozenset(),  # type: ignore[assignment]
    scheduler: str | None = None,
) -> Outcome:
    """Run the stages in `todo` (id -> reason): restored from the cache, or as Dask tasks on the local cluster
    of `jobs` workers (or the scheduler's workers)."""
    outcome = Outcome()
    state = graph.read_state()
    current().logs.mkdir(parents=True, exist_ok=True)
    to_run: list[str] = []
    for stage_id, reason in todo.items():  # in dependency order: a stage's inputs are decided before it
        stage = stages[stage_id]
        refusal = _refused(stage, reason, explicit)
        if refusal is not None:
            outcome.failed[stage_id] = refusal
        elif _blocked(stage, outcome):
            outcome.skipped.append(stage_id)
        elif graph.cache_restore(stage):
            graph.record(stage, state)
            outcome.restored.append(stage_id)
        else:
            to_run.append(stage_id)
    if to_run:
        with cluster.client(lecture, max(1, min(jobs, len(to_run))), scheduler) as (client, local):
            _run(client, local, lecture, stages, to_run, state, outcome, console)
    graph.cache_trim(lecture.build.cache_mb)
    return outcome


def _blocked(stage: graph.Stage, outcome: Outcome) -> bool:
    return any(dep in outcome.failed or dep in outcome.skipped for dep in stage.deps)


def _run(
    client: Any,
    local: bool,
    lecture: Lecture,
    stages: dict[str, graph.Stage],
    to_run: list[str],
    state: dict[str, Any],
    outcome: Outcome,
    console: Console,
) -> None:
    """Submit every stage in `to_run` to Dask with its inputs, then publish each as it finishes."""
    from distributed import as_completed

    build = uuid.uuid4().hex[:8]
    display = _Display(console, stages, len(to_run))  # following the workers' events: before any stage starts
    client.subscribe_topic(task.TOPIC, lambda event: display.started(event[1]) if event[1]["build"] == build else None)
    request, priority = _request(lecture, build, local), graph.priorities(stages, to_run, state)
    futures = _submit(client, lecture, stages, to_run, request, priority)  # stage id -> its future, until published
    try:
        with display.progress:
            for future in as_completed(list(futures.values())):
                stage_id = future.key.rsplit("#", 1)[0]
                display.finishing(stage_id)
                _finish(stages[stage_id], futures.pop(stage_id), state, outcome)
                display.finished(stage_id, outcome)
                if outcome.disk_full:  # no other stage starts; those running stop
                    client.cancel(list(futures.values()))
    except BaseException:  # Ctrl-C or a bug here: stop the stages on every worker, not only this machine's
        client.cancel(list(futures.values()), force=True)
        raise
    finally:
        client.unsubscribe_topic(task.TOPIC)
        display.write_timeline()


def _submit(
    client: Any,
    lecture: Lecture,
    stages: dict[str, graph.Stage],
    to_run: list[str],
    request: dict[str, Any],
    priority: dict[str, float],
) -> dict[str, Any]:
    """One future per stage, with the futures of the stages it reads; an input built earlier goes as its files."""
    futures: dict[str, Any] = {}
    configs = {"": lecture.model_dump_json()}
    for variant in (stages[stage_id].variant for stage_id in to_run):
        if variant and variant.setting not in configs:
            configs[variant.setting] = variant.lecture(lecture).model_dump_json()
    built: dict[str, Any] = {}  # stage id -> its files, as a task: sent once, kept if a worker dies
    for stage_id in to_run:  # in dependency order: a stage's inputs are submitted before it
        stage = stages[stage_id]
        for dep in stage.deps:
            if dep not in futures and dep not in built:
                files = {"files": task.read_outputs(stages[dep].root, stages[dep].labels())}
                built[dep] = client.submit(task.constant, files, key=f"files-{dep}#{request['build']}")
        inputs = [futures[dep] if dep in futures else built[dep] for dep in stage.deps]
        # A deck's title and divider cards: reused by the export while unchanged.
        cards = [label for label in stage.labels() if "/cards/" in label and (stage.root / label).exists()]
        if cards:
            inputs.append({"files": task.read_outputs(stage.root, cards)})
        futures[stage_id] = client.submit(
            task.run_stage, {**request, **_stage_request(stage, configs)}, *inputs,
            key=f"{stage_id}#{request['build']}", priority=round(priority[stage_id] * 100), pure=False,
        )  # fmt: skip
    return futures


def _request(lecture: Lecture, build: str, local: bool) -> dict[str, Any]:
    """What every task of this build needs besides its inputs: the parameters, the code it must run (a
    digest), and where its lecture's folders are (a local cluster: this project; else the worker's checkout)."""
    workspace = current()
    links = ["seqanim", "precompute", "scenes", "node_modules", "narration"]
    model = Path(lecture.publish.voice_model)
    if lecture.publish.voice_model and not model.is_absolute():  # a Piper voice inside the lecture's folder
        links.append(model.parts[0])
    passed = {k: v for k, v in os.environ.items() if k.startswith("SEQANIM_") and k not in (CONFIG_ENV, WORKSPACE_ENV)}
    return {
        "build": build, "env": passed, "links": links,
        "lecture_toml": workspace.config.read_text() if workspace.config.exists() else "",
        "code": task.code_digest(workspace.root), "commit": task.commit(ENGINE.parent),
        "root": str(workspace.root) if local else None,
    }  # fmt: skip


def _stage_request(stage: graph.Stage, configs: dict[str, str]) -> dict[str, Any]:
    """The stage's own part of a request: its command, its outputs, and the parameters it runs with (`configs`:
    the lecture's under "", each variant's under its setting)."""
    argv = [stage.kind, stage.name] + (["--quality", stage.quality] if stage.quality else [])
    config = configs[stage.variant.setting if stage.variant else ""]
    media = current().label(stage.root / "media") if stage.variant else ".seqanim/media"
    return {
        "stage": stage.id, "argv": argv, "outputs": stage.labels(), "config": config, "media": media,
        "published": str(stage.root),
    }  # fmt: skip


def _finish(stage: graph.Stage, future: Any, state: dict[str, Any], outcome: Outcome) -> None:
    """Publish a finished task's outputs and record the stage; or note why it failed or did not run."""
    if future.cancelled() or _blocked(stage, outcome):  # the disk is full, the build stops, or an input failed
        outcome.skipped.append(stage.id)
        return
    try:
        result = future.result()
    except StageFailed as error:
        if error.stage != stage.id:  # an input's failure, which Dask handed on: this stage did not run
            outcome.skipped.append(stage.id)
        else:
            _failed(stage, _line(stage, error), error.disk_full, outcome)
        return
    except Exception as error:  # the task itself broke (its worker died too often), or an input's did
        if getattr(error, "task", future.key) != future.key:
            outcome.skipped.append(stage.id)
        else:
            outcome.failed[stage.id] = _task_error(error)
        return
    _write_log(stage, result["log"])
    try:
        _publish(stage, result["files"], set(result["folders"]))
    except DiskFull as error:  # the project's disk is full: the outputs stay as they were
        _failed(stage, str(error), True, outcome)
        return
    outcome.seconds[stage.id] = result["seconds"]
    graph.record(stage, state, result["seconds"])
    graph.cache_store(stage)
    outcome.ran.append(stage.id)


def _failed(stage: graph.Stage, line: str, disk_full: bool, outcome: Outcome) -> None:
    """Note a failed stage; a second stage that found the disk full is skipped (one line says it)."""
    if disk_full and outcome.disk_full:  # the same full disk, met by a stage that was running already
        outcome.skipped.append(stage.id)
    else:
        outcome.failed[stage.id] = line
        outcome.disk_full = outcome.disk_full or disk_full


def _line(stage: graph.Stage, error: StageFailed) -> str:
    """A failed stage's one line; and where its log is, when the line is not all it said (a traceback, a crash)."""
    if not error.log:
        return error.line
    log = _write_log(stage, error.log)
    said = f"error: {error.line}" in error.log and "Traceback" not in error.log
    return error.line if said or error.disk_full else f"{error.line} (log: {current().label(log)})"


def _write_log(stage: graph.Stage, text: str) -> Path:
    log = _log_path(stage.id)
    try:
        atomic_write_text(log, text)
    except DiskFull:  # the outputs need no room to be renamed in, and the stage's line is in `text`
        pass
    return log


def _publish(stage: graph.Stage, files: dict[str, bytes], folders: set[str]) -> None:
    """Put a task's output files in place: each file by an atomic rename, each folder swapped in whole."""
    for path, label in zip(stage.outputs, stage.labels()):
        if label not in folders:
            atomic_write_bytes(path, files[label])
            continue
        staged = path.with_name(f".{path.name}.restore-{os.getpid()}")
        with naming_a_full_disk(path):
            shutil.rmtree(staged, ignore_errors=True)
            staged.mkdir(parents=True)
            for name, payload in files.items():
                if name.startswith(label + "/"):
                    target = staged / name.removeprefix(label + "/")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(payload)
            replace_dir(staged, path)


def _task_error(error: BaseException) -> str:
    from distributed.scheduler import KilledWorker

    if isinstance(error, KilledWorker):
        return f"its worker died each time it ran it (the last: {error.last_worker.address}); see the worker's log"
    return f"the task failed on its worker: {type(error).__name__}: {error}"


def _log_path(stage_id: str) -> Path:
    return current().logs / f"{stage_id.replace(':', '-')}.log"


class _Display:
    """The build as it goes: a progress display on a terminal, else one line per finished stage (stdout);
    each stage's log says where it runs; `.seqanim/logs/timeline.json` says when each ran where."""

    def __init__(self, console: Console, stages: dict[str, graph.Stage], total: int) -> None:
        columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        self.progress = Progress(
            *columns, TimeElapsedColumn(), console=console, transient=True, disable=not console.is_terminal
        )
        self.overall = self.progress.add_task("[bold]build", total=total)
        self.stages = stages
        self.lines = not console.is_terminal
        self.shown: dict[str, Any] = {}  # running stage -> its progress line
        self.timeline: dict[str, dict[str, Any]] = {}
        self.began = time.time()
        self.lock = threading.Lock()  # started() runs on Dask's event-loop thread
        self.done: set[str] = set()

    def started(self, event: dict[str, Any]) -> None:
        stage_id, worker = event["stage"], event["worker"]
        with self.lock:
            if stage_id in self.done:
                return
            try:
                _log_path(stage_id).write_text(f"running on worker {worker}\n")
            except OSError:  # a full disk: the stage's own line will say so
                pass
            self.timeline[stage_id] = {"worker": worker, "start": round(time.time() - self.began, 2)}
            if stage_id not in self.shown:
                stage = self.stages[stage_id]
                self.shown[stage_id] = self.progress.add_task(stage.title, total=None)

    def finishing(self, stage_id: str) -> None:
        with self.lock:
            self.done.add(stage_id)
            self.timeline.setdefault(stage_id, {})["end"] = round(time.time() - self.began, 2)
            if stage_id in self.shown:
                self.progress.remove_task(self.shown.pop(stage_id))

    def finished(self, stage_id: str, outcome: Outcome) -> None:
        self.progress.advance(self.overall)
        self.timeline[stage_id]["published"] = round(time.time() - self.began, 2)
        if self.lines:
            stage = self.stages[stage_id]
            verb = "done" if stage_id in outcome.ran else "failed" if stage_id in outcome.failed else "skipped"
            took = f"  {outcome.seconds[stage_id]:.1f} s" if stage_id in outcome.seconds else ""
            print(f"  {verb} {stage.title}{took}", flush=True)

    def write_timeline(self) -> None:
        try:
            atomic_write_text(current().logs / "timeline.json", json.dumps(self.timeline, indent=1))
        except (OSError, SeqanimError):  # a full disk: a stage's own line says so, not this diagnostic's
            pass
