"""The Qt presenter on a real X server: Xvfb started on a free display, the presenter's window found and driven
with real X tools (`xdotool` finds it and sends keys, `xwd` takes screenshots), and pictures compared as
pixels (ffmpeg decodes the screenshots and the slide videos' last frames, the expected pictures).
tests/test_present.py and tests/test_variants.py use it; `make` installs every tool (xvfb, xdotool, x11-apps).
"""

from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

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


@contextmanager
def xvfb() -> Iterator[str]:
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


def x(display: str, *command: str, timeout: float = 30) -> str:
    """Run an X tool against `display`; its stdout."""
    result = subprocess.run(
        command, check=False, env={**os.environ, "DISPLAY": display}, capture_output=True, timeout=timeout
    )
    assert result.returncode == 0, f"{command}: {result.stderr.decode(errors='replace')[-500:]}"
    return result.stdout.decode(errors="replace")


RETRIES = 5  # xwd attempts per screenshot (see screenshot)


def screenshot(display: str, window: str) -> np.ndarray:
    """The window as the X server shows it (H x W x 3 uint8): taken with xwd, decoded by ffmpeg."""
    with tempfile.TemporaryDirectory(prefix="seqanim-xwd-") as tmp:
        dump = Path(tmp) / "window.xwd"
        command = ("xwd", "-silent", "-id", window, "-out", str(dump))
        # xwd walks the window's children; Qt replaces its video widget's native child window as a slide
        # starts, and a child gone mid-walk fails the dump with BadWindow. The window itself is still there:
        # take the picture again.
        for _ in range(RETRIES):
            result = subprocess.run(command, env={**os.environ, "DISPLAY": display}, capture_output=True, timeout=30)
            if result.returncode == 0 or b"BadWindow" not in result.stderr:
                break
            time.sleep(0.1)
        assert result.returncode == 0, f"{command}: {result.stderr.decode(errors='replace')[-500:]}"
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


def last_frame(video: Path, size: tuple[int, int]) -> np.ndarray:
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


def difference(a: np.ndarray, b: np.ndarray) -> float:
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


def wait_for_slide(
    display: str, window: str, expected: np.ndarray, timeout: float, save: Path
) -> tuple[float, np.ndarray]:
    """Screenshot the window until it shows `expected` (within SAME) or `timeout` passes; the closest one is
    saved to `save` and returned with its difference."""
    best: tuple[float, np.ndarray] | None = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shot = screenshot(display, window)
        apart = difference(shot, expected) if shot.shape == expected.shape else float("inf")
        if best is None or apart < best[0]:
            best = (apart, shot)
        if apart <= SAME:
            break
        time.sleep(0.25)
    assert best is not None
    Image.fromarray(best[1]).save(save)
    return best


def as_in_a_terminal() -> None:
    """SIGINT and SIGHUP as a terminal's foreground job has them: a test run started in the background
    (`make test &`, nohup) would otherwise hand its ignored SIGINT/SIGHUP down to `seqanim present`."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def presenter(
    root: Path, workspace_env: dict[str, str], deck: str, quality: str, *args: str, env: dict[str, str], log: Path
) -> subprocess.Popen[bytes]:
    """`seqanim present DECK --quality Q ...` in the lecture at `root`, in its own session, its output in `log`."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "seqanim.cli", "present", deck, "--quality", quality, *args],
            cwd=root,
            env={**workspace_env, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=as_in_a_terminal,  # noqa: PLW1509
        )


def x_env(display: str) -> dict[str, str]:
    """The environment with `display` as the X server and nothing that would send Qt elsewhere."""
    env = {key: value for key, value in os.environ.items() if key not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    return {**env, "DISPLAY": display}


def find_window(display: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> str:
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
