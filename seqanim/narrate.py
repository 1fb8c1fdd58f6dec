"""A scene's narrated cut: every slide's narration as audio, paced against its animation, with captions.

The build runs this once per scene and quality (stage `narration:<q>:<Scene>`), after the scene's render:

- each slide's audio comes from `seqanim.voice` (cached per text and voice: an unchanged slide costs a lookup);
- pacing, speech first: a slide written in beats (`LectureSlide.beat`) is cut beat by beat. Each beat's words
  are spoken while its animations run, slowed down to fill the speech (by at most `MAX_STRETCH`), the last
  frame holding for what is left of it, then `[publish] gap_s`; animations outside any beat keep their pace.
  A slide without beats (or with one recording for the whole slide) starts its narration with its animation
  and holds its last frame (a looping slide plays its loop) until the narration ends plus `gap_s`. With
  `voice = "none"` a narration lasts its reading time at `[publish] words_per_minute`;
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seqanim import captions, voice
from seqanim.config import Lecture, Publish
from seqanim.errors import SeqanimError, StageFailed, ToolMissingError
from seqanim.files import atomic_write_bytes, atomic_write_text, replace_dir, tool_wrote_to_a_full_disk
from seqanim.frames import frame_count, last_frame
from seqanim.workspace import current

# The narrated cut is encoded once per scene, in every build that changes it (CI builds at low quality): at
# low quality x264's ultrafast preset takes 2.2 s where veryfast takes 5.6 s (CausalMask, 1:53 of video),
# for files 3x larger; publishing qualities take the smaller files. AAC's fast coder: 3.0 s instead of 12.9 s
# for 7.5 minutes of speech.
X264_PRESET = {"preview": "ultrafast", "low": "ultrafast"}
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


# A beat's moving frames are slowed to fill its speech by at most this factor; a longer speech holds the last
# frame for the rest. Up to about 4x a slowed manim animation still reads as motion (at 60 fps: 15 distinct
# frames a second; a 15 fps preview stutters); beyond it a held frame is the honest choice.
MAX_STRETCH = 4.0
# A frame "moves" when some pixel's brightness changed by more than this since the frame before (above the
# noise of the video's encoding).
MOTION_LEVEL = 8


# While the picture would stand still (a held frame, a pause, an animation slowed to fill its speech) the cut's
# camera leans slowly in toward what the beat drew and back out, at this rate of zoom a second: measured with
# ffmpeg's freezedetect at n=0.001 on a held QueryKeyValue frame, 0.05 %/s still reads as frozen, 0.1 %/s
# does not; at 0.25 %/s the push is felt rather than seen. Animations at their own pace keep a still camera.
CAMERA_RATE = 0.0025


@dataclass
class Segment:
    """A stretch of a slide's video in the cut: frames [first, last) played `stretch` times slower, then the
    last one held, `frames` frames in all, while audio piece `piece` of the slide plays. `camera`: whether the
    camera moves during it (everything but animation at its own pace)."""

    first: int
    last: int
    stretch: float
    frames: int
    piece: int
    camera: bool = True


@dataclass
class Paced:
    """One slide in the cut: its video segments, its audio pieces (clip or silence, seconds, words) and cues."""

    segments: list[Segment] = field(default_factory=list)
    # (clip or None for silence, seconds, words, seconds of speech, its beat or None for the whole slide)
    pieces: list[tuple[voice.Clip | None, float, str, float, int | None]] = field(default_factory=list)
    cues: list[captions.Cue] = field(default_factory=list)
    speech: float = 0.0

    @property
    def frames(self) -> int:
        return sum(segment.frames for segment in self.segments)


# The bottom share of the published frame kept for captions: two lines of a player's subtitles.
CAPTION_BAND = 0.14


def background_hex(lecture: Lecture) -> str:
    """The lecture's background colour (the caption band's), as ffmpeg reads a colour: 0xRRGGBB."""
    from seqanim.kit import theme

    theme.configure(**lecture.theme.model_dump())
    return "0x" + theme.background().to_hex()[1:7]


def reading_seconds(text: str, words_per_minute: int) -> float:
    return len(text.split()) * 60.0 / words_per_minute


def language_639_2(tag: str) -> str:
    """The three-letter code MP4 stores for a BCP 47 tag ("en" -> "eng"); ffmpeg maps it when it can."""
    primary = tag.split("-")[0].lower()
    return {"en": "eng", "de": "ger", "fr": "fre", "es": "spa", "it": "ita", "pt": "por", "nl": "dut",
            "zh": "chi", "ja": "jpn", "ko": "kor", "ru": "rus", "pl": "pol", "sv": "swe", "tr": "tur",
            "ar": "ara", "hi": "hin", "el": "gre", "cs": "cze", "da": "dan", "fi": "fin", "no": "nor",
            "uk": "ukr", "he": "heb"}.get(primary, primary if len(primary) == 3 else "und")  # fmt: skip


def _audio_for(
    scene: str, number: int, text: str, publish: Publish, warnings: list[str], beat: int | None = None
) -> voice.Clip | None:
    """One slide's clip, or one beat's (None with voice none, or a recording's fallback to none)."""
    synthetic = publish.voice
    if publish.voice == "recorded":
        recording = voice.recorded_file(scene, number, beat)
        if recording is not None:
            return voice.clip(text, publish, recorded=recording)
        synthetic = publish.fallback_voice
        which = f"slide {number}" if beat is None else f"slide {number} beat {beat}"
        name = f"{number}" if beat is None else f"{number}.{beat}"
        warnings.append(
            f"narration/{scene}/{name}.wav (or .flac/.mp3) is missing: {scene} {which} uses the {synthetic} voice"
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


def _speech(clip: voice.Clip | None, text: str, publish: Publish) -> float:
    return clip.seconds if clip else reading_seconds(text, publish.words_per_minute)


def _pace_slide(
    scene: str, number: int, text: str, loop: bool, video_frames: int, fps: float, start: float,
    publish: Publish, warnings: list[str],
) -> Paced:  # fmt: skip
    """A slide narrated as one piece: its narration starts with its animation, and its last frame holds (or its
    loop plays on) until the narration has ended, plus the gap."""
    clip = _audio_for(scene, number, text, publish, warnings)
    speech = _speech(clip, text, publish)
    frames = max(video_frames, math.ceil((speech + publish.gap_s) * fps - 1e-6))
    cues = captions.slide_cues(
        text, start, speech, start + frames / fps, publish.caption_chars, f"{scene} slide {number}"
    )
    pieces = [(clip, frames / fps, text, speech, None)]
    if loop:  # stretch 0: the loop plays again instead of holding
        return Paced([Segment(0, video_frames, 0.0, frames, 0, camera=False)], pieces, cues, speech)
    segments = [Segment(0, video_frames, 1.0, video_frames, 0, camera=False)]
    if frames > video_frames:  # the last frame (the slide's end state) holds
        segments.append(Segment(video_frames - 1, video_frames, 1.0, frames - video_frames, 0))
    return Paced(segments, pieces, cues, speech)


def _pace_beats(
    scene: str, number: int, beats: list[dict[str, Any]], moving: list[bool], fps: float, start: float,
    publish: Publish, warnings: list[str],
) -> Paced:  # fmt: skip
    """A slide narrated beat by beat: while a beat's words are spoken its frames that move play slowed to fill
    the speech (at most MAX_STRETCH times), its still frames (a pause written into the scene) at their pace, and
    its last frame holds for the rest and the gap; what lies between beats plays at its pace, silent."""
    paced, at = Paced(), 0
    where = f"{scene} slide {number}"

    def between(first: int, last: int) -> None:  # animations outside any beat: silent, at their own pace
        if last > first:
            still = not any(moving[first:last])
            paced.segments.append(Segment(first, last, 1.0, last - first, len(paced.pieces), camera=still))
            paced.pieces.append((None, (last - first) / fps, "", 0.0, None))

    for index, beat in enumerate(beats, start=1):
        first, last = round(beat["start"] * fps), round(beat["end"] * fps)
        between(at, first)
        clip = _audio_for(scene, number, beat["said"], publish, warnings, index)
        speech = _speech(clip, beat["said"], publish)
        frames = max(last - first, math.ceil((speech + publish.gap_s) * fps - 1e-6))
        segments = _stretched(first, last, moving, frames, len(paced.pieces))
        cue_start = start + paced.frames / fps
        paced.cues += captions.slide_cues(
            beat["said"], cue_start, speech, cue_start + frames / fps, publish.caption_chars, where
        )
        paced.segments += segments
        paced.pieces.append((clip, frames / fps, beat["said"], speech, index))
        paced.speech += speech
        at = max(at, round(beat["end"] * fps))
    between(at, len(moving))
    return paced


def _stretched(first: int, last: int, moving: list[bool], frames: int, piece: int) -> list[Segment]:
    """Frames [first, last) filling `frames`: runs of moving frames slowed alike, still runs as they are, then
    the beat's end state held for what is left: frame `last`, the first frame after the beat's animations
    (manim writes an animation's frames before its end, so its last frame is not yet its end state)."""
    held = min(first if last == first else last, len(moving) - 1)
    runs: list[list[int]] = []  # [first, last, moves]
    for frame in range(first, last):
        moves = moving[frame]
        if runs and runs[-1][2] == moves:
            runs[-1][1] = frame + 1
        else:
            runs.append([frame, frame + 1, moves])
    moving_frames = sum(b - a for a, b, moves in runs if moves)
    still_frames = (last - first) - moving_frames
    stretch = min(max((frames - still_frames) / moving_frames, 1.0), MAX_STRETCH) if moving_frames else 1.0
    segments, played, shown = [], 0.0, 0
    for a, b, moves in runs:  # each run gets the frames its slowed length adds to the rounded total (>= 1)
        played += (b - a) * (stretch if moves else 1.0)
        natural = moves and stretch == 1.0  # an animation at its own pace: the camera keeps still
        segments.append(
            Segment(a, b, stretch if moves else 1.0, math.floor(played + 0.5) - shown, piece, camera=not natural)
        )
        shown = math.floor(played + 0.5)
    if frames > shown:
        segments.append(Segment(held, held + 1, 1.0, frames - shown, piece))
    return segments


def camera_path(paced: Paced, beats: list[dict[str, Any]], fps: float, push: float) -> dict[str, Any] | None:
    """The slide's camera: over the camera's time (the frames of its moving segments) it leans in toward a
    beat's focus and back out, in whole cycles of `period` seconds, by `push` at the peak; each cycle leans
    toward the focus of the beat whose speech is heard at its peak. None: a still camera."""
    seconds = sum(segment.frames for segment in paced.segments if segment.camera) / fps
    if push <= 0 or seconds <= 0:
        return None
    cycles = max(1, round(seconds * CAMERA_RATE / (2 * push)))
    period = seconds / cycles
    foci, at, peak = [], 0.0, 0
    for segment in paced.segments:
        span = segment.frames / fps if segment.camera else 0.0
        while peak < cycles and at + span >= (peak + 0.5) * period:
            beat = paced.pieces[segment.piece][4]
            box = beats[beat - 1].get("focus") if beat else None
            foci.append([0.5, 0.5] if not box else [round((box[0] + box[2]) / 2, 4), round((box[1] + box[3]) / 2, 4)])
            peak += 1
        at += span
    foci += [[0.5, 0.5]] * (cycles - len(foci))
    return {"period": round(period, 4), "push": round(min(push, CAMERA_RATE * period / 2), 5), "foci": foci}


def perspective(camera: dict[str, Any], start: float, fps: float) -> str:
    """ffmpeg's perspective filter for a segment starting `start` seconds into the slide's camera time: the zoom
    rises and falls linearly within each cycle; the picture scales about the cycle's focus (so the view never
    leaves the frame), and the focus changes only where the zoom is back to 1."""
    period, push, foci = camera["period"], camera["push"], camera["foci"]
    time = f"({start:.4f}+in/{fps:g})"
    zoom = f"(1+{push}*(1-abs(1-2*mod({time}/{period},1))))"

    def by_cycle(axis: int) -> str:  # the cycle's focus: nested ifs on the camera time
        expression = f"{foci[-1][axis]}"
        for index in range(len(foci) - 2, -1, -1):
            expression = f"if(lt({time},{(index + 1) * period:.4f}),{foci[index][axis]},{expression})"
        return expression

    x, y = by_cycle(0), by_cycle(1)
    near = {"x": f"W*{x}*(1-1/{zoom})", "y": f"H*{y}*(1-1/{zoom})"}
    far = {"x": f"W*({x}+(1-{x})/{zoom})", "y": f"H*({y}+(1-{y})/{zoom})"}
    corners = [("x", near), ("y", near), ("x", far), ("y", near), ("x", near), ("y", far), ("x", far), ("y", far)]
    names = ["x0", "y0", "x1", "y1", "x2", "y2", "x3", "y3"]
    options = ":".join(f"{name}='{side[axis]}'" for name, (axis, side) in zip(names, corners))
    return f"perspective={options}:eval=frame:interpolation=linear"


def motion(video: Path) -> list[bool]:
    """Per frame of a slide's video, whether it differs visibly from the frame before (the first always does)."""
    import av
    import numpy as np

    flags, previous = [], None
    with av.open(str(video)) as container:
        for frame in container.decode(container.streams.video[0]):
            luma = frame.to_ndarray(format="gray")[::2, ::2].astype(np.int16)
            flags.append(previous is None or bool(np.abs(luma - previous).max() > MOTION_LEVEL))
            previous = luma
    return flags


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
    beats_of = report.get("beats") or [[] for _ in slides]
    for number, (slide, path, text, alt, beats) in enumerate(zip(slides, files, narrations, alts, beats_of), 1):
        where = f"{scene} slide {number}"
        if not text.strip():
            raise SeqanimError(f"{where}: the narration formats to an empty string; give next_slide a narration=...")
        recorded = publish.voice == "recorded" and voice.recorded_file(scene, number) is not None
        if beats and not slide.get("loop") and not recorded:
            moving = motion(path)
            video_frames = len(moving)
            paced = _pace_beats(scene, number, beats, moving, fps, start, publish, warnings)
        else:
            beats = []
            video_frames = frame_count(path)
            paced = _pace_slide(
                scene, number, text, bool(slide.get("loop")), video_frames, fps, start, publish, warnings
            )
        end = start + paced.frames / fps
        cues += paced.cues
        pieces += [(piece[0].path if piece[0] else None, piece[1]) for piece in paced.pieces]
        clips = [piece[0] for piece in paced.pieces if piece[0]]
        if any(clip.synthesised for clip in clips):
            made.append(number)
        records.append(
            {
                "slide": number,
                "start": round(start, 3),
                "end": round(end, 3),
                "animation_seconds": round(video_frames / fps, 4),
                "speech_seconds": round(paced.speech, 3),
                "loop": bool(slide.get("loop")),
                "narration": text,
                "alt": alt,
                # The slide's audio, in order: [clip in the voice cache or None for silence, seconds, words,
                # seconds of speech at its start, its beat (None: the whole slide's narration)].
                "pieces": [
                    [clip.path.name if clip else None, round(seconds, 4), said, round(speech, 4), beat]
                    for clip, seconds, said, speech, beat in paced.pieces
                ],
                "audio": clips[0].path.name if clips else None,  # the first (for a slide in one piece, the) clip
                # Where its speech comes from (a recorded slide with a missing beat: "recorded+espeak"), and
                # each clip's measured loudness.
                "source": "+".join(dict.fromkeys(clip.source for clip in clips)) if clips else "reading time",
                "lufs": [clip.lufs for clip in clips],
                # Which frames of the slide's video show, how much slowed, for how many frames, over which piece,
                # and whether the camera moves meanwhile; the camera's path (None: still).
                "segments": [
                    [seg.first, seg.last, round(seg.stretch, 4), seg.frames, seg.piece, seg.camera]
                    for seg in paced.segments
                ],
                "camera": camera_path(paced, beats, fps, publish.camera_push),
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
        width, height = report["resolution"]
        encode(
            records, fps, audio if has_audio else None, srt, publish.language, staged, quality, (width, height),
            background_hex(lecture),
        )  # fmt: skip
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
    quality: str,
    size: tuple[int, int],
    band: str,
) -> None:
    """The paced video: each slide's segments (a stretch of its video, slowed, then its last frame held; or
    its loop again) to its slot's end, the picture above a caption band; with the narration track and the
    captions as a mov_text stream. One ffmpeg run, one encode."""
    command = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
    # The caption band: the picture shrinks to leave the bottom CAPTION_BAND of the frame to the captions (a
    # player draws soft subtitles at the bottom), so no caption ever covers what a scene draws there. Each
    # segment shrinks before the camera leans: the lean then works on fewer pixels.
    width, height = size
    picture = (2 * round(width * (1 - CAPTION_BAND) / 2), 2 * round(height * (1 - CAPTION_BAND) / 2))
    filters: list[str] = []
    outputs = 0
    for inputs, record in enumerate(records):
        segments, camera, camera_time = record["segments"], record["camera"], 0.0
        if segments[0][2] == 0:  # a loop plays again until its slot ends
            command += ["-stream_loop", "-1"]
        command += ["-i", str(current().root / record["video"])]
        filters.append(
            f"[{inputs}:v]split={len(segments)}" + "".join(f"[s{outputs + i}]" for i in range(len(segments)))
        )
        for first, last, stretch, frames, _, moves in segments:
            if stretch == 0:
                play = f"fps={fps:g}"
            else:
                play = (
                    f"trim=start_frame={first}:end_frame={last},setpts=(PTS-STARTPTS)*{stretch:.4f},fps={fps:g},"
                    f"tpad=stop_mode=clone:stop_duration={frames / fps + 1:.3f}"
                )
            lean = f",scale={picture[0]}:{picture[1]}"
            if camera and moves:
                lean += "," + perspective(camera, camera_time, fps)
                camera_time += frames / fps
            filters.append(f"[s{outputs}]{play},trim=end_frame={frames},setpts=PTS-STARTPTS{lean}[v{outputs}]")
            outputs += 1
    inputs = len(records)
    joined = "".join(f"[v{index}]" for index in range(outputs))
    filters.append(f"{joined}concat=n={outputs}:v=1:a=0[cut]")
    filters.append(f"[cut]pad={width}:{height}:{(width - picture[0]) // 2}:0:color={band}[video]")
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
