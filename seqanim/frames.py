"""Frames read back from rendered videos (stills for the handout, the transcript and thumbnails)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from seqanim.errors import StageFailed


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
