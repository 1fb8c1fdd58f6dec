"""Shared fixtures. The suite runs the real pipeline once (`seqanim build`, lowest quality) and then
asserts on what it produced: data/, renders/preview/, slides/preview/. Nothing is mocked."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from seqanim import contract
from seqanim.config import experiment_params, load
from seqanim.workspace import current

# The suite renders every scene's real code, layout check included, at preview quality (240p10): a third
# faster than low. Every test module reads this one value.
QUALITY = "preview"


def frame_settings(quality: str = QUALITY) -> dict[str, int]:
    """The pixel size and frame rate manim renders `quality` at (seqanim.render's table over manim's)."""
    from manim.constants import QUALITIES

    from seqanim.render import MANIM_QUALITY

    settings = MANIM_QUALITY[quality]
    base = QUALITIES[settings["quality"]]
    return {key: settings.get(key, base[key]) for key in ("pixel_width", "pixel_height", "frame_rate")}


# A suite started in the background by a shell without job control (`make test &`, nohup) inherits SIGINT
# ignored, and so would every build the tests start: the Ctrl-C tests would then test nothing. A Python
# handler is reset to the default on exec, so the builds get SIGINT as a terminal would send it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def lecture_built() -> Path:
    """Build the whole lecture once per session (a no-op when `make` already built it). Under pytest-xdist
    every worker asks: the first one builds, the others wait for it and find everything up to date."""
    if not os.environ.get("SEQANIM_TEST_SKIP_BUILD"):
        current().state_dir.mkdir(parents=True, exist_ok=True)
        with open(current().state_dir / "tests.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the build's own lock would make a second worker fail, not wait
            subprocess.run(
                [sys.executable, "-m", "seqanim.cli", "build", "--quality", QUALITY], cwd=current().root, check=True
            )
    return current().root


@pytest.fixture(scope="session")
def artifact(lecture_built: Path) -> Callable[[str], contract.Artifact]:
    """Load a data/ artifact, checked against the current lecture.toml."""
    lecture = load()
    return lambda name: contract.load(name, params=experiment_params(lecture, name))


@pytest.fixture(scope="session")
def scene_report(lecture_built: Path) -> Callable[[str], dict[str, Any]]:
    """The render report of a scene: slides, notes, layout violations, duration, resolution."""

    def read(scene: str) -> dict[str, Any]:
        return json.loads((current().renders(QUALITY) / f"{scene}.report.json").read_text())

    return read
