"""The built lecture's real outputs, opened with real tools: the sample deck (two scenes of two parts: a title
card and two part dividers, as `full` has) in Chromium with its cards, its PDF handout page by page against
each slide's last frame, every movie of its PowerPoint against its slide's video, the joined video's
chapters, and its scenes' videos' size, length and opening from ffprobe and ffmpeg.

Expected values come from the registry, lecture.toml, the parameters in force and manim's quality table,
never from today's numbers. Everything here only reads what the session built (tests/conftest.py: the sample
deck is the one deck, and its scenes the only scenes, rendered at preview; tests/test_decks.py checks the
`full` deck's plan).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import struct
import subprocess
import zlib
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest
from PIL import Image

from seqanim import decks
from seqanim.decks.plan import deck_parts, deck_scenes
from seqanim.lecture import registry
from seqanim.lecture.config import load
from seqanim.workspace import current
from tests.conftest import QUALITY, SAMPLE, SAMPLE_SCENES, frame_settings
from tests.test_decks import CHROMIUM, CHROMIUM_ARGS

# A still compared with the frame it was made from: mean absolute difference per channel, of 255. The
# handout embeds the frame losslessly, so this only absorbs a colour conversion.
STILL_TOLERANCE = 2.0


class Slide(NamedTuple):
    kind: str  # title | divider | scene
    owner: str  # the card id or the scene name
    notes: str
    video: Path


def _slides(config: Path) -> list[dict[str, Any]]:
    return json.loads(config.read_text())["slides"]


def _video(file: str) -> Path:
    """A slide's `file`: card files are relative to slides/<q>/, scene files to slides/."""
    folder = current().slides(QUALITY)
    return folder / file if (folder / file).is_file() else folder.parent / file


@pytest.fixture(scope="module")
def sample_deck(lecture_built: Path) -> list[Slide]:
    """Every slide of the sample deck, in order: its title card, then per part a divider and the part's scenes."""
    lecture = load()
    outputs = decks.deck_outputs(lecture, SAMPLE, QUALITY)
    cards = [(key.removeprefix("card:"), path) for key, path in outputs.items() if key.startswith("card:")]
    parts = deck_parts(lecture, SAMPLE)
    assert len(parts) == 2 and len(cards) == 1 + len(parts)
    order: list[tuple[str, str, Path]] = [("title", *cards[0])]
    for (_, scenes), divider in zip(parts, cards[1:]):
        order.append(("divider", *divider))
        order += [("scene", scene, current().slides(QUALITY) / f"{scene}.json") for scene in scenes]
    return [
        Slide(kind, owner, slide["notes"], _video(slide["file"]))
        for kind, owner, config in order
        for slide in _slides(config)
    ]


def _last_frame(video: Path) -> np.ndarray:
    """The video's last decoded frame (decoding from a keyframe a second before the end)."""
    import av

    with av.open(str(video)) as container:
        if container.duration and container.duration > 2_000_000:
            container.seek(container.duration - 1_000_000, backward=True)
        frame = None
        for frame in container.decode(video=0):
            pass
    assert frame is not None, f"{video} has no frames"
    return frame.to_ndarray(format="rgb24")


def _probe(path: Path, *entries: str) -> dict[str, Any]:
    command = ["ffprobe", "-v", "error", "-of", "json", *entries, str(path)]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def test_sample_deck_opens_in_chromium_with_its_title_and_dividers(sample_deck: list[Slide]) -> None:
    from playwright.sync_api import sync_playwright

    html = current().slides(QUALITY) / f"{SAMPLE}.html"
    left: list[str] = []
    parts = deck_parts(load(), SAMPLE)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
            page.on("request", lambda r: None if r.url.startswith(("file:", "data:", "blob:")) else left.append(r.url))
            page.goto(html.as_uri())
            page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=20_000)
            assert page.evaluate("Reveal.getTotalSlides()") == len(sample_deck)
            sources = page.evaluate(
                "[...document.querySelectorAll('.slides > section')].map(s => s.dataset.backgroundVideo)"
            )
            notes = page.evaluate(
                "[...document.querySelectorAll('.slides > section aside.notes')].map(a => a.textContent)"
            )
            # Every slide plays its own video: the asset is a copy (or link) of the slide's file.
            for source, slide in zip(sources, sample_deck):
                asset = html.parent / source
                assert asset.name.endswith("_" + slide.video.name), (source, slide)
                assert asset.read_bytes() == slide.video.read_bytes(), source
            # A scene slide's notes end with its captions' marker (seqanim.decks.html.add_captions); the rest is
            # the slide's own notes.
            spoken = [re.sub(r"\s*\[Captions: [^\]]* · narrated \d+ s\]$", "", " ".join(n.split())) for n in notes]
            assert spoken == [" ".join(s.notes.split()) for s in sample_deck]
            cards = [index for index, slide in enumerate(sample_deck) if slide.kind != "scene"]
            assert [sample_deck[i].kind for i in cards] == ["title"] + ["divider"] * len(parts)
            for number, index in enumerate(cards):
                page.evaluate(f"Reveal.slide({index})")
                page.wait_for_function(
                    "() => { const v = Reveal.getCurrentSlide().slideBackgroundContentElement.querySelector('video');"
                    " return v !== null && v.readyState >= 2; }",
                    timeout=15_000,
                )
                width = page.evaluate(
                    "Reveal.getCurrentSlide().slideBackgroundContentElement.querySelector('video').videoWidth"
                )
                assert width == _last_frame(sample_deck[index].video).shape[1]
                if number:  # a divider: "Part k of n: <the part's title>"
                    part = registry.parts()[parts[number - 1][0]]
                    assert notes[index].startswith(f"Part {number} of {len(parts)}: {part.title}."), notes[index]
        finally:
            browser.close()
    assert left == [], f"requests left the machine: {left}"


# `a b c d e f cm /Name Do`: the image a page draws, and the matrix it draws it with.
_DRAWN = re.compile(rb"(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+cm\s+/(\w+)\s+Do")


def _image(xobject: Any) -> np.ndarray:
    """A PDF image XObject as RGB pixels. matplotlib stores a PNG's compressed rows (FlateDecode with PNG
    predictors): wrapped back into a PNG, Pillow decodes them in C (pypdf takes a second per image)."""
    params = xobject.get("/DecodeParms", {})
    if xobject.get("/Filter") == "/FlateDecode" and params.get("/Predictor", 1) >= 10 and params.get("/Colors") == 3:

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        header = struct.pack(">IIBBBBB", xobject["/Width"], xobject["/Height"], 8, 2, 0, 0, 0)
        png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", xobject._data) + chunk(b"IEND", b"")
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    return np.asarray(xobject.decode_as_image().convert("RGB"))


def test_pdf_handout_has_one_page_per_slide_with_its_still(sample_deck: list[Slide]) -> None:
    from pypdf import PdfReader

    pages = PdfReader(str(current().slides(QUALITY) / f"{SAMPLE}.pdf")).pages
    assert len(pages) == len(sample_deck)
    differences = []
    for number, (page, slide) in enumerate(zip(pages, sample_deck), start=1):
        # The images the page draws (its resources may list every page's: matplotlib shares them).
        drawn = _DRAWN.findall(page.get_contents().get_data())
        assert len(drawn) == 1, f"page {number} draws {len(drawn)} images"
        *matrix, name = drawn[0]
        still = _image(page["/Resources"]["/XObject"]["/" + name.decode()].get_object())
        # As the page shows it: a negative scale in the matrix mirrors the stored rows (or columns).
        still = still[::-1] if float(matrix[3]) < 0 else still
        still = still[:, ::-1] if float(matrix[0]) < 0 else still
        frame = _last_frame(slide.video)
        assert still.shape == frame.shape, f"page {number}: still {still.shape}, frame {frame.shape}"
        differences.append(float(np.abs(still.astype(np.int16) - frame.astype(np.int16)).mean()))
    worst = int(np.argmax(differences))
    assert differences[worst] <= STILL_TOLERANCE, f"page {worst + 1} ({sample_deck[worst].owner}): {differences[worst]}"


def test_every_pptx_movie_is_its_slides_video(sample_deck: list[Slide]) -> None:
    from pptx import Presentation

    slides = list(Presentation(str(current().slides(QUALITY) / f"{SAMPLE}.pptx")).slides)
    assert len(slides) == len(sample_deck)
    for number, (slide, expected) in enumerate(zip(slides, sample_deck), start=1):
        movies = [rel.target_part.blob for rel in slide.part.rels.values() if rel.reltype.endswith("/video")]
        assert len(movies) == 1, f"slide {number}: {len(movies)} movies"
        digest = hashlib.sha256(movies[0]).hexdigest()
        assert digest == hashlib.sha256(expected.video.read_bytes()).hexdigest(), f"slide {number}: {expected.owner}"
        assert slide.notes_slide.notes_text_frame.text == expected.notes


def test_sample_video_has_a_chapter_per_scene_of_the_deck(lecture_built: Path) -> None:
    scenes = deck_scenes(load(), SAMPLE)
    assert scenes == list(SAMPLE_SCENES)  # lecture.toml's [decks.sample], in its order
    probe = _probe(current().renders(QUALITY) / f"{SAMPLE}.mp4", "-show_chapters", "-show_format")
    chapters = probe["chapters"]
    assert len(chapters) == len(SAMPLE_SCENES)
    assert [chapter["tags"]["title"] for chapter in chapters] == scenes
    start = 0.0
    for chapter, scene in zip(chapters, scenes):
        # The published video is the narrated cut: a chapter lasts as long as its scene's narrated cut.
        duration = json.loads((current().renders(QUALITY) / f"{scene}.narration.json").read_text())["duration"]
        assert float(chapter["start_time"]) == pytest.approx(start, abs=0.01), scene
        assert float(chapter["end_time"]) - float(chapter["start_time"]) == pytest.approx(duration, abs=0.01), scene
        start += duration
    assert float(probe["format"]["duration"]) == pytest.approx(start, abs=0.2)


# The scenes the suite draws; every scene's code, words and layout run at the check quality (tests/test_check.py).
@pytest.mark.parametrize("scene", SAMPLE_SCENES)
def test_scene_video_has_the_quality_size_and_the_reported_length(lecture_built: Path, scene: str) -> None:
    quality = frame_settings()
    video = current().renders(QUALITY) / f"{scene}.mp4"
    stream = _probe(video, "-select_streams", "v:0", "-count_packets", "-show_streams")["streams"][0]
    assert (stream["width"], stream["height"]) == (quality["pixel_width"], quality["pixel_height"])
    fps = Fraction(stream["r_frame_rate"])
    assert fps == quality["frame_rate"]
    report = json.loads((current().renders(QUALITY) / f"{scene}.report.json").read_text())
    assert report["resolution"] == [stream["width"], stream["height"]]
    frames = int(stream["nb_read_packets"])
    assert frames / fps == pytest.approx(report["duration"], abs=1.5 / float(fps))  # counted packets, not the header
    # Each slide file is a piece of the scene: together they last as long as the video.
    pieces = [_video(slide["file"]) for slide in _slides(current().slides(QUALITY) / f"{scene}.json")]
    total = sum(float(_probe(piece, "-show_format")["format"]["duration"]) for piece in pieces)
    assert total == pytest.approx(report["duration"], abs=0.1 * len(pieces))


def _opening_frames(video: Path, size: tuple[int, int], seconds: float = 1.5) -> np.ndarray:
    """The first `seconds` of a video as frames (N x height x width x 3), decoded by ffmpeg."""
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(video), "-t", str(seconds), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
        check=True,
        capture_output=True,
    ).stdout
    width, height = size
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, height, width, 3)


@pytest.mark.parametrize("scene", SAMPLE_SCENES)  # the scenes the suite draws
def test_no_scene_opens_on_its_title_alone(lecture_built: Path, scene: str) -> None:
    """From the first frame with the title to the first with anything below it: at most half a second."""
    from seqanim.kit import theme

    report = json.loads((current().renders(QUALITY) / f"{scene}.report.json").read_text())
    fps = float(report["fps"])
    frames = _opening_frames(current().renders(QUALITY) / f"{scene}.mp4", tuple(report["resolution"]))
    background = np.array(theme.background().to_rgb()) * 255
    ink = np.abs(frames.astype(float) - background).max(axis=3) > 40  # pixels clearly off the background
    scale = frames.shape[1] / 480  # sizes measured at 480p, scaled to the render's height
    band = round(70 * scale)  # the title's rows (70 at 480p: it stands at the top edge, 40-unit type)
    least = 50 * scale**2  # 50 pixels of ink at 480p (four of the key plane's dots), an area: 12.5 at 240p
    title = [i for i in range(len(ink)) if ink[i, :band].sum() > least]
    below = [i for i in range(len(ink)) if ink[i, band:].sum() > least]
    assert title, f"{scene}: no title in the first {len(ink) / fps:.1f} s"
    assert below and (below[0] - title[0]) / fps <= 0.5, f"{scene}: the title stands alone for more than 0.5 s"
