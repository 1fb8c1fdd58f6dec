"""`VectorDiagram`: a small 2-D plane for keys as points, queries as arrows and states as vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import UR, Arrow, Circle, Dot, ManimColor, NumberPlane, Text, VGroup

from seqanim.kit import theme


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
