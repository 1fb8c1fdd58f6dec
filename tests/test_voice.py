"""The narration voices on their own, against the real synthesisers and ffmpeg (no build, nothing mocked): the
default voice (hibari) speaks a real sentence offline at the target loudness, the cache is keyed by the
voice's settings, a clip of two seconds is normalised all the same, and a voice that cannot
be used fails in one line naming the key and the fix."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import wave
from collections.abc import Iterator
from pathlib import Path

import pytest

from seqanim.errors import SeqanimError, ToolMissingError
from seqanim.lecture.config import Publish, load
from seqanim.publish import voice
from seqanim.workspace import WORKSPACE_ENV, current

SENTENCE = "Attention lets the decoder look back at every word of the input sentence."  # 13 words


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A workspace of its own: an empty voice cache, so every clip here is synthesised by the test."""
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path))
    current.cache_clear()
    yield tmp_path
    monkeypatch.undo()
    current.cache_clear()


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection this process tries fails the test (the product must speak with no network)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a voice tried the network: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def ebur128(path: Path, measure: str) -> float:
    """What ffmpeg's ebur128 filter measures of a clip, a second opinion on the clip's own: "I", its integrated
    loudness (LUFS), or "Peak", its true peak (dBFS)."""
    result = subprocess.run(
        ["ffmpeg", "-hide_banner", "-nostats", "-i", str(path), "-af", "ebur128=peak=true", "-f", "null", "-"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(re.findall(rf"{measure}:\s+(-?[\d.]+|-inf) (?:LUFS|dBFS)", result.stderr)[-1])


def test_the_default_voice_is_hibari() -> None:
    assert Publish().voice == "hibari"
    assert load().publish.voice == "hibari"  # lecture.toml says so too


def test_hibari_speaks_a_real_sentence_offline_at_the_target_loudness(workspace: Path, offline: None) -> None:
    publish = Publish()
    voice.check_voice(publish)
    made = voice.clip(SENTENCE, publish)
    assert made.source == "hibari" and made.synthesised
    assert made.path.parent == workspace / ".seqanim" / "voice"
    assert 2.0 <= made.seconds <= 6.0, made.seconds  # 13 words: 130 to 390 words a minute
    with wave.open(str(made.path), "rb") as handle:
        assert (handle.getframerate(), handle.getnchannels()) == (voice.SAMPLE_RATE, 1)
    assert ebur128(made.path, "I") == pytest.approx(publish.loudness_lufs, abs=1.0)
    assert ebur128(made.path, "Peak") <= publish.true_peak_db + 0.5
    # The same text and settings: found in the cache. Another speed: another clip, and a shorter one.
    assert voice.clip(SENTENCE, publish).synthesised is False
    faster = voice.clip(SENTENCE, publish.model_copy(update={"hibari_speed": 1.5}))
    assert faster.synthesised and faster.path != made.path
    assert faster.seconds < made.seconds * 0.85


@pytest.mark.parametrize("name", ["hibari", "espeak"])
def test_a_short_clip_reaches_the_target(workspace: Path, name: str) -> None:
    """A 2 s clip (ffmpeg's loudnorm, which needs 3 s, left one 25 dB too quiet), measured by ffmpeg."""
    publish = Publish()
    made = voice.clip("Change only the query.", publish, voice=name)
    assert made.seconds < 3.0
    assert ebur128(made.path, "I") == pytest.approx(publish.loudness_lufs, abs=1.5)


def test_an_unknown_voice_names_the_key_and_the_choices() -> None:
    with pytest.raises(SeqanimError) as raised:
        voice.check_voice(Publish().model_copy(update={"voice": "robot"}))
    message = str(raised.value)
    assert "[publish] voice = 'robot'" in message and "hibari" in message and "\n" not in message
    assert raised.value.exit_code == 2


def test_hibari_missing_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "hibari", None)  # what an import finds when the package is not installed
    monkeypatch.setitem(sys.modules, "hibari.voices", None)
    with pytest.raises(ToolMissingError) as raised:
        voice.check_voice(Publish())
    message = str(raised.value)
    assert "[publish] voice = hibari" in message and "pip install hibari-tts==" in message and "\n" not in message
    assert raised.value.exit_code == 2


def test_hibaris_model_gives_each_phonemes_duration_and_they_time_its_audio_exactly() -> None:
    """The word timings rest on one tensor of hibari's graph: its duration predictor's integer output. Read as
    an extra output it must exist, and its sum (25 ms steps) times two must equal the audio's 12.5 ms frames,
    and the audio of the timed model must be hibari's own, sample for sample."""
    import numpy as np
    from hibari import dsp

    model, session = voice._hibari_model(), voice._hibari_timed_session()  # a missing tensor fails here
    (phonemes,) = model.phonemize(SENTENCE)
    ids = model.ids(phonemes)
    *outputs, durations = session.run(None, {"ids": np.asarray([ids], np.int64), "speed": np.ones(1, np.float32)})
    assert durations.dtype == np.int64 and durations.shape == (len(ids),)
    audio = dsp.synth(*(output[0] for output in outputs), np.random.default_rng(voice.HIBARI_SEED))
    assert len(audio) == int(durations.sum()) * 2 * dsp.HOP  # 2 frames of 300 samples per 25 ms step
    ours = np.asarray(audio)
    theirs = model(SENTENCE, speed=1.0, seed=voice.HIBARI_SEED)
    assert np.array_equal(ours, theirs)


def test_hibaris_word_timings_fall_on_its_words(workspace: Path) -> None:
    """Every word of two sentences is timed, in order, inside the clip; the speech starts within 0.1 s of the
    first word's time, and between the sentences the audio is quiet where the timings say no word is said
    (measured on the clip's samples, not on the timings' own arithmetic)."""
    import numpy as np

    text = "Keys are addresses. Values are contents."
    made = voice.clip(text, Publish())
    assert made.timing == "model"
    assert [word for word, _, _ in made.words] == text.split()
    starts = [start for _, start, _ in made.words]
    assert starts == sorted(starts) and all(a <= b for _, a, b in made.words)
    assert made.words[-1][2] <= made.seconds
    with wave.open(str(made.path), "rb") as handle:
        samples = np.frombuffer(handle.readframes(handle.getnframes()), "<i2").astype(np.float32)
    window = voice.SAMPLE_RATE // 100  # 10 ms
    energy = np.sqrt(np.mean(samples[: samples.size // window * window].reshape(-1, window) ** 2, axis=1))
    onset = np.flatnonzero(energy > 0.1 * energy.max())[0] / 100
    assert abs(onset - made.words[0][1]) <= 0.1, (onset, made.words[0])
    pause = energy[round(made.words[2][2] * 100) + 3 : round(made.words[3][1] * 100) - 3]
    assert pause.size >= 5 and pause.mean() < 0.1 * energy.mean(), (pause.size, pause.mean(), energy.mean())


def test_spoken_reads_the_notation_in_words() -> None:
    assert voice.spoken("S = Q K^T, 4x8, ||h_t|| <= 1") == "S = Q K transpose, 4 by 8, the norm of h t at most 1"


def test_a_speed_found_by_other_code_is_found_again(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dense beat's speed is kept beside the clips, keyed by the code that found it: a record made by other
    code (an earlier seqanim found 0.8 for this sentence, where this one finds 0.815) is not reused, so a build
    paces the beat as a fresh build does."""
    text = (
        "In the middle, the matrix's two hundred eigenvalues, all on a circle of radius rho; "
        "on the right, the state as an arrow."
    )
    fresh = voice.readable_speed(text, Publish())
    assert voice.SLOWEST_SPEED < fresh < 1.0  # slowed for its captions
    records = set(voice.cache_dir().glob("*.speed"))
    with monkeypatch.context() as earlier_code:
        earlier_code.setattr(voice, "speed_rules", lambda: "an earlier seqanim's")
        voice.readable_speed(text, Publish())
    (earlier,) = set(voice.cache_dir().glob("*.speed")) - records  # kept apart from this code's record
    earlier.write_text("0.8\n")
    for record in records:
        record.unlink()
    assert voice.readable_speed(text, Publish()) == fresh
