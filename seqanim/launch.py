"""Start one build stage in its own process, forked from a server that has already imported torch and manim.

A fresh `python -m seqanim.worker` pays about 1.2 s to import torch (experiments) or manim (scenes) before
it does any work; on 2 cores and 11 experiments that is a third of the whole precompute. multiprocessing's
forkserver imports them once and forks a child per stage, so every stage still gets its own process (a
crash cannot touch another stage, module state starts clean) without the import. Only third-party
libraries are preloaded: the child imports seqanim, precompute and scenes itself, so `seqanim watch`
always runs the code as it is on disk now.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from multiprocessing import forkserver
from multiprocessing.connection import wait
from multiprocessing.context import ForkServerContext
from pathlib import Path

from seqanim.workspace import current

# What every worker imports. rich too: multiprocessing re-imports the parent's main module (the seqanim CLI)
# in each child.
# pydantic.main, not just pydantic: the package imports its model machinery lazily (about 0.1 s per child).
COMMON = ("numpy", "pydantic", "pydantic.main", "click", "rich")
PRELOAD = {
    "experiment": (*COMMON, "torch"), "scene": (*COMMON, "manim"), "narration": (*COMMON, "av", "PIL.Image"),
    "deck": (*COMMON, "manim"),
}  # fmt: skip

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters

_context: ForkServerContext | None = None


def start(kinds: set[str], cwd: Path) -> ForkServerContext:
    """The forkserver, started once per process with every library the given kinds of stage need.

    A later build in the same process (`seqanim watch`) reuses it, so watch starts it with every kind.
    """
    global _context
    if _context is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(sorted({module for kind in kinds for module in PRELOAD[kind]}))
        # manim reads manim.cfg from the working directory when it is imported: import it where stages run.
        previous = os.getcwd()
        os.chdir(cwd)
        # Started with Ctrl-C ignored: the server imports torch/manim before it ignores SIGINT itself, and a
        # Ctrl-C then would print its KeyboardInterrupt traceback under the build's one line (found by
        # bench/faults.py). The build stops its stages itself; the server exits when the build does.
        interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
        # The server and multiprocessing's resource tracker (started with it) write to the stderr they are
        # given; a stage killed mid-render leaves semaphores the tracker cleans up, with a warning that
        # would follow the build's one line. Both get a log instead of the terminal.
        log = current().logs / "forkserver.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        sys.stderr.flush()
        terminal = os.dup(2)
        os.dup2(descriptor, 2)
        try:
            forkserver.ensure_running()
        finally:
            os.dup2(terminal, 2)
            os.close(terminal)
            os.close(descriptor)
            signal.signal(signal.SIGINT, interrupt)
            os.chdir(previous)
        _context = context
    return _context


def _keep_freed_memory() -> None:
    """glibc returns large freed blocks to the OS, so a training loop page-faults its temporaries back in on
    every step; keeping up to 256 MB around makes the adding and seq2seq experiments ~5 % faster."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc: nothing to tune
        return
    libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)
    libc.mallopt(M_TRIM_THRESHOLD, 256 << 20)


def _die_with_the_build() -> None:
    """In the child: a process group of its own, killed whole the moment the build that started it dies.

    The forkserver outlives the build while any stage runs (each stage holds its liveness pipe), so a stage
    whose build was SIGKILLed alone would finish and publish its outputs with no build to record them, and
    race the next build. multiprocessing keeps a pipe from the build open in the child (the parent
    sentinel); it reads EOF when the build dies, however it dies. The group takes the stage's own children
    with it (LaTeX, ffmpeg, the cards renderer), and keeps a terminal's Ctrl-C for the build alone, which
    then stops its stages itself (build.execute).
    """
    os.setpgid(0, 0)
    # Not the forkserver's liveness pipe: with no stage holding it, the server exits with the build.
    os.close(forkserver._forkserver._forkserver_alive_fd)  # type: ignore[attr-defined]
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        wait([sentinel])
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, name="die-with-the-build", daemon=True).start()


def _run_stage(argv: list[str], log: str, env: dict[str, str], cwd: str) -> None:
    """In the child: the worker's own command line, with stdout and stderr going to the stage's log."""
    _die_with_the_build()
    _keep_freed_memory()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    descriptor = os.open(log, os.O_WRONLY | os.O_APPEND)  # the parent created it empty
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(descriptor, 1)
    os.dup2(descriptor, 2)
    os.close(descriptor)
    sys.stdout.reconfigure(line_buffering=True)  # a killed stage keeps its log up to the last line
    from seqanim.worker import main

    main(argv, prog_name="seqanim.worker")  # exits through SystemExit; multiprocessing turns it into the exit code


class Stage:
    """A running stage with the part of subprocess.Popen's interface the executor uses."""

    def __init__(self, argv: list[str], log: Path, env: dict[str, str], cwd: Path, kinds: set[str]) -> None:
        log.write_bytes(b"")  # before the child exists: a child that dies early leaves an empty log, not an old one
        self.process = start(kinds, cwd).Process(target=_run_stage, args=(argv, str(log), env, str(cwd)))
        self.process.start()

    @property
    def sentinel(self) -> int:
        """Becomes ready when the stage's process ends (for multiprocessing.connection.wait)."""
        return self.process.sentinel

    def poll(self) -> int | None:
        """The exit code, or None while the stage runs."""
        return self.process.exitcode

    def kill(self) -> None:
        """Stop the stage, and whatever it started, and reap it."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):  # ended, or not yet its own group
            self.process.kill()
        self.process.join()
