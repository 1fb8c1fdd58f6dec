"""A scene's narrated cut: its speech-paced video with every beat's words as audio, and captions on the words.

The build runs this once per scene and quality (stage `narration:<q>:<Scene>`), after the scene's render. The
render already paced every beat to its words (`LectureSlide.beat`): each beat lasts as long as its speech,
its animations take their run times from it, and the render's report says where each beat starts and when
each of its words falls. So the cut is the render itself, nothing slowed, held or moved:

- each beat's clip from `seqanim.publish.voice` (the one the render was timed by, found in the voice cache) starts
  where the beat starts; silence elsewhere. A slide without beats says its narration from its start, its last
  frame held (a loop playing on) while the narration lasts. With `voice = "none"` there is no audio;
- `renders/<q>/<Scene>.narrated.mp4`: the video above a caption band, the narration (AAC) and a soft subtitle
  track per language of `[publish] languages`; `renders/<q>/<Scene>.vtt` / `.srt`: its captions
  (`seqanim.publish.captions.word_cues`), and `<Scene>.<code>.vtt` / `.srt` in each other language: each beat's
  translation (`seqanim.author.translate`) timed over the speech it translates (`captions.translated_cues`);
- `renders/<q>/<Scene>.narration.json`: every slide's interval, narration, alt text, beats with their word
  times, and audio pieces (decks join these into the deck's video, captions, HTML timings and transcript);
- `slides/<q>/stills/<Scene>/<n>.png`: every slide's last frame (the transcript's pictures).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import wave
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from seqanim.errors import SeqanimError, StageFailed, ToolMissingError
from seqanim.files import atomic_write_text, replace_dir, tool_wrote_to_a_full_disk
from seqanim.lecture.config import Lecture, Publish
from seqanim.lecture.languages import LANGUAGES
from seqanim.publish import captions, voice
from seqanim.publish.frames import frame_count, last_frame
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


def outputs(scene: str, quality: str, languages: Sequence[str] = ("en",)) -> dict[str, Path]:
    """Every file a scene's narration stage writes, with the captions in each of `languages`."""
    renders = current().renders(quality)
    return {
        "video": renders / f"{scene}.narrated.mp4",
        **captions.caption_files(renders, scene, languages),
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


# The bottom share of the published frame kept for captions: two lines of a player's subtitles.
CAPTION_BAND = 0.14


def background_hex(lecture: Lecture) -> str:
    """The lecture's background colour (the caption band's), as ffmpeg reads a colour: 0xRRGGBB."""
    from seqanim.kit.style import style_of  # the style alone: seqanim.kit.theme would import manim

    return "0x" + style_of(**lecture.theme.model_dump()).role("background").removeprefix("#").upper()


def reading_seconds(text: str, words_per_minute: int) -> float:
    return len(text.split()) * 60.0 / words_per_minute


def subtitle_tags(subtitles: Sequence[tuple[Path, str]]) -> list[str]:
    """ffmpeg's options tagging each subtitle track with its language (ISO 639-2) and name; the first, the
    scenes' own language, is the default track."""
    options = []
    for index, (_, code) in enumerate(subtitles):
        language = LANGUAGES[code]
        options += [f"-metadata:s:s:{index}", f"language={language.iso639_2}"]
        options += [f"-metadata:s:s:{index}", f"handler_name={language.name}"]
        options += [f"-disposition:s:{index}", "default" if index == 0 else "0"]
    return options


def track_inputs(first: int, audio: Path | None, subtitles: Sequence[tuple[Path, str]]) -> tuple[list[str], list[str]]:
    """ffmpeg's `-i` and `-map` options for the narration track (when there is audio) and each subtitle file,
    their inputs numbered from `first`."""
    tracks = [(audio, "a")] if audio is not None else []
    tracks += [(srt, "s") for srt, _ in subtitles]
    inputs = [option for path, _ in tracks for option in ("-i", str(path))]
    return inputs, [option for index, (_, kind) in enumerate(tracks, first) for option in ("-map", f"{index}:{kind}")]


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


@dataclass
class Narrated:
    """One slide in the cut: its audio pieces (clip or None for silence, seconds of the slot, words, seconds of
    speech, its beat or None for the whole slide), its beats' words on the cut's clock, and how long its last
    frame is held after its video (a slide without beats whose narration outlasts it)."""

    pieces: list[tuple[voice.Clip | None, float, str, float, int | None]] = field(default_factory=list)
    words: list[list[voice.Word]] = field(default_factory=list)
    beats: list[dict[str, Any]] = field(default_factory=list)
    held: float = 0.0
    speech: float = 0.0


def _narrate_beats(
    scene: str, number: int, beats: list[dict[str, Any]], seconds: float, start: float, publish: Publish,
    warnings: list[str],
) -> Narrated:  # fmt: skip
    """A slide paced beat by beat: each beat's clip where the beat starts, silence between."""
    slide, at = Narrated(), 0.0
    for index, beat in enumerate(beats, start=1):
        clip = voice.slide_clip(scene, number, beat["said"], publish, warnings, beat=index)
        if beat["start"] > at:
            slide.pieces.append((None, beat["start"] - at, "", 0.0, None))
        at = max(at, beat["start"])
        ends = beats[index]["start"] if index < len(beats) else seconds
        speech = clip.seconds if clip else beat["speech"]
        if clip and abs(clip.seconds - beat["speech"]) > 1e-3:
            raise StageFailed(
                f"{scene} slide {number} beat {index}: its clip is not the one it was rendered to; render it again"
            )
        slide.pieces.append((clip, ends - at, beat["said"], speech, index))
        slide.speech += speech
        words = [
            (word, round(start + beat["start"] + a, 3), round(start + beat["start"] + b, 3))
            for word, a, b in beat["words"]
        ]
        slide.words.append(words)
        begins = start + beat["start"]
        slide.beats.append({
            "said": beat["said"], "start": round(begins, 3), "words_end": round(begins + speech, 3),
            "timing": beat["timing"], "source": clip.source if clip else "reading time",
            "words": [list(word) for word in words], "translations": beat["translations"],
        })  # fmt: skip
        at = ends
    return slide


def _narrate_whole(
    scene: str, number: int, text: str, seconds: float, start: float, publish: Publish, warnings: list[str]
) -> Narrated:
    """A slide without beats: its narration from its start, its last frame held while the words go on."""
    from seqanim.author.slide import reading_speech
    from seqanim.publish.voice import written_words

    clip = voice.slide_clip(scene, number, text, publish, warnings)
    speech = clip.seconds if clip else reading_seconds(text, publish.words_per_minute)
    slide = Narrated(held=max(0.0, speech + publish.gap_s - seconds), speech=speech)
    slide.pieces.append((clip, seconds + slide.held, text, speech, None))
    heard = written_words(text, clip.words) if clip else reading_speech(text, publish.words_per_minute).words
    slide.words.append([(word, round(start + a, 3), round(start + b, 3)) for word, a, b in heard])
    return slide


class Translated:
    """A scene's captions in each language after the first, slide by slide: each beat's translation timed over
    its speech; where a beat has none, its own words. Each slide's words in that language (the transcript's)."""

    def __init__(self, scene: str, languages: Sequence[str], width: int, fps: float) -> None:
        self.scene, self.width, self.fps = scene, width, fps
        self.cues: dict[str, list[captions.Cue]] = {code: [] for code in languages}
        self.missing: dict[str, list[str]] = {code: [] for code in languages}  # beats without words in it
        self.untranslatable: list[int] = []  # slides said from their notes (no beats): nothing translates them
        self.narrations: list[dict[str, str]] = []

    def add(self, number: int, slide: Narrated, until: float, warnings: list[str]) -> None:
        where = f"{self.scene} slide {number}"
        self.narrations.append({})
        for code, cues in self.cues.items():
            texts = [beat["translations"].get(code) for beat in slide.beats] or [None] * len(slide.words)
            speed = LANGUAGES[code].reading_speed
            found, misfits = captions.translated_cues(slide.words, texts, self.width, self.fps, where, until, speed)
            cues += found
            if slide.beats:
                self.missing[code] += [f"slide {number} beat {i}" for i, text in enumerate(texts, 1) if not text]
            elif number not in self.untranslatable:
                self.untranslatable.append(number)
            warnings += [
                f"{where} beat {beat + 1} ({code}): {chars} characters more than fit its time; shorten its words in "
                f"{self.words_file(code)}"
                for beat, chars in misfits.items()
            ]
            limits = captions.problems(found, self.width, self.fps, translated=True, reading_speed=speed, fit=False)
            warnings += [f"{where} ({code}) {line}" for line in limits]
            if all(texts):  # a slide in part translated is shown in its own words (the transcript says which)
                self.narrations[-1][code] = " ".join(text for text in texts if text)

    def words_file(self, code: str) -> str:
        from seqanim.lecture import registry

        return current().label(registry.scene(self.scene).source.parent / f"{code}.py")

    def missing_lines(self) -> list[str]:
        """One warning line per language whose captions show some of the scene's own words: its beats without
        words in that language, and its slides said from their notes (no beats, so no words to translate)."""
        lines = []
        for code, beats in self.missing.items():
            said = []
            if beats:
                shown = ", ".join(beats[:4]) + (", ..." if len(beats) > 4 else "")
                said.append(
                    f"{len(beats)} beat{'s' * (len(beats) != 1)} without {LANGUAGES[code].name} words ({shown})"
                )
            if self.untranslatable:
                slides = ", ".join(map(str, self.untranslatable))
                said.append(f"slides said from their notes ({slides}), which only beats can translate")
            if said:
                where = f"write the beats' words in {self.words_file(code)}" if beats else "give those slides beats"
                lines.append(f"{self.scene}: {' and '.join(said)}; the {code} captions show their own words: {where}")
        return lines


def narrate_scene(scene: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    """Make the scene's narrated cut, captions, timing and stills; return the timing record."""
    if shutil.which("ffmpeg") is None:
        raise ToolMissingError("ffmpeg is missing; run `make setup` to install it")
    publish = lecture.publish
    voice.check_voice(publish)
    workspace = current()
    report, slides, narrations, alts, beats_of = _rendered(scene, quality)
    fps = float(report["fps"])
    warnings: list[str] = []
    records: list[dict[str, Any]] = []
    cues: list[captions.Cue] = []
    translated = Translated(scene, publish.languages[1:], publish.caption_chars, fps)
    pieces: list[tuple[Path | None, float]] = []
    made: list[int] = []  # slides whose clip this run synthesised (not found in the voice cache)
    start = 0.0
    for number, (slide, text, alt, beats) in enumerate(zip(slides, narrations, alts, beats_of), 1):
        where = f"{scene} slide {number}"
        if not text.strip():
            raise SeqanimError(f"{where}: the narration formats to an empty string; give next_slide a narration=...")
        path = workspace.root / "slides" / slide["file"]
        seconds = frame_count(path) / fps
        if beats:
            narrated = _narrate_beats(scene, number, beats, seconds, start, publish, warnings)
        else:
            narrated = _narrate_whole(scene, number, text, seconds, start, publish, warnings)
        end = start + seconds + narrated.held  # the slide's end: its cues end before it
        cues += captions.word_cues(narrated.words, publish.caption_chars, fps, where, end)
        translated.add(number, narrated, end, warnings)
        pieces += [(piece[0].path if piece[0] else None, piece[1]) for piece in narrated.pieces]
        if any(piece[0].synthesised for piece in narrated.pieces if piece[0]):
            made.append(number)
        records.append(_slide_record(scene, number, slide, text, alt, narrated, (start, end), seconds, path))
        records[-1]["translations"] = translated.narrations[-1]
        start = end
    warnings += translated.missing_lines()
    _publish_cut(scene, quality, lecture, report, records, {publish.languages[0]: cues, **translated.cues}, pieces)
    timing = {
        "scene": scene,
        "quality": quality,
        "voice": publish.voice,
        "fps": fps,
        "duration": round(start, 3),
        "animation": round(sum(record["animation_seconds"] for record in records), 3),
        "warnings": warnings,
        "cues": [[cue.start, cue.end, list(cue.lines)] for cue in cues],
        # the cues in each other language, as above
        "translated_cues": {
            code: [[cue.start, cue.end, list(cue.lines)] for cue in found] for code, found in translated.cues.items()
        },
        "slides": records,
    }
    atomic_write_text(outputs(scene, quality)["timing"], json.dumps(timing, indent=1) + "\n")
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    # How this run made the cut is said in the log, not in the file: the file is the same whether a clip
    # came from the voice cache or was synthesised (a build resumed after a kill must equal an uninterrupted one).
    which = f" (slide {', '.join(map(str, made))})" if made else ""
    print(f"{scene}: synthesised {len(made)} of {len(records)} slide clips{which}", file=sys.stderr)
    return {**timing, "synthesised": len(made)}


def _rendered(scene: str, quality: str) -> tuple[dict[str, Any], list[Any], list[str], list[str], list[Any]]:
    """The scene's render: its report, its slide videos, and per slide its narration, alt text and beats."""
    report = json.loads((current().renders(quality) / f"{scene}.report.json").read_text())
    slides = json.loads((current().slides(quality) / f"{scene}.json").read_text())["slides"]
    narrations, alts, beats_of = report["narrations"], report["alts"], report["beats"]
    if not (len(narrations) == len(beats_of) == len(slides)):
        raise StageFailed(f"{scene}: {len(narrations)} narrations for {len(slides)} slides; render it again")
    return report, slides, narrations, alts, beats_of


def _slide_record(
    scene: str,
    number: int,
    slide: dict[str, Any],
    text: str,
    alt: str,
    narrated: Narrated,
    span: tuple[float, float],
    seconds: float,
    video: Path,
) -> dict[str, Any]:
    """One slide's entry in the timing record: where it lies in the cut, what it says and where that comes from."""
    clips = [piece[0] for piece in narrated.pieces if piece[0]]
    return {
        "slide": number,
        "start": round(span[0], 3),
        "end": round(span[1], 3),
        "animation_seconds": round(seconds, 4),
        "speech_seconds": round(narrated.speech, 3),
        "held_seconds": round(narrated.held, 3),  # its last frame, after its video (a slide without beats)
        "loop": bool(slide.get("loop")),
        "narration": text,
        "alt": alt,
        # Each beat: its words, where it starts and its words end, and each word's start and end, all on
        # the cut's clock; where the times come from (the voice's model, an estimate, reading time).
        "beats": narrated.beats,
        # The slide's audio, in order: [clip in the voice cache or None for silence, seconds, words,
        # seconds of speech at its start, its beat (None: the whole slide's narration)].
        "pieces": [
            [clip.path.name if clip else None, round(seconds, 4), said, round(speech, 4), beat]
            for clip, seconds, said, speech, beat in narrated.pieces
        ],
        "audio": clips[0].path.name if clips else None,  # the first (for a slide in one piece, the) clip
        # Where its speech comes from (a recorded slide with a missing beat: "recorded+espeak"), and
        # each clip's measured loudness.
        "source": "+".join(dict.fromkeys(clip.source for clip in clips)) if clips else "reading time",
        "lufs": [clip.lufs for clip in clips],
        "still": f"stills/{scene}/{number}.png",
        "video": current().label(video),
    }


def _publish_cut(
    scene: str,
    quality: str,
    lecture: Lecture,
    report: dict[str, Any],
    records: list[dict[str, Any]],
    cues: dict[str, list[captions.Cue]],
    pieces: list[tuple[Path | None, float]],
) -> None:
    """Encode the cut, write its captions (`cues` per language) and each slide's still, staged beside renders/
    and moved in whole."""
    from PIL import Image

    workspace = current()
    languages = list(cues)
    out = outputs(scene, quality, languages)
    has_audio = any(clip_path is not None for clip_path, _ in pieces)
    with tempfile.TemporaryDirectory(prefix=f".stage-narration-{scene}-", dir=workspace.renders(quality)) as tmp:
        folder = Path(tmp)
        subtitles = []
        for code, found in cues.items():
            (folder / f"{code}.srt").write_text(captions.to_srt(found))
            subtitles.append((folder / f"{code}.srt", code))
        audio = folder / "narration.wav"
        if has_audio:
            _write_wav(audio, pieces)
        staged = folder / "narrated.mp4"
        encode(
            records, float(report["fps"]), audio if has_audio else None, subtitles, staged,
            quality, tuple(report["resolution"]), background_hex(lecture),
        )  # fmt: skip
        stills = folder / "stills"
        stills.mkdir()
        for record in records:
            buffer = io.BytesIO()
            Image.fromarray(last_frame(workspace.root / record["video"])).save(buffer, format="PNG")
            (stills / f"{record['slide']}.png").write_bytes(buffer.getvalue())
        os.replace(staged, out["video"])
        captions.write_captions(out["video"].parent, scene, cues)
        out["stills"].parent.mkdir(parents=True, exist_ok=True)
        replace_dir(stills, out["stills"])


def encode(
    records: list[dict[str, Any]],
    fps: float,
    audio: Path | None,
    subtitles: list[tuple[Path, str]],
    target: Path,
    quality: str,
    size: tuple[int, int],
    band: str,
) -> None:
    """The cut: each slide's video as rendered (its last frame held, or its loop playing on, for a slide without
    beats whose words outlast it), the picture above a caption band; with the narration track and the captions
    of each language (SubRip file, language code) as mov_text streams. One ffmpeg run, one encode."""
    command = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
    # The caption band: the picture shrinks to leave the bottom CAPTION_BAND of the frame to the captions (a
    # player draws soft subtitles at the bottom), so no caption ever covers what a scene draws there.
    width, height = size
    picture = (2 * round(width * (1 - CAPTION_BAND) / 2), 2 * round(height * (1 - CAPTION_BAND) / 2))
    filters: list[str] = []
    for index, record in enumerate(records):
        held = record["held_seconds"]
        if held > 0 and record["loop"]:
            command += ["-stream_loop", "-1"]
        command += ["-i", str(current().root / record["video"])]
        frames = round((record["end"] - record["start"]) * fps)
        extend = f"tpad=stop_mode=clone:stop_duration={held + 1:.3f}," if held > 0 and not record["loop"] else ""
        filters.append(f"[{index}:v]{extend}fps={fps:g},trim=end_frame={frames},setpts=PTS-STARTPTS[v{index}]")
    joined = "".join(f"[v{index}]" for index in range(len(records)))
    filters.append(f"{joined}concat=n={len(records)}:v=1:a=0,scale={picture[0]}:{picture[1]}[cut]")
    filters.append(f"[cut]pad={width}:{height}:{(width - picture[0]) // 2}:0:color={band}[video]")
    tracks, maps = track_inputs(len(records), audio, subtitles)
    command += [*tracks, "-filter_complex", ";".join(filters), "-map", "[video]", *maps]
    command += [*video_codec(quality), "-r", f"{fps:g}"]
    if audio is not None:
        command += AUDIO_CODEC
    command += ["-c:s", "mov_text", *subtitle_tags(subtitles)]
    run_ffmpeg([*command, "-movflags", "+faststart"], target, "make the narrated cut")


def run_ffmpeg(command: list[str], target: Path, what: str) -> None:
    """Run `command` writing `target`; a failure is one line: the full disk, else `what` failed and ffmpeg's
    last line."""
    result = subprocess.run([*command, str(target)], capture_output=True, text=True)
    if result.returncode != 0:
        tool_wrote_to_a_full_disk(result.stderr, target)
        raise StageFailed(f"ffmpeg could not {what}: {(result.stderr.strip().splitlines() or ['?'])[-1]}")
