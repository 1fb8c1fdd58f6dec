"""Seed 003 checkpoints (cells 5-30) against data/qkv_walkthrough, plus the refusals the notebook asks for."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from precompute.qkv_walkthrough import Parameters as QkvWalkthrough
from precompute.qkv_walkthrough import masked_softmax, run
from seqanim.errors import ConfigError, DataError
from seqanim.lecture.config import load

NAME = "qkv_walkthrough"


@pytest.fixture(scope="module")
def art(artifact):  # type: ignore[no-untyped-def]
    return artifact(NAME)


def test_scaled_scores_checkpoint(art) -> None:  # type: ignore[no-untyped-def]
    # Cell 10: the scaled score row is approximately [0.7071, 0, 0.7071].
    assert np.allclose(art["scores"], [[0.7071, 0.0, 0.7071]], atol=1e-4)
    assert np.allclose(art["raw_scores"], art["Q"] @ art["K"].T)
    assert art["raw_scores"][0, 0] == art["raw_scores"][0, 2]  # cell 7: A and C score the same


def test_softmax_checkpoint(art) -> None:  # type: ignore[no-untyped-def]
    # Cell 13: weights approximately [0.4011, 0.1978, 0.4011]; B positive although its score is 0.
    assert np.allclose(art["weights"], [[0.4011, 0.1978, 0.4011]], atol=1e-4)
    assert np.allclose(art["weights"].sum(axis=-1), 1.0)
    assert art["scores"][0, 1] == 0.0 and art["weights"][0, 1] > 0
    # Subtracting the row max changes no probability.
    assert np.allclose(art["weights_from_shifted"], art["weights"], atol=1e-15)
    assert np.allclose(art["exp"] / art["exp"].sum(), art["weights"])


def test_context_checkpoint(art) -> None:  # type: ignore[no-untyped-def]
    # Cell 16: the context is approximately [8.0222, 5.9889], the sum of the weighted values.
    assert np.allclose(art["context"], [[8.0222, 5.9889]], atol=1e-4)
    assert np.allclose(art["contributions"].sum(axis=0), art["context"][0])
    assert np.count_nonzero(np.abs(art["contributions"]).sum(axis=1)) > 1  # no argmax: several values contribute


def test_query_changes_ranking(art) -> None:  # type: ignore[no-untyped-def]
    # Cell 19: a query with a negative first coordinate lowers the keys with a positive first coordinate.
    weights, keys, queries = art["query_weights"], art["K"], art["queries"]
    assert np.allclose(weights.sum(axis=-1), 1.0)
    negative = int(np.flatnonzero(queries[:, 0] < 0)[0])
    positive_keys = keys[:, 0] > 0
    assert np.all(weights[negative, positive_keys] < weights[0, positive_keys])
    assert np.argmax(weights[negative]) != np.argmax(weights[0])


def test_temperature_sharpens_and_softens(art) -> None:  # type: ignore[no-untyped-def]
    temps, weights = art["temperatures"], art["temperature_weights"]
    spread = weights.max(axis=1) - weights.min(axis=1)
    assert np.all(np.diff(spread[np.argsort(temps)]) < 0)  # higher temperature, flatter distribution
    at_one = int(np.flatnonzero(np.isclose(temps, 1.0))[0])
    assert np.allclose(weights[at_one], art["weights"][0])
    # The dense sweep passes through the listed temperatures.
    for t, row in zip(temps, weights):
        interpolated = [
            np.interp(np.log(t), np.log(art["sweep_temperatures"]), art["sweep_weights"][:, k]) for k in range(row.size)
        ]
        assert np.allclose(interpolated, row, atol=1e-9)


def test_identical_keys_give_equal_weight(art) -> None:  # type: ignore[no-untyped-def]
    # Practice 2: equal weight on every available key regardless of query; masked keys still get zero.
    n = art["K"].shape[0]
    assert np.allclose(art["same_key_weights"], 1.0 / n)
    padded = ~art["is_real_key"]
    assert np.all(art["same_key_padded_weights"][:, padded] == 0.0)
    assert np.allclose(art["same_key_padded_weights"][:, ~padded], 1.0 / (~padded).sum())


def test_causal_mask(art) -> None:  # type: ignore[no-untyped-def]
    # Cell 22: the first row must be [1, 0, 0]; masked entries exactly zero; rows sum to one.
    weights, allowed = art["causal_weights"], art["causal_allowed"]
    assert weights[0].tolist() == [1.0, 0.0, 0.0]
    assert np.all(weights[~allowed] == 0.0)
    assert np.allclose(weights.sum(axis=-1), 1.0)
    assert np.all(np.isneginf(art["causal_scores"][~allowed]))
    assert np.array_equal(allowed, np.tril(np.ones_like(allowed)))


def test_softmax_then_mask_is_wrong(art) -> None:  # type: ignore[no-untyped-def]
    sums = art["softmax_then_mask_sums"]
    assert np.allclose(sums, art["softmax_then_mask"].sum(axis=-1))
    assert np.any(sums < 1.0 - 1e-6)  # rows no longer sum to one


def test_padding_mask(art) -> None:  # type: ignore[no-untyped-def]
    # Cell 25: no query can retrieve the padded key; its column is exactly zero.
    padded = ~art["is_real_key"]
    assert padded.any()
    assert np.all(art["padding_weights"][:, padded] == 0.0)
    assert np.allclose(art["padding_weights"].sum(axis=-1), 1.0)
    assert np.array_equal(art["padding_allowed"], art["causal_allowed"] & art["is_real_key"][None, :])


def test_all_masked_row_is_refused(art) -> None:  # type: ignore[no-untyped-def]
    allowed = art["all_masked_allowed"]
    with pytest.raises(DataError, match="query row 0 has every key masked"):
        masked_softmax(art["self_scores"], allowed)
    assert str(art["all_masked_error"]).startswith("query row 0 has every key masked")


def test_temperature_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="temperature"):
        load(overrides=["qkv_walkthrough.temperature=0"])
    with pytest.raises(ConfigError, match="temperatures"):
        load(overrides=["qkv_walkthrough.temperatures=[0.5, -1.0]"])
    with pytest.raises(ValueError, match="temperature"):
        masked_softmax(np.zeros((1, 3)), temperature=0.0)


def test_interventions(art) -> None:  # type: ignore[no-untyped-def]
    # Cells 29-30: a changed value moves the output while the weights stay; removing a key renormalises.
    assert np.array_equal(art["changed_weights"], art["weights"])
    assert not np.allclose(art["changed_context"], art["context"])
    removed = ~art["removed_allowed"][0]
    assert np.all(art["removed_weights"][0, removed] == 0.0)
    assert np.isclose(art["removed_weights"].sum(), 1.0)
    assert np.all(art["removed_weights"][0, ~removed] > art["weights"][0, ~removed])
    assert np.allclose(art["removed_context"], art["removed_weights"] @ art["V"])


def test_sdpa_parity(art) -> None:  # type: ignore[no-untyped-def]
    # Cell 27: PyTorch's SDPA on the same Q, K, V (float32, no dropout) agrees to 1e-5.
    q, k, v = (torch.tensor(art[name], dtype=torch.float32)[None, None] for name in ("Q", "K", "V"))
    torch_context = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)[0, 0].numpy()
    assert np.abs(torch_context - art["context"]).max() < 1e-5
    assert art.metrics["sdpa_max_abs_diff"] < 1e-5
    x = torch.tensor(art["K"], dtype=torch.float32)[None, None]
    masked = F.scaled_dot_product_attention(x, x, v, attn_mask=torch.from_numpy(art["padding_allowed"]), dropout_p=0.0)[
        0, 0
    ].numpy()
    assert np.abs(masked - art["padding_weights"] @ art["V"]).max() < 1e-5


def test_deterministic() -> None:
    first, _ = run(QkvWalkthrough())
    second, _ = run(QkvWalkthrough())
    assert first.keys() == second.keys()
    for key in first:
        a, b = np.asarray(first[key]), np.asarray(second[key])
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), key  # all_masked_naive holds NaN by design


def test_the_naive_softmax_of_an_all_masked_row_is_nan(art) -> None:  # type: ignore[no-untyped-def]
    """What PaddingMask shows in the matrix: the refused row, computed naively, is 0/0 = NaN; the others agree
    with the masked softmax."""
    naive, allowed = art["all_masked_naive"], art["all_masked_allowed"]
    empty = ~allowed.any(axis=-1)
    assert empty.any() and np.isnan(naive[empty]).all()
    rows = ~empty
    assert np.allclose(naive[rows], masked_softmax(art["self_scores"][rows], allowed[rows]))
