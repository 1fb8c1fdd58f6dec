"""Cheap text: glyphs that copy fast, and each distinct text built once.

Every animation copies its mobjects (`.animate`, `Transform.begin`, `FadeIn`/`FadeOut`), so at low quality
a scene spends more time deep-copying text than drawing it. Two causes, two fixes:

- manim keeps each glyph's parsed svgelements `Path` (`VMobjectFromSVGPath.path_obj`) after turning it into
  points, and never reads it again; a deep copy of a text copies every segment of every glyph, 4-6x the
  cost of its points. `drop_svg_paths()` makes new glyphs forget it once their points exist.
- `Text` runs Pango and parses its SVG every time (manim does not cache Text's SVG mobject), about 20 ms
  per label; a strip of ten numbers rebuilt per step costs more than the frames it is shown in.
  `cached_text` builds each distinct (string, font, size, colour, weight) once and hands out copies (~1 ms).
"""

from __future__ import annotations

from typing import Any

from manim import ManimColor, Text
from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

_TEXTS: dict[tuple[Any, ...], Text] = {}


def drop_svg_paths() -> None:
    """From now on, glyphs drop their parsed SVG path once their points are built (idempotent)."""
    if getattr(VMobjectFromSVGPath, "_drops_path_obj", False):
        return
    original = VMobjectFromSVGPath.generate_points

    def generate_points(self: VMobjectFromSVGPath) -> VMobjectFromSVGPath:
        result = original(self)
        self.path_obj = None  # only generate_points reads it, and only here
        return result

    VMobjectFromSVGPath.generate_points = generate_points  # type: ignore[method-assign]
    VMobjectFromSVGPath._drops_path_obj = True  # type: ignore[attr-defined]


def cached_text(content: str, font: str, size: float, colour: ManimColor, weight: str) -> Text:
    """A new `Text`, copied from the first one built with the same arguments (never handed out itself)."""
    key = (content, font, float(size), colour.to_hex(with_alpha=True), weight)
    prototype = _TEXTS.get(key)
    if prototype is None:
        prototype = _TEXTS[key] = Text(content, font=font, font_size=size, color=colour, weight=weight)
        for glyph in prototype.get_family():  # in case it was built before drop_svg_paths()
            if isinstance(glyph, VMobjectFromSVGPath):
                glyph.path_obj = None
    return prototype.copy()
