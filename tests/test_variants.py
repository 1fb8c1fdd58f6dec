""" "What if?" variants ([variants] of lecture.toml) in a tiny lecture of their own (tests/tiny.py): the pulse
experiment and one scene, built at the suite's quality with no voice. Chromium (network blocked) switches the
variant on a slide of the selector deck: the label, the video, the frame on screen and the speaker notes are
the variant's. The Qt presenter on Xvfb opens a variant at a slide (tests/x11.py). A value added plans only
its own stages; a value removed and added again comes back from the cache, and so does a value made the
lecture's own; a bad value is one line and exit 2;
a lecture without [variants] writes no selector deck.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.conftest import QUALITY
from tests.tiny import Tiny, make_tiny
from tests.tree import stop_group
from tests.x11 import DIFFERENT, SAME, difference, find_window, last_frame, presenter, wait_for_slide, x, x_env, xvfb

CHROMIUM = "/usr/bin/chromium"
DECK = "pulse"
VARIANTS = "[variants]\npulse.height = [2.0, 5.0]\n"

SCENE = '''\
"""A tiny part for the variant tests."""

from __future__ import annotations

from manim import FadeIn

from seqanim import LectureSlide, Part
from seqanim.kit.bars import Bars

PART = Part("Pulse", order=1)


class PulseScene(LectureSlide):
    data = ("pulse",)

    def construct(self) -> None:
        art = self.load("pulse")
        self.next_slide(notes="A pulse.")
        self.title("A pulse")
        self.next_slide(notes=f"Its height is {art.metrics['height']:.2f}.")
        values = art["values"]
        bars = Bars(values, [f"t{i}" for i in range(len(values))], max_value=5, height=3, decimals=1)
        self.play(FadeIn(bars), run_time=0.5)
'''


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Tiny:
    publish = '[publish]\nvoice = "none"\nlanguages = ["en", "de"]\n'
    tiny = make_tiny(tmp_path_factory.mktemp("variants") / "lecture", SCENE, f"{publish}\n{VARIANTS}")
    result = tiny.run("build")
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"variants: slides/{QUALITY}/pulse.variants.html" in result.stdout
    return tiny


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    with xvfb() as number:
        yield number


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
            mine = np.abs(shot - last_frame(video, size))[label_rows].mean()
            other = np.abs(shot - last_frame(default, size))[label_rows].mean()
            assert mine < 2.0 and other > 2 * mine, (mine, other)  # the variant's frame, not the default's
            # Its captions are its own words, in every language (C: English, then German, which this tiny part
            # does not write: its English shows), not the default's timed cues.
            box = "document.getElementById('seqanim-captions')"
            for language in ("en", "de"):
                page.keyboard.press("c")
                page.wait_for_function(f"{box}.lang === '{language}' && {box}.textContent !== ''")
                assert page.evaluate(f"{box}.textContent").startswith("Its height is 2.00"), language
            page.keyboard.press("c")

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


def test_the_qt_presenter_opens_a_variant_at_the_same_slide(tiny: Tiny, display: str, tmp_path: Path) -> None:
    """manim-slides' presenter takes no keys of ours, so `--variant` is how it switches: `seqanim present pulse
    --variant pulse.height=2.0 --start-at 3` shows the variant's picture of the scene's second slide, which
    differs from the default's."""
    start = 3  # deck slide 3: the scene's second slide (the title card is slide 1)
    variant = tiny.root / ".seqanim" / "variants" / "pulse.height=2.0" / "slides"
    slides = json.loads((variant / QUALITY / "PulseScene.json").read_text())
    size = tuple(slides["resolution"])
    default = json.loads((tiny.slides() / "PulseScene.json").read_text())["slides"][start - 2]["file"]
    mine = last_frame(variant / slides["slides"][start - 2]["file"], size)
    assert difference(mine, last_frame(tiny.root / "slides" / default, size)) > DIFFERENT, "the test could not tell"
    log = tmp_path / "present.log"
    process = presenter(
        tiny.root, tiny.env(), DECK, QUALITY, "--start-at", str(start), "--variant", "pulse.height=2.0",
        env=x_env(display), log=log,
    )  # fmt: skip
    try:
        window = find_window(display, process, log)
        apart, _ = wait_for_slide(display, window, mine, 40, tmp_path / "variant.png")
        assert apart <= SAME, f"the window does not show the variant's slide ({apart:.2%}); see {tmp_path}"
        x(display, "xdotool", "windowfocus", "--sync", window)
        x(display, "xdotool", "key", "q")
        assert process.wait(timeout=30) == 0, log.read_text()[-2000:]
    finally:
        stop_group(process)


def test_the_default_deck_stays_the_default(tiny: Tiny) -> None:
    html = (tiny.slides() / f"{DECK}.html").read_text()
    assert "seqanim-variant" not in html and "_variants/" not in html
    assert (tiny.slides() / f"{DECK}_variants" / "pulse.height=5.0").is_dir()


def test_a_value_added_plans_only_its_own_stages(tiny: Tiny) -> None:
    """The values are stages of the lecture's own build: a third value adds its experiment and its scene, and
    nothing else would run."""
    before = tiny.run("build", "--dry-run")
    assert before.returncode == 0, before.stderr
    planned = int(before.stdout.splitlines()[-1].split()[2])
    assert before.stdout.splitlines()[-1] == f"0 of {planned} stages would run"
    result = tiny.run("build", "--dry-run", "--set", "variants.pulse.height=[2.0, 5.0, 7.5]")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    added = [line.split()[2] for line in lines if line.startswith("would run")]
    assert added == ["experiment:pulse@pulse.height=7.5", f"scene:{QUALITY}:PulseScene@pulse.height=7.5"]
    assert lines[-1] == f"2 of {planned + 2} stages would run"


def test_a_value_removed_comes_back_from_the_cache(tiny: Tiny) -> None:
    fewer = tiny.run("build", "--set", "variants.pulse.height=[2.0]")
    assert fewer.returncode == 0, fewer.stderr
    assert not (tiny.root / ".seqanim" / "variants" / "pulse.height=5.0").exists()
    again = tiny.run("build")
    assert again.returncode == 0, again.stderr
    assert "ran 0, restored 2 from cache" in again.stderr
    assert (tiny.root / ".seqanim" / "variants" / "pulse.height=5.0" / "slides" / QUALITY / "PulseScene.json").exists()


def test_a_value_made_the_lecture_own_comes_back_from_the_cache(tiny: Tiny) -> None:
    """The lecture at height 2.0, with its old 0.5 as a value: the experiment and the scene of each come back
    from the cache (a value's stages are keyed as the lecture's with its parameters); only the narrated cut and
    the decks, which no value has, run."""
    result = tiny.run("build", "--set", "pulse.height=2.0", "--set", "variants.pulse.height=[0.5, 5.0]")
    assert result.returncode == 0, result.stderr
    ran = [line.split()[1:3] for line in result.stdout.splitlines() if line.startswith("  done ")]
    assert sorted(kind for kind, _ in ran) == ["deck", "deck", "narration"], ran
    assert "ran 3, restored 4 from cache" in result.stderr


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
