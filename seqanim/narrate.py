"""A scene's narrated cut: every slide's narration as audio, paced against its animation, with captions.

The build runs this once per scene and quality (stage `narration:<q>:<Scene>`), after the scene's render:

- each slide's audio comes from `seqanim.voice` (cached per text and voice: an unchanged slide costs a lookup);
- pacing: a slide's narration starts with its animation; when it is longer, the slide's last frame holds (a
  looping slide plays its loop) until it ends plus `[publish] gap_s`. With `voice = "none"` the narration
  lasts its reading time at `[publish] words_per_minute`;
- `renders/<q>/<Scene>.narrated.mp4`: video, the narration (AAC) and a soft subtitle track;
  `renders/<q>/<Scene>.vtt` / `.srt`: its captions, timed to that cut;
- `renders/<q>/<Scene>.narration.json`: every slide's interval, narration, alt text and clip (decks join
  these into the deck's video, captions, HTML timings and transcript);
- `slides/<q>/stills/<Scene>/<n>.png`: every slide's last frame (the transcript's pictures).
"""

from __future__ import annotations

import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import wave
from pathlib import Path
from typing import Any

from seqanim import captions, voice
from seqanim.config import Lecture, Publish
from seqanim.errors import SeqanimError, StageFailed, ToolMissingError
from seqanim.files import atomic_write_bytes, atomic_write_text, replace_dir, tool_wrote_to_a_full_disk
from seqanim.frames import last_frame
from seqanim.workspace import current

# The narrated cut is encoded once per scene, in every build that changes it (CI builds at low quality): at
# low quality x264's ultrafast preset takes 2.2 s where veryfast takes 5.6 s (CausalMask, 1:53 of video),
# for files 3x larger; publishing qualities take the smaller files. AAC's fast coder: 3.0 s instead of 12.9 s
# for 7.5 minutes of speech.
X264_PRESET = {"low": "ultrafast"}
AUDIO_CODEC = ["-c:a", "aac", "-aac_coder", "fast", "-b:a", "96k"]


def video_codec(quality: str) -> list[str]:
    preset = X264_PRESET.get(quality, "veryfast")
    return ["-c:v", "libx264", "-preset", preset, "-crf", "23", "-pix_fmt", "yuv420p"]


def outputs(scene: str, quality: str) -> dict[str, Path]:
    """Every file a scene's narration stage writes."""
    renders = current().renders(quality)
    return {
        "video": renders / f"{scene}.narrated.mp4",
        "vtt": renders / f"{scene}.vtt",
        "srt": renders / f"{scene}.srt",
        "timing": renders / f"{scene}.narration.json",
        "stills": current().slides(quality) / "stills" / scene,
    }


def recorded_inputs(scene: str) -> dict[str, str]:
    """The lecturer's recordings of this scene's slides (label -> size and mtime), for the stage key."""
    folder = current().root / "narration" / scene
    if not folder.is_dir():
        return {}
    return {
        f"recorded:{current().label(path)}": f"{path.stat().st_size}-{path.stat().st_mtime_ns}"
        for path in sorted(folder.iterdir())
        if path.suffix.lower() in voice.RECORDED_SUFFIXES
    }


def reading_seconds(text: str, words_per_minute: int) -> float:
    return len(text.split()) * 60.0 / words_per_minute


def _video_seconds(path: Path) -> float:
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        if stream.frames:
            return stream.frames / float(stream.average_rate)
        return float(stream.duration * stream.time_base)


def language_639_2(tag: str) -> str:
    """The three-letter code MP4 stores for a BCP 47 tag ("en" -> "eng"); ffmpeg maps it when it can."""
    primary = tag.split("-")[0].lower()
    return {"en": "eng", "de": "ger", "fr": "fre", "es": "spa", "it": "ita", "pt": "por", "nl": "dut",
            "zh": "chi", "ja": "jpn", "ko": "kor", "ru": "rus", "pl": "pol", "sv": "swe", "tr": "tur",
            "ar": "ara", "hi": "hin", "el": "gre", "cs": "cze", "da": "dan", "fi": "fin", "no": "nor",
            "uk": "ukr", "he": "heb"}.get(primary, primary if len(primary) == 3 else "und")  # fmt: skip


def _audio_for(scene: str, number: int, text: str, publish: Publish, warnings: list[str]) -> voice.Clip | None:
    """One slide's clip (None with voice none, or a recorded slide's fallback to none)."""
    synthetic = publish.voice
    if publish.voice == "recorded":
        recording = voice.recorded_file(scene, number)
        if recording is not None:
            return voice.clip(text, publish, recorded=recording)
        synthetic = publish.fallback_voice
        warnings.append(
            f"narration/{scene}/{number}.wav (or .flac/.mp3) is missing: {scene} slide {number} uses the "
            f"{synthetic} voice"
        )
    if synthetic == "none":
        return None
    try:
        return voice.clip(text, publish, voice=synthetic)
    except SeqanimError as error:
        raise SeqanimError(f"{scene} slide {number}: {error}") from None


def _write_wav(path: Path, pieces: list[tuple[Path | None, float]]) -> None:
    """One mono WAV: each (clip, slot seconds) as the clip followed by silence to the slot's end."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(voice.SAMPLE_RATE)
        written = 0
        at = 0.0
        for clip_path, seconds in pieces:
            at += seconds
            target = round(at * voice.SAMPLE_RATE)
            if clip_path is not None:
                with wave.open(str(clip_path), "rb") as handle:
                    frames = handle.readframes(min(handle.getnframes(), target - written))
                out.writeframes(frames)
                written += len(frames) // 2
            out.writeframes(b"\x00\x00" * (target - written))
            written = target


def narrate_scene(scene: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    """Make the scene's narrated cut, captions, timing and stills; return the timing record."""
    if shutil.which("ffmpeg") is None:
        raise ToolMissingError("ffmpeg is missing; run `make setup` to install it")
    from PIL import Image

    publish = lecture.publish
    voice.check_voice(publish)
    workspace = current()
    report_path = workspace.renders(quality) / f"{scene}.report.json"
    report = json.loads(report_path.read_text())
    slides = json.loads((workspace.slides(quality) / f"{scene}.json").read_text())["slides"]
    narrations = report.get("narrations") or report["notes"]
    alts = report.get("alts") or [""] * len(slides)
    if len(narrations) != len(slides):
        raise StageFailed(f"{scene}: {len(narrations)} narrations for {len(slides)} slides; render it again")
    fps = float(report["fps"])
    files = [workspace.root / "slides" / slide["file"] for slide in slides]
    warnings: list[str] = []
    records: list[dict[str, Any]] = []
    cues: list[captions.Cue] = []
    pieces: list[tuple[Path | None, float]] = []
    made: list[int] = []  # slides whose clip this run synthesised (not found in the voice cache)
    start = 0.0
    for number, (slide, path, text, alt) in enumerate(zip(slides, files, narrations, alts), start=1):
        where = f"{scene} slide {number}"
        if not text.strip():
            raise SeqanimError(f"{where}: the narration formats to an empty string; give next_slide a narration=...")
        clip = _audio_for(scene, number, text, publish, warnings)
        speech = clip.seconds if clip else reading_seconds(text, publish.words_per_minute)
        video = _video_seconds(path)
        slot = max(video, speech + publish.gap_s)
        slot = math.ceil(slot * fps - 1e-6) / fps  # whole frames, so video, audio and cues share one clock
        end = start + slot
        cues += captions.slide_cues(text, start, speech, end, publish.caption_chars, where)
        pieces.append((clip.path if clip else None, slot))
        if clip and clip.synthesised:
            made.append(number)
        records.append(
            {
                "slide": number,
                "start": round(start, 3),
                "end": round(end, 3),
                "animation_seconds": round(video, 3),
                "speech_seconds": round(speech, 3),
                "loop": bool(slide.get("loop")),
                "narration": text,
                "alt": alt,
                "audio": clip.path.name if clip else None,  # in the voice cache (seqanim.voice.cache_dir)
                "source": clip.source if clip else "reading time",
                "lufs": clip.lufs if clip else None,
                "still": f"stills/{scene}/{number}.png",
                "video": workspace.label(path),
            }
        )
        start = end
    has_audio = any(clip_path is not None for clip_path, _ in pieces)
    out = outputs(scene, quality)
    renders = workspace.renders(quality)
    with tempfile.TemporaryDirectory(prefix=f".stage-narration-{scene}-", dir=renders) as tmp:
        folder = Path(tmp)
        srt = folder / "captions.srt"
        srt.write_text(captions.to_srt(cues))
        audio = folder / "narration.wav"
        if has_audio:
            _write_wav(audio, pieces)
        staged = folder / "narrated.mp4"
        encode(records, fps, audio if has_audio else None, srt, publish.language, staged, quality)
        stills = folder / "stills"
        stills.mkdir()
        for record in records:
            buffer = io.BytesIO()
            Image.fromarray(last_frame(workspace.root / record["video"])).save(buffer, format="PNG")
            (stills / f"{record['slide']}.png").write_bytes(buffer.getvalue())
        os.replace(staged, out["video"])
        atomic_write_text(out["vtt"], captions.to_vtt(cues, publish.language))
        atomic_write_bytes(out["srt"], srt.read_bytes())
        out["stills"].parent.mkdir(parents=True, exist_ok=True)
        replace_dir(stills, out["stills"])
    timing = {
        "scene": scene,
        "quality": quality,
        "voice": publish.voice,
        "fps": fps,
        "duration": round(start, 3),
        "animation": round(sum(record["animation_seconds"] for record in records), 3),
        "warnings": warnings,
        "cues": [[cue.start, cue.end, list(cue.lines)] for cue in cues],
        "slides": records,
    }
    atomic_write_text(out["timing"], json.dumps(timing, indent=1) + "\n")
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    # How this run made the cut is said in the log, not in the file: the file is the same whether a clip
    # came from the voice cache or was synthesised (a build resumed after a kill must equal an uninterrupted one).
    which = f" (slide {', '.join(map(str, made))})" if made else ""
    print(f"{scene}: synthesised {len(made)} of {len(records)} slide clips{which}", file=sys.stderr)
    return {**timing, "synthesised": len(made)}


def encode(
    records: list[dict[str, Any]],
    fps: float,
    audio: Path | None,
    srt: Path,
    language: str,
    target: Path,
    quality: str = "low",
) -> None:
    """The paced video: each slide's animation, then its hold (last frame, or the loop again) to its slot's
    end; with the narration track and the captions as a mov_text stream. One ffmpeg run, one encode."""
    command = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
    filters: list[str] = []
    for index, record in enumerate(records):
        frames = round((record["end"] - record["start"]) * fps)
        if record["loop"]:
            command += ["-stream_loop", "-1"]
            hold = ""
        else:
            hold = f"tpad=stop_mode=clone:stop_duration={frames / fps + 1:.3f},"
        command += ["-i", str(current().root / record["video"])]
        filters.append(f"[{index}:v]fps={fps:g},{hold}trim=end_frame={frames},setpts=PTS-STARTPTS[v{index}]")
    joined = "".join(f"[v{index}]" for index in range(len(records)))
    filters.append(f"{joined}concat=n={len(records)}:v=1:a=0[video]")
    inputs = len(records)
    maps = ["-map", "[video]"]
    if audio is not None:
        command += ["-i", str(audio)]
        maps += ["-map", f"{inputs}:a"]
        inputs += 1
    command += ["-i", str(srt)]
    maps += ["-map", f"{inputs}:s"]
    command += ["-filter_complex", ";".join(filters), *maps, *video_codec(quality), "-r", f"{fps:g}"]
    if audio is not None:
        command += AUDIO_CODEC
    command += ["-c:s", "mov_text", "-metadata:s:s:0", f"language={language_639_2(language)}"]
    command += ["-movflags", "+faststart", str(target)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        tool_wrote_to_a_full_disk(result.stderr, target)
        last = (result.stderr.strip().splitlines() or ["?"])[-1]
        raise StageFailed(f"ffmpeg could not pace the narrated cut: {last}")
