"""What several Transformer scenes share: the size of axis numbers, a line along a heatmap's diagonal, and
numbers rounded for the ear."""

from __future__ import annotations

import math
from dataclasses import dataclass

from manim import DOWN, LEFT, RIGHT, UP, Line, ManimColor

from seqanim import number
from seqanim.kit import theme
from seqanim.kit.heatmap import Heatmap

# Axis numbers a little above the kit default: these plots are small on a 854x480 frame.
TICK_SIZE = theme.tex_size(theme.SMALL_SIZE)


def diagonal_line(heatmap: Heatmap, offset: int, colour: ManimColor) -> Line:
    """A line through the cells (i, i + offset) of a square heatmap."""
    size = heatmap.shape[0]
    first = heatmap.cell(0, offset) if offset >= 0 else heatmap.cell(-offset, 0)
    last = heatmap.cell(size - 1 - offset, size - 1) if offset >= 0 else heatmap.cell(size - 1, size - 1 + offset)
    return Line(first.get_corner(UP + LEFT), last.get_corner(DOWN + RIGHT), color=colour, stroke_width=4)


@dataclass(frozen=True)
class Rounded:
    """A number rounded for the ear, and the decimals it is said with."""

    value: float
    decimals: int


def significant_rounded(value: float, digits: int = 2) -> Rounded:
    """`value` rounded to `digits` significant digits, with the decimals that keeps:
    significant_rounded(0.008315) -> Rounded(0.0083, 4), significant_rounded(47117.2) -> Rounded(47000.0, 0)."""
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return Rounded(value, 0)
    place = digits - 1 - math.floor(math.log10(abs(value)))
    return Rounded(round(value, place), max(place, 0))


def significant(value: float, digits: int = 2) -> str:
    """`value` spoken to `digits` significant digits, what a listener can hold:
    significant(0.008315) -> "zero point zero zero eight three", significant(47117.2) -> "forty-seven thousand"."""
    rounded = significant_rounded(value, digits)
    return number(rounded.value, rounded.decimals)
