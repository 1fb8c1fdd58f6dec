"""Colours, fonts and sizes, so every scene looks like one lecture.

The values are a `Style` (defaults in `seqanim.kit.style`); the slide base class calls `configure` with
the lecture's `[theme]` before a scene draws anything.
"""

from __future__ import annotations

from typing import Any

from manim import ManimColor, Tex, Text

from seqanim.kit.lean import cached_text  # each distinct text built once, then copied
from seqanim.kit.style import DEFAULT_STYLE, Style, style_of

# Sizes in manim font units. The layout check measures what they give on screen: the smallest text must
# stand at least MIN_GLYPH_PX tall (a digit's height) at 854x480. DejaVu Sans digits are 0.63 px per font
# unit at 480p, so SMALL_SIZE (23) gives 14.5 px; 16, the old minimum, gave 10 px.
TITLE_SIZE = 40
BODY_SIZE = 30
LABEL_SIZE = 25
SMALL_SIZE = 23
MIN_GLYPH_PX = 14.0
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
    _style = style_of(**values)
    return _style


def theme() -> Style:
    return _style


def role(name: str) -> ManimColor:
    """The colour of a role (`seqanim.kit.style.TEXT_ROLES`) in the preset in force."""
    return ManimColor(theme().role(name))


def background() -> ManimColor:
    return role("background")


def foreground() -> ManimColor:
    return role("foreground")


def muted() -> ManimColor:
    return role("muted")


def font() -> str:
    return theme().font


# Roles, so scenes say what a colour means rather than which it is.
def query_colour() -> ManimColor:
    return role("query")


def key_colour() -> ManimColor:
    return role("key")


def value_colour() -> ManimColor:
    return role("value")


def output_colour() -> ManimColor:
    """The attention output, the context vector, a model's guess."""
    return role("output")


def highlight() -> ManimColor:
    return role("highlight")


def caption_colour() -> ManimColor:
    """A scene's claim and running commentary."""
    return role("caption")


def error_colour() -> ManimColor:
    """Wrong. Pair it with a mark (`wrong_mark`), never colour alone."""
    return role("error")


def allowed_colour() -> ManimColor:
    return role("allowed")


def blocked_colour() -> ManimColor:
    return role("blocked")


def model_colour(kind: str) -> ManimColor:
    """The colour of one recurrent cell kind (RNN, LSTM, GRU), the same in every scene."""
    return ManimColor(theme().model(kind))


def item_colour(item: int) -> ManimColor:
    """The identity colour of memory item / key group number `item` (A, B, C or k0, k1, ...)."""
    items = theme().look.items
    return ManimColor(items[item % len(items)])


def ordered_colour(position: float) -> ManimColor:
    """The ordered ramp at `position` in [0, 1] (low -> high; its contrast grows with the value on both presets)."""
    import matplotlib

    name, low, high = theme().look.ordered
    ramp = matplotlib.colormaps[name]
    return ManimColor.from_rgb(ramp(low + (high - low) * min(max(position, 0.0), 1.0))[:3])


def heatmap_colormap() -> list[ManimColor]:
    """A perceptually uniform ramp (viridis/magma/cividis), sampled from matplotlib so it matches the seeds."""
    import matplotlib

    ramp = matplotlib.colormaps[theme().heatmap]
    return [ManimColor.from_rgb(ramp(i / 15)[:3]) for i in range(16)]


def diverging_colormap() -> list[ManimColor]:
    """The signed-value ramp (RdBu_r, as the seed uses for positional encodings: negative blue, positive red).

    Use it with vmin = -vmax so that zero sits at its neutral middle."""
    import matplotlib

    ramp = matplotlib.colormaps[theme().look.diverging]
    return [ManimColor.from_rgb(ramp(i / 15)[:3]) for i in range(16)]


def text_on(fill: ManimColor) -> ManimColor:
    """Text colour legible on a filled cell: the foreground or the background, whichever contrasts more."""
    from seqanim.kit.style import contrast

    cell = fill.to_hex()[:7]
    return max((foreground(), background()), key=lambda c: contrast(c.to_hex()[:7], cell))


def label(content: str, size: float = LABEL_SIZE, colour: ManimColor | None = None) -> Text | Tex:
    """A label that may hold maths: with $...$ in it, the whole label is set by LaTeX (real subscripts,
    one type family for its words, symbols and digits), at the height Pango text of `size` would have."""
    if "$" not in content:
        return text(content, size, colour)
    return Tex(content, font_size=tex_size(size), color=colour or foreground())


def text(content: str, size: float = LABEL_SIZE, colour: ManimColor | None = None, weight: str = "NORMAL") -> Text:
    """A line of text in the lecture's font; foreground colour unless told otherwise."""
    return cached_text(content, font(), size, ManimColor(colour or foreground()), weight)
