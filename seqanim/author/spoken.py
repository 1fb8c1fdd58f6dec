"""Numbers and lists as a listener hears them, for the narration that scenes write from their data.

The notes are read by the lecturer and may say "0.71" or "q.k"; the narration is heard, so it says
"zero point seven one" and "q dot k". These helpers turn data into that spoken form:

    number(0.7071, 2)       -> "zero point seven one"
    percent(0.987)          -> "ninety-eight point seven percent"
    count(3, "key")         -> "three keys"
    listing(["A", "B", "C"]) -> "A, B and C"

and `mark("sum")` puts a bookmark in a beat's words: the beat's `until("sum")` is the run time up to the
word after it (manim-voiceover's `<bookmark mark="sum"/>`), which captions and voices never show or say.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
SCALES = ((1_000_000_000, "billion"), (1_000_000, "million"), (1_000, "thousand"), (100, "hundred"))


BOOKMARK = re.compile(r'\s*<bookmark\s+mark\s*=\s*"([^"]+)"\s*/>\s*')


def bookmarks(said: str) -> tuple[str, dict[str, int]]:
    """The words without their bookmarks, and each bookmark's word: the index (in `text.split()`) of the word
    it stands before."""
    marks: dict[str, int] = {}
    text, at = "", 0
    for match in BOOKMARK.finditer(said):
        text += said[at : match.start()] + " "
        if match.group(1) in marks:
            raise ValueError(f"the bookmark {match.group(1)!r} appears twice in {said[:60]!r}; name each once")
        marks[match.group(1)] = len(text.split())
        at = match.end()
    text = " ".join((text + said[at:]).split())
    return text, marks


def mark(name: str) -> str:
    """A bookmark before the next word of a beat: f"Each row {mark('sum')}sums to one." """
    return f'<bookmark mark="{name}"/>'


def integer(value: int) -> str:
    """A whole number in words: 1500 -> "one thousand five hundred", -3 -> "minus three"."""
    if value < 0:
        return "minus " + integer(-value)
    if value < 20:
        return ONES[value]
    if value < 100:
        tens, ones = divmod(value, 10)
        return TENS[tens] + (f"-{ONES[ones]}" if ones else "")
    for size, name in SCALES:
        if value >= size:
            high, rest = divmod(value, size)
            return f"{integer(high)} {name}" + (f" {integer(rest)}" if rest else "")
    raise AssertionError("unreachable")


def rounded_digits(value: float, decimals: int) -> tuple[bool, str, str]:
    """A finite number rounded to `decimals` places, trailing zeros dropped, as (negative, whole digits,
    fraction digits): -0.504 -> (True, "0", "5"); a value that rounds to zero is not negative. Every language
    writes or says its numbers from these digits."""
    text = f"{abs(value):.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{abs(value):.0f}"
    whole, _, fraction = text.partition(".")
    return value < 0 and bool(text.strip("0.")), whole, fraction


def number(value: float, decimals: int = 2) -> str:
    """A number rounded to `decimals` places, digit by digit after the point, with trailing zeros dropped:
    number(0.7071) -> "zero point seven one", number(2.0) -> "two", number(-0.5) -> "minus zero point five"."""
    if not math.isfinite(value):
        return "infinity" if value > 0 else "minus infinity" if value < 0 else "not a number"
    negative, whole, fraction = rounded_digits(value, decimals)
    sign = "minus " if negative else ""
    spoken = integer(int(whole))
    if fraction:
        spoken += " point " + " ".join(ONES[int(digit)] for digit in fraction)
    return sign + spoken


def percent(share: float, decimals: int = 1) -> str:
    """A share of 1 as a percentage: percent(0.987) -> "ninety-eight point seven percent"."""
    return f"{number(100 * share, decimals)} percent"


def count(value: int, noun: str, plural: str | None = None) -> str:
    """count(1, "key") -> "one key", count(3, "key") -> "three keys", count(2, "matrix", "matrices")."""
    return f"{integer(value)} {noun if value == 1 else plural or noun + 's'}"


def listing(items: Sequence[str], conjunction: str = "and") -> str:
    """listing(["A", "B", "C"]) -> "A, B and C"."""
    items = [str(item) for item in items]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def sentence(*parts: str) -> str:
    """Parts joined with single spaces, the first letter capitalised: a narration beat from pieces."""
    text = " ".join(" ".join(part.split()) for part in parts if part)
    return text[:1].upper() + text[1:]


# What a listener cannot hear: notation, digits and the lecturer's cues to the room (those stay in the notes).
UNHEARD = re.compile(r"[()\[\]{}<>=|^_*/\\%#@~`→←↦⇒·√Σ∑∞]|->|\d|(?<=\w)\.(?=\w)")
CUES = re.compile(r"\b(practice|checkpoint|exercise|question \d|ask the (room|class)|e\.g\.|i\.e\.|etc\.)", re.I)


def unheard(text: str) -> list[str]:
    """What in `text` a voice would read out as notation or a listener would take as a cue to the room: the
    offending characters and phrases (empty: the text is fit to be heard). Bookmarks are not heard."""
    text = bookmarks(text)[0]
    return sorted({match.group(0) for match in UNHEARD.finditer(text)} | {m.group(0) for m in CUES.finditer(text)})


def sentences_of(said: str | Sequence[object] | dict[str, object]) -> list[str]:
    """A slide's words, as its `*_said` function returns them (its one sentence, its beats by name, or one beat
    per step; a named beat may hold a list), as the sentences of its beats in the order they are said."""
    if isinstance(said, str):
        return [said]
    if isinstance(said, dict):
        return [sentence for value in said.values() for sentence in sentences_of(value)]  # type: ignore[arg-type]
    if isinstance(said, list):
        return [sentence for item in said for sentence in sentences_of(item)]  # type: ignore[arg-type]
    raise TypeError(f"a *_said function returns a str, a dict of beats or a list, not {type(said).__name__}")
