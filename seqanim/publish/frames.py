"""Frames read back from rendered videos (stills for the handout, the transcript and thumbnails), how many
there are and how long they last, and how far one frame is from another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from seqanim.errors import StageFailed


def frame_count(video: Path) -> int:
    """A video's frames, counted when the container does not say (its average rate can be off at 15 fps)."""
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        return stream.frames or sum(1 for _ in container.decode(stream))


def video_seconds(video: Path) -> float:
    """A video's length in seconds (its video stream's, else the container's), to the millisecond."""
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        if stream.duration is not None and stream.time_base is not None:
            return round(float(stream.duration * stream.time_base), 3)
        return round((container.duration or 0) / 1_000_000, 3)


def last_frame(video: Path) -> Any:
    """The last frame of a video as an RGB array (seeks near the end instead of decoding everything)."""
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        if container.duration and container.duration > 2_000_000:
            container.seek(container.duration - 1_000_000, backward=True, any_frame=False)
        frame = None
        for frame in container.decode(stream):
            pass
        if frame is None:
            raise StageFailed(f"{video} has no video frames; render it again")
        return frame.to_ndarray(format="rgb24")


# A pixel "differs" when its brightness (luma) is further apart than this. Brightness, not colour: the videos
# keep colour at half resolution (yuv420p), which shifts thin coloured lines (a heatmap's rows) by more than
# this in one channel, while a glyph against the background differs by far more in brightness.
LUMA_THRESHOLD = 64


def differing_share(shown: Any, expected: Any) -> float:
    """The share of pixels whose brightness differs between `shown` and `expected` (RGB arrays of one size)."""
    import numpy as np

    weights = np.array([0.299, 0.587, 0.114])  # ITU-R BT.601 luma, as the videos encode it
    difference = np.abs((shown[..., :3].astype(np.float32) - expected[..., :3].astype(np.float32)) @ weights)
    return float((difference > LUMA_THRESHOLD).mean())


# A frame "changes" when some pixel moved in brightness by more than this from the frame before: x264 leaves a
# held picture within 2 of itself (measured on held frames at preview and low: 0, 1 or 2), while a stroke, a
# glyph or a fade step moves it by more.
CHANGE_LEVEL = 2


def changes(video: Path, *, top: float = 0.0, bottom: float = 1.0, left: float = 0.0, right: float = 1.0) -> list[bool]:
    """Per frame of `video`, whether its picture (the part between those shares of its height and width) changed
    since the frame before (the first frame: False)."""
    import av
    import numpy as np

    flags, previous = [], None
    with av.open(str(video)) as container:
        for frame in container.decode(container.streams.video[0]):
            luma = frame.to_ndarray(format="gray")
            height, width = luma.shape
            luma = luma[round(top * height) : round(bottom * height), round(left * width) : round(right * width)]
            luma = luma.astype(np.int16)
            flags.append(previous is not None and bool(np.abs(luma - previous).max() > CHANGE_LEVEL))
            previous = luma
    return flags
