"""The adding problem: vanilla RNN vs LSTM vs GRU (seed 000, cells rnn4 and rnn6).

Two input channels, a stream of values in [0, 1) and a marker channel with exactly two 1s (one in each
half); the target is the sum of the two marked values. Predicting the mean gives MSE 1/6, so a cell that
falls far below 1/6 has learned to carry the first marked value across the gap. One linear readout sits
on each recurrent cell; each is trained exactly as the notebook does and scored on a held-out test set.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from precompute.common import deterministic, progress, save_state_dict
from seqanim.config import Adding

DEPENDS = ()
SECONDS = 13  # one core, default parameters: a cold build starts the longest first
EXTRA_OUTPUTS = ("adding_lstm.pt",)

BASELINE_MSE = 1 / 6  # predicting the mean 1: Var(u1 + u2) for u ~ U[0, 1)
CELLS: dict[str, type[nn.RNNBase]] = {"RNN": nn.RNN, "LSTM": nn.LSTM, "GRU": nn.GRU}


def adding_batch(
    batch: int, length: int, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """(batch, length, 2) inputs [value, marker] and (batch, 1) targets; one marker in each half.

    With generator=None the global torch RNG is used, as the notebook's training loop does.
    """
    values = torch.rand(batch, length, 1, generator=generator)
    first = torch.randint(0, length // 2, (batch,), generator=generator)
    second = torch.randint(length // 2, length, (batch,), generator=generator)
    rows = torch.arange(batch)
    marks = torch.zeros(batch, length, 1)
    marks[rows, first, 0] = 1
    marks[rows, second, 0] = 1
    target = (values[rows, first, 0] + values[rows, second, 0]).unsqueeze(1)
    return torch.cat([values, marks], dim=-1), target


class Seq(nn.Module):
    """A recurrent cell with a linear readout of its last hidden state (the notebook's `Seq`)."""

    def __init__(self, kind: str, hidden: int = 64) -> None:
        super().__init__()
        self.rnn = CELLS[kind](2, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(x)
        return self.fc(out[:, -1])


def train(kind: str, params: Adding, test_x: torch.Tensor, test_y: torch.Tensor) -> tuple[Seq, list[int], list[float]]:
    """Train one cell; the held-out MSE is measured every `eval_every` steps and once after the last step."""
    torch.manual_seed(params.seed)  # same init seed and batch stream per kind, as in the notebook
    net = Seq(kind, params.hidden)
    optimiser = torch.optim.Adam(net.parameters(), params.lr)
    loss_fn = nn.MSELoss()
    iters, losses = [], []

    def evaluate(step: int) -> None:
        with torch.no_grad():
            losses.append(loss_fn(net(test_x), test_y).item())
        iters.append(step)

    for step in progress(range(params.iters), params.iters, f"adding: {kind}"):
        x, y = adding_batch(params.batch, params.T)
        optimiser.zero_grad()
        loss_fn(net(x), y).backward()
        nn.utils.clip_grad_norm_(net.parameters(), params.clip)  # vanilla RNNs explode otherwise
        optimiser.step()
        if step % params.eval_every == 0:  # the notebook evaluates after the update of step 0, 20, ...
            evaluate(step)
    if iters[-1] != params.iters:
        evaluate(params.iters)  # the final model, the one lstm_inside opens
    return net, iters, losses


def run(params: Adding) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    deterministic(params.seed)
    test_x, test_y = adding_batch(params.test_size, params.T, torch.Generator().manual_seed(params.test_seed))
    example_x, example_y = adding_batch(1, params.T, torch.Generator().manual_seed(params.example_seed))

    curves, finals = [], {}
    for kind in params.kinds:
        net, iters, losses = train(kind, params, test_x, test_y)
        curves.append(losses)
        finals[kind] = losses[-1]
        if kind == "LSTM":
            save_state_dict(net.state_dict(), "adding_lstm.pt")

    arrays = {
        "example_values": example_x[0, :, 0].numpy().astype(np.float64),
        "example_marks": example_x[0, :, 1].numpy().astype(np.float64),
        "example_target": np.float64(example_y.item()),
        "kinds": np.array(params.kinds),  # fixed-width unicode, no pickles
        "curve_iters": np.asarray(iters, dtype=np.int64),
        "test_mse": np.asarray(curves, dtype=np.float64),  # (kinds, evaluations)
        "final_mse": np.asarray([finals[kind] for kind in params.kinds], dtype=np.float64),
        "baseline": np.float64(BASELINE_MSE),
    }
    metrics: dict[str, Any] = {f"final_mse_{kind}": finals[kind] for kind in params.kinds}
    metrics["baseline"] = BASELINE_MSE
    return arrays, metrics
