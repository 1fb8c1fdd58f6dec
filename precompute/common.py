"""What every experiment shares: determinism, progress display, and reading a state dict another experiment saved."""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Iterator
from typing import TypeVar

import numpy as np
import torch

from seqanim import DataError
from seqanim.lecture.contract import data_dir

T = TypeVar("T")


def deterministic(seed: int) -> torch.Generator:
    """Seed every generator and pin torch to one thread: the same parameters give byte-identical arrays."""
    torch.set_num_threads(1)  # experiments run in parallel processes; one thread each avoids oversubscription
    # Not torch.use_deterministic_algorithms: it only guards CUDA kernels and its first call imports torch's
    # inductor compiler (about 1 s per experiment process). The tests check byte-identical reruns instead.
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def progress(iterable: Iterable[T], total: int, description: str) -> Iterator[T]:
    """A progress bar on long training loops (quiet when SEQANIM_QUIET is set, e.g. in parallel builds)."""
    if os.environ.get("SEQANIM_QUIET"):
        yield from iterable
        return
    from rich.progress import track

    yield from track(iterable, total=total, description=description, transient=True)


def load_state_dict(filename: str, producer: str) -> dict[str, torch.Tensor]:
    path = data_dir() / filename
    if not path.exists():
        raise DataError(f"data/{filename} is missing; run `seqanim precompute {producer}`")
    try:
        return torch.load(path, weights_only=True)  # tensors only: no arbitrary unpickling
    except Exception as error:  # noqa: BLE001 - torch raises many types for a bad file
        raise DataError(
            f"data/{filename} is corrupt ({type(error).__name__}); run `seqanim precompute {producer}`"
        ) from None


def diagonal_spread(matrix: np.ndarray) -> np.ndarray:
    """Max minus min along every diagonal offset -(L-1)..(L-1) of a square matrix: all zero for a Toeplitz matrix."""
    size = matrix.shape[0]
    return np.array([np.ptp(np.diagonal(matrix, offset)) for offset in range(-(size - 1), size)])
