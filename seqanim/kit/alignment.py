"""Alignment pictures of recurrent attention: a row of tokens, a fan of weighted lines, a score strip.

`TokenRow` draws symbols in boxes (the encoder's input, or the decoder's outputs). `WeightedFan` joins one
point (the decoder state) to every token with a line whose width and opacity follow an attention weight;
its lines are built once and re-weighted in place. `ScoreStrip` is one row of coloured cells with numbers,
for the additive scores e_tj and the softmax weights alpha_tj of a single decoder step. `cell_outlines`
marks chosen cells of a `Heatmap` with dashed squares (e.g. where the weight is expected to go).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from manim import (
    UP,
    Animation,
    AnimationGroup,
    DashedVMobject,
    Line,
    ManimColor,
    RoundedRectangle,
    Square,
    Text,
    VGroup,
)

from seqanim.kit import theme
from seqanim.kit.heatmap import Heatmap, colour_for
from seqanim.kit.motion import RollTexts


def token_box(
    text: str,
    colour: ManimColor,
    width: float = 1.2,
    height: float = 0.8,
    size: float = theme.SMALL_SIZE,
    *,
    corner_radius: float = 0.1,
    stroke_width: float = 3,
    opacity: float = 0.15,
) -> VGroup:
    """One token: a rounded box in the token's colour (`[0]`) with its text inside (`[1]`)."""
    box = RoundedRectangle(
        corner_radius=corner_radius,
        width=width,
        height=height,
        stroke_color=colour,
        stroke_width=stroke_width,
        fill_color=colour,
        fill_opacity=opacity,
    )
    return VGroup(box, theme.text(text, size).move_to(box))


class TokenRow(VGroup):
    """Symbols in rounded boxes, left to right, `spacing` apart (centre to centre)."""

    def __init__(
        self,
        symbols: Sequence[str],
        *,
        box_size: float = 0.48,
        spacing: float = 0.6,
        colour: ManimColor | None = None,
        label_size: float = theme.LABEL_SIZE,
    ) -> None:
        super().__init__()
        colour = colour or theme.key_colour()
        self.boxes = VGroup()
        self.labels = VGroup()
        for index, symbol in enumerate(symbols):
            box, label = token_box(
                str(symbol), colour, box_size, box_size, label_size, corner_radius=0.08, stroke_width=2.5, opacity=0.18
            )
            self.boxes.add(box.move_to([index * spacing, 0, 0]))
            self.labels.add(label.move_to(box))
        self.add(self.boxes, self.labels)
        self.center()

    def __len__(self) -> int:
        return len(self.boxes)

    def token(self, index: int) -> VGroup:
        return VGroup(self.boxes[index], self.labels[index])

    def top(self, index: int) -> np.ndarray:
        return self.boxes[index].get_top()

    def bottom(self, index: int) -> np.ndarray:
        return self.boxes[index].get_bottom()


class WeightedFan(VGroup):
    """Lines from `origin` to each target point; width and opacity grow with the weight in [0, 1]."""

    def __init__(
        self,
        origin: np.ndarray,
        targets: Sequence[np.ndarray],
        *,
        colour: ManimColor | None = None,
        max_width: float = 12.0,
        min_width: float = 0.6,
    ) -> None:
        super().__init__()
        self.colour = colour or theme.highlight()
        self.max_width, self.min_width = max_width, min_width
        self.lines = VGroup(*[Line(origin, target, color=self.colour) for target in targets])
        self.add(self.lines)
        self.set_weights(np.zeros(len(targets)))

    def _style(self, weight: float) -> tuple[float, float]:
        weight = float(np.clip(weight, 0.0, 1.0))
        return self.min_width + (self.max_width - self.min_width) * weight, 0.12 + 0.88 * weight

    def set_weights(self, weights: Sequence[float]) -> "WeightedFan":
        for line, weight in zip(self.lines, weights):
            width, opacity = self._style(weight)
            line.set_stroke(self.colour, width=width, opacity=opacity)
        return self

    def animate_weights(self, weights: Sequence[float]) -> AnimationGroup:
        animations: list[Animation] = []
        for line, weight in zip(self.lines, weights):
            width, opacity = self._style(weight)
            animations.append(line.animate.set_stroke(self.colour, width=width, opacity=opacity))
        return AnimationGroup(*animations, group=self)  # else manim adds a Group of the lines, splitting the fan


class ScoreStrip(VGroup):
    """One row of cells coloured on a fixed scale (vmin..vmax), each with its number written inside."""

    def __init__(
        self,
        count: int,
        *,
        vmin: float,
        vmax: float,
        colormap: Sequence[ManimColor] | None = None,
        cell_size: float = 0.48,
        spacing: float = 0.6,
        fmt: str = "{:.2f}",
        number_size: float = theme.SMALL_SIZE,
        hide_below: float = 0.0,
    ) -> None:
        super().__init__()
        self.vmin, self.vmax = vmin, vmax
        self.colormap = list(colormap or theme.heatmap_colormap())
        self.fmt, self.number_size = fmt, number_size
        # Cells whose |value| is below this show their colour only: the numbers that matter stand out.
        self.hide_below = hide_below
        self.cells = VGroup()
        for index in range(count):
            cell = Square(
                side_length=cell_size,
                stroke_color=theme.muted(),
                stroke_width=1,
                fill_color=theme.background(),
                fill_opacity=1,
            )
            self.cells.add(cell.move_to([index * spacing, 0, 0]))
        self.numbers = VGroup(
            *[theme.text(fmt.format(0.0), number_size).move_to(cell).set_opacity(0) for cell in self.cells]
        )
        self.add(self.cells, self.numbers)
        self.center()

    def colour(self, value: float) -> ManimColor:
        return colour_for(value, self.vmin, self.vmax, self.colormap)

    def _number(self, value: float, cell: Square) -> Text:
        # Dark digits on bright cells, light digits on dark ones (by contrast: works for any ramp and preset).
        if abs(value) < self.hide_below:  # never shown: one blank text for all, built once (not one per value)
            return theme.text(self.fmt.format(0.0), self.number_size).move_to(cell).set_opacity(0)
        colour = theme.text_on(self.colour(value))
        return theme.text(self.fmt.format(value), self.number_size, colour).move_to(cell)

    def number_targets(self, values: Sequence[float]) -> VGroup:
        """Numbers for `values` placed over the cells (for a Transform from `numbers`)."""
        return VGroup(*[self._number(float(v), cell) for v, cell in zip(values, self.cells)])

    def set_values(self, values: Sequence[float]) -> "ScoreStrip":
        for value, cell in zip(values, self.cells):
            cell.set_fill(self.colour(float(value)), opacity=1)
        targets = self.number_targets(values)
        for old, new in zip(self.numbers, targets):
            old.become(new)
        return self

    def animate_values(self, values: Sequence[float]) -> list[Animation]:
        """Recolour the cells and roll each changed number into its new one (no glyph is morphed)."""
        animations: list[Animation] = [
            cell.animate.set_fill(self.colour(float(v)), opacity=1) for v, cell in zip(values, self.cells)
        ]
        animations.append(RollTexts(self.numbers, self.number_targets(values)))
        return animations

    def settle(self) -> "ScoreStrip":
        """Kept for callers written for the morph: the roll already leaves the new numbers in place."""
        return self

    def blank(self) -> "ScoreStrip":
        for cell in self.cells:
            cell.set_fill(theme.background(), opacity=1)
        for number in self.numbers:
            number.set_opacity(0)
        return self


def label_above(mobject: VGroup, text: str, size: float = theme.SMALL_SIZE, buff: float = 0.12) -> Text:
    """A muted caption just above `mobject`."""
    return theme.label(text, size, theme.muted()).next_to(mobject, UP, buff=buff)


def cell_outlines(heatmap: Heatmap, cells: Iterable[tuple[int, int]], colour: ManimColor | None = None) -> VGroup:
    """Dashed squares just inside the (row, col) cells of `heatmap`, one per cell,
    in the foreground colour by default."""
    colour = colour or theme.foreground()
    side = heatmap.cell_size * 0.92  # inside the cell, so neighbouring outlines never touch
    return VGroup(
        *[
            DashedVMobject(Square(side_length=side, stroke_color=colour, stroke_width=3), num_dashes=8).move_to(
                heatmap.cell(row, col)
            )
            for row, col in cells
        ]
    )
