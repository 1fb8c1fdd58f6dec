"""Present a deck live with manim-slides' Qt presenter: the title card, dividers and scenes in order.

The presenter plays a snapshot of the deck's slide files (hard links, so it is instant and costs no
space): a `seqanim build` that re-renders a scene while the lecture runs replaces `slides/<q>/files/`
under a live presenter, which would otherwise stall on a vanished video.
`QT_QPA_PLATFORM` is passed through untouched: the caller sets `offscreen` for a headless run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from seqanim.config import Lecture
from seqanim.decks import DeckPlan, prepare
from seqanim.errors import SeqanimError, StageFailed
from seqanim.workspace import current


def _start_at(sizes: list[int], start_at: int, deck: str) -> str:
    """1-based deck slide number -> manim-slides' "presentation,slide" (both 0-based)."""
    if not 1 <= start_at <= sum(sizes):
        raise SeqanimError(f"--start-at {start_at} is outside the {deck} deck, which has slides 1..{sum(sizes)}")
    index, offset = 0, start_at - 1
    while offset >= sizes[index]:
        offset -= sizes[index]
        index += 1
    return f"{index},{offset}"


def present_command(
    lecture: Lecture,
    deck: str,
    quality: str,
    *,
    fullscreen: bool,
    screen: int | None,
    start_at: int | None,
    extra: Sequence[str] = (),
    folder: Path | None = None,
    names: Sequence[str] | None = None,
) -> list[str]:
    """The `manim-slides present` command line for the deck (cards rendered first if needed).

    `start_at` is the 1-based deck slide number, as the HTML deck ("c/t") and the PDF handout number them.
    By default it presents `slides/<q>/` directly; `present` passes a snapshot `folder` and its `names`.
    """
    plan, presentations = prepare(lecture, deck, quality)
    # --silent: manim-slides would otherwise ask PyPI for a newer version at every start.
    command = [sys.executable, "-m", "manim_slides", "--silent", "present", "--folder", str(folder or current().slides(quality))]
    if fullscreen:
        command.append("--full-screen")
    if screen is not None:
        command += ["--screen", str(screen)]
    if start_at is not None:
        command += ["--start-at", _start_at([len(p.slides) for p in presentations], start_at, deck)]
    command += [*extra, *(names if names is not None else [entry.present_name for entry in plan.entries])]
    return command


def snapshot(plan: DeckPlan, root: Path) -> list[str]:
    """Hard-link the deck's slide videos under `root` and write their JSONs to `root/deck/`; return the
    names to present from `--folder root/deck`."""
    deck_folder = root / "deck"
    deck_folder.mkdir(parents=True)
    names = []
    for number, entry in enumerate(plan.entries):
        name = f"{number:03d}-{''.join(ch if ch.isalnum() else '_' for ch in entry.name)}"
        for attempt in range(2):  # a re-render may swap the files between reading the JSON and linking
            raw = json.loads(entry.slide_file.read_text())
            try:
                for slide in raw["slides"]:
                    for key in ("file", "rev_file"):
                        source = entry.slide_file.parent.parent / slide[key]
                        target = root / "files" / name / Path(slide[key]).name
                        target.parent.mkdir(parents=True, exist_ok=True)
                        if not target.exists():
                            try:
                                os.link(source, target)
                            except OSError:
                                if not source.exists():
                                    raise
                                shutil.copyfile(source, target)
                        slide[key] = f"files/{name}/{target.name}"  # relative to root: JSON's parent's parent
                break
            except FileNotFoundError:
                if attempt:
                    raise StageFailed(f"the slide files of {entry.name} changed while preparing the presenter; try again") from None
        (deck_folder / f"{name}.json").write_text(json.dumps(raw))
        names.append(name)
    return names


def present(lecture: Lecture, deck: str, quality: str, *, fullscreen: bool, screen: int | None, start_at: int | None, extra: Sequence[str] = ()) -> int:
    """Open the Qt presenter on the deck; return its exit code (130 when interrupted)."""
    plan, _ = prepare(lecture, deck, quality)
    snapshots = current().state_dir / "present"
    snapshots.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"{deck}-", dir=snapshots))
    try:
        names = snapshot(plan, root)
        command = present_command(
            lecture, deck, quality, fullscreen=fullscreen, screen=screen, start_at=start_at, extra=extra, folder=root / "deck", names=names
        )
        try:
            return subprocess.run(command, cwd=current().root).returncode
        except KeyboardInterrupt:
            return 130
    finally:
        shutil.rmtree(root, ignore_errors=True)
