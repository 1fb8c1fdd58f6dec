"""Self-attention is content-based lookup (seed 000, cell tf2).

A sequence of (key, value) items plus one query token that carries only a key. One layer, one head of
scaled dot-product self-attention, trained to output the value whose key matches the query: the query
row of the attention matrix should become (nearly) one-hot on the matching item.
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
    n_keys: int = Field(8, ge=2, le=64, description="key vocabulary")
    n_values: int = Field(8, ge=2, le=64, description="value vocabulary")
    items: int = Field(6, ge=2, le=32, description="(key, value) items before the query token (<= n_keys)")
    d: int = Field(64, ge=4, le=512, description="model width")
    iters: int = Field(700, ge=1, le=20000, description="Adam steps")
    batch: int = Field(128, ge=1, le=4096, description="training batch size")
    lr: float = Field(3e-3, gt=0, le=1, description="Adam learning rate")
    seed: int = Field(2, ge=0, description="training seed")
    example_seed: int = Field(5, ge=0, description="seed of the shown example")
    test_size: int = Field(2048, ge=16, le=100000, description="held-out lookups for accuracy")
    test_seed: int = Field(4243, ge=0, description="seed of the held-out set")

    @model_validator(mode="after")
    def _fits(self) -> "Parameters":
        if self.items > self.n_keys:
            raise ValueError(f"items {self.items} exceeds n_keys {self.n_keys}: item keys are distinct")
        if self.test_seed == self.seed:
            raise ValueError("test_seed must differ from seed: metrics are measured on held-out data")
        return self


EXPERIMENT = Experiment(Parameters, seconds=1.5)


def lookup_batch(params: Parameters, size: int, generator: torch.Generator | None) -> tuple[torch.Tensor, ...]:
    """The notebook's `lookup_batch(size)`, by the same calls in the same order: distinct item keys (randperm per row),
    random values, the query is one item's key. generator=None draws from torch's global generator."""
    keys = torch.stack([torch.randperm(params.n_keys, generator=generator)[: params.items] for _ in range(size)])
    values = torch.randint(0, params.n_values, (size, params.items), generator=generator)
    asked = torch.randint(0, params.items, (size,), generator=generator)
    rows = torch.arange(size)
    return keys, values, keys[rows, asked], values[rows, asked]


class LookupAttention(nn.Module):
    """Items carry key+value embeddings, the query token carries its key plus a learned query marker."""

    def __init__(self, params: Parameters) -> None:
        super().__init__()
        d = params.d
        self.key_embed = nn.Embedding(params.n_keys, d)
        self.value_embed = nn.Embedding(params.n_values, d)
        self.query_marker = nn.Parameter(torch.randn(d) * 0.1)
        self.position = nn.Parameter(torch.randn(params.items + 1, d) * 0.1)
        self.Wq, self.Wk, self.Wv = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.head = nn.Linear(d, params.n_values)
        self.d = d

    def forward(
        self, keys: torch.Tensor, values: torch.Tensor, query_key: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        items = self.key_embed(keys) + self.value_embed(values)
        query = (self.key_embed(query_key) + self.query_marker).unsqueeze(1)
        x = torch.cat([items, query], dim=1) + self.position
        attention = torch.softmax(self.Wq(x) @ self.Wk(x).transpose(1, 2) / math.sqrt(self.d), dim=-1)
        return self.head((attention @ self.Wv(x))[:, -1]), attention  # the answer is read at the query token


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    deterministic(params.seed)  # the notebook's torch.manual_seed(2) before building the model
    model = LookupAttention(params)
    optimiser = torch.optim.Adam(model.parameters(), params.lr)
    loss_curve = np.zeros(params.iters)
    for step in progress(range(params.iters), params.iters, "lookup: training"):
        # From the global generator, as the notebook: the seed above fixes the init and the batch stream.
        keys, values, query_key, answer = lookup_batch(params, params.batch, None)
        logits, _ = model(keys, values, query_key)
        loss = F.cross_entropy(logits, answer)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        loss_curve[step] = loss.item()

    model.eval()
    with torch.no_grad():
        keys, values, query_key, answer = lookup_batch(
            params, params.test_size, torch.Generator().manual_seed(params.test_seed)
        )
        logits, attention = model(keys, values, query_key)
        match = (keys == query_key[:, None]).float().argmax(dim=1)
        query_rows = attention[:, -1]
        accuracy = (logits.argmax(-1) == answer).float().mean().item()
        match_mass = query_rows[torch.arange(params.test_size), match].mean().item()

        # The notebook's example: its lookup_batch(1) after torch.manual_seed(example_seed) makes the same calls.
        keys, values, query_key, answer = lookup_batch(params, 1, torch.Generator().manual_seed(params.example_seed))
        logits, attention = model(keys, values, query_key)
    keys, values, query_key, answer = keys[0].numpy(), values[0].numpy(), int(query_key[0]), int(answer[0])
    match_index = int(np.argmax(keys == query_key))
    prediction = int(logits[0].argmax())
    example_attention = attention[0].numpy().astype(np.float64)
    labels = [f"k{k}=v{v}" for k, v in zip(keys, values)] + [f"query k{query_key}"]

    arrays = {
        "keys": keys.astype(np.int64),
        "values": values.astype(np.int64),
        "query_key": np.int64(query_key),
        "prediction": np.int64(prediction),
        "answer": np.int64(answer),
        "attention": example_attention,
        "match_index": np.int64(match_index),
        "labels": np.array(labels),
        "loss_curve": loss_curve,  # training log: cross-entropy per Adam step
    }
    metrics = {
        "accuracy": accuracy,  # held-out lookups
        "query_match_mass": match_mass,  # mean query-row weight on the matching item, held out
        "example_correct": prediction == answer,
        "final_loss": float(loss_curve[-1]),
    }
    return arrays, metrics
