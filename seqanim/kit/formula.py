"""The attention formulas in the notebooks' symbols, typeset once per process and coloured by role.

S = QK^T/sqrt(d_k), A = softmax(S + M), C = AV. Parts are separate MathTex strings, so a scene can point
at one symbol (`part(formula, "Q")`) and Q, K, V always carry the query, key and value colours.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from manim import ManimColor, MathTex

from seqanim.kit import theme

SCORES = ("S", "=", "Q", r"K^\top", "/", r"\sqrt{d_k}")
WEIGHTS = ("A", "=", r"\operatorname{softmax}", "(", "S", "+", "M", ")")
CONTEXT = ("C", "=", "A", "V")


def role_colours() -> dict[str, ManimColor]:
    """Q, K and V in the query, key and value colours wherever they appear."""
    return {
        "Q": theme.query_colour(),
        r"K^\top": theme.key_colour(),
        "K": theme.key_colour(),
        "V": theme.value_colour(),
        "q": theme.query_colour(),
    }


def maths(tex: str, size: float = theme.BODY_SIZE, colour: ManimColor | None = None) -> MathTex:
    """A formula whose glyphs stand as tall as theme text of `size`."""
    return MathTex(tex, font_size=theme.tex_size(size), color=colour or theme.foreground())


@lru_cache(maxsize=64)
def _typeset(parts: tuple[str, ...], size: float) -> MathTex:
    return MathTex(*parts, font_size=size, color=theme.foreground())


def formula(
    parts: Sequence[str] | str, size: float = theme.BODY_SIZE, colours: dict[str, ManimColor] | None = None
) -> MathTex:
    """A themed MathTex of `parts`; parts named in `colours` (default: Q, K, V roles) take that colour."""
    parts = (parts,) if isinstance(parts, str) else tuple(parts)
    tex = _typeset(parts, size).copy()  # LaTeX runs once per (parts, size); every caller gets its own copy
    colours = role_colours() if colours is None else colours
    for part, mobject in zip(parts, tex.submobjects):
        if part in colours:
            mobject.set_color(colours[part])
    return tex


def part(tex: MathTex, name: str) -> MathTex:
    """The first submobject of `tex` typeset from the string `name`."""
    for string, mobject in zip(tex.tex_strings, tex.submobjects):
        if string == name:
            return mobject
    raise KeyError(f"{name!r} is not a part of {tex.tex_strings}")
