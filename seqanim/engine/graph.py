"""The build graph: parameters -> experiments -> data/ -> scenes -> videos and slide files -> narrated cuts
-> decks.

Every stage has a key: the hash of exactly what feeds it (seqanim.stages declares it for each kind: its
parameter table, its own source and the local modules it imports, the keys of the stages it reads, and for
scenes and decks the quality and the theme). A stage runs when its key differs from the one recorded at its
last build, or an output is missing. Keys come from inputs, not from output bytes, so `--dry-run` predicts the
whole cascade without running anything. Outputs of every key are kept in a content-addressed cache, so switching
back to earlier parameters restores instead of recomputing.

Each pending stage's priority is the expected length of the chain of stages waiting on it (`priorities`): Dask
starts the longest chain first.

Why not pydoit: doit remembers only the last run of each task, so switching parameters back would
recompute; its dry run does not say which input changed; and keying a task on upstream *keys* (needed to
predict a cascade before running it) is not its model. This module is what that needs.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seqanim.engine.code import file_hash
from seqanim.errors import ConfigError
from seqanim.files import FULL, atomic_write_text, digest, replace_dir
from seqanim.lecture import registry
from seqanim.lecture.config import CHECK, Lecture, experiment_params
from seqanim.lecture.variants import Variant, declared
from seqanim.stages import KINDS
from seqanim.workspace import current


@dataclass
class Stage:
    id: str  # "experiment:adding", "scene:low:AddingProblem", "narration:low:AddingProblem", "deck:low:rnn"
    kind: str  # experiment | scene | narration | deck
    name: str
    quality: str | None
    inputs: dict[str, str]  # what feeds the stage -> its fingerprint
    params: dict[str, Any]  # parameter values, kept so a reason can name the changed key
    outputs: list[Path]
    deps: list[str] = field(default_factory=list)
    key: str = ""
    data_hash: str | None = None  # experiments: the params hash their sidecar must carry
    variant: Variant | None = None  # a [variants] value's stage: its parameters, its outputs in its own folder

    @property
    def title(self) -> str:
        """As the build's display names it: "scene AddingProblem (adding.T=40)"."""
        return f"{self.kind} {self.name}" + (f" ({self.variant.setting})" if self.variant else "")

    @property
    def root(self) -> Path:
        """The folder its outputs lie in, as in a workspace: data/, renders/, slides/."""
        return self.variant.root if self.variant else current().root

    def labels(self) -> list[str]:
        """Its outputs relative to `root`: where its process writes them, in a workspace of its own."""
        return [path.relative_to(self.root).as_posix() for path in self.outputs]


# --- the plan --------------------------------------------------------------------------------------


def plan(
    lecture: Lecture,
    quality: str,
    *,
    scenes: list[str] | None = None,
    decks: list[str] | None = None,
    experiments: list[str] | None = None,
    narrations: list[str] | None = None,
    variants: bool = False,
) -> dict[str, Stage]:
    """All stages needed for the requested targets (default: everything), in dependency order. At the `check`
    quality, which draws no frame, everything is the experiments and the scenes: nothing to narrate or export.
    With `variants`, also every [variants] value's own stages: the experiments it changes and their scenes."""
    from seqanim.decks.plan import deck_names

    if quality == CHECK and (decks or narrations):
        raise ConfigError(
            f"--quality {CHECK} draws no frames, so it has no narrated cuts or decks; build those at preview or above"
        )
    everything = scenes is None and decks is None and experiments is None and narrations is None
    targets = {
        "experiment": experiments if experiments is not None else (registry.experiments() if everything else []),
        "scene": scenes if scenes is not None else (registry.scenes() if everything else []),
        "narration": narrations or [],
        "deck": decks if decks is not None else (deck_names(lecture) if everything and quality != CHECK else []),
    }
    planner = Planner(lecture, quality)
    for kind, names in targets.items():
        for name in names:
            planner.add(kind, name)
    for variant in declared(lecture) if variants and quality != CHECK else []:
        if not variant.default:
            for name in variant.scenes:
                Planner(variant.lecture(lecture), quality, planner, variant).add("scene", name)
    ordered = _topological(planner.stages)
    for stage in ordered.values():
        # Two scenes of one module differ by id; a variant's stage and the lecture's with its parameters do not
        # (nor do the stages they read), so a value that becomes the lecture's own comes back from the cache.
        upstream = {f"stage:{dep.split('@')[0]}": ordered[dep].key for dep in stage.deps}
        stage.key = digest({"stage": stage.id.split("@")[0], **stage.inputs, **upstream})
    return ordered


class Planner:
    """Adds each stage the targets need once, after the stages it reads (seqanim.stages says what feeds each
    kind). A variant's planner adds that value's stages beside the lecture's planner's, in its own folder."""

    def __init__(
        self, lecture: Lecture, quality: str, lectures: Planner | None = None, variant: Variant | None = None
    ) -> None:
        self.lecture, self.quality, self.lectures, self.variant = lecture, quality, lectures, variant
        self.stages: dict[str, Stage] = lectures.stages if lectures else {}

    def add(self, kind: str, name: str) -> str:
        """The id of the stage that makes `name` (`scene:low:AddingProblem`, a variant's `...@adding.T=40`)."""
        if self.lectures and kind == "experiment":  # a value changes the experiments it feeds, not the others
            if experiment_params(self.lecture, name) == experiment_params(self.lectures.lecture, name):
                return self.lectures.add(kind, name)
        drawn = KINDS[kind].drawn
        stage_id = ":".join([kind, self.quality, name] if drawn else [kind, name])
        stage_id += f"@{self.variant.setting}" if self.variant else ""
        if stage_id not in self.stages:
            feeds = KINDS[kind].feeds(self, name)
            outputs = feeds.outputs
            if self.variant:
                outputs = [self.variant.root / path.relative_to(current().root) for path in outputs]
            self.stages[stage_id] = Stage(
                stage_id, kind, name, self.quality if drawn else None, feeds.inputs, feeds.params, outputs,
                feeds.deps, data_hash=feeds.data_hash, variant=self.variant,
            )  # fmt: skip
        return stage_id


def _topological(stages: dict[str, Stage]) -> dict[str, Stage]:
    ordered: dict[str, Stage] = {}

    def visit(stage_id: str) -> None:
        if stage_id in ordered:
            return
        for dep in stages[stage_id].deps:
            visit(dep)
        ordered[stage_id] = stages[stage_id]

    for stage_id in stages:
        visit(stage_id)
    return ordered


# --- state: what was built, with which key ---------------------------------------------------------


def read_state() -> dict[str, Any]:
    """What was built, with which key. A damaged state file is named and set aside (it is only bookkeeping:
    every stage then counts as never built and comes back from the cache, or reruns)."""
    path = current().state
    try:
        state = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (ValueError, OSError) as error:
        state = error
    if isinstance(state, dict) and all(isinstance(entry, dict) and "key" in entry for entry in state.values()):
        return state
    os.replace(path, path.with_name(f"{path.name}.corrupt"))
    print(
        f"warning: {current().label(path)} is corrupt (kept as {path.name}.corrupt); "
        "every stage is checked again and restored from the cache or rebuilt",
        file=sys.stderr,
    )
    return {}


def _fingerprint(path: Path) -> list[int]:
    """Size and mtime of an output (a folder: of its newest file), to notice outputs changed behind our back."""
    if path.is_dir():
        files = [f.stat() for f in path.rglob("*") if f.is_file()]
        return [sum(s.st_size for s in files), max((s.st_mtime_ns for s in files), default=0)]
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns]


def _changed_file(path: Path, recorded: list[int]) -> Path:
    """The file of a changed output folder to name: one written after the folder was built (a damaged
    file gets a new mtime); else (a file went missing) the folder itself."""
    if not path.is_dir():
        return path
    newer = [f for f in path.rglob("*") if f.is_file() and f.stat().st_mtime_ns > recorded[1]]
    return newer[0] if len(newer) == 1 else path


def record(stage: Stage, state: dict[str, Any], seconds: float | None = None) -> None:
    """Record a finished stage (atomically, after its outputs are in place)."""
    outputs = {current().label(path): _fingerprint(path) for path in stage.outputs}
    if seconds is None:  # restored from the cache: keep what running it cost last time
        seconds = state.get(stage.id, {}).get("seconds")
    state[stage.id] = {
        "key": stage.key,
        "inputs": stage.inputs,
        "params": stage.params,
        "outputs": outputs,
        "built": time.time(),
        "seconds": seconds,
    }
    atomic_write_text(current().state, json.dumps(state, indent=1, sort_keys=True))


def tampered(stage: Stage, state: dict[str, Any]) -> str | None:
    """An output of an up-to-date stage that changed since it was built (truncated, edited, replaced)."""
    recorded = state.get(stage.id, {}).get("outputs", {})
    for path in stage.outputs:
        label = current().label(path)
        if label in recorded and path.exists() and _fingerprint(path) != recorded[label]:
            return f"{current().label(_changed_file(path, recorded[label]))} changed since it was built"
    if stage.data_hash is not None:
        sidecar = stage.outputs[1]
        try:
            made_from = json.loads(sidecar.read_text()).get("params_hash")
        except (OSError, json.JSONDecodeError):
            return f"{current().label(sidecar)} is corrupt"
        if made_from != stage.data_hash:
            return f"{current().label(sidecar)} was made from other parameters"
    return None


def expected_cost(stage: Stage, state: dict[str, Any]) -> float:
    """Seconds the stage took last time; never run: the experiment's SECONDS hint (scenes and decks: 0)."""
    seconds = state.get(stage.id, {}).get("seconds")
    if seconds is not None:
        return float(seconds)
    return registry.experiment(stage.name).seconds if stage.kind == "experiment" else 0.0


def priorities(stages: dict[str, Stage], todo: Iterable[str], state: dict[str, Any]) -> dict[str, float]:
    """Each pending stage's expected cost plus that of the longest chain of pending stages waiting on it.

    Starting the highest first (critical-path list scheduling) keeps a long chain, such as adding ->
    lstm_inside -> InsideTheLSTM, from being started last and finishing alone on one core.
    """
    pending = set(todo)
    waiting_on: dict[str, list[str]] = {stage_id: [] for stage_id in pending}
    for stage_id in pending:
        for dep in stages[stage_id].deps:
            if dep in pending:
                waiting_on[dep].append(stage_id)
    priority: dict[str, float] = {}

    def chain(stage_id: str) -> float:
        if stage_id not in priority:
            downstream = max((chain(child) for child in waiting_on[stage_id]), default=0.0)
            priority[stage_id] = expected_cost(stages[stage_id], state) + downstream
        return priority[stage_id]

    for stage_id in pending:
        chain(stage_id)
    return priority


def _param_changes(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    changes = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key), new.get(key)
        if isinstance(before, dict) and isinstance(after, dict):
            changes += _param_changes(before, after, f"{prefix}{key}.")
        elif before != after:
            changes.append(f"{prefix}{key} {json.dumps(before)} -> {json.dumps(after)}")
    return changes


def reason(stage: Stage, state: dict[str, Any], will_run: set[str]) -> str | None:
    """Why `stage` must run, or None when it is up to date. `will_run`: stages already known to run."""
    previous = state.get(stage.id)
    if previous is None:
        return "never built"
    missing = [path for path in stage.outputs if not path.exists()]
    if previous["key"] == stage.key:
        if missing:
            return f"output missing: {current().label(missing[0])}"
        return tampered(stage, state)
    old_inputs = previous.get("inputs", {})
    why: list[str] = []
    for name, fingerprint in stage.inputs.items():
        if old_inputs.get(name) == fingerprint:
            continue
        if name.startswith("params:"):
            changes = _param_changes(previous.get("params", {}), stage.params)
            why.append(", ".join(changes[:3]) if changes else name.removeprefix("params:"))
        elif name.startswith("code:"):
            why.append(
                f"{name.removeprefix('code:')} changed"
                if name in old_inputs
                else f"now imports {name.removeprefix('code:')}"
            )
        else:
            why.append(f"{name} {old_inputs.get(name)} -> {fingerprint}")
    for name in sorted(set(old_inputs) - set(stage.inputs)):
        why.append(f"no longer uses {name.removeprefix('code:')}")
    upstream = list(dict.fromkeys(dep.split(":")[-1] for dep in stage.deps if dep in will_run))
    if upstream:
        why.append(f"input {', '.join(upstream)} rebuilt")
    return "; ".join(dict.fromkeys(why)) or "inputs changed"


def pending(stages: dict[str, Stage], state: dict[str, Any] | None = None) -> dict[str, str]:
    """Stage id -> reason, for every stage that must run, in dependency order."""
    state = read_state() if state is None else state
    result: dict[str, str] = {}
    for stage in stages.values():
        why = reason(stage, state, set(result))
        if why is not None:
            result[stage.id] = why
    return result


# --- content-addressed cache -------------------------------------------------------------------------


def _entries(stage: Stage) -> list[tuple[str, Path]]:
    return [(f"{index}-{path.name}", path) for index, path in enumerate(stage.outputs)]


def _copy(source: Path, target: Path) -> None:
    shutil.copytree(source, target) if source.is_dir() else shutil.copyfile(source, target)


def cache_store(stage: Stage) -> None:
    """Keep a copy of this key's outputs, with the content hash of each file. The cache is a convenience: on a
    full disk the copy is dropped, and the build goes on."""
    entry = current().cache / stage.key
    if (entry / "COMPLETE").exists() or not all(path.exists() for path in stage.outputs):
        return
    staging = current().cache / f".{stage.key}.{os.getpid()}"
    try:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for label, path in _entries(stage):
            _copy(path, staging / label)
        hashes = {f.relative_to(staging).as_posix(): file_hash(f) for f in staging.rglob("*") if f.is_file()}
        (staging / "COMPLETE").write_text(json.dumps({"stage": stage.id, "sha256": hashes}))
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if error.errno in FULL:
            return
        raise
    shutil.rmtree(entry, ignore_errors=True)
    os.replace(staging, entry)


def _damaged_entry(entry: Path, stage: Stage) -> Path | None:
    """The first file of a cache entry that is missing or whose content changed since it was stored."""
    try:
        complete = json.loads((entry / "COMPLETE").read_text())
        missing = next((entry / label for label, _ in _entries(stage) if not (entry / label).exists()), None)
        changed = (entry / name for name, sha in complete["sha256"].items() if file_hash(entry / name) != sha)
        return missing or next(changed, None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return entry / "COMPLETE"


def cache_restore(stage: Stage) -> bool:
    """Put a cached key's outputs back in place, each atomically. False when the key is not cached."""
    entry = current().cache / stage.key
    if not (entry / "COMPLETE").exists():
        return False
    damaged = _damaged_entry(entry, stage)
    if damaged is not None:
        print(
            f"warning: {current().label(damaged)} in the cache is damaged; entry dropped, {stage.id} is rebuilt",
            file=sys.stderr,
        )
        shutil.rmtree(entry, ignore_errors=True)
        return False
    for label, path in _entries(stage):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.restore-{os.getpid()}")
        shutil.rmtree(temporary, ignore_errors=True) if temporary.is_dir() else temporary.unlink(missing_ok=True)
        _copy(entry / label, temporary)
        replace_dir(temporary, path) if temporary.is_dir() else os.replace(temporary, path)
    os.utime(entry / "COMPLETE")  # least recently used goes first
    return True


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def cache_trim(limit_mb: int) -> int:
    """Evict least recently used entries until the cache fits in `limit_mb`. Returns entries evicted."""
    if not current().cache.exists():
        return 0
    entries = sorted(
        (p for p in current().cache.iterdir() if (p / "COMPLETE").exists()),
        key=lambda p: (p / "COMPLETE").stat().st_mtime,
    )
    sizes = {entry: _size(entry) for entry in entries}
    total = sum(sizes.values())
    evicted = 0
    for entry in entries:
        if total <= limit_mb * 1024 * 1024:
            break
        shutil.rmtree(entry, ignore_errors=True)
        total -= sizes[entry]
        evicted += 1
    return evicted
