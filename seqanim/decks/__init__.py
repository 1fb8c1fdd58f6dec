"""Decks: the rendered scenes turned into what a lecturer opens.

For a deck and a quality this writes
- `slides/<q>/<deck>.html` + `slides/<q>/<deck>_assets/`: reveal.js, carried from node_modules (no CDN,
  no network), with every slide's video and speaker notes (press S for the speaker view);
- `slides/<q>/<deck>.standalone.html` (when `[decks] one_file`): one file with everything embedded;
- `slides/<q>/<deck>.pdf`: a handout, one page per slide: the slide's last frame, its title and notes;
- `slides/<q>/<deck>.pptx`: one PowerPoint slide per deck slide, each with its movie and notes;
- `renders/<q>/<deck>.mp4` + `renders/<q>/<deck>.png`: the published video (the scenes' narrated cuts
  joined: narration, soft captions, one chapter per scene) and the deck's thumbnail (its title card), with
  `renders/<q>/<deck>.vtt`/`.srt` (its captions) and `renders/<q>/<deck>.chapters.txt`;
- `slides/<q>/<deck>.transcript.html`: the accessible transcript, every slide's still, narration and number.

One module per output (`html`, `pdf`, `pptx`, `video`); `plan` says what a deck is made of and `cards`
renders its title and divider cards. Every output is written under a temporary name and renamed into place.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from pathlib import Path

from seqanim.decks.cards import card_files, card_json
from seqanim.decks.html import export_html
from seqanim.decks.pdf import export_pdf
from seqanim.decks.plan import DeckPlan, deck_names, deck_parts, deck_scenes, prepare
from seqanim.decks.pptx import export_pptx
from seqanim.decks.transcript import export_transcript, transcript_paths
from seqanim.decks.video import export_video
from seqanim.errors import SeqanimError
from seqanim.lecture.config import Lecture
from seqanim.publish.captions import caption_files
from seqanim.workspace import current

__all__ = ["FORMATS", "DeckPlan", "deck_names", "deck_outputs", "deck_scenes", "export_deck", "prepare", "timed_export"]

FORMATS = ("html", "pdf", "pptx", "video", "transcript")


def deck_outputs(lecture: Lecture, deck: str, quality: str) -> dict[str, Path]:
    """Every file and folder `export_deck(lecture, deck, quality)` writes, with its default formats.

    `standalone` is listed when `[decks] one_file` is on; `card:<id>` / `card-files:<id>` are the rendered
    title/divider cards (shared by re-exports, reused while unchanged).
    """
    deck_scenes(lecture, deck)  # an unknown deck fails here, with the list of known ones
    folder = current().slides(quality)
    outputs = {
        "html": folder / f"{deck}.html",
        "html_assets": folder / f"{deck}_assets",
        "pdf": folder / f"{deck}.pdf",
        "pptx": folder / f"{deck}.pptx",
        "video": current().renders(quality) / f"{deck}.mp4",
        **caption_files(current().renders(quality), deck, lecture.publish.languages),
        "chapters": current().renders(quality) / f"{deck}.chapters.txt",
        "thumbnail": current().renders(quality) / f"{deck}.png",
        **transcript_paths(folder, deck, lecture.publish.languages),
    }
    if lecture.decks.one_file:
        outputs["standalone"] = folder / f"{deck}.standalone.html"
    slug = re.sub(r"[^A-Za-z0-9_-]", "_", deck)
    card_ids = [f"{slug}-title"]
    groups = deck_parts(lecture, deck)
    if groups[0][0] is not None:
        card_ids += [f"{slug}-part-{k}-{part}" for k, (part, _) in enumerate(groups, start=1)]
    for card_id in card_ids:
        outputs[f"card:{card_id}"] = card_json(card_id, quality)
        outputs[f"card-files:{card_id}"] = card_files(card_id, quality)
    return outputs


def export_deck(
    lecture: Lecture,
    deck: str,
    quality: str,
    *,
    formats: Sequence[str] = FORMATS,
    one_file: bool | None = None,
) -> dict[str, Path]:
    """Export `deck` at `quality` in `formats`; return {format: path} of what was written.

    `one_file` (default `[decks] one_file`) adds `standalone`: one HTML file with reveal.js and every video
    embedded. The `video` format also writes the deck's `thumbnail`, captions (`vtt`, `srt`) and `chapters`.
    """
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise SeqanimError(f"unknown deck format(s) {', '.join(unknown)}; known: {', '.join(FORMATS)}")
    one_file = lecture.decks.one_file if one_file is None else one_file
    plan, presentations = prepare(lecture, deck, quality)
    written: dict[str, Path] = {}
    if "html" in formats:
        written.update(export_html(plan, presentations, lecture, one_file=one_file))
    if "pdf" in formats:
        written["pdf"] = export_pdf(plan, presentations, notes=lecture.decks.handout_notes)
    if "pptx" in formats:
        written["pptx"] = export_pptx(plan, presentations)
    if "video" in formats:
        written.update(export_video(plan, presentations, lecture))
    if "transcript" in formats:
        written.update(export_transcript(plan, presentations, lecture))
    return written


def timed_export(lecture: Lecture, deck: str, quality: str, *, one_file: bool = True) -> dict[str, float]:
    """Seconds each format takes (cards rendered first, timed as `cards`). For benchmarks and the report."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    plan, presentations = prepare(lecture, deck, quality)
    timings["cards"] = time.perf_counter() - started
    steps = {
        "html": lambda: export_html(plan, presentations, lecture, one_file=False),
        "standalone": lambda: export_html(plan, presentations, lecture, one_file=True, linked=False),
        "pdf": lambda: export_pdf(plan, presentations, notes=lecture.decks.handout_notes),
        "pptx": lambda: export_pptx(plan, presentations),
        "video": lambda: export_video(plan, presentations, lecture),
        "transcript": lambda: export_transcript(plan, presentations, lecture),
    }
    for name, step in steps.items():
        if name == "standalone" and not one_file:
            continue
        started = time.perf_counter()
        step()
        timings[name] = time.perf_counter() - started
    return timings
