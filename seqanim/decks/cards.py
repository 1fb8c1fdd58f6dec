"""Title and section-divider cards: short static manim-slides `Slide`s in the lecture's theme.

A deck opens with a title card and, when it spans several parts of the lecture, gets a divider card
before each part. Cards are real slides (a video and speaker notes), so every export and the Qt
presenter treat them like any scene slide.

Cards are rendered in a child process (`python -m seqanim.decks.cards SPEC --quality Q`), all cards of
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

from seqanim.errors import StageFailed
from seqanim.files import atomic_write_text, digest, replace_dir
from seqanim.lecture.config import CONFIG_ENV, QUALITIES, Lecture
from seqanim.workspace import ENGINE, current

CARD_SECONDS = 1.2  # the accent line grows for 0.8 s, then the card holds
# The code a card's pixels depend on: a change here re-renders every card.
_CODE = [Path(__file__), ENGINE / "author" / "slide.py", ENGINE / "kit" / "theme.py", ENGINE / "kit" / "card.py"]


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
    return current().slides(quality) / "cards" / f"{card_id}.json"


def card_files(card_id: str, quality: str) -> Path:
    return current().slides(quality) / "cards" / "files" / card_id


def card_digest(card: Card, lecture: Lecture, quality: str) -> str:
    code = hashlib.sha256(b"".join(path.read_bytes() for path in _CODE)).hexdigest()
    return digest(
        {"card": asdict(card), "theme": lecture.theme.model_dump(mode="json"), "quality": quality, "code": code}
    )


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
        # In the build's staging folder, not /tmp: a killed build's next build removes it.
        current().staging.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="cards-", dir=current().staging) as tmp:
            spec = Path(tmp) / "cards.json"
            spec.write_text(json.dumps([asdict(card) for card in stale]))
            config = Path(tmp) / "lecture.json"
            config.write_text(lecture.model_dump_json())
            env = {**os.environ, CONFIG_ENV: str(config)}
            result = subprocess.run(
                [sys.executable, "-m", "seqanim.decks.cards", str(spec), "--quality", quality],
                cwd=current().root,
                env=env,
                capture_output=True,
                text=True,
            )
            if result.returncode != 0:
                log = current().logs / "cards.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                log.write_text(result.stdout + result.stderr)
                last = (result.stderr.strip().splitlines() or ["no output"])[-1]
                raise StageFailed(
                    f"rendering title/divider cards failed: {last} (full output in {current().label(log)})"
                )
    return [card_json(card.id, quality) for card in cards]


# --- the child process: manim is imported only here --------------------------------------------------


def _render(cards: list[Card], quality: str) -> None:
    from manim import Create, tempconfig

    from seqanim.author.slide import LectureSlide
    from seqanim.kit.card import TitleCard
    from seqanim.lecture.config import current as lecture_in_force
    from seqanim.stages.render import MANIM_QUALITY

    lecture = lecture_in_force()

    class CardSlide(LectureSlide):
        """One card. Its text is static from frame 0, so the first frame (PowerPoint's poster) and the last
        frame (the PDF still) both show the card; only the accent line grows."""

        card: Card

        def construct(self) -> None:
            self.next_slide(notes=self.card.notes)
            picture = TitleCard(self.card.kicker, self.card.heading, self.card.items, self.card.footer)
            self.add(*[part for part in picture if part is not picture.accent])
            self.play(Create(picture.accent), run_time=0.8)
            self.wait(CARD_SECONDS - 0.8)

    for card in cards:
        class_name = "Card_" + "".join(ch if ch.isalnum() else "_" for ch in card.id)
        scene_class = type(class_name, (CardSlide,), {"card": card})
        stage = current().staging / f"card-{card.id}-{quality}-{os.getpid()}"
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir(parents=True)
        settings = {
            **MANIM_QUALITY[quality],
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
        _publish(card, stage, class_name, card_digest(card, lecture, quality), quality)
        shutil.rmtree(stage, ignore_errors=True)


def _publish(card: Card, stage: Path, class_name: str, card_key: str, quality: str) -> None:
    """Publish a rendered card like a scene render: the files first, the JSON that points at them last.

    manim-slides names a slide's video after manim's animation hashes, which depend on what this process
    rendered before (a card rendered after another gets another name): it is named after the card's digest,
    so that a card rendered again, alone or in any order, lands under the same name."""
    slides = json.loads((stage / f"{class_name}.json").read_text())
    rendered = stage / "files" / class_name
    for number, slide in enumerate(slides["slides"]):
        names: dict[str, str] = {}
        for key in ("file", "rev_file"):
            old = Path(slide[key]).name
            if old not in names:
                names[old] = f"{card_key[:16]}-{number}{'-reversed' if key == 'rev_file' else ''}.mp4"
                os.replace(rendered / old, rendered / names[old])
            slide[key] = f"cards/files/{card.id}/{names[old]}"  # relative to slides/<q>/
    slides["seqanim_card"] = {"id": card.id, "digest": card_key}
    replace_dir(rendered, card_files(card.id, quality))
    atomic_write_text(card_json(card.id, quality), json.dumps(slides, indent=2))


def main(argv: Sequence[str] | None = None) -> None:
    import argparse

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
