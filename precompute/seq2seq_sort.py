"""A harder alignment: learning to sort (seed 000, cell at4).

The same attention seq2seq, with a bidirectional encoder, trained to emit the SORTED input. The alignment
follows content: step t should point to wherever the t-th smallest value sits, a different permutation for
every input. Besides the shown example we keep a few held-out examples to show that the permutation moves.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from precompute.common import deterministic
from precompute.seq2seq_model import (
    Seq2SeqParams,
    decode_example,
    distinct_symbols,
    notebook_example,
    token_accuracy,
    train,
)
from seqanim import Experiment, Field


class Parameters(Seq2SeqParams):
    """[seq2seq_sort]: the notebook's at4 defaults, where they differ from at2's."""

    length: int = Field(8, ge=3, le=32, description="sequence length (<= vocab, distinct values)")
    iters: int = Field(1500, ge=1, le=20000, description="Adam steps")
    lr: float = Field(2e-3, gt=0, le=1, description="Adam learning rate")
    example_seed: int = Field(3, ge=0, description="seed of the shown example")
    test_seed: int = Field(4245, ge=0, description="seed of the held-out set")
    bidirectional: bool = Field(True, description="each encoder state sees the whole sequence")


EXPERIMENT = Experiment(Parameters, seconds=15)


MORE_EXAMPLES = 3  # extra held-out inputs whose attention the scene can show


def sort_batch(params: Parameters, size: int, generator: torch.Generator | None) -> tuple[torch.Tensor, torch.Tensor]:
    """The notebook's `sort_batch(size)`: distinct symbols and their sorted order. generator=None draws from torch's
    global generator."""
    source = distinct_symbols(size, params.vocab, params.length, generator)
    return source, torch.sort(source, dim=1).values


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    deterministic(params.seed)
    # The notebook's batches: sort_batch(64) from the global generator after `torch.manual_seed(1); m = Seq2Seq()`.
    model, loss_curve = train(params, lambda size: sort_batch(params, size, None), "seq2seq_sort")

    length = params.length
    steps = torch.arange(length)
    test_source, test_target = sort_batch(params, params.test_size, torch.Generator().manual_seed(params.test_seed))
    forced_accuracy, greedy_accuracy, held_out = token_accuracy(model, test_source, test_target)  # held_out: (N, L, L)
    # Step t should attend to where the t-th smallest value sits: the argsort of the source.
    sorted_position = torch.argsort(test_source, dim=1)
    target_mass = torch.gather(held_out, 2, sorted_position.unsqueeze(-1)).squeeze(-1)  # (N, L)
    argmax_on_target = (held_out.argmax(-1) == sorted_position).float()
    # Where the rest goes: the positions of the neighbours in sorted order (values t-1 and t+1).
    padded = torch.cat([sorted_position[:, :1], sorted_position, sorted_position[:, -1:]], dim=1)
    below = torch.gather(held_out, 2, padded[:, :-2].unsqueeze(-1)).squeeze(-1)
    above = torch.gather(held_out, 2, padded[:, 2:].unsqueeze(-1)).squeeze(-1)
    neighbour_mass = below * (steps > 0) + above * (steps < length - 1)

    source = notebook_example(params)  # the notebook's example, drawn by its own calls
    target = torch.sort(source, dim=1).values
    arrays, metrics = decode_example(model, source, target, loss_curve)
    attention = arrays["attention"]
    example_position = torch.argsort(source[0]).numpy()
    example_mass = attention[steps.numpy(), example_position]

    more = slice(0, MORE_EXAMPLES)
    with torch.no_grad():
        more_predictions = model(test_source[more], test_target[more]).logits.argmax(-1)
    arrays |= {
        "sorted_position": example_position.astype(np.int64),  # where the t-th smallest value sits
        "more_sources": test_source[more].numpy().astype(np.int64),
        "more_predictions": more_predictions.numpy().astype(np.int64),
        "more_attention": held_out[more].numpy().astype(np.float64),
    }
    metrics |= {
        "token_accuracy": forced_accuracy,  # teacher-forced, held out
        "greedy_token_accuracy": greedy_accuracy,  # fed its own outputs, held out
        "example_target_mass": float(example_mass.mean()),
        "example_argmax_on_target": float((attention.argmax(1) == example_position).mean()),
        "held_out_target_mass": target_mass.mean().item(),
        "held_out_argmax_on_target": argmax_on_target.mean().item(),
        "held_out_neighbour_mass": neighbour_mass.mean().item(),  # on the sort-order neighbours
        "more_correct": int((more_predictions == test_target[more]).all(1).sum()),
    }
    return arrays, metrics
