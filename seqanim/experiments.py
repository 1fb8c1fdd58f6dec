"""Run one experiment of `precompute/` and write its artifact through the data contract."""

from __future__ import annotations

import importlib
import json
import sys
import time
from typing import Any

import click

from seqanim import contract
from seqanim.config import Lecture, current, experiment_params
from seqanim.errors import SeqanimError, StageFailed
from seqanim.registry import experiment


def run_experiment(name: str, lecture: Lecture) -> dict[str, Any]:
    """Train or compute experiment `name`; returns its metrics. The artifact lands in data/ atomically."""
    spec = experiment(name)
    module = importlib.import_module(f"precompute.{name}")
    params = module.EXPERIMENT.params.model_validate(lecture.section(name))
    upstream = {dep: lecture.params(dep) for dep in spec.reads}
    started = time.perf_counter()
    try:
        arrays, metrics = module.run(params, **upstream)
    except SeqanimError:
        raise
    except Exception as error:  # noqa: BLE001 - one line for the user; the traceback is re-raised in debug runs
        raise StageFailed(f"experiment {name} raised {type(error).__name__}: {error}") from error
    metrics = {**metrics, "seconds": round(time.perf_counter() - started, 2)}
    contract.save(name, arrays, metrics, experiment_params(lecture, name))
    return metrics


@click.command()
@click.argument("name")
def main(name: str) -> None:
    """Run one experiment (the build calls this once per experiment, in parallel)."""
    try:
        metrics = run_experiment(name, current())
    except SeqanimError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(error.exit_code)
    click.echo(json.dumps(metrics))


if __name__ == "__main__":
    main()
