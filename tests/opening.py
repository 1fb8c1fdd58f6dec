"""How long a rendered scene shows its title alone, read from the video's frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np

FPS_LOW = 15
LIT = 40  # a pixel differing from the background by more than this (of 255) in any channel is drawn on
TITLE_ROWS = 75  # at 854x480 the title stands in the top 75 rows; the first content lies below row 80


def title_alone_seconds(video: Path, limit_seconds: float = 3.0) -> float:
    """Seconds from the first frame showing the title to the first frame showing anything below it."""
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        rate = float(stream.average_rate or FPS_LOW)
        background, title_at = None, None
        for index, frame in enumerate(container.decode(stream)):
            pixels = frame.to_ndarray(format="rgb24").astype(np.int16)
            if background is None:
                background = pixels[-5, -5].copy()
            lit = np.abs(pixels - background).max(axis=2) > LIT
            if title_at is None and lit[:TITLE_ROWS].mean() > 0.002:
                title_at = index
            if lit[TITLE_ROWS + 5 :].mean() > 0.0005:
                return (index - (title_at if title_at is not None else index)) / rate
            if index > limit_seconds * rate:
                break
    return limit_seconds
