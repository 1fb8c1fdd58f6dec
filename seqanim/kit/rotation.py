"""`PhasorCircle`: vectors turning on a circle, driven by a `ValueTracker` (RoPE's rotating dimension pairs).

An arrow is built once and turned each frame by the change of its angle (one rotation of a few points),
so a scene with many turning arrows costs no per-frame rebuilding. Angles come from a callable the scene
provides (typically interpolating data at the tracker's value); `trail` marks given angles as they pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from manim import Arc, Arrow, Circle, Dot, ManimColor, VGroup

from seqanim.kit import theme


class PhasorCircle(VGroup):
    """A circle of `radius` (screen units) with arrows from its centre; lengths are fractions of the radius."""

    def __init__(self, radius: float = 1.0, *, colour: ManimColor | None = None, stroke_width: float = 2) -> None:
        super().__init__()
        self.radius = radius
        self.ring = Circle(radius=radius, color=colour or theme.muted(), stroke_width=stroke_width)
        self.add(self.ring)
        self.phasors: list[Arrow] = []

    @property
    def centre(self) -> np.ndarray:
        return self.ring.get_center()

    def point_at(self, angle: float, fraction: float = 1.0) -> np.ndarray:
        """The screen point at `angle` (radians, counter-clockwise from +x) and `fraction` of the radius."""
        return self.centre + fraction * self.radius * np.array([np.cos(angle), np.sin(angle), 0.0])

    def phasor(
        self, angle: Callable[[], float], colour: ManimColor, *, length: float = 1.0, stroke_width: float = 6
    ) -> Arrow:
        """An arrow of `length` x radius that follows `angle()` every frame (rotated in place, never rebuilt)."""
        start_angle = float(angle())
        arrow = Arrow(
            self.centre,
            self.point_at(start_angle, length),
            buff=0,
            color=colour,
            stroke_width=stroke_width,
            max_tip_length_to_length_ratio=0.25,
            max_stroke_width_to_length_ratio=20,
        )
        arrow.current_angle = start_angle  # type: ignore[attr-defined]

        def turn(mobject: Arrow) -> None:
            target = float(angle())
            delta = target - mobject.current_angle  # type: ignore[attr-defined]
            if delta:
                mobject.rotate(delta, about_point=self.centre)
                mobject.current_angle = target  # type: ignore[attr-defined]

        arrow.add_updater(turn)
        self.phasors.append(arrow)
        self.add(arrow)
        return arrow

    def angle_arc(
        self,
        start: Callable[[], float],
        end: Callable[[], float],
        colour: ManimColor,
        *,
        fraction: float = 0.3,
        stroke_width: float = 5,
    ) -> Arc:
        """The arc from angle `start()` to `end()` the short way round, at `fraction` of the radius: the angle
        between two phasors. It follows them every frame, turned in place while the angle between them holds
        (so an angle that stays constant visibly keeps its size) and rebuilt only when that angle changes."""

        def between() -> float:
            return float((end() - start() + np.pi) % (2 * np.pi) - np.pi)

        def points(first: float, span: float) -> np.ndarray:
            return Arc(radius=fraction * self.radius, start_angle=first, angle=span, arc_center=self.centre).points

        arc = Arc(
            radius=fraction * self.radius,
            start_angle=start(),
            angle=between(),
            arc_center=self.centre,
            color=colour,
            stroke_width=stroke_width,
        )
        arc.drawn = (start(), between())  # type: ignore[attr-defined]

        def follow(mobject: Arc) -> None:
            first, span = start(), between()
            drawn_first, drawn_span = mobject.drawn  # type: ignore[attr-defined]
            if abs(span - drawn_span) > 1e-6:
                mobject.set_points(points(first, span))
            elif first != drawn_first:
                mobject.rotate(first - drawn_first, about_point=self.centre)
            mobject.drawn = (first, span)  # type: ignore[attr-defined]

        arc.add_updater(follow)
        self.add(arc)
        return arc

    def trail(
        self,
        angles: Sequence[float],
        reached: Callable[[], float],
        colours: Sequence[ManimColor],
        *,
        fraction: float = 1.0,
        radius: float = 0.045,
    ) -> VGroup:
        """Dots at `angles` (one per sample i) that appear once `reached()` >= i: where the arrow has been."""
        dots = VGroup(*[Dot(self.point_at(a, fraction), radius=radius, color=c) for a, c in zip(angles, colours)])

        def reveal(group: VGroup) -> None:
            count = int(np.floor(reached() + 1e-9)) + 1
            for index, dot in enumerate(group):
                dot.set_opacity(1.0 if index < count else 0.0)

        reveal(dots)
        dots.add_updater(reveal)
        self.remove(self.ring)
        self.add_to_back(self.ring, dots)  # under the arrows
        return dots
