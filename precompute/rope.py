"""Rotary positional encoding, RoPE (seed 000, cell tf10).

Each dimension pair (2i, 2i+1) of q and k is rotated by the angle position * w_i, w_i = base^(-i/half):
low pairs spin fast, high pairs slowly. <R_m q, R_n k> = sum_i |q_i||k_i| cos(phi_i + (m - n) w_i) then
depends only on the offset m - n. q and k are the notebook's fixed torch.randn draws; everything after the
draw is float64, so the diagonals of the score matrix agree to ~1e-15.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from pydantic import model_validator

from precompute.common import diagonal_spread
from seqanim import Experiment, Field, Params


class Parameters(Params):
    d: int = Field(32, ge=4, le=1024, description="query/key width (even)")
    length: int = Field(32, ge=4, le=512, description="positions")
    base: float = Field(10000.0, gt=1, description="frequency base")
    seed: int = Field(0, ge=0, description="torch seed of the fixed q and k")
    pairs: list[int] = Field(
        default_factory=lambda: [1, 4, 10],
        min_length=1,
        max_length=4,
        description="dimension pairs drawn on circles (fast, medium, slow)",
    )
    shift: int = Field(8, ge=1, description="shift applied to both positions in the relative-offset plot")
    offset: int = Field(3, ge=0, description="key position minus query position in the live shift readout")
    sweep_steps: int = Field(
        160, ge=2, le=10000, description="samples of the shared shift 0..shift (fractional positions)"
    )

    @model_validator(mode="after")
    def _fits(self) -> "Parameters":
        if self.d % 2:
            raise ValueError(f"d {self.d} must be even (dimension pairs)")
        if any(not 0 <= p < self.d // 2 for p in self.pairs):
            pairs = self.d // 2
            raise ValueError(f"pairs {self.pairs} must lie in [0, {pairs - 1}]: d = {self.d} has {pairs} pairs")
        if self.shift >= self.length:
            raise ValueError(f"shift {self.shift} must be below length {self.length}")
        if self.offset + self.shift >= self.length:
            raise ValueError(f"offset {self.offset} + shift {self.shift} must stay below length {self.length}")
        return self


EXPERIMENT = Experiment(Parameters)


def rope(x: torch.Tensor, positions: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    """Rotate every dimension pair of x (..., d) by positions (...,) x freqs (d/2,)."""
    angles = positions[..., None] * freqs
    cos, sin = torch.cos(angles), torch.sin(angles)
    first, second = x[..., 0::2], x[..., 1::2]
    rotated = torch.empty_like(x)
    rotated[..., 0::2] = first * cos - second * sin
    rotated[..., 1::2] = first * sin + second * cos
    return rotated


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    torch.manual_seed(params.seed)
    query = torch.randn(params.d).double()  # drawn in float32 as the notebook, then exact arithmetic
    key = torch.randn(params.d).double()
    half = params.d // 2
    freqs = params.base ** (-torch.arange(half, dtype=torch.float64) / half)
    positions = torch.arange(params.length, dtype=torch.float64)

    rotated_query = rope(query.expand(params.length, -1), positions, freqs)
    rotated_key = rope(key.expand(params.length, -1), positions, freqs)
    scores = rotated_query @ rotated_key.T

    pairs = torch.tensor(params.pairs)
    pair_angles = positions[None, :] * freqs[pairs, None]  # (P, L): the rotation angle of each drawn pair
    query_pairs = torch.stack([query[0::2][pairs], query[1::2][pairs]], dim=-1)  # (P, 2), unrotated
    key_pairs = torch.stack([key[0::2][pairs], key[1::2][pairs]], dim=-1)

    # Relative-offset rows: the query at 0 and at `shift`, keys at the same offsets ahead of each.
    offsets = np.arange(params.length - params.shift)
    row_at_0 = scores[0, offsets].numpy()
    row_at_shift = scores[params.shift, params.shift + offsets].numpy()

    # Shift both positions together by a fractional amount s: query at s, key at s + offset.
    sweep_shift = torch.linspace(0, params.shift, params.sweep_steps + 1, dtype=torch.float64)
    swept_query = rope(query.expand(len(sweep_shift), -1), sweep_shift, freqs)
    swept_key = rope(key.expand(len(sweep_shift), -1), sweep_shift + params.offset, freqs)
    sweep_scores = (swept_query * swept_key).sum(-1)

    arrays = {
        "freqs": freqs.numpy(),
        "positions": positions.numpy(),
        "query": query.numpy(),
        "key": key.numpy(),
        "rotated_query": rotated_query.numpy(),
        "rotated_key": rotated_key.numpy(),
        "scores": scores.numpy(),
        "pairs": pairs.numpy(),
        "pair_angles": pair_angles.numpy(),
        "query_pairs": query_pairs.numpy(),
        "key_pairs": key_pairs.numpy(),
        "offsets": offsets,
        "row_at_0": row_at_0,
        "row_at_shift": row_at_shift,
        "sweep_shift": sweep_shift.numpy(),
        "sweep_scores": sweep_scores.numpy(),
    }
    metrics = {
        "diagonal_max_deviation": float(diagonal_spread(scores.numpy()).max()),
        "row_max_difference": float(np.abs(row_at_0 - row_at_shift).max()),
        "sweep_score": float(sweep_scores[0]),
        "sweep_max_deviation": float((sweep_scores - sweep_scores[0]).abs().max()),
        "score_min": float(scores.min()),
        "score_max": float(scores.max()),
    }
    return arrays, metrics
