"""The GRU encoder-decoder with additive (Bahdanau) attention of seed 000, cells at2 and at4.

Shared by seq2seq_reverse (plain GRU encoder) and seq2seq_sort (bidirectional encoder). Attention scores
are e_j = v^T tanh(W_k h_enc_j + W_q h_dec); the weights are softmax(e); the context is their weighted sum
of encoder states. The decoder is teacher-forced in training and can also decode greedily.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from precompute.common import progress
from seqanim.config import Seq2Seq

# Draws `size` (source, target) pairs from the generator: the training data of one task.
BatchSampler = Callable[[int, torch.Generator], tuple[torch.Tensor, torch.Tensor]]


class Decoded(NamedTuple):
    logits: torch.Tensor  # (B, L, vocab)
    attention: torch.Tensor  # (B, L, L): row t = decoder step t, column j = source position j
    energies: torch.Tensor  # (B, L, L): the additive scores before the softmax


class AdditiveAttention(nn.Module):
    def __init__(self, state: int, width: int) -> None:
        super().__init__()
        self.Wk, self.Wq, self.v = nn.Linear(state, width), nn.Linear(state, width), nn.Linear(width, 1)

    def forward(self, decoder_state: torch.Tensor, encoder_states: torch.Tensor) -> tuple[torch.Tensor, ...]:
        energies = self.v(torch.tanh(self.Wk(encoder_states) + self.Wq(decoder_state).unsqueeze(1))).squeeze(-1)
        weights = torch.softmax(energies, dim=-1)
        context = (weights.unsqueeze(-1) * encoder_states).sum(1)
        return context, weights, energies


class Seq2SeqAttention(nn.Module):
    def __init__(self, params: Seq2Seq) -> None:
        super().__init__()
        directions = 2 if params.bidirectional else 1
        state = directions * params.hidden  # the decoder state matches the (concatenated) encoder states
        self.vocab, self.length = params.vocab, params.length
        self.source_embed = nn.Embedding(params.vocab, params.embed)
        self.target_embed = nn.Embedding(params.vocab + 1, params.embed)  # + the begin-of-sequence symbol
        self.encoder = nn.GRU(params.embed, params.hidden, batch_first=True, bidirectional=params.bidirectional)
        self.decoder = nn.GRUCell(params.embed + state, state)
        self.attention = AdditiveAttention(state, params.attn)
        self.out = nn.Linear(2 * state, params.vocab)

    def forward(self, source: torch.Tensor, target: torch.Tensor | None = None) -> Decoded:
        """Teacher-forced when `target` is given, greedy (feeding back its own argmax) otherwise."""
        encoder_states, last = self.encoder(self.source_embed(source))
        decoder_state = torch.cat(list(last), dim=-1)  # both directions' final states when bidirectional
        previous = torch.full((source.size(0),), self.vocab, dtype=torch.long)  # BOS
        logits, weights, energies = [], [], []
        for t in range(self.length):
            context, step_weights, step_energies = self.attention(decoder_state, encoder_states)
            decoder_state = self.decoder(torch.cat([self.target_embed(previous), context], -1), decoder_state)
            step_logits = self.out(torch.cat([decoder_state, context], -1))
            logits.append(step_logits)
            weights.append(step_weights)
            energies.append(step_energies)
            previous = target[:, t] if target is not None else step_logits.argmax(-1)
        return Decoded(torch.stack(logits, 1), torch.stack(weights, 1), torch.stack(energies, 1))


def distinct_symbols(size: int, vocab: int, length: int, generator: torch.Generator) -> torch.Tensor:
    """`size` rows of `length` distinct symbols (a random permutation's prefix), without a Python loop."""
    return torch.rand(size, vocab, generator=generator).argsort(dim=1)[:, :length]


def notebook_example(params: Seq2Seq) -> torch.Tensor:
    """The notebook's shown source, drawn by the same calls: `torch.manual_seed(example_seed)`, then
    `torch.randperm(V)[:Ls]` for the one row (at2's `rev_batch(1, distinct=True)`, at4's `sort_batch(1)`)."""
    generator = torch.Generator().manual_seed(params.example_seed)  # a fresh generator = the reseeded global one
    return torch.randperm(params.vocab, generator=generator)[: params.length].unsqueeze(0)


def train(params: Seq2Seq, batch: BatchSampler, generator: torch.Generator, name: str) -> tuple[Seq2SeqAttention, np.ndarray]:
    """Adam on teacher-forced cross-entropy, as the notebook. The model is built after seeding, so it is reproducible.

    Returns the model and its loss per step (the training log, saved as `loss_curve`)."""
    model = Seq2SeqAttention(params)
    optimiser = torch.optim.Adam(model.parameters(), params.lr)
    loss_curve = np.zeros(params.iters)
    for step in progress(range(params.iters), params.iters, f"{name}: training"):
        source, target = batch(params.batch, generator)
        logits = model(source, target).logits
        loss = F.cross_entropy(logits.reshape(-1, params.vocab), target.reshape(-1))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        loss_curve[step] = loss.item()
    return model, loss_curve


def token_accuracy(model: Seq2SeqAttention, source: torch.Tensor, target: torch.Tensor) -> tuple[float, float]:
    """(teacher-forced, greedy-decoded) fraction of output tokens that are right."""
    with torch.no_grad():
        forced = model(source, target).logits.argmax(-1)
        greedy = model(source).logits.argmax(-1)
    return (forced == target).float().mean().item(), (greedy == target).float().mean().item()
