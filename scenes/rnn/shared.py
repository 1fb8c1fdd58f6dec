"""What several scenes of the recurrent-networks part share: the colour of a spectral radius, the name of
its regime, and numbers rounded to what a listener can hold."""

from __future__ import annotations

import math

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
    decimals = 1 - math.floor(math.log10(value))  # the places that keep two significant digits
    rounded = round(value, decimals)
    return spoken.number(rounded, decimals) if decimals > 0 else spoken.integer(round(rounded))


def change(ratio: float) -> str:
    """How a length changed over a run, from the ratio of its end to its start: "has shrunk about twenty-two
    times", "has kept its length" or "has grown about nineteen times"."""
    if math.isclose(ratio, 1.0, rel_tol=1e-3):
        return "has kept its length"
    if ratio < 1:
        return f"has shrunk about {about(1 / ratio)} times"
    return f"has grown about {about(ratio)} times"
