"""What the seed-003 scenes share: the walkthrough artifact on every scene, its key labels and item colours,
and the number formats every number on screen and in the notes goes through."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import ManimColor

from seqanim import Artifact, LectureSlide
from seqanim.kit import theme

# Bottom captions of these scenes run a little larger than the kit's default label size.
CAPTION_SIZE = theme.LABEL_SIZE

# --- formatting: every number on screen and in the notes goes through these -------------------------


def fmt_row(values: Sequence[float], decimals: int = 4) -> str:
    """[0.7071, 0.0000, 0.7071]"""
    return "[" + ", ".join(f"{float(v):.{decimals}f}" for v in values) + "]"


def fmt_g(values: Sequence[float]) -> str:
    """[1, 0]: short form of exact small numbers (the hand-designed vectors, a [1, 0, 0] weight row)."""
    return "[" + ", ".join(f"{float(v):g}" for v in values) + "]"


def exact_decimals(values: np.ndarray) -> int:
    """The fewest decimals (up to 2) that print every hand-designed entry as it is: 0 for the notebook's."""
    return next((d for d in range(3) if np.allclose(values, np.round(values, d))), 2)


def item_colours(count: int) -> list[ManimColor]:
    """One colour per memory item (A, B, C), kept through every scene; distinct from the Q/K/V role colours."""
    return [theme.item_colour(i) for i in range(count)]


def key_labels(art: Artifact) -> list[str]:
    return [str(label) for label in art["labels"]]


def position_labels(count: int) -> list[str]:
    return [f"pos {i}" for i in range(count)]


class WhyAttentionSlide(LectureSlide):
    """Shared furniture of the seed-003 scenes: the walkthrough artifact, its key labels and item colours."""

    data = ("qkv_walkthrough",)

    def setup(self) -> None:
        super().setup()
        self.art = self.load("qkv_walkthrough")
        self.labels = key_labels(self.art)
        self.colours = item_colours(len(self.labels))
