"""The adding problem: vanilla RNN vs LSTM vs GRU (seed 000, cells rnn4 and rnn6).

Two input channels, a stream of values in [0, 1) and a marker channel with exactly two 1s (one in each
half); the target is the sum of the two marked values. Predicting the mean gives MSE 1/6, so a cell that
falls far below 1/6 has learned to carry the first marked value across the gap. One linear readout sits
on each recurrent cell; each is trained exactly as the notebook does and scored on a held-out test set.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import torch
from pydantic import model_validator
from torch import nn

from precompute.common import deterministic, progress
from seqanim import Experiment, Field, Params


class Parameters(Params):
    T: int = Field(40, ge=4, le=400, description="sequence length (the gap the net must bridge)")
    hidden: int = Field(64, ge=2, le=512, description="hidden units of every recurrent cell")
    iters: int = Field(600, ge=1, le=20000, description="Adam steps per cell")
    batch: int = Field(128, ge=1, le=4096, description="training batch size")
    lr: float = Field(5e-3, gt=0, le=1, description="Adam learning rate")
    clip: float = Field(1.0, gt=0, le=100, description="gradient-norm clip (vanilla RNNs explode without it)")
    eval_every: int = Field(20, ge=1, le=1000, description="evaluate the held-out test MSE every this many steps")
    seed: int = Field(0, ge=0, description="training seed (model init and batches)")
    test_size: int = Field(512, ge=16, le=100000, description="held-out test sequences")
    test_seed: int = Field(999, ge=0, description="seed of the held-out test set (must differ from seed)")
    example_seed: int = Field(3, ge=0, description="seed of the example sequence shown in AddingProblem")
    kinds: list[Literal["RNN", "LSTM", "GRU"]] = Field(
        default_factory=lambda: ["RNN", "LSTM", "GRU"],
        min_length=1,
        description="recurrent cells to race (LSTM is required by lstm_inside)",
    )

    @model_validator(mode="after")
    def _lstm_trained(self) -> "Parameters":
        if "LSTM" not in self.kinds:
            raise ValueError("kinds must include LSTM: lstm_inside opens the trained LSTM")
        if self.test_seed == self.seed:
            raise ValueError("test_seed must differ from seed: metrics are measured on held-out data")
        return self


EXPERIMENT = Experiment(Parameters, extra_outputs=("adding_lstm.pt",), seconds=13)

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


def train(
    kind: str, params: Parameters, test_x: torch.Tensor, test_y: torch.Tensor
) -> tuple[Seq, list[int], list[float]]:
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


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any], dict[str, dict[str, torch.Tensor]]]:
    deterministic(params.seed)
    test_x, test_y = adding_batch(params.test_size, params.T, torch.Generator().manual_seed(params.test_seed))
    example_x, example_y = adding_batch(1, params.T, torch.Generator().manual_seed(params.example_seed))

    curves, finals, weights = [], {}, {}
    for kind in params.kinds:
        net, iters, losses = train(kind, params, test_x, test_y)
        curves.append(losses)
        finals[kind] = losses[-1]
        weights[kind] = net.state_dict()

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
    return arrays, metrics, {"adding_lstm.pt": weights["LSTM"]}  # lstm_inside opens the trained LSTM
