"""The trained attention models of seed 000 (at2, at4, tf2, tf8), checked against data/ and the notebook's claims."""

from __future__ import annotations

import numpy as np
import pytest

from precompute import groupby, lookup, seq2seq_reverse, seq2seq_sort
from seqanim.config import GroupBy, Lookup, Seq2Seq

SEQ2SEQ = ("seq2seq_reverse", "seq2seq_sort")


@pytest.mark.parametrize("name", [*SEQ2SEQ, "lookup", "groupby"])
def test_attention_rows_are_distributions(artifact, name: str) -> None:
    attention = artifact(name)["attention"]
    assert attention.ndim == 2 and attention.shape[0] == attention.shape[1]
    assert np.all(attention >= 0)
    np.testing.assert_allclose(attention.sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("name", SEQ2SEQ)
def test_seq2seq_gets_the_shown_example_right(artifact, name: str) -> None:
    run = artifact(name)
    np.testing.assert_array_equal(run["prediction"], run["target"])
    np.testing.assert_array_equal(run["greedy_prediction"], run["target"])
    assert run.metrics["example_correct"] is True
    # The example uses distinct symbols, as the notebook ("no ambiguity").
    assert len(set(run["source"].tolist())) == len(run["source"])


@pytest.mark.parametrize("name", SEQ2SEQ)
def test_energies_softmax_to_the_attention(artifact, name: str) -> None:
    run = artifact(name)
    energies = run["energies"]
    weights = np.exp(energies - energies.max(axis=1, keepdims=True))
    np.testing.assert_allclose(weights / weights.sum(axis=1, keepdims=True), run["attention"], atol=1e-5)


def test_reverse_task_and_accuracy(artifact) -> None:
    run = artifact("seq2seq_reverse")
    np.testing.assert_array_equal(run["target"], run["source"][::-1])
    assert run.metrics["token_accuracy"] > 0.9  # held out, teacher-forced as the notebook
    assert run.metrics["greedy_token_accuracy"] > 0.8
    assert run.metrics["greedy_token_accuracy"] <= run.metrics["token_accuracy"] + 1e-9


def test_reverse_alignment_is_a_staircase_one_step_late(artifact) -> None:
    """The notebook says "each output attends to its mirror-image input (anti-diagonal)". The trained model's
    peaks follow the anti-diagonal but one position late (L-t), except step 0, which hits the mirror."""
    run = artifact("seq2seq_reverse")
    attention = run["attention"]
    length = attention.shape[0]
    argmax = attention.argmax(axis=1)
    assert argmax[0] == length - 1  # step 0: the mirror position, the last symbol
    assert np.all(np.diff(argmax) <= 0)  # the peak walks from right to left
    assert np.all(np.abs(argmax - (length - 1 - np.arange(length))) <= 1)  # within one position of the mirror
    shifted = np.minimum(length - np.arange(length), length - 1)
    np.testing.assert_allclose(run["shifted_mass"], attention[np.arange(length), shifted])
    assert run.metrics["example_shifted_mass"] > 0.9
    assert run.metrics["held_out_argmax_on_shifted"] > 0.85
    assert run.metrics["held_out_mirror_mass"] < 0.5


def test_sort_task_accuracy_and_content_alignment(artifact) -> None:
    run = artifact("seq2seq_sort")
    np.testing.assert_array_equal(run["target"], np.sort(run["source"]))
    assert run.metrics["token_accuracy"] > 0.95
    # "step t attends to wherever the t-th smallest value sits"
    np.testing.assert_array_equal(run["attention"].argmax(axis=1), np.argsort(run["source"]))
    assert run.metrics["held_out_argmax_on_target"] > 0.95
    assert run.metrics["held_out_target_mass"] > 0.5


def test_sort_permutation_differs_per_input(artifact) -> None:
    run = artifact("seq2seq_sort")
    sources, attention = run["more_sources"], run["more_attention"]
    np.testing.assert_allclose(attention.sum(axis=2), 1.0, atol=1e-5)
    pointers = [tuple(a.argmax(axis=1)) for a in [run["attention"], *attention]]
    assert len(set(pointers)) == len(pointers)  # every input gets its own permutation
    for source, pointer in zip(sources, pointers[1:]):
        np.testing.assert_array_equal(pointer, np.argsort(source))
    np.testing.assert_array_equal(run["more_predictions"], np.sort(sources, axis=1))


def test_lookup_query_row_picks_the_matching_item(artifact) -> None:
    run = artifact("lookup")
    keys, values = run["keys"], run["values"]
    match = int(run["match_index"])
    assert keys[match] == run["query_key"]
    assert int(run["attention"][-1].argmax()) == match
    assert int(run["prediction"]) == int(run["answer"]) == values[match]
    assert run.metrics["accuracy"] > 0.95  # held out
    assert run.metrics["query_match_mass"] > 0.9
    labels = run["labels"]
    assert labels.dtype.kind == "U" and labels[-1] == f"query k{int(run['query_key'])}"
    assert labels[match] == f"k{keys[match]}=v{values[match]}"


def test_groupby_attention_is_block_structured(artifact) -> None:
    run = artifact("groupby")
    keys, attention = run["keys"], run["attention"]
    assert np.all(np.diff(keys) >= 0)  # sorted by key, as the notebook
    same_key = keys[:, None] == keys[None, :]
    assert (attention * same_key).sum(axis=1).mean() > 0.8
    assert run.metrics["within_group_mass"] > 0.8  # held out
    # The output is the per-key mean value.
    for key in np.unique(keys):
        group = keys == key
        np.testing.assert_allclose(run["target"][group], run["values"][group].mean())
    np.testing.assert_allclose(run["output"], run["target"], atol=0.05)


def test_groupby_mse_far_below_the_global_mean_baseline(artifact) -> None:
    metrics = artifact("groupby").metrics
    assert metrics["mse"] < 0.01 * metrics["baseline_mse"]
    assert metrics["mse"] < 0.01 * metrics["sequence_mean_mse"]


def test_experiments_are_deterministic() -> None:
    """Same parameters, byte-identical arrays: one cheap run of each kind twice."""
    cheap = [
        (lookup, Lookup(iters=3, test_size=64)),
        (groupby, GroupBy(iters=3, test_size=64)),
        (seq2seq_reverse, Seq2Seq(iters=2, test_size=32, length=4)),
    ]
    for module, params in cheap:
        first, first_metrics = module.run(params)
        second, second_metrics = module.run(params)
        assert first.keys() == second.keys()
        for key in first:
            assert np.asarray(first[key]).tobytes() == np.asarray(second[key]).tobytes(), f"{module.__name__}: {key}"
        assert first_metrics == second_metrics


def test_sort_experiment_runs_small() -> None:
    arrays, metrics = seq2seq_sort.run(Seq2Seq(iters=2, test_size=16, length=4, bidirectional=True, test_seed=5))
    assert arrays["more_attention"].shape == (seq2seq_sort.MORE_EXAMPLES, 4, 4)
    assert 0.0 <= metrics["token_accuracy"] <= 1.0


@pytest.mark.parametrize("model", [Lookup, GroupBy, Seq2Seq])
def test_held_out_seed_must_differ(model) -> None:
    with pytest.raises(ValueError, match="test_seed must differ"):
        model(seed=3, test_seed=3)
