"""The published cut's camera (seqanim.narrate.camera_path, perspective): it leans in only while a picture would
stand still, by at most [publish] camera_push, toward the focus of the beat being said, fast enough to read as
motion, and it is back at rest at the end of every slide. The filter runs in the real ffmpeg."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from seqanim.narrate import CAMERA_RATE, Paced, Segment, camera_path, perspective

FPS = 15


def _paced(*segments: Segment) -> Paced:
    pieces = [(None, 1.0, "said", 1.0, 1), (None, 1.0, "said", 1.0, 2)]
    return Paced(list(segments), pieces)  # type: ignore[arg-type]


BEATS = [{"focus": [0.6, 0.2, 1.0, 0.6]}, {"focus": None}]


@pytest.mark.parametrize("held_seconds", [2, 9, 40, 130])
def test_the_camera_moves_only_while_the_picture_stands_still(held_seconds: int) -> None:
    paced = _paced(
        Segment(0, 30, 1.0, 30, 0, camera=False),  # an animation at its own pace: the camera keeps still
        Segment(29, 30, 1.0, held_seconds * FPS, 0),  # its end state held while the words go on
    )
    camera = camera_path(paced, BEATS, FPS, push=0.03)
    assert camera is not None
    cycles = len(camera["foci"])
    assert cycles * camera["period"] == pytest.approx(held_seconds, abs=1e-3)  # whole cycles: ends at rest
    assert 0 < camera["push"] <= 0.03
    rate = 2 * camera["push"] / camera["period"]  # zoom per second, in and out
    assert 0.001 < rate <= CAMERA_RATE + 1e-9  # faster than freezedetect's threshold, never faster than meant
    assert camera["foci"][0] == [0.8, 0.4]  # the first beat's box, its middle


def test_a_still_camera_when_asked_or_when_nothing_stands_still() -> None:
    held = _paced(Segment(29, 30, 1.0, 60, 0))
    assert camera_path(held, BEATS, FPS, push=0.0) is None
    assert camera_path(_paced(Segment(0, 30, 1.0, 30, 0, camera=False)), BEATS, FPS, push=0.03) is None
    assert camera_path(_paced(Segment(29, 30, 1.0, 200, 1)), BEATS, FPS, push=0.03)["foci"][0] == [0.5, 0.5]


def _through_ffmpeg(filter_: str, frames: int) -> np.ndarray:
    """A test card of `frames` frames through `filter_`, as grey frames."""
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size=320x180:rate={FPS}:duration={frames / FPS}",
         "-vf", f"{filter_},format=gray", "-f", "rawvideo", "-"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, 180, 320).astype(int)


def test_the_lean_is_a_zoom_about_the_focus_that_starts_and_ends_at_rest() -> None:
    """In the real ffmpeg: the first and last frames of a cycle are the picture itself, the middle one is the
    picture zoomed by `push` about the focus (the focus stays put, the rest moves away from it)."""
    camera = {"period": 4.0, "push": 0.05, "foci": [[0.25, 0.5]]}
    frames = 4 * FPS
    still = _through_ffmpeg("null", frames + 1)
    leaned = _through_ffmpeg(perspective(camera, 0.0, FPS), frames + 1)
    assert np.abs(leaned[0] - still[0]).mean() < 1.0
    assert np.abs(leaned[frames] - still[frames]).mean() < 1.5  # in / FPS = 4 s: back at rest
    middle = frames // 2
    assert np.abs(leaned[middle] - still[middle]).mean() > 5  # leaning: visibly not the picture
    # The zoom about the focus (80, 90): the output pixel (x, y) shows the picture's (80 + (x - 80) / 1.05,
    # 90 + (y - 90) / 1.05), closer to the focus.
    ys, xs = np.mgrid[0:180, 0:320]
    expected = still[middle][np.round(90 + (ys - 90) / 1.05).astype(int), np.round(80 + (xs - 80) / 1.05).astype(int)]
    assert np.abs(leaned[middle] - expected).mean() < 0.3 * np.abs(leaned[middle] - still[middle]).mean()
