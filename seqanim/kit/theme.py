"""Colours, fonts and sizes, so every scene looks like one lecture.

The values are a `Style` (defaults in `seqanim.kit.style`); the slide base class calls `configure` with
the lecture's `[theme]` before a scene draws anything.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from manim import ManimColor, Text

from seqanim.kit.style import DEFAULT_STYLE, Style

# Sizes in manim font units, checked legible at 854x480 (the layout check enforces MIN_FONT).
TITLE_SIZE = 40
BODY_SIZE = 28
LABEL_SIZE = 22
SMALL_SIZE = 18
MIN_FONT = 16
# LaTeX glyphs (MathTex, DecimalNumber, axis numbers) stand about 0.69x as tall as Pango text of the same
# font_size: a Tex digit at 18 is under 8 px at 480p. Scale Tex sizes by this so both read alike.
TEX_SCALE = 1.45


def tex_size(size: float) -> float:
    """The font_size that gives LaTeX glyphs the height of Pango text at `size`."""
    return size * TEX_SCALE


_style = DEFAULT_STYLE


def configure(**values: Any) -> Style:
    """Draw with these theme values from now on (keys of `Style`; the rest keep their defaults)."""
    global _style
    _style = replace(DEFAULT_STYLE, **{**values, "palette": tuple(values.get("palette", DEFAULT_STYLE.palette))})
    return _style


def theme() -> Style:
    return _style


def colour(index: int) -> ManimColor:
    """The i-th colour of the colourblind-safe palette (wraps around)."""
    palette = theme().palette
    return ManimColor(palette[index % len(palette)])


def background() -> ManimColor:
    return ManimColor(theme().background)


def foreground() -> ManimColor:
    return ManimColor(theme().foreground)


def muted() -> ManimColor:
    return ManimColor(theme().muted)


def font() -> str:
    return theme().font


# Roles, so scenes say what a colour means rather than which it is.
def query_colour() -> ManimColor:
    return colour(3)


def key_colour() -> ManimColor:
    return colour(0)


def value_colour() -> ManimColor:
    return colour(2)


def highlight() -> ManimColor:
    return colour(1)


def heatmap_colormap() -> list[ManimColor]:
    """A perceptually uniform ramp (viridis/magma/cividis), sampled from matplotlib so it matches the seeds."""
    import matplotlib

    ramp = matplotlib.colormaps[theme().heatmap]
    return [ManimColor.from_rgb(ramp(i / 15)[:3]) for i in range(16)]


def diverging_colormap() -> list[ManimColor]:
    """RdBu_r, as the seed uses for positional encodings (negative blue, positive red)."""
    import matplotlib

    ramp = matplotlib.colormaps["RdBu_r"]
    return [ManimColor.from_rgb(ramp(i / 15)[:3]) for i in range(16)]


def text(content: str, size: float = LABEL_SIZE, colour: ManimColor | None = None, weight: str = "NORMAL") -> Text:
    """A line of text in the lecture's font; foreground colour unless told otherwise."""
    return Text(content, font=font(), font_size=size, color=colour or foreground(), weight=weight)
