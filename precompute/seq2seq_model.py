"""The GRU encoder-decoder with additive (Bahdanau) attention of seed 000, cells at2 and at4.

Shared by seq2seq_reverse (plain GRU encoder) and seq2seq_sort (bidirectional encoder). Attention scores
are e_j = v^T tanh(W_k h_enc_j + W_q h_dec); the weights are softmax(e); the context is their weighted sum
of encoder states. The decoder is teacher-forced in training and can also decode greedily.

The model is the notebook's `Attn` and `Seq2Seq`, with longer names: the parameters are created in the
notebook's order and shapes, so `torch.manual_seed(seed)` before building it gives the notebook's weights.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from pydantic import model_validator
from torch import nn

from precompute.common import progress
from seqanim import Field, Params


class Seq2SeqParams(Params):
    """The parameters both tasks share; each task's module sets its own defaults."""

    vocab: int = Field(12, ge=4, le=64, description="number of symbols")
    length: int = Field(10, ge=3, le=32, description="sequence length (<= vocab)")
    hidden: int = Field(64, ge=4, le=512, description="GRU hidden size (per direction when bidirectional)")
    embed: int = Field(32, ge=2, le=512, description="embedding size")
    attn: int = Field(64, ge=2, le=512, description="width of the additive-attention layer")
    iters: int = Field(900, ge=1, le=20000, description="Adam steps at the constant learning rate (the notebook's)")
    settle: int = Field(0, ge=0, le=20000, description="more Adam steps, the learning rate falling linearly to 0")
    batch: int = Field(64, ge=1, le=4096, description="training batch size")
    lr: float = Field(3e-3, gt=0, le=1, description="Adam learning rate")
    seed: int = Field(1, ge=0, description="training seed")
    example_seed: int = Field(7, ge=0, description="seed of the shown example (distinct symbols)")
    test_size: int = Field(512, ge=16, le=100000, description="held-out sequences for token accuracy")
    test_seed: int = Field(4242, ge=0, description="seed of the held-out set")
    bidirectional: bool = Field(False, description="bidirectional encoder (the reverse model uses a plain GRU)")

    @model_validator(mode="after")
    def _fits(self) -> "Seq2SeqParams":
        if self.length > self.vocab:
            raise ValueError(f"length {self.length} exceeds vocab {self.vocab}: the example uses distinct symbols")
        if self.test_seed == self.seed:
            raise ValueError("test_seed must differ from seed: metrics are measured on held-out data")
        return self


# Draws `size` (source, target) pairs from torch's global generator, as the notebook's rev_batch / sort_batch.
BatchSampler = Callable[[int], tuple[torch.Tensor, torch.Tensor]]


class Decoded(NamedTuple):
    logits: torch.Tensor  # (B, L, vocab)
    attention: torch.Tensor  # (B, L, L): row t = decoder step t, column j = source position j
    energies: torch.Tensor  # (B, L, L): the additive scores before the softmax


class AdditiveAttention(nn.Module):
    """The notebook's `Attn`: score = v^T tanh(W_k h_enc + W_q h_dec)."""

    def __init__(self, state: int, width: int = 64) -> None:
        super().__init__()
        self.Wk = nn.Linear(state, width)
        self.Wq = nn.Linear(state, width)
        self.v = nn.Linear(width, 1)

    def forward(
        self, decoder_state: torch.Tensor, encoder_states: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(context, weights, energies) for one decoder step; the energies are kept for the scenes."""
        energies = self.v(torch.tanh(self.Wk(encoder_states) + self.Wq(decoder_state).unsqueeze(1))).squeeze(-1)
        weights = torch.softmax(energies, -1)
        context = (weights.unsqueeze(-1) * encoder_states).sum(1)
        return context, weights, energies


class Seq2SeqAttention(nn.Module):
    """The notebook's `Seq2Seq`: embeddings, a GRU encoder, a GRUCell decoder attending over the encoder states."""

    def __init__(self, params: Seq2SeqParams) -> None:
        super().__init__()
        directions = 2 if params.bidirectional else 1
        state = directions * params.hidden  # the decoder state matches the (concatenated) encoder states
        self.vocab = params.vocab
        self.bos = params.vocab  # the begin-of-sequence symbol, one past the vocabulary
        # Created in the notebook's order (se, te, enc, dec, attn, out): the seed then gives its initial weights.
        self.source_embed = nn.Embedding(params.vocab, params.embed)
        self.target_embed = nn.Embedding(params.vocab + 1, params.embed)
        self.encoder = nn.GRU(params.embed, params.hidden, batch_first=True, bidirectional=params.bidirectional)
        self.decoder = nn.GRUCell(params.embed + state, state)
        self.attention = AdditiveAttention(state, params.attn)
        self.out = nn.Linear(2 * state, params.vocab)

    def forward(self, source: torch.Tensor, target: torch.Tensor | None = None) -> Decoded:
        """Teacher-forced when `target` is given (the next input is the true symbol), greedy otherwise (its own
        argmax)."""
        encoder_states, last = self.encoder(self.source_embed(source))
        decoder_state = torch.cat(list(last), -1)  # both directions' final states when bidirectional
        previous = torch.full((source.size(0),), self.bos, dtype=torch.long)
        logits, weights, energies = [], [], []
        for t in range(source.size(1)):
            context, step_weights, step_energies = self.attention(decoder_state, encoder_states)
            decoder_state = self.decoder(torch.cat([self.target_embed(previous), context], -1), decoder_state)
            step_logits = self.out(torch.cat([decoder_state, context], -1))
            logits.append(step_logits)
            weights.append(step_weights)
            energies.append(step_energies)
            previous = step_logits.argmax(-1) if target is None else target[:, t]
        return Decoded(torch.stack(logits, 1), torch.stack(weights, 1), torch.stack(energies, 1))


def distinct_symbols(size: int, vocab: int, length: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """`size` rows of `length` distinct symbols, drawn as the notebook: `torch.randperm(V)[:Ls]` per row.
    generator=None draws from torch's global generator."""
    return torch.stack([torch.randperm(vocab, generator=generator)[:length] for _ in range(size)])


def notebook_example(params: Seq2SeqParams) -> torch.Tensor:
    """The notebook's shown source, drawn by the same calls: `torch.manual_seed(example_seed)`, then
    `torch.randperm(V)[:Ls]` for the one row (at2's `rev_batch(1, distinct=True)`, at4's `sort_batch(1)`)."""
    generator = torch.Generator().manual_seed(params.example_seed)  # a fresh generator = the reseeded global one
    return distinct_symbols(1, params.vocab, params.length, generator)


def train(
    params: Seq2SeqParams,
    batch: BatchSampler,
    name: str,
    after_step: Callable[[int, Seq2SeqAttention], None] | None = None,
) -> tuple[Seq2SeqAttention, np.ndarray]:
    """The notebook's loop: `torch.manual_seed(seed); m = Seq2Seq(); opt = Adam(...)`, then Adam on teacher-forced
    cross-entropy, each batch drawn from the global generator, for `iters` steps. Then `settle` more steps from
    the same stream while the learning rate falls linearly to 0 (the notebook stops at `iters`: settle = 0), so
    the final weights do not depend on where one noisy step happened to land. Returns the model and its loss
    per step."""
    torch.manual_seed(params.seed)
    model = Seq2SeqAttention(params)
    optimiser = torch.optim.Adam(model.parameters(), params.lr)
    steps = params.iters + params.settle
    # Factor on the learning rate at each step: 1 for the notebook's steps, then 1, ..., 1/settle.
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser,
        lambda step: 1.0 if step < params.iters else max(0.0, 1 - (step - params.iters) / max(params.settle, 1)),
    )
    loss_curve = np.zeros(steps)
    for step in progress(range(steps), steps, f"{name}: training"):
        source, target = batch(params.batch)
        logits = model(source, target).logits
        loss = F.cross_entropy(logits.reshape(-1, params.vocab), target.reshape(-1))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        loss_curve[step] = loss.item()
        if after_step is not None:  # e.g. bench/reverse_seeds.py probing held-out accuracy during training
            after_step(step, model)
    return model, loss_curve


def token_accuracy(
    model: Seq2SeqAttention, source: torch.Tensor, target: torch.Tensor
) -> tuple[float, float, torch.Tensor]:
    """(teacher-forced, greedy-decoded) fraction of output tokens that are right, and the teacher-forced attention."""
    with torch.no_grad():
        forced = model(source, target)
        greedy = model(source).logits.argmax(-1)
    accuracy = (forced.logits.argmax(-1) == target).float().mean().item()
    return accuracy, (greedy == target).float().mean().item(), forced.attention


def decode_example(
    model: Seq2SeqAttention, source: torch.Tensor, target: torch.Tensor, loss_curve: np.ndarray
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """What both tasks keep of their shown example: the attention (rows = decoder steps), the additive scores,
    teacher-forced and greedy outputs, and whether each is right."""
    with torch.no_grad():
        decoded = model(source, target)
        greedy = model(source).logits.argmax(-1)[0]
    attention = decoded.attention[0].numpy().astype(np.float64)
    prediction = decoded.logits[0].argmax(-1).numpy().astype(np.int64)
    arrays = {
        "source": source[0].numpy().astype(np.int64),
        "target": target[0].numpy().astype(np.int64),
        "prediction": prediction,  # teacher-forced, as the notebook's plot
        "greedy_prediction": greedy.numpy().astype(np.int64),
        "attention": attention,
        "energies": decoded.energies[0].numpy().astype(np.float64),
        "attention_argmax": attention.argmax(1).astype(np.int64),  # per decoder step: where the peak actually is
        "loss_curve": loss_curve,  # training log: cross-entropy per Adam step
    }
    metrics = {
        "example_correct": bool((prediction == target[0].numpy()).all()),
        "example_greedy_correct": bool((greedy == target[0]).all().item()),
        "final_loss": float(loss_curve[-1]),
    }
    return arrays, metrics
