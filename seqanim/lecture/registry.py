"""What the lecture is made of: the experiments in `precompute/`, the parts and scenes in `scenes/`.

Discovery imports each module and reads what it declares (see `seqanim.lecture.declare`). Importing torch or
manim costs seconds, so what a folder declares is kept in `.seqanim/declarations.json` under a hash of
that folder's bytes: `seqanim list` and a no-op build import nothing, and after an edit only the edited
folder is imported again, once.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from seqanim.errors import ConfigError, UnknownNameError
from seqanim.files import atomic_write_text
from seqanim.lecture.declare import Experiment, Part
from seqanim.lecture.languages import LANGUAGES
from seqanim.workspace import ENGINE, current

FORMAT = 2  # bump when what is cached changes shape


@dataclass(frozen=True)
class ExperimentSpec:
    name: str
    source: Path
    title: str  # the first line of the module's docstring
    reads: tuple[str, ...]
    extra_outputs: tuple[str, ...]
    seconds: float


@dataclass(frozen=True)
class SceneSpec:
    name: str
    source: Path
    part: str  # the deck of its module
    data: tuple[str, ...]
    module: str  # importable under scenes., e.g. "rnn.echo_of_a_pulse"


@dataclass(frozen=True)
class PartSpec:
    name: str  # the deck's name: the module's name with hyphens, e.g. recurrent-attention
    source: Path
    title: str
    order: int
    scenes: tuple[str, ...]


def _modules(folder: Path) -> list[Path]:
    return sorted(path for path in folder.glob("*.py") if not path.name.startswith("_"))


def _stems(part_folder: Path) -> list[str]:
    """The modules of a part folder that could hold scenes (not __init__, shared.py, a language's words such as
    de.py, or _private ones)."""
    return sorted(path.stem for path in _modules(part_folder) if path.stem != "shared" and path.stem not in LANGUAGES)


def _scene_classes(module: Any) -> dict[str, type]:
    """A module's scenes: its own public classes whose body defines construct."""
    return {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and not name.startswith("_")
        and "construct" in vars(value)
    }


def _part_folders(folder: Path) -> list[Path]:
    return sorted(path.parent for path in folder.glob("*/__init__.py") if not path.parent.name.startswith("_"))


def folder_key(folder: Path) -> str:
    digest = hashlib.sha256(f"{FORMAT}".encode())
    for path in sorted([*folder.glob("*.py"), *folder.glob("*/*.py")]):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update((ENGINE / "lecture" / "declare.py").read_bytes())
    return digest.hexdigest()[:24]


def _import(module: str) -> Any:
    current().importable()
    try:
        return importlib.import_module(module)
    except Exception as error:  # noqa: BLE001 - a broken lecture module is the user's to fix: say which one
        path = module.replace(".", "/")
        label = f"{path}/__init__.py" if (current().root / path).is_dir() else f"{path}.py"
        raise ConfigError(f"{label} cannot be imported ({type(error).__name__}: {error})") from None


def _docstring_title(module: Any) -> str:
    return (inspect.getdoc(module) or module.__name__).splitlines()[0].strip()


def _declare_experiments() -> list[dict[str, Any]]:
    found = []
    for path in _modules(current().precompute):
        module = _import(f"precompute.{path.stem}")
        declared = getattr(module, "EXPERIMENT", None)
        if declared is None:
            continue  # a helper module (common, seq2seq_model)
        if not isinstance(declared, Experiment) or not callable(getattr(module, "run", None)):
            raise ConfigError(
                f"precompute/{path.name}: EXPERIMENT must be a seqanim.lecture.declare.Experiment "
                "and the module must define run(params)"
            )
        found.append(
            {"name": path.stem, "title": _docstring_title(module), "reads": list(declared.reads),
             "extra_outputs": list(declared.extra_outputs), "seconds": declared.seconds}
        )  # fmt: skip
    return found


def _declare_scenes() -> dict[str, Any]:
    parts, scenes = [], []
    folder = current().scenes
    # a part is a folder, or one file; scenes/de.py holds the German of the parts written as one file
    for path in [*_part_folders(folder), *(path for path in _modules(folder) if path.stem not in LANGUAGES)]:
        part_module = path.stem if path.suffix == ".py" else path.name
        label = f"scenes/{path.name}" + ("/__init__.py" if path.is_dir() else "")
        part = getattr(_import(f"scenes.{part_module}"), "PART", None)
        if not isinstance(part, Part):
            raise ConfigError(
                f"{label}: declare the lecture part, e.g. PART = Part('Recurrent networks', order=1"
                + (", scenes=('echo_of_a_pulse', ...))" if path.is_dir() else ")")
            )
        deck = part_module.replace("_", "-")
        modules = [f"{part_module}.{stem}" for stem in part.scenes] if path.is_dir() else [part_module]
        names = []
        if path.is_dir():  # a scene file left out of PART.scenes would silently never be built
            for unlisted in sorted(set(_stems(path)) - set(part.scenes)):
                if _scene_classes(_import(f"scenes.{part_module}.{unlisted}")):
                    raise ConfigError(
                        f"scenes/{path.name}/{unlisted}.py holds a scene but {label} does not list it; "
                        f"add '{unlisted}' to PART.scenes where it belongs in the order"
                    )
        for module_name in modules:
            module = _import(f"scenes.{module_name}")
            for name, value in _scene_classes(module).items():
                data = tuple(getattr(value, "data", ()))
                if not data:
                    raise ConfigError(
                        f"scenes/{module_name.replace('.', '/')}.py: {name} reads no data; "
                        "set data = ('experiment', ...)"
                    )
                scenes.append({"name": name, "module": module_name, "part": deck, "data": list(data)})
                names.append(name)
        source = f"{part_module}/__init__" if path.is_dir() else part_module
        parts.append({"name": deck, "module": source, **part.as_json(), "scenes": names})
    return {"parts": parts, "scenes": scenes}


def _cached(folder: Path, kind: str, compute: Any) -> Any:
    """What `compute()` declares for `folder`, from .seqanim/declarations.json while the folder is unchanged."""
    path = current().state_dir / "declarations.json"
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError):
        stored = {}
    key = folder_key(folder)
    if stored.get(kind, {}).get("key") == key:
        return stored[kind]["value"]
    value = compute()
    try:
        stored = json.loads(path.read_text())  # another process may have written the other kind meanwhile
    except (OSError, ValueError):
        stored = {}
    stored[kind] = {"key": key, "value": value}
    atomic_write_text(path, json.dumps(stored, indent=1, sort_keys=True))
    return value


@cache
def experiments() -> dict[str, ExperimentSpec]:
    folder = current().precompute
    found = {}
    for item in _cached(folder, "precompute", _declare_experiments):
        found[item["name"]] = ExperimentSpec(
            item["name"],
            folder / f"{item['name']}.py",
            item["title"],
            tuple(item["reads"]),
            tuple(item["extra_outputs"]),
            float(item["seconds"]),
        )
    for spec in found.values():
        for upstream in spec.reads:
            if upstream not in found:
                raise ConfigError(
                    f"precompute/{spec.name}.py reads '{upstream}', which no module in precompute/ declares"
                )
    return found


@cache
def _scene_declarations() -> dict[str, Any]:
    return _cached(current().scenes, "scenes", _declare_scenes)


@cache
def scenes() -> dict[str, SceneSpec]:
    folder = current().scenes
    found = {}
    for item in _scene_declarations()["scenes"]:
        source = folder / f"{item['module'].replace('.', '/')}.py"
        found[item["name"]] = SceneSpec(item["name"], source, item["part"], tuple(item["data"]), item["module"])
    known = experiments()
    for spec in found.values():
        for name in spec.data:
            if name not in known:
                raise ConfigError(
                    f"{spec.source.name}: {spec.name} reads '{name}', which no module in precompute/ declares"
                )
    return found


@cache
def parts() -> dict[str, PartSpec]:
    """The lecture's parts, in the order of the full deck."""
    folder = current().scenes
    items = sorted(_scene_declarations()["parts"], key=lambda item: (item["order"], item["name"]))
    return {
        item["name"]: PartSpec(
            item["name"], folder / f"{item['module']}.py", item["title"], item["order"], tuple(item["scenes"])
        )
        for item in items
    }


def forget() -> None:
    """Forget what was discovered: the code on disk changed (`seqanim watch`)."""
    for function in (experiments, _scene_declarations, scenes, parts):
        function.cache_clear()


def experiment(name: str) -> ExperimentSpec:
    known = experiments()
    if name not in known:
        raise UnknownNameError(f"unknown experiment '{name}'; known: {', '.join(known)} (see `seqanim list`)")
    return known[name]


def scene(name: str) -> SceneSpec:
    known = scenes()
    if name not in known:
        raise UnknownNameError(f"unknown scene '{name}'; known: {', '.join(known)} (see `seqanim list`)")
    return known[name]


def declaration(name: str) -> Experiment:
    """The experiment's own declaration (imports its module, and with it torch)."""
    experiment(name)
    return _import(f"precompute.{name}").EXPERIMENT


def upstream(name: str) -> list[str]:
    """All experiments `name` transitively reads, nearest last, without duplicates."""
    order: list[str] = []
    for dep in experiment(name).reads:
        for item in [*upstream(dep), dep]:
            if item not in order:
                order.append(item)
    return order
