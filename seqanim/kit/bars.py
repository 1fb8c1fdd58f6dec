"""`Bars`: a labelled bar chart whose bars and value readouts morph together (scores -> softmax weights).

Bars grow up from a baseline for positive values and down for negative ones, so raw scores and weights
use the same mobject. Readouts are `DecimalNumber`s, so a morph changes numbers without new `Text`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    UP,
    AnimationGroup,
    ChangeDecimalToValue,
    DecimalNumber,
    Line,
    ManimColor,
    Rectangle,
    Text,
    VGroup,
)

from seqanim.kit import theme
from seqanim.kit.describe import label_text, number
from seqanim.kit.heatmap import centred_lines


class Bars(VGroup):
    """Bars for `values` over `labels`; `max_value` maps to `height` (the scale is fixed across morphs)."""

    def __init__(
        self,
        values: Sequence[float],
        labels: Sequence[str],
        *,
        max_value: float = 1.0,
        height: float = 3.0,
        bar_width: float = 0.7,
        spacing: float = 0.35,
        colours: Sequence[ManimColor] | None = None,
        decimals: int = 4,
        show_values: bool = True,
        label_size: float = theme.LABEL_SIZE,
        value_size: float = theme.tex_size(theme.SMALL_SIZE),
        min_value: float | None = None,
    ) -> None:
        super().__init__()
        self.values = np.array(values, dtype=float)
        self.max_value = max_value
        # The lowest value any later morph reaches: labels sit below it from the start (optional).
        self.min_value = min(
            0.0, float(self.values.min()) if min_value is None else min(min_value, float(self.values.min()))
        )
        self.unit = height / max_value
        self.bar_width = bar_width
        count = len(self.values)
        colours = list(colours or [theme.item_colour(i) for i in range(count)])
        step = bar_width + spacing
        xs = (np.arange(count) - (count - 1) / 2) * step
        self.baseline = Line([xs[0] - step / 2, 0, 0], [xs[-1] + step / 2, 0, 0], color=theme.muted(), stroke_width=2)
        self.bars = VGroup()
        self.readouts = VGroup()
        self.labels = VGroup()
        for x, value, colour, label in zip(xs, self.values, colours, labels):
            bar = self._bar(value, colour).move_to([x, 0, 0], aligned_edge=DOWN if value >= 0 else UP)
            self.bars.add(bar)
            self.labels.add(
                centred_lines(
                    Text(str(label), font=theme.font(), font_size=label_size, color=theme.foreground())
                ).move_to([x, -0.3, 0])
            )
            readout = DecimalNumber(value, num_decimal_places=decimals, font_size=value_size, color=theme.foreground())
            self.readouts.add(readout)
        self._xs = xs
        self.add(self.baseline, self.bars, self.labels)
        self.show_values = show_values
        if show_values:
            self.add(self.readouts)
        self._place_readouts()
        self._place_labels()

    def describe(self) -> str:
        """Alt text from the values: every bar's label and value, and the tallest."""
        names = [label_text(label) for label in self.labels]
        pairs = ", ".join(f"{name} {number(value)}" for name, value in zip(names, self.values))
        top = int(np.argmax(self.values))
        return f"bar chart of {len(self.values)} values: {pairs}; tallest {names[top]} ({number(self.values[top])})"

    def _bar(self, value: float, colour: ManimColor) -> Rectangle:
        height = max(abs(value) * self.unit, 1e-3)
        return Rectangle(width=self.bar_width, height=height, stroke_width=0, fill_color=colour, fill_opacity=0.9)

    def _place_readouts(self) -> None:
        # Readouts follow their bar through every morph: above a positive bar, below a negative one.
        for bar, readout in zip(self.bars, self.readouts):

            def follow(mobject: DecimalNumber, bar: Rectangle = bar) -> None:
                above = bar.get_center()[1] >= self.baseline.get_center()[1] - 1e-6
                mobject.next_to(bar, UP if above else DOWN, buff=0.08)

            follow(readout)
            readout.add_updater(follow)

    def _place_labels(self) -> None:
        lowest = min(0.0, self.min_value * self.unit)
        base_y = self.baseline.get_center()[1]
        for label, x in zip(self.labels, self._xs):
            label.move_to(
                [self.baseline.get_center()[0] + x, base_y + lowest - 0.35 - (0.35 if self.min_value < 0 else 0), 0]
            )

    def morph(
        self,
        values: Sequence[float],
        colours: Sequence[ManimColor] | None = None,
        readouts: bool | None = None,
        unit: float | None = None,
    ) -> AnimationGroup:
        """Animate bars (and readouts, when shown) to `values`, on the same scale or, given `unit`, on a new one
        (scene units per value: the readouts still say each value). Hidden readouts are never animated: that
        would put them on screen."""
        readouts = self.show_values if readouts is None else readouts and self.show_values
        self.unit = self.unit if unit is None else unit
        values = np.array(values, dtype=float)
        base_y = self.baseline.get_center()[1]
        animations = []
        for index, (bar, readout, value) in enumerate(zip(self.bars, self.readouts, values)):
            colour = colours[index] if colours is not None else bar.get_fill_color()
            target = self._bar(value, colour)
            target.move_to([bar.get_center()[0], base_y, 0], aligned_edge=DOWN if value >= 0 else UP)
            animations.append(bar.animate.become(target))
            if readouts:
                animations.append(ChangeDecimalToValue(readout, value))
        self.values = values
        return AnimationGroup(*animations)

    def set_values(self, values: Sequence[float]) -> "Bars":
        """Set bars and readouts to `values` in place, no animation (for a ValueTracker updater)."""
        values = np.array(values, dtype=float)
        base_y = self.baseline.get_center()[1]
        for bar, readout, value in zip(self.bars, self.readouts, values):
            x = bar.get_center()[0]
            bar.stretch_to_fit_height(max(abs(value) * self.unit, 1e-3))
            bar.move_to([x, base_y, 0], aligned_edge=DOWN if value >= 0 else UP)
            readout.set_value(value)
        self.values = values
        return self
