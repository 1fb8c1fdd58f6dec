"""`slides/<q>/<deck>.transcript.html`: the lecture as an accessible page, offline.

A heading per part and per scene; for every slide its still (alt text written from the data on screen, see
seqanim/kit/describe.py), its narration, its number in the deck (the HTML deck's and the presenter's) and
where it starts in the published video. The stills are the scenes' (`slides/<q>/stills/<Scene>/<n>.png`, made
by the narration stage), the cards' are embedded; nothing is loaded from the network.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

from seqanim.decks.plan import DeckPlan, humanise
from seqanim.decks.video import clock, last_frame, narration_timing
from seqanim.files import atomic_write_text, publish_mode
from seqanim.lecture.config import Lecture
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


def _figure(src: str, alt: str, number: int, total: int, narration: str, at: str | None, size: tuple[int, int]) -> str:
    where = f"Slide {number} of {total}" + (f" · at {at} in the video" if at else "")
    return (
        f'<figure id="slide-{number}">'
        f'<img src="{html.escape(src)}" alt="{html.escape(alt)}" width="{size[0]}" height="{size[1]}" loading="lazy">'
        f'<figcaption><p class="meta">{where}</p><p>{html.escape(narration)}</p></figcaption></figure>'
    )


def export_transcript(plan: DeckPlan, presentations: list[Any], lecture: Lecture) -> Path:
    """Write the deck's transcript page and return its path."""
    from seqanim.decks.html import _check_offline

    folder = current().slides(plan.quality)
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
        if entry.kind in ("title", "divider"):
            card = cards[entry.name]
            number += 1
            alt = f"{card.kicker}: {card.heading}. " + "; ".join(card.items)
            alt += f". {card.footer}" if card.footer else ""
            size = tuple(presentation.resolution) if hasattr(presentation, "resolution") else (854, 480)
            figure = _figure(_data_uri(presentation.slides[-1].file), alt, number, total, card.notes, None, size)
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
        size = tuple(presentation.resolution) if hasattr(presentation, "resolution") else (854, 480)
        for record in timing["slides"]:
            number += 1
            alt = record["alt"] or f"{heading}, slide {record['slide']}"
            at = clock(offset + record["start"])
            body.append(_figure(record["still"], alt, number, total, record["narration"], at, size))
        offset += timing["duration"]
    if in_part:
        body.append("</section>")
    page = _page(plan, lecture, body, contents, f"{total} slides · {clock(offset)} of narrated video")
    _check_offline(page)
    path = folder / f"{plan.deck}.transcript.html"
    atomic_write_text(path, page)
    publish_mode(path)
    return path


def _page(plan: DeckPlan, lecture: Lecture, body: list[str], contents: list[str], length: str) -> str:
    """The whole page: the title card's header, the contents, the slides, and how long the video is."""
    return (
        f'<!doctype html>\n<html lang="{html.escape(lecture.publish.language)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(plan.title)}: transcript</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        '<a class="skip" href="#main">Skip to the transcript</a>\n'
        f'<main id="main">\n{body[0] if body else ""}\n'
        f'<nav aria-label="Contents"><h2>Contents</h2><ol>{"".join(contents)}</ol></nav>\n'
        + "\n".join(body[1:])
        + f'\n<p class="meta">{length} '
        f"(renders/{plan.quality}/{html.escape(plan.deck)}.mp4).</p>\n</main>\n</body>\n</html>\n"
    )
