"""What the lecture is made of: experiments in `precompute/`, scenes in `scenes/`, decks in `lecture.toml`.

Discovery reads the source with `ast` instead of importing it, so `seqanim list` and a no-op build stay
fast: importing manim or torch alone costs seconds.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from seqanim.config import ROOT, Lecture
from seqanim.errors import ConfigError, UnknownNameError

PRECOMPUTE_DIR = ROOT / "precompute"
SCENES_DIR = ROOT / "scenes"
KIT_DIR = ROOT / "seqanim" / "kit"
SHARED_PRECOMPUTE = ("common.py",)  # helpers every experiment imports


@dataclass(frozen=True)
class Experiment:
    name: str
    source: Path
    depends: tuple[str, ...]  # upstream experiments whose data this one reads
    extra_outputs: tuple[str, ...]  # files besides <name>.npz/.json, e.g. a state dict
    seconds: float = 0.1  # the module's SECONDS: a cold build's guess of its run time, for scheduling


@dataclass(frozen=True)
class SceneSpec:
    name: str
    source: Path
    data: tuple[str, ...]


def _literal_tuple(node: ast.AST) -> tuple[str, ...]:
    value = ast.literal_eval(node)
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _literal_seconds(node: ast.AST, path: Path) -> float:
    try:
        value = ast.literal_eval(node)
    except ValueError:
        value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"{path.relative_to(ROOT)}: SECONDS must be a plain non-negative number (a cold build's time guess)")
    return float(value)


@lru_cache(maxsize=1)
def experiments() -> dict[str, Experiment]:
    found: dict[str, Experiment] = {}
    for path in sorted(PRECOMPUTE_DIR.glob("*.py")):
        if path.name.startswith("_") or path.name in SHARED_PRECOMPUTE:
            continue
        tree = ast.parse(path.read_text())
        depends: tuple[str, ...] = ()
        extra: tuple[str, ...] = ()
        seconds = 0.1
        has_run = False
        for node in tree.body:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else node.target if isinstance(node, ast.AnnAssign) else None
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(target, ast.Name) and value is not None:
                if target.id == "DEPENDS":
                    depends = _literal_tuple(value)
                elif target.id == "EXTRA_OUTPUTS":
                    extra = _literal_tuple(value)
                elif target.id == "SECONDS":
                    seconds = _literal_seconds(value, path)
            elif isinstance(node, ast.FunctionDef) and node.name == "run":
                has_run = True
        if has_run:
            found[path.stem] = Experiment(path.stem, path, depends, extra, seconds)
    return found


@lru_cache(maxsize=1)
def scenes() -> dict[str, SceneSpec]:
    """Every class in scenes/*.py that sets `data = (...)` and defines `construct`, in file order."""
    found: dict[str, SceneSpec] = {}
    for path in sorted(SCENES_DIR.glob("*.py")):
        if path.name.startswith("_"):
            continue
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.ClassDef):
                continue
            data: tuple[str, ...] | None = None
            has_construct = False
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "construct":
                    has_construct = True
                targets = item.targets if isinstance(item, ast.Assign) else [item.target] if isinstance(item, ast.AnnAssign) else []
                for target in targets:
                    if isinstance(target, ast.Name) and target.id == "data" and item.value is not None:
                        data = _literal_tuple(item.value)
            if has_construct and data is not None:
                found[node.name] = SceneSpec(node.name, path, data)
    return found


def experiment(name: str) -> Experiment:
    known = experiments()
    if name not in known:
        raise UnknownNameError(f"unknown experiment '{name}'; known: {', '.join(known)} (see `seqanim list`)")
    return known[name]


def scene(name: str) -> SceneSpec:
    known = scenes()
    if name not in known:
        raise UnknownNameError(f"unknown scene '{name}'; known: {', '.join(known)} (see `seqanim list`)")
    return known[name]


def deck_scenes(lecture: Lecture, name: str) -> list[str]:
    decks = lecture.deck_list()
    if name == "full" and "full" not in decks:
        return [s for deck in decks.values() for s in deck.scenes]
    if name not in decks:
        raise UnknownNameError(f"unknown deck '{name}'; known: {', '.join([*decks, 'full'])} (see `seqanim list`)")
    return list(decks[name].scenes)


def deck_names(lecture: Lecture) -> list[str]:
    names = list(lecture.deck_list())
    return names if "full" in names else [*names, "full"]


def upstream(name: str) -> list[str]:
    """All experiments `name` transitively reads, nearest last, without duplicates."""
    order: list[str] = []
    for dep in experiment(name).depends:
        for item in [*upstream(dep), dep]:
            if item not in order:
                order.append(item)
    return order


def experiment_params(lecture: Lecture, name: str) -> dict[str, Any]:
    """The parameters an artifact is made from: its own table plus those of every experiment it reads."""
    params = lecture.section(name)
    for dep in upstream(name):
        params[f"upstream.{dep}"] = lecture.section(dep)
    return params
