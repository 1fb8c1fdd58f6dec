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
    # The transcript page's own words: a slide's place, where it starts in the video, the skip link, the
    # contents, the page title, the deck's size, and the links to the other languages.
    page: tuple[str, str, str, str, str, str, str]

    def words(self) -> dict[str, str]:
        keys = ("slide", "at", "skip", "contents", "title", "length", "languages")
        return dict(zip(keys, self.page))


# Languages written in the Latin script, whose captions keep the English rules (42 characters a line, two
# lines, 17 characters a second): a language with other rules needs them here before it can be added.
LANGUAGES = {
    "en": Language("English", "eng", 17.0, (
        "Slide {number} of {total}", " · at {at} in the video", "Skip to the transcript", "Contents",
        "transcript", "{slides} slides · {video} of narrated video", "Also in")),
    "de": Language("Deutsch", "deu", 17.0, (
        "Folie {number} von {total}", " · bei {at} im Video", "Zum Transkript springen", "Inhalt", "Transkript",
        "{slides} Folien · {video} vertontes Video", "Auch auf")),
    "fr": Language("Français", "fra", 17.0, (
        "Diapositive {number} sur {total}", " · à {at} dans la vidéo", "Aller à la transcription", "Sommaire",
        "transcription", "{slides} diapositives · {video} de vidéo commentée", "Aussi en")),
    "es": Language("Español", "spa", 17.0, (
        "Diapositiva {number} de {total}", " · en {at} del vídeo", "Ir a la transcripción", "Contenido",
        "transcripción", "{slides} diapositivas · {video} de vídeo narrado", "También en")),
    "it": Language("Italiano", "ita", 17.0, (
        "Diapositiva {number} di {total}", " · a {at} nel video", "Vai alla trascrizione", "Indice",
        "trascrizione", "{slides} diapositive · {video} di video narrato", "Anche in")),
    "pt": Language("Português", "por", 17.0, (
        "Slide {number} de {total}", " · em {at} no vídeo", "Ir para a transcrição", "Sumário", "transcrição",
        "{slides} slides · {video} de vídeo narrado", "Também em")),
    "nl": Language("Nederlands", "nld", 17.0, (
        "Dia {number} van {total}", " · op {at} in de video", "Naar het transcript", "Inhoud", "transcript",
        "{slides} dia's · {video} aan ingesproken video", "Ook in")),
}  # fmt: skip
