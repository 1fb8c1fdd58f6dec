"""Decks against the real tools: Chromium plays the HTML deck offline, the Qt presenter runs offscreen,
python-pptx and pypdf read the PowerPoint and the handout back, ffprobe reads the joined video.

A small deck keeps this fast: `test-mini` = the title card + EchoOfAPulse, one of the sample scenes the suite
renders and narrates at preview (tests/conftest.py; no other scene has slides at preview). Every deck here is
exported in an isolated copy of the built lecture (tests/tree.py), by the copy's own seqanim in a child
process: the real slides/ and renders/ are never written, so an interrupted run leaves nothing behind there
and a concurrent build never meets a test deck. A deck of two parts is the suite's own sample deck: its cards
are read as the session exported them, and rendered again in the copy. The `full` and part decks are checked
as plans (which scenes, which parts, which cards), without a build.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from seqanim import decks
from seqanim.decks.html import _local_refs
from seqanim.decks.plan import deck_parts, deck_scenes
from seqanim.lecture import registry
from seqanim.lecture.config import Deck, Decks, Lecture, load
from seqanim.workspace import current
from tests.conftest import QUALITY, SAMPLE, SAMPLE_SCENES
from tests.tree import Tree, make_tree

SCENE = SAMPLE_SCENES[0]  # EchoOfAPulse: six slides, one of them a loop, notes with h_t in them
MINI = "test-mini"
RATE = 2.0  # the mini deck's [decks] playback_rate: the pace the lecturer presents at, twice the narration's
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# What a child process in the copy runs before its body (see `_call`).
CHILD_PRELUDE = """\
import json, sys
from pathlib import Path
from seqanim import decks
from seqanim.lecture.config import Lecture
from seqanim.errors import SeqanimError
from seqanim.present.qt import present, present_command
lecture = Lecture.model_validate_json(Path(sys.argv[1]).read_text())
"""


class Export(NamedTuple):
    """A deck exported in the copy: where, with which parameters, what `export_deck` returned, and its handout
    as exported first with `[decks] handout_notes = false`."""

    tree: Tree
    lecture: Lecture
    written: dict[str, Path]
    quiet_pdf: Path


def _report(tree: Tree, scene: str) -> dict[str, Any]:
    return json.loads((tree.root / "renders" / QUALITY / f"{scene}.report.json").read_text())


def _call(tree: Tree, lecture: Lecture, body: str, *, timeout: float = 600, env: dict[str, str] | None = None) -> Any:
    """Run `body` in a child process in the copy (cwd and PYTHONPATH are the copy's first, then this checkout's
    engine, so its ROOT, and every path it writes, lie in the copy), with `lecture` bound; return what `body` assigns to
    `result`, passed back as JSON (paths as strings); None when `body` exits first (`sys.exit(...)`, which
    must exit 0)."""
    with tempfile.TemporaryDirectory(prefix="seqanim-decks-") as tmp:
        config, answer = Path(tmp) / "lecture.json", Path(tmp) / "result.json"
        config.write_text(lecture.model_dump_json())
        code = f"{CHILD_PRELUDE}{body}\nPath(sys.argv[2]).write_text(json.dumps(result, default=str))\n"
        # Its own process group, so a hung child (the Qt presenter and its manim-slides child) is stopped as a whole.
        process = subprocess.Popen(
            [sys.executable, "-c", code, str(config), str(answer)],
            cwd=tree.root,
            env={**tree.env(), **(env or {})},  # the copy's scenes, this checkout's engine
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            _, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail(f"the child process did not exit within {timeout:.0f} s: {body}")
        assert process.returncode == 0, stderr[-2000:]
        return json.loads(answer.read_text()) if answer.exists() else None


def _export(tree: Tree, lecture: Lecture, deck: str, formats: tuple[str, ...] = decks.FORMATS) -> dict[str, Path]:
    """`decks.export_deck(lecture, deck, QUALITY, formats=formats)`, run in the copy."""
    written = _call(tree, lecture, f"result = decks.export_deck(lecture, {deck!r}, {QUALITY!r}, formats={formats!r})")
    return {name: Path(path) for name, path in written.items()}


@pytest.fixture(scope="module")
def deck_tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """The copy every deck of this module is exported in. Its slides/ and renders/ are folders of its own
    (only the files in them are hard links, and exports replace files by rename, never in place), so what
    an export writes there never appears in the real tree."""
    tree = make_tree(tmp_path_factory.mktemp("decks") / "lecture")
    for folder in ("slides", "renders"):
        assert not (tree.root / folder / QUALITY).samefile(current().root / folder / QUALITY)
    return tree


@pytest.fixture(scope="module")
def mini(deck_tree: Tree) -> Export:
    """The small deck, exported in every format (with the standalone HTML) in the copy, played at RATE. One child
    process exports it twice (manim and the exporters imported once): first its handout without notes, which
    it keeps aside, then everything."""
    base = load(deck_tree.root / "lecture.toml")
    lecture = base.model_copy(
        update={
            "decks": Decks(
                one_file=True,
                handout_notes=True,
                playback_rate=RATE,
                items={MINI: Deck(title="Mini lecture", scenes=[SCENE])},
            )
        }
    )
    quiet = deck_tree.root.parent / "quiet-handout.pdf"
    body = f"""\
quiet = lecture.model_copy(update={{"decks": lecture.decks.model_copy(update={{"handout_notes": False}})}})
decks.export_deck(quiet, {MINI!r}, {QUALITY!r}, formats=("pdf",))["pdf"].rename({str(quiet)!r})
result = decks.export_deck(lecture, {MINI!r}, {QUALITY!r})"""
    written = {name: Path(path) for name, path in _call(deck_tree, lecture, body).items()}
    return Export(deck_tree, lecture, written, quiet)


def _browse(url: str, *, allowed: tuple[str, ...]) -> tuple[list[dict[str, Any]], list[str], list[str], Any]:
    """Open `url` in headless Chromium with every other request aborted; step through every slide with
    reveal.js's API; return per-slide video states, the notes, the requests that were not allowed, and the
    speaker view's text."""
    from playwright.sync_api import sync_playwright

    left: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 720})

            def route(request_route: Any) -> None:
                if request_route.request.url.startswith(allowed):
                    request_route.continue_()
                else:
                    left.append(request_route.request.url)
                    request_route.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.on(
                "request",
                lambda request: (
                    None if request.url.startswith((*allowed, "data:", "blob:", "about:")) else left.append(request.url)
                ),
            )
            page.goto(url)
            page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=20_000)
            total = page.evaluate("Reveal.getTotalSlides()")
            states = []
            for index in range(total):
                # The state is read when the video first has a frame to show: read again later, a looping slide
                # seeking back to its start can be caught at readyState 1 (found on a CI run).
                loaded = page.wait_for_function(
                    "() => { const v = Reveal.getCurrentSlide().slideBackgroundContentElement.querySelector('video');"
                    " return v !== null && v.readyState >= 2 && {slide: Reveal.getIndices().h,"
                    " readyState: v.readyState, width: v.videoWidth, muted: v.muted}; }",
                    timeout=15_000,
                )
                states.append(loaded.json_value())
                if index < total - 1:
                    page.evaluate("Reveal.next()")
            notes = page.evaluate("[...document.querySelectorAll('.slides aside.notes')].map(a => a.textContent)")
            # The speaker view: S opens it; it must show the current slide's notes.
            page.evaluate("Reveal.slide(1)")
            with context.expect_page(timeout=15_000) as popup:
                page.keyboard.press("s")
            speaker = popup.value
            speaker.wait_for_function("document.body && document.body.innerText.includes('NOTES')", timeout=15_000)
            speaker.wait_for_timeout(500)
            speaker_text = speaker.evaluate("document.body.innerText")
        finally:
            browser.close()
    return states, notes, left, speaker_text


def _normalise(text: str) -> str:
    return " ".join(text.split())


def test_html_deck_plays_offline_with_notes(mini: Export) -> None:
    html = mini.written["html"]
    assert html == mini.tree.root / "slides" / QUALITY / f"{MINI}.html"
    states, notes, left, speaker_text = _browse(html.as_uri(), allowed=("file:",))
    report = _report(mini.tree, SCENE)
    assert len(states) == 1 + report["slides"]  # title card + the scene's slides
    assert [s["slide"] for s in states] == list(range(len(states)))
    assert all(s["readyState"] >= 2 and s["width"] == report["resolution"][0] for s in states), states
    assert left == [], f"requests left the machine: {left}"
    assert len(notes) == len(states)
    # Escaped plain text, not markdown (h_t keeps its underscore), then what the captions say and how long the
    # slide lasts narrated (the speaker view shows both).
    timing = json.loads((mini.tree.root / "renders" / QUALITY / f"{SCENE}.narration.json").read_text())
    said = [  # the narration for the listener, or "the notes above" on a slide that says its notes
        "the notes above" if " ".join(note.split()) == slide["narration"] else slide["narration"]
        for note, slide in zip(report["notes"], timing["slides"])
    ]
    assert said != ["the notes above"] * len(said)  # the lecture's slides speak for the listener
    assert notes[1:] == [
        f"{note}\n\n[Captions: {words} · narrated {max(1, round(slide['end'] - slide['start']))} s]"
        for note, words, slide in zip(report["notes"], said, timing["slides"])
    ]
    assert notes[0].startswith(f"Mini lecture: 1 scene, {report['slides']} slides")
    assert _normalise(report["notes"][0]) in _normalise(speaker_text)


def test_html_deck_plays_the_slides_at_the_playback_rate(mini: Export) -> None:
    """The slides are rendered at the pace of their narration; `[decks] playback_rate` is the pace the
    lecturer presents them at. In Chromium, at 2 (the mini deck's) a slide's video plays twice as fast as the
    page's clock. (The suite's sample deck plays at the default, 1: tests/test_publish.py follows its captions
    against its videos' time.)"""
    from playwright.sync_api import sync_playwright

    html = mini.written["html"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(html.as_uri())
            page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=20_000)
            page.evaluate("Reveal.slide(1)")  # the scene's first slide (0 is the title card)
            video = "Reveal.getCurrentSlide().slideBackgroundContentElement.querySelector('video')"
            page.wait_for_function(f"() => {{ const v = {video}; return v && v.readyState >= 3 && !v.paused; }}",
                                   timeout=15_000)  # fmt: skip
            rate, pace = page.evaluate(
                f"""async () => {{
                    const v = {video}; const t0 = v.currentTime, w0 = performance.now();
                    await new Promise(done => setTimeout(done, 600));
                    return [v.playbackRate, (v.currentTime - t0) / ((performance.now() - w0) / 1000)];
                }}"""
            )
        finally:
            browser.close()
    assert rate == RATE
    assert 1.5 < pace < 2.5, pace  # the video's clock against the page's: twice as fast


def test_html_deck_carries_revealjs_and_no_url(mini: Export) -> None:
    text = mini.written["html"].read_text()
    assets = mini.written["html"].parent / f"{MINI}_assets"
    version = json.loads((mini.tree.root / "node_modules" / "reveal.js" / "package.json").read_text())["version"]
    assert version.startswith("6.0.")
    for needed in ("reveal.js/dist/reveal.js", "reveal.js/dist/reveal.css", "reveal.js/dist/plugin/notes.js"):
        assert (assets / needed).is_file()
        assert f"{MINI}_assets/{needed}" in text
    fetched = [ref for ref in _local_refs(text) if ref.startswith(("http:", "https:", "//"))]
    assert fetched == []
    assert "cdn.jsdelivr" not in text and "unpkg" not in text


def test_standalone_html_is_one_file(mini: Export, tmp_path: Path) -> None:
    alone = tmp_path / "deck.html"
    shutil.copyfile(mini.written["standalone"], alone)  # nothing next to it: everything must be inside
    states, notes, left, _ = _browse(alone.as_uri(), allowed=(alone.as_uri(),))
    report = _report(mini.tree, SCENE)
    assert len(states) == 1 + report["slides"]
    assert all(s["readyState"] >= 2 for s in states), states
    assert left == [], f"the standalone deck fetched: {left}"
    assert [note.split("\n\n[Captions")[0] for note in notes[1:]] == report["notes"]


def test_pptx_has_one_movie_per_slide(mini: Export) -> None:
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    report = _report(mini.tree, SCENE)
    presentation = Presentation(str(mini.written["pptx"]))
    slides = list(presentation.slides)
    assert len(slides) == 1 + report["slides"]
    for slide in slides:
        movies = [shape for shape in slide.shapes if shape.shape_type == MSO_SHAPE_TYPE.MEDIA]
        assert len(movies) == 1
        assert any(rel.reltype.endswith("/video") for rel in slide.part.rels.values())
    assert [slide.notes_slide.notes_text_frame.text for slide in slides[1:]] == report["notes"]
    assert presentation.slide_width == report["resolution"][0] * 9525


def test_pdf_handout_one_page_per_slide_with_notes(mini: Export) -> None:
    from pypdf import PdfReader

    report = _report(mini.tree, SCENE)
    pages = PdfReader(str(mini.written["pdf"])).pages
    assert len(pages) == 1 + report["slides"]
    for number, note in enumerate(report["notes"], start=2):
        text = _normalise(pages[number - 1].extract_text())
        assert f"{number} / {len(pages)}" in text
        assert _normalise(note) in text, (note, text)


def test_pdf_handout_without_notes(mini: Export) -> None:
    from pypdf import PdfReader

    text = _normalise(PdfReader(str(mini.quiet_pdf)).pages[1].extract_text())
    assert _report(mini.tree, SCENE)["notes"][0][:30] not in text
    assert "Echo of a pulse" in text


def test_joined_video_has_a_chapter_per_scene(mini: Export) -> None:
    """The mini deck's video: one chapter, its scene's narrated cut. (A video of two chapters, the second
    starting where the first ends, is the sample deck's: tests/test_outputs.py and tests/test_publish.py.)"""
    written = mini.written
    # The published video is the narrated cut: each chapter lasts as long as the scene's narrated cut.
    narration = mini.tree.root / "renders" / QUALITY / f"{SCENE}.narration.json"
    duration = json.loads(narration.read_text())["duration"]
    # The scene is rendered at the pace of its narration: its narrated cut plays its video as it is.
    assert duration == pytest.approx(_report(mini.tree, SCENE)["duration"], abs=0.2)
    probe = json.loads(
        subprocess.run(
            ["ffprobe", "-v", "error", "-show_chapters", "-show_format", "-of", "json", str(written["video"])],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    chapters = probe["chapters"]
    assert [c["tags"]["title"] for c in chapters] == [SCENE]
    assert float(chapters[0]["start_time"]) == pytest.approx(0, abs=0.1)
    assert float(chapters[0]["end_time"]) == pytest.approx(duration, abs=0.1)
    assert float(probe["format"]["duration"]) == pytest.approx(duration, abs=0.2)
    assert written["thumbnail"].is_file()


def test_every_listed_output_exists_and_no_temp_file_is_left(mini: Export) -> None:
    root, written = mini.tree.root, mini.written
    outputs = decks.deck_outputs(mini.lecture, MINI, QUALITY)
    # deck_outputs names paths in the real tree (this process's ROOT); the export wrote them under the copy's.
    outputs = {name: root / path.relative_to(current().root) for name, path in outputs.items()}
    assert set(written) <= set(outputs)
    assert all(written[name] == outputs[name] for name in written)
    for name, path in outputs.items():
        assert path.exists(), name
    for folder in (root / "slides" / QUALITY, root / "renders" / QUALITY, root / "slides" / QUALITY / "cards"):
        leftovers = [
            p.name
            for p in folder.iterdir()
            if p.name.startswith(".") and (".tmp" in p.name or ".stage-" in p.name or ".old-" in p.name)
        ]
        assert leftovers == []
    # Published files are readable by others (temporary files start as 0600).
    assert all(os.stat(written[k]).st_mode & 0o044 == 0o044 for k in ("html", "pdf", "pptx", "video", "standalone"))


def test_qt_presenter_runs_offscreen(mini: Export) -> None:
    body = (
        f"sys.exit(present(lecture, {MINI!r}, {QUALITY!r}, fullscreen=False, screen=None, start_at=None, "
        "extra=['--skip-all', '--exit-after-last-slide', '--playback-rate', '16']))"  # 16x: a minute in seconds
    )
    _call(mini.tree, mini.lecture, body, timeout=120, env={"QT_QPA_PLATFORM": "offscreen"})


def test_presenter_command_line(mini: Export) -> None:
    # In the copy: present_command renders the deck's cards when they are missing.
    beyond = 1 + _report(mini.tree, SCENE)["slides"] + 1
    body = f"""\
command = present_command(lecture, {MINI!r}, {QUALITY!r}, fullscreen=True, screen=1, start_at=3)
try:
    present_command(lecture, {MINI!r}, {QUALITY!r}, fullscreen=False, screen=None, start_at={beyond})
    outside = None
except SeqanimError as error:
    outside = str(error)
result = {{"command": command, "outside": outside}}"""
    result = _call(mini.tree, mini.lecture, body)
    command, outside = result["command"], result["outside"]
    assert command[command.index("--folder") + 1] == str(mini.tree.root / "slides" / QUALITY)
    assert "--full-screen" in command and command[command.index("--screen") + 1] == "1"
    assert command[command.index("--start-at") + 1] == "1,1"  # slide 3 = the scene's second slide
    assert command[-2:] == [f"cards/{MINI}-title", SCENE]
    assert outside is not None, "a start slide beyond the deck must raise SeqanimError"
    assert re.search("outside", outside), outside


def test_rnn_deck_references_only_existing_scenes() -> None:
    lecture = load()
    known = registry.scenes()
    missing = [scene for scene in deck_scenes(lecture, "rnn") if scene not in known]
    assert missing == [], f"the rnn deck names scenes that scenes/ does not define: {missing}"


def test_full_deck_gets_a_divider_per_part() -> None:
    lecture = load()
    groups = deck_parts(lecture, "full")
    assert [part for part, _ in groups] == list(registry.parts())  # the parts, in their declared order
    assert [scene for _, group in groups for scene in group] == deck_scenes(lecture, "full")
    assert sorted(deck_scenes(lecture, "full")) == sorted(registry.scenes())  # every scene, once
    assert deck_parts(lecture, "rnn") == [(None, deck_scenes(lecture, "rnn"))]
    card_ids = [key for key in decks.deck_outputs(lecture, "full", QUALITY) if key.startswith("card:")]
    assert card_ids == ["card:full-title"] + [
        f"card:full-part-{k}-{part}" for k, (part, _) in enumerate(groups, start=1)
    ]


def test_divider_cards_are_real_slides(lecture_built: Path) -> None:
    """A deck spanning two parts: title card, then a divider before each part, each with notes. The sample deck
    is one (its scenes from the rnn and why-attention parts): its PowerPoint as the session exported it."""
    from pptx import Presentation

    lecture = load()
    first, second = deck_scenes(lecture, SAMPLE)
    part_a, part_b = (registry.parts()[registry.scene(scene).part].title for scene in (first, second))
    assert part_a != part_b
    path = current().slides(QUALITY) / f"{SAMPLE}.pptx"
    notes = [slide.notes_slide.notes_text_frame.text for slide in Presentation(str(path)).slides]
    a, b = (json.loads((current().renders(QUALITY) / f"{s}.report.json").read_text()) for s in (first, second))
    title = lecture.decks.items[SAMPLE].title
    assert len(notes) == 1 + 1 + a["slides"] + 1 + b["slides"]
    assert notes[0].startswith(f"{title}: 2 parts, 2 scenes, {a['slides'] + b['slides']} slides")
    assert notes[1].startswith(f"Part 1 of 2: {part_a}. 1 scene, {a['slides']} slides")
    assert notes[2 + a["slides"]].startswith(f"Part 2 of 2: {part_b}. 1 scene, {b['slides']} slides")
    assert notes[2 : 2 + a["slides"]] == a["notes"]


def test_a_card_rendered_again_alone_comes_back_the_same(deck_tree: Tree) -> None:
    """An export killed while it rendered cards renders only the unfinished ones next time, alone in their
    process: each must land under the name and bytes an uninterrupted export gave it (manim-slides names a
    video after manim's hashes, which depend on what the process rendered before). The uninterrupted export
    is the session's of the sample deck (the copy holds its cards); its last card is rendered again alone."""
    lecture = load(deck_tree.root / "lecture.toml")
    cards = deck_tree.root / "slides" / QUALITY / "cards"
    last = sorted(cards.glob(f"{SAMPLE}-part-*.json"))[-1]  # rendered third, after the title and part 1
    assert last.name == f"{SAMPLE}-part-2-{registry.scene(SAMPLE_SCENES[1]).part}.json"

    def files() -> dict[str, bytes]:
        return {
            slide["file"]: (cards.parent / slide["file"]).read_bytes()
            for slide in json.loads(last.read_text())["slides"]
        }

    before = files()
    last.unlink()
    _export(deck_tree, lecture, SAMPLE, ("pptx",))
    assert files() == before
