"""The kinds of stage, each declared once: the libraries its process needs, how it runs in that process, and
the command that rebuilds one on request. An experiment runs precompute/ into data/ (`experiments`), a scene
renders data/ into its video, slide files and report (`render`), a narration makes a scene's narrated cut
(`seqanim.publish.narrate`) and a deck exports the decks (`seqanim.decks`). What feeds each (its inputs and
outputs) is planned by `seqanim.engine.graph`.

Nothing heavy is imported here: a no-op build reads the commands.
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
    run: Callable[[str, str, Lecture], dict[str, Any]]  # (name, quality, lecture) -> the stage's result line
    rebuild: str  # the command that rebuilds one, after `seqanim`


KINDS = {
    "experiment": Kind(_experiment, "precompute"),
    "scene": Kind(_scene, "render"),
    "narration": Kind(_narration, "render --narrated"),
    "deck": Kind(_deck, "slides"),
}
