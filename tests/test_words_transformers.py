"""The words of the five Transformer scenes, from the real artifacts in data/, without rendering: every beat is
fit to be heard (`seqanim.author.spoken.unheard`), and each slide's narration says its key numbers in spoken form
(expected phrases are built here from data/ with seqanim.author.spoken)."""

from __future__ import annotations

import importlib
import inspect
import math
import re
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

from seqanim.author.spoken import bookmarks, count, integer, number, percent, sentences_of, unheard
from seqanim.lecture.contract import Artifact

# scene -> (its module under scenes.transformers, the artifact it reads, its slides in order)
SCENES = {
    "SelfAttentionLookup": (
        "self_attention_lookup",
        "lookup",
        ("tokens", "matrix", "query_row", "bars", "read_out"),
    ),
    "AttentionPooling": ("attention_pooling", "groupby", ("tokens", "matrix", "blocks", "outputs")),
    "SinusoidalPositions": (
        "sinusoidal_positions",
        "positional",
        ("waves", "build_encoding", "gram", "diagonal", "kernel"),
    ),
    "RopeRotation": (
        "rope_rotation",
        "rope",
        ("circles", "spin", "both_positions", "shift_both", "score_matrix", "relative_rows"),
    ),
    "ScaledDotProduct": ("scaled_dot_product", "scaling", ("setup_views", "grow_d", "conclude")),
}


def module_of(scene: str) -> ModuleType:
    return importlib.import_module(f"scenes.transformers.{SCENES[scene][0]}")


def significant(value: float, digits: int = 2) -> str:
    """`value` rounded to `digits` significant digits, spoken."""
    place = digits - 1 - math.floor(math.log10(abs(float(value))))
    return number(round(float(value), place), max(place, 0))


def expected_phrases(scene: str, run: Artifact) -> list[list[str]]:
    """Per slide, the data's key numbers as a listener hears them."""
    if scene == "SelfAttentionLookup":
        attention, match = run["attention"], int(run["match_index"])
        return [
            [count(len(run["labels"]) - 1, "item token"), f"key {integer(int(run['query_key']))}"],
            [percent(float(np.mean(np.diagonal(attention)[:-1])), 0)],
            [percent(float(attention[-1, match]), 1)],
            [integer(attention.shape[1] - 1), percent(1 - float(attention[-1, match]), 1)],
            [
                f"value {integer(int(run['prediction']))}",
                integer(int(run.params["test_size"])),
                percent(run.metrics["accuracy"], 1),
            ],
        ]
    if scene == "AttentionPooling":
        keys, attention = run["keys"].astype(int), run["attention"]
        group = max((np.flatnonzero(keys == key) for key in np.unique(keys)), key=len)
        ratio = run.metrics["sequence_mean_mse"] / run.metrics["mse"]
        return [
            [count(len(keys), "token"), significant(run["target"][0])],
            [percent(run.metrics["example_within_group_mass"], 1)],
            [f"group of {integer(len(group))}", significant(attention[group[0], group].mean())],
            [
                count(len(run["target"]), "position"),
                significant(run.metrics["example_max_abs_error"]),
                integer(int(round(ratio, 1 - math.floor(math.log10(ratio))))),
            ],
        ]
    if scene == "SinusoidalPositions":
        gram, pe, kernel = run["pe_gram"], run["pe"], run["kernel"]
        offset = max(1, gram.shape[0] // 6)
        return [
            [significant(run["wavelengths"][0]), significant(run["wavelengths"][-1])],
            [integer(pe.shape[0] - 1), significant(pe[-1, -2])],
            [significant(run.metrics["gram_diagonal"]), integer(pe.shape[1])],
            [integer(offset), significant(np.diagonal(gram, offset)[0])],
            [
                significant(kernel[0]),
                significant(run.metrics["kernel_min"]),
                integer(int(run.metrics["kernel_min_offset"])),
            ],
        ]
    if scene == "RopeRotation":
        pairs, offset, shift = run["pairs"], int(run.params["offset"]), int(run.params["shift"])
        turns = run["pair_angles"][:, -1] / (2 * np.pi)
        score = significant(run["sweep_scores"][0])
        return [
            [count(len(pairs), "pair"), significant(run["freqs"][int(pairs[0])])],
            [integer(int(run["positions"][-1])), significant(turns[0]), significant(turns[-1])],
            [f"position {integer(offset)}", score],
            [integer(shift), score],
            [count(offset, "position"), significant(run["scores"][0, offset])],
            [f"position {integer(shift)}"],
        ]
    if scene == "ScaledDotProduct":
        dims, spread, entropy = run["dims"], run["logit_std"], run["entropy_unscaled"]
        return [
            [count(run["sample_logits"].shape[1], "key")],
            [
                significant(spread[0]),
                significant(spread[-1]),
                integer(int(dims[-1])),
                significant(run["sample_weights_unscaled"][-1].max()),
            ],
            [
                significant(entropy[0]),
                significant(entropy[-1]),
                number(math.floor(run.metrics["entropy_scaled_min"] * 100) / 100, 2),
            ],
        ]
    raise KeyError(scene)


def slide_said(scene: str, run: Artifact) -> list[str | dict[str, str]]:
    """Each slide's `*_said` result as its scene gets it: one sentence, or the beats by name."""
    module, slides = module_of(scene), SCENES[scene][2]
    return [getattr(module, f"{slide}_said")(run) for slide in slides]


def slide_words(scene: str, run: Artifact) -> list[list[str]]:
    return [sentences_of(said) for said in slide_said(scene, run)]


@pytest.mark.parametrize("scene", list(SCENES))
def test_every_slide_has_notes_and_words(scene: str, artifact: Callable[[str], Artifact]) -> None:
    module, run = module_of(scene), artifact(SCENES[scene][1])
    functions = {name for name, value in vars(module).items() if inspect.isfunction(value)}
    stems = {name.rsplit("_", 1)[0] for name in functions if name.endswith(("_notes", "_said"))}
    assert stems == set(SCENES[scene][2]), f"{scene}: words for {sorted(stems)}"
    for slide in SCENES[scene][2]:
        notes = getattr(module, f"{slide}_notes")(run)
        assert isinstance(notes, str) and notes.strip(), f"{scene}.{slide}: empty notes"


@pytest.mark.parametrize("scene", list(SCENES))
def test_every_beat_is_fit_to_be_heard(scene: str, artifact: Callable[[str], Artifact]) -> None:
    for slide, result in zip(SCENES[scene][2], slide_said(scene, artifact(SCENES[scene][1])), strict=True):
        # One beat is a str; several are a dict keyed by beat name (a one-entry dict should be a str).
        named = isinstance(result, dict) and len(result) >= 2 and all(isinstance(key, str) and key for key in result)
        assert isinstance(result, str) or named, f"{scene}.{slide}: {type(result).__name__} {result!r}"
        beats = sentences_of(result)
        assert 1 <= len(beats) <= 4, f"{scene}.{slide}: {len(beats)} beats"
        for said in beats:
            assert isinstance(said, str) and said.strip(), f"{scene}.{slide}: an empty beat"
            assert unheard(said) == [], f"{scene}.{slide}: {unheard(said)} in {said!r}"
            sentences = [part for part in re.split(r"[.?!](?:\s|$)", said) if part.strip()]
            assert len(sentences) <= 2, f"{scene}.{slide}: {len(sentences)} sentences in one beat: {said!r}"
            assert not re.search(r"\b(pause|checkpoint|practice|exercise)\b", said, re.I), said


@pytest.mark.parametrize("scene", list(SCENES))
def test_narration_says_the_data(scene: str, artifact: Callable[[str], Artifact]) -> None:
    run = artifact(SCENES[scene][1])
    words = slide_words(scene, run)
    for slide, beats, phrases in zip(SCENES[scene][2], words, expected_phrases(scene, run), strict=True):
        narration = " ".join(bookmarks(said)[0] for said in beats).lower()  # as heard: without the bookmarks
        for phrase in phrases:
            assert phrase.lower() in narration, f"{scene}.{slide}: expected {phrase!r} in {narration!r}"


def test_claims_hold_in_the_data(artifact: Callable[[str], Artifact]) -> None:
    """What the narration states as fact, checked against the numbers it rounds."""
    lookup = artifact("lookup")
    verdict = module_of("SelfAttentionLookup").read_out_said(lookup)["verdict"]
    right = int(lookup["prediction"]) == int(lookup["answer"])
    assert ("the right answer" in verdict) == right
    scaling = artifact("scaling")
    floor = math.floor(scaling.metrics["entropy_scaled_min"] * 100) / 100
    assert scaling["entropy_scaled"].min() >= floor  # "never drops below"
    rope = artifact("rope")
    offset = int(rope.params["offset"])
    diagonal = np.diagonal(rope["scores"], offset)
    assert significant(diagonal.min()) == significant(diagonal.max())  # "always" the same score


# --- words that hold for other parameters (artifacts computed here, not the built lecture) --------------------


def computed(name: str, **changes: object) -> Artifact:
    """A cheap experiment's artifact, run here with `changes` to its notebook parameters."""
    experiment = importlib.import_module(f"precompute.{name}")
    params = experiment.Parameters(**changes)
    return Artifact(name, *experiment.run(params), params=params.model_dump())


def heard(said: str) -> str:
    return bookmarks(said)[0]


def test_rope_ranks_its_pairs_by_their_frequencies() -> None:
    """Pairs drawn slowest first: the speed words, the fastest pair and the slowest follow the frequencies, not
    the order drawn; a slow pair that turns several times is not said to turn 'of a turn' (English and German)."""
    from scenes.transformers import de
    from seqanim.author.german import ganz, zahl

    rope = module_of("RopeRotation")
    run = computed("rope", pairs=[10, 4, 1])
    freqs = run["freqs"][run["pairs"]]
    ranks = np.argsort(np.argsort(-freqs))
    assert rope.rotary_facts(run).speeds == tuple(("fast", "medium", "slow")[rank] for rank in ranks)
    fastest, slowest = int(run["pairs"][freqs.argmax()]), int(run["pairs"][freqs.argmin()])
    turns = run["pair_angles"][:, -1] / (2 * np.pi)
    legend = heard(rope.circles_said(run)["legend"])
    assert f"{significant(freqs.max())} radians for pair {integer(fastest)}, far less" in legend
    spin = rope.spin_said(run)
    assert f"pair {integer(fastest)} makes {significant(turns.max())} turns" in spin
    assert f"pair {integer(slowest)} turns only {significant(turns.min())} of a turn" in spin
    german = de.RopeRotation.spin_said(run)
    assert f"macht Paar {ganz(fastest)} {zahl(turns.max(), 1)} Umdrehungen" in german
    assert f"Paar {ganz(slowest)} dagegen nur" in german
    assert f"für Paar {ganz(fastest)}, weit weniger" in de.RopeRotation.circles_said(run)["legend"]

    long = computed("rope", d=64, length=512)
    turns = long["pair_angles"][:, -1] / (2 * np.pi)
    assert turns.min() > 1  # the notebook's slowest pair turns several times over 512 positions
    spin = rope.spin_said(long)
    assert "of a turn" not in spin
    assert f"makes only {significant(turns.min())} turns" in spin
    assert f"nur {zahl(turns.min(), 1)} Umdrehungen" in de.RopeRotation.spin_said(long)

    close = computed("rope", pairs=[1, 2])  # neighbours: the second turns more than half as fast
    freqs = close["freqs"][close["pairs"]]
    assert freqs.min() > freqs.max() / 10
    assert rope.rotary_facts(close).speeds == ("fast", "slow")
    assert "far" not in rope.circles_said(close)["legend"]
    assert "weit" not in de.RopeRotation.circles_said(close)["legend"]

    one = computed("rope", pairs=[4])  # one pair drawn: one arrow, and no slower pair to compare it with
    assert "each an arrow" not in rope.circles_said(one)["arrows"]
    assert "jedes" not in de.RopeRotation.circles_said(one)["arrows"]
    assert "while" not in rope.spin_said(one) and "dagegen" not in de.RopeRotation.spin_said(one)


def test_scaling_says_what_its_dims_and_entropy_do() -> None:
    """Dims that quadruple are not said to double; a sweep whose unscaled entropy stays high is not called
    one-hot (English and German)."""
    from scenes.transformers import de

    scaled = module_of("ScaledDotProduct")
    notebook = computed("scaling")
    assert np.all(notebook["dims"][1:] == 2 * notebook["dims"][:-1])
    assert "doubles" in scaled.grow_d_said(notebook)["doubles"]
    assert "one-hot" in heard(scaled.conclude_said(notebook)["collapse"])

    quadrupling = computed("scaling", dims=[16, 64, 256])
    assert "doubles" not in scaled.grow_d_said(quadrupling)["doubles"]
    assert "the dimension grows" in scaled.grow_d_said(quadrupling)["doubles"]
    assert "verdoppelt" not in de.ScaledDotProduct.grow_d_said(quadrupling)["doubles"]

    short = computed("scaling", dims=[2, 4])
    keys = short["sample_logits"].shape[1]
    assert keys ** short["entropy_unscaled"][-1] > 2  # still spread like more than two equal keys: not one-hot
    collapse = heard(scaled.conclude_said(short)["collapse"])
    assert "turns one-hot" not in collapse and "not one-hot" in collapse
    assert "gradients vanish" not in collapse
    assert "nicht one-hot" in de.ScaledDotProduct.conclude_said(short)["collapse"]
    assert "nearly one-hot" not in scaled.grow_d_notes(short)
    assert "collapses" not in scaled.conclude_notes(short)


def test_pooling_compares_its_error_with_the_sequence_mean_as_the_metrics_have_it(
    artifact: Callable[[str], Artifact],
) -> None:
    """The held-out comparison follows the metrics: an exact sequence mean (one key group) is not 'zero times
    smaller' (nor a division by zero), a ratio of 2.5 is not 'two', and a larger error is said to be larger
    (English and German)."""
    import dataclasses

    from scenes.transformers import de

    pooling = module_of("AttentionPooling")
    built = artifact("groupby")

    def held_out(mse: float, sequence_mean_mse: float) -> tuple[str, str]:
        run = dataclasses.replace(built, metrics={**built.metrics, "mse": mse, "sequence_mean_mse": sequence_mean_mse})
        return heard(pooling.outputs_said(run)["held_out"]), de.AttentionPooling.outputs_said(run)["held_out"]

    for exact in (1e-15, 0.0):  # one key group: each sequence's mean is every token's answer
        english, german = held_out(built.metrics["mse"], exact)
        assert "times" not in english and "already exact" in english
        assert "-mal" not in german and "schon exakt" in german
    english, german = held_out(0.004, 0.01)
    assert "about two point five times smaller" in english and "rund 2,5-mal kleiner" in german
    english, german = held_out(0.02, 0.01)
    assert "about two times larger" in english and "rund 2-mal größer" in german
