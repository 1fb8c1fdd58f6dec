"""The PowerPoint deck: manim-slides' converter, one slide per deck slide with its movie and notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from seqanim.decks.plan import DeckPlan
from seqanim.files import atomic_output
from seqanim.workspace import current


def export_pptx(plan: DeckPlan, presentations: list[Any]) -> Path:
    """manim-slides' PowerPoint converter: one slide per deck slide with its movie (autoplay) and notes."""
    from manim_slides.convert import PowerPoint

    path = current().slides(plan.quality) / f"{plan.deck}.pptx"
    path.parent.mkdir(parents=True, exist_ok=True)
    width, height = presentations[0].resolution
    with atomic_output(path, suffix=".tmp.pptx") as tmp:
        PowerPoint(presentation_configs=presentations, width=width, height=height).convert_to(tmp)
    return path
