"""Builds stopped half-way (issue #17): SIGKILL and Ctrl-C landing inside a render and a deck export, the
build killed alone, what a killed build leaves behind, a full disk, and a build while `seqanim watch` runs.
Everything runs for real: the deck export and the leftovers on an isolated copy of the built lecture
(tests/tree.py); the renders and `watch` on a tiny lecture of their own (tests/tiny.py), whose scene renders
in seconds (the lecture's scenes last their narration: a minute or more of video each).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from seqanim import contract
from seqanim.config import load
from tests.conftest import QUALITY
from tests.tiny import HEIGHT, PULSE_SCENE, make_tiny, timed_lecture
from tests.tree import (
    Tree,
    framemd5,
    leftovers,
    lines,
    make_tree,
    one_error_line,
    poll,
    processes_in,
    with_value,
    workspaces,
)  # fmt: skip

STEPS = load().linear_rnn.steps  # other values are offsets from it: whatever the lecture says, they differ
INTERRUPTED = "interrupted; finished outputs are kept, the next build resumes"


@pytest.fixture(scope="module")
def tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return make_tree(tmp_path_factory.mktemp("kills") / "lecture")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return timed_lecture(tmp_path_factory.mktemp("kills") / "tiny")


def test_build_while_watch_runs(tiny: Tree, tmp_path: Path) -> None:
    """watch holds the lock only while it builds: a build runs while it idles; a build that holds the lock
    when a file is saved makes watch say so once, and build the change when the other build is done: exactly
    what the saved value feeds (the pulse experiment and its scene, `ran 2`)."""
    tree = tiny
    log = tmp_path / "watch.log"
    config = tree.root / "lecture.toml"
    original = config.read_text()
    stage_log = tree.root / ".seqanim" / "logs" / "experiment-pulse.log"
    with open(log, "w") as sink:
        watch = subprocess.Popen(
            [sys.executable, "-m", "seqanim.cli", "watch", "--interval", "0.3"],
            cwd=tree.root,
            env=tree.env(),
            stdout=sink,
            stderr=sink,
            start_new_session=True,
        )
    # three other heights: run by hand (idle, locked) and saved
    idle_value, manual_value, saved_value = HEIGHT + 1, HEIGHT + 2, HEIGHT + 3
    try:
        poll(lambda: "up to date" in log.read_text(), 120, "watch's first pass")
        idle = tree.run("precompute", "pulse", "--set", f"pulse.height={idle_value}")
        assert idle.returncode == 0, idle.stderr  # watch is idle: it holds no lock
        assert tree.data_param("pulse", "height") == idle_value

        stage_log.unlink(missing_ok=True)
        manual = tree.popen("render", "PulseScene", "-j", "1", "--set", f"pulse.height={manual_value}")
        poll(stage_log.exists, 120, "the manual build to start its first stage (it then holds the lock)")
        config.write_text(with_value(original, "pulse", "height", saved_value))
        poll(lambda: "another seqanim build is running" in log.read_text(), 120, "watch to find the lock held", log)
        _, manual_err = manual.communicate(timeout=300)
        assert manual.returncode == 0 and "ran 2, restored 0" in manual_err, manual_err
        after_lock = lambda: log.read_text().split("another seqanim build is running", 1)[1]  # noqa: E731
        poll(lambda: "ran 2, restored 0" in after_lock(), 300, "watch to build the change once the lock was free", log)
        assert tree.data_param("pulse", "height") == saved_value
        assert log.read_text().count("another seqanim build is running") == 1  # said once, not at every check
    finally:
        config.write_text(original)
        os.killpg(watch.pid, signal.SIGINT)
        watch.wait(timeout=60)
    restore = tree.run("render", "PulseScene")
    assert restore.returncode == 0, restore.stderr
    assert tree.data_param("pulse", "height") == HEIGHT


def test_leftovers_of_a_killed_build_are_removed_by_the_next(tree: Tree) -> None:
    """SIGKILL runs no cleanup: what a killed stage was writing beside an output stays, until the next build
    that takes the lock removes it. Files of the same folders that are not such leftovers stay."""
    leftover = [
        f"slides/{QUALITY}/.rnn.pdf.wt6_5m8d.tmp",  # files.atomic_output (found by bench/faults.py)
        f"renders/{QUALITY}/.EchoOfAPulse.mp4.4242.tmp",  # render._copy_atomic
        f"slides/{QUALITY}/.rnn.pptx.abcd.tmp.pptx",
        "data/.linear_rnn.npz.restore-4242",
        f"slides/{QUALITY}/files/.EchoOfAPulse.old-4242/a.mp4",
        f"slides/{QUALITY}/.stage-rnn-x1y2/index.html",  # decks/html.py
        ".seqanim/cache/.0123abcd.4242/COMPLETE",  # graph.cache_store
    ]
    kept = ["data/.keep", f"slides/{QUALITY}/.rnn.notes"]
    for name in leftover + kept:
        (tree.root / name).parent.mkdir(parents=True, exist_ok=True)
        (tree.root / name).write_text("x")
    result = tree.run("precompute", "linear_rnn", "--set", f"linear_rnn.steps={STEPS + 4}")
    assert result.returncode == 0, result.stderr
    assert [name for name in leftovers(tree.root) if name not in kept] == []
    assert [name for name in leftover if (tree.root / name).exists()] == []
    assert all((tree.root / name).exists() for name in kept)
    for name in kept:
        (tree.root / name).unlink()
    assert tree.run("precompute", "linear_rnn").returncode == 0


# --- kills that land inside a render or a deck export (checked), and the build killed alone -------------


def _state(tree: Tree) -> dict:
    return json.loads((tree.root / ".seqanim" / "state.json").read_text())


def _start_inside(tree: Tree, args: tuple[str, ...], inside: Callable[[], bool], what: str) -> subprocess.Popen[str]:
    """Start a build and return once `inside()` holds while it still runs."""
    process = tree.popen(*args)
    poll(lambda: inside() or process.poll() is not None, 300, what)
    assert process.poll() is None, f"the build ended before {what}: {process.communicate()[1]}"
    return process


def _partial_movies(tree: Tree, scene: str) -> Callable[[], bool]:
    """manim is writing the scene's animations (its partial movies, in the render's staging folder)."""
    pattern = f".seqanim/stage/{scene}-{QUALITY}-*/media/videos/*/*/*/*.mp4"
    return lambda: any(any(workspace.glob(pattern)) for workspace in workspaces(tree.root))


def _exporting(tree: Tree, deck: str) -> Callable[[], bool]:
    """The deck's export is writing: a temporary file or folder of it beside its outputs."""
    return lambda: any(
        deck in path.name
        for workspace in workspaces(tree.root)
        for folder in (f"slides/{QUALITY}", f"renders/{QUALITY}")
        for path in (workspace / folder).glob(".*")
    )


@dataclass
class Reference:
    """An uninterrupted build's outputs: their hashes, and the files themselves under `root` (data/ copied,
    renders/ and slides/ hard-linked: outputs are only ever replaced by rename). Videos, reports and PPTX
    files are decoded only where their bytes differ, never all of them (the lecture holds an hour of video)."""

    root: Path
    hashes: dict[str, str]

    def differences(self, tree: Tree) -> list[str]:
        got, problems = tree.outputs(), []
        for name, digest in self.hashes.items():
            if got.get(name) == digest:
                continue
            if name not in got:
                problems.append(f"{name} missing")
                continue
            mine, built = tree.root / name, self.root / name
            if name.endswith(".mp4") and framemd5(mine) == framemd5(built):
                continue
            if name.endswith(".report.json") and _report(mine) == _report(built):
                continue  # a scene's report carries its render time
            if name.endswith(".pptx") and _zip_contents(mine) == _zip_contents(built):
                continue  # the same members, byte for byte; only the zip's timestamps and core.xml's date differ
            problems.append(name)
        return problems


def _report(path: Path) -> dict[str, Any]:
    return {k: v for k, v in json.loads(path.read_text()).items() if k != "render_seconds"}


def _zip_contents(path: Path) -> dict[str, int]:
    """A zip's members and their CRCs, but for docProps/core.xml (it carries the time of writing)."""
    with zipfile.ZipFile(path) as archive:
        return {info.filename: info.CRC for info in archive.infolist() if info.filename != "docProps/core.xml"}


_REFERENCES: dict[tuple[str, ...], tuple[Reference, str]] = {}


def _reference(tree: Tree, args: tuple[str, ...], stage: str) -> Reference:
    """Build `args` uninterrupted (once per module) and keep its outputs; then go back to lecture.toml and
    drop the stage's cache entry of `args`, so that the next build of `args` really runs it."""
    if args not in _REFERENCES:
        built = tree.run(*args)
        assert built.returncode == 0, built.stderr
        kept = tree.root.parent / f"reference-{len(_REFERENCES)}"
        shutil.copytree(tree.root / "data", kept / "data")
        for folder in ("renders", "slides"):
            shutil.copytree(tree.root / folder, kept / folder, copy_function=os.link, symlinks=True)
        _REFERENCES[args] = (Reference(kept, tree.outputs()), tree.cache_entry(stage).name)
    reference, key = _REFERENCES[args]
    assert tree.run(args[0], args[1]).returncode == 0
    shutil.rmtree(tree.root / ".seqanim" / "cache" / key)
    return reference


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_kill_inside_a_render_resumes_to_the_same_outputs(tiny: Tree, sig: signal.Signals) -> None:
    tree = tiny
    args = ("render", "PulseScene", "--set", f"pulse.height={HEIGHT + 4}")
    stage = f"scene:{QUALITY}:PulseScene"
    reference = _reference(tree, args, stage)
    recorded = _state(tree)[stage]["key"]
    process = _start_inside(tree, args, _partial_movies(tree, "PulseScene"), "manim to write partial movies")
    os.killpg(process.pid, sig)
    _, stderr = process.communicate(timeout=60)
    assert _state(tree)[stage]["key"] == recorded, "the render finished before the kill"  # it was running
    if sig == signal.SIGINT:
        assert process.returncode == 130 and lines(stderr)[-1] == INTERRUPTED, stderr
    poll(lambda: processes_in(tree.root) == [], 10, "the build's processes to end")
    resumed = tree.run(*args)
    assert resumed.returncode == 0 and "ran 1, restored 0" in resumed.stderr, resumed.stderr
    assert reference.differences(tree) == []
    assert leftovers(tree.root) == []
    assert tree.run("render", "PulseScene").returncode == 0


def test_kill_inside_a_deck_export_resumes_to_the_same_outputs(tiny: Tree) -> None:
    tree, deck = tiny, "pulse"
    args = ("slides", deck, "--set", "decks.handout_notes=false")  # the tiny lecture's is the default, true
    stage = f"deck:{QUALITY}:{deck}"
    reference = _reference(tree, args, stage)
    recorded = _state(tree)[stage]["key"]
    process = _start_inside(tree, args, _exporting(tree, deck), "the export to write its first file")
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    assert _state(tree)[stage]["key"] == recorded, "the export finished before the kill"
    poll(lambda: processes_in(tree.root) == [], 10, "the build's processes to end")
    resumed = tree.run(*args)
    assert resumed.returncode == 0 and "ran 1, restored 0" in resumed.stderr, resumed.stderr
    assert reference.differences(tree) == []
    assert leftovers(tree.root) == []
    assert tree.run("slides", deck).returncode == 0


def test_build_killed_alone_takes_its_stages_with_it(tiny: Tree) -> None:
    """SIGKILL to the build process only (not its group): its stages must die with it, write nothing after,
    and the next build must redo what they were doing."""
    tree = tiny
    args = ("render", "PulseScene", "--set", f"pulse.height={HEIGHT + 5}")
    process = _start_inside(tree, args, _partial_movies(tree, "PulseScene"), "manim to write partial movies")
    killed = time.time()
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    poll(lambda: processes_in(tree.root) == [], 10, "the stages to die with the build")
    time.sleep(2)  # what an orphaned stage would publish, it would have published by now
    late = [name for name in tree.outputs() if (tree.root / name).stat().st_mtime > killed]
    assert late == [], f"written after the build was killed: {late}"
    resumed = tree.run(*args)
    assert resumed.returncode == 0 and "ran 1" in resumed.stderr, resumed.stderr
    assert leftovers(tree.root) == []
    assert tree.run("render", "PulseScene").returncode == 0


# --- a full disk: one line, nothing published half-written ----------------------------------------------


class SmallDisk:
    """A tiny lecture (tests/tiny.py, with a second scene) whose writes fail for lack of room: on a tmpfs of
    its own when this runs as root (its free space set per test), else under `ulimit -f` (files over a size
    limit fail: EFBIG)."""

    def __init__(self, folder: Path) -> None:
        self.mount = folder
        folder.mkdir()
        made = (
            os.geteuid() == 0
            and subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(folder)], capture_output=True
            ).returncode
            == 0
        )
        self.tmpfs = bool(made)
        toml = f'[publish]\nvoice = "none"\n\n[pulse]\nheight = {HEIGHT}\n'
        self.tree = Tree(make_tiny(folder / "lecture", TWO_SCENES, toml).root)
        self.limit: int | None = None

    def room(self, kilobytes: int | None) -> None:
        """Leave `kilobytes` free (None: plenty)."""
        if self.tmpfs:
            size = 64 * 1024 if kilobytes is None else (shutil.disk_usage(self.mount).used + 1023) // 1024 + kilobytes
            subprocess.run(["mount", "-o", f"remount,size={size}k", str(self.mount)], check=True)
        else:
            self.limit = None if kilobytes is None else kilobytes * 1024

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        limit = self.limit

        def limited() -> None:
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        return subprocess.run(
            [sys.executable, "-m", "seqanim.cli", *args],
            cwd=self.tree.root,
            env=self.tree.env(),
            capture_output=True,
            text=True,
            timeout=600,
            preexec_fn=limited,  # noqa: PLW1509
        )

    def close(self) -> None:
        if self.tmpfs:
            subprocess.run(["umount", "-l", str(self.mount)], capture_output=True)


# A second scene beside the timed one: a build of two renders, one at a time.
PULSE_AGAIN = '''

class PulseAgain(PulseScene):
    """The pulse again: the render a build stopped by a full disk must not start."""

    def construct(self) -> None:
        super().construct()
'''
TWO_SCENES = PULSE_SCENE + PULSE_AGAIN


@pytest.fixture(scope="module")
def small_disk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SmallDisk]:
    disk = SmallDisk(tmp_path_factory.mktemp("disk") / "mount")
    try:
        built = disk.run("render", "PulseScene", "PulseAgain")  # a cold build: the experiment and both scenes
        assert built.returncode == 0, built.stderr
        yield disk
    finally:
        disk.close()


def _whole(path: Path) -> bool:
    """A complete file of its kind (read back with the tools that read it)."""
    if path.suffix == ".json":
        json.loads(path.read_text())
    elif path.suffix == ".npz":
        contract.load(path.stem, directory=path.parent)
    elif path.suffix == ".mp4":
        assert not framemd5(path).startswith("undecodable"), path
    elif path.suffix == ".png":
        from PIL import Image

        Image.open(path).verify()
    return True


# Room left, per stage that must run out of it, and the value that makes it run: the experiment's npz takes
# 16 KB with a pulse 2,000 steps wide; a render writes hundreds of KB. "two renders" (one at a time): the first
# runs out of room and stops the build; the other does not start and add a line. "a render's copies": a render
# starts by copying manim's text SVGs into its staging folder (seqanim.render); with 24 KB free, the first of
# them fit and a later one does not (measured: at 16 KB and below an earlier write fails).
ROOM = {
    "experiment": (8, ("precompute", "pulse"), "pulse.width=2000"),
    "two renders": (100, ("render", "PulseScene", "PulseAgain"), f"pulse.height={HEIGHT + 6}"),
    "a render's copies": (24, ("render", "PulseScene"), 'theme.muted="#8a8f90"'),
}


@pytest.mark.parametrize("where", list(ROOM))
def test_disk_full_stops_with_one_line_and_nothing_half_written(small_disk: SmallDisk, where: str) -> None:
    kilobytes, command, value = ROOM[where]
    before = small_disk.tree.outputs()
    small_disk.room(kilobytes)
    try:
        result = small_disk.run(*command, "-j", "1", "--set", value)
    finally:
        small_disk.room(None)
    line = one_error_line(result)
    assert "no space left on the disk holding " in line or "file size limit reached" in line, line
    if where == "a render's copies" and small_disk.tmpfs:  # under `ulimit -f` each small SVG fits on its own
        assert "/media/texts " in line, line
    root = small_disk.tree.root
    after = small_disk.tree.outputs()
    assert set(after) >= set(before), "an output went missing"
    assert all(_whole(root / name) for name in after if after[name] != before.get(name))
    assert leftovers(root) == []
    if where == "experiment":
        assert after["data/pulse.npz"] == before["data/pulse.npz"]  # the new one did not fit
    resumed = small_disk.run(*command, "--set", value)
    assert resumed.returncode == 0, resumed.stderr
    if value.startswith("pulse."):
        key, number = value.removeprefix("pulse.").split("=")
        assert float(small_disk.tree.data_param("pulse", key)) == float(number)
    assert leftovers(root) == []
