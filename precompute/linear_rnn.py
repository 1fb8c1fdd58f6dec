"""A linear recurrent layer is a dynamical system (seed 000, cell rnn2).

h_t = W h_{t-1} with W = rho * Q, Q orthogonal: ||h_t|| = rho^t, so the spectral radius decides whether the
signal forgets, holds or explodes. A 2-D rotation scaled by rho shows the echo of one input pulse.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from pydantic import field_validator

from precompute.common import deterministic
from seqanim import Experiment, Field, Params


class Parameters(Params):
    size: int = Field(200, ge=2, le=4096, description="state dimension N of h_t = rho * Q h_{t-1}")
    steps: int = Field(60, ge=2, le=1000, description="time steps T to iterate")
    rhos: list[float] = Field(
        default_factory=lambda: [0.85, 0.95, 1.0, 1.05, 1.15],
        min_length=1,
        max_length=8,
        description="spectral radii to compare, each in (0, 3]",
    )
    echo_rhos: list[float] = Field(
        default_factory=lambda: [0.9, 1.0, 1.1],
        min_length=1,
        max_length=4,
        description="spectral radii of the 2-D pulse echo (forget / hold / explode)",
    )
    echo_angle_divisor: int = Field(11, ge=3, le=100, description="the 2-D rotation turns by 2*pi / this per step")
    seed: int = Field(0, ge=0, description="torch seed for Q and h_0")

    @field_validator("rhos", "echo_rhos")
    @classmethod
    def _positive(cls, values: list[float]) -> list[float]:
        for rho in values:
            if not 0 < rho <= 3:
                raise ValueError(f"spectral radius {rho} is outside (0, 3]")
        return values


EXPERIMENT = Experiment(Parameters)


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    deterministic(params.seed)
    # The notebook's draws exactly (float32, this call order); float64 only for the 60-step iteration.
    Q, _ = torch.linalg.qr(torch.randn(params.size, params.size))
    h0 = torch.randn(params.size)
    Q, h0 = Q.double(), h0.double()
    h0 = h0 / h0.norm()

    rhos = torch.tensor(params.rhos, dtype=torch.float64)
    states = [h0.expand(len(params.rhos), -1)]  # every rho starts from the same h0
    for _ in range(params.steps):
        states.append(rhos[:, None] * (states[-1] @ Q.T))
    trajectory = torch.stack(states, dim=1)  # (R, T+1, N)
    norms = trajectory.norm(dim=-1)
    # The first two coordinates of every h_t, unscaled; the scene takes their direction for its 2-D arrow.
    first_two = trajectory[..., :2]

    # Eigenvalues of W = rho * Q lie on the circle of radius rho; their angles (all N) feed the eigenvalue panel.
    eig = torch.linalg.eigvals(Q)
    angles = torch.sort(torch.angle(eig)).values.numpy()

    angle = 2 * math.pi / params.echo_angle_divisor
    rotation = torch.tensor(
        [[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]], dtype=torch.float64
    )
    echoes = []
    for rho in params.echo_rhos:
        h = torch.tensor([1.0, 0.0], dtype=torch.float64)
        path = [h]
        for _ in range(params.steps):
            h = rho * rotation @ h
            path.append(h)
        echoes.append(torch.stack(path))

    arrays = {
        "rhos": rhos.numpy(),
        "norms": norms.numpy(),
        "first_two": first_two.numpy(),
        "eigen_angles": angles,
        "echo_rhos": np.asarray(params.echo_rhos, dtype=np.float64),
        "echo_states": torch.stack(echoes).numpy(),
        "echo_angle": np.float64(angle),
    }
    final = norms[:, -1].numpy()
    metrics = {f"final_norm_rho_{rho:g}": float(value) for rho, value in zip(params.rhos, final)}
    return arrays, metrics
