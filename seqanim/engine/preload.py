"""Dask worker preload (`dask worker ADDRESS --nthreads 1 --preload seqanim.engine.preload`): import the libraries
stages use once per worker, so that each stage's process, forked from the worker (seqanim.engine.task), starts with
them; and set glibc's malloc thresholds, which the stages inherit too. A local cluster names the kinds of
stage its build runs (`--kinds experiment`: no manim for a precompute).

A worker also ignores Ctrl-C: a terminal's Ctrl-C reaches the whole process group, and the worker's nanny (in
the build process, or the `dask worker` command) is what stops it.
"""

from __future__ import annotations

import ctypes
import importlib
import signal
from typing import Any

import click

from seqanim.stages import KINDS


@click.command()
@click.option("--kinds", default=",".join(KINDS), help="The kinds of stage to import libraries for.")
def dask_setup(worker: Any, kinds: str) -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to ignore here
        pass
    _keep_freed_memory()
    for name in dict.fromkeys(name for kind in kinds.split(",") for name in KINDS[kind].libraries):
        importlib.import_module(name)
    # tqdm (manim's progress bars) makes a multiprocessing lock on first use. Made here, once, the stages'
    # processes share it; each stage's own would outlive it (a forked process exits without cleanup), and
    # multiprocessing's resource tracker would warn of "leaked semaphore objects" at the end of every build.
    from tqdm import tqdm

    tqdm.get_lock()


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def _keep_freed_memory() -> None:
    """Keep up to 256 MB of freed memory instead of returning it to the OS: a stage would page-fault its
    temporaries (a render's frames, a training step's tensors) back in every time. Under Dask's default worker
    environment (a 64 KB trim threshold) a high-quality render of EchoOfAPulse made 3.6-7.3 million page
    faults instead of 0.2 million and took 1.8x the CPU time; the adding and seq2seq experiments ~5 % more.
    Set here, once per worker, it holds on remote workers too, whose environment is their own."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to tune
        return
    libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)
    libc.mallopt(M_TRIM_THRESHOLD, 256 << 20)
