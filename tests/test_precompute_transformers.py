"""The Transformer experiments of seed 000 (tf4 positional, tf6 scaling, tf10 RoPE), checked against data/.

Each claim the notebook makes is recomputed here from the stored arrays, not read from the metrics.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from precompute.positional import Parameters as Positional
from precompute.positional import run as run_positional
from precompute.rope import Parameters as Rope
from precompute.rope import run as run_rope
from precompute.scaling import Parameters as Scaling
from seqanim.errors import ConfigError
from seqanim.lecture.config import load


def diagonal_spreads(matrix: np.ndarray) -> np.ndarray:
    size = matrix.shape[0]
    return np.array([np.ptp(np.diagonal(matrix, k)) for k in range(-(size - 1), size)])


# --- tf4: sinusoidal positional encoding --------------------------------------------------------------


def test_positional_encoding_is_the_notebook_formula(artifact) -> None:
    positional = artifact("positional")
    pe, positions = positional["pe"], positional["positions"]
    d_model = pe.shape[1]
    table = load().positional  # the notebook's L = 60, d_model = 64, unless the lecturer changed them
    assert pe.shape == (table.length, table.d_model)
    div = np.exp(np.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    np.testing.assert_allclose(pe[:, 0::2], np.sin(positions[:, None] * div), atol=1e-12)
    np.testing.assert_allclose(pe[:, 1::2], np.cos(positions[:, None] * div), atol=1e-12)
    np.testing.assert_allclose(positional["div_term"], div, rtol=1e-12)


def test_pe_gram_depends_only_on_the_offset(artifact) -> None:
    """The notebook: 'PE_i . PE_j depends only on the offset |i - j|'. True: Toeplitz and symmetric."""
    positional = artifact("positional")
    pe, gram = positional["pe"], positional["pe_gram"]
    np.testing.assert_allclose(gram, pe @ pe.T, atol=1e-10)
    assert diagonal_spreads(gram).max() < 1e-10  # constant along every diagonal
    np.testing.assert_allclose(gram, gram.T, atol=1e-12)  # and i - j and j - i give the same value
    assert np.allclose(np.diagonal(gram), pe.shape[1] / 2)  # sin^2 + cos^2 = 1 per pair
    # The value per offset is the first row; it is not monotone in the offset (the scene says so).
    kernel = positional["kernel"]
    np.testing.assert_allclose(kernel, gram[0], atol=1e-12)
    assert kernel[0] == kernel.max() and np.any(np.diff(kernel) > 0)
    assert positional.metrics["toeplitz_max_deviation"] == pytest.approx(diagonal_spreads(gram).max(), abs=1e-12)


def test_waves_sample_the_encoding(artifact) -> None:
    positional = artifact("positional")
    xs, waves, dims, pe = positional["wave_positions"], positional["waves"], positional["wave_dims"], positional["pe"]
    on_grid = np.isclose(xs, np.round(xs))
    np.testing.assert_allclose(waves[:, on_grid], pe[np.round(xs[on_grid]).astype(int)][:, dims].T, atol=1e-12)


# --- tf10: RoPE -------------------------------------------------------------------------------------


def test_rope_scores_depend_only_on_the_offset(artifact) -> None:
    rope = artifact("rope")
    scores = rope["scores"]
    length = load().rope.length
    assert scores.shape == (length, length)
    assert diagonal_spreads(scores).max() < 1e-12  # float64: exact up to rounding
    np.testing.assert_allclose(scores, rope["rotated_query"] @ rope["rotated_key"].T, atol=1e-12)
    # Not trivially constant: different offsets give different scores.
    assert np.ptp(scores[0]) > 1.0


def test_rope_rotations_match_the_notebook(artifact) -> None:
    import torch

    rope = artifact("rope")
    table = load().rope  # the notebook's d = 32, seed 0, base 1e4, unless the lecturer changed them
    torch.manual_seed(table.seed)
    query, key = torch.randn(table.d).double().numpy(), torch.randn(table.d).double().numpy()
    np.testing.assert_array_equal(rope["query"], query)
    np.testing.assert_array_equal(rope["key"], key)
    freqs = table.base ** (-np.arange(table.d // 2) / (table.d // 2))
    np.testing.assert_allclose(rope["freqs"], freqs, rtol=1e-12)
    angles = rope["positions"][:, None] * freqs
    first = query[0::2] * np.cos(angles) - query[1::2] * np.sin(angles)
    second = query[0::2] * np.sin(angles) + query[1::2] * np.cos(angles)
    np.testing.assert_allclose(rope["rotated_query"][:, 0::2], first, atol=1e-12)
    np.testing.assert_allclose(rope["rotated_query"][:, 1::2], second, atol=1e-12)
    # Rotations keep every pair's length.
    norms = np.hypot(rope["rotated_key"][:, 0::2], rope["rotated_key"][:, 1::2])
    np.testing.assert_allclose(norms, np.broadcast_to(np.hypot(key[0::2], key[1::2]), norms.shape), atol=1e-12)
    # "fast for low dimensions, slow for high ones"
    pair_angles = rope["pair_angles"]
    assert list(rope["pairs"]) == [1, 4, 10]
    assert pair_angles[0, -1] > pair_angles[1, -1] > pair_angles[2, -1] > 0


def test_rope_relative_offset_rows_coincide(artifact) -> None:
    rope = artifact("rope")
    scores, shift, offsets = rope["scores"], rope.params["shift"], rope["offsets"]
    np.testing.assert_allclose(rope["row_at_0"], scores[0, offsets], atol=0)
    np.testing.assert_allclose(rope["row_at_shift"], scores[shift, shift + offsets], atol=0)
    assert np.abs(rope["row_at_0"] - rope["row_at_shift"]).max() < 1e-12
    # Shifting both positions by a fractional amount leaves the score unchanged as well.
    sweep = rope["sweep_scores"]
    assert np.abs(sweep - scores[0, rope.params["offset"]]).max() < 1e-12


# --- tf6: 1/sqrt(d) scaling ----------------------------------------------------------------------------


def test_scaled_entropy_stays_high_and_unscaled_collapses(artifact) -> None:
    """The notebook: 'without the 1/sqrt(d) scale, attention collapses to one-hot as d grows'."""
    scaling = artifact("scaling")
    dims, scaled, unscaled = scaling["dims"], scaling["entropy_scaled"], scaling["entropy_unscaled"]
    assert list(dims) == [2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert np.all(scaled > 0.8)  # high at every d
    assert np.ptp(scaled) < 0.05  # and roughly flat
    assert np.all(np.diff(unscaled) < 0)  # falls monotonically with d
    assert unscaled[-1] < 0.1  # near one-hot at d = 512
    assert np.all(unscaled[1:] < scaled[1:])


def test_logits_spread_like_sqrt_d(artifact) -> None:
    scaling = artifact("scaling")
    ratio = scaling["logit_std"] / np.sqrt(scaling["dims"])
    assert np.all(np.abs(ratio - 1) < 0.05)


def test_sample_softmax_bars_are_consistent(artifact) -> None:
    scaling = artifact("scaling")
    logits, dims = scaling["sample_logits"], scaling["dims"]
    assert logits.shape == (9, 16)

    def softmax(x: np.ndarray) -> np.ndarray:
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    np.testing.assert_allclose(scaling["sample_weights_unscaled"], softmax(logits), atol=1e-12)
    np.testing.assert_allclose(scaling["sample_weights_scaled"], softmax(logits / np.sqrt(dims)[:, None]), atol=1e-12)
    # The shown sample collapses too: its top unscaled weight at d = 512 exceeds 0.9, the scaled one stays far below.
    assert scaling["sample_weights_unscaled"][-1].max() > 0.9 > 0.5 > scaling["sample_weights_scaled"][-1].max()


# --- determinism and bad input -------------------------------------------------------------------------


def test_exact_experiments_are_deterministic() -> None:
    first, _ = run_rope(Rope())
    second, _ = run_rope(Rope())
    for key in first:
        np.testing.assert_array_equal(first[key], second[key])
    first, _ = run_positional(Positional())
    second, _ = run_positional(Positional())
    np.testing.assert_array_equal(first["pe_gram"], second["pe_gram"])


@pytest.mark.parametrize(
    "override",
    [
        "rope.d=31",
        "rope.pairs=[16]",
        "rope.shift=40",
        "rope.offset=30",
        "positional.d_model=63",
        "positional.wave_pairs=[40]",
        "scaling.dims=[4,2]",
        "scaling.sample_index=5000",
    ],
)
def test_bad_parameters_are_rejected_in_one_line(override: str) -> None:
    with pytest.raises(ConfigError) as error:
        load(overrides=[override])
    assert "\n" not in str(error.value)


def test_models_validate_directly() -> None:
    with pytest.raises(ValueError):
        Scaling(dims=[2, 2])
