"""Alt text written from the data on screen.

A kit mobject that shows data (a heatmap, bars, a matrix, a plot) says what it shows with `describe() -> str`,
e.g. "attention heatmap, 8×8 (query rows × key columns), peak 0.93 at query 3, key 5". `alt_text` walks what
is on screen at a slide's end, collects the descriptions of described mobjects (a described group speaks for
its parts), and adds the readable text, so every still of the transcript and handout gets alt text that
comes from the same numbers as the picture. Any mobject can join by defining `describe`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from manim import DecimalNumber, Mobject

from seqanim.kit.layout import TEXT_TYPES

MAX_TEXTS = 8
MAX_CHARS = 400


def label_text(mobject: Mobject | None) -> str:
    """The string of a Text/MathTex label ('' for None)."""
    if mobject is None:
        return ""
    if isinstance(mobject, DecimalNumber):
        return f"{mobject.get_value():.{mobject.num_decimal_places}f}"
    # Text keeps the string as typed in `original_text` (its `text` has the spaces removed).
    text = getattr(mobject, "original_text", None) or getattr(mobject, "text", None)
    if not text and getattr(mobject, "tex_string", None):
        return readable_tex(str(mobject.tex_string))
    return " ".join(str(text or "").split())


GREEK = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5), ("eta", 0x3B7),
    ("theta", 0x3B8), ("lambda", 0x3BB), ("mu", 0x3BC), ("pi", 0x3C0), ("rho", 0x3C1), ("sigma", 0x3C3),
    ("tau", 0x3C4), ("phi", 0x3C6), ("omega", 0x3C9), ("Sigma", 0x3A3), ("Delta", 0x394),
)}  # fmt: skip
SYMBOLS = {
    "top": "ᵀ", "cdot": "·", "times": "×", "odot": "⊙", "le": "≤", "ge": "≥", "to": "→", "infty": "∞",
    "approx": "≈", "neq": "≠", "in": "∈", "sum": "Σ",
}  # fmt: skip


def _group(text: str) -> str:
    return text if re.fullmatch(r"[\w.]+", text) else f"({text})"


def readable_tex(tex: str) -> str:
    """LaTeX as a screen reader can say it: \\frac{a}{b} -> a/b, \\sqrt{d} -> sqrt(d), \\rho -> ρ, no spacing
    commands or braces."""
    text = re.sub(r"\\(?:left|right|big|Big|bigl|bigr)\b|\\[,;!: ]|\\q?quad\b", " ", tex)
    text = re.sub(r"\\(?:operatorname|mathrm|text|mathbf|mathit|boldsymbol)\s*\{([^{}]*)\}", r"\1", text)
    for _ in range(3):  # nested fractions and roots, innermost first
        text = re.sub(r"\\[td]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", lambda m: f"{_group(m[1])}/{_group(m[2])}", text)
        text = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: GREEK.get(m.group(1)) or SYMBOLS.get(m.group(1), m.group(1)), text)
    text = text.replace("^ᵀ", "ᵀ").replace("\\|", "‖").replace("{", "").replace("}", "").replace("&", " ")
    return " ".join(text.split())


def number(value: float) -> str:
    """A value as a short reading: 0.93, 12.50, 4.38e+03, 5.8e-05."""
    return f"{value:.2f}" if 0.01 <= abs(value) < 100 else f"{value:.3g}"


def peak(values: np.ndarray) -> tuple[int, ...] | None:
    """Index of the largest finite entry (None when nothing is finite)."""
    finite = np.where(np.isfinite(values), values, -np.inf)
    if not np.isfinite(finite).any():
        return None
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(finite)), values.shape))


def _is_shown(mobject: Mobject) -> bool:
    family = [m for m in mobject.get_family() if m.has_points()]
    return any(max(m.get_fill_opacity(), m.get_stroke_opacity()) > 0.01 for m in family)


def descriptions(mobjects: Sequence[Mobject]) -> tuple[list[str], list[Mobject]]:
    """What each described mobject on screen says about itself (outermost first, each once), and the
    mobjects outside every described one (their text is read as it is)."""
    found: dict[int, str] = {}
    rest: list[Mobject] = []

    def walk(mobject: Mobject) -> None:
        describe = getattr(mobject, "describe", None)
        if callable(describe):
            if _is_shown(mobject) and id(mobject) not in found:
                text = describe()
                if text:
                    found[id(mobject)] = text
            return
        if not mobject.submobjects or isinstance(mobject, TEXT_TYPES):
            rest.append(mobject)
            return
        for child in mobject.submobjects:
            walk(child)

    for mobject in mobjects:
        walk(mobject)
    return list(dict.fromkeys(found.values())), rest


def alt_text(mobjects: Sequence[Mobject]) -> str:
    """A slide's alt text: the described data first, then the text a viewer can read (abridged)."""
    parts, rest = descriptions(mobjects)
    readable = [label_text(m) for m in rest if isinstance(m, TEXT_TYPES) and _is_shown(m)]
    readable = [text for text in dict.fromkeys(readable) if text][:MAX_TEXTS]
    sentence = "; ".join(parts)
    if readable:
        sentence = f"{sentence}. Text on screen: {'; '.join(readable)}" if sentence else "; ".join(readable)
    sentence = sentence or "an animation frame without text or data"
    if len(sentence) > MAX_CHARS:
        sentence = sentence[: MAX_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return sentence[0].upper() + sentence[1:]
