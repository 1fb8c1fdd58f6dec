"""Captions from the narration: lines of at most `[publish] caption_chars` characters, two lines per cue,
each slide's cues spread over its narration (by characters, the way speech runs) and inside its interval.
Written as WebVTT and SubRip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from seqanim.errors import SeqanimError

MIN_CUE_SECONDS = 0.3  # shorter than this nobody can read a cue
LINES_PER_CUE = 2


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    lines: tuple[str, ...]


def wrap(text: str, width: int, where: str) -> list[str]:
    """Greedy word wrap to lines of at most `width` characters; a longer word cannot fit (one-line error)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if len(word) > width:
            raise SeqanimError(
                f"{where}: the caption word {word[:60]!r} is longer than {width} characters; give the slide a "
                "narration=... that breaks it up, or raise [publish] caption_chars"
            )
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def slide_cues(text: str, start: float, seconds: float, end: float, width: int, where: str) -> list[Cue]:
    """Cues for one slide: its narration's lines, two per cue, over [start, start + seconds] (<= end)."""
    lines = wrap(text, width, where)
    if not lines:
        raise SeqanimError(f"{where}: the narration is empty; give the slide notes or a narration=...")
    groups = [tuple(lines[i : i + LINES_PER_CUE]) for i in range(0, len(lines), LINES_PER_CUE)]
    spoken_end = min(start + seconds, end)
    if (spoken_end - start) < MIN_CUE_SECONDS * len(groups):
        raise SeqanimError(
            f"{where}: {len(groups)} caption cues cannot fit in {spoken_end - start:.2f} s; shorten the narration "
            "or record a longer take"
        )
    weights = [sum(len(line) for line in group) for group in groups]
    total = sum(weights)
    cues, at = [], start
    for index, (group, weight) in enumerate(zip(groups, weights)):
        stop = spoken_end if index == len(groups) - 1 else at + (spoken_end - start) * weight / total
        cues.append(Cue(round(at, 3), round(stop, 3), group))
        at = stop
    return cues


def _stamp(seconds: float, separator: str) -> str:
    millis = round(seconds * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{millis:03d}"


def to_vtt(cues: Sequence[Cue], language: str) -> str:
    blocks = [f"WEBVTT\nLanguage: {language}\n"]
    for cue in cues:
        blocks.append(f"{_stamp(cue.start, '.')} --> {_stamp(cue.end, '.')}\n" + "\n".join(cue.lines) + "\n")
    return "\n".join(blocks)


def to_srt(cues: Sequence[Cue]) -> str:
    blocks = []
    for number, cue in enumerate(cues, start=1):
        blocks.append(f"{number}\n{_stamp(cue.start, ',')} --> {_stamp(cue.end, ',')}\n" + "\n".join(cue.lines) + "\n")
    return "\n".join(blocks)


def shifted(cues: Sequence[Cue], offset: float) -> list[Cue]:
    return [Cue(round(cue.start + offset, 3), round(cue.end + offset, 3), cue.lines) for cue in cues]
