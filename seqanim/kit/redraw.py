"""Redraw, each frame of an animation, only what moves and what it passes under: the same pixels, drawn sooner.

manim's Cairo renderer draws what stands still once per animation (its static image) and, each frame, redraws
the rest over it. The rest, by manim's rule, is everything drawn after the first mobject that moves (is
animated, has an updater or is in the foreground), since a still mobject drawn later may lie on top of it. In
a lecture scene that is often most of the picture: a highlight on the first matrix redraws every label, bar
and caption added after it, frame after frame.

`RedrawWhatMoves` keeps manim's static image and its order of drawing, and narrows the rule. Once per
animation it also draws the still mobjects after the first moving one over that image. Each frame starts from
this fuller picture, except inside the boxes (grown by a stroke's reach) of the moving mobjects and of the
still ones they meet, where it starts from manim's static image; only those mobjects are drawn over it, in
manim's order. Outside those boxes the fuller picture is what manim would draw; inside them, what is drawn is.
Should a still mobject change in the middle of an animation (another's updater moved or recoloured it), or a
mobject be added (a `Succession` starting its next part), the animation goes back to manim's own rule from
that frame on. `tests/test_redraw.py` compares the frames with
manim's, pixel for pixel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import Scene, config
from manim.animation.composition import AnimationGroup
from manim.mobject.mobject import Mobject
from manim.mobject.types.vectorized_mobject import VMobject
from manim.utils.family import extract_mobject_family_members

# Cairo's default miter limit lets a sharp corner reach 10 half-widths past its point.
MITER_REACH = 10 * 0.5 * 0.01  # manim draws a stroke of width w as w * 0.01 frame units wide
ANTIALIAS_PIXELS = 3


def _looks(mobjects: list[Mobject]) -> np.ndarray:
    """Everything the mobjects are drawn from (points and colours), in one array to compare frame by frame."""
    arrays = ("points", "fill_rgbas", "stroke_rgbas", "background_stroke_rgbas")
    parts = [np.ravel(getattr(mobject, name)) for mobject in mobjects for name in arrays if hasattr(mobject, name)]
    return np.concatenate(parts) if parts else np.empty(0)


def _boxes(mobjects: list[Mobject]) -> np.ndarray:
    """Each mobject's (x0, y0, x1, y1) on screen, grown by how far its stroke and antialiasing reach."""
    pixel = config.frame_width / config.pixel_width
    boxes = np.empty((len(mobjects), 4))
    for row, mobject in enumerate(mobjects):
        points = mobject.points
        reach = ANTIALIAS_PIXELS * pixel
        if isinstance(mobject, VMobject):
            widths = [mobject.get_stroke_width(), mobject.get_stroke_width(background=True)]
            reach += MITER_REACH * max(widths)
        boxes[row, :2] = points[:, :2].min(axis=0) - reach
        boxes[row, 2:] = points[:, :2].max(axis=0) + reach
    return boxes


def _meets(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """For each box in `boxes`: whether it meets any box in `others`."""
    if not len(others):
        return np.zeros(len(boxes), dtype=bool)
    apart = (
        (boxes[:, None, 2] < others[None, :, 0])
        | (others[None, :, 2] < boxes[:, None, 0])
        | (boxes[:, None, 3] < others[None, :, 1])
        | (others[None, :, 3] < boxes[:, None, 1])
    )
    return ~apart.all(axis=1)


def _pixel_boxes(boxes: np.ndarray, camera: Any) -> np.ndarray:
    """Boxes in frame units as pixel slices (x0, y0, x1, y1) of the camera's picture, rounded outwards."""
    scale_x = camera.pixel_width / camera.frame_width
    scale_y = camera.pixel_height / camera.frame_height
    centre = camera.frame_center
    xs = (boxes[:, [0, 2]] - centre[0]) * scale_x + camera.pixel_width / 2
    ys = (centre[1] - boxes[:, [3, 1]]) * scale_y + camera.pixel_height / 2
    pixels = np.stack([np.floor(xs[:, 0]), np.floor(ys[:, 0]), np.ceil(xs[:, 1]) + 1, np.ceil(ys[:, 1]) + 1], axis=1)
    pixels[:, [0, 2]] = pixels[:, [0, 2]].clip(0, camera.pixel_width)
    pixels[:, [1, 3]] = pixels[:, [1, 3]].clip(0, camera.pixel_height)
    return pixels.astype(int)


class RedrawWhatMoves(Scene):
    """A Scene mixin: each frame of an animation redraws what moves and the still mobjects drawn over it."""

    _redraw: dict[str, Any] | None = None

    def begin_animations(self) -> None:
        self._redraw = None
        super().begin_animations()  # manim's split, and (once this returns) its static image
        family = self.get_mobject_family_members()  # in the order the camera draws them
        moves = self._moving_families(family)
        first = next((i for i, mobject in enumerate(family) if id(mobject) in moves), None)
        if first is None:  # a still: manim draws it once
            return
        after = family[first:]  # what manim redraws every frame
        still = [mobject for mobject in after if id(mobject) not in moves and mobject.has_points()]
        if still:
            self._redraw = {
                "after": after,
                "moves": moves,
                "moving": [mobject for mobject in after if id(mobject) in moves],
                "manims": self.moving_mobjects,
                "still": still,
                "boxes": _boxes(still),
                "looks": _looks(still),
            }

    def _moving_families(self, family: list[Mobject]) -> set[int]:
        """manim's test of what moves, one mobject at a time: animated, updated or in the foreground."""

        def animated(animations: Any) -> list[Mobject]:
            found: list[Mobject] = []
            for animation in animations:
                found.extend(animation.mobject.get_family())
                if isinstance(animation, AnimationGroup):
                    found.extend(animated(animation.animations))
            return found

        ids = {id(mobject) for mobject in animated(self.animations or [])}
        ids |= {id(mobject) for mobject in self.foreground_mobjects}
        moves: set[int] = set()
        for mobject in family:
            if id(mobject) in ids or mobject.get_family_updaters():
                moves.update(id(member) for member in mobject.get_family())
        return moves

    def play_internal(self, skip_rendering: bool = False) -> None:
        try:
            super().play_internal(skip_rendering)
        finally:
            self._redraw = None

    def add(self, *mobjects: Mobject) -> Scene:
        redraw = self._redraw
        if redraw is not None and "full" in redraw:  # added mid-animation (a Succession's next part)
            self._manims_rule(redraw)  # whose list manim's add extends
        return super().add(*mobjects)

    def _manims_rule(self, redraw: dict[str, Any]) -> None:
        """From this frame on, redraw what manim would, over manim's static image."""
        self._redraw = None
        self.moving_mobjects = redraw["manims"]
        self.renderer.static_image = redraw["base"]

    def update_to_time(self, t: float) -> None:
        super().update_to_time(t)
        redraw = self._redraw
        if redraw is None:
            return
        renderer = self.renderer
        if "full" not in redraw:  # the first frame: manim's static image, and the still ones drawn over it
            renderer.update_frame(self, redraw["still"])
            redraw["base"] = renderer.static_image
            if redraw["base"] is None:
                redraw["base"] = np.array(renderer.camera.background)
            redraw["full"] = renderer.get_frame()
        if not np.array_equal(_looks(redraw["still"]), redraw["looks"]):
            self._manims_rule(redraw)  # a still mobject changed: another's updater moved or recoloured it
            return
        # What to redraw: the moving mobjects as they are now (an updater may have given one new parts), and
        # every still one drawn after them whose box meets theirs or, in turn, a box already met.
        reached = _boxes(extract_mobject_family_members(redraw["moving"], only_those_with_points=True))
        over = np.zeros(len(redraw["still"]), dtype=bool)
        while True:
            met = _meets(redraw["boxes"], reached) & ~over
            if not met.any():
                break
            over |= met
            reached = np.concatenate([reached, redraw["boxes"][met]])
        # Outside the boxes the picture is manim's static image with the still ones drawn over it; inside,
        # manim's static image, over which the moving ones and the still ones they meet are drawn in order.
        picture = redraw["full"].copy()
        for x0, y0, x1, y1 in _pixel_boxes(reached, renderer.camera):
            picture[y0:y1, x0:x1] = redraw["base"][y0:y1, x0:x1]
        renderer.static_image = picture
        redrawn = {id(mobject) for mobject, hit in zip(redraw["still"], over) if hit}
        self.moving_mobjects = [
            mobject for mobject in redraw["after"] if id(mobject) in redraw["moves"] or id(mobject) in redrawn
        ]
