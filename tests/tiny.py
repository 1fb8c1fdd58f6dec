"""A tiny lecture of its own, in a temporary folder: the `pulse` experiment (a pulse of a given height and
width) and the scene a test module gives, built with this repository's engine in child processes at the
suite's quality. tests/test_publish.py (a change, a recording, bad input, then a rebuild) and
tests/test_variants.py ("what if?" values) build theirs; `timed_lecture` is the one whose render tests/test_kills.py
kills and locks. None of them touches the lecture or its copies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from seqanim.workspace import REPOSITORY, WORKSPACE_ENV
from tests.conftest import QUALITY
from tests.tree import Tree

PULSE = '''\
"""pulse: a tiny experiment for the tests that build a lecture of their own."""

from __future__ import annotations

from typing import Any

import numpy as np

from seqanim import Experiment, Field, Params


class Parameters(Params):
    height: float = Field(0.5, gt=0, le=10, description="height of the pulse")
    width: int = Field(3, ge=1, le=5000, description="steps the pulse lasts")  # 2,000: a 16 KB npz


EXPERIMENT = Experiment(Parameters, seconds=0.1)


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    values = np.array([0.0] + [params.height] * params.width + [0.0])
    return {"values": values}, {"height": params.height, "width": params.width}
'''


class Tiny:
    """The tiny lecture at `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def env(self, first_on_path: Path | None = None) -> dict[str, str]:
        """Its own precompute/ and scenes/, then this repository's engine (`first_on_path` before both)."""
        path = ([str(first_on_path)] if first_on_path else []) + [str(self.root), str(REPOSITORY)]
        return {**os.environ, WORKSPACE_ENV: str(self.root), "PYTHONPATH": os.pathsep.join(path)}

    def run(self, *args: str, first_on_path: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "seqanim.cli", *args], cwd=self.root, env=self.env(first_on_path),
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip

    def renders(self) -> Path:
        return self.root / "renders" / QUALITY

    def slides(self) -> Path:
        return self.root / "slides" / QUALITY


def make_tiny(root: Path, scene: str, toml: str) -> Tiny:
    """A tiny lecture at `root`: the pulse experiment, `scene` as scenes/pulse.py, `toml` as its lecture.toml
    (the suite's quality first), and reveal.js from this repository. Nothing is built yet."""
    (root / "precompute").mkdir(parents=True)
    (root / "scenes").mkdir()
    (root / "precompute" / "__init__.py").write_text("")
    (root / "precompute" / "pulse.py").write_text(PULSE)
    (root / "scenes" / "__init__.py").write_text("")
    (root / "scenes" / "pulse.py").write_text(scene)
    (root / "lecture.toml").write_text(f'[render]\nquality = "{QUALITY}"\n\n{toml}')
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(REPOSITORY / name, root / name)
    (root / "node_modules").symlink_to(REPOSITORY / "node_modules")
    return Tiny(root)


HEIGHT = 0.5  # the timed lecture's pulse height (its lecture.toml says it); tests set others

# The timed lecture's scene: a dozen short animations (a dozen partial movies) on seven slides, about 8 s of
# video, so a kill can land between its first partial movie and its end, in a render of seconds (the
# lecture's scenes last their narration: a minute or more of video each).
PULSE_SCENE = '''\
"""A tiny part for the tests that kill, lock or damage a render."""

from __future__ import annotations

from manim import UP, FadeIn, Indicate

from seqanim import LectureSlide, Part
from seqanim.kit.bars import Bars

PART = Part("Pulse", order=1)


class PulseScene(LectureSlide):
    data = ("pulse",)

    def construct(self) -> None:
        art = self.load("pulse")
        values = art["values"]
        self.next_slide(notes="A pulse.")
        self.title("A pulse")
        bars = Bars(values, [f"t{i}" for i in range(len(values))], max_value=10, height=2.5, decimals=2)
        for step in range(6):
            self.next_slide(notes=f"Step {step}: its height is {art.metrics['height']:.2f}.")
            self.play(FadeIn(bars) if step == 0 else Indicate(bars), run_time=0.6)
            self.play(bars.animate.shift(0.1 * UP * (-1) ** step), run_time=0.6)
'''


def timed_lecture(root: Path) -> Tree:
    """The tiny lecture with PULSE_SCENE (no voice: each slide held for its reading time), its scene rendered,
    as a Tree: for tests/test_kills.py and tests/test_faults.py, whose renders are killed, locked or damaged."""
    toml = f'[publish]\nvoice = "none"\n\n[pulse]\nheight = {HEIGHT}\n'
    tree = Tree(make_tiny(root, PULSE_SCENE, toml).root)
    built = tree.run("render", "PulseScene")
    assert built.returncode == 0, built.stderr[-3000:]
    return tree
