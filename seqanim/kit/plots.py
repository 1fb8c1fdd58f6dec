"""Plot mobjects: themed axes (linear or log y), curves drawn live against a tracker, axis labels.

Curves precompute their screen points once; a live curve only slices that array each frame, so a
plot with thousands of points animates at the cost of one polyline.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import DOWN, LEFT, Axes, DecimalNumber, LogBase, ManimColor, MathTex, ValueTracker, VGroup, VMobject

from seqanim.kit import theme
from seqanim.kit.describe import label_text


def nice_range(low: float, high: float, ticks: int = 4) -> tuple[float, float, float]:
    """An axis range covering [low, high] in about `ticks` steps of 1, 2 or 5 x 10^k (integers when the step is)."""
    raw = max(high - low, 1e-12) / ticks
    magnitude = 10.0 ** np.floor(np.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    bounds = (np.floor(low / step) * step, np.ceil(high / step) * step, step)
    # Integer ticks print as "10", not "10.0".
    return tuple(int(round(b)) for b in bounds) if step >= 1 else tuple(float(b) for b in bounds)  # type: ignore[return-value]


def decade_range(low: float, high: float, most: int = 10) -> tuple[float, float, int]:
    """A log axis's (low, high, step) in decades: a label every decade, or every 2, 5, 10, ... where that would
    crowd more than `most` steps onto it, `low` lowered to a multiple of the step so that 1 = 10^0 keeps its tick."""
    step = next(step for step in (1, 2, 5, 10, 20, 50, 100) if (high - low) / step <= most)
    return float(np.floor(low / step) * step), high, step


class Plot(VGroup):
    """Axes with labels. `log_y=True` takes y_range as decades, e.g. (-5, 4, 1) spans 1e-5..1e4."""

    def __init__(
        self,
        x_range: Sequence[float],
        y_range: Sequence[float],
        *,
        width: float = 6.0,
        height: float = 4.0,
        x_label: str = "",
        y_label: str = "",
        log_y: bool = False,
        log_x: bool = False,
        tick_size: float = theme.tex_size(theme.SMALL_SIZE),
        label_size: float = theme.LABEL_SIZE,
        x_numbers: bool = True,
        x_numbers_below: bool = False,
    ) -> None:
        """`x_numbers_below`: when y = 0 lies inside the range the x axis crosses the middle of the plot;
        this moves its numbers (and label) under the plot, where they do not sit on the curves."""
        super().__init__()
        self.log_y, self.log_x = log_y, log_x
        axis_style = {"stroke_color": theme.muted(), "stroke_width": 2, "include_tip": False}
        x_config = {**axis_style, "font_size": tick_size}
        y_config = {**axis_style, "font_size": tick_size}
        if log_y:
            y_config["scaling"] = LogBase(custom_labels=True)
        if log_x:
            x_config["scaling"] = LogBase(base=2, custom_labels=True)
        self.axes = Axes(
            x_range=list(x_range),
            y_range=list(y_range),
            x_length=width,
            y_length=height,
            axis_config=axis_style,
            x_axis_config={**x_config, "include_numbers": x_numbers},
            y_axis_config={**y_config, "include_numbers": True},
            tips=False,
        )
        self.axes.set_color(theme.muted())
        for mobject in self.axes.get_family():
            if isinstance(mobject, (DecimalNumber, MathTex)):
                mobject.set_color(theme.foreground())
        self.add(self.axes)
        bottom = self.axes.y_axis.get_bottom()[1]
        if x_numbers_below:
            for number in self.axes.x_axis.get_family():
                if isinstance(number, (DecimalNumber, MathTex)):
                    number.set_y(bottom - 0.1 - number.height / 2)
        self.x_label = theme.label(x_label, label_size).next_to(self.axes.x_axis, DOWN, buff=0.45) if x_label else None
        self.y_label = (
            theme.label(y_label, label_size).rotate(np.pi / 2).next_to(self.axes.y_axis, LEFT, buff=0.55)
            if y_label
            else None
        )
        for label in (self.x_label, self.y_label):
            if label is not None:
                self.add(label)

    def describe(self) -> str:
        """Alt text from the axes: what is plotted against what, over which ranges."""
        x_range, y_range = self.axes.x_range, self.axes.y_range
        x_name, y_name = label_text(self.x_label) or "x", label_text(self.y_label) or "y"
        y_span = f"{y_range[0]:g} to {y_range[1]:g}"
        if self.log_y:
            y_span = f"1e{y_range[0]:g} to 1e{y_range[1]:g}, log scale"
        return f"plot of {y_name} ({y_span}) against {x_name} ({x_range[0]:g} to {x_range[1]:g})"

    def to_screen(self, xs: Sequence[float], ys: Sequence[float]) -> np.ndarray:
        """Screen points of data (xs, ys), shape (n, 3)."""
        return np.array([self.axes.c2p(float(x), float(y)) for x, y in zip(xs, ys)])

    def curve(self, xs: Sequence[float], ys: Sequence[float], colour: ManimColor, stroke_width: float = 4) -> VMobject:
        return self.series(xs, ys, colour, stroke_width=stroke_width)

    def live_curve(
        self,
        xs: Sequence[float],
        ys: Sequence[float],
        tracker: ValueTracker,
        colour: ManimColor,
        stroke_width: float = 4,
    ) -> VMobject:
        """A curve drawn up to x = tracker value, interpolating the last segment so growth is smooth."""
        return self.series(xs, ys, colour, tracker=tracker, stroke_width=stroke_width)

    def hline(self, y: float, colour: ManimColor | None = None, dashed: bool = True) -> VMobject:
        from manim import DashedLine, Line

        scale = self.axes.x_axis.scaling.function  # identity, or base**x on a log axis
        x0, x1 = scale(self.axes.x_range[0]), scale(self.axes.x_range[1])
        kind = DashedLine if dashed else Line
        return kind(self.axes.c2p(x0, y), self.axes.c2p(x1, y), color=colour or theme.muted(), stroke_width=2)

    # --- step curves and live curves ------------------------------------------------------------------

    @staticmethod
    def step_points(xs: Sequence[float], ys: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
        """Corner points of a post-step curve (matplotlib's `step(where="post")`): y[i] holds until x[i+1]."""
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        step_x = np.repeat(xs, 2)[1:]
        step_y = np.repeat(ys, 2)[:-1]
        return step_x, step_y

    def series(
        self,
        xs: Sequence[float],
        ys: Sequence[float],
        colour: ManimColor,
        *,
        tracker: ValueTracker | None = None,
        step: bool = False,
        stroke_width: float = 4,
    ) -> VMobject:
        """A curve, optionally as a post-step curve, optionally drawn live up to `tracker`."""
        if step:
            xs, ys = self.step_points(xs, ys)
        xs = np.asarray(xs, dtype=float)
        screen = self.to_screen(xs, ys)
        line = VMobject(stroke_color=colour, stroke_width=stroke_width)
        if tracker is None:
            line.set_points_as_corners(screen)
            return line

        def update(mobject: VMobject) -> None:
            x_now = tracker.get_value()
            count = int(np.searchsorted(xs, x_now, side="right"))
            visible = screen[: max(count, 1)]
            if 0 < count < len(xs):
                fraction = (x_now - xs[count - 1]) / (xs[count] - xs[count - 1])
                visible = np.vstack([visible, screen[count - 1] + fraction * (screen[count] - screen[count - 1])])
            if len(visible) == 1:
                visible = np.vstack([visible, visible])
            mobject.set_points_as_corners(visible)

        update(line)
        line.add_updater(update)
        return line
