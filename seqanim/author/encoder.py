"""manim's partial movies encoded by libx264 without its AVX-512 code: the same frames give the same video.

libx264's AVX-512 routines (x264 cores 164 and 165, PyAV 18's and Debian's) read heap memory that nothing has
written, and what they find there changes the encoded stream. The same 21 frames of CausalMask (its second
animation) encoded in one process 200 times gave two different videos (174 and 26 times); with glibc's
MALLOC_PERTURB_ (which fills new allocations with a chosen byte) each byte gave its own video; with x264
told to leave AVX-512 out (`asm` = what it detects, less AVX-512), every run and every byte gave one video,
the one AVX-512 gives over zeroed memory. In a render the garbage depends on what the process allocated
before and on how its encoder thread interleaves with drawing, so a render now and then (under load, on
another worker, after another history) encoded one animation differently: one pixel off by one level of 255,
carried to the animation's last frame. The drawn frames themselves were equal every time.
"""

from __future__ import annotations

import ctypes
import functools
from pathlib import Path
from typing import Any

from manim.scene.scene_file_writer import SceneFileWriter

X264_CPU_AVX512 = 1 << 16  # x264.h: AVX-512 {F, CD, BW, DQ, VL}, with the OS's support


@functools.cache
def x264_options() -> dict[str, str]:
    """libx264 options that leave out its AVX-512 code where it would use it; none elsewhere."""
    flags = _x264_cpu_flags()
    if flags is None or not flags & X264_CPU_AVX512:
        return {}
    return {"x264-params": f"asm={flags & ~X264_CPU_AVX512}"}  # everything else x264 detects, as it detects it


def _x264_cpu_flags() -> int | None:
    """What the libx264 loaded by PyAV detects in this CPU (None: no libx264 of its own found, as on macOS)."""
    import av  # noqa: F401 - loads libavcodec, and with it libx264

    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    paths = sorted({line.split()[-1] for line in maps.splitlines() if "/libx264" in line})
    if not paths:
        return None
    detect = ctypes.CDLL(paths[0]).x264_cpu_detect
    detect.restype = ctypes.c_uint32
    return int(detect())


class SteadyFileWriter(SceneFileWriter):
    """manim's file writer, its partial movies encoded by libx264 with `x264_options()`."""

    def open_partial_movie_stream(self, file_path: Any = None) -> None:
        super().open_partial_movie_stream(file_path)
        # The encoder opens at its first frame, which its thread has not been given yet: options set now apply.
        codec = self._current_encode_job.stream.codec_context
        if codec.name == "libx264":
            codec.options = {**codec.options, **x264_options()}
