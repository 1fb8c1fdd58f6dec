"""Run one experiment of `precompute/` and write what it returns: its artifact through the data contract, and
its extra outputs (a state dict, such as the adding LSTM's weights) beside it in data/."""

from __future__ import annotations

import importlib
import io
import sys
import time
from pathlib import Path
from typing import Any

from seqanim.errors import SeqanimError, StageFailed
from seqanim.files import atomic_write_bytes
from seqanim.lecture import contract
from seqanim.lecture.config import Lecture, experiment_params
from seqanim.lecture.registry import experiment


def run_experiment(name: str, lecture: Lecture) -> dict[str, Any]:
    """Train or compute experiment `name`; returns its metrics. Every output lands in data/ atomically.

    `run(params)` returns `(arrays, metrics)`, or `(arrays, metrics, extra)` where `extra` maps each of the
    experiment's declared `extra_outputs` to the state dict to save under that name."""
    spec = experiment(name)
    module = importlib.import_module(f"precompute.{name}")
    params = module.EXPERIMENT.params.model_validate(lecture.section(name))
    upstream = {dep: lecture.params(dep) for dep in spec.reads}
    started = time.perf_counter()
    try:
        arrays, metrics, *extra = module.run(params, **upstream)
    except SeqanimError:
        raise
    except Exception as error:  # noqa: BLE001 - one line for the user; the traceback is re-raised in debug runs
        raise StageFailed(f"experiment {name} raised {type(error).__name__}: {error}") from error
    metrics = {**metrics, "seconds": round(time.perf_counter() - started, 2)}
    if "torch" in sys.modules:  # which CPU kernels torch ran: each path rounds floats its own way
        metrics["cpu_kernels"] = sys.modules["torch"].backends.cpu.get_cpu_capability()
    files = extra[0] if extra else {}
    if set(files) != set(spec.extra_outputs):
        raise StageFailed(
            f"experiment {name} returned {sorted(files) or 'no extra outputs'} but declares extra_outputs = "
            f"{list(spec.extra_outputs)}; return one state dict per declared file"
        )
    for filename, state in files.items():
        _save_state_dict(state, contract.data_dir() / filename)
    contract.save(name, arrays, metrics, experiment_params(lecture, name))
    return metrics


def _save_state_dict(state: dict[str, Any], path: Path) -> None:
    import torch

    buffer = io.BytesIO()
    torch.save({key: tensor.detach().clone() for key, tensor in state.items()}, buffer)
    atomic_write_bytes(path, buffer.getvalue())
