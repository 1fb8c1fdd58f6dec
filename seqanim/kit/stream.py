"""`Stream`: a sequence of values as stems on a time axis, with an optional marker channel beneath.

Built for inputs that arrive one step at a time (the adding problem's two channels): stems appear one by
one, marked steps light up, and a cursor can walk along the time axis. Every stem is built once; the
animations only grow, recolour or move them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    UP,
    Animation,
    AnimationGroup,
    Dot,
    FadeIn,
    GrowFromPoint,
    LaggedStart,
    Line,
    ManimColor,
    Square,
    ValueTracker,
    VGroup,
)

from seqanim.kit import theme


class Stream(VGroup):
    """Stems for `values` (length T) spread over `width`; `max_value` maps to `height`.

    With `marks` (0/1 per step) a row of small squares beneath shows the marker channel: filled where 1.
    `tick_every` labels the time axis every so many steps (0 = no labels).
    """

    def __init__(
        self,
        values: Sequence[float],
        marks: Sequence[float] | None = None,
        *,
        width: float = 12.0,
        height: float = 2.0,
        max_value: float = 1.0,
        colour: ManimColor | None = None,
        mark_colour: ManimColor | None = None,
        dot_radius: float = 0.06,
        tick_every: int = 5,
        label_size: float = theme.SMALL_SIZE,
        value_label: str = "",
        marker_label: str = "",
    ) -> None:
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        self.marks = None if marks is None else np.asarray(marks, dtype=float)
        self.count = len(self.values)
        self.step = width / self.count
        self.unit = height / max_value
        self.colour = colour or theme.muted()
        self.mark_colour = mark_colour or theme.highlight()
        xs = (np.arange(self.count) + 0.5) * self.step - width / 2

        self.baseline = Line([-width / 2, 0, 0], [width / 2, 0, 0], color=theme.muted(), stroke_width=2)
        self.stems = VGroup()
        self.dots = VGroup()
        for x, value in zip(xs, self.values):
            top = [x, value * self.unit, 0]
            self.stems.add(Line([x, 0, 0], top, color=self.colour, stroke_width=3))
            self.dots.add(Dot(top, radius=dot_radius, color=self.colour))
        self.add(self.baseline, self.stems, self.dots)

        self.marker_cells = VGroup()
        if self.marks is not None:
            self.marker_cells = self._marker_cells(xs, self.marks)
            self.add(self.marker_cells)

        self.ticks = VGroup()
        if tick_every:
            anchor = self.marker_cells if len(self.marker_cells) else self.baseline
            for index in range(0, self.count, tick_every):
                label = theme.text(str(index), label_size, theme.muted())
                self.ticks.add(label.move_to([xs[index], anchor.get_bottom()[1] - 0.1 - label.height / 2, 0]))
            self.add(self.ticks)

        self.channel_labels = VGroup()
        if value_label:
            label = theme.text(value_label, label_size, theme.muted()).next_to(self.baseline, LEFT, buff=0.2)
            self.channel_labels.add(label.align_to(self.baseline, DOWN).shift(0.1 * UP))
        if marker_label and len(self.marker_cells):
            self.channel_labels.add(
                theme.text(marker_label, label_size, theme.muted()).next_to(self.marker_cells, LEFT, buff=0.2)
            )
        self.add(self.channel_labels)

    def _marker_cells(self, xs: np.ndarray, marks: np.ndarray) -> VGroup:
        """A square under each step, filled where the step is marked."""
        side = min(self.step * 0.8, 0.3)
        cells = VGroup()
        for x, mark in zip(xs, marks):
            cell = Square(side_length=side, stroke_color=theme.muted(), stroke_width=1.5)
            cell.set_fill(self.mark_colour if mark > 0.5 else theme.background(), opacity=1)
            cells.add(cell.move_to([x, -side / 2 - 0.15, 0]))
        return cells

    # --- geometry ----------------------------------------------------------------------------------

    def x_of(self, index: float) -> float:
        """Screen x of step `index` (fractional steps interpolate)."""
        return float(self.baseline.get_left()[0] + (index + 0.5) * self.step)

    def top(self, index: int) -> np.ndarray:
        return self.dots[index].get_center()

    def stem(self, index: int) -> VGroup:
        """The stem, dot and marker cell (if any) of one step."""
        group = VGroup(self.stems[index], self.dots[index])
        if len(self.marker_cells):
            group.add(self.marker_cells[index])
        return group

    def marked(self) -> list[int]:
        return [] if self.marks is None else [int(i) for i in np.flatnonzero(self.marks > 0.5)]

    # --- animation ------------------------------------------------------------------------------------

    def hide(self) -> Stream:
        """Hide every step (stem, dot, marker cell) so `appear` can reveal them one by one."""
        for index in range(self.count):
            self.stem(index).set_opacity(0)
        return self

    def appear(self, run_time_per_step: float = 0.08) -> LaggedStart:
        """Reveal the steps left to right: each stem grows from the baseline, then its marker cell."""
        steps = []
        for index in range(self.count):
            self.stems[index].set_stroke(opacity=1)
            self.dots[index].set_opacity(1)
            parts = [
                GrowFromPoint(self.stems[index], self.stems[index].get_start()),
                FadeIn(self.dots[index], scale=0.5),
            ]
            if len(self.marker_cells):
                cell = self.marker_cells[index]
                cell.set_stroke(opacity=1).set_fill(opacity=1)
                parts.append(FadeIn(cell))
            steps.append(AnimationGroup(*parts))
        return LaggedStart(*steps, lag_ratio=1.0, run_time=run_time_per_step * self.count)

    def light(self, indices: Sequence[int], colour: ManimColor | None = None, scale: float = 1.8) -> AnimationGroup:
        """Recolour the stems at `indices` and enlarge their dots: the steps that matter."""
        colour = colour or self.mark_colour
        animations: list[Animation] = []
        for index in indices:
            animations.append(self.stems[index].animate.set_stroke(colour, width=5))
            animations.append(self.dots[index].animate.set_color(colour).scale(scale))
        return AnimationGroup(*animations)

    def cursor(self, tracker: ValueTracker, colour: ManimColor | None = None) -> Line:
        """A vertical line at step `tracker` spanning the stream, following the tracker."""
        line = Line(ORIGIN, UP, color=colour or theme.foreground(), stroke_width=2)
        reach = self.unit * max(1.0, float(self.values.max()))

        def follow(mobject: Line) -> None:
            # Measured from the stream's current position, so the stream may be moved after this call.
            base = self.baseline.get_center()[1]
            bottom = self.marker_cells.get_bottom()[1] if len(self.marker_cells) else base
            x = self.x_of(tracker.get_value())
            mobject.put_start_and_end_on([x, bottom, 0], [x, base + reach, 0])

        follow(line)
        line.add_updater(follow)
        return line
