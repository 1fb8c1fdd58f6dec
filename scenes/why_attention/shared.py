"""What the seed-003 scenes share: the walkthrough artifact on every scene, its key labels and item colours,
and the number formats every number on screen and in the notes goes through."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from manim import RIGHT, ManimColor, Mobject, config

from seqanim import Artifact, LectureSlide
from seqanim.kit import theme
from seqanim.kit.matrix import number_format

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


# --- matrices that grow with the keys: cells a share of the default's, never narrower than what they hold ---

# Room a matrix cell leaves beside its widest text, so that neighbouring numbers read apart; column labels with a
# space inside ("pos 0") need more between them than that space, or a row of them reads as one line.
CELL_ROOM, LABEL_ROOM = 0.12, 0.3

# The lecture's memory items (qkv_walkthrough.keys): the pictures' widths were chosen for three.
LECTURE_ITEMS = 3


def item_share(count: int) -> float:
    """The share of its width at the lecture's three items that each of `count` items keeps: more items share
    the same room, fewer keep their width (1.0)."""
    return min(1.0, LECTURE_ITEMS / count)


def widest(texts: Iterable[str], size: float) -> float:
    """The width of the widest of `texts` at `size`."""
    return max(theme.text(text, size).width for text in texts)


def fitting_numbers(
    values: Iterable[np.ndarray], cell_width: float, sizes: Sequence[float], decimals: Sequence[int] = (4, 3, 2)
) -> tuple[int, float]:
    """(decimals, size): the most `decimals`, then the largest of `sizes`, at which every finite number of
    `values` leaves CELL_ROOM in a cell of `cell_width`; the fewest at the smallest where none does (the cell
    must widen to `widest` of them)."""
    finite = np.concatenate([np.asarray(v, dtype=float).ravel() for v in values])
    finite = finite[np.isfinite(finite)]
    candidates = [(places, size) for places in decimals for size in sizes]
    for places, size in candidates:
        if widest({number_format(places)(v) for v in finite}, size) + CELL_ROOM <= cell_width:
            return places, size
    return candidates[-1]


def clear_right_of(
    mobject: Mobject, neighbour: Mobject, gap: float, beyond: float = 0.0, margin: float = 0.2
) -> Mobject:
    """`mobject` moved right the least that leaves `gap` between `neighbour` (left of it) and it, but not so far
    that it, and `beyond` more (row sums to come right of it), leaves `margin` inside the frame: where more keys
    widen a picture, what stood right of it goes nearer the edge. Returns it, moved."""
    spare = config.frame_width / 2 - margin - (mobject.get_right()[0] + beyond)
    wanted = neighbour.get_right()[0] + gap - mobject.get_left()[0]
    return mobject.shift(max(0.0, min(spare, wanted)) * RIGHT)


def item_colours(count: int) -> list[ManimColor]:
    """One colour per memory item (A, B, C), kept through every scene; distinct from the Q/K/V role colours."""
    return [theme.item_colour(i) for i in range(count)]


def key_labels(art: Artifact) -> list[str]:
    return [str(label) for label in art["labels"]]


def position_labels(count: int) -> list[str]:
    return [f"pos {i}" for i in range(count)]


def column_names(count: int, size: float, share: float) -> list[str]:
    """Names of `count` position columns: "pos 0" and on where the widest at `size` leaves LABEL_ROOM in a cell
    of `share`, else the bare indices "0" and on."""
    positions = position_labels(count)
    return positions if widest(positions, size) + LABEL_ROOM <= share else [str(i) for i in range(count)]


class WhyAttentionSlide(LectureSlide):
    """Shared furniture of the seed-003 scenes: the walkthrough artifact, its key labels and item colours."""

    data = ("qkv_walkthrough",)

    def setup(self) -> None:
        super().setup()
        self.art = self.load("qkv_walkthrough")
        self.labels = key_labels(self.art)
        self.colours = item_colours(len(self.labels))
