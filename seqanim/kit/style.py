"""The theme's values, without manim: the kit draws with them, and `[theme]` in lecture.toml defaults to them.

Colours are named by role (what they mean), never by index: a preset gives every role its colour, checked
for contrast against that preset's background (tests/test_theme.py computes the WCAG ratios).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

HEX_OR_EMPTY = r"^(#[0-9a-fA-F]{6})?$"  # "" keeps the preset's colour

# Roles drawn as text as well as shapes: each must read at >= 4.5:1 on its preset's background.
TEXT_ROLES = (
    "foreground",  # text and axes
    "muted",  # secondary text, grid, baselines
    "caption",  # the claim a scene ends on, the running commentary
    "query",  # q, Q, the decoder state that asks
    "key",  # k, K, the encoder states / addresses
    "value",  # v, V, what is retrieved
    "output",  # the attention output / context vector / a model's prediction
    "highlight",  # the one thing to look at now
    "error",  # wrong (always with a mark as well: a cross, a dashed box)
    "allowed",  # a key the mask lets through
    "blocked",  # a masked / padded key
)


@dataclass(frozen=True)
class Preset:
    """The colours of one look: a background and every role on it."""

    background: str
    roles: Mapping[str, str]
    models: Mapping[str, str]  # one colour per recurrent cell kind; unknown kinds fall back to "RNN"
    # Identity of memory items / key groups (A, B, C; k0..k3): distinct from the Q/K/V roles, reused in order.
    items: tuple[str, ...]
    # Ordered ramp (low -> high, e.g. the spectral radius rho): a matplotlib map sampled between two points,
    # chosen so every sample reads as text on this background and lightness grows with the value.
    ordered: tuple[str, float, float] = ("plasma", 0.53, 1.0)
    diverging: str = "RdBu_r"  # signed values (negative blue, zero neutral, positive red), as the seeds use


def _roles(**values: str) -> Mapping[str, str]:
    missing = set(TEXT_ROLES) - set(values)
    if missing:
        raise ValueError(f"a preset lacks roles {sorted(missing)}")
    return MappingProxyType(values)


PRESETS: Mapping[str, Preset] = MappingProxyType(
    {
        "dark": Preset(
            background="#0f1117",
            roles=_roles(
                foreground="#e8e8ea",
                muted="#9aa0aa",
                caption="#f1dca7",
                query="#f07e4f",
                key="#5eb3ea",
                value="#34c49a",
                output="#d98bd0",
                highlight="#f2b33d",
                error="#ff6f91",
                allowed="#a8d86e",
                blocked="#9aa0aa",
            ),
            models=MappingProxyType({"RNN": "#c9a0ff", "LSTM": "#f0e05a", "GRU": "#4fd1d9"}),
            items=("#fbafe4", "#c3b3ff", "#e3c28f", "#9fe3e8", "#f2b33d"),
            ordered=("plasma", 0.53, 1.0),
        ),
        "light": Preset(
            background="#fbfaf7",
            roles=_roles(
                foreground="#1b1c20",
                muted="#5b606a",
                caption="#4a3a12",
                query="#b8470f",
                key="#1565a8",
                value="#0a7a58",
                output="#8e3f86",
                highlight="#8a5a00",
                error="#b0173f",
                allowed="#437a12",
                blocked="#6b7079",
            ),
            models=MappingProxyType({"RNN": "#6a3fb0", "LSTM": "#6e6300", "GRU": "#00727a"}),
            items=("#a8327f", "#5b3fb5", "#7a5518", "#00707a", "#8a5a00"),
            ordered=("plasma", 0.42, 0.02),
        ),
    }
)


@dataclass(frozen=True)
class Style:
    preset: str = "dark"  # dark | light
    # Overrides of the preset's background, text and secondary-text colours; "" keeps the preset's.
    background: str = ""
    foreground: str = ""
    muted: str = ""
    font: str = "DejaVu Sans"
    heatmap: str = "viridis"  # viridis | magma | cividis

    @property
    def look(self) -> Preset:
        return PRESETS[self.preset]

    def role(self, name: str) -> str:
        """The #rrggbb of a role in this style: an override if given, else the preset's."""
        if name == "background":
            return self.background or self.look.background
        if name in ("foreground", "muted") and getattr(self, name):
            return str(getattr(self, name))
        if name not in self.look.roles:
            raise KeyError(f"no colour role {name!r}; roles: {', '.join(TEXT_ROLES)}")
        return self.look.roles[name]

    def model(self, kind: str) -> str:
        return self.look.models.get(kind, self.look.models["RNN"])


DEFAULT_STYLE = Style()


def style_of(**values: Any) -> Style:
    """The style these theme values give (keys of `Style`; the rest keep their defaults)."""
    return replace(DEFAULT_STYLE, **values)


def luminance(hex_colour: str) -> float:
    """WCAG 2 relative luminance of #rrggbb."""
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours (1..21); small text needs >= 4.5."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
