"""The build graph: parameters -> experiments -> data/ -> scenes -> videos and slide files -> narrated cuts
-> decks.

Every stage has a key: the hash of exactly what feeds it (its parameter table, its own source and the
local modules it imports, the keys of the stages it reads, and for scenes and decks the quality and the
theme). A stage runs when its key differs from the one recorded at its last build, or an output is
missing. Keys come from inputs, not from output bytes, so `--dry-run` predicts the whole cascade
without running anything. Outputs of every key are kept in a content-addressed cache, so switching
back to earlier parameters restores instead of recomputing.

Each pending stage's priority is the expected length of the chain of stages waiting on it (`priorities`): Dask
starts the longest chain first.

Why not pydoit: doit remembers only the last run of each task, so switching parameters back would
recompute; its dry run does not say which input changed; and keying a task on upstream *keys* (needed to
predict a cascade before running it) is not its model. This module is what that needs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import seqanim
from seqanim.errors import ConfigError
from seqanim.files import FULL, atomic_write_text, digest, replace_dir
from seqanim.lecture import registry
from seqanim.lecture.config import CHECK, Lecture, experiment_params
from seqanim.lecture.languages import LANGUAGES
from seqanim.lecture.variants import Variant, declared
from seqanim.workspace import ENGINE, current

# Modules whose effect reaches a stage only through parameter values, which are hashed already.
NOT_CODE_INPUTS = {
    f"seqanim/{name}.py"
    for name in (
        "lecture/config", "lecture/registry", "lecture/declare", "errors", "engine/graph", "workspace", "cli",
        # the packages' own docstrings
        *(f"{package}/__init__" for package in ("lecture", "author", "engine", "publish", "present")),
    )
}  # fmt: skip


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


# --- fingerprints of code ------------------------------------------------------------------------


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _local_module_path(module: str) -> Path | None:
    parts = module.split(".")
    if parts[0] not in {"seqanim", "precompute", "scenes"}:
        return None
    base = ENGINE.parent if parts[0] == "seqanim" else current().root
    as_file = base.joinpath(*parts).with_suffix(".py")
    if as_file.exists():
        return as_file
    as_package = base.joinpath(*parts, "__init__.py")
    return as_package if as_package.exists() else None


# Import statements, found by their shape: a full parse of every module costs more than the rest of planning.
# A docstring line that looks like an import adds a dependency; only an `if TYPE_CHECKING:` block is skipped.
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#]+)", re.MULTILINE)


# Imports for type checkers only: they never run, so they feed no stage (seqanim/__init__.py names the whole
# public API this way, which would make every stage depend on every module it names).
_TYPE_CHECKING = re.compile(r"^if TYPE_CHECKING:\n(?:(?:[ \t]+.*)?\n)*", re.MULTILINE)


@cache
def _local_imports(path: Path) -> tuple[Path, ...]:
    """The project modules `path` imports directly. Cached: the experiments share most of their modules."""
    text = _TYPE_CHECKING.sub("", path.read_text())
    names: list[str] = []
    for module, imported in _FROM_IMPORT.findall(text):
        names.append(module)
        for alias in imported.strip("()").replace("\n", ",").split(","):
            if alias.split():
                name = alias.split()[0]
                names.append(f"{module}.{name}")
                if module == "seqanim" and name in seqanim.PUBLIC:  # `from seqanim import LectureSlide`
                    names.append(seqanim.PUBLIC[name])
    for imported in _IMPORT.findall(text):
        names += [alias.split()[0] for alias in imported.split(",") if alias.split()]
    found = {module: None for module in map(_local_module_path, names) if module is not None}
    return tuple(found)


@cache
def code_closure(path: Path) -> tuple[Path, ...]:
    """`path` and every project module it imports, transitively (read as text, nothing is imported)."""
    seen: dict[Path, None] = {}
    stack = [path]
    while stack:
        current = stack.pop()
        if current not in seen:
            seen[current] = None
            stack.extend(module for module in _local_imports(current) if module not in seen)
    return tuple(sorted(seen))


def forget_code() -> None:
    """Forget the cached import graph: the code on disk changed (`seqanim watch`)."""
    _local_imports.cache_clear()
    code_closure.cache_clear()


def _code_label(module: Path) -> str:
    """`seqanim/engine/graph.py` for the engine, `precompute/adding.py` for the workspace's own modules."""
    if module.is_relative_to(ENGINE):
        return module.relative_to(ENGINE.parent).as_posix()
    return current().label(module)


def code_inputs(path: Path) -> dict[str, str]:
    result = {}
    for module in code_closure(path):
        relative = _code_label(module)
        if relative not in NOT_CODE_INPUTS:
            result[f"code:{relative}"] = _file_hash(module)
    return result


# --- the plan --------------------------------------------------------------------------------------


def _outputs_of_experiment(name: str) -> list[Path]:
    spec = registry.experiment(name)
    directory = current().data
    return [directory / f"{name}.npz", directory / f"{name}.json", *[directory / extra for extra in spec.extra_outputs]]


SPEECH_KEYS = ("voice", "hibari_speed", "voice_model", "fallback_voice", "espeak_voice", "words_per_minute", "gap_s")


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
    planner = _Planner(lecture, quality)
    everything = scenes is None and decks is None and experiments is None and narrations is None
    for name in experiments if experiments is not None else (registry.experiments() if everything else []):
        planner.experiment(name)
    for name in scenes if scenes is not None else (registry.scenes() if everything else []):
        planner.scene(name)
    for name in narrations or []:
        planner.narration(name)
    for name in decks if decks is not None else (deck_names(lecture) if everything and quality != CHECK else []):
        planner.deck(name)
    for variant in declared(lecture) if variants and quality != CHECK else []:
        if not variant.default:
            for name in variant.scenes:
                _Planner(variant.lecture(lecture), quality, planner, variant).scene(name)
    ordered = _topological(planner.stages)
    for stage in ordered.values():
        upstream = {f"stage:{dep}": ordered[dep].key for dep in stage.deps}
        # Two scenes of one module differ by id; a variant's stage and the lecture's with its parameters do not.
        stage.key = digest({"stage": stage.id.split("@")[0], **stage.inputs, **upstream})
    return ordered


class _Planner:
    """Adds each stage the targets need once, after the stages it reads: what feeds it (its inputs, fingerprinted),
    the parameters a reason names, and its outputs."""

    def __init__(
        self, lecture: Lecture, quality: str, lectures: _Planner | None = None, variant: Variant | None = None
    ) -> None:
        """`variant`: plan that value's stages, beside those `lectures` (the lecture's own planner) plans."""
        self.lecture, self.quality = lecture, quality
        self.stages: dict[str, Stage] = lectures.stages if lectures else {}
        self.lectures, self.variant = lectures, variant
        self.theme_hash = digest(lecture.section("theme"))
        self.publish = lecture.section("publish")
        # What a render's timing depends on: the voice, its speed and the pause after each beat (not loudness,
        # language or captions, which only the narrated cut uses).
        self.speech_hash = digest({key: self.publish[key] for key in SPEECH_KEYS})

    def _own(self, stage_id: str, outputs: list[Path]) -> tuple[str, list[Path]]:
        """A variant's stage id (`scene:low:AddingProblem@adding.T=40`) and its outputs in the variant's folder."""
        if self.variant is None:
            return stage_id, outputs
        root = current().root
        return f"{stage_id}@{self.variant.setting}", [self.variant.root / path.relative_to(root) for path in outputs]

    def experiment(self, name: str) -> str:
        made_from = experiment_params(self.lecture, name)
        if self.lectures and made_from == experiment_params(self.lectures.lecture, name):
            return self.lectures.experiment(name)  # not changed by the variant: the lecture's own
        stage_id, outs = self._own(f"experiment:{name}", _outputs_of_experiment(name))
        if stage_id in self.stages:
            return stage_id
        spec = registry.experiment(name)
        deps = [self.experiment(dep) for dep in spec.reads]
        params = self.lecture.section(name)
        inputs = {
            f"params:{name}": digest(params),
            **code_inputs(spec.source),
            **code_inputs(ENGINE / "stages" / "experiments.py"),
        }
        stage = Stage(stage_id, "experiment", name, None, inputs, {name: params}, outs, deps, variant=self.variant)
        stage.data_hash = digest(made_from)
        self.stages[stage_id] = stage
        return stage_id

    def scene(self, name: str) -> str:
        from seqanim.stages.render import outputs

        stage_id, outs = self._own(f"scene:{self.quality}:{name}", list(outputs(name, self.quality).values()))
        if stage_id in self.stages:
            return stage_id
        spec = registry.scene(name)
        deps = [self.experiment(artifact) for artifact in spec.data]
        inputs = {
            "quality": self.quality,
            "params:theme": self.theme_hash,
            "params:speech": self.speech_hash,  # every beat lasts as long as its words
            **code_inputs(spec.source),
            **code_inputs(ENGINE / "stages" / "render.py"),
            **self.voice_inputs(name),
            **self.translation_inputs(spec),
        }
        params = {"theme": self.lecture.section("theme")}
        self.stages[stage_id] = Stage(
            stage_id, "scene", name, self.quality, inputs, params, outs, deps, variant=self.variant
        )
        return stage_id

    def translation_inputs(self, spec: registry.SceneSpec) -> dict[str, str]:
        """The scene's beats in other languages: the part's file of each (de.py) and what it imports, but not the
        part's other scenes, which a translation file imports for their helpers: a change to one scene renders
        that scene again, not its neighbours (unless the scene itself imports them). Every language's file, not
        only `[publish] languages`: the render writes them all, and choosing which to publish renders nothing."""
        inputs: dict[str, str] = {}
        own = code_inputs(spec.source)
        neighbours = {
            f"code:{_code_label(registry.scene(other).source)}"
            for other in registry.parts()[spec.part].scenes
            if registry.scene(other).source != spec.source
        }
        for code in LANGUAGES:
            words = spec.source.parent / f"{code}.py"
            if words.exists():
                read = code_inputs(words).items()
                inputs |= {key: value for key, value in read if key in own or key not in neighbours}
        return inputs

    def voice_inputs(self, name: str) -> dict[str, str]:
        """The lecturer's recordings of the scene and the Piper voice model, when a voice uses them."""
        from seqanim.publish.narrate import recorded_inputs

        inputs = {}
        voices = (self.publish["voice"], self.publish["fallback_voice"])
        if "recorded" in voices:
            inputs |= recorded_inputs(name)
        if "piper" in voices:
            inputs["voice_model"] = _voice_model_hash(self.lecture)
        return inputs

    def narration(self, name: str) -> str:
        """The scene's narrated cut: its render, the [publish] table, and the lecturer's recordings."""
        from seqanim.publish.narrate import outputs

        stage_id = f"narration:{self.quality}:{name}"
        if stage_id in self.stages:
            return stage_id
        deps = [self.scene(name)]
        inputs = {
            "quality": self.quality,
            "params:publish": digest(self.publish),
            **code_inputs(ENGINE / "publish" / "narrate.py"),
        }
        inputs |= self.voice_inputs(name)
        outs = list(outputs(name, self.quality, self.lecture.publish.languages).values())
        self.stages[stage_id] = Stage(
            stage_id, "narration", name, self.quality, inputs, {"publish": self.publish}, outs, deps
        )
        return stage_id

    def deck(self, name: str) -> str:
        from seqanim.decks import deck_outputs
        from seqanim.decks.plan import deck_definition

        stage_id = f"deck:{self.quality}:{name}"
        definition = deck_definition(self.lecture, name)
        deps = [self.scene(scene) for scene in definition["scenes"]]
        deps += [self.narration(scene) for scene in dict.fromkeys(definition["scenes"])]
        options = {k: v for k, v in self.lecture.section("decks").items() if k not in ("items", "full_title")}
        params = {"deck": definition, "decks": options, "publish": self.publish}
        inputs = {
            "quality": self.quality,
            "params:theme": self.theme_hash,
            f"params:deck.{name}": digest(params),
            **code_inputs(ENGINE / "decks" / "__init__.py"),
        }
        lock = current().reveal.parent.parent / "package-lock.json"
        if lock.exists():
            inputs["reveal.js"] = _file_hash(lock)
        outs = list(deck_outputs(self.lecture, name, self.quality).values())
        self.stages[stage_id] = Stage(stage_id, "deck", name, self.quality, inputs, params, outs, deps)
        return stage_id


def _voice_model_hash(lecture: Lecture) -> str:
    """The Piper voice model's content hash; a missing model fails the plan (nothing runs, nothing is lost)."""
    from seqanim.errors import SeqanimError
    from seqanim.publish.voice import check_voice, model_path

    publish = lecture.publish
    try:
        check_voice(publish.model_copy(update={"voice": "piper"}))
    except SeqanimError as error:  # the voice check's one line, as a parameter error
        raise ConfigError(f"lecture.toml: {error}") from None
    return _file_hash(model_path(publish))


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
        hashes = {f.relative_to(staging).as_posix(): _file_hash(f) for f in staging.rglob("*") if f.is_file()}
        (staging / "COMPLETE").write_text(json.dumps({"stage": stage.id, "sha256": hashes}))
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if error.errno in FULL:
            return
        raise
    shutil.rmtree(entry, ignore_errors=True)
    os.replace(staging, entry)


def _damaged_entry(entry: Path, stage: Stage) -> Path | None:
    """The first file of a cache entry that is missing or whose content changed since it was stored; the entry
    itself when an earlier seqanim stored it (hard links, no hashes: not trusted)."""
    try:
        complete = json.loads((entry / "COMPLETE").read_text())
        if "sha256" not in complete:
            return entry
        missing = next((entry / label for label, _ in _entries(stage) if not (entry / label).exists()), None)
        changed = (entry / name for name, sha in complete["sha256"].items() if _file_hash(entry / name) != sha)
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
        if damaged != entry:
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
