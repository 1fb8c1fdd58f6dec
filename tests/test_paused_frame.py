"""The frame a deck pauses on is the slide's final state: rendered for real, in a workspace of its own, a slide
ends on a held frame of its finished animations, and the check that compares the two catches a slide whose
video ends before its last animation has (as manim writes it without that frame)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from seqanim.workspace import REPOSITORY, WORKSPACE_ENV

PART = """\
from seqanim import Part

PART = Part("Frames", order=1, scenes=("counting",))
"""

SCENES = '''\
from manim import LEFT, RIGHT, ChangeDecimalToValue, DecimalNumber, Square

from seqanim import LectureSlide


class Finished(LectureSlide):
    """Two slides, each ending on a moving square and a counting number."""

    data = ("linear_rnn",)

    def construct(self) -> None:
        square, number = Square(2).shift(3 * LEFT), DecimalNumber(0.0, num_decimal_places=2, font_size=96)
        self.next_slide(notes="The square moves and the number counts to one.")
        with self.beat("A square slides across while a number counts up to one."):
            self.play(square.animate.shift(6 * RIGHT), ChangeDecimalToValue(number, 1.0), run_time=1)
        self.next_slide(notes="Back again.")
        with self.beat("It slides back."):
            self.play(square.animate.shift(6 * LEFT), run_time=1)


class Unfinished(LectureSlide):
    """The same slides without beats (nothing holds after the animations for their words) and without the held
    frame: each video ends one frame before its animation does."""

    data = ("linear_rnn",)

    def construct(self) -> None:
        self.wait_time_between_slides = 0
        square, number = Square(2).shift(3 * LEFT), DecimalNumber(0.0, num_decimal_places=2, font_size=96)
        self.next_slide(notes="The square moves and the number counts to one.")
        self.play(square.animate.shift(6 * RIGHT), ChangeDecimalToValue(number, 1.0), run_time=1)
        self.next_slide(notes="Back again.")
        self.play(square.animate.shift(6 * LEFT), run_time=1)
'''


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("frames")
    for name in ("lecture.toml", "precompute"):
        source = REPOSITORY / name
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, root / name)
    (root / "scenes" / "frames").mkdir(parents=True)
    (root / "scenes" / "__init__.py").write_text("")
    (root / "scenes" / "frames" / "__init__.py").write_text(PART)
    (root / "scenes" / "frames" / "counting.py").write_text(SCENES)
    return root


def _render(root: Path, scene: str) -> dict:
    env = {**os.environ, WORKSPACE_ENV: str(root), "PYTHONPATH": os.pathsep.join((str(root), str(REPOSITORY)))}
    result = subprocess.run(
        [sys.executable, "-m", "seqanim.stages.render", scene, "--quiet"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads((root / "renders" / "low" / f"{scene}.report.json").read_text())


@pytest.mark.slow
def test_every_slide_pauses_on_its_final_state(workspace: Path) -> None:
    report = _render(workspace, "Finished")
    assert report["paused_frame_shares"] == [0.0, 0.0]
    assert report["layout_violations"] == []
    # Each beat starts its slide and lasts until its words end (its 1 s animation, then the picture held), and
    # at most the pause after them ([publish] gap_s) and a frame more.
    beats = sum(report["beats"], [])
    assert [beat["start"] for beat in beats] == [0.0, 0.0]
    assert all(1.0 < beat["speech"] <= beat["end"] <= beat["speech"] + 0.1 + 2 / report["fps"] for beat in beats), beats


@pytest.mark.slow
def test_a_slide_that_ends_before_its_animation_is_caught(workspace: Path) -> None:
    report = _render(workspace, "Unfinished")
    assert all(share > 0.0002 for share in report["paused_frame_shares"]), report["paused_frame_shares"]
    assert [violation.split(":")[:2] for violation in report["layout_violations"]] == [
        ["slide 1", " paused frame"],
        ["slide 2", " paused frame"],
    ]
