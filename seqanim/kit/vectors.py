"""`VectorDiagram`: a small 2-D plane for keys as points, queries as arrows and states as vectors.

`projection` draws a dot product the way it is read geometrically: q.k = |q| times the signed length of
k's shadow on q's direction (the foot of the perpendicular from k to the line through q).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DL,
    DOWN,
    DR,
    LEFT,
    RIGHT,
    UL,
    UP,
    UR,
    Arrow,
    Circle,
    DashedLine,
    Dot,
    Line,
    ManimColor,
    Mobject,
    NumberPlane,
    Text,
    VGroup,
)

from seqanim.kit import layout, theme

# Labels closer than a space apart read as one (a space at theme.LABEL_SIZE is 0.116 units wide).
LABEL_GAP = 0.12


class VectorDiagram(VGroup):
    """A plane with a fixed range. `point`, `arrow` and `circle` return mobjects placed in its coordinates."""

    def __init__(
        self,
        x_range: Sequence[float] = (-1.5, 1.5, 0.5),
        y_range: Sequence[float] = (-1.5, 1.5, 0.5),
        *,
        width: float = 4.0,
        height: float | None = None,
        grid: bool = True,
    ) -> None:
        super().__init__()
        height = height if height is not None else width * (y_range[1] - y_range[0]) / (x_range[1] - x_range[0])
        self.plane = NumberPlane(
            x_range=list(x_range),
            y_range=list(y_range),
            x_length=width,
            y_length=height,
            background_line_style={
                "stroke_color": theme.muted(),
                "stroke_opacity": 0.25 if grid else 0.0,
                "stroke_width": 1,
            },
            axis_config={"stroke_color": theme.muted(), "stroke_width": 2, "include_ticks": False},
        )
        self.add(self.plane)

    def to_point(self, coords: Sequence[float]) -> np.ndarray:
        return self.plane.c2p(*coords[:2])

    def point(
        self, coords: Sequence[float], colour: ManimColor, label: str | None = None, radius: float = 0.09
    ) -> VGroup:
        dot = Dot(self.to_point(coords), radius=radius, color=colour)
        group = VGroup(dot)
        if label:
            group.add(
                Text(label, font=theme.font(), font_size=theme.LABEL_SIZE, color=colour).next_to(dot, UR, buff=0.06)
            )
        return group

    def axis_lines(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Where the plane's two axes run, start and end in the frame: lines a label keeps off."""
        return [(axis.get_start(), axis.get_end()) for axis in (self.plane.x_axis, self.plane.y_axis)]

    def labelled_points(
        self,
        coords: Sequence[Sequence[float]],
        colours: Sequence[ManimColor],
        labels: Sequence[str],
        lines: Sequence[tuple[np.ndarray, np.ndarray]] = (),
    ) -> VGroup:
        """A labelled `point` per coordinate pair, each label on the first side (up-right, up-left, down-right,
        down-left, then straight up, down, right or left) where it keeps a space from every other dot and the labels
        placed before it, and neither an axis nor one of `lines` (start and end in the frame: what the scene will
        draw across the plane) runs through it, else on the side that meets the fewest: points set close together
        by a parameter keep labels that can be read."""
        points = VGroup(*[self.point(c, colour, label) for c, colour, label in zip(coords, colours, labels)])
        placed: list[Mobject] = [point[0] for point in points]
        for point in points:
            dot, label = point[0], point[1]
            others = [other for other in placed if other is not dot]
            sides = (UR, UL, DR, DL, UP, DOWN, RIGHT, LEFT)
            layout.beside_clear(label, dot, sides, others, [*lines, *self.axis_lines()], buffs=(0.06,), gap=LABEL_GAP)
            placed.append(label)
        return points

    def arrow(
        self, coords: Sequence[float], colour: ManimColor, start: Sequence[float] = (0.0, 0.0), stroke_width: float = 6
    ) -> Arrow:
        return Arrow(
            self.to_point(start),
            self.to_point(coords),
            buff=0,
            color=colour,
            stroke_width=stroke_width,
            max_tip_length_to_length_ratio=0.2,
        )

    def circle(self, radius: float, colour: ManimColor | None = None, stroke_width: float = 2) -> Circle:
        unit = self.plane.c2p(1, 0)[0] - self.plane.c2p(0, 0)[0]
        return Circle(radius=radius * unit, color=colour or theme.muted(), stroke_width=stroke_width).move_to(
            self.plane.c2p(0, 0)
        )

    def direction_line(self, direction: Sequence[float], colour: ManimColor | None = None) -> DashedLine:
        """The line through the origin along `direction`, across the plane (where projections land)."""
        unit = np.asarray(direction[:2], dtype=float) / np.linalg.norm(direction[:2])
        # The stretch t * unit that stays inside the plane's ranges, on both sides of the origin.
        low_t, high_t = -np.inf, np.inf
        for u, (low, high) in zip(unit, (self.plane.x_range[:2], self.plane.y_range[:2])):
            if abs(u) > 1e-9:
                a, b = sorted((low / u, high / u))
                low_t, high_t = max(low_t, a), min(high_t, b)
        return DashedLine(
            self.to_point(low_t * unit),
            self.to_point(high_t * unit),
            color=colour or self.plane.x_axis.get_color(),
            stroke_width=2,
            stroke_opacity=0.6,
        )

    def projection(
        self,
        coords: Sequence[float],
        onto: Sequence[float],
        colour: ManimColor,
        *,
        offset: float = 0.0,
        stroke_width: float = 7,
    ) -> VGroup:
        """`coords` projected on the direction of `onto`: VGroup(drop, shadow, foot). The drop is the dashed
        perpendicular from the point to its foot, the shadow the segment from the origin to the foot (signed
        length k.q / |q|), drawn `offset` frame units to the right of the line so shadows of several keys stack
        like rulers beside it. A point on the line has no drop, a point at right angles no shadow (both are
        then invisible, so the group's shape is the same for every key)."""
        point = np.asarray(coords[:2], dtype=float)
        unit = np.asarray(onto[:2], dtype=float) / np.linalg.norm(onto[:2])
        foot = float(point @ unit) * unit
        along = self.to_point(unit) - self.to_point((0.0, 0.0))
        side = offset * np.array([along[1], -along[0], 0.0]) / np.linalg.norm(along)
        drop = self._segment(self.to_point(point), self.to_point(foot), colour, 3, dashed=True)
        shadow = self._segment(
            self.to_point((0.0, 0.0)) + side, self.to_point(foot) + side, colour, stroke_width, dashed=False
        )
        return VGroup(drop, shadow, Dot(self.to_point(foot), radius=0.07, color=colour))

    @staticmethod
    def _segment(start: np.ndarray, end: np.ndarray, colour: ManimColor, width: float, *, dashed: bool) -> Line:
        if np.linalg.norm(end - start) < 1e-6:  # nothing to draw: an invisible stub keeps the group's shape
            return Line(start, start + 1e-3 * np.array([1.0, 0.0, 0.0]), color=colour, stroke_width=width).set_stroke(
                opacity=0
            )
        kind = DashedLine if dashed else Line
        return kind(start, end, color=colour, stroke_width=width)
