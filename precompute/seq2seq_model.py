"""The GRU encoder-decoder with additive (Bahdanau) attention of seed 000, cells at2 and at4.

Shared by seq2seq_reverse (plain GRU encoder) and seq2seq_sort (bidirectional encoder). Attention scores
are e_j = v^T tanh(W_k h_enc_j + W_q h_dec); the weights are softmax(e); the context is their weighted sum
of encoder states. The decoder is teacher-forced in training and can also decode greedily.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from precompute.bptt import GRU, AttentionDecoderRecurrence
from precompute.common import Adam, progress
from precompute.dense import Linear, dense
from pydantic import model_validator

from seqanim.declare import Field, Params

class Seq2SeqParams(Params):
    """The parameters both tasks share; each task's module sets its own defaults."""

    vocab: int = Field(12, ge=4, le=64, description="number of symbols")
    length: int = Field(10, ge=3, le=32, description="sequence length (<= vocab)")
    hidden: int = Field(64, ge=4, le=512, description="GRU hidden size (per direction when bidirectional)")
    embed: int = Field(32, ge=2, le=512, description="embedding size")
    attn: int = Field(64, ge=2, le=512, description="width of the additive-attention layer")
    iters: int = Field(900, ge=1, le=20000, description="Adam steps")
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


# Draws `size` (source, target) pairs from the generator: the training data of one task.
BatchSampler = Callable[[int, torch.Generator], tuple[torch.Tensor, torch.Tensor]]


class Decoded(NamedTuple):
    logits: torch.Tensor  # (B, L, vocab)
    attention: torch.Tensor  # (B, L, L): row t = decoder step t, column j = source position j
    energies: torch.Tensor  # (B, L, L): the additive scores before the softmax


class AdditiveAttention(nn.Module):
    def __init__(self, state: int, width: int) -> None:
        super().__init__()
        self.Wk, self.Wq, self.v = Linear(state, width), Linear(state, width), Linear(width, 1)

    def forward(self, decoder_state: torch.Tensor, encoder_states: torch.Tensor) -> tuple[torch.Tensor, ...]:
        energies = self.v(torch.tanh(self.Wk(encoder_states) + self.Wq(decoder_state).unsqueeze(1))).squeeze(-1)
        weights = torch.softmax(energies, dim=-1)
        context = (weights.unsqueeze(-1) * encoder_states).sum(1)
        return context, weights, energies


class Seq2SeqAttention(nn.Module):
    def __init__(self, params: Seq2SeqParams) -> None:
        super().__init__()
        directions = 2 if params.bidirectional else 1
        state = directions * params.hidden  # the decoder state matches the (concatenated) encoder states
        self.vocab, self.length = params.vocab, params.length
        self.source_embed = nn.Embedding(params.vocab, params.embed)
        self.target_embed = nn.Embedding(params.vocab + 1, params.embed)  # + the begin-of-sequence symbol
        self.encoder = GRU(params.embed, params.hidden, bidirectional=params.bidirectional)
        self.decoder = nn.GRUCell(params.embed + state, state)
        self.attention = AdditiveAttention(state, params.attn)
        self.out = Linear(2 * state, params.vocab)

    def forward(self, source: torch.Tensor, target: torch.Tensor | None = None) -> Decoded:
        """Teacher-forced when `target` is given (the decoder's backward hand-written, see bptt), greedy otherwise."""
        if target is None:
            return self.step_by_step(source)
        batch, embed_width = source.size(0), self.target_embed.embedding_dim
        # An embedding followed by a linear map is a lookup in the projected table: the vocabulary's rows are
        # projected once, not every token of the batch.
        encoder_states, last = self.encoder.forward_tokens(source, self.source_embed)
        bos = torch.full((batch, 1), self.vocab, dtype=torch.long)
        previous = torch.cat([bos, target[:, :-1]], dim=1).t()  # time-major: every step's input is known
        embed_table = dense(self.target_embed.weight, self.decoder.weight_ih[:, :embed_width], self.decoder.bias_ih)
        embed_gates = F.embedding(previous, embed_table)  # the embedded previous symbol's share of the GRU's input gates
        states, contexts, attention, energies = AttentionDecoderRecurrence.apply(
            encoder_states.contiguous(),
            self.attention.Wk(encoder_states),
            torch.cat(list(last), dim=-1),
            embed_gates,
            torch.cat([self.decoder.weight_hh, self.attention.Wq.weight]),
            torch.cat([self.decoder.bias_hh, self.attention.Wq.bias]),
            self.attention.v.weight.squeeze(0),
            self.attention.v.bias,
            self.decoder.weight_ih[:, embed_width:],
        )
        logits = self.out(torch.cat([states, contexts], -1)).transpose(0, 1)
        return Decoded(logits, attention.transpose(0, 1), energies.transpose(0, 1))

    def step_by_step(self, source: torch.Tensor, target: torch.Tensor | None = None) -> Decoded:
        """Teacher-forced when `target` is given, greedy (feeding back its own argmax) otherwise.

        The notebook's step (attention, GRUCell, output layer) computed with the loop-invariant work hoisted out:
        W_k h_enc, the embeddings' share of the GRU input gates and (teacher-forced) the output layer are applied
        once per forward, and the one matmul on the previous decoder state yields both W_q h_dec and the GRU's
        hidden gates. Same function, fewer and larger ops (results differ only by float rounding).
        """
        batch, state = source.size(0), self.decoder.hidden_size
        encoder_states, last = self.encoder(self.source_embed(source))
        decoder_state = torch.cat(list(last), dim=-1)  # both directions' final states when bidirectional
        keys = self.attention.Wk(encoder_states)  # (B, L, attn): constant over the decoder steps
        embed_width = self.target_embed.embedding_dim
        input_weight = self.decoder.weight_ih  # columns: [embedded previous symbol | context]
        embed_weight, context_weight = input_weight[:, :embed_width], input_weight[:, embed_width:]
        # One matmul on the previous state: the GRU's hidden gates and the attention query.
        state_weight = torch.cat([self.decoder.weight_hh, self.attention.Wq.weight])
        state_bias = torch.cat([self.decoder.bias_hh, self.attention.Wq.bias])
        score_weight = self.attention.v.weight.squeeze(0)  # (attn,); v's bias cancels in the softmax but is kept
        bos = torch.full((batch, 1), self.vocab, dtype=torch.long)
        if target is not None:
            previous = torch.cat([bos, target[:, :-1]], dim=1)  # teacher forcing: every step's input is known
            # (B, 3S) per step; unbind, not indexing, so the backward is one stack instead of L zero-filled copies
            embed_gates = F.linear(self.target_embed(previous), embed_weight, self.decoder.bias_ih).unbind(1)
        states, contexts, weights, energies, step_logits = [], [], [], [], []
        previous_symbol = bos[:, 0]
        for t in range(self.length):
            state_product = F.linear(decoder_state, state_weight, state_bias)
            hidden_gates, query = state_product.split([3 * state, self.attention.Wq.out_features], -1)
            step_energies = torch.tanh(keys + query.unsqueeze(1)) @ score_weight + self.attention.v.bias
            step_weights = torch.softmax(step_energies, dim=-1)
            context = torch.bmm(step_weights.unsqueeze(1), encoder_states).squeeze(1)
            if target is None:
                embedded = F.linear(self.target_embed(previous_symbol), embed_weight, self.decoder.bias_ih)
            else:
                embedded = embed_gates[t]
            input_rz, input_n = torch.addmm(embedded, context, context_weight.t()).split([2 * state, state], -1)
            hidden_rz, hidden_n = hidden_gates.split([2 * state, state], -1)
            reset, update = torch.sigmoid(input_rz + hidden_rz).chunk(2, -1)
            candidate = torch.tanh(input_n + reset * hidden_n)
            decoder_state = torch.lerp(candidate, decoder_state, update)  # (1 - z) n + z h, as nn.GRUCell
            weights.append(step_weights)
            energies.append(step_energies)
            if target is None:  # greedy: the next input is this step's own argmax
                logits = self.out(torch.cat([decoder_state, context], -1))
                step_logits.append(logits)
                previous_symbol = logits.argmax(-1)
            else:
                states.append(decoder_state)
                contexts.append(context)
        if target is None:
            all_logits = torch.stack(step_logits, 1)
        else:  # the output layer once on every step's (state, context)
            all_logits = self.out(torch.cat([torch.stack(states, 1), torch.stack(contexts, 1)], -1))
        return Decoded(all_logits, torch.stack(weights, 1), torch.stack(energies, 1))


def distinct_symbols(size: int, vocab: int, length: int, generator: torch.Generator) -> torch.Tensor:
    """`size` rows of `length` distinct symbols (a random permutation's prefix), without a Python loop."""
    return torch.rand(size, vocab, generator=generator).argsort(dim=1)[:, :length]


def notebook_example(params: Seq2SeqParams) -> torch.Tensor:
    """The notebook's shown source, drawn by the same calls: `torch.manual_seed(example_seed)`, then
    `torch.randperm(V)[:Ls]` for the one row (at2's `rev_batch(1, distinct=True)`, at4's `sort_batch(1)`)."""
    generator = torch.Generator().manual_seed(params.example_seed)  # a fresh generator = the reseeded global one
    return torch.randperm(params.vocab, generator=generator)[: params.length].unsqueeze(0)


def train(
    params: Seq2SeqParams, batch: BatchSampler, generator: torch.Generator, name: str, after_step: Callable[[int, Seq2SeqAttention], None] | None = None
) -> tuple[Seq2SeqAttention, np.ndarray]:
    """Adam on teacher-forced cross-entropy, as the notebook. The model is built after seeding, so it is reproducible.

    Returns the model and its loss per step (the training log, saved as `loss_curve`)."""
    model = Seq2SeqAttention(params)
    optimiser = Adam(model.parameters(), params.lr)
    loss_curve = np.zeros(params.iters)
    for step in progress(range(params.iters), params.iters, f"{name}: training"):
        source, target = batch(params.batch, generator)
        logits = model(source, target).logits
        loss = F.cross_entropy(logits.reshape(-1, params.vocab), target.reshape(-1))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        loss_curve[step] = loss.item()
        if after_step is not None:  # e.g. bench/reverse_seeds.py probing held-out accuracy during training
            after_step(step, model)
    return model, loss_curve


def token_accuracy(model: Seq2SeqAttention, source: torch.Tensor, target: torch.Tensor) -> tuple[float, float, torch.Tensor]:
    """(teacher-forced, greedy-decoded) fraction of output tokens that are right, and the teacher-forced attention."""
    with torch.inference_mode():
        forced = model(source, target)
        greedy = model(source).logits.argmax(-1)
    accuracy = (forced.logits.argmax(-1) == target).float().mean().item()
    return accuracy, (greedy == target).float().mean().item(), forced.attention


def decode_example(model: Seq2SeqAttention, source: torch.Tensor, target: torch.Tensor, loss_curve: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """What both tasks keep of their shown example: the attention (rows = decoder steps), the additive scores,
    teacher-forced and greedy outputs, and whether each is right."""
    with torch.inference_mode():
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
