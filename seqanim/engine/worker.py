"""`python -m seqanim.engine.worker KIND NAME [--quality Q]`: run one build stage in this process, in the current
workspace.

seqanim.engine.task starts it for each stage, in the stage's scratch workspace: one process per stage, because
manim's configuration (and torch's threads and seeds) are global to a process. It prints the stage's result as
one JSON line, or `error: ...` and exits 2 (28 for a full disk). It dies with its worker: it leads a process
group of its own (its tools are in it), and kills the group when the pipe `SEQANIM_WORKER_PIPE`, which the worker
holds, closes.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback

import click

from seqanim.errors import DiskFull, SeqanimError
from seqanim.files import FULL, disk_full
from seqanim.lecture.config import current
from seqanim.stages import KINDS
from seqanim.workspace import current as current_workspace


@click.command()
@click.argument("kind", type=click.Choice(list(KINDS)))
@click.argument("name")
@click.option("--quality", default="low")
def main(kind: str, name: str, quality: str) -> None:
    _die_with_the_worker()
    try:
        result = KINDS[kind].run(name, quality, current())
    except OSError as error:  # a full disk where no writer of ours named the file
        if error.errno not in FULL:
            raise
        _fail(disk_full(error, error.filename2 or error.filename or current_workspace().state_dir))
    except SeqanimError as error:
        if error.__cause__ is not None:  # a bug in the lecture's code: its traceback goes to the stage's log
            traceback.print_exception(error.__cause__)
        _fail(error)
    click.echo(json.dumps(result))


def _die_with_the_worker() -> None:
    watched = os.environ.pop("SEQANIM_WORKER_PIPE", None)
    if watched is None:  # run by hand
        return

    def watch() -> None:
        os.read(int(watched), 1)  # nothing is ever written: returns when the worker's end closes
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, name="die-with-the-worker", daemon=True).start()


def _fail(error: SeqanimError) -> None:
    click.echo(f"error: {error}", err=True)
    sys.exit(DiskFull.stage_exit_code if isinstance(error, DiskFull) else error.exit_code)


if __name__ == "__main__":
    main()
