"""The workspace: the folder a lecture is built in, and every path the build reads or writes there.

A workspace holds the lecturer's files (`lecture.toml`, `precompute/`, `scenes/`) and the generated ones
(`data/`, `renders/`, `slides/`, `.seqanim/`). This repository is one; a test or a second course is
another folder with the same layout. No other module spells an output path.

The workspace is the folder named by `SEQANIM_WORKSPACE`, else the nearest folder upwards from the
current directory that holds a `lecture.toml`, else this repository.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ENGINE = Path(__file__).resolve().parent  # the seqanim package
REPOSITORY = ENGINE.parent
WORKSPACE_ENV = "SEQANIM_WORKSPACE"


@dataclass(frozen=True)
class Workspace:
    root: Path

    # --- the lecturer's files
    @property
    def config(self) -> Path:
        return self.root / "lecture.toml"

    @property
    def precompute(self) -> Path:
        return self.root / "precompute"

    @property
    def scenes(self) -> Path:
        return self.root / "scenes"

    @property
    def reveal(self) -> Path:
        """reveal.js from npm (`make` installs it beside package.json)."""
        local = self.root / "node_modules" / "reveal.js"
        return local if local.exists() else REPOSITORY / "node_modules" / "reveal.js"

    # --- generated output
    @property
    def data(self) -> Path:
        return self.root / "data"

    def renders(self, quality: str) -> Path:
        return self.root / "renders" / quality

    def slides(self, quality: str) -> Path:
        return self.root / "slides" / quality

    @property
    def state_dir(self) -> Path:
        """Build state, cache, logs and staging: `.seqanim/`."""
        return self.root / ".seqanim"

    @property
    def state(self) -> Path:
        return self.state_dir / "state.json"

    @property
    def cache(self) -> Path:
        return self.state_dir / "cache"

    @property
    def logs(self) -> Path:
        return self.state_dir / "logs"

    @property
    def staging(self) -> Path:
        """Half-finished outputs; emptied when a build starts."""
        return self.state_dir / "stage"

    @property
    def variants(self) -> Path:
        """The [variants] values' outputs: one folder per value, laid out as the workspace's data/, renders/,
        slides/, with manim's media of its own."""
        return self.state_dir / "variants"

    @property
    def media(self) -> Path:
        """manim's own caches: LaTeX and text SVGs shared by every scene (`Tex/`, `texts/`), partial movies per
        quality and scene."""
        return self.state_dir / "media"

    @property
    def generated(self) -> tuple[Path, ...]:
        """The folders `seqanim clean` empties (each keeps its README)."""
        return (self.data, self.root / "renders", self.root / "slides")

    def label(self, path: Path) -> str:
        """`path` as the user would type it: relative to the workspace when inside it."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def importable(self) -> None:
        """Put the workspace first on sys.path, so `precompute.*` and `scenes.*` are its own modules."""
        root = str(self.root)
        if not sys.path or sys.path[0] != root:
            sys.path.insert(0, root)


def find_root() -> Path:
    """The workspace the current directory lies in (the nearest folder upwards that holds a `lecture.toml`),
    whatever `SEQANIM_WORKSPACE` names; else this repository."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "lecture.toml").is_file() and (folder / "precompute").is_dir():
            return folder
    return REPOSITORY


@cache
def current() -> Workspace:
    named = os.environ.get(WORKSPACE_ENV)
    workspace = Workspace(Path(named).resolve() if named else find_root())
    workspace.importable()
    return workspace
