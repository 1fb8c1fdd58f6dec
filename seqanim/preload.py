"""Dask worker preload (`dask worker ADDRESS --nthreads 1 --preload seqanim.preload`): import the libraries
stages use once per worker, so each stage's forked process starts with them (seqanim.task).

A local cluster names the kinds of stage its build runs (`--kinds experiment`: no manim for a precompute).
Also: a worker ignores Ctrl-C (the build that started it stops it, and a terminal's Ctrl-C reaches the whole
process group), and with `--preload-argv LOG` it writes its own messages there instead of the terminal.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from typing import Any

import click

# pydantic.main, not just pydantic: the package imports its model machinery lazily (about 0.1 s per stage).
COMMON = ("numpy", "pydantic", "pydantic.main", "click", "rich")
LIBRARIES = {
    "experiment": (*COMMON, "torch"), "scene": (*COMMON, "manim"), "narration": (*COMMON, "av", "PIL.Image"),
    "deck": (*COMMON, "manim"),
}  # fmt: skip


@click.command()
@click.option("--log", default=None, help="Append the worker's own messages to this file.")
@click.option("--kinds", default=",".join(LIBRARIES), help="The kinds of stage to import libraries for.")
def dask_setup(worker: Any, log: str | None, kinds: str) -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to ignore here
        pass
    if log:
        descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        sys.stderr.flush()
        os.dup2(descriptor, 2)
        os.close(descriptor)
    for name in dict.fromkeys(name for kind in kinds.split(",") for name in LIBRARIES[kind]):
        importlib.import_module(name)
