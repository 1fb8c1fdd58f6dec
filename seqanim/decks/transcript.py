"""`slides/<q>/<deck>.transcript.html`: the lecture as an accessible page, offline; and in each other language
of `[publish] languages`, `<deck>.transcript.<code>.html`, each page linking to the others.

A heading per part and per scene; for every slide its still (alt text written from the data on screen, see
seqanim/kit/describe.py), its narration (in a translation, its beats' translated words), its number in the deck
(the HTML deck's and the presenter's) and where it starts in the published video. The stills are the scenes'
(`slides/<q>/stills/<Scene>/<n>.png`, made by the narration stage), the cards' are embedded; nothing is loaded
from the network.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from seqanim.decks.plan import DeckPlan, humanise
from seqanim.decks.video import clock, last_frame, narration_timing
from seqanim.files import atomic_write_text
from seqanim.lecture.config import Lecture
from seqanim.lecture.languages import LANGUAGES
from seqanim.workspace import current

STYLE = """
:root { color-scheme: light; }
body { font: 1.05rem/1.6 "DejaVu Sans", system-ui, sans-serif; color: #1b1b1f; background: #fdfdfd;
  max-width: 62rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
a { color: #0b5394; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; }
h1 { font-size: 2rem; margin-bottom: .25rem; } h2 { margin-top: 3rem; border-bottom: 2px solid #0173b2; }
h3 { margin-top: 2.5rem; }
figure { display: grid; grid-template-columns: minmax(0, 26rem) 1fr; gap: 1.25rem; margin: 1.5rem 0;
  align-items: start; }
figure img { width: 100%; height: auto; border-radius: 4px; }
figcaption p { margin: 0 0 .5rem; }
.meta { font-size: .9rem; color: #4a4a52; }
@media (max-width: 50rem) { figure { grid-template-columns: 1fr; } }
"""


def _data_uri(video: Path) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(last_frame(video)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _figure(
    src: str, alt: str, number: int, total: int, narration: tuple[str, str], at: str | None, size: tuple[int, int],
    code: str, first: str,
) -> str:  # fmt: skip
    """A slide: its still, its number and time, its words (`narration`: the text and its language). The alt
    text is written from the data on screen in the scenes' own language, `first`; a screen reader is told so."""
    words = LANGUAGES[code].words()
    where = words["slide"].format(number=number, total=total) + (words["at"].format(at=at) if at else "")
    text, language = narration
    alt_lang = f' lang="{first}"' if code != first else ""
    said_lang = f' lang="{language}"' if language != code else ""
    return (
        f'<figure id="slide-{number}">'
        f'<img src="{html.escape(src)}" alt="{html.escape(alt)}"{alt_lang} width="{size[0]}" height="{size[1]}" '
        f'loading="lazy"><figcaption><p class="meta">{where}</p><p{said_lang}>{html.escape(text)}</p></figcaption>'
        "</figure>"
    )


def transcript_paths(folder: Path, deck: str, languages: Sequence[str]) -> dict[str, Path]:
    """The deck's transcript page per language, by output name: `transcript` (`<deck>.transcript.html`) for the
    first, `transcript.<code>` (`<deck>.transcript.<code>.html`) for the others."""
    first, *others = languages
    return {"transcript": folder / f"{deck}.transcript.html"} | {
        f"transcript.{code}": folder / f"{deck}.transcript.{code}.html" for code in others
    }


def export_transcript(plan: DeckPlan, presentations: list[Any], lecture: Lecture) -> dict[str, Path]:
    """Write the deck's transcript page in each language; return their paths."""
    paths = transcript_paths(current().slides(plan.quality), plan.deck, lecture.publish.languages)
    for code, path in zip(lecture.publish.languages, paths.values()):
        _export_page(plan, presentations, lecture, code, path)
    return paths


def _export_page(plan: DeckPlan, presentations: list[Any], lecture: Lecture, code: str, path: Path) -> None:
    from seqanim.decks.html import _check_offline

    first = lecture.publish.languages[0]
    total = sum(len(presentation.slides) for presentation in presentations)
    cards = {card.id: card for card in plan.cards}
    multi = any(entry.kind == "divider" for entry in plan.entries)
    scene_level = 3 if multi else 2
    body: list[str] = []
    contents: list[str] = []
    number = 0
    offset = 0.0
    in_part = False
    for entry, presentation in zip(plan.entries, presentations):
        size = tuple(presentation.resolution)
        if entry.kind in ("title", "divider"):
            card = cards[entry.name]
            number += 1
            alt = f"{card.kicker}: {card.heading}. " + "; ".join(card.items)
            alt += f". {card.footer}" if card.footer else ""
            still = _data_uri(presentation.slides[-1].file)
            figure = _figure(still, alt, number, total, (card.notes, first), None, size, code, first)
            if entry.kind == "title":
                body.append(f"<header><h1>{html.escape(plan.title)}</h1>{figure}</header>")
            else:
                if in_part:
                    body.append("</section>")
                anchor = f"part-{entry.name}"
                body.append(f'<section aria-labelledby="{anchor}"><h2 id="{anchor}">{html.escape(entry.label)}</h2>')
                body.append(figure)
                contents.append(f'<li><a href="#{anchor}">{html.escape(entry.label)}</a></li>')
                in_part = True
            continue
        timing = narration_timing(entry.name, plan.quality)
        anchor = f"scene-{entry.name}"
        heading = humanise(entry.name)
        body.append(f'<h{scene_level} id="{anchor}">{html.escape(heading)}</h{scene_level}>')
        if not multi:
            contents.append(f'<li><a href="#{anchor}">{html.escape(heading)}</a></li>')
        for record in timing["slides"]:
            number += 1
            alt = record["alt"] or f"{heading}, slide {record['slide']}"
            at = clock(offset + record["start"])
            translated = record["translations"].get(code)
            narration = (translated, code) if translated else (record["narration"], first)
            body.append(_figure(record["still"], alt, number, total, narration, at, size, code, first))
        offset += timing["duration"]
    if in_part:
        body.append("</section>")
    page = _page(plan, lecture, code, body, contents, (total, offset))
    _check_offline(page)
    atomic_write_text(path, page)


def _page(
    plan: DeckPlan, lecture: Lecture, code: str, body: list[str], contents: list[str], size: tuple[int, float]
) -> str:
    """The whole page in language `code`: the title card's header, the links to the other languages' pages,
    the contents, the slides, and how many there are and how long the video is (`size`)."""
    words = LANGUAGES[code].words()
    length = words["length"].format(slides=size[0], video=clock(size[1]))
    languages = lecture.publish.languages
    pages = transcript_paths(Path(), plan.deck, languages).values()
    others = {other: page.name for other, page in zip(languages, pages) if other != code}
    alternates = "".join(
        f'<link rel="alternate" hreflang="{other}" href="{html.escape(name)}">\n' for other, name in others.items()
    )
    links = ", ".join(
        f'<a href="{html.escape(name)}" hreflang="{other}" lang="{other}">{html.escape(LANGUAGES[other].name)}</a>'
        for other, name in others.items()
    )
    languages = f'<p class="meta">{words["languages"]}: {links}</p>\n' if others else ""
    return (
        f'<!doctype html>\n<html lang="{html.escape(code)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(plan.title)}: {words['title']}</title>\n{alternates}<style>{STYLE}</style>\n"
        "</head>\n<body>\n"
        f'<a class="skip" href="#main">{words["skip"]}</a>\n'
        f'<main id="main">\n{body[0] if body else ""}\n{languages}'
        f'<nav aria-label="{words["contents"]}"><h2>{words["contents"]}</h2><ol>{"".join(contents)}</ol></nav>\n'
        + "\n".join(body[1:])
        + f'\n<p class="meta">{length} '
        f"(renders/{plan.quality}/{html.escape(plan.deck)}.mp4).</p>\n</main>\n</body>\n</html>\n"
    )
