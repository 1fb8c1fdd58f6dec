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
    """A precompute, render or export stage failed; earlier outputs are untouched. Raised by the stage's task on
    its worker, it carries what the build says of it: the stage, its log, whether the disk was full."""

    def __init__(self, line: str, stage: str = "", log: str = "", disk_full: bool = False) -> None:
        super().__init__(line, stage, log, disk_full)  # all in args: Dask pickles it back to the build
        self.line, self.stage, self.log, self.disk_full = line, stage, log, disk_full

    def __str__(self) -> str:
        return self.line


class BuildLocked(SeqanimError):
    """Another build holds this tree's build lock."""


class DiskFull(SeqanimError):
    """A write failed for lack of space (or the file size limit); nothing half-written was published."""

    stage_exit_code = 28  # ENOSPC: how a stage's process tells its task that the disk is full
