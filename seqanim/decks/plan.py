"""What a deck is: its scenes in order, grouped by lecture part, with a title card and part dividers.

A deck is a lecture part (a module of `scenes/`: its scenes in the order it defines them), `full` (every
part, in the parts' order), or a `[decks.NAME]` table of lecture.toml (a title and a list of scenes).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from seqanim.decks.cards import Card, card_json, ensure_cards
from seqanim.errors import StageFailed, UnknownNameError
from seqanim.lecture import registry
from seqanim.lecture.config import Lecture
from seqanim.workspace import current

FULL = "full"


def deck_names(lecture: Lecture) -> list[str]:
    """Every deck: the parts, then lecture.toml's own decks, then `full`."""
    return [*registry.parts(), *[name for name in lecture.decks.items if name not in registry.parts()], FULL]


def deck_scenes(lecture: Lecture, deck: str) -> list[str]:
    parts = registry.parts()
    if deck in parts and deck in lecture.decks.items:
        raise UnknownNameError(
            f"[decks.{deck}] in lecture.toml has the name of a lecture part "
            f"({current().label(parts[deck].source)}); rename it"
        )
    if deck in lecture.decks.items:
        scenes = list(lecture.decks.items[deck].scenes)
        for scene in scenes:
            if scene not in registry.scenes():
                raise UnknownNameError(
                    f"[decks.{deck}] lists unknown scene '{scene}'; known: {', '.join(registry.scenes())}"
                )
        return scenes
    if deck in parts:
        return list(parts[deck].scenes)
    if deck == FULL:
        return [scene for part in parts.values() for scene in part.scenes]
    raise UnknownNameError(f"unknown deck '{deck}'; known: {', '.join(deck_names(lecture))} (see `seqanim list`)")


def deck_title(lecture: Lecture, deck: str) -> str:
    if deck in lecture.decks.items:
        return lecture.decks.items[deck].title
    if deck in registry.parts():
        return registry.parts()[deck].title
    return lecture.decks.full_title


def deck_definition(lecture: Lecture, deck: str) -> dict[str, Any]:
    """What the deck's outputs are made from (the build hashes it)."""
    return {"title": deck_title(lecture, deck), "scenes": deck_scenes(lecture, deck)}


def deck_parts(lecture: Lecture, deck: str) -> list[tuple[str | None, list[str]]]:
    """The deck's scenes grouped by lecture part, in deck order.

    A deck whose scenes all lie in one part is one group with part None: it gets a title card and no
    dividers; one that spans several parts (`full`) gets a divider before each.
    """
    scenes = deck_scenes(lecture, deck)
    groups: list[tuple[str | None, list[str]]] = []
    for scene in scenes:
        part = registry.scene(scene).part
        if groups and part == groups[-1][0]:
            groups[-1][1].append(scene)
        else:
            groups.append((part, [scene]))
    if len({part for part, _ in groups}) < 2:
        return [(None, scenes)]
    return groups


@dataclass(frozen=True)
class DeckEntry:
    """One presentation in the deck's order: a card or a scene."""

    kind: Literal["title", "divider", "scene"]
    name: str  # the scene name, or the card id
    slide_file: Path  # manim-slides JSON
    present_name: str  # the name `manim-slides present --folder slides/<q>` knows it by
    label: str  # what the handout prints above its slides


@dataclass(frozen=True)
class DeckPlan:
    deck: str
    title: str
    quality: str
    entries: tuple[DeckEntry, ...]
    cards: tuple[Card, ...]


def humanise(scene: str) -> str:
    """`InsideTheLSTM` -> `Inside the LSTM`."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+|\d+", scene)
    return (
        " ".join([words[0], *[w if w.isupper() and len(w) > 1 else w.lower() for w in words[1:]]]) if words else scene
    )


def _report(scene: str, quality: str) -> dict[str, Any]:
    workspace = current()
    path = workspace.renders(quality) / f"{scene}.report.json"
    slides = workspace.slides(quality) / f"{scene}.json"
    if not path.exists() or not slides.exists():
        raise StageFailed(
            f"scene {scene} has no {quality} render ({workspace.label(path)} or {workspace.label(slides)} is missing); "
            f"run `seqanim build --quality {quality}` first"
        )
    return json.loads(path.read_text())


def _summary(reports: list[dict[str, Any]]) -> tuple[int, float]:
    return sum(r["slides"] for r in reports), sum(r["duration"] for r in reports)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _length(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def deck_plan(lecture: Lecture, deck: str, quality: str) -> DeckPlan:
    """Cards and scenes in order, with the cards' text and notes formatted from the render reports."""
    title = deck_title(lecture, deck)
    groups = deck_parts(lecture, deck)
    scenes = [scene for _, group in groups for scene in group]
    reports = {scene: _report(scene, quality) for scene in scenes}
    slides, seconds = _summary(list(reports.values()))
    multi = groups[0][0] is not None
    slug = re.sub(r"[^A-Za-z0-9_-]", "_", deck)
    cards: list[Card] = []
    if multi:
        items = tuple(
            f"{k}  {deck_title(lecture, part or '')} ({_count(len(group), 'scene')})"
            for k, (part, group) in enumerate(groups, start=1)
        )
        notes = (
            f"{title}: {len(groups)} parts, {len(scenes)} scenes, {slides} slides, {_length(seconds)} of animation. "
            + " ".join(
                f"Part {k}: {deck_title(lecture, part or '')} ({_count(len(group), 'scene')})."
                for k, (part, group) in enumerate(groups, start=1)
            )
        )
    else:
        items = tuple(humanise(scene) for scene in scenes)
        notes = (
            f"{title}: {_count(len(scenes), 'scene')}, {slides} slides, {_length(seconds)} of animation. "
            f"In order: {', '.join(humanise(s) for s in scenes)}."
        )
    footer = f"{_count(len(scenes), 'scene')} · {slides} slides · {_length(seconds)} of animation"
    title_card = Card(
        id=f"{slug}-title", kicker="Sequence models, animated", heading=title, items=items, footer=footer, notes=notes
    )
    cards.append(title_card)
    entries = [_card_entry(title_card, "title", quality, title)]
    for k, (part, group) in enumerate(groups, start=1):
        if multi:
            part_title = deck_title(lecture, part or "")
            part_slides, part_seconds = _summary([reports[s] for s in group])
            divider = Card(
                id=f"{slug}-part-{k}-{part}",
                kicker=f"Part {k} of {len(groups)}",
                heading=part_title,
                items=tuple(humanise(s) for s in group),
                footer=f"{_count(len(group), 'scene')} · {part_slides} slides · {_length(part_seconds)} of animation",
                notes=(
                    f"Part {k} of {len(groups)}: {part_title}. {_count(len(group), 'scene')}, {part_slides} slides, "
                    f"{_length(part_seconds)} of animation: {', '.join(humanise(s) for s in group)}."
                ),
            )
            cards.append(divider)
            entries.append(_card_entry(divider, "divider", quality, f"Part {k}: {part_title}"))
        for scene in group:
            entries.append(
                DeckEntry("scene", scene, current().slides(quality) / f"{scene}.json", scene, humanise(scene))
            )
    return DeckPlan(deck, title, quality, tuple(entries), tuple(cards))


def _card_entry(card: Card, kind: Literal["title", "divider"], quality: str, label: str) -> DeckEntry:
    return DeckEntry(kind, card.id, card_json(card.id, quality), f"cards/{card.id}", label)


def load_presentations(plan: DeckPlan) -> list[Any]:
    from manim_slides.config import PresentationConfig

    return [PresentationConfig.from_file(entry.slide_file) for entry in plan.entries]


def prepare(lecture: Lecture, deck: str, quality: str) -> tuple[DeckPlan, list[Any]]:
    """The deck's plan, with its cards rendered and every slide file loaded."""
    plan = deck_plan(lecture, deck, quality)
    ensure_cards(plan.cards, lecture, quality)
    return plan, load_presentations(plan)


# --- outputs --------------------------------------------------------------------------------------------
