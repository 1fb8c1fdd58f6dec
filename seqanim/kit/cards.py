"""Title and section-divider cards: short static manim-slides `Slide`s in the lecture's theme.

A deck opens with a title card and, when it spans several parts of the lecture, gets a divider card
before each part. Cards are real slides (a video and speaker notes), so every export and the Qt
presenter treat them like any scene slide.

Cards are rendered in a child process (`python -m seqanim.kit.cards SPEC --quality Q`), all cards of
one export in one process, and land in `slides/<q>/cards/<id>.json` + `slides/<q>/cards/files/<id>/`.
A card whose content, theme and code are unchanged is not rendered again (its JSON records a digest).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from seqanim.config import CONFIG_ENV, ROOT, Lecture, digest
from seqanim.contract import atomic_write_text
from seqanim.errors import StageFailed

SLIDES = ROOT / "slides"
WORK = ROOT / ".seqanim"
HEADING_SIZE = 48  # a card's heading is the one text bigger than a scene title
ROW_PITCH = 0.46  # manim units between agenda rows
CARD_SECONDS = 1.2  # the accent line grows for 0.8 s, then the card holds
# The code a card's pixels depend on: a change here re-renders every card.
_CODE = [Path(__file__), ROOT / "seqanim" / "kit" / "slide.py", ROOT / "seqanim" / "kit" / "theme.py"]


@dataclass(frozen=True)
class Card:
    """What one card shows and says."""

    id: str  # file stem, e.g. "rnn-title" or "full-part-1-rnn"
    kicker: str  # small line above the heading, e.g. "Part 1 of 4"
    heading: str
    items: tuple[str, ...]  # agenda lines under the heading
    footer: str
    notes: str

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "Card":
        return cls(**{**raw, "items": tuple(raw["items"])})


def card_json(card_id: str, quality: str) -> Path:
    return SLIDES / quality / "cards" / f"{card_id}.json"


def card_files(card_id: str, quality: str) -> Path:
    return SLIDES / quality / "cards" / "files" / card_id


def card_digest(card: Card, lecture: Lecture, quality: str) -> str:
    code = hashlib.sha256(b"".join(path.read_bytes() for path in _CODE)).hexdigest()
    return digest({"card": asdict(card), "theme": lecture.theme.model_dump(mode="json"), "quality": quality, "code": code})


def _is_current(card: Card, lecture: Lecture, quality: str) -> bool:
    path = card_json(card.id, quality)
    try:
        raw = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return False
    if raw.get("seqanim_card", {}).get("digest") != card_digest(card, lecture, quality):
        return False
    return all((path.parent.parent / slide["file"]).is_file() for slide in raw["slides"])


def ensure_cards(cards: Sequence[Card], lecture: Lecture, quality: str) -> list[Path]:
    """Render the cards that are missing or stale (one child process for all); return their JSON paths."""
    stale = [card for card in cards if not _is_current(card, lecture, quality)]
    if stale:
        with tempfile.TemporaryDirectory(prefix="seqanim-cards-") as tmp:
            spec = Path(tmp) / "cards.json"
            spec.write_text(json.dumps([asdict(card) for card in stale]))
            config = Path(tmp) / "lecture.json"
            config.write_text(lecture.model_dump_json())
            env = {**os.environ, CONFIG_ENV: str(config)}
            result = subprocess.run(
                [sys.executable, "-m", "seqanim.kit.cards", str(spec), "--quality", quality],
                cwd=ROOT, env=env, capture_output=True, text=True,
            )
            if result.returncode != 0:
                log = WORK / "logs" / "cards.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                log.write_text(result.stdout + result.stderr)
                last = (result.stderr.strip().splitlines() or ["no output"])[-1]
                raise StageFailed(f"rendering title/divider cards failed: {last} (full output in {log.relative_to(ROOT)})")
    return [card_json(card.id, quality) for card in cards]


# --- the child process: manim is imported only here --------------------------------------------------


def _render(cards: list[Card], quality: str) -> None:
    from manim import DOWN, LEFT, RIGHT, Create, Dot, Line, Text, VGroup, config, tempconfig

    from seqanim.config import current
    from seqanim.kit import theme
    from seqanim.kit.slide import LectureSlide
    from seqanim.render import QUALITIES

    lecture = current()

    class CardSlide(LectureSlide):
        """One card: kicker, heading with a growing accent line, agenda, footer. Text is static from frame 0,
        so the first frame (PowerPoint's poster) and the last frame (the PDF still) both show the card."""

        card: Card

        def construct(self) -> None:
            card = self.card
            self.next_slide(notes=card.notes)
            width = config.frame_width - 1.2
            font = theme.font()
            heading = Text(card.heading, font=font, font_size=HEADING_SIZE, color=theme.foreground(), weight="BOLD")
            if heading.width > width:
                heading.scale_to_fit_width(width)
            parts: list[Any] = []
            if card.kicker:
                parts.append(Text(card.kicker, font=font, font_size=theme.BODY_SIZE, color=theme.highlight()))
            parts.append(heading)
            accent = Line(heading.get_left(), heading.get_right(), color=theme.highlight(), stroke_width=4)
            parts.append(accent)
            if card.items:
                # A fixed pitch per row: arranging by bounding boxes would space rows with descenders wider.
                rows = VGroup()
                for i, item in enumerate(card.items):
                    dot = Dot([0, -ROW_PITCH * i, 0], radius=0.07, color=theme.colour(i))
                    label = Text(item, font=font, font_size=theme.LABEL_SIZE, color=theme.foreground())
                    label.next_to(dot, RIGHT, buff=0.25)
                    rows.add(VGroup(dot, label))
                if rows.height > 3.6:
                    rows.scale_to_fit_height(3.6)
                parts.append(rows)
            body = VGroup(*parts).arrange(DOWN, buff=0.35)
            if card.items and body[-1].width < heading.width:
                body[-1].align_to(heading, LEFT)  # a short agenda reads as a list under the heading
            body.move_to([0, 0.3, 0])
            if body.height > config.frame_height - 1.6:
                body.scale_to_fit_height(config.frame_height - 1.6).move_to([0, 0.3, 0])
            footer = Text(card.footer, font=font, font_size=theme.SMALL_SIZE, color=theme.muted()).to_edge(DOWN, buff=0.35)
            self.add(*[part for part in parts if part is not accent], footer)
            self.play(Create(accent), run_time=0.8)
            self.wait(CARD_SECONDS - 0.8)

    for card in cards:
        class_name = "Card_" + "".join(ch if ch.isalnum() else "_" for ch in card.id)
        scene_class = type(class_name, (CardSlide,), {"card": card})
        stage = WORK / "stage" / f"card-{card.id}-{quality}-{os.getpid()}"
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir(parents=True)
        settings = {
            "quality": QUALITIES[quality],
            "media_dir": str(stage / "media"),  # private and thrown away: decks export in parallel, and a killed
            # render must leave no half-written cache behind (cards take a second to render)
            "output_file": class_name,
            "progress_bar": "none",
            "verbosity": "WARNING",
            "write_to_movie": True,
            "format": "mp4",
            "disable_caching": False,
        }
        with tempconfig(settings):
            scene = scene_class(output_folder=stage)
            scene.render()
        if scene.layout_violations:
            raise StageFailed(f"card {card.id}: layout violations: {'; '.join(map(str, scene.layout_violations))}")
        slides = json.loads((stage / f"{class_name}.json").read_text())
        for slide in slides["slides"]:
            for key in ("file", "rev_file"):
                slide[key] = f"cards/files/{card.id}/{Path(slide[key]).name}"  # relative to slides/<q>/
        slides["seqanim_card"] = {"id": card.id, "digest": card_digest(card, lecture, quality)}
        # Publish like a scene render: the files first, the JSON that points at them last.
        final = card_files(card.id, quality)
        final.parent.mkdir(parents=True, exist_ok=True)
        trash = final.with_name(f".{final.name}.old-{os.getpid()}")
        if final.exists():
            os.replace(final, trash)
        os.replace(stage / "files" / class_name, final)
        shutil.rmtree(trash, ignore_errors=True)
        atomic_write_text(card_json(card.id, quality), json.dumps(slides, indent=2))
        shutil.rmtree(stage, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> None:
    import argparse

    from seqanim.render import QUALITIES

    parser = argparse.ArgumentParser(description="Render title/divider cards (called by seqanim.decks).")
    parser.add_argument("spec", type=Path, help="JSON list of cards")
    parser.add_argument("--quality", choices=list(QUALITIES), default="low")
    args = parser.parse_args(argv)
    cards = [Card.from_json(raw) for raw in json.loads(args.spec.read_text())]
    try:
        _render(cards, args.quality)
    except StageFailed as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(error.exit_code)


if __name__ == "__main__":
    main()
