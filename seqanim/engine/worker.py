"""`seqanim.engine.worker KIND NAME [--quality Q]`: run one build stage in this process, in the current workspace.

seqanim.engine.task calls it in the process it forks for each stage, in the stage's scratch workspace: one process
per stage, because manim's configuration (and torch's threads and seeds) are global to a process. It prints
the stage's result as one JSON line, or `error: ...` and exits 2 (28 for a full disk, whose line may not fit).
"""

from __future__ import annotations

import json
import sys

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
    try:
        result = KINDS[kind].run(name, quality, current())
    except OSError as error:  # a full disk where no writer of ours named the file
        if error.errno not in FULL:
            raise
        _fail(disk_full(error, error.filename2 or error.filename or current_workspace().state_dir))
    except SeqanimError as error:
        _fail(error)
    click.echo(json.dumps(result))


def _fail(error: SeqanimError) -> None:
    try:
        click.echo(f"error: {error}", err=True)
    except OSError:  # the log is on the full disk too: the exit code says it
        pass
    sys.exit(DiskFull.stage_exit_code if isinstance(error, DiskFull) else error.exit_code)


if __name__ == "__main__":
    main()
