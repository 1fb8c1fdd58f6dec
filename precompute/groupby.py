"""Self-attention can pool, not just pick (seed 000, cell tf8).

Each token carries a key (one of n_keys groups) and a value in [0, 1); every token must output the mean
value of its key group. One head of self-attention learns to spread its weight over the whole group:
a block-structured, "soft group-by" attention matrix once tokens are sorted by key.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from pydantic import model_validator
from torch import nn

from precompute.common import deterministic, progress
from seqanim import Experiment, Field, Params


class Parameters(Params):
    n_keys: int = Field(4, ge=1, le=32, description="number of key groups")
    length: int = Field(10, ge=2, le=64, description="tokens per sequence")
    d: int = Field(48, ge=4, le=512, description="model width")
    iters: int = Field(1200, ge=1, le=20000, description="Adam steps")
    batch: int = Field(128, ge=1, le=4096, description="training batch size")
    lr: float = Field(3e-3, gt=0, le=1, description="Adam learning rate")
    seed: int = Field(2, ge=0, description="training seed")
    example_seed: int = Field(8, ge=0, description="seed of the shown example")
    test_size: int = Field(2048, ge=16, le=100000, description="held-out sequences for the MSE")
    test_seed: int = Field(4244, ge=0, description="seed of the held-out set")

    @model_validator(mode="after")
    def _held_out(self) -> "Parameters":
        if self.test_seed == self.seed:
            raise ValueError("test_seed must differ from seed: metrics are measured on held-out data")
        return self


EXPERIMENT = Experiment(Parameters, seconds=2)


def group_batch(
    params: Parameters, size: int, generator: torch.Generator | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The notebook's `grp_batch(size)`: keys, values and each token's group mean (the target).
    generator=None draws from torch's global generator."""
    keys = torch.randint(0, params.n_keys, (size, params.length), generator=generator)
    values = torch.rand(size, params.length, generator=generator)
    one_hot = F.one_hot(keys, params.n_keys).float()
    means = (one_hot.transpose(1, 2) @ values.unsqueeze(-1)).squeeze(-1) / one_hot.sum(1).clamp(min=1)
    return keys, values, torch.gather(means, 1, keys)


class GroupAttention(nn.Module):
    def __init__(self, params: Parameters) -> None:
        super().__init__()
        d = params.d
        self.key_embed = nn.Embedding(params.n_keys, d)
        self.value_proj = nn.Linear(1, d)
        self.position = nn.Parameter(torch.randn(params.length, d) * 0.1)
        self.Wq, self.Wk, self.Wv = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.head = nn.Linear(d, 1)
        self.d = d

    def forward(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.key_embed(keys) + self.value_proj(values.unsqueeze(-1)) + self.position
        attention = torch.softmax(self.Wq(x) @ self.Wk(x).transpose(1, 2) / math.sqrt(self.d), dim=-1)
        return self.head(attention @ self.Wv(x)).squeeze(-1), attention


def within_group_mass(keys: torch.Tensor, attention: torch.Tensor) -> torch.Tensor:
    """Per query token: the attention weight that lands on tokens sharing its key."""
    same_key = (keys[:, :, None] == keys[:, None, :]).float()
    return (attention * same_key).sum(-1)


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    deterministic(params.seed)  # the notebook's torch.manual_seed(2) before building the model
    model = GroupAttention(params)
    optimiser = torch.optim.Adam(model.parameters(), params.lr)
    loss_curve = np.zeros(params.iters)
    for step in progress(range(params.iters), params.iters, "groupby: training"):
        # From the global generator, as the notebook: the seed above fixes the init and the batch stream.
        keys, values, target = group_batch(params, params.batch, None)
        output, _ = model(keys, values)
        loss = F.mse_loss(output, target)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        loss_curve[step] = loss.item()

    with torch.no_grad():
        keys, values, target = group_batch(params, params.test_size, torch.Generator().manual_seed(params.test_seed))
        output, attention = model(keys, values)
        mse = F.mse_loss(output, target).item()
        global_mean_mse = F.mse_loss(torch.full_like(target, target.mean().item()), target).item()
        # A stronger baseline that ignores keys: every token predicts its own sequence's mean value.
        sequence_mean_mse = F.mse_loss(values.mean(1, keepdim=True).expand_as(target), target).item()
        group_mass = within_group_mass(keys, attention).mean().item()

        # The notebook's example: its grp_batch(1) after torch.manual_seed(example_seed) makes the same calls.
        keys, values, target = group_batch(params, 1, torch.Generator().manual_seed(params.example_seed))
        order = torch.argsort(keys[0], stable=True)  # sort by key so the groups are contiguous blocks
        keys, values, target = keys[:, order], values[:, order], target[:, order]
        output, attention = model(keys, values)
        example_mass = within_group_mass(keys, attention)[0]

    keys_np = keys[0].numpy().astype(np.int64)
    arrays = {
        "keys": keys_np,
        "values": values[0].numpy().astype(np.float64),
        "target": target[0].numpy().astype(np.float64),
        "output": output[0].numpy().astype(np.float64),
        "attention": attention[0].numpy().astype(np.float64),
        "labels": np.array([f"k{k} {v:.2f}" for k, v in zip(keys_np, values[0].tolist())]),
        "loss_curve": loss_curve,  # training log: mean squared error per Adam step
    }
    metrics = {
        "mse": mse,  # held-out
        "baseline_mse": global_mean_mse,  # predict the global mean target for every token
        "sequence_mean_mse": sequence_mean_mse,  # predict each sequence's mean value, ignoring keys
        "within_group_mass": group_mass,  # mean attention weight on the own key group, held out
        "example_within_group_mass": float(example_mass.mean()),
        "example_max_abs_error": float((output - target).abs().max()),
        "final_loss": float(loss_curve[-1]),
    }
    return arrays, metrics
