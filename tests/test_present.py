"""`seqanim present` on a real X server: Xvfb, no offscreen platform.

The presenter is started by the CLI in an isolated copy of the built lecture (tests/tree.py), on a small
deck (`test-window` = the title card + HiddenStateDynamics). Its window is found and driven with real X
tools: `xdotool` finds it and sends the keys, `xwd` takes the screenshots, ffmpeg turns them (and the
slide videos' last frames, the expected pictures) into pixels. The preflight is run against a hidden library
(a broken stub first on LD_LIBRARY_PATH) and against a copy of the plugin that needs a library that is not
there; stopping `seqanim present` by a signal must stop the manim-slides child it started.

`make` installs every tool used here (xvfb, xauth, xdotool, x11-apps); nothing is skipped.
"""

from __future__ import annotations

import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from seqanim.present import PresenterUnavailable, preflight, qt_plugins
from tests.conftest import QUALITY
from tests.tree import Tree, make_tree, stop_group

DECK = "test-window"
SCENE = "HiddenStateDynamics"
START = 4  # deck slide 4 = the scene's third slide (the title card is slide 1): manim-slides' "1,2"
WINDOW = "^Manim Slides$"
# A pixel tolerance: two pictures differ by the share of pixels whose largest RGB difference exceeds
# TOLERANCE levels (of 255). Measured: the window holding a slide against ffmpeg's decoding of that slide's
# last frame, 0.005 % (the window is about 2 levels brighter everywhere, which the tolerance absorbs); the
# frame two before the last (a label still fading in), 0.044 %; half a second before the end, 0.24 %; the
# last frames of two neighbouring slides, 1.5-3.5 %. (The slides are mostly dark background, so a mean
# difference over all pixels would not separate them.)
TOLERANCE = 32
SAME = 0.0002
DIFFERENT = 0.01  # the neighbouring slide must be at least this far away, or the test could not fail
SCREENSHOTS = "screenshots"


@pytest.fixture(scope="module")
def tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """A copy of the built lecture with the small deck, exported once (the presenter then builds nothing)."""
    tree = make_tree(tmp_path_factory.mktemp("present") / "lecture")
    with (tree.root / "lecture.toml").open("a") as toml:
        toml.write(f'\n[decks.{DECK}]\ntitle = "Window test"\nscenes = ["{SCENE}"]\n')
    result = tree.run("slides", DECK, "--quality", QUALITY)
    assert result.returncode == 0, result.stderr[-2000:]
    return tree


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    """A real X server (Xvfb) on a free display number; its number is what Xvfb writes to -displayfd."""
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x720x24", "-nolisten", "tcp", "-noreset"],
        pass_fds=[write],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(write)
    number = b""
    deadline = time.monotonic() + 30
    while not number.endswith(b"\n") and time.monotonic() < deadline:
        if select.select([read], [], [], 1)[0]:
            chunk = os.read(read, 16)
            if not chunk:
                break
            number += chunk
    os.close(read)
    assert number.strip().isdigit(), f"Xvfb did not start (exit code {server.poll()})"
    try:
        yield f":{number.decode().strip()}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _x(display: str, *command: str, timeout: float = 30) -> str:
    """Run an X tool against `display`; its stdout."""
    result = subprocess.run(
        command, check=False, env={**os.environ, "DISPLAY": display}, capture_output=True, timeout=timeout
    )
    assert result.returncode == 0, f"{command}: {result.stderr.decode(errors='replace')[-500:]}"
    return result.stdout.decode(errors="replace")


def _screenshot(display: str, window: str) -> np.ndarray:
    """The window as the X server shows it (H x W x 3 uint8): taken with xwd, decoded by ffmpeg."""
    with tempfile.TemporaryDirectory(prefix="seqanim-xwd-") as tmp:
        dump = Path(tmp) / "window.xwd"
        _x(display, "xwd", "-silent", "-id", window, "-out", str(dump))
        png = subprocess.run(
            [
                "ffmpeg",
                "-v",
                "error",
                "-f",
                "xwd_pipe",
                "-i",
                str(dump),
                "-frames:v",
                "1",
                "-f",
                "image2pipe",
                "-vcodec",
                "png",
                "pipe:",
            ],
            capture_output=True,
            check=True,
        ).stdout
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _last_frame(video: Path, size: tuple[int, int]) -> np.ndarray:
    """The video's last frame (what the presenter holds when the slide has played), scaled to `size` (w, h):
    its last second decoded to raw RGB, the final frame kept."""
    raw = subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-sseof",
            "-1",
            "-i",
            str(video),
            "-vf",
            f"scale={size[0]}:{size[1]}",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "pipe:",
        ],
        capture_output=True,
        check=True,
    ).stdout
    frames = np.frombuffer(raw, np.uint8).reshape(-1, size[1], size[0], 3)
    assert len(frames), f"ffmpeg decoded no frame of {video}"
    return frames[-1]


def _difference(a: np.ndarray, b: np.ndarray) -> float:
    """The share of pixels whose brightness differs by more than TOLERANCE, after a 1-pixel blur.

    Brightness, not colour: Qt and ffmpeg upsample the videos' half-resolution chroma differently, which
    shifts small saturated dots (HiddenStateDynamics' 200 eigenvalues) by more than TOLERANCE in a channel
    although the pictures are the same; measured, the right slide differs by 0.0 % this way and every other
    slide of the scene by at least 1.4 %."""
    from PIL import Image, ImageFilter

    assert a.shape == b.shape, (a.shape, b.shape)

    def brightness(rgb: np.ndarray) -> np.ndarray:
        image = Image.fromarray(rgb.astype(np.uint8)).convert("L").filter(ImageFilter.BoxBlur(1))
        return np.asarray(image).astype(np.int16)

    return float((np.abs(brightness(a) - brightness(b)) > TOLERANCE).mean())


def _slide_videos(tree: Tree) -> list[Path]:
    """The scene's slide videos in order, as its manim-slides JSON names them (the files the presenter plays)."""
    folder = tree.root / "slides" / QUALITY
    return [folder.parent / slide["file"] for slide in json.loads((folder / f"{SCENE}.json").read_text())["slides"]]


def _wait_for_slide(
    display: str, window: str, expected: np.ndarray, timeout: float, save: Path
) -> tuple[float, np.ndarray]:
    """Screenshot the window until it shows `expected` (within SAME) or `timeout` passes; the closest one is
    saved to `save` and returned with its difference."""
    best: tuple[float, np.ndarray] | None = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shot = _screenshot(display, window)
        difference = _difference(shot, expected) if shot.shape == expected.shape else float("inf")
        if best is None or difference < best[0]:
            best = (difference, shot)
        if difference <= SAME:
            break
        time.sleep(0.25)
    assert best is not None
    Image.fromarray(best[1]).save(save)
    return best


def _as_in_a_terminal() -> None:
    """SIGINT and SIGHUP as a terminal's foreground job has them: a test run started in the background
    (`make test &`, nohup) would otherwise hand its ignored SIGINT/SIGHUP down to `seqanim present`."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def _presenter(tree: Tree, env: dict[str, str], *args: str, log: Path) -> subprocess.Popen[bytes]:
    """`seqanim present DECK ...` in the copy, in its own session, its output in `log`."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "seqanim.cli", "present", DECK, "--quality", QUALITY, *args],
            cwd=tree.root,
            env={**os.environ, "PYTHONPATH": str(tree.root), **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_as_in_a_terminal,  # noqa: PLW1509
        )


def _x_env(display: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    return {**env, "DISPLAY": display}


def _find_window(display: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> str:
    """Poll with xdotool until the presenter's top-level window is mapped (`--maxdepth 1`: its video widget
    is a native child window with the same name); fail at once if `seqanim present` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"seqanim present exited {process.returncode}: {log.read_text()[-2000:]}"
        found = subprocess.run(
            ["xdotool", "search", "--maxdepth", "1", "--onlyvisible", "--name", WINDOW],
            check=False,
            env={**os.environ, "DISPLAY": display},
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.split()
        if found:
            assert len(found) == 1, found
            return found[0]
        time.sleep(0.2)
    pytest.fail(f"no presenter window within {timeout:.0f} s: {log.read_text()[-2000:]}")


def test_presenter_plays_the_slide_in_a_real_window(tree: Tree, display: str, tmp_path: Path) -> None:
    videos = _slide_videos(tree)
    env = _x_env(display)
    log = tmp_path / "present.log"
    process = _presenter(tree, env, "--start-at", str(START), log=log)
    try:
        window = _find_window(display, process, log)
        geometry = dict(
            line.split("=") for line in _x(display, "xdotool", "getwindowgeometry", "--shell", window).split()
        )
        size = (int(geometry["WIDTH"]), int(geometry["HEIGHT"]))
        assert size == tuple(json.loads((tree.root / "slides" / QUALITY / f"{SCENE}.json").read_text())["resolution"])

        # Slide 4 = the scene's third slide: once it has played, the window holds its last frame.
        this, following = _last_frame(videos[START - 2], size), _last_frame(videos[START - 1], size)
        assert _difference(this, following) > DIFFERENT, "the two slides look alike: the test could not tell them apart"
        difference, shot = _wait_for_slide(display, window, this, 40, tmp_path / f"slide-{START}.png")
        assert difference <= SAME, (
            f"the window does not show slide {START} ({difference:.2%} of the pixels differ); see {tmp_path}"
        )
        assert _difference(shot, following) > DIFFERENT

        # The next-slide key, sent through the X server (XTEST) to the focused window.
        _x(display, "xdotool", "windowfocus", "--sync", window)
        _x(display, "xdotool", "key", "Right")
        difference, shot = _wait_for_slide(display, window, following, 40, tmp_path / f"slide-{START + 1}.png")
        assert difference <= SAME, (
            f"after Right the window does not show slide {START + 1} "
            f"({difference:.2%} of the pixels differ); see {tmp_path}"
        )
        assert _difference(shot, this) > DIFFERENT

        # The presenter's own quit key: manim-slides closes, `seqanim present` exits 0.
        _x(display, "xdotool", "key", "q")
        assert process.wait(timeout=30) == 0, log.read_text()[-2000:]
    finally:
        stop_group(process)
    snapshots = tree.root / ".seqanim" / "present"
    assert not snapshots.exists() or list(snapshots.iterdir()) == []  # the slide snapshot is removed


def test_presenter_opens_a_variant_at_the_same_slide(tree: Tree, display: str, tmp_path: Path) -> None:
    """manim-slides' presenter takes no keys of ours, so `--variant` is how it switches: the deck with the
    variant's slides of the scenes it changes, at the same slide (tests/test_variants.py: the HTML deck)."""
    toml = tree.root / "lecture.toml"
    text = toml.read_text()
    toml.write_text(re.sub(r"^\[variants\]\n", "[variants]\nlinear_rnn.steps = [48]\n", text, count=1, flags=re.M))
    try:
        built = tree.run("build", "--quality", QUALITY)
        assert built.returncode == 0, built.stderr[-2000:]
        assert "variant linear_rnn.steps=48: ran " in built.stdout
        variant = tree.root / ".seqanim" / "variants" / "linear_rnn.steps=48" / "slides"
        slide = json.loads((variant / QUALITY / f"{SCENE}.json").read_text())["slides"][START - 2]
        log = tmp_path / "present.log"
        process = _presenter(
            tree, _x_env(display), "--start-at", str(START), "--variant", "linear_rnn.steps=48", log=log
        )
        try:
            window = _find_window(display, process, log)
            size = tuple(json.loads((variant / QUALITY / f"{SCENE}.json").read_text())["resolution"])
            mine, default = (
                _last_frame(variant / slide["file"], size),
                _last_frame(_slide_videos(tree)[START - 2], size),
            )
            assert _difference(mine, default) > DIFFERENT, "the variant looks like the default: the test could not tell"
            difference, shot = _wait_for_slide(display, window, mine, 40, tmp_path / "variant.png")
            assert difference <= SAME, (
                f"the window does not show the variant's slide ({difference:.2%}); see {tmp_path}"
            )
            _x(display, "xdotool", "windowfocus", "--sync", window)
            _x(display, "xdotool", "key", "q")
            assert process.wait(timeout=30) == 0, log.read_text()[-2000:]
        finally:
            stop_group(process)
    finally:
        toml.write_text(text)


def test_preflight_names_a_library_hidden_by_a_broken_stub(tree: Tree, display: str, tmp_path: Path) -> None:
    """A broken libxcb-icccm.so.4 first on LD_LIBRARY_PATH: the X server is there, the plugin cannot load."""
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "libxcb-icccm.so.4").write_bytes(b"not a library\n")
    started = time.monotonic()
    result = tree.run(
        "present", DECK, "--quality", QUALITY, timeout=120, env={**_x_env(display), "LD_LIBRARY_PATH": str(stub)}
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
        preflight(DECK, QUALITY, env=_x_env(display), plugins=copy)
    message = str(raised.value)
    assert "\n" not in message
    assert "libxcb-sqnim.so.4 is missing (Debian package libxcb-sqnim4)" in message, message
    assert "apt-get install libxcb-sqnim4`" in message
    assert preflight(DECK, QUALITY, env=_x_env(display)) == "xcb"  # the real plugin loads on this display


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
