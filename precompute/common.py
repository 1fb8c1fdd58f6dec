"""What every experiment shares: determinism, the optimiser, progress display, and the LSTM state-dict hand-over."""

from __future__ import annotations

import io
import os
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np
import torch
from torch.optim.adam import adam

from seqanim.contract import data_dir
from seqanim.files import atomic_write_bytes
from seqanim.errors import DataError

T = TypeVar("T")


def deterministic(seed: int) -> torch.Generator:
    """Seed every generator and pin torch to one thread: the same parameters give byte-identical arrays."""
    torch.set_num_threads(1)  # experiments run in parallel processes; one thread each avoids oversubscription
    # Not torch.use_deterministic_algorithms: it only guards CUDA kernels and its first call imports
    # torch._inductor (about 1 s per experiment process). The tests check byte-identical reruns instead.
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


class Adam:
    """torch.optim.Adam(parameters, lr, fused=True): the same state, update rule and fused kernel, called
    through torch's functional `adam`. torch.optim.Optimizer imports torch._dynamo on first use, about
    0.8 s in every training process; this does not. tests/test_bptt.py checks that both give equal parameters."""

    def __init__(self, parameters: Iterable[torch.nn.Parameter], lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
        self.parameters = list(parameters)
        self.lr, self.betas, self.eps = lr, betas, eps
        self.state: dict[torch.nn.Parameter, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}

    def zero_grad(self) -> None:
        for parameter in self.parameters:
            parameter.grad = None

    @torch.no_grad()
    def step(self) -> None:
        live = [parameter for parameter in self.parameters if parameter.grad is not None]
        for parameter in live:  # created on a parameter's first gradient, as torch.optim.Adam does
            if parameter not in self.state:
                zeros = torch.zeros_like(parameter, memory_format=torch.preserve_format)
                self.state[parameter] = (torch.zeros((), dtype=torch.float32), zeros, zeros.clone())
        steps, exp_avgs, exp_avg_sqs = (list(column) for column in zip(*(self.state[parameter] for parameter in live)))
        adam(
            live, [parameter.grad for parameter in live], exp_avgs, exp_avg_sqs, [], steps, fused=True,
            amsgrad=False, beta1=self.betas[0], beta2=self.betas[1], lr=self.lr, weight_decay=0.0, eps=self.eps, maximize=False,
        )  # fmt: skip


def progress(iterable: Iterable[T], total: int, description: str) -> Iterator[T]:
    """A progress bar on long training loops (quiet when SEQANIM_QUIET is set, e.g. in parallel builds)."""
    if os.environ.get("SEQANIM_QUIET"):
        yield from iterable
        return
    from rich.progress import track

    yield from track(iterable, total=total, description=description, transient=True)


def save_state_dict(state: dict[str, torch.Tensor], filename: str) -> Path:
    buffer = io.BytesIO()
    torch.save({k: v.detach().clone() for k, v in state.items()}, buffer)
    path = data_dir() / filename
    atomic_write_bytes(path, buffer.getvalue())
    return path


def load_state_dict(filename: str, producer: str) -> dict[str, torch.Tensor]:
    path = data_dir() / filename
    if not path.exists():
        raise DataError(f"data/{filename} is missing; run `seqanim precompute {producer}`")
    try:
        return torch.load(path, weights_only=True)  # tensors only: no arbitrary unpickling
    except Exception as error:  # noqa: BLE001 - torch raises many types for a bad file
        raise DataError(f"data/{filename} is corrupt ({type(error).__name__}); run `seqanim precompute {producer}`") from None


def diagonal_spread(matrix: np.ndarray) -> np.ndarray:
    """Max minus min along every diagonal offset -(L-1)..(L-1) of a square matrix: all zero for a Toeplitz matrix."""
    size = matrix.shape[0]
    return np.array([np.ptp(np.diagonal(matrix, offset)) for offset in range(-(size - 1), size)])
