"""The kinds of stage, each declared once: the libraries its process needs, how it runs in that process, and
the command that rebuilds one on request. An experiment runs precompute/ into data/ (`experiments`), a scene
renders data/ into its video, slide files and report (`render`), a narration makes a scene's narrated cut
(`seqanim.publish.narrate`) and a deck exports the decks (`seqanim.decks`). What feeds each (its inputs and
outputs) is planned by `seqanim.engine.graph`.

Nothing heavy is imported here: a Dask worker reads the libraries to preload, and a no-op build the commands.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from seqanim.lecture.config import Lecture


def _experiment(name: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    from seqanim.stages.experiments import run_experiment

    return run_experiment(name, lecture)


def _scene(name: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    from seqanim.stages.render import render_scene

    report = render_scene(name, quality, quiet=True)
    return {k: report[k] for k in ("duration", "render_seconds", "slides")}


def _narration(name: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    from seqanim.publish.narrate import narrate_scene

    timing = narrate_scene(name, quality, lecture)
    return {k: timing[k] for k in ("duration", "animation", "synthesised", "warnings")}


def _deck(name: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    from seqanim.decks import export_deck

    return {k: str(v) for k, v in export_deck(lecture, name, quality).items()}


@dataclass(frozen=True)
class Kind:
    libraries: tuple[str, ...]  # imported once per Dask worker, so each stage's process starts with them
    run: Callable[[str, str, Lecture], dict[str, Any]]  # (name, quality, lecture) -> the stage's result line
    rebuild: str  # the command that rebuilds one, after `seqanim`


# pydantic.main, not just pydantic: the package imports its model machinery lazily (about 0.1 s per stage).
_COMMON = ("numpy", "pydantic", "pydantic.main", "click", "rich")
KINDS = {
    "experiment": Kind((*_COMMON, "torch"), _experiment, "precompute"),
    "scene": Kind((*_COMMON, "manim"), _scene, "render"),
    "narration": Kind((*_COMMON, "av", "PIL.Image"), _narration, "render --narrated"),
    "deck": Kind((*_COMMON, "manim"), _deck, "slides"),
}
