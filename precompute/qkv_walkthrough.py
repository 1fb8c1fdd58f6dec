"""Why attention, and how it works (seed 003, cells 5-30): scores, softmax, retrieval, masks, interventions.

Everything is exact NumPy on the notebook's hand-designed vectors, so every intermediate value the
scenes show (raw and scaled scores, the shifted and exponentiated row, the weighted values) is kept.
PyTorch's scaled_dot_product_attention recomputes the context in float32 as the parity check.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from pydantic import model_validator

from precompute.common import deterministic
from seqanim import DataError, Experiment, Field, Params


class Parameters(Params):
    query: list[float] = Field(
        default_factory=lambda: [1.0, 0.0], min_length=1, description="the query q (d_k coordinates)"
    )
    keys: list[list[float]] = Field(
        default_factory=lambda: [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        min_length=1,
        description="one key per memory item",
    )
    values: list[list[float]] = Field(
        default_factory=lambda: [[10.0, 0.0], [0.0, 10.0], [10.0, 10.0]], min_length=1, description="one value per key"
    )
    labels: list[str] = Field(default_factory=lambda: ["A", "B", "C"], description="memory item names")
    queries: list[list[float]] = Field(
        default_factory=lambda: [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]],
        min_length=1,
        description='the queries of "change only the query"',
    )
    temperature: float = Field(1.0, gt=0, le=100, description="softmax temperature of the three-query step (> 0)")
    temperatures: list[float] = Field(
        default_factory=lambda: [0.5, 1.0, 2.0],
        min_length=1,
        description="temperatures swept in practice question 1 (each > 0)",
    )
    sweep: list[float] = Field(
        default_factory=lambda: [0.25, 4.0],
        min_length=2,
        max_length=2,
        description="temperature range of the live sweep (geometric, inside it: the above)",
    )
    sweep_steps: int = Field(
        61, ge=2, le=2001, description="temperatures in the live sweep (0.5, 1, 2 fall on the grid at 61)"
    )
    is_real_key: list[bool] = Field(
        default_factory=lambda: [True, True, False], description="padding mask: false marks a padded key"
    )
    changed_index: int = Field(1, ge=0, description="which value the intervention changes")
    changed_value: list[float] = Field(default_factory=lambda: [100.0, 100.0], description="its new value")
    removed_index: int = Field(1, ge=0, description="which key the intervention removes")
    seed: int = Field(2026, ge=0, description="the notebook's seed (recorded; the walkthrough is exact)")

    @model_validator(mode="after")
    def _shapes(self) -> "Parameters":
        n, d_k = len(self.keys), len(self.query)
        if any(len(k) != d_k for k in self.keys) or any(len(q) != d_k for q in self.queries):
            raise ValueError(f"every key and query needs {d_k} coordinates, like query")
        if len(self.values) != n or len(self.labels) != n or len(self.is_real_key) != n:
            raise ValueError(f"values, labels and is_real_key need one entry per key ({n})")
        if any(t <= 0 for t in self.temperatures):
            raise ValueError(f"temperatures {self.temperatures} must all be > 0")
        if not 0 < self.sweep[0] < self.sweep[1]:
            raise ValueError(f"sweep {self.sweep} must be two increasing temperatures > 0")
        if any(not self.sweep[0] <= t <= self.sweep[1] for t in [*self.temperatures, self.temperature]):
            raise ValueError(
                f"temperatures {self.temperatures} and temperature {self.temperature} "
                f"must lie inside sweep {self.sweep}"
            )
        if not self.changed_index < n or not self.removed_index < n:
            raise ValueError(f"changed_index and removed_index must be below the number of keys ({n})")
        if not self.is_real_key[0]:
            raise ValueError("is_real_key[0] must be true: the first query row would have no allowed key")
        if len(self.changed_value) != len(self.values[0]):
            raise ValueError("changed_value needs as many coordinates as a value row")
        if self.changed_value == self.values[self.changed_index]:  # the intervention must change something
            shown = "[" + ", ".join(f"{v:g}" for v in self.changed_value) + "]"
            raise ValueError(f"changed_value {shown} equals values[{self.changed_index}]; choose a different value")
        return self


EXPERIMENT = Experiment(Parameters)


def masked_softmax(scores: np.ndarray, allowed: np.ndarray | None = None, temperature: float = 1.0) -> np.ndarray:
    """Softmax over keys (the last axis) of scores / temperature, blocked entries (allowed False) exactly 0.

    Subtracts each row's maximum first (numerically stable, changes no probability). A row with no
    allowed key has no distribution (0/0): it is refused, never returned as NaN.
    """
    if not temperature > 0:
        raise ValueError(f"temperature {temperature} must be > 0: softmax(S / T) is undefined for T <= 0")
    scores = np.asarray(scores, dtype=np.float64) / temperature
    allowed = (
        np.ones(scores.shape, dtype=bool)
        if allowed is None
        else np.broadcast_to(np.asarray(allowed, dtype=bool), scores.shape)
    )
    empty = ~allowed.any(axis=-1)
    if empty.any():
        row = int(np.flatnonzero(empty.reshape(-1))[0])
        raise DataError(
            f"query row {row} has every key masked: softmax over no allowed key is 0/0 (NaN); "
            "allow at least one key per row"
        )
    masked = np.where(allowed, scores, -np.inf)
    shifted = masked - masked.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)  # exp(-inf) = 0: blocked keys get exactly zero weight
    return exp / exp.sum(axis=-1, keepdims=True)


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    deterministic(params.seed)  # nothing is random; the seed is recorded as the notebook does
    Q = np.array([params.query], dtype=np.float64)  # (1, d_k)
    K = np.array(params.keys, dtype=np.float64)  # (N_k, d_k)
    V = np.array(params.values, dtype=np.float64)  # (N_k, d_v)
    d_k = K.shape[-1]
    n_keys = K.shape[0]

    # Compare: S = Q K^T / sqrt(d_k), kept before and after scaling.
    raw_scores = Q @ K.T
    scores = raw_scores / np.sqrt(d_k)
    # Normalise, step by step: subtract the row max, exponentiate, divide by the sum.
    shifted = scores - scores.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    weights = exp / exp.sum(axis=-1, keepdims=True)
    # Retrieve: every value contributes w_i v_i; the context is their sum (C = A V).
    contributions = weights[0, :, None] * V
    context = weights @ V

    # Change only the query (and the temperature).
    queries = np.array(params.queries, dtype=np.float64)
    query_scores = queries @ K.T / np.sqrt(d_k)
    query_weights = masked_softmax(query_scores, temperature=params.temperature)
    query_contexts = query_weights @ V
    temperatures = np.array(params.temperatures, dtype=np.float64)
    temperature_weights = np.stack([masked_softmax(scores, temperature=t)[0] for t in temperatures])
    # A geometric grid for the live tracker; with the defaults 0.5, 1 and 2 are grid points.
    sweep_temperatures = np.exp(np.linspace(np.log(params.sweep[0]), np.log(params.sweep[1]), params.sweep_steps))
    sweep_weights = masked_softmax(scores[:, None, :] / sweep_temperatures[None, :, None])[0]  # (steps, N_k)

    # Practice question 2: identical keys give every available key the same weight, whatever the query.
    same_keys = np.repeat(K[:1], n_keys, axis=0)
    same_key_weights = masked_softmax(queries @ same_keys.T / np.sqrt(d_k))
    is_real_key = np.array(params.is_real_key, dtype=bool)
    same_key_padded_weights = masked_softmax(queries @ same_keys.T / np.sqrt(d_k), is_real_key[None, :])

    # Causal self-attention over the keys as one sequence: rows are query positions, columns key positions.
    self_scores = K @ K.T / np.sqrt(d_k)
    causal_allowed = np.tril(np.ones((n_keys, n_keys), dtype=bool))
    causal_scores = np.where(causal_allowed, self_scores, -np.inf)
    causal_weights = masked_softmax(self_scores, causal_allowed)
    # The wrong order: softmax over every key, then zero the future. Rows no longer sum to 1.
    softmax_then_mask = np.where(causal_allowed, masked_softmax(self_scores), 0.0)
    softmax_then_mask_sums = softmax_then_mask.sum(axis=-1)

    # Padding hides nonexistent keys; combine the two permissions.
    padding_allowed = causal_allowed & is_real_key[None, :]
    padding_scores = np.where(padding_allowed, self_scores, -np.inf)
    padding_weights = masked_softmax(self_scores, padding_allowed)
    # If the first key were padding too, the first query would have no allowed key: the helper refuses.
    first_padded = is_real_key.copy()
    first_padded[0] = False
    all_masked_allowed = causal_allowed & first_padded[None, :]
    try:
        masked_softmax(self_scores, all_masked_allowed)
    except DataError as error:
        all_masked_error = str(error)
    else:  # pragma: no cover - the mask above always empties row 0
        raise AssertionError("an all-masked row was not refused")
    # What a naive softmax returns instead: exp(-inf - max) over a row of -inf is 0/0, a row of NaN.
    all_masked_scores = np.where(all_masked_allowed, self_scores, -np.inf)
    with np.errstate(invalid="ignore"):
        naive_exp = np.exp(all_masked_scores - all_masked_scores.max(axis=-1, keepdims=True))
        all_masked_naive = naive_exp / naive_exp.sum(axis=-1, keepdims=True)

    # What a weight plot can explain: intervene on one value, then remove one key.
    changed_V = V.copy()
    changed_V[params.changed_index] = params.changed_value
    changed_weights = masked_softmax(Q @ K.T / np.sqrt(d_k))  # Q and K untouched: recomputed, not copied
    changed_context = changed_weights @ changed_V
    removed_allowed = np.ones((1, n_keys), dtype=bool)
    removed_allowed[0, params.removed_index] = False
    removed_weights = masked_softmax(scores, removed_allowed)
    removed_context = removed_weights @ V

    # Parity with PyTorch's fused kernel, float32 as the notebook (True = allowed in SDPA's Boolean mask).
    q, k, v = (torch.tensor(a, dtype=torch.float32)[None, None] for a in (Q, K, V))
    sdpa_context = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)[0, 0].numpy()
    x = torch.tensor(K, dtype=torch.float32)[None, None]
    sdpa_padding_context = F.scaled_dot_product_attention(
        x,
        x,
        torch.tensor(V, dtype=torch.float32)[None, None],
        attn_mask=torch.from_numpy(padding_allowed),
        dropout_p=0.0,
    )[0, 0].numpy()
    padding_context = padding_weights @ V
    sdpa_max_abs_diff = float(np.abs(sdpa_context.astype(np.float64) - context).max())
    sdpa_padding_max_abs_diff = float(np.abs(sdpa_padding_context.astype(np.float64) - padding_context).max())

    arrays = {
        "Q": Q, "K": K, "V": V, "labels": np.array(params.labels), "d_k": np.int64(d_k),
        "raw_scores": raw_scores, "scores": scores, "shifted": shifted, "exp": exp, "exp_sum": exp.sum(axis=-1),
        "weights": weights, "weights_from_shifted": masked_softmax(shifted), "contributions": contributions,
        "context": context,
        "queries": queries, "query_scores": query_scores, "query_weights": query_weights,
        "query_contexts": query_contexts,
        "temperature": np.float64(params.temperature), "temperatures": temperatures,
        "temperature_weights": temperature_weights,
        "sweep_temperatures": sweep_temperatures, "sweep_weights": sweep_weights,
        "same_key_weights": same_key_weights, "same_key_padded_weights": same_key_padded_weights,
        "self_scores": self_scores, "causal_allowed": causal_allowed, "causal_scores": causal_scores,
        "causal_weights": causal_weights, "softmax_then_mask": softmax_then_mask,
        "softmax_then_mask_sums": softmax_then_mask_sums,
        "is_real_key": is_real_key, "padding_allowed": padding_allowed, "padding_scores": padding_scores,
        "padding_weights": padding_weights, "padding_context": padding_context,
        "all_masked_allowed": all_masked_allowed, "all_masked_error": np.array(all_masked_error),
        "all_masked_naive": all_masked_naive,
        "changed_V": changed_V, "changed_weights": changed_weights, "changed_context": changed_context,
        "removed_allowed": removed_allowed, "removed_weights": removed_weights, "removed_context": removed_context,
        "sdpa_context": sdpa_context, "sdpa_padding_context": sdpa_padding_context,
    }  # fmt: skip
    metrics = {
        "scores": scores[0].tolist(),
        "weights": weights[0].tolist(),
        "context": context[0].tolist(),
        "causal_first_row": causal_weights[0].tolist(),
        "softmax_then_mask_sums": softmax_then_mask_sums.tolist(),
        "padded_column_max": float(padding_weights[:, ~is_real_key].max()) if (~is_real_key).any() else 0.0,
        "changed_context": changed_context[0].tolist(),
        "removed_context": removed_context[0].tolist(),
        "sdpa_max_abs_diff": sdpa_max_abs_diff,
        "sdpa_padding_max_abs_diff": sdpa_padding_max_abs_diff,
    }
    return arrays, metrics
