"""The theme's values, without manim: the kit draws with them, and `[theme]` in lecture.toml defaults to them."""

from __future__ import annotations

from dataclasses import dataclass, field

HEX = r"^#[0-9a-fA-F]{6}$"


@dataclass(frozen=True)
class Style:
    background: str = "#0f1117"
    foreground: str = "#e8e8ea"
    muted: str = "#8a8f98"
    # Okabe-Ito: the colourblind-safe palette seaborn's "colorblind" is built on.
    palette: tuple[str, ...] = field(
        default=("#0173b2", "#de8f05", "#029e73", "#d55e00", "#cc78bc", "#ca9161", "#fbafe4", "#56b4e9")
    )
    font: str = "DejaVu Sans"
    heatmap: str = "viridis"  # viridis | magma | cividis


DEFAULT_STYLE = Style()
