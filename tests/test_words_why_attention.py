"""The words of the seed-003 scenes, from the real data/qkv_walkthrough and without rendering: every beat of the
narration can be heard (no digits, notation or cues to the room), says the data's key numbers in spoken form,
and the speaker notes still quote the numbers the render tests expect."""

from __future__ import annotations

import numpy as np
import pytest

from scenes.why_attention import (
    causal_mask,
    padding_mask,
    query_and_temperature,
    query_key_value,
    scaled_scores,
    softmax_normalization,
    weighted_retrieval,
    what_attention_explains,
)
from seqanim.author.spoken import bookmarks, integer, listing, number, sentences_of, unheard
from tests.test_scenes_why_attention import SLIDES, expected_numbers

ARTIFACT = "qkv_walkthrough"


def said(art) -> dict[str, list[tuple[str, ...]]]:  # type: ignore[no-untyped-def]
    """Every scene's narration, slide by slide, as its scene calls the words functions."""
    qt = query_and_temperature
    slides = {
        "QueryKeyValue": [
            query_key_value.query_said(art),
            query_key_value.values_said(art),
            query_key_value.scores_said(art),
        ],
        "ScaledScores": [
            scaled_scores.operands_said(art),
            scaled_scores.first_key_said(art),
            scaled_scores.other_keys_said(art),
            scaled_scores.summary_said(art),
        ],
        "SoftmaxNormalization": [
            softmax_normalization.start_said(art),
            softmax_normalization.shift_said(art),
            softmax_normalization.exponentiate_said(art),
            softmax_normalization.divide_said(art),
        ],
        "WeightedRetrieval": [
            weighted_retrieval.values_said(art),
            weighted_retrieval.chain_said(art),
            weighted_retrieval.context_said(art),
        ],
        "QueryAndTemperature": [
            qt.first_query_said(art),
            *[qt.query_said(art, index) for index in range(1, len(art["queries"]))],
            qt.temperature_said(art),
            *[qt.stop_said(art, stop) for stop in qt.temperature_stops(art)],
        ],
        "CausalMask": [
            causal_mask.scores_said(art),
            causal_mask.mask_said(art),
            causal_mask.softmax_said(art),
            causal_mask.contrast_said(art),
        ],
        "PaddingMask": [
            padding_mask.combine_said(art),
            padding_mask.weights_said(art),
            padding_mask.all_masked_said(art),
        ],
        "WhatAttentionExplains": [
            what_attention_explains.layout_said(art),
            what_attention_explains.change_said(art),
            what_attention_explains.remove_said(art),
            what_attention_explains.parity_said(art),
            what_attention_explains.closing_said(art),
        ],
    }
    return {scene: [tuple(sentences_of(words)) for words in results] for scene, results in slides.items()}


def notes(art) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """Every scene's speaker notes, slide by slide."""
    qt = query_and_temperature
    return {
        "QueryKeyValue": [
            query_key_value.query_notes(art),
            query_key_value.values_notes(art),
            query_key_value.scores_notes(art),
        ],
        "ScaledScores": [
            scaled_scores.operands_notes(art),
            scaled_scores.first_key_notes(art),
            scaled_scores.other_keys_notes(art),
            scaled_scores.summary_notes(art),
        ],
        "SoftmaxNormalization": [
            softmax_normalization.start_notes(art),
            softmax_normalization.shift_notes(art),
            softmax_normalization.exponentiate_notes(art),
            softmax_normalization.divide_notes(art),
        ],
        "WeightedRetrieval": [
            weighted_retrieval.values_notes(art),
            weighted_retrieval.chain_notes(art),
            weighted_retrieval.context_notes(art),
        ],
        "QueryAndTemperature": [
            qt.first_query_notes(art),
            *[qt.query_notes(art, index) for index in range(1, len(art["queries"]))],
            qt.temperature_notes(art),
            *[qt.stop_notes(art, stop) for stop in qt.temperature_stops(art)],
        ],
        "CausalMask": [
            causal_mask.scores_notes(art),
            causal_mask.mask_notes(art),
            causal_mask.softmax_notes(art),
            causal_mask.contrast_notes(art),
        ],
        "PaddingMask": [
            padding_mask.combine_notes(art),
            padding_mask.weights_notes(art),
            padding_mask.all_masked_notes(art),
        ],
        "WhatAttentionExplains": [
            what_attention_explains.layout_notes(art),
            what_attention_explains.change_notes(art),
            what_attention_explains.remove_notes(art),
            what_attention_explains.parity_notes(art),
            what_attention_explains.closing_notes(art),
        ],
    }


def spoken(values, decimals: int = 2) -> list[str]:  # type: ignore[no-untyped-def]
    return [number(float(v), decimals) for v in np.ravel(values)]


def within(difference: float) -> str:
    """The smallest power of a thousand below one that bounds `difference`, as heard: "a millionth"."""
    names = {3: "thousandth", 6: "millionth", 9: "billionth"}
    exponent = max(e for e in names if difference < 10.0**-e)
    return f"a {names[exponent]}"


def key_phrases(art) -> dict[str, list[list[str]]]:  # type: ignore[no-untyped-def]
    """Per scene and slide, numbers of the data the narration must say, in spoken form (from data/, not typed)."""
    labels = [str(label) for label in art["labels"]]
    scores, weights, context = art["scores"][0], art["weights"][0], art["context"][0]
    temps, tw, start = art["temperatures"], art["temperature_weights"], query_and_temperature.start_temperature(art)
    stops = query_and_temperature.temperature_stops(art)
    padded = [i for i, real in enumerate(art["is_real_key"]) if not real]
    removed = [i for i in range(art["removed_allowed"].shape[1]) if not art["removed_allowed"][0, i]]
    kept = [i for i in range(len(labels)) if i not in removed]
    changed = int(np.flatnonzero(np.any(art["changed_V"] != art["V"], axis=1))[0])
    return {
        "QueryKeyValue": [
            [listing(labels), ", ".join(spoken(art["Q"][0]))],
            [", ".join(spoken(art["K"][0])), ", ".join(spoken(art["V"][0]))],
            spoken(art["raw_scores"][0]),
        ],
        "ScaledScores": [
            [integer(int(art["d_k"]))],
            [number(float(scores[0]), 2), number(float(art["raw_scores"][0, 0]), 2)],
            spoken(scores[1:]),
            [integer(int(art["d_k"]))],
        ],
        "SoftmaxNormalization": [
            [number(float(scores.max()), 2)],
            spoken(art["shifted"][0]),
            [number(float(art["exp_sum"][0]), 2)],
            [*spoken(weights), number(float(weights.sum()), 2)],
        ],
        "WeightedRetrieval": [
            [integer(len(art["V"]))],
            spoken(weights),
            spoken(context, 1),
        ],
        "QueryAndTemperature": [
            [", ".join(spoken(art["queries"][0])), *spoken(art["query_weights"][0])],
            *[
                [", ".join(spoken(art["queries"][index])), *spoken(art["query_weights"][index])]
                for index in range(1, len(art["queries"]))
            ],
            [number(float(temps[start]), 2)],
            *[
                [number(float(temps[stop]), 2)]
                + (
                    [*spoken(art["sweep_temperatures"][[0, -1]]), number(float(art["sweep_weights"][0].min()), 2)]
                    if stop == start
                    else spoken(tw[stop])
                )
                for stop in stops
            ],
        ],
        "CausalMask": [
            [integer(len(art["K"]))],
            [integer(int((~art["causal_allowed"]).sum()))],
            [", ".join(spoken(art["causal_weights"][0]))],
            [number(float(s), 1) for s in art["softmax_then_mask_sums"] if not np.isclose(s, 1.0)],
        ],
        "PaddingMask": [
            [*[integer(i) for i in padded], listing([integer(int(r.sum())) for r in art["padding_allowed"]])],
            [number(float(art["padding_weights"][:, padded[0]].max()), 2)],
            [integer(r) for r, row in enumerate(art["all_masked_allowed"]) if not row.any()],
        ],
        "WhatAttentionExplains": [
            [],
            [
                labels[changed],
                ", ".join(spoken(art["changed_V"][changed], 0)),
                ", ".join(spoken(context, 0)),
                ", ".join(spoken(art["changed_context"][0], 0)),
            ],
            [
                *[labels[i] for i in removed],
                *spoken(art["removed_weights"][0, kept]),
                ", ".join(spoken(art["removed_context"][0], 0)),
            ],
            [within(max(art.metrics["sdpa_max_abs_diff"], art.metrics["sdpa_padding_max_abs_diff"]))],
            [],
        ],
    }  # fmt: skip


@pytest.mark.parametrize("scene", list(SLIDES))
def test_every_beat_can_be_heard(scene: str, artifact) -> None:  # type: ignore[no-untyped-def]
    slides = said(artifact(ARTIFACT))[scene]
    assert len(slides) == SLIDES[scene]
    for index, beats in enumerate(slides, start=1):
        assert 1 <= len(beats) <= 4, f"{scene} slide {index}: {len(beats)} beats"
        for beat in (bookmarks(said)[0] for said in beats):  # as heard: the bookmarks are not words
            assert beat.strip() and beat[0].isupper(), f"{scene} slide {index}: {beat!r}"
            assert unheard(beat) == [], f"{scene} slide {index}: {unheard(beat)} in {beat!r}"
            assert 3 <= len(beat.split()) <= 30, f"{scene} slide {index}: {beat!r}"


@pytest.mark.parametrize("scene", list(SLIDES))
def test_narration_says_the_data(scene: str, artifact) -> None:  # type: ignore[no-untyped-def]
    art = artifact(ARTIFACT)
    slides, phrases = said(art)[scene], key_phrases(art)[scene]
    assert len(phrases) == len(slides)
    for index, (beats, wanted) in enumerate(zip(slides, phrases), start=1):
        text = " ".join(bookmarks(beat)[0] for beat in beats)  # as heard, without bookmarks
        for phrase in wanted:
            assert phrase in text, f"{scene} slide {index}: {phrase!r} not in {text!r}"


@pytest.mark.parametrize("scene", list(SLIDES))
def test_notes_quote_the_data(scene: str, artifact) -> None:  # type: ignore[no-untyped-def]
    """The notes functions give what the render tests read from the report (there, from a render)."""
    art = artifact(ARTIFACT)
    slides = notes(art)[scene]
    assert len(slides) == SLIDES[scene]
    for index, (note, wanted) in enumerate(zip(slides, expected_numbers(art)[scene]), start=1):
        assert wanted in note, f"{scene} slide {index}: {wanted!r} not in {note!r}"


def test_query_key_value_names_the_highest_score_as_the_data_has_it() -> None:
    """The notebook's keys give A and C the same score; with C's key moved so that A scores highest alone, every
    word of the scores slide says so instead of claiming a tie (English notes, narration and caption; German)."""
    from precompute.qkv_walkthrough import Parameters, run
    from scenes.why_attention import de
    from seqanim.lecture.contract import Artifact

    moved = Artifact(ARTIFACT, *run(Parameters(keys=[[1.0, 0.0], [0.0, 1.0], [0.5, 1.0]])), params={})
    assert [float(s) for s in moved["raw_scores"][0]] == [1.0, 0.0, 0.5]  # A alone scores highest
    notes = query_key_value.scores_notes(moved)
    said = bookmarks(query_key_value.scores_said(moved)["same"])[0]
    german = de.QueryKeyValue.scores_said(moved)["same"]
    caption = query_key_value.same_caption(moved)
    assert "Checkpoint: A has the highest dot product with this query (1)." in notes
    assert "same dot product" not in notes
    assert said == "A scores the highest: its shadow is the longest."
    assert german.startswith("A erzielt den höchsten Score")
    assert caption.startswith("A scores highest")
    # and the notebook's own keys still tie A and C
    tied = query_key_value.score_facts(Artifact(ARTIFACT, *run(Parameters()), params={}))
    assert tied.best == ["A", "C"]


def test_query_and_temperature_say_what_the_weights_and_the_dial_show() -> None:
    """The second query's notes name the keys that weigh least (A alone: B and C tie for the most); a walkthrough
    that starts its dial at 2 does not call 2 the temperature of standard attention, in either language."""
    from precompute.qkv_walkthrough import Parameters, run
    from scenes.why_attention import de
    from seqanim.lecture.contract import Artifact

    qt = query_and_temperature
    notebook = Artifact(ARTIFACT, *run(Parameters()), params={})
    weights = notebook["query_weights"][1]
    least = [label for label, w in zip(notebook["labels"], weights) if np.isclose(w, weights.min())]
    assert least == ["A"]
    assert qt.query_notes(notebook, 1).endswith("The ranking changes with the query: A now weighs least.")
    assert "the temperature of standard attention" in qt.stop_said(notebook, qt.start_temperature(notebook))["back"]

    warm = Artifact(ARTIFACT, *run(Parameters(temperature=2.0)), params={})
    start = qt.start_temperature(warm)
    assert warm["temperatures"][start] == 2.0
    back = bookmarks(qt.stop_said(warm, start)["back"])[0]
    assert back == "Back at two: where the dial started."
    assert "Standard" not in de.QueryAndTemperature.stop_said(warm, start)["back"]
    assert "standard" not in qt.stop_notes(warm, start)
    lower = next(stop for stop in qt.temperature_stops(warm) if warm["temperatures"][stop] < 2.0)
    assert "Temperature below 2 sharpens" in qt.stop_notes(warm, lower)


def _walkthrough(**changes):  # type: ignore[no-untyped-def]
    """The walkthrough computed directly with some parameters changed (it takes milliseconds)."""
    from precompute.qkv_walkthrough import Parameters, run
    from seqanim.lecture.contract import Artifact

    return Artifact(ARTIFACT, *run(Parameters(**changes)), params={})


def test_scaled_scores_print_keys_as_they_are_and_name_the_query_own_negative_scores() -> None:
    """Keys of 0.5 and 1.5 show as 0.5 and 1.5 in the Q and K^T tables, as in the formulas (not rounded to 0 and
    2); a query whose own scores are negative is not said to need another query for them (English, German)."""
    from manim import MathTex

    from scenes.why_attention import de
    from scenes.why_attention.shared import item_colours, key_labels

    halves = _walkthrough(keys=[[1.0, 0.0], [0.0, 1.0], [0.5, 1.5]])
    scene = scaled_scores.ScaledScores.__new__(scaled_scores.ScaledScores)  # its tables, without rendering
    scene.art, scene.labels, scene.colours = halves, key_labels(halves), item_colours(3)
    scene.operand_tables(MathTex("S"))
    shown = [float(entry.text) for entry in scene.keys_t.entries]
    assert shown == [float(k) for k in halves["K"].T.ravel()]  # 0.5 and 1.5 as they are
    assert [float(entry.text) for entry in scene.query.entries] == [float(q) for q in halves["Q"][0]]

    own = _walkthrough(query=[-1.0, 0.5])
    below = [label for label, s in zip(own["labels"], own["scores"][0]) if s < 0]
    assert below == ["A", "C"]  # this query's own row already has negative scores
    closing = bookmarks(scaled_scores.summary_said(own)["closing"])[0]
    assert closing == "These are scores, not probabilities: A and C are already negative."
    assert de.ScaledScores.summary_said(own)["closing"].endswith("A und C sind schon negativ.")
    assert scaled_scores.closing_caption(own) == "scores, not yet probabilities: some are already negative"
    assert "this query already scores A, C below zero" in scaled_scores.summary_notes(own)
    # the notebook's query scores nothing below zero: another query of the walkthrough shows negative scores
    notebook = _walkthrough()
    assert "another query" in scaled_scores.closing_caption(notebook)
    assert "the query minus one, zero gets negative ones" in scaled_scores.summary_said(notebook)["closing"]


def test_causal_mask_counts_the_vectors_it_has() -> None:
    """With four keys the notes count four vectors (they said "the three vectors" whatever the keys)."""
    four = _walkthrough(
        keys=[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]],
        values=[[10.0, 0.0], [0.0, 10.0], [10.0, 10.0], [5.0, 5.0]],
        labels=["A", "B", "C", "D"],
        is_real_key=[True, True, False, True],
    )
    assert len(four["K"]) == 4
    notes = causal_mask.scores_notes(four)
    assert "here the four vectors" in notes and "positions 0..3" in notes
    assert "three" not in notes


def test_padding_mask_says_how_many_keys_are_padded() -> None:
    """No padded key: no "key  is only padding" or "its weight is exactly zero"; two padded keys: plural forms
    (English notes and narration, German)."""
    from scenes.why_attention import de

    for real, padded in (([True, True, True], []), ([True, False, False], [1, 2])):
        art = _walkthrough(is_real_key=real)
        assert [i for i, r in enumerate(art["is_real_key"]) if not r] == padded
        combine = {name: bookmarks(beat)[0] for name, beat in padding_mask.combine_said(art).items()}
        zero = bookmarks(padding_mask.weights_said(art)["zero"])[0]
        german = {**de.PaddingMask.combine_said(art), **de.PaddingMask.weights_said(art)}
        suppose = padding_mask.all_masked_said(art)["suppose"]
        if not padded:
            assert combine["real"] == "Next, which keys are real: here every key is, and none is padding."
            assert combine["off"].startswith("No column switches off")
            assert zero == "No key is padded here, so no column is forced to zero."
            assert "the padded key" not in padding_mask.weights_notes(art)
            assert "so no key is padding" in padding_mask.combine_notes(art)
            assert german["real"].endswith("keiner ist Padding.") and german["zero"].startswith("Kein Key")
            assert suppose == "Suppose key zero were padding."
            assert de.PaddingMask.all_masked_said(art)["suppose"] == "Angenommen, Key 0 wäre Padding."
        else:
            assert combine["real"] == f"Next, which keys are real: keys {listing(['one', 'two'])} are only padding."
            assert combine["off"].startswith("The padded columns switch off")
            largest = number(float(art["padding_weights"][:, padded].max()), 2)
            assert zero == f"No query can retrieve a padded key: their weights are exactly {largest} in every row."
            assert "so keys pos 1, pos 2 are padding" in padding_mask.combine_notes(art)
            assert german["real"].endswith("Die Keys 1 und 2 sind nur Padding.")
            assert german["zero"].startswith("Keine Query kann einen Padding-Key abrufen: Ihre Gewichte sind")
            assert suppose == "Suppose key zero were padding as well."


def test_an_intervention_that_changes_nothing_is_refused_by_name() -> None:
    """changed_value equal to the value it replaces would leave WhatAttentionExplains without a change to show
    (change() found no changed row: IndexError); the parameters refuse it, naming the key and the fix."""
    from pydantic import ValidationError

    from precompute.qkv_walkthrough import Parameters

    original = Parameters().values[0]
    with pytest.raises(ValidationError, match=r"changed_value \[10, 0\] equals values\[0\]; choose a different value"):
        Parameters(changed_index=0, changed_value=original)
    changed = what_attention_explains.change(_walkthrough(changed_index=0, changed_value=[20.0, 0.0]))
    assert changed.index == 0 and list(changed.value) == [20.0, 0.0]


def test_weighted_retrieval_names_the_values_that_add_nothing() -> None:
    """With B's value [0, 0] its piece adds nothing, so the closing beat does not then say every value
    contributes (notes, narration, caption, German); the notebook's values all contribute."""
    from scenes.why_attention import de

    zero_b = _walkthrough(values=[[10.0, 0.0], [0.0, 0.0], [10.0, 10.0]])
    pieces = {str(label): bool(np.abs(c).max() > 0) for label, c in zip(zero_b["labels"], zero_b["contributions"])}
    assert pieces == {"A": True, "B": False, "C": True}
    every = bookmarks(weighted_retrieval.context_said(zero_b)["every"])[0]
    assert every == "No single value is picked: every value but B contributes."
    assert weighted_retrieval.every_caption(zero_b) == "no argmax: every value but B contributes to the context"
    assert "every value contributes" not in weighted_retrieval.chain_notes(zero_b)
    assert "zero for B, which adds nothing" in weighted_retrieval.chain_notes(zero_b)
    assert de.WeightedRetrieval.context_said(zero_b)["every"].endswith("Jeder Value außer B trägt zum Kontext bei.")
    notebook = _walkthrough()
    assert weighted_retrieval.every_caption(notebook) == "no argmax: every value contributes to the context"


def test_softmax_names_a_positive_weight_that_rounds_to_zero_as_positive() -> None:
    """A query far from B ([20, 0]) leaves B a weight of 3.6e-07: the notes and the caption print it as positive
    (not 0.0000 beside "never exactly zero"), and the narration says it is too small for two decimals, having just
    said it as zero (English, German); at the notebook's query the words are as before."""
    from scenes.why_attention import de

    far = _walkthrough(query=[20.0, 0.0])
    least = softmax_normalization.lowest(far)
    assert least.names == ("B",) and 0 < least.weight < 5e-5
    assert f"positive weight {least.weight:.1e} even though" in softmax_normalization.divide_notes(far)
    assert softmax_normalization.SoftmaxNormalization.lowest_caption(None, least).endswith(  # type: ignore[arg-type]
        f"yet weight {least.weight:.1e} > 0"
    )
    said = softmax_normalization.divide_said(far)
    assert "zero on B" in bookmarks(said["bars"])[0]
    assert bookmarks(said["never_zero"])[0] == (
        "B had the lowest score, yet keeps a positive weight, too small to say in two decimals: "
        "softmax never gives exactly zero."
    )
    assert "zu klein für zwei Nachkommastellen" in de.SoftmaxNormalization.divide_said(far)["never_zero"]
    notebook = _walkthrough()
    assert bookmarks(softmax_normalization.divide_said(notebook)["never_zero"])[0] == (
        "B had the lowest score, yet keeps a positive weight: softmax never gives exactly zero."
    )
    assert "positive weight 0.1978 even though" in softmax_normalization.divide_notes(notebook)
