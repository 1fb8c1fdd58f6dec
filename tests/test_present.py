"""`seqanim present` on a real X server: Xvfb, no offscreen platform.

The presenter is started by the CLI in an isolated copy of the built lecture (tests/tree.py), on the suite's
sample deck, exported at preview already (the title card, the first part's divider, EchoOfAPulse, the second
part's divider, QueryKeyValue): it builds nothing. Its window is found and driven with real X tools: `xdotool`
finds it and sends the keys, `xwd` takes the screenshots, ffmpeg turns them (and the slide videos' last frames,
the expected pictures) into pixels. The preflight is run against a hidden library (a broken stub first on
LD_LIBRARY_PATH) and against a copy of the plugin that needs a library that is not there; stopping `seqanim
present` by a signal must stop the manim-slides child it started.

`make` installs every tool used here (xvfb, xauth, xdotool, x11-apps); nothing is skipped.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from seqanim.present.qt import PresenterUnavailable, preflight, qt_plugins
from tests.conftest import QUALITY, SAMPLE, SAMPLE_SCENES
from tests.tree import Tree, make_tree, stop_group
from tests.x11 import DIFFERENT, SAME, difference, find_window, last_frame, presenter, wait_for_slide, x, x_env, xvfb

DECK = SAMPLE
SCENE = SAMPLE_SCENES[0]  # the first part's scene: deck slides 1 and 2 are the title card and the part's divider
SCREENSHOTS = "screenshots"


@pytest.fixture(scope="module")
def tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """A copy of the built lecture, whose sample deck the suite exported (the presenter builds nothing)."""
    return make_tree(tmp_path_factory.mktemp("present") / "lecture")


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    with xvfb() as number:
        yield number


def _slide_videos(tree: Tree) -> list[Path]:
    """The scene's slide videos in order, as its manim-slides JSON names them (the files the presenter plays).
    Its last slide is not a loop: it ends on a frame the window holds."""
    folder = tree.root / "slides" / QUALITY
    slides = json.loads((folder / f"{SCENE}.json").read_text())["slides"]
    assert not slides[-1]["loop"]
    return [folder.parent / slide["file"] for slide in slides]


def _second_divider(tree: Tree) -> Path:
    """The video of the divider card that opens the deck's second part: the slide after the scene's last."""
    cards = list((tree.root / "slides" / QUALITY / "cards").glob(f"{DECK}-part-2-*.json"))
    assert len(cards) == 1, cards
    (slide,) = json.loads(cards[0].read_text())["slides"]
    return cards[0].parent.parent / slide["file"]  # manim-slides' paths: from the JSON's folder's parent


def _presenter(tree: Tree, env: dict[str, str], *args: str, log: Path) -> subprocess.Popen[bytes]:
    return presenter(tree.root, tree.env(), DECK, QUALITY, *args, env=env, log=log)


def test_presenter_plays_the_slide_in_a_real_window(tree: Tree, display: str, tmp_path: Path) -> None:
    """Started at the scene's last slide (the title card and the divider come first), the window holds that
    slide's last frame once it has played; Right moves on to the next part's divider card (short slides, both:
    the test waits for each to play to its end)."""
    videos = _slide_videos(tree)
    start = 2 + len(videos)
    env = x_env(display)
    log = tmp_path / "present.log"
    process = _presenter(tree, env, "--start-at", str(start), log=log)
    try:
        window = find_window(display, process, log)
        geometry = dict(
            line.split("=") for line in x(display, "xdotool", "getwindowgeometry", "--shell", window).split()
        )
        size = (int(geometry["WIDTH"]), int(geometry["HEIGHT"]))
        assert size == tuple(json.loads((tree.root / "slides" / QUALITY / f"{SCENE}.json").read_text())["resolution"])

        # The scene's last slide: once it has played, the window holds its last frame.
        this, following = last_frame(videos[-1], size), last_frame(_second_divider(tree), size)
        assert difference(this, following) > DIFFERENT, "the two slides look alike: the test could not tell them apart"
        apart, shot = wait_for_slide(display, window, this, 40, tmp_path / f"slide-{start}.png")
        assert apart <= SAME, (
            f"the window does not show slide {start} ({apart:.2%} of the pixels differ); see {tmp_path}"
        )
        assert difference(shot, following) > DIFFERENT

        # The next-slide key, sent through the X server (XTEST) to the focused window.
        x(display, "xdotool", "windowfocus", "--sync", window)
        x(display, "xdotool", "key", "Right")
        apart, shot = wait_for_slide(display, window, following, 40, tmp_path / f"slide-{start + 1}.png")
        assert apart <= SAME, (
            f"after Right the window does not show slide {start + 1} ({apart:.2%} of the pixels differ); see {tmp_path}"
        )
        assert difference(shot, this) > DIFFERENT

        # The presenter's own quit key: manim-slides closes, `seqanim present` exits 0.
        x(display, "xdotool", "key", "q")
        assert process.wait(timeout=30) == 0, log.read_text()[-2000:]
    finally:
        stop_group(process)
    snapshots = tree.root / ".seqanim" / "present"
    assert not snapshots.exists() or list(snapshots.iterdir()) == []  # the slide snapshot is removed


def test_preflight_names_a_library_hidden_by_a_broken_stub(tree: Tree, display: str, tmp_path: Path) -> None:
    """A broken libxcb-icccm.so.4 first on LD_LIBRARY_PATH: the X server is there, the plugin cannot load."""
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "libxcb-icccm.so.4").write_bytes(b"not a library\n")
    started = time.monotonic()
    result = tree.run(
        "present", DECK, "--quality", QUALITY, timeout=120, env={**x_env(display), "LD_LIBRARY_PATH": str(stub)}
    )
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr[-2000:]
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        "error: the Qt presenter cannot load its xcb platform plugin: libxcb-icccm.so.4 is unusable"
    )
    assert str(stub / "libxcb-icccm.so.4") in lines[0] and "LD_LIBRARY_PATH" in lines[0]
    assert "(Debian package libxcb-icccm4)" in lines[0] and "apt-get install libxcb-icccm4`" in lines[0]
    assert time.monotonic() - started < 60


def test_preflight_names_a_library_a_copy_of_the_plugin_misses(display: str, tmp_path: Path) -> None:
    """A copy of the xcb plugin whose libxcb-icccm.so.4 entry names a library that no system has: `ldd`
    reports it `not found`, and the message names it with the package Debian's naming rule gives."""
    plugins = qt_plugins()
    copy = tmp_path / "Qt" / "plugins"
    (copy / "platforms").mkdir(parents=True)
    (tmp_path / "Qt" / "lib").symlink_to(plugins.parent / "lib")  # the plugin's RUNPATH is $ORIGIN/../../lib
    data = (plugins / "platforms" / "libqxcb.so").read_bytes()
    needed, absent = b"libxcb-icccm.so.4\0", b"libxcb-sqnim.so.4\0"
    assert data.count(needed) == 1 and len(needed) == len(absent)
    (copy / "platforms" / "libqxcb.so").write_bytes(data.replace(needed, absent))
    with pytest.raises(PresenterUnavailable) as raised:
        preflight(DECK, QUALITY, env=x_env(display), plugins=copy)
    message = str(raised.value)
    assert "\n" not in message
    assert "libxcb-sqnim.so.4 is missing (Debian package libxcb-sqnim4)" in message, message
    assert "apt-get install libxcb-sqnim4`" in message
    assert preflight(DECK, QUALITY, env=x_env(display)) == "xcb"  # the real plugin loads on this display


def test_present_without_a_display_points_to_the_html_deck(tree: Tree) -> None:
    env = {
        key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    result = subprocess.run(
        [sys.executable, "-m", "seqanim.cli", "present", DECK, "--quality", QUALITY],
        check=False,
        cwd=tree.root,
        env={**env, "PYTHONPATH": str(tree.root)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("error: no display")
    assert f"seqanim present {DECK} --browser" in lines[0] and f"slides/{QUALITY}/{DECK}.html" in lines[0]


def test_present_browser_opens_the_offline_deck(tree: Tree, tmp_path: Path) -> None:
    """--browser needs no display and no Qt: it hands the HTML deck to the default browser ($BROWSER here)."""
    record = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" > {record}\n')
    browser.chmod(0o755)
    env = {
        key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    result = subprocess.run(
        [sys.executable, "-m", "seqanim.cli", "present", DECK, "--quality", QUALITY, "--browser"],
        check=False,
        cwd=tree.root,
        env={**env, "PYTHONPATH": str(tree.root), "BROWSER": f"{browser} %s"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    html = tree.root / "slides" / QUALITY / f"{DECK}.html"
    assert record.read_text().strip() == html.as_uri()
    assert html.is_file()


def _children(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
    return children


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL], ids=lambda s: signal.Signals(s).name
)
def test_stopping_present_stops_the_presenter(tree: Tree, tmp_path: Path, signum: int) -> None:
    """Offscreen (fast): whatever stops `seqanim present` stops the manim-slides child it started."""
    log = tmp_path / "present.log"
    process = _presenter(tree, {"QT_QPA_PLATFORM": "offscreen"}, log=log)
    try:
        deadline = time.monotonic() + 90
        child = None
        while child is None and time.monotonic() < deadline and process.poll() is None:
            for pid in _children(process.pid):
                try:
                    if b"manim_slides" in (Path("/proc") / str(pid) / "cmdline").read_bytes():
                        child = pid
                except OSError:
                    pass
            time.sleep(0.1)
        assert child is not None, f"the presenter did not start: {log.read_text()[-2000:]}"
        time.sleep(1)  # let it get into Qt's event loop, where a bare Python process would not see signals
        assert _alive(child)
        os.kill(process.pid, signum)  # only seqanim: not its process group
        code = process.wait(timeout=30)
        assert code == (
            -signal.SIGKILL if signum == signal.SIGKILL else 130 if signum == signal.SIGINT else 128 + signum
        )
        deadline = time.monotonic() + 15
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(child), f"the manim-slides presenter (pid {child}) outlived `seqanim present`"
    finally:
        stop_group(process)
