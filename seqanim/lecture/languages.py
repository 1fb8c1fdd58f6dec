"""The languages a lecture's captions and transcript can be published in.

The first of `[publish] languages` is the one the scenes' words are written in, which the voice speaks; each
other one is a translation, written per lecture part in `scenes/<part>/<code>.py` (seqanim.author.translate).
A language is known here by its code, with what publishing needs of it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    name: str  # in the language itself: the HTML deck's caption button and the transcript's link say it
    iso639_2: str  # the three-letter code an MP4 subtitle track is tagged with (ISO 639-2/T)
    reading_speed: float  # characters a second an adult reads captions at (Netflix's template for the language)


# Languages written in the Latin script, whose captions keep the English rules (42 characters a line, two
# lines, 17 characters a second): a language with other rules needs them here before it can be added.
LANGUAGES = {
    "en": Language("English", "eng", 17.0),
    "de": Language("Deutsch", "deu", 17.0),
    "fr": Language("Français", "fra", 17.0),
    "es": Language("Español", "spa", 17.0),
    "it": Language("Italiano", "ita", 17.0),
    "pt": Language("Português", "por", 17.0),
    "nl": Language("Nederlands", "nld", 17.0),
}
