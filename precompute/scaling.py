"""Why attention is scaled by 1/sqrt(d) (seed 000, cell tf6).

Dot products of d-dimensional standard-normal vectors have variance d, so unscaled logits spread with d
and the softmax saturates into a one-hot; dividing by sqrt(d) keeps the variance at 1 and the attention
entropy high. Normalised entropy (1 = uniform, 0 = one-hot) over n_samples random (q, K) per d, drawn
exactly as the notebook (float32 torch.randn, q then K per d) and evaluated in float64.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from pydantic import field_validator, model_validator

from precompute.common import deterministic, progress
from seqanim import Experiment, Field, Params


class Parameters(Params):
    dims: list[int] = Field(
        default_factory=lambda: [2, 4, 8, 16, 32, 64, 128, 256, 512], min_length=2, description="key/query dimensions d"
    )
    n_keys: int = Field(16, ge=2, le=1024, description="keys per softmax")
    n_samples: int = Field(4000, ge=10, le=100000, description="random (q, K) samples per d")
    seed: int = Field(0, ge=0, description="torch seed")
    sample_index: int = Field(0, ge=0, description="which (q, K) sample the live softmax bars show")

    @field_validator("dims")
    @classmethod
    def _increasing(cls, dims: list[int]) -> list[int]:
        if any(d < 1 for d in dims) or dims != sorted(set(dims)):
            raise ValueError(f"dims {dims} must be increasing positive integers")
        return dims

    @model_validator(mode="after")
    def _sample_fits(self) -> "Parameters":
        if self.sample_index >= self.n_samples:
            raise ValueError(f"sample_index {self.sample_index} must be below n_samples {self.n_samples}")
        return self


EXPERIMENT = Experiment(Parameters, seconds=0.5)


def normalised_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Softmax entropy over the last axis divided by log(n): the notebook's formula, eps 1e-9 included."""
    weights = torch.softmax(logits, dim=-1)
    return -(weights * torch.log(weights + 1e-9)).sum(-1) / math.log(logits.shape[-1])


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    deterministic(params.seed)
    entropy_scaled, entropy_unscaled, logit_std = [], [], []
    sample_logits, sample_scaled, sample_unscaled = [], [], []
    for d in progress(params.dims, total=len(params.dims), description="scaling: softmax entropy vs d"):
        query = torch.randn(params.n_samples, d)
        keys = torch.randn(params.n_samples, params.n_keys, d)
        logits = torch.einsum("skd,sd->sk", keys.double(), query.double())  # (samples, keys), unscaled
        scaled = logits / math.sqrt(d)
        entropy_scaled.append(normalised_entropy(scaled).mean().item())
        entropy_unscaled.append(normalised_entropy(logits).mean().item())
        logit_std.append(logits.std().item())
        sample = logits[params.sample_index]
        sample_logits.append(sample)
        sample_scaled.append(torch.softmax(sample / math.sqrt(d), -1))
        sample_unscaled.append(torch.softmax(sample, -1))

    dims = np.asarray(params.dims, dtype=np.int64)
    sample_logits_t = torch.stack(sample_logits)
    sample_scaled_logits = sample_logits_t / torch.sqrt(torch.as_tensor(dims, dtype=torch.float64))[:, None]
    arrays = {
        "dims": dims,
        "entropy_scaled": np.asarray(entropy_scaled),
        "entropy_unscaled": np.asarray(entropy_unscaled),
        "logit_std": np.asarray(logit_std),
        "sample_logits": sample_logits_t.numpy(),
        "sample_weights_scaled": torch.stack(sample_scaled).numpy(),
        "sample_weights_unscaled": torch.stack(sample_unscaled).numpy(),
        "sample_entropy_scaled": normalised_entropy(sample_scaled_logits).numpy(),
        "sample_entropy_unscaled": normalised_entropy(sample_logits_t).numpy(),
    }
    metrics = {
        "entropy_scaled_min": float(min(entropy_scaled)),
        "entropy_unscaled_at_max_d": float(entropy_unscaled[-1]),
        "entropy_scaled_at_max_d": float(entropy_scaled[-1]),
        "max_d": int(dims[-1]),
        "logit_std_at_max_d": float(logit_std[-1]),
    }
    return arrays, metrics
