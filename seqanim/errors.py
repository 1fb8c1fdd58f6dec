"""One exception type for every user-facing failure: the CLI prints it as one line and exits 2."""

from __future__ import annotations


class SeqanimError(Exception):
    """A problem the user can fix. The message names the key or file and says how to fix it."""

    exit_code = 2


class ConfigError(SeqanimError):
    """lecture.toml or a --set override is invalid."""


class DataError(SeqanimError):
    """A data/ artifact is missing, corrupt, or was made from other parameters."""


class UnknownNameError(SeqanimError):
    """An experiment, scene or deck name that the lecture does not define."""


class ToolMissingError(SeqanimError):
    """A system tool (LaTeX, Cairo, ffmpeg, chromium) is not installed."""


class StageFailed(SeqanimError):
    """A precompute, render or export stage raised; earlier outputs are untouched."""


class BuildLocked(SeqanimError):
    """Another build holds this tree's build lock."""


class DiskFull(SeqanimError):
    """A write failed for lack of space (or the file size limit); nothing half-written was published."""

    # A stage process exits with this (ENOSPC) so the build can say why even when the stage's log,
    # on the same full disk, could not take the error line.
    stage_exit_code = 28
