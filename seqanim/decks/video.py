"""The published deck video: the scene videos joined, one chapter per scene, and the deck's thumbnail."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from seqanim.decks.plan import DeckPlan
from seqanim.errors import StageFailed, ToolMissingError
from seqanim.files import atomic_write_bytes, publish_mode
from seqanim.workspace import current


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


def _duration_ms(video: Path) -> int:
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        if stream.duration is not None and stream.time_base is not None:
            return round(float(stream.duration * stream.time_base) * 1000)
        return round((container.duration or 0) / 1000)


def _ffmeta(text: str) -> str:
    return re.sub(r"([=;#\\\n])", r"\\\1", text)


def export_video(plan: DeckPlan, presentations: list[Any]) -> dict[str, Path]:
    """`renders/<q>/<deck>.mp4`: the scene videos joined (no re-encode), one chapter per scene; and the
    deck's thumbnail `renders/<q>/<deck>.png` (the title card's last frame)."""
    if shutil.which("ffmpeg") is None:
        raise ToolMissingError("ffmpeg is missing; run `make setup` to install it")
    from PIL import Image

    folder = current().renders(plan.quality)
    folder.mkdir(parents=True, exist_ok=True)
    scenes = [entry.name for entry in plan.entries if entry.kind == "scene"]
    videos = [folder / f"{scene}.mp4" for scene in scenes]
    for video in videos:
        if not video.exists():
            raise StageFailed(
                f"{current().label(video)} is missing; run `seqanim build --quality {plan.quality}` first"
            )
    path = folder / f"{plan.deck}.mp4"
    with tempfile.TemporaryDirectory(prefix=f".{plan.deck}-video-", dir=folder) as tmp:
        listing = Path(tmp) / "inputs.txt"
        listing.write_text(
            "".join(
                f"file '{str(video).replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'\n" for video in videos
            )
        )
        lines, start = [";FFMETADATA1", f"title={_ffmeta(plan.title)}"], 0
        for scene, video in zip(scenes, videos):
            end = start + _duration_ms(video)
            lines += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={start}", f"END={end}", f"title={_ffmeta(scene)}"]
            start = end
        metadata = Path(tmp) / "chapters.txt"
        metadata.write_text("\n".join(lines) + "\n")
        staged = Path(tmp) / f"{plan.deck}.mp4"
        command = [
            "ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
            "-f", "concat", "-safe", "0", "-i", str(listing), "-i", str(metadata),
            "-map", "0", "-map_metadata", "1", "-map_chapters", "1", "-c", "copy", "-movflags", "+faststart",
            str(staged),
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise StageFailed(
                f"ffmpeg could not join the {plan.deck} deck: {(result.stderr.strip().splitlines() or ['?'])[-1]}"
            )
        os.replace(staged, path)  # the temporary folder lies in renders/<q>/: a same-filesystem rename
    thumbnail = folder / f"{plan.deck}.png"
    buffer = io.BytesIO()
    Image.fromarray(last_frame(presentations[0].slides[-1].file)).save(buffer, format="PNG")
    atomic_write_bytes(thumbnail, buffer.getvalue())
    publish_mode(thumbnail)
    return {"video": path, "thumbnail": thumbnail}
