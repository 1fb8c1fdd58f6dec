"""Execute a plan: restore what the cache holds, send every other pending stage to Dask as a task (the
longest chain first), publish each stage's outputs atomically when its task returns them, record the
stage only then, and show one combined progress display.

The tasks run anywhere (seqanim.task): a task gets the code, the parameters and its input files, and
returns its output files as bytes; only this process writes to the project. On a local cluster the files
stay where they are: a task links its inputs from the project, and its outputs are renamed in from its
scratch folder.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import io
import json
import os
import queue
import re
import shutil
import time
import uuid
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from seqanim import cluster, graph, task
from seqanim.config import CONFIG_ENV, Lecture
from seqanim.errors import BuildLocked, DiskFull, SeqanimError
from seqanim.files import atomic_write_bytes, atomic_write_text, disk_full, naming_a_full_disk, replace_dir
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
        cluster.remove_stale()
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


def _last_error(text: str, log: Path, exit_code: int | None = None) -> str:
    """A failed stage's one line: its `error:` line, else its last line and where its log is."""
    lines = [line for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("error: "):
            return line.removeprefix("error: ")
    if exit_code == DiskFull.stage_exit_code:  # the error line did not fit on the disk either
        return str(disk_full(OSError(errno.ENOSPC, "no space"), current().state_dir))
    return (lines[-1] if lines else "failed with no output") + f" (log: {current().label(log)})"


def _refused(stage: graph.Stage, reason: str, explicit: set[str]) -> str | None:
    """A damaged output is rebuilt only on request: the line says which command rebuilds it."""
    damaged = ("changed since it was built", "made from other parameters", "is corrupt")
    if stage.id in explicit or not any(words in reason for words in damaged):
        return None
    fix = {"experiment": "precompute", "scene": "render", "deck": "slides"}.get(stage.kind)
    command = f"seqanim {fix} {stage.name}" if fix else "seqanim build"
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
    """Run the stages in `todo` (id -> reason): restored from the cache, or as Dask tasks, `jobs` at a time
    on the local cluster (or as many as the scheduler's workers)."""
    outcome = Outcome()
    state = graph.read_state()
    workspace = current()
    workspace.logs.mkdir(parents=True, exist_ok=True)
    to_run: list[str] = []
    for stage_id, reason in todo.items():  # in dependency order: a stage's inputs are decided before it
        stage = stages[stage_id]
        refusal = _refused(stage, reason, explicit)
        if refusal is not None:
            outcome.failed[stage_id] = refusal
        elif any(dep in outcome.failed or dep in outcome.skipped for dep in stage.deps):
            outcome.skipped.append(stage_id)
        elif graph.cache_restore(stage):
            graph.record(stage, state)
            outcome.restored.append(stage_id)
        else:
            to_run.append(stage_id)
    if to_run:
        kinds = {stages[stage_id].kind for stage_id in to_run}
        with cluster.client(lecture, max(1, min(jobs, len(to_run))), scheduler, kinds) as (client, local):
            _run_tasks(client, local, lecture, stages, to_run, state, outcome, console)
    graph.cache_trim(lecture.build.cache_mb)
    return outcome


def _run_tasks(
    client: Any,
    local: bool,
    lecture: Lecture,
    stages: dict[str, graph.Stage],
    to_run: list[str],
    state: dict[str, Any],
    outcome: Outcome,
    console: Console,
) -> None:
    """Send each stage to Dask once its inputs are built, the longest chain first, as many at a time as the
    cluster has worker threads. Dask starts a task the moment it reaches an idle worker, so its priorities
    only order tasks that wait together; holding the ready ones here keeps the order (on 2 cores the full
    deck started behind a short one finished 42 s after the rest)."""
    import cloudpickle
    from distributed import Event, Variable

    # The task's own code goes with it, as the lecture's does: a worker's checkout may be older than ours.
    cloudpickle.register_pickle_by_value(task)
    build = uuid.uuid4().hex[:12]
    stop = Event(f"seqanim-stop-{build}", client=client)
    events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    client.subscribe_topic(task.TOPIC, lambda event: events.put(("started", event[1])))
    code, code_digest = _code_bundle(stages, to_run, lecture)
    code_future = client.submit(task.constant, code, key=f"seqanim-code-{code_digest[:16]}-{build}")
    code_variable = Variable(f"seqanim-code-{build}", client=client)  # how tasks find it (seqanim.task._unpack)
    code_variable.set(code_future)
    priority = graph.priorities(stages, to_run, state)
    workspace = current()
    built: dict[str, Any] = {}  # outputs of this build's stages (futures), and of earlier ones (sent once)

    def inputs_of(stage: graph.Stage) -> list[Any]:
        if local:  # every input is published by now: the task links the files on this machine's disk
            labels = [workspace.label(path) for dep in stage.deps for path in stages[dep].outputs]
            cards = [workspace.label(path) for path in stage.outputs if "cards" in path.parts and path.exists()]
            return [{"ok": True, "linked": labels}, {"ok": True, "linked": cards, "copy": True}]
        inputs = []
        for dep in stage.deps:
            if dep not in built:
                files = {"ok": True, "files": _read(stages[dep].outputs)}
                built[dep] = client.submit(task.constant, files, key=f"seqanim-files-{dep}-{build}")
            inputs.append(built[dep])
        if stage.kind == "deck":  # its title and divider cards: reused by the export while unchanged
            cards = [path for path in stage.outputs if "cards" in path.parts and path.exists()]
            payload = {"ok": True, "files": _read(cards)}
            inputs.append(client.submit(task.constant, payload, key=f"cards-{stage.id}-{build}"))
        return inputs

    waiting = list(to_run)
    running: dict[str, Any] = {}  # stage id -> its future
    timeline: dict[str, dict[str, Any]] = {}
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    try:
        with Progress(
            *columns, TimeElapsedColumn(), console=console, transient=True, disable=not console.is_terminal
        ) as progress:
            overall = progress.add_task("[bold]build", total=len(to_run))
            shown: dict[str, int] = {}
            began = time.time()
            while waiting or running:
                for stage_id in [s for s in waiting if outcome.disk_full or _blocked(stages[s], outcome)]:
                    waiting.remove(stage_id)
                    outcome.skipped.append(stage_id)
                    progress.advance(overall)
                ready = [s for s in waiting if not any(dep in waiting or dep in running for dep in stages[s].deps)]
                for stage_id in sorted(ready, key=lambda s: -priority[s])[: max(0, _threads(client) - len(running))]:
                    waiting.remove(stage_id)
                    stage = stages[stage_id]
                    request = _request(stage, lecture, build, code_digest, code_variable.name, local)
                    running[stage_id] = client.submit(
                        task.run_stage, request, *inputs_of(stage),
                        key=f"{stage_id}#{build}", priority=round(priority[stage_id] * 100), pure=False,
                    )  # fmt: skip
                    running[stage_id].add_done_callback(lambda _, stage_id=stage_id: events.put(("done", stage_id)))
                if not running:
                    continue
                try:
                    kind, payload = events.get(timeout=0.2)
                except queue.Empty:
                    continue
                if kind == "started":
                    if payload.get("build") == build and payload["stage"] in running:
                        _log_path(payload["stage"]).write_text(f"running on worker {payload['worker']}\n")
                        timeline[payload["stage"]] = {"worker": payload["worker"], "start": time.time() - began}
                        if payload["stage"] not in shown:
                            stage = stages[payload["stage"]]
                            shown[payload["stage"]] = progress.add_task(f"{stage.kind} {stage.name}", total=None)
                    continue
                stage_id = payload
                future = running.pop(stage_id)
                if stage_id in shown:
                    progress.remove_task(shown.pop(stage_id))
                progress.advance(overall)
                timeline.setdefault(stage_id, {})["end"] = time.time() - began
                if _finish(stages[stage_id], future, state, outcome):
                    built[stage_id] = future
                timeline[stage_id]["published"] = time.time() - began
    except BaseException:  # Ctrl-C or a bug here: stop the remote stages too, not only this process
        stop.set()
        client.cancel(list(running.values()), force=True)
        raise
    finally:
        client.unsubscribe_topic(task.TOPIC)
        try:
            code_variable.delete()
        except Exception:  # the scheduler is gone (a remote one stopped): so is the variable
            pass
        # When each stage ran where, in seconds from the start: what the Dask dashboard would show, kept.
        try:
            atomic_write_text(current().logs / "timeline.json", json.dumps(timeline, indent=1))
        except (OSError, SeqanimError):  # a full disk: a stage's own line says so, not this diagnostic's
            pass


def _blocked(stage: graph.Stage, outcome: Outcome) -> bool:
    return any(dep in outcome.failed or dep in outcome.skipped for dep in stage.deps)


def _threads(client: Any) -> int:
    """Stages the cluster runs at once: its workers' threads (a batch cluster's jobs may still be starting)."""
    return max(1, sum(client.nthreads().values()))


def _finish(stage: graph.Stage, future: Any, state: dict[str, Any], outcome: Outcome) -> bool:
    """Publish a finished task's outputs and record the stage (True); or note why it failed."""
    try:
        result = future.result()
    except Exception as error:  # the task itself broke (a worker died too often, bad bundle): not the stage
        outcome.failed[stage.id] = _task_error(error)
        return False
    try:
        error = _publish_result(stage, result)
    finally:
        if result.get("scratch"):
            shutil.rmtree(result["scratch"], ignore_errors=True)
    if error is None:
        outcome.seconds[stage.id] = result["seconds"]
        graph.record(stage, state, result["seconds"])
        graph.cache_store(stage)
        outcome.ran.append(stage.id)
        return True
    full = result.get("disk_full") or result.get("exit_code") == DiskFull.stage_exit_code
    full = full or error.startswith("no space left on the disk")
    if full and outcome.disk_full:  # the same full disk, met by a stage that was running already
        outcome.skipped.append(stage.id)
    else:
        outcome.failed[stage.id] = error
        outcome.disk_full = outcome.disk_full or bool(full)
    return False


def _publish_result(stage: graph.Stage, result: dict[str, Any]) -> str | None:
    """Put a finished task's outputs in place: None, or the one-line error of the stage."""
    if result.get("disk_full"):  # the task could not write its scratch workspace
        return _worker_disk_full(stage, result)
    log = _log_path(stage.id)
    text = f"ran on worker {result['worker']}\n{result['log']}"
    try:
        atomic_write_text(log, text)
    except DiskFull:  # the outputs need no room to be renamed in, and the stage's line is in `text`
        pass
    if not result["ok"]:
        return _last_error(text, log, result["exit_code"])
    try:
        _publish(stage, result)
    except SeqanimError as error:  # a full disk while publishing: named in the one line
        return str(error)
    return None


def _worker_disk_full(stage: graph.Stage, result: dict[str, Any]) -> str:
    if result.get("local"):  # the project's own disk: named by the output the stage was making
        return str(disk_full(OSError(result.get("errno", errno.ENOSPC), "No space left"), stage.outputs[0]))
    where = result["disk_full"]
    return f"no space left on worker {result['worker']}'s disk ({where}); free some space there and build again"


def _task_error(error: BaseException) -> str:
    from distributed.scheduler import KilledWorker

    if isinstance(error, KilledWorker):
        return (
            f"its worker died each time it ran it (the last: {error.last_worker.address}); "
            f"see {current().label(current().logs / 'dask-workers.log')} or the worker's own log"
        )
    return f"the task failed on its worker: {type(error).__name__}: {error}"


def _log_path(stage_id: str) -> Path:
    return current().logs / f"{stage_id.replace(':', '-')}.log"


def _request(
    stage: graph.Stage, lecture: Lecture, build: str, code_digest: str, code_key: str, local: bool
) -> dict[str, Any]:
    """What a task needs besides its code and input files."""
    workspace = current()
    argv = [stage.kind, stage.name] + (["--quality", stage.quality] if stage.quality else [])
    passed = {k: v for k, v in os.environ.items() if k.startswith("SEQANIM_") and k not in (CONFIG_ENV, WORKSPACE_ENV)}
    return {
        "stage": stage.id, "build": build, "code_digest": code_digest, "code_key": code_key, "argv": argv,
        "env": passed,
        "config": lecture.model_dump_json(),
        "lecture_toml": workspace.config.read_text() if workspace.config.exists() else "",
        "outputs": [workspace.label(path) for path in stage.outputs],
        # On this machine the workers share the build's voice clips and manim's LaTeX cache, and the files.
        "caches": str(workspace.state_dir) if local else None,
        "project": str(workspace.root) if local else None,
    }  # fmt: skip


def _read(paths: list[Path]) -> dict[str, bytes]:
    """Output files (folders: every file inside) by workspace label."""
    workspace = current()
    files: dict[str, bytes] = {}
    for path in paths:
        for item in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if item.is_file():
                files[workspace.label(item)] = item.read_bytes()
    return files


def _code_bundle(stages: dict[str, graph.Stage], to_run: list[str], lecture: Lecture) -> tuple[bytes, str]:
    """The engine, the lecture's code and what else stages read from the project (reveal.js, recordings,
    a Piper voice inside it), as one zip, and the hash of its contents."""
    workspace = current()
    sources: list[tuple[Path, Path]] = [(ENGINE, Path("seqanim"))]
    sources += [(workspace.root / name, Path(name)) for name in ("precompute", "scenes", "narration")]
    if any(stages[stage_id].kind == "deck" for stage_id in to_run):
        sources.append((workspace.reveal, Path("node_modules") / "reveal.js"))
    if lecture.publish.voice_model:
        from seqanim.voice import model_path

        model = model_path(lecture.publish)
        if model.is_relative_to(workspace.root):
            for path in (model, model.with_name(model.name + ".json")):
                sources.append((path, path.relative_to(workspace.root)))
    hasher = hashlib.sha256()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as bundle:
        for source, label in sources:
            files = sorted(source.rglob("*")) if source.is_dir() else [source] if source.is_file() else []
            for path in files:
                relative = path.relative_to(source)
                if not path.is_file() or "__pycache__" in relative.parts or path.suffix == ".pyc":
                    continue
                name = (label / relative).as_posix() if source.is_dir() else label.as_posix()
                payload = path.read_bytes()
                hasher.update(name.encode() + b"\0" + hashlib.sha256(payload).digest())
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (path.stat().st_mode & 0o777) << 16
                bundle.writestr(info, payload)
    return buffer.getvalue(), hasher.hexdigest()


def _publish(stage: graph.Stage, result: dict[str, Any]) -> None:
    """Put a task's output files in place: each file by an atomic rename, each folder swapped in whole."""
    workspace = current()
    if result.get("scratch"):
        _rename_in(stage, Path(result["scratch"]), set(result["folders"]))
        return
    files: dict[str, bytes] = result["files"]
    folders = set(result["folders"])
    for path in stage.outputs:
        label = workspace.label(path)
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


def _rename_in(stage: graph.Stage, scratch: Path, folders: set[str]) -> None:
    """A local task's outputs, from its scratch folder on the project's disk: a rename each, no copy (a copy
    first where the outputs are on another disk, a symlinked renders/ say)."""
    workspace = current()
    for path in stage.outputs:
        label = workspace.label(path)
        with naming_a_full_disk(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            source = scratch / label
            if os.stat(source).st_dev != os.stat(path.parent).st_dev:
                staged = path.with_name(f".{path.name}.restore-{os.getpid()}")
                shutil.rmtree(staged, ignore_errors=True) if staged.is_dir() else staged.unlink(missing_ok=True)
                shutil.copytree(source, staged) if source.is_dir() else shutil.copyfile(source, staged)
                source = staged
            replace_dir(source, path) if label in folders else os.replace(source, path)
