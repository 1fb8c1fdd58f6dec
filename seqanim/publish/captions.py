"""Captions from the narration, timed to its words: a cue appears with its first word and leaves just after
its last, in lines of at most `[publish] caption_chars` characters, two lines per cue (Netflix's English
template: at most 17 characters a second, each cue on screen 5/6 s to 7 s, two frames between cues).
Written as WebVTT and SubRip. `problems` names every cue that breaks a limit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from seqanim.errors import SeqanimError
from seqanim.files import atomic_write_text

LINES_PER_CUE = 2
# Netflix's English timed-text template.
SHORTEST_CUE = 5 / 6
LONGEST_CUE = 7.0
CHARACTERS_PER_SECOND = 17.0
FRAMES_BETWEEN_CUES = 2
# A cue appears with its first word and stays at most this long after its last.
TAIL = 0.5
# Captions are timed at every quality; two frames between cues take longest at the slowest rate (preview's).
SLOWEST_FPS = 10
RATE_MARGIN = 0.01  # characters a second that the cues' whole milliseconds can add
SENTENCE_END = (".", "?", "!", ";", ":")


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    lines: tuple[str, ...]


def wrap(text: str, width: int, where: str) -> list[str]:
    """Word wrap to lines of at most `width` characters (a longer word cannot fit: one-line error); a text of two
    lines is cut where the lines come out closest in length, after a comma or a full stop where one is near
    (`_two_lines`), rather than leaving a word or two alone on the second."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):  # a no-break space ("98,7\u00a0%") keeps its two sides on one line
        if not word:
            continue
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
    return _two_lines(lines, width) if len(lines) == 2 else lines


def _two_lines(lines: list[str], width: int) -> list[str]:
    words = " ".join(lines).split(" ")
    best, best_score = lines, None
    for cut in range(1, len(words)):
        first, second = " ".join(words[:cut]), " ".join(words[cut:])
        if max(len(first), len(second)) > width:
            continue
        score = max(len(first), len(second)) - (6 if first.endswith((",", ";", ":", ".", "?", "!")) else 0)
        if best_score is None or score < best_score:
            best, best_score = [first, second], score
    return best


def word_cues(
    beats: Sequence[Sequence[tuple[str, float, float]]],
    width: int,
    fps: float,
    where: str,
    until: float | None = None,
    *,
    rate_limited: bool = True,
) -> list[Cue]:
    """Cues for a run of beats, each a list of its words with their start and end (seconds on the cut's clock),
    the last ending two frames before `until` (the end of the slide) at the latest.

    A cue holds as many words as fit its two lines and its seven seconds, breaks at the end of a sentence
    when the next one would not fit whole, and shares a sentence's words with the next cue rather than leave
    a few alone; it starts on its first word and ends on its last, held up to
    TAIL longer while the reading rate or the shortest cue asks for it, and two frames before the next cue."""
    groups: list[list[tuple[str, float, float]]] = []
    for words in beats:
        groups += _groups(list(words), width, where, rate_limited=rate_limited)
    cues = []
    for index, group in enumerate(groups):
        start, last = group[0][1], group[-1][2]
        text = " ".join(word for word, _, _ in group)
        wanted = max(last, start + SHORTEST_CUE, start + len(text) / CHARACTERS_PER_SECOND)
        end = math.ceil(max(min(wanted, last + TAIL), start + 1 / fps) * 1000) / 1000  # whole milliseconds
        following = groups[index + 1][0][1] if index + 1 < len(groups) else until
        if following is not None:  # two frames before the next cue, as written (in whole milliseconds)
            end = min(end, math.floor((round(following, 3) - FRAMES_BETWEEN_CUES / fps) * 1000) / 1000)
        end = max(end, math.ceil((start + 1 / fps) * 1000) / 1000)  # a frame at least (`problems` names the gap)
        cues.append(Cue(round(start, 3), end, tuple(wrap(text, width, where))))
    return cues


def _fits(words: Sequence[tuple[str, float, float]], width: int, where: str) -> bool:
    lines = wrap(" ".join(word for word, _, _ in words), width, where)
    return len(lines) <= LINES_PER_CUE and words[-1][2] - words[0][1] <= LONGEST_CUE - TAIL


def _groups(
    words: list[tuple[str, float, float]], width: int, where: str, *, rate_limited: bool = True
) -> list[list[tuple[str, float, float]]]:
    """The beat's words cut into cues: greedy, at a sentence end when the next sentence does not fit whole,
    then each sentence cut across two cues cut again where it reads best (_balanced). The same at every frame
    rate."""
    groups: list[list[tuple[str, float, float]]] = []
    current: list[tuple[str, float, float]] = []
    for index, word in enumerate(words):
        if current and not _fits([*current, word], width, where):
            groups.append(current)
            current = []
        current.append(word)
        if word[0].endswith(SENTENCE_END) and index + 1 < len(words):
            following = next((k for k in range(index + 1, len(words)) if words[k][0].endswith(SENTENCE_END)), None)
            rest = words[index + 1 : (following if following is not None else len(words) - 1) + 1]
            if not _fits([*current, *rest], width, where):
                groups.append(current)
                current = []
    if current:
        groups.append(current)
    return _balanced(groups, width, where, rate_limited=rate_limited)


# Where a sentence runs on into the next cue, the cut goes after one of these, if one leaves both cues whole.
CLAUSE_END = (",", ";", ":", "—")


def _balanced(
    groups: list[list[tuple[str, float, float]]], width: int, where: str, *, rate_limited: bool = True
) -> list[list[tuple[str, float, float]]]:
    """Greedy cutting leaves a sentence's last cue short ("happens to the signal." alone): where a cue ends
    mid-sentence, the pair is cut again where it reads best: after a clause (a comma) if the shorter cue then
    holds at least a third of the words' characters, else where the two are closest in length. A cut must
    fit both cues and, `rate_limited`, ask no faster reading than the template allows (or than the greedy
    pair did), with the cues timed as `fastest` times them at the slowest frame rate (so every quality cuts
    the same). `fastest` asks without the rate limit: the voice slows down for the cut that reads best."""
    for index in range(len(groups) - 1):
        first, second = groups[index], groups[index + 1]
        if first[-1][0].endswith(SENTENCE_END):
            continue
        after = groups[index + 2][0][1] if index + 2 < len(groups) else None
        both = [*first, *second]
        limit = max(CHARACTERS_PER_SECOND - RATE_MARGIN, _rate(first, second[0][1]), _rate(second, after))
        best, best_score = len(first), None
        for cut in range(1, len(both)):
            kept, moved = both[:cut], both[cut:]
            if not (_fits(kept, width, where) and _fits(moved, width, where)):
                continue
            if rate_limited and max(_rate(kept, moved[0][1]), _rate(moved, after)) > limit:
                continue
            shorter, total = min(_length(kept), _length(moved)), _length(kept) + _length(moved)
            clause = kept[-1][0].endswith(CLAUSE_END) and 3 * shorter >= total
            score = (not clause, total - 2 * shorter)
            if best_score is None or score < best_score:
                best, best_score = cut, score
        groups[index], groups[index + 1] = both[:best], both[best:]
    return groups


def _rate(words: Sequence[tuple[str, float, float]], following: float | None) -> float:
    """Characters a second of a cue of `words` followed by a cue starting at `following` (two frames at the
    slowest frame rate before it, held at most TAIL after its last word), or by nothing (ending on its last)."""
    last = words[-1][2]
    end = last if following is None else min(following - FRAMES_BETWEEN_CUES / SLOWEST_FPS, last + TAIL)
    return _length(words) / max(end - words[0][1], 1e-3)


def _length(words: Sequence[tuple[str, float, float]]) -> int:
    return len(" ".join(word for word, _, _ in words))


def fastest(words: Sequence[tuple[str, float, float]], width: int, where: str) -> float:
    """The highest reading rate, in characters a second, of the cues `word_cues` makes of one beat's words at
    the slowest frame rate, when what follows the beat leaves its last cue no time after its last word, and the
    beat's sentences are cut across cues where they read best, however fast (the voice slows down to make that
    readable)."""
    groups = _groups(list(words), width, where, rate_limited=False)
    following = [group[0][1] for group in groups[1:]] + [None]
    return max((_rate(group, after) for group, after in zip(groups, following)), default=0.0)


def problems(
    cues: Sequence[Cue], width: int, fps: float, *, translated: bool = False,
    reading_speed: float = CHARACTERS_PER_SECOND, fit: bool = True,
) -> list[str]:  # fmt: skip
    """One line per cue that breaks a limit of the template (empty: every cue keeps them all). A `translated`
    cue is read against the speech it translates: it keeps the line and cue limits, and must fit its time
    (`over`, at its language's `reading_speed`; not checked when `fit` is off) rather than the reading rate the
    voice was slowed to."""
    found = []
    for index, cue in enumerate(cues):
        seconds, characters = cue.end - cue.start, len(" ".join(cue.lines))
        said = " / ".join(cue.lines)[:50]
        if len(cue.lines) > LINES_PER_CUE or any(len(line) > width for line in cue.lines):
            found.append(f"cue {index + 1} ({said}): more than {LINES_PER_CUE} lines of {width} characters")
        if seconds < SHORTEST_CUE - 1e-3 or seconds > LONGEST_CUE + 1e-3:
            found.append(f"cue {index + 1} ({said}): on screen {seconds:.2f} s")
        if translated and fit and over(cue, reading_speed) > 0:
            too_many = over(cue, reading_speed)
            found.append(f"cue {index + 1} ({said}): {too_many} characters more than fit {seconds:.2f} s")
        if not translated and characters / seconds > CHARACTERS_PER_SECOND + 1e-3:
            found.append(f"cue {index + 1} ({said}): {characters / seconds:.1f} characters a second")
        if index + 1 < len(cues) and cues[index + 1].start - cue.end < FRAMES_BETWEEN_CUES / fps - 1e-3:
            found.append(f"cue {index + 1} ({said}): {cues[index + 1].start - cue.end:.3f} s before the next")
    return found


# --- captions in another language, timed to the speech they translate ------------------------------------

# 3Blue1Brown's translation tool: a translated caption fits its time when it has at most this many times the
# language's reading speed times (its seconds + 1 s) characters.
FIT_MARGIN = 1.05


def over(cue: Cue, reading_speed: float = CHARACTERS_PER_SECOND) -> int:
    """How many characters `cue` has beyond what fits its time (0 or less: it fits)."""
    fits = math.floor(FIT_MARGIN * reading_speed * (cue.end - cue.start + 1.0) + 1e-6)
    return len(" ".join(cue.lines)) - fits


def _sentences(text: str) -> list[str]:
    """`text` cut after each word that ends a sentence."""
    found: list[str] = []
    for word in text.split(" "):
        if not word:
            continue
        if not found or found[-1].endswith(SENTENCE_END):
            found.append(word)
        else:
            found[-1] += " " + word
    return found


def translated_words(spoken: Sequence[tuple[str, float, float]], text: str) -> list[tuple[str, float, float]]:
    """`text`, a translation of a beat whose `spoken` words carry their times, as words timed over the same
    speech: sentence by sentence where both have as many sentences (each over the one it translates), else over
    the whole beat; inside that span each word takes a share of the time by its characters, as reading does.
    Cut by `word_cues`, its cues then lie over the speech they translate."""
    heard = _sentences(" ".join(word for word, _, _ in spoken))
    written = _sentences(text)
    spans: list[tuple[str, float, float]] = []
    if len(heard) == len(written) > 1:
        at = 0
        for english, translation in zip(heard, written):
            count = len(english.split(" "))
            spans.append((translation, spoken[at][1], spoken[at + count - 1][2]))
            at += count
    else:
        spans.append((text, spoken[0][1], spoken[-1][2]))
    timed: list[tuple[str, float, float]] = []
    for translation, start, end in spans:
        words = [word for word in translation.split(" ") if word]
        weights = [len(word) + 1 for word in words]
        share, at_time = (end - start) / sum(weights), start
        for word, weight in zip(words, weights):
            timed.append((word, round(at_time, 3), round(at_time + share * (weight - 1), 3)))
            at_time += share * weight
    return timed


def translated_cues(
    beats: Sequence[Sequence[tuple[str, float, float]]], texts: Sequence[str | None], width: int, fps: float,
    where: str, until: float | None = None, reading_speed: float = CHARACTERS_PER_SECOND,
) -> tuple[list[Cue], dict[int, int]]:  # fmt: skip
    """A slide's cues in another language: each beat's translation (`texts`, None: none, its own words show)
    timed over its speech (`translated_words`), cut as the English is, the last ending before `until`; and,
    per beat whose cues do not fit their time, how many characters its worst cue has too many."""
    timed = [translated_words(words, text) if text and words else list(words) for words, text in zip(beats, texts)]
    # A translation is cut where it reads best (after a clause), its time set by the speech: whether it fits
    # that time is the fit rule's to say, not the English reading rate's.
    cues = word_cues(timed, width, fps, where, until, rate_limited=False)
    starts = [words[0][1] if words else math.inf for words in timed]
    misfits: dict[int, int] = {}
    for cue in cues:
        beat = max(index for index, start in enumerate(starts) if start <= cue.start + 1e-6)
        if texts[beat] and over(cue, reading_speed) > 0:
            misfits[beat] = max(misfits.get(beat, 0), over(cue, reading_speed))
    return cues, misfits


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


def caption_files(folder: Path, stem: str, languages: Sequence[str]) -> dict[str, Path]:
    """The caption files named `stem` in `folder`, by output name: `vtt` and `srt` (`<stem>.vtt`) in the first
    language, `vtt.<code>` and `srt.<code>` (`<stem>.<code>.vtt`) in each other."""
    files = {}
    for index, code in enumerate(languages):
        for kind in ("vtt", "srt"):
            files[f"{kind}.{code}" if index else kind] = folder / (
                f"{stem}.{code}.{kind}" if index else f"{stem}.{kind}"
            )
    return files


def write_captions(folder: Path, stem: str, cues: dict[str, list[Cue]]) -> dict[str, Path]:
    """Each language's cues (the first language first) as WebVTT and SubRip files; return them by output name."""
    files = caption_files(folder, stem, list(cues))
    for index, (code, found) in enumerate(cues.items()):
        name = f".{code}" if index else ""
        atomic_write_text(files[f"vtt{name}"], to_vtt(found, code))
        atomic_write_text(files[f"srt{name}"], to_srt(found))
    return files


def shifted(cues: Sequence[Cue], offset: float) -> list[Cue]:
    return [Cue(round(cue.start + offset, 3), round(cue.end + offset, 3), cue.lines) for cue in cues]
