"""What several scenes of the recurrent-networks part share: the colour of a spectral radius, the name of
its regime, and numbers rounded to what a listener can hold."""

from __future__ import annotations

import math
from dataclasses import dataclass

from manim import ManimColor

from seqanim import spoken
from seqanim.kit import theme


def rho_colour(rho: float) -> ManimColor:
    """A spectral radius on the ordered ramp, by log(rho): rho = 1 in the middle in every scene, so the same
    rho has the same colour in HiddenStateDynamics and EchoOfAPulse."""
    return theme.ordered_colour(0.5 + 0.5 * math.tanh(8 * math.log(rho)))


def regime(rho: float) -> str:
    """What a spectral radius does to the signal, in the notebook's words."""
    if math.isclose(rho, 1.0):
        return "stable memory"
    return "forgetting" if rho < 1 else "exploding"


def about(value: float) -> str:
    """A positive number rounded to two significant digits, in words: 17174 -> "seventeen thousand",
    21.7 -> "twenty-two", 2.85 -> "two point nine", 0.314 -> "zero point three one"."""
    if not math.isfinite(value) or value <= 0:
        return spoken.number(value, 2)
    rounded, decimals = two_digits(value)
    return spoken.number(rounded, decimals) if decimals > 0 else spoken.integer(round(rounded))


def two_digits(value: float) -> tuple[float, int]:
    """A positive number rounded to two significant digits, and the places it keeps: 17174 -> (17000, -3),
    2.85 -> (2.9, 1)."""
    decimals = 1 - math.floor(math.log10(value))  # the places that keep two significant digits
    return round(value, decimals), decimals


@dataclass(frozen=True)
class Growth:
    """How a length changed over a run: which way ("kept", "shrunk" or "grown") and by what factor (at least 1)."""

    way: str
    factor: float


def growth(ratio: float) -> Growth:
    """How a length changed over a run, from the ratio of its end to its start."""
    if math.isclose(ratio, 1.0, rel_tol=1e-3):
        return Growth("kept", 1.0)
    return Growth("shrunk", 1 / ratio) if ratio < 1 else Growth("grown", ratio)


def change(ratio: float) -> str:
    """How a length changed over a run, from the ratio of its end to its start: "has shrunk about twenty-two
    times", "has kept its length" or "has grown about nineteen times"."""
    grown = growth(ratio)
    if grown.way == "kept":
        return "has kept its length"
    return f"has {grown.way} about {about(grown.factor)} times"
