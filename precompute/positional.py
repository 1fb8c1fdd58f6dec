"""Sinusoidal positional encoding (seed 000, cell tf4).

Self-attention is permutation-invariant, so a Transformer adds a positional signal to every token:
PE[p, 2i] = sin(p * w_i), PE[p, 2i+1] = cos(p * w_i), w_i = base^(-2i/d). Then
PE_i . PE_j = sum_i cos((i - j) w_i) depends only on the offset: the Gram matrix is Toeplitz.
Exact, in float64.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from pydantic import field_validator, model_validator

from precompute.common import diagonal_spread
from seqanim import Experiment, Field, Params


class Parameters(Params):
    d_model: int = Field(64, ge=2, le=1024, description="encoding width (even)")
    length: int = Field(60, ge=12, le=1024, description="positions")
    base: float = Field(10000.0, gt=1, description="wavelength base")
    wave_pairs: list[int] = Field(
        default_factory=lambda: [0, 4, 12],
        min_length=1,
        max_length=4,
        description="sin/cos dimension pairs drawn as waves (fast, medium, slow)",
    )
    wave_samples: int = Field(8, ge=1, le=64, description="wave samples per position (smooth curves drawn from data)")

    @field_validator("d_model")
    @classmethod
    def _even(cls, d_model: int) -> int:
        if d_model % 2:
            raise ValueError(f"d_model {d_model} must be even (sin/cos pairs)")
        return d_model

    @model_validator(mode="after")
    def _pairs_fit(self) -> "Parameters":
        if any(not 0 <= p < self.d_model // 2 for p in self.wave_pairs):
            raise ValueError(f"wave_pairs {self.wave_pairs} must lie in [0, {self.d_model // 2 - 1}]")
        return self


EXPERIMENT = Experiment(Parameters)


def encoding(positions: torch.Tensor, div_term: torch.Tensor) -> torch.Tensor:
    """(P,) positions -> (P, d_model): sin on even dimensions, cos on odd ones, as the notebook."""
    angles = positions[:, None] * div_term[None, :]
    pe = torch.empty(len(positions), 2 * len(div_term), dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    positions = torch.arange(params.length, dtype=torch.float64)
    div_term = torch.exp(
        torch.arange(0, params.d_model, 2, dtype=torch.float64) * (-math.log(params.base) / params.d_model)
    )
    pe = encoding(positions, div_term)
    gram = pe @ pe.T

    # The waves behind the displayed dimension pairs, sampled between positions so curves are smooth.
    wave_positions = torch.linspace(
        0, params.length - 1, (params.length - 1) * params.wave_samples + 1, dtype=torch.float64
    )
    fine = encoding(wave_positions, div_term)
    wave_dims = np.array([[2 * p, 2 * p + 1] for p in params.wave_pairs]).reshape(-1)
    waves = fine[:, wave_dims].T  # (2 * pairs, samples): sin, cos, sin, cos, ...

    gram_np = gram.numpy()
    spread = diagonal_spread(gram_np)
    offsets = np.arange(params.length)
    kernel = gram_np[0, offsets]  # PE_0 . PE_k: the value every diagonal at offset k holds
    arrays = {
        "positions": positions.numpy(),
        "div_term": div_term.numpy(),
        "wavelengths": (2 * math.pi / div_term).numpy(),
        "pe": pe.numpy(),
        "pe_gram": gram_np,
        "offsets": offsets,
        "kernel": kernel,
        "wave_positions": wave_positions.numpy(),
        "wave_dims": wave_dims,
        "waves": waves.numpy(),
    }
    metrics = {
        "toeplitz_max_deviation": float(spread.max()),
        "gram_diagonal": float(np.diagonal(gram_np).mean()),  # d_model / 2: sin^2 + cos^2 per pair
        "symmetric_max_deviation": float(np.abs(gram_np - gram_np.T).max()),
        "kernel_min": float(kernel.min()),
        "kernel_min_offset": int(kernel.argmin()),
    }
    return arrays, metrics
