"""The same frames give the same video whatever the encoding process's heap held: libx264 runs without the AVX-512
code that reads memory nothing wrote (seqanim.author.encoder), and every lecture scene encodes that way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from seqanim.author import encoder

# Frames of an anti-aliased disc moving over stripes, encoded as manim encodes a partial movie; prints a digest
# of the stream. With libx264's AVX-512 code (its default on a CPU that has it) the digest changes with the
# byte glibc fills new allocations with (MALLOC_PERTURB_); without it, it does not.
ENCODE = """
import hashlib, sys
from fractions import Fraction
import av, numpy as np
from seqanim.author.encoder import x264_options
codec = av.CodecContext.create("libx264", "w")
codec.width, codec.height, codec.pix_fmt = 854, 480, "yuv420p"
codec.time_base, codec.framerate = Fraction(1, 15), Fraction(15)
codec.options = {"crf": "23", **x264_options()}
y, x = np.mgrid[0:480, 0:854]
digest = hashlib.sha256()
for i in range(15):
    frame = np.zeros((480, 854, 4), np.uint8)
    frame[..., 0] = 15 + (x // 40) % 3
    frame[..., 1] = (20 + 200 * np.clip(60 - np.hypot(x - 200 - 7.3 * i, y - 240), 0, 1)).astype(np.uint8)
    frame[..., 3] = 255
    video = av.VideoFrame.from_ndarray(frame, format="rgba")
    video.pts = i
    for packet in codec.encode(video):
        digest.update(bytes(packet))
for packet in codec.encode():
    digest.update(bytes(packet))
print(digest.hexdigest())
"""


def _encoded(garbage: int) -> str:
    engine = str(Path(encoder.__file__).resolve().parents[2])
    env = {**os.environ, "MALLOC_PERTURB_": str(garbage), "PYTHONPATH": engine}
    run = [sys.executable, "-c", ENCODE]
    result = subprocess.run(run, cwd=engine, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_same_frames_encode_the_same_whatever_the_heap_held() -> None:
    assert _encoded(85) == _encoded(170) == _encoded(255)


def test_a_lecture_scene_encodes_with_the_steady_writer() -> None:
    from seqanim.author.slide import LectureSlide

    class Empty(LectureSlide):
        pass

    assert isinstance(Empty().renderer.file_writer, encoder.SteadyFileWriter)
