"""Benchmark: how intelligible each narration voice is, measured by an offline speech recogniser.

About ten real narration sentences (one per scene, from the built lecture's `renders/low/*.report.json`;
fixed representative sentences when the lecture is not built) are spoken by each voice through
`seqanim.publish.voice.clip`, so each clip is the published one: the voice's own synthesis, then the same loudness
normalisation to `[publish] loudness_lufs`. pocketsphinx (its bundled en-us acoustic model, dictionary and
general language model) transcribes each clip, resampled to 16 kHz mono. Printed per voice: the word error
rate (word-level Levenshtein distance / reference words, over all sentences), the speaking rate in words per
minute (reference words / clip seconds, the clip's short leading and trailing silences included) and the
synthesis speed in x real time (audio seconds / seconds in `generate_from_text`, the model already loaded).

The reference is each sentence as the voice hears it (`seqanim.publish.voice.spoken`), lowercased, punctuation
stripped, numbers in words. Sentences are kept only when every word is plain (a word, or a whole number):
symbols, decimals and acronyms read differently by each voice would measure the reference, not the voice.
Reference words missing from the recogniser's dictionary can never be recognised: the bench counts them.

The clips go to a temporary workspace's voice cache (nothing in this tree's `.seqanim/` is touched), and the
voices use `[publish]` of lecture.toml (espeak_voice, words_per_minute, hibari_speed).

    .venv/bin/pip install -e ".[bench]"      # pocketsphinx
    .venv/bin/python bench/publish.py [--voices hibari,espeak] [--sentences 10] [--fixed] [--show]

The lecture's narrations change as it is written: --fixed takes the fixed sentences, for figures that
compare across revisions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from seqanim.lecture.config import Publish  # noqa: E402
from seqanim.publish import voice  # noqa: E402
from seqanim.workspace import WORKSPACE_ENV, current  # noqa: E402

# When renders/low/ has no reports: sentences in the lecture's style, plain words and whole numbers.
FIXED = [
    "The network reads the two channels one step at a time, 40 steps in all.",
    "It must carry the first marked value across 26 steps of distracting values.",
    "Inside the circle the signal dies, outside it explodes.",
    "We replay the recurrence by hand to read the gates.",
    "Change only the query; the memory stays fixed.",
    "A key is an address; its associated value need not equal the key.",
    "The additive score is a tiny network comparing decoder state and encoder state.",
    "Every token emits a query, a key and a value.",
    "Nearby positions look alike, distant ones less so.",
    "Removing an item is not the same as reading its weight off the plot.",
]
ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen \
seventeen eighteen nineteen".split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
PLAIN_WORD = re.compile(r"^[A-Za-z]?[a-z]+(?:['’-][a-z]+)*$|^\d+$")


def number_words(value: int) -> str:
    """A whole number in words, as both voices read it (0..999 999)."""
    if value < 20:
        return ONES[value]
    if value < 100:
        return TENS[value // 10] + ("" if value % 10 == 0 else " " + ONES[value % 10])
    if value < 1000:
        rest = value % 100
        return ONES[value // 100] + " hundred" + ("" if rest == 0 else " " + number_words(rest))
    rest = value % 1000
    return number_words(value // 1000) + " thousand" + ("" if rest == 0 else " " + number_words(rest))


def words(text: str) -> list[str]:
    """Lowercased words without punctuation, numbers spelled out, hyphenated words split."""
    text = text.lower().replace("’", "'").replace("-", " ")
    text = re.sub(r"\d+", lambda match: " " + number_words(int(match.group(0))) + " ", text)
    text = re.sub(r"[^a-z' ]", " ", text)
    return [word.strip("'") for word in text.split() if word.strip("'")]


def plain(sentence: str) -> bool:
    tokens = [token.strip(",.;:?!") for token in sentence.split()]
    return 8 <= len(tokens) <= 30 and all(PLAIN_WORD.match(token) for token in tokens)


def lecture_sentences(count: int) -> tuple[list[str], str]:
    """The first plain sentence of each scene's narration, `count` of them spread over the scenes."""
    per_scene = []
    for report in sorted((ROOT / "renders" / "low").glob("*.report.json")):
        narrations = json.loads(report.read_text()).get("narrations") or []
        sentences = [s for text in narrations for s in re.split(r"(?<=[.?!])\s+", text.strip())]
        found = next((s for s in sentences if plain(s)), None)
        if found:
            per_scene.append(found)
    if len(per_scene) < count:
        return FIXED[:count], "fixed sentences (renders/low/*.report.json: too few plain sentences)"
    step = len(per_scene) / count
    return [per_scene[int(i * step)] for i in range(count)], f"{len(per_scene)} scenes' narrations in renders/low"


def edits(reference: list[str], hypothesis: list[str]) -> int:
    """Word-level Levenshtein distance."""
    previous = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, start=1):
        row = [i]
        for j, hyp in enumerate(hypothesis, start=1):
            row.append(min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ref != hyp)))
        previous = row
    return previous[-1]


class Recogniser:
    def __init__(self) -> None:
        try:
            from pocketsphinx import Decoder, get_model_path
        except ImportError:
            sys.exit('pocketsphinx is missing: .venv/bin/pip install -e ".[bench]"')
        self.decoder = Decoder(samprate=16000, logfn=os.devnull)
        dictionary = Path(get_model_path()) / "en-us" / "cmudict-en-us.dict"
        self.known = {line.split()[0].split("(")[0] for line in dictionary.read_text().splitlines() if line.strip()}

    def __call__(self, path: Path) -> str:
        raw = subprocess.run(
            ["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", str(path), "-ar", "16000", "-ac", "1",
             "-f", "s16le", "-"],
            capture_output=True, check=True,
        ).stdout  # fmt: skip
        self.decoder.start_utt()
        self.decoder.process_raw(raw, full_utt=True)
        self.decoder.end_utt()
        hypothesis = self.decoder.hyp()
        return hypothesis.hypstr if hypothesis else ""


# The picture is "still" at a moment when it shows no change against the picture this long before (the issue's
# reading: sampled 5 times a second).
STILL_SAMPLE_S = 0.2


def picture_changes(video: Path) -> tuple[float, list[bool]]:
    """The video's frame rate, and per frame whether its picture (above the caption band) changed."""
    import av

    sys.path.insert(0, str(ROOT))
    from seqanim.publish.frames import changes
    from seqanim.publish.narrate import CAPTION_BAND

    with av.open(str(video)) as container:
        fps = float(container.streams.video[0].average_rate)
    return fps, changes(video, bottom=1 - CAPTION_BAND - 0.01)


def motion_figures(fps: float, changed: list[bool]) -> dict[str, float]:
    """From per-frame changes: the still moments (no change over STILL_SAMPLE_S), their share and longest run,
    and inside motion (every moment that is not still) the share of frames that are new pictures."""
    window = max(1, round(STILL_SAMPLE_S * fps))
    # moment i is still when none of the `window` frames up to it changed
    still = [not any(changed[max(0, i - window + 1) : i + 1]) for i in range(len(changed))]
    longest = run = 0
    for flag in still:
        run = run + 1 if flag else 0
        longest = max(longest, run)
    moving = [i for i, flag in enumerate(still) if not flag]
    new = sum(1 for i in moving if changed[i])
    return {
        "seconds": len(changed) / fps,
        "still_share": sum(still) / max(1, len(still)),
        "longest_still_s": longest / fps,
        "new_in_motion": new / max(1, len(moving)),  # new pictures a frame, while the picture moves
        "fps": fps,
        "still": still,  # type: ignore[dict-item]
    }


def cues_over_stills(cues: list[list], fps: float, changed: list[bool]) -> list[list]:
    """The cues during which the picture does not change at all."""
    return [
        cue for cue in cues if not any(changed[round(cue[0] * fps) : max(round(cue[0] * fps) + 1, round(cue[1] * fps))])
    ]


def scene_records(scenes: list[str], quality: str) -> tuple[list[dict], float, int]:
    """The scenes' narration records, their speech seconds and spoken words."""
    timings = [json.loads((ROOT / "renders" / quality / f"{scene}.narration.json").read_text()) for scene in scenes]
    speech = sum(slide["speech_seconds"] for timing in timings for slide in timing["slides"])
    spoken_words = sum(len(slide["narration"].split()) for timing in timings for slide in timing["slides"])
    return timings, speech, spoken_words


def report_cut(video: Path, cues: list[list], speech: float, spoken_words: int, reference: list[Path]) -> None:
    """The goals of a published cut, printed: motion at the frame rate, stills, cues over stills, length."""
    sys.path.insert(0, str(ROOT))
    from seqanim.publish.captions import Cue, problems

    fps, changed = picture_changes(video)
    figures = motion_figures(fps, changed)
    over = cues_over_stills(cues, fps, changed)
    live = [motion_figures(*picture_changes(path)) for path in reference]
    live_new = sum(f["new_in_motion"] * (1 - f["still_share"]) * f["seconds"] for f in live) / max(
        1e-9, sum((1 - f["still_share"]) * f["seconds"] for f in live)
    )
    length = figures["seconds"]
    print(f"{video.name}: {length / 60:.1f} min at {fps:g} fps; speech {speech / 60:.1f} min, {spoken_words} words")
    ratio = figures["new_in_motion"] / max(live_new, 1e-9)
    print(f"  new pictures while it moves: {figures['new_in_motion']:.1%} of frames "
          f"(the slide videos: {live_new:.1%}; goal >= 85 % of theirs: {ratio:.0%})")  # fmt: skip
    print(f"  still (no change over {STILL_SAMPLE_S:g} s): {figures['still_share']:.1%} of the cut (goal <= 25 %), "
          f"longest {figures['longest_still_s']:.1f} s (goal <= 6 s)")  # fmt: skip
    share = len(over) / max(1, len(cues))
    print(f"  caption cues over a still picture: {len(over)} of {len(cues)} = {share:.1%} (goal <= 5 %)")
    print(f"  length / speech: {length / speech:.2f} (goal <= 1.15); {spoken_words * 60 / length:.0f} words a minute "
          "(goal 150-170)")  # fmt: skip
    broken = problems([Cue(a, b, tuple(lines)) for a, b, lines in cues], 42, fps)
    print(f"  cues breaking the caption template: {len(broken)}" + "".join(f"\n    {line}" for line in broken[:10]))
    for cue in over[:8]:
        print(f"    over a still: {cue[0]:7.2f}-{cue[1]:7.2f} {' / '.join(cue[2])}")


def published_cut(deck: str | None, scene: str | None, quality: str) -> None:
    """The published deck video (or one scene's narrated cut) against the goals."""
    sys.path.insert(0, str(ROOT))
    from seqanim.decks.plan import deck_scenes
    from seqanim.lecture.config import load

    scenes = [scene] if scene else deck_scenes(load(), deck)
    video = ROOT / "renders" / quality / (f"{scene}.narrated.mp4" if scene else f"{deck}.mp4")
    if not video.exists():
        sys.exit(f"{video} is missing: build it first (.venv/bin/seqanim build --quality {quality})")
    timings, speech, spoken_words = scene_records(scenes, quality)
    if scene:
        cues = timings[0]["cues"]
    else:
        vtt = (ROOT / "renders" / quality / f"{deck}.srt").read_text()
        cues = [[_seconds(a), _seconds(b), text.splitlines()] for a, b, text in
                re.findall(r"(\S+) --> (\S+)\n(.*?)(?:\n\n|\Z)", vtt, re.S)]  # fmt: skip
    reference = [ROOT / slide["video"] for timing in timings for slide in timing["slides"]]
    report_cut(video, cues, speech, spoken_words, reference)
    for name in scenes:  # what the scenes' own reports say stands still under the words (their waits and holds)
        report = json.loads((ROOT / "renders" / quality / f"{name}.report.json").read_text())
        for number, beats in enumerate(report["beats"], start=1):
            for index, beat in enumerate(beats, start=1):
                if beat.get("still_seconds", 0) > 1.0:
                    print(f"    {name} slide {number} beat {index}: {beat['still_seconds']:.1f} s of "
                          f"{beat['speech']:.1f} s still: {beat['said'][:60]}")  # fmt: skip


def _seconds(stamp: str) -> float:
    hours, minutes, rest = stamp.replace(",", ".").split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(rest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cut", metavar="DECK", help="measure the published video of DECK instead (e.g. full)")
    parser.add_argument("--scene", metavar="SCENE", help="measure one scene's narrated cut instead")
    parser.add_argument("--quality", default="low", help="with --cut or --scene: the build quality")
    parser.add_argument("--voices", default="hibari,espeak", help="comma-separated synthetic voices")
    parser.add_argument("--sentences", type=int, default=10)
    parser.add_argument("--fixed", action="store_true", help="the fixed sentences, not the lecture's")
    parser.add_argument("--show", action="store_true", help="print every reference and transcript")
    args = parser.parse_args()
    if args.cut or args.scene:
        published_cut(args.cut, args.scene, args.quality)
        return
    voices = args.voices.split(",")

    table = tomllib.loads((ROOT / "lecture.toml").read_text()).get("publish", {})
    publish = Publish.model_validate(table)
    if args.fixed:
        sentences, origin = FIXED[: args.sentences], "the fixed sentences (--fixed)"
    else:
        sentences, origin = lecture_sentences(args.sentences)
    recognise = Recogniser()
    references = [words(voice.spoken(sentence)) for sentence in sentences]
    total = sum(map(len, references))
    unknown = sorted({word for ref in references for word in ref if word not in recognise.known})
    print(f"{len(sentences)} sentences, {total} reference words, from {origin}")
    print(f"reference words missing from pocketsphinx's dictionary ({len(unknown)}): {' '.join(unknown) or '-'}")

    with tempfile.TemporaryDirectory(prefix="seqanim-bench-publish-") as tmp:
        os.environ[WORKSPACE_ENV] = tmp  # a fresh voice cache: every clip is synthesised here
        current.cache_clear()
        results = {}
        for name in voices:
            speaker = voice.service(name, publish)
            speaker.check()
            warm = Path(tmp) / f"warm-{name}.wav"
            started = time.perf_counter()
            speaker.generate_from_text("Warm up.", warm)  # loads the model (hibari: about a second)
            load = time.perf_counter() - started
            errors = synthesis = raw_seconds = clip_seconds = 0.0
            for sentence, reference in zip(sentences, references):
                raw = Path(tmp) / f"raw-{name}.wav"
                started = time.perf_counter()
                speaker.generate_from_text(voice.spoken(sentence), raw)
                synthesis += time.perf_counter() - started
                raw_seconds += voice.clip_seconds(raw)
                made = voice.clip(sentence, publish, voice=name)  # the published clip: synthesis + loudness
                clip_seconds += made.seconds
                heard = recognise(made.path)
                wrong = edits(reference, words(heard))
                errors += wrong
                if args.show:
                    print(f"\n[{name}] WER {wrong / len(reference):.0%} {made.seconds:.1f} s {made.lufs:.1f} LUFS")
                    print(f"  reference:  {' '.join(reference)}")
                    print(f"  recognised: {heard}")
            results[name] = (errors / total, total * 60 / clip_seconds, raw_seconds / synthesis, load, clip_seconds)

    print(f"\n{'voice':8} {'WER':>6} {'words/min':>10} {'x real time':>12} {'load s':>7} {'speech s':>9}")
    for name, (wer, wpm, speed, load, seconds) in results.items():
        print(f"{name:8} {wer:6.1%} {wpm:10.0f} {speed:12.0f} {load:7.2f} {seconds:9.1f}")


if __name__ == "__main__":
    main()
