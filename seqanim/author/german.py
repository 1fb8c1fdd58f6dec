"""Numbers and lists as German captions write them, for the words the parts' `de.py` files write from the data:

    zahl(0.7071)              -> "0,71"
    zahl(-0.5, 1)             -> "−0,5"
    ganz(3)                   -> "drei"      (up to twelve in words, then digits: ganz(40) -> "40")
    anzahl(3, "Schlüssel")    -> "drei Schlüssel"
    prozent(0.987)            -> "98,7 %"
    aufzaehlung(["A", "B", "C"]) -> "A, B und C"

Captions are read, not heard: German writes the decimal comma and digits (a German voice would need the
spoken forms, "null Komma sieben eins", which no offline voice here speaks well).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from seqanim.author.spoken import listing, rounded_digits

WORDS = "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf".split()


def zahl(value: float, decimals: int = 2) -> str:
    """A number rounded to `decimals` places, trailing zeros dropped, with the decimal comma and a true minus;
    whole numbers from 10 000 up grouped in thousands by a point (10.000)."""
    if not math.isfinite(value):
        return "unendlich" if value > 0 else "minus unendlich" if value < 0 else "keine Zahl"
    negative, whole, fraction = rounded_digits(value, decimals)
    if len(whole) > 4:
        whole = f"{int(whole):,}".replace(",", ".")
    return ("\u2212" if negative else "") + whole + (f",{fraction}" if fraction else "")


def ganz(value: int) -> str:
    """A whole number as a caption writes it: in words up to twelve, in digits beyond."""
    return WORDS[value] if 0 <= value < len(WORDS) else zahl(value, 0)


def anzahl(value: int, singular: str, plural: str | None = None, one: str = "ein") -> str:
    """anzahl(3, "Schlüssel") -> "drei Schlüssel", anzahl(1, "Zeile", "Zeilen", one="eine") -> "eine Zeile"."""
    if value == 1:
        return f"{one} {singular}"
    return f"{ganz(value)} {plural or singular}"


def prozent(share: float, decimals: int = 1) -> str:
    """A share of 1 as a percentage, with the space German sets before the sign: prozent(0.987) -> "98,7 %"."""
    return f"{zahl(100 * share, decimals)}\u00a0%"


def aufzaehlung(items: Sequence[str], conjunction: str = "und") -> str:
    """aufzaehlung(["A", "B", "C"]) -> "A, B und C" (English's `listing`, joined with "und")."""
    return listing(items, conjunction)
