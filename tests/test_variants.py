""" "What if?" variants ([variants] of lecture.toml) in a tiny workspace of their own: one experiment (a pulse of
a given height) and one scene, built at preview quality with no voice. Chromium (network blocked) switches the
variant on a slide of the selector deck: the label, the video, the frame on screen and the speaker notes are
the variant's. A value added plans only its own stages; a value removed and added again comes back from the
cache; a bad value is one line and exit 2; a lecture without [variants] writes no selector deck.
(tests/test_present.py opens a variant in the Qt presenter.)
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from seqanim.workspace import REPOSITORY, WORKSPACE_ENV

CHROMIUM = "/usr/bin/chromium"
QUALITY = "preview"
DECK = "pulse"
VARIANTS = "[variants]\npulse.height = [2.0, 5.0]\n"

EXPERIMENT = '''\
"""pulse: a pulse of a given height."""

from __future__ import annotations

from typing import Any

import numpy as np

from seqanim.declare import Experiment, Field, Params


class Parameters(Params):
    height: float = Field(0.5, gt=0, le=10, description="height of the pulse")


EXPERIMENT = Experiment(Parameters, seconds=0.1)


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    return {"values": np.array([0.0, params.height, params.height, 0.0])}, {"height": params.height}
'''

SCENE = '''\
"""A tiny part for the variant tests."""

from __future__ import annotations

from manim import FadeIn

from seqanim.declare import Part
from seqanim.kit.bars import Bars
from seqanim.slide import LectureSlide

PART = Part("Pulse", order=1)


class PulseScene(LectureSlide):
    data = ("pulse",)

    def construct(self) -> None:
        art = self.load("pulse")
        self.next_slide(notes="A pulse.")
        self.title("A pulse")
        self.next_slide(notes=f"Its height is {art.metrics['height']:.2f}.")
        bars = Bars(art["values"], ["t0", "t1", "t2", "t3"], max_value=5, height=3, decimals=1)
        self.play(FadeIn(bars), run_time=0.5)
'''


class Tiny:
    def __init__(self, root: Path) -> None:
        self.root = root

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            WORKSPACE_ENV: str(self.root),
            "PYTHONPATH": os.pathsep.join([str(self.root), str(REPOSITORY)]),
        }
        return subprocess.run(
            [sys.executable, "-m", "seqanim.cli", *args], cwd=self.root, env=env, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip

    def slides(self) -> Path:
        return self.root / "slides" / QUALITY


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Tiny:
    root = tmp_path_factory.mktemp("variants") / "lecture"
    (root / "precompute").mkdir(parents=True)
    (root / "scenes").mkdir()
    (root / "precompute" / "__init__.py").write_text("")
    (root / "precompute" / "pulse.py").write_text(EXPERIMENT)
    (root / "scenes" / "__init__.py").write_text("")
    (root / "scenes" / "pulse.py").write_text(SCENE)
    (root / "lecture.toml").write_text(f'[render]\nquality = "{QUALITY}"\n\n[publish]\nvoice = "none"\n\n{VARIANTS}')
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(REPOSITORY / name, root / name)
    (root / "node_modules").symlink_to(REPOSITORY / "node_modules")
    tiny = Tiny(root)
    result = tiny.run("build")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "variants: slides/preview/pulse.variants.html" in result.stdout
    return tiny


def _last_frame(video: Path, size: tuple[int, int]) -> np.ndarray:
    """The video's last frame, scaled to `size` (what the deck holds when the slide has played)."""
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-sseof", "-1", "-i", str(video), "-vf", f"scale={size[0]}:{size[1]}",
         "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    return np.frombuffer(raw, np.uint8).reshape(-1, size[1], size[0], 3)[-1].astype(int)


def test_chromium_switches_the_variant_on_the_slide(tiny: Tiny) -> None:
    """On the scene's second slide (deck slide 3, after the title card): `]` shows height 2.0, its video's
    last frame on screen and its notes; `[` twice wraps round to 5.0; the next slide keeps the choice."""
    from playwright.sync_api import sync_playwright

    page_path = tiny.slides() / f"{DECK}.variants.html"
    variant = tiny.root / ".seqanim" / "variants" / "pulse.height=2.0"
    video = (
        variant
        / "slides"
        / json.loads((variant / "slides" / QUALITY / "PulseScene.json").read_text())["slides"][1]["file"]
    )
    default = tiny.root / "slides" / json.loads((tiny.slides() / "PulseScene.json").read_text())["slides"][1]["file"]
    size = (1280, 720)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--autoplay-policy=no-user-gesture-required"]
        )
        try:
            context = browser.new_context(viewport={"width": size[0], "height": size[1]})
            blocked: list[str] = []
            context.route("http*://**", lambda route: (blocked.append(route.request.url), route.abort()))
            page = context.new_page()
            page.goto(page_path.as_uri() + "#/2")
            page.wait_for_function("() => window.Reveal && Reveal.isReady()")
            label, value = page.locator(".seqanim-variant"), page.locator(".seqanim-variant .value")
            assert value.inner_text() == "height = 0.5"
            assert "Its height is 0.50." in page.evaluate("Reveal.getSlideNotes()")

            page.keyboard.press("]")
            assert value.inner_text() == "height = 2.0"
            assert "2 of 3" in label.inner_text()
            assert page.evaluate("Reveal.getSlideNotes()").startswith("Its height is 2.00.")
            page.wait_for_function(
                "() => { const v = Reveal.getSlideBackground(Reveal.getIndices().h).querySelector('video');"
                " return v && v.currentSrc.includes('pulse.height=2.0') && v.ended; }",
                timeout=20_000,
            )
            shot = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB")).astype(int)
            label_rows = slice(0, size[1] - 80)  # the label sits in the bottom-left corner
            mine = np.abs(shot - _last_frame(video, size))[label_rows].mean()
            other = np.abs(shot - _last_frame(default, size))[label_rows].mean()
            assert mine < 2.0 and other > 2 * mine, (mine, other)  # the variant's frame, not the default's

            page.keyboard.press("[")
            page.keyboard.press("[")
            assert value.inner_text() == "height = 5.0"
            assert "3 of 3" in label.inner_text()
            page.keyboard.press("ArrowLeft")  # the scene's first slide keeps the choice
            assert value.inner_text() == "height = 5.0"
            page.keyboard.press("ArrowLeft")  # the title card has no variants: no label
            assert not label.is_visible()
        finally:
            browser.close()
    assert blocked == []


def test_the_default_deck_stays_the_default(tiny: Tiny) -> None:
    html = (tiny.slides() / f"{DECK}.html").read_text()
    assert "seqanim-variant" not in html and "_variants/" not in html
    assert (tiny.slides() / f"{DECK}_variants" / "pulse.height=5.0").is_dir()


def test_a_value_added_plans_only_its_own_stages(tiny: Tiny) -> None:
    result = tiny.run("build", "--dry-run", "--set", "variants.pulse.height=[2.0, 5.0, 7.5]")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].endswith("stages would run") and lines[0].startswith("0 of ")  # the lecture itself
    assert "variant pulse.height=2.0: 0 of 2 stages would run" in lines
    assert "variant pulse.height=5.0: 0 of 2 stages would run" in lines
    added = [line for line in lines if line.startswith("variant pulse.height=7.5: would run")]
    assert [line.split()[4] for line in added] == ["experiment:pulse", f"scene:{QUALITY}:PulseScene"]


def test_a_value_removed_comes_back_from_the_cache(tiny: Tiny) -> None:
    fewer = tiny.run("build", "--set", "variants.pulse.height=[2.0]")
    assert fewer.returncode == 0, fewer.stderr
    assert not (tiny.root / ".seqanim" / "variants" / "pulse.height=5.0").exists()
    again = tiny.run("build")
    assert again.returncode == 0, again.stderr
    assert "variant pulse.height=5.0: ran 0, restored 2 from cache" in again.stdout


@pytest.mark.parametrize(
    ("variants", "expected"),
    [
        ("[50.0]", "lecture.toml: [variants]: pulse.height = 50.0 is out of range: allowed <= 10.0"),
        ("7", "lecture.toml: [variants] pulse.height = 7: give a list of values, e.g. [20, 40]"),
    ],
)
def test_a_bad_value_is_one_line(tiny: Tiny, variants: str, expected: str) -> None:
    result = tiny.run("build", "--dry-run", "--set", f"variants.pulse.height={variants}")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"error: {expected}"]


def test_without_variants_no_selector_deck_is_left(tiny: Tiny) -> None:
    toml = tiny.root / "lecture.toml"
    text = toml.read_text()
    toml.write_text(text.replace(VARIANTS, ""))
    try:
        result = tiny.run("build")
        assert result.returncode == 0, result.stderr
        assert "variant" not in result.stdout
        assert not list(tiny.slides().glob("*variants*"))
        assert not (tiny.root / ".seqanim" / "variants").exists()
    finally:
        toml.write_text(text)
