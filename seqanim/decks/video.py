"""The published deck video: the scenes' narrated cuts joined, with the narration, captions and one chapter per
scene; its captions and chapter list beside it; and the deck's thumbnail."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from seqanim.decks.plan import DeckPlan
from seqanim.errors import StageFailed, ToolMissingError
from seqanim.files import atomic_write_bytes, atomic_write_text
from seqanim.lecture.config import Lecture
from seqanim.publish.frames import last_frame
from seqanim.workspace import current


def _ffmeta(text: str) -> str:
    return re.sub(r"([=;#\\\n])", r"\\\1", text)


def narration_timing(scene: str, quality: str) -> dict[str, Any]:
    """A scene's narration record (seqanim.publish.narrate), or a one-line error naming the fix."""
    from seqanim.publish.narrate import outputs

    path = outputs(scene, quality)["timing"]
    if not path.exists():
        raise StageFailed(f"{current().label(path)} is missing; run `seqanim build --quality {quality}` first")
    return json.loads(path.read_text())


def clock(seconds: float) -> str:
    """00:00 / 1:02:03, the form video platforms read chapters in from a description."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


def _clip_path(
    audio: str | None, said: str, beat: int | None, record: dict[str, Any], scene: str, lecture: Lecture
) -> Path | None:
    """A slide's (or beat's) normalised clip; made again (same key) when the voice cache lost it (emptied by
    `seqanim clean --cache-only`, or a worker's other than the one that narrated the scene)."""
    if audio is None:
        return None
    from seqanim.publish.voice import cache_dir, slide_clip

    path = cache_dir() / audio
    if path.is_file():
        return path
    number, publish = record["slide"], lecture.publish
    clip = slide_clip(scene, number, said, publish, beat=beat or None)
    return clip.path if clip else None


def export_video(plan: DeckPlan, presentations: list[Any], lecture: Lecture) -> dict[str, Path]:
    """The published deck video `renders/<q>/<deck>.mp4`: the scenes' narrated cuts joined (video copied, not
    re-encoded), one narration track (AAC), one soft subtitle track per language (mov_text, language-tagged),
    one chapter per scene; beside it its captions `.vtt`/`.srt` (`.<code>.vtt`/`.srt` for each translation),
    `<deck>.chapters.txt` and the thumbnail (the title card's last frame)."""
    if shutil.which("ffmpeg") is None:
        raise ToolMissingError("ffmpeg is missing; run `make setup` to install it")
    from PIL import Image

    from seqanim.publish import captions
    from seqanim.publish.narrate import outputs as narration_outputs

    folder = current().renders(plan.quality)
    folder.mkdir(parents=True, exist_ok=True)
    scenes = [entry.name for entry in plan.entries if entry.kind == "scene"]
    timings = [narration_timing(scene, plan.quality) for scene in scenes]
    videos = [narration_outputs(scene, plan.quality)["video"] for scene in scenes]
    for video in videos:
        if not video.exists():
            raise StageFailed(
                f"{current().label(video)} is missing; run `seqanim build --quality {plan.quality}` first"
            )
    joined = _Joined(plan, lecture)
    for scene, timing in zip(scenes, timings):
        joined.add(scene, timing)
    path = folder / f"{plan.deck}.mp4"
    _join(videos, joined, path)
    written = {"video": path, **captions.write_captions(folder, plan.deck, joined.cues)}
    written["chapters"] = folder / f"{plan.deck}.chapters.txt"
    atomic_write_text(written["chapters"], "\n".join(joined.chapters) + "\n")
    thumbnail = folder / f"{plan.deck}.png"
    buffer = io.BytesIO()
    Image.fromarray(last_frame(presentations[0].slides[-1].file)).save(buffer, format="PNG")
    atomic_write_bytes(thumbnail, buffer.getvalue())
    return {**written, "thumbnail": thumbnail}


class _Joined:
    """The deck's tracks, scene after scene on the deck's clock: ffmpeg's chapter metadata, the chapter list,
    the caption cues per language and the narration's pieces (a clip or silence, and its seconds)."""

    def __init__(self, plan: DeckPlan, lecture: Lecture) -> None:
        self.lecture = lecture
        self.metadata = [";FFMETADATA1", f"title={_ffmeta(plan.title)}"]
        self.chapters: list[str] = []
        languages = lecture.publish.languages
        self.cues: dict[str, list[Any]] = {code: [] for code in languages}
        self.pieces: list[tuple[Path | None, float]] = []
        self.start = 0.0

    def add(self, scene: str, timing: dict[str, Any]) -> None:
        from seqanim.decks.plan import humanise
        from seqanim.publish import captions

        start, end = self.start, self.start + timing["duration"]
        self.metadata += [
            "[CHAPTER]", "TIMEBASE=1/1000", f"START={round(start * 1000)}", f"END={round(end * 1000)}",
            f"title={_ffmeta(scene)}",
        ]  # fmt: skip
        self.chapters.append(f"{clock(round(start * 1000) / 1000)} {humanise(scene)}")  # the chapter's millisecond
        first = next(iter(self.cues))
        for code in self.cues:
            found = timing["cues"] if code == first else timing.get("translated_cues", {}).get(code)
            if found is None:
                raise StageFailed(f"{scene}'s narration has no {code} captions; run `seqanim build` again")
            self.cues[code] += captions.shifted([captions.Cue(a, b, tuple(text)) for a, b, text in found], start)
        self.pieces += [
            (_clip_path(audio, said, beat, record, scene, self.lecture), seconds)
            for record in timing["slides"]
            for audio, seconds, said, _, beat in record["pieces"]
        ]
        self.start = end


def _join(videos: list[Path], joined: _Joined, path: Path) -> None:
    """One ffmpeg run: the cuts' video copied, the narration encoded once, the captions and the chapters added;
    staged beside `path` and moved in whole."""
    from seqanim.publish import captions
    from seqanim.publish.narrate import AUDIO_CODEC, _write_wav, run_ffmpeg, subtitle_tags, track_inputs

    has_audio = any(clip is not None for clip, _ in joined.pieces)
    with tempfile.TemporaryDirectory(prefix=f".{path.stem}-video-", dir=path.parent) as tmp:
        listing = Path(tmp) / "inputs.txt"
        listing.write_text(
            "".join(
                f"file '{str(video).replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'\n" for video in videos
            )
        )
        metadata = Path(tmp) / "chapters.txt"
        metadata.write_text("\n".join(joined.metadata) + "\n")
        subtitles = []
        for code, cues in joined.cues.items():
            subtitles.append((Path(tmp) / f"{code}.srt", code))
            subtitles[-1][0].write_text(captions.to_srt(cues))
        staged = Path(tmp) / path.name
        command = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
        command += ["-f", "concat", "-safe", "0", "-i", str(listing)]
        audio = Path(tmp) / "narration.wav" if has_audio else None
        if audio is not None:
            _write_wav(audio, joined.pieces)
        tracks, maps = track_inputs(1, audio, subtitles)
        chapters = str(1 + len(tracks) // 2)  # the input after the tracks
        command += [*tracks, "-i", str(metadata), "-map", "0:v", *maps, "-map_metadata", chapters]
        command += ["-map_chapters", chapters, "-c:v", "copy", *(AUDIO_CODEC if has_audio else []), "-c:s", "mov_text"]
        command += [*subtitle_tags(subtitles), "-movflags", "+faststart"]
        run_ffmpeg(command, staged, f"join the {path.stem} deck")
        os.replace(staged, path)  # the temporary folder lies in renders/<q>/: a same-filesystem rename
