"""One slide's narration as audio: synthesised (hibari, espeak-ng, Piper) or recorded, loudness-normalised, cached.

Each synthetic voice is a small plug-in, a `SpeechService` (manim-voiceover's shape): one method,
`generate_from_text`, writes raw speech for a text; `settings` says what that speech depends on besides the
text; `check` fails in one line, before anything runs, when the voice cannot be used on this machine.
`SERVICES` names them; a new voice is one class there.

Each clip is made once per (spoken text, voice, the voice's settings) and kept in `.seqanim/voice/<key>.wav`
(mono, 24 kHz, brought to `[publish] loudness_lufs` by one gain, measured as ITU-R BS.1770 measures it)
beside a `<key>.json` with its duration, measured loudness and word timings: when each spoken word starts and
ends.
hibari gives them exactly (its model's duration predictor, read as an extra output of the ONNX graph); for
the other voices and recordings they are estimated, spread by characters over the clip's voiced span, and
the clip says so (`timing`). Changing one slide's narration therefore makes one new
clip; every other slide's clip is found by its key. Clips are written under a temporary name and renamed.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from seqanim.errors import SeqanimError, ToolMissingError
from seqanim.files import atomic_write_bytes, atomic_write_text, digest, naming_a_full_disk, tool_wrote_to_a_full_disk
from seqanim.lecture.config import Publish
from seqanim.publish import captions
from seqanim.workspace import current

SAMPLE_RATE = 24_000  # plenty for speech; half the disk of 48 kHz
RECORDED_SUFFIXES = (".wav", ".flac", ".mp3")
# Bump when the processing changes a key's clip (2: short clips padded; 3: word timings; 4: trimmed; 5: the
# loudness measured in this process, not by ffmpeg's loudnorm).
VERSION = 5
HIBARI = "hibari-tts==0.2.1"  # the package pyproject.toml pins, as the fix of a missing one names it
HIBARI_VOICE = "heart"  # the one voice inside hibari's wheel; its others download on first use: never here
HIBARI_SEED = 0  # hibari adds a noise component; a fixed seed makes a key's clip the same on every machine
LEAD_IN_S, TAIL_OUT_S = 0.15, 0.15  # the silence a hibari clip keeps before its first word and after its last


# A word of a clip as heard: its text (a word of `spoken(text)`), and its start and end in seconds.
Word = tuple[str, float, float]


@dataclass(frozen=True)
class Clip:
    """A normalised clip in the voice cache."""

    path: Path | None  # None: a clip timed, not made (`timed_clip`)
    seconds: float
    lufs: float  # integrated loudness as measured after normalisation
    source: str  # the voice ("hibari", "espeak", "piper") or the recorded file's label
    synthesised: bool  # made by this call (False: found in the cache)
    words: tuple[Word, ...] = ()  # every spoken word that has a letter or digit, in order
    timing: str = "estimated"  # "model": the voice's own durations; "estimated": spread over the voiced span


def cache_dir() -> Path:
    return current().state_dir / "voice"


def spoken(text: str) -> str:
    """The narration as a voice should read it: the notation of the notes in words.

    Captions and the transcript keep the text as written; only the voice hears this version."""
    text = re.sub(r"\|\|([^|]+)\|\|", r"the norm of \1", text)
    text = re.sub(r"\|([^|\s][^|]*)\|", r"the size of \1", text)
    text = text.replace("->", " to ").replace("<=", " at most ").replace(">=", " at least ")
    text = re.sub(r"(\d)x(\d)", r"\1 by \2", text)
    text = re.sub(r"\^T\b", " transpose", text)
    text = re.sub(r"\^(\d+)", r" to the \1", text)
    text = re.sub(r"(?<=\w)_\(([^)]*)\)", r" \1", text)
    text = re.sub(r"(?<=\w)_(?=\w)", " ", text)
    text = text.replace("~", " tilde")
    return " ".join(text.split())


def recorded_file(folder: str, slide: int, beat: int | None = None) -> Path | None:
    """`narration/<folder>/<slide>.wav|flac|mp3` (or `<slide>.<beat>.wav`, one beat of it), the lecturer's
    recording of that slide or beat, if there is one."""
    stem = f"{slide}" if beat is None else f"{slide}.{beat}"
    for suffix in RECORDED_SUFFIXES:
        path = current().root / "narration" / folder / f"{stem}{suffix}"
        if path.is_file():
            return path
    return None


def slide_clip(
    scene: str,
    slide: int,
    text: str,
    publish: Publish,
    warnings: list[str] | None = None,
    beat: int | None = None,
    *,
    audio: bool = True,
) -> Clip | None:
    """The clip of a slide said whole, or of one `beat` of it, as the published video says it: the lecturer's
    recording (`narration/<scene>/<slide>.wav`, a beat's `<slide>.<beat>.wav`), else the voice's (the fallback
    voice's, with a warning, when the voice is `recorded`); None with no voice. A beat is spoken slowly enough
    to read its captions (`readable_speed`). Without `audio` (a check, which draws and says nothing), hibari's
    clip is timed from its model's durations and not made (`timed_clip`)."""
    synthetic = publish.voice
    if publish.voice == "recorded":
        recording = recorded_file(scene, slide, beat)
        if recording is not None:
            return clip(text, publish, recorded=recording)
        whole = recorded_file(scene, slide) if beat is not None else None
        if whole is not None:
            raise SeqanimError(
                f"{current().label(whole)} records slide {slide} whole, but its video is paced beat by beat; "
                f"record each beat as narration/{scene}/{slide}.1.wav, {slide}.2.wav, ... (the transcript lists them)"
            )
        synthetic = publish.fallback_voice
        stem, which = (f"{slide}", "") if beat is None else (f"{slide}.{beat}", f" beat {beat}")
        if warnings is not None:
            warnings.append(
                f"narration/{scene}/{stem}.wav (or .flac/.mp3) is missing: {scene} slide {slide}{which} uses the "
                f"{synthetic} voice"
            )
    if synthetic == "none":
        return None
    try:
        if beat is not None and synthetic == "hibari":
            publish = publish.model_copy(update={"hibari_speed": readable_speed(text, publish)})
        timed = timed_clip(text, publish) if not audio and synthetic == "hibari" else None
        return timed or clip(text, publish, voice=synthetic)
    except SeqanimError as error:
        raise SeqanimError(f"{scene} slide {slide}: {error}") from None


# A beat too fast to caption is slowed at most this far below [publish] hibari_speed.
SLOWEST_SPEED = 0.8
# The rate a slowed beat is brought under: 3 % below the template's, because the video starts and ends each
# cue on a frame, which takes up to 2 frames (3 % of a 4-second cue at 15 fps) off its time on screen.
READABLE_RATE = 0.97 * captions.CHARACTERS_PER_SECOND


@functools.cache
def speed_rules() -> str:
    """The code a beat's speed is found by, this module's and the caption rules': a speed found by other code
    (an earlier seqanim's) is found again, so a build paces its beats as a fresh one does."""
    return hashlib.sha256(Path(__file__).read_bytes() + Path(captions.__file__).read_bytes()).hexdigest()[:16]


def readable_speed(text: str, publish: Publish) -> float:
    """The hibari speed for a beat: where hibari would say a cue faster than a reader reads (READABLE_RATE:
    Netflix's 17 characters a second, less what the frames take), the beat is spoken that much slower (down to
    SLOWEST_SPEED of `hibari_speed`): the listener hears the dense sentence slower, and the reader has the time
    the template asks for. Found from the model's durations alone (no audio is made while it searches), once
    per text and settings: the answer is kept beside the clips."""
    speaker = Hibari(publish)
    request = {"text": spoken(text), **speaker.settings(), "chars": publish.caption_chars, "rules": speed_rules()}
    record = cache_dir() / f"{digest({**request, 'rate': READABLE_RATE, 'slowest': SLOWEST_SPEED})[:24]}.speed"
    try:
        return float(record.read_text())
    except (OSError, ValueError):
        pass
    speed = publish.hibari_speed
    words = speaker.word_times(spoken(text))
    for _ in range(6):  # pauses do not stretch with the speed: the rate falls less than the speed, try again
        if not words:
            break
        rate = captions.fastest(written_words(text, words), publish.caption_chars, "a beat")
        wanted = math.floor(speed * READABLE_RATE / rate * 1000) / 1000
        slower = max(SLOWEST_SPEED * publish.hibari_speed, wanted)
        if rate <= READABLE_RATE or slower >= speed:
            break
        speed = slower
        words = Hibari(publish.model_copy(update={"hibari_speed": speed})).word_times(spoken(text))
    record.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(record, f"{speed!r}\n")
    return speed


def written_words(text: str, heard: Sequence[Word]) -> tuple[Word, ...]:
    """Each word of `text` as written, timed by the words the voice said (`voice.spoken(text)`, which reads
    notation out: "||x||" is "the norm of x"): matched words keep their times, a rewritten stretch spans the
    spoken words it became, and a word with no sound takes the instant before the next."""
    written = text.split()
    plain = [re.sub(r"\W", "", word.lower()) for word in written]
    said = [re.sub(r"\W", "", word.lower()) for word, _, _ in heard]
    times: list[tuple[float, float] | None] = [None] * len(written)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=plain, b=said, autojunk=False).get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                times[i1 + k] = heard[j1 + k][1:]
        elif tag == "replace":
            start, end = heard[j1][1], heard[j2 - 1][2]
            weights = [len(word) + 1 for word in written[i1:i2]]
            at = start
            for k, weight in enumerate(weights):
                share = (end - start) * weight / sum(weights)
                times[i1 + k] = (at, at + share)
                at += share
    result, last = [], 0.0
    for index, word in enumerate(written):
        if times[index] is None:  # unheard: at the next heard word's start (or the last one's end)
            following = next((t[0] for t in times[index + 1 :] if t is not None), last)
            times[index] = (following, following)
        start, end = times[index]  # type: ignore[misc]
        result.append((word, round(start, 4), round(end, 4)))
        last = end
    return tuple(result)


def model_path(publish: Publish) -> Path:
    """The Piper voice model `[publish] voice_model` names (relative to the lecture folder)."""
    path = Path(publish.voice_model).expanduser()
    return path if path.is_absolute() else current().root / path


def _run(command: list[str], what: str, writing: Path | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        if writing is not None:
            tool_wrote_to_a_full_disk(result.stderr, writing)
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise SeqanimError(f"{what}: {last}")
    return result


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- the voices ----------------------------------------------------------------------------------------------


class SpeechService:
    """One synthetic voice, configured by `[publish]`."""

    name: ClassVar[str]

    def __init__(self, publish: Publish) -> None:
        self.publish = publish

    def check(self) -> None:
        """Raise one line naming the key and the fix when this voice cannot speak on this machine."""

    def settings(self) -> dict[str, Any]:
        """What the speech depends on besides the text (part of every clip's cache key)."""
        return {}

    def generate_from_text(self, text: str, target: Path) -> list[Word] | None:
        """Raw speech for `text` (already as the voice should hear it: `spoken`) into `target` (WAV); the words'
        timings when the voice knows them (None: they are estimated from the audio)."""
        raise NotImplementedError


class Hibari(SpeechService):
    """hibari-tts: a 7.9 MB ONNX model distilled from Kokoro-82M's af_heart voice, with its own phonemizer;
    numpy and onnxruntime only. Only the voice inside the wheel is used, loaded from the wheel's own file, so
    nothing is downloaded (hibari fetches its other voices with urllib on first use; it has no offline switch)."""

    name = "hibari"

    def check(self) -> None:
        _hibari_model_file()

    def settings(self) -> dict[str, Any]:
        _hibari_model_file()  # the one line with the fix when the package is missing
        import hibari  # type: ignore[import-not-found]

        speed = self.publish.hibari_speed
        return {"hibari": hibari.__version__, "hibari_voice": HIBARI_VOICE, "speed": speed, "seed": HIBARI_SEED}

    def generate_from_text(self, text: str, target: Path) -> list[Word] | None:
        """What `Hibari(text, speed, seed)` says, sentence by sentence as hibari does, with each word's span
        from the durations the model gave its phonemes."""
        import numpy as np
        from hibari import dsp, write_wav  # type: ignore[import-not-found]

        rng = np.random.default_rng(HIBARI_SEED)  # one generator for all sentences, as hibari's own call
        sentences = list(self._sentences(text))
        audio = np.concatenate([dsp.synth(*(output[0] for output in outputs), rng) for _, outputs, _ in sentences])
        spans, cut = self._spans(sentences)
        write_wav(str(target), audio[self._kept(spans, cut, len(audio), dsp.SR)])
        return _words_of(text, spans, _hibari_model())

    def word_times(self, text: str) -> list[Word] | None:
        """The words' times in the clip `generate_from_text` would make, from the model's durations alone."""
        return self.timed(text)[1]

    def timed(self, text: str) -> tuple[float, list[Word] | None]:
        """The length in seconds and the words' times of the clip `generate_from_text` would make, from the
        model's durations alone (its duration predictor: a tenth of the model's time, and no audio)."""
        from hibari import dsp  # type: ignore[import-not-found]

        sentences = list(self._sentences(text, durations_only=True))
        spans, cut = self._spans(sentences)
        steps = sum(int(durations.sum()) for _, _, durations in sentences)
        samples = steps * round(HIBARI_DURATION_STEP * dsp.SR)  # the audio's length, as dsp.synth makes it
        kept = self._kept(spans, cut, samples, dsp.SR)
        return (kept.stop - kept.start) / dsp.SR, _words_of(text, spans, _hibari_model())

    def _sentences(self, text: str, durations_only: bool = False) -> Iterator[tuple[str, list[Any], Any]]:
        """Per sentence hibari makes of `text`: its phonemes, the model's outputs (its audio, once through
        hibari's dsp.synth; none when `durations_only`) and each phoneme's duration in 25 ms steps (the audio
        lasts exactly their sum)."""
        import numpy as np

        model, session = _hibari_model(), _hibari_timed_session(durations_only)
        speed = np.asarray([self.publish.hibari_speed], np.float32)
        found = False
        for phonemes in model.phonemize(text):
            ids = model.ids(phonemes)
            if len(ids) < 3:
                continue
            *outputs, durations = session.run(None, {"ids": np.asarray([ids], np.int64), "speed": speed})
            found = True
            yield phonemes, outputs, durations
        if not found:
            raise SeqanimError(f"hibari found nothing to say in {text[:60]!r}; write the narration in words")

    @staticmethod
    def _kept(spans: list[tuple[float, float]], cut: float, samples: int, rate: int) -> slice:
        """The samples of hibari's audio (`samples` long) a clip keeps: from `cut` to a breath after its last
        word, or to the audio's end."""
        end = min(samples / rate, spans[-1][1] + cut + TAIL_OUT_S) if spans else samples / rate
        return slice(round(cut * rate), round(end * rate))

    @staticmethod
    def _spans(sentences: list[tuple[str, list[Any], Any]]) -> tuple[list[tuple[float, float]], float]:
        """Each sounded word's span in the clip, and where the clip starts in hibari's audio: hibari opens each
        sentence with about 0.4 s of silence and ends it with 0.2 s (with the beat's gap, 0.7 s of dead air
        between two beats), so the clip keeps a breath before and after its words; the pauses between its
        sentences stay as hibari makes them."""
        spans, at = [], 0.0
        for phonemes, _, durations in sentences:
            spans += [(at + a, at + b) for a, b in phoneme_word_spans(phonemes, _hibari_model().vocab, durations)]
            at += float(durations.sum()) * HIBARI_DURATION_STEP
        cut = max(0.0, spans[0][0] - LEAD_IN_S) if spans else 0.0
        return [(a - cut, b - cut) for a, b in spans], cut


def _hibari_model_file() -> str:
    """The bundled voice's ONNX file inside the installed package (never a download)."""
    try:
        from hibari.voices import voice_path  # type: ignore[import-not-found]
    except ImportError:
        raise ToolMissingError(
            f"[publish] voice = hibari needs the hibari-tts package; `.venv/bin/pip install {HIBARI}` "
            '(or `make setup`), or set voice = "espeak"'
        ) from None
    path = voice_path(HIBARI_VOICE, download_missing=False)  # bundled: a path inside the wheel, no network
    if not os.path.isfile(path):
        raise ToolMissingError(
            f"[publish] voice = hibari: its bundled voice {path} is missing; `.venv/bin/pip install --force-reinstall "
            f"{HIBARI}`"
        )
    return str(path)


# hibari's duration predictor: each phoneme id's length in 25 ms steps (its audio frames are 12.5 ms, hop 300
# at 24 kHz), the integer tensor that feeds the Round, Clip and CumSum of hibari-tts 0.2.1's graph. Read as an
# extra output, it times every word exactly; tests/test_voice.py fails when a hibari release renames it.
HIBARI_DURATIONS = "/Cast_32_output_0"
HIBARI_DURATION_STEP = 0.025
# Phoneme characters that are pauses, not sounds of a word.
PHONEME_PUNCTUATION = frozenset(';:,.!?—…"()“”')


@functools.cache
def _hibari_timed_session(durations_only: bool = False) -> Any:
    """hibari's model with its phoneme durations as a seventh output; or its duration predictor alone, the
    part of the graph that computes them (onnxruntime runs every node of a graph whatever the outputs asked)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3
    graph = str(_hibari_timed_graph(durations_only))
    return ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


def _hibari_timed_graph(durations_only: bool) -> Path:
    """The graph `_hibari_timed_session` runs, made once per hibari model and kept in the voice cache: making it
    imports onnx and cuts the graph (1.6 s), which every stage that speaks or times words would do again."""
    model = Path(_hibari_model_file())
    made_from = hashlib.sha256(model.read_bytes()).hexdigest()[:16]
    kept = cache_dir() / f"hibari-{made_from}-{'durations' if durations_only else 'timed'}.onnx"
    if kept.is_file():
        return kept
    import onnx
    from onnx.utils import Extractor

    graph = onnx.load(model)
    if not any(HIBARI_DURATIONS in node.output for node in graph.graph.node):
        raise ToolMissingError(
            f"hibari's model has no {HIBARI_DURATIONS} (its phoneme durations); `.venv/bin/pip install {HIBARI}`"
        )
    graph.graph.output.append(onnx.helper.make_tensor_value_info(HIBARI_DURATIONS, onnx.TensorProto.INT64, None))
    if durations_only:
        inputs = [tensor.name for tensor in graph.graph.input]
        graph = Extractor(graph).extract_model(inputs, [HIBARI_DURATIONS])
    atomic_write_bytes(kept, graph.SerializeToString())  # atomic: two stages may make it at once
    return kept


def phoneme_word_spans(phonemes: str, vocab: dict[str, int], durations: Any) -> list[tuple[float, float]]:
    """(start, end) in seconds of each space-separated word of a phoneme string that has a sound, from the
    durations of its ids (hibari's ids: a pad, then every character found in `vocab`, then a pad)."""
    ends = [0.0]
    for steps in durations:
        ends.append(ends[-1] + float(steps) * HIBARI_DURATION_STEP)
    spans, index, first, last = [], 1, None, None  # index: the id of the next character (0 is the pad)
    for char in phonemes + " ":
        if char == " " and first is not None:
            spans.append((ends[first], ends[last + 1]))
            first = None
        if char not in vocab:
            continue
        if char != " " and char not in PHONEME_PUNCTUATION:
            first, last = (index if first is None else first), index
        index += 1
    return spans


def _words_of(text: str, spans: list[tuple[float, float]], model: Any) -> list[Word] | None:
    """The words of `text` that have a letter or digit, each with the span of the phoneme words it became;
    None when they cannot be matched (the caller estimates them)."""
    words = sounded(text)
    if len(words) == len(spans):
        return [(word, round(a, 4), round(b, 4)) for word, (a, b) in zip(words, spans)]
    sizes = [sum(1 for part in model.g2p(word).split() if any(c not in PHONEME_PUNCTUATION for c in part))
             for word in words]  # fmt: skip  # a word such as "PyTorch" becomes two phoneme words
    if sum(sizes) != len(spans):
        return None
    timed, at = [], 0
    for word, size in zip(words, sizes):
        if size:
            timed.append((word, round(spans[at][0], 4), round(spans[at + size - 1][1], 4)))
        else:  # read as nothing: an instant at the next word
            instant = round(spans[min(at, len(spans) - 1)][0], 4)
            timed.append((word, instant, instant))
        at += size
    return timed


def sounded(text: str) -> list[str]:
    """The words of `text` a voice says: those with a letter or a digit."""
    return [word for word in text.split() if any(char.isalnum() for char in word)]


def estimated_words(path: Path, text: str) -> list[Word]:
    """The words of `text` spread over the voiced span of the WAV at `path` by their characters (a space
    counted after each): what a voice that gives no timings says, to within a word or two."""
    import wave

    import numpy as np

    with wave.open(str(path), "rb") as handle:
        rate = handle.getframerate()
        samples = np.frombuffer(handle.readframes(handle.getnframes()), dtype="<i2").astype(np.float32)
    words = sounded(text)
    if not words or samples.size == 0:
        return []
    window = max(1, rate // 100)  # 10 ms
    energy = np.sqrt(np.mean(samples[: samples.size // window * window].reshape(-1, window) ** 2, axis=1))
    voiced = np.flatnonzero(energy > 0.05 * energy.max()) if energy.size else np.array([])
    begin = voiced[0] * window / rate if voiced.size else 0.0
    end = (voiced[-1] + 1) * window / rate if voiced.size else samples.size / rate
    return spread(words, begin, end)


def spread(words: Sequence[str], begin: float, end: float) -> list[Word]:
    """The words spread over `begin`..`end` by their characters, a space counted after each."""
    weights = [len(word) + 1 for word in words]
    total, at, timed = sum(weights), begin, []
    for word, weight in zip(words, weights):
        share = (end - begin) * weight / total
        timed.append((word, round(at, 4), round(at + share * len(word) / weight, 4)))
        at += share
    return timed


@functools.lru_cache(maxsize=1)
def _hibari_model() -> Any:
    """One model per process (loading takes about a second; a narration stage speaks every slide of a scene)."""
    from hibari import Hibari as Model  # type: ignore[import-not-found]

    # model= the bundled file: Hibari then never calls voice_path, the only code in the package that downloads.
    return Model(voice=HIBARI_VOICE, model=_hibari_model_file(), threads=1)


class Espeak(SpeechService):
    """Debian's espeak-ng: formant synthesis, robotic but clear, fast; the fallback voice and the tests' voice."""

    name = "espeak"

    def check(self) -> None:
        if shutil.which("espeak-ng") is None:
            raise ToolMissingError(
                "[publish] voice = espeak needs espeak-ng; run `make setup` (apt-get install espeak-ng)"
            )

    def settings(self) -> dict[str, Any]:
        return {"espeak_voice": self.publish.espeak_voice, "wpm": self.publish.words_per_minute}

    def generate_from_text(self, text: str, target: Path) -> None:
        publish = self.publish
        # Into a short temporary folder, then moved: espeak-ng cuts a -w path at 200 characters and then
        # writes nowhere, with exit code 0 (a build in a deep folder, pytest's under xdist, lost its narration).
        with tempfile.TemporaryDirectory(prefix="espeak-") as short:
            script, wav = Path(short) / "text.txt", Path(short) / "speech.wav"
            script.write_text(text)
            _run(
                ["espeak-ng", "-v", publish.espeak_voice, "-s", str(publish.words_per_minute), "-f", str(script),
                 "-w", str(wav)],
                f"espeak-ng could not speak with voice {publish.espeak_voice!r} ([publish] espeak_voice)",
                writing=wav,
            )  # fmt: skip
            with naming_a_full_disk(target):
                shutil.move(wav, target)


class Piper(SpeechService):
    """piper-tts (optional): a Piper voice model the lecturer downloaded, `[publish] voice_model`."""

    name = "piper"

    def check(self) -> None:
        key, publish = "[publish] voice_model", self.publish
        if not publish.voice_model:
            raise SeqanimError(f"{key} is empty; set it to a Piper voice's .onnx file (README: Hand out and publish)")
        path = model_path(publish)
        if not path.is_file():
            raise SeqanimError(
                f"{key} = {publish.voice_model!r}: no such file; download a Piper voice (.onnx and .onnx.json) "
                "and name its .onnx file"
            )
        if not path.with_name(path.name + ".json").is_file():
            raise SeqanimError(f"{key} = {publish.voice_model!r}: its {path.name}.json is missing; put it beside it")

    def settings(self) -> dict[str, Any]:
        path = model_path(self.publish)
        return {"model": _file_digest(path) if path.is_file() else self.publish.voice_model}

    def generate_from_text(self, text: str, target: Path) -> None:
        try:
            from piper import PiperVoice  # type: ignore[import-not-found]
        except ImportError:
            raise ToolMissingError(
                "[publish] voice = piper needs the piper-tts package; `.venv/bin/pip install piper-tts`"
            ) from None
        import wave

        model = PiperVoice.load(str(model_path(self.publish)))
        with wave.open(str(target), "wb") as handle:
            # piper-tts 1.3 calls it synthesize_wav; 1.2 called it synthesize
            speak = getattr(model, "synthesize_wav", None) or model.synthesize
            speak(text, handle)


SERVICES: dict[str, type[SpeechService]] = {service.name: service for service in (Hibari, Espeak, Piper)}


def service(voice: str, publish: Publish) -> SpeechService:
    """The speech service of a synthetic voice; one line naming the key and the choices for any other name."""
    if voice not in SERVICES:
        raise SeqanimError(
            f"[publish] voice = {voice!r} cannot synthesise; use one of {', '.join(SERVICES)} (or recorded, none)"
        )
    return SERVICES[voice](publish)


def check_voice(publish: Publish) -> None:
    """Fail before anything runs when the configured voice cannot be used (one line: key and fix)."""
    synthetic = publish.fallback_voice if publish.voice == "recorded" else publish.voice
    if synthetic != "none":
        service(synthetic, publish).check()


# --- loudness and the cache ------------------------------------------------------------------------------


def _samples(source: Path) -> Any:
    """A WAV's samples as floats in [-1, 1], mono at SAMPLE_RATE (16-bit PCM here; anything else through ffmpeg)."""
    import wave

    import numpy as np
    from scipy.signal import resample_poly

    try:
        with wave.open(str(source), "rb") as handle:
            width, channels, rate = handle.getsampwidth(), handle.getnchannels(), handle.getframerate()
            data = handle.readframes(handle.getnframes())
    except (wave.Error, EOFError):
        width = 0
    if width != 2:  # a float or 24-bit WAV: ffmpeg makes it plain
        plain = source.with_name(f"{source.stem}.s16.wav")
        _decode(source, plain)
        return _samples(plain)
    samples = np.frombuffer(data, dtype="<i2").astype(np.float64).reshape(-1, channels).mean(axis=1) / 32768
    if rate != SAMPLE_RATE:
        common = math.gcd(rate, SAMPLE_RATE)
        samples = resample_poly(samples, SAMPLE_RATE // common, rate // common)
    return samples


def loudness(samples: Any) -> float:
    """Integrated loudness in LUFS (ITU-R BS.1770-4, the measure of ffmpeg's loudnorm and ebur128), of mono
    samples at SAMPLE_RATE; a clip shorter than the measure's 0.4 s window is measured padded with silence."""
    import numpy as np
    import pyloudnorm

    padded = np.pad(samples, (0, max(0, round(0.4 * SAMPLE_RATE) + 1 - len(samples))))
    return float(pyloudnorm.Meter(SAMPLE_RATE).integrated_loudness(padded))


def true_peak_db(samples: Any) -> float:
    """The true peak in dBTP: the highest sample of the signal four times oversampled (BS.1770's method)."""
    import numpy as np
    from scipy.signal import resample_poly

    peak = float(np.max(np.abs(resample_poly(samples, 4, 1)))) if len(samples) else 0.0
    return 20 * math.log10(peak) if peak > 0 else float("-inf")


def limited(samples: Any, ceiling_db: float) -> Any:
    """The samples with their true peak at most `ceiling_db`: a limiter's gain, lowered around each sample
    whose four-times oversampled peak passes the ceiling (20 ms around it, faded in and out over 20 ms: a
    minimum filter, then a moving average of the same width, which stays under the gain each peak needs)."""
    import numpy as np
    from scipy.ndimage import minimum_filter1d, uniform_filter1d
    from scipy.signal import resample_poly

    ceiling = 10 ** (ceiling_db / 20)
    peaks = np.abs(resample_poly(samples, 4, 1))[: 4 * len(samples)].reshape(-1, 4).max(axis=1)
    needed = np.minimum(1.0, ceiling / np.maximum(peaks, 1e-12))
    if needed.min() >= 1.0:
        return samples
    width = round(0.02 * SAMPLE_RATE) | 1
    gain = uniform_filter1d(minimum_filter1d(needed, width, mode="nearest"), width, mode="nearest")
    result = samples * gain
    over = true_peak_db(result) - ceiling_db  # what the gain's own slope adds between samples
    return result * 10 ** (-over / 20) if over > 0 else result


def _normalise(source: Path, publish: Publish, target: Path) -> float:
    """`source` made mono at SAMPLE_RATE and brought to `[publish] loudness_lufs` by one gain, its few peaks
    above `true_peak_db` limited (so the timings still hold). Returns the result's loudness."""
    import wave

    import numpy as np

    samples = _samples(source)
    measured = loudness(samples)
    if not math.isfinite(measured):
        raise SeqanimError(f"{current().label(source)} is silent; record or synthesise it again")
    louder = samples
    for _ in range(3):  # limiting the peaks takes a little loudness off: make it up, and limit again
        louder = limited(louder * 10 ** ((publish.loudness_lufs - measured) / 20), publish.true_peak_db)
        measured = loudness(louder)
        if abs(measured - publish.loudness_lufs) < 0.2:
            break
    pcm = np.clip(np.round(louder * 32767), -32768, 32767).astype("<i2")
    with naming_a_full_disk(target), wave.open(str(target), "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(SAMPLE_RATE)
        handle.writeframes(pcm.tobytes())
    return loudness(pcm / 32768)


def timed_clip(text: str, publish: Publish) -> Clip | None:
    """What `clip(text, publish, voice="hibari")` says of its clip (its length and words, to the sample), found
    from the model's durations alone: no audio is made, nothing is written, no `path`. None when the words
    cannot be matched to the model's (the clip's are then estimated from its audio)."""
    seconds, words = Hibari(publish).timed(spoken(text))
    return Clip(None, seconds, publish.loudness_lufs, "hibari", False, tuple(words), "model") if words else None


def clip_seconds(path: Path) -> float:
    import wave

    with wave.open(str(path), "rb") as handle:
        return handle.getnframes() / handle.getframerate()


def clip(text: str, publish: Publish, *, recorded: Path | None = None, voice: str | None = None) -> Clip:
    """The normalised clip of one slide: `recorded` when given, else `text` spoken by `voice`."""
    voice = voice or publish.voice
    if recorded is not None:
        source = current().label(recorded)
        identity: dict[str, Any] = {"recorded": _file_digest(recorded)}
    else:
        speaker = service(voice, publish)
        source = voice
        identity = {"text": spoken(text), "voice": voice, **speaker.settings()}
    key = digest({**identity, "lufs": publish.loudness_lufs, "tp": publish.true_peak_db, "v": VERSION})[:24]
    folder = cache_dir()
    wav, meta = folder / f"{key}.wav", folder / f"{key}.json"
    if wav.is_file() and meta.is_file():
        try:
            info = json.loads(meta.read_text())
            words = tuple((str(w), float(a), float(b)) for w, a, b in info["words"])
            return Clip(wav, float(info["seconds"]), float(info["lufs"]), source, False, words, info["timing"])
        except (ValueError, KeyError, TypeError):
            pass  # a damaged record: make the clip again
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".voice-", dir=folder) as tmp:
        raw = Path(tmp) / "raw.wav"
        timed = None
        if recorded is not None:
            _decode(recorded, raw)
        else:
            timed = speaker.generate_from_text(spoken(text), raw)
        staged = Path(tmp) / "clip.wav"
        lufs = _normalise(raw, publish, staged)  # linear gain, same length: the timings still hold
        seconds = clip_seconds(staged)
        timing = "model" if timed is not None else "estimated"
        words = tuple(timed if timed is not None else estimated_words(staged, spoken(text)))
        os.replace(staged, wav)
    record = {"seconds": seconds, "lufs": lufs, "source": source, "timing": timing, "words": words}
    atomic_write_text(meta, json.dumps(record))
    return Clip(wav, seconds, lufs, source, True, words, timing)


def _decode(recorded: Path, target: Path) -> None:
    """A recording (any of RECORDED_SUFFIXES) as WAV; one line naming the file when it cannot be decoded."""
    result = subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", str(recorded), "-vn", "-ac", "1",
         "-ar", str(SAMPLE_RATE), "-c:a", "pcm_s16le", str(target)],
        capture_output=True, text=True,
    )  # fmt: skip
    if result.returncode != 0 or not target.is_file() or target.stat().st_size <= 44:
        raise SeqanimError(
            f"{current().label(recorded)} cannot be decoded as audio; export it again as WAV, FLAC or MP3 "
            "(or remove it to use the synthetic voice)"
        )
