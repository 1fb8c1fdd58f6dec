"""Inside the trained LSTM (seed 000, cell rnn8).

Open the LSTM trained on the adding problem (no retraining) and run it on one hand-made example with
markers at fixed steps. Replaying the recurrence by hand exposes the gates (PyTorch order i, f, g, o): how
much is written into the cell, ||i_t * c~_t||, how much the cell holds, ||c_t||, and the running guess
fc(h_t) against the true running sum of the marked values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from pydantic import field_validator

from precompute import adding as adding_problem
from precompute.adding import Seq
from precompute.common import deterministic, load_state_dict
from seqanim import DataError, Experiment, Field, Params


class Parameters(Params):
    example_seed: int = Field(4, ge=0, description="torch seed of the example's value channel")
    markers: list[int] = Field(
        default_factory=lambda: [7, 27],
        min_length=2,
        max_length=2,
        description="the two marked time steps (each below adding.T)",
    )

    @field_validator("markers")
    @classmethod
    def _ordered(cls, markers: list[int]) -> list[int]:
        # The scene compares the write before, at and between the markers, so each needs a step around it.
        if markers[0] < 1 or markers[1] - markers[0] < 2:
            raise ValueError(f"markers {markers} must be two time steps >= 1, at least 2 apart")
        return markers

    def check_upstream(self, adding: adding_problem.Parameters) -> None:  # type: ignore[override]
        if self.markers[1] >= adding.T:
            half = adding.T // 2  # training marks one step in each half (precompute.adding.adding_batch)
            first = max(1, min(self.markers[0], half - 1))
            fits = [first, max(half, first + 2, min(self.markers[1], adding.T - 1))]
            raise ValueError(
                f"markers {self.markers} must lie below adding.T = {adding.T} (training marks one step in "
                f"[0, {half}) and one in [{half}, {adding.T})): set lstm_inside.markers to e.g. {fits}, "
                f"or adding.T above {self.markers[1]}"
            )


EXPERIMENT = Experiment(Parameters, reads=("adding",))


def example(params: Parameters, length: int) -> torch.Tensor:
    """(1, length, 2) input: values from torch.manual_seed(example_seed), markers at params.markers."""
    if params.markers[1] >= length:
        raise DataError(f"lstm_inside.markers {params.markers} must lie below adding.T = {length}")
    torch.manual_seed(params.example_seed)
    x = torch.zeros(1, length, 2)
    x[0, :, 0] = torch.rand(length)
    x[0, params.markers, 1] = 1
    return x


def replay(net: Seq, x: torch.Tensor) -> dict[str, torch.Tensor]:
    """Run the LSTM recurrence step by step on one sequence (1, T, 2), keeping every gate."""
    lstm = net.rnn
    hidden = lstm.hidden_size
    # Input projections of all steps at once; only the recurrent part has to run step by step.
    projected = x[0] @ lstm.weight_ih_l0.T + lstm.bias_ih_l0 + lstm.bias_hh_l0
    h, c = torch.zeros(hidden), torch.zeros(hidden)
    names = ("input_gate", "forget_gate", "candidate", "output_gate", "cell", "hidden")
    trace: dict[str, list[torch.Tensor]] = {name: [] for name in names}
    for pre in projected:
        gates = pre + lstm.weight_hh_l0 @ h
        i, f, g, o = gates.split(hidden)
        i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
        c = f * c + i * g
        h = o * torch.tanh(c)
        for name, value in zip(names, (i, f, g, o, c, h)):
            trace[name].append(value)
    return {name: torch.stack(values) for name, values in trace.items()}


def run(params: Parameters, adding: adding_problem.Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    deterministic(params.example_seed)
    net = Seq("LSTM", adding.hidden)
    try:
        net.load_state_dict(load_state_dict("adding_lstm.pt", "adding"))
    except RuntimeError as error:  # shapes differ: the file is from another `adding.hidden`
        raise DataError(
            f"data/adding_lstm.pt does not fit adding.hidden = {adding.hidden}; run `seqanim precompute adding`"
        ) from error
    net.eval()

    x = example(params, adding.T)
    with torch.inference_mode():
        trace = replay(net, x)
        running_guess = net.fc(trace["hidden"]).squeeze(-1)

    values = x[0, :, 0].double().numpy()
    marks = x[0, :, 1].double().numpy()
    target = float(values[params.markers].sum())
    write = trace["input_gate"] * trace["candidate"]  # what the step writes into the cell
    arrays = {name: value.double().numpy() for name, value in trace.items()}
    arrays |= {
        "values": values,
        "marks": marks,
        "markers": np.asarray(params.markers, dtype=np.int64),
        "write_norm": write.norm(dim=-1).double().numpy(),
        "cell_norm": trace["cell"].norm(dim=-1).double().numpy(),
        "running_guess": running_guess.double().numpy(),
        "true_running_sum": np.cumsum(values * marks),
        "target": np.float64(target),
    }
    final_guess = float(running_guess[-1])
    metrics = {"final_guess": final_guess, "target": target, "abs_error": abs(final_guess - target)}
    return arrays, metrics
