"""Builds stopped half-way (issue #17): Ctrl-C landing inside a render, the build killed alone (SIGKILL) and
what it leaves behind, a full disk, and a build while `seqanim watch` runs. Everything runs for real, on a tiny
lecture of its own (tests/tiny.py), whose scene renders in seconds (the lecture's scenes last their narration:
a minute or more of video each).

One case per behaviour docs/engine.md promises ("What a build survives"); bench/faults.py's campaign kills
builds at random moments of every kind of stage (the deck export included), with both signals, in a cold build
and a rebuild, and fills the disk at several sizes, every `make bench`. Every real build here costs a local
Dask cluster's start, so the tests reuse what an earlier one built: the values `watch` builds are the
uninterrupted builds the kills are compared with (restored from the cache; built anew when a test runs alone).
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from seqanim.lecture import contract
from tests.conftest import QUALITY
from tests.tiny import HEIGHT, timed_lecture
from tests.tree import Tree, framemd5, leftovers, lines, one_error_line, poll, processes_in, with_value, workspaces

INTERRUPTED = "interrupted; finished outputs are kept, the next build resumes"
# Two heights `watch` builds (by hand while it waits, and saved); the kills go back to them.
MANUAL, SAVED = HEIGHT + 2, HEIGHT + 3


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return timed_lecture(tmp_path_factory.mktemp("kills") / "tiny")


def test_build_while_watch_runs(tiny: Tree, tmp_path: Path) -> None:
    """watch holds the lock only while it builds: a build started while it idles runs; that build holds the
    lock when a file is saved, so watch says so once, and builds the change when the other build is done:
    exactly what the saved value feeds (the pulse experiment and its scene, `ran 2`)."""
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
    try:
        poll(lambda: "up to date" in log.read_text(), 120, "watch's first pass")
        stage_log.unlink(missing_ok=True)
        manual = tree.popen("render", "PulseScene", "-j", "1", "--set", f"pulse.height={MANUAL}")
        poll(
            lambda: stage_log.exists() or manual.poll() is not None, 120,
            "the manual build to start its first stage (it then holds the lock)",
        )  # fmt: skip
        assert manual.poll() is None, manual.communicate()  # watch is idle: it holds no lock
        config.write_text(with_value(original, "pulse", "height", SAVED))
        poll(lambda: "another seqanim build is running" in log.read_text(), 120, "watch to find the lock held", log)
        _, manual_err = manual.communicate(timeout=300)
        assert manual.returncode == 0 and "ran 2, restored 0" in manual_err, manual_err
        after_lock = lambda: log.read_text().split("another seqanim build is running", 1)[1]  # noqa: E731
        poll(lambda: "ran 2, restored 0" in after_lock(), 300, "watch to build the change once the lock was free", log)
        assert tree.data_param("pulse", "height") == SAVED
        assert log.read_text().count("another seqanim build is running") == 1  # said once, not at every check
    finally:
        config.write_text(original)
        os.killpg(watch.pid, signal.SIGINT)
        watch.wait(timeout=60)
    restore = tree.run("render", "PulseScene")
    assert restore.returncode == 0, restore.stderr
    assert tree.data_param("pulse", "height") == HEIGHT


# --- a kill that lands inside a render (checked), and the build killed alone ---------------------------


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


@dataclass
class Reference:
    """An uninterrupted build's outputs: their hashes, and the files themselves under `root` (data/ copied,
    renders/ and slides/ hard-linked: outputs are only ever replaced by rename). Videos and reports are read
    only where their bytes differ."""

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
            problems.append(name)
        return problems


def _report(path: Path) -> dict[str, Any]:
    return {k: v for k, v in json.loads(path.read_text()).items() if k != "render_seconds"}


_REFERENCES: dict[tuple[str, ...], tuple[Reference, str]] = {}


def _reference(tree: Tree, args: tuple[str, ...], stage: str) -> Reference:
    """Build `args` uninterrupted (once per module: restored from the cache when an earlier test built it) and
    keep its outputs; then go back to lecture.toml and drop the stage's cache entry of `args`, so that the
    next build of `args` really runs it."""
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


def test_ctrl_c_inside_a_render_resumes_to_the_same_outputs(tiny: Tree) -> None:
    """Ctrl-C (SIGINT to the build's process group, as a terminal sends it) while manim writes the scene's
    animations: exit 130 and one line; the next build renders the scene again and its outputs equal an
    uninterrupted build's. SIGKILL to the whole group: bench/faults.py, and the build killed alone below."""
    tree = tiny
    args = ("render", "PulseScene", "--set", f"pulse.height={MANUAL}")
    stage = f"scene:{QUALITY}:PulseScene"
    reference = _reference(tree, args, stage)
    recorded = _state(tree)[stage]["key"]
    process = _start_inside(tree, args, _partial_movies(tree, "PulseScene"), "manim to write partial movies")
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert _state(tree)[stage]["key"] == recorded, "the render finished before the kill"  # it was running
    assert process.returncode == 130 and lines(stderr)[-1] == INTERRUPTED, stderr
    poll(lambda: processes_in(tree.root) == [], 10, "the build's processes to end")
    resumed = tree.run(*args)
    assert resumed.returncode == 0 and "ran 1, restored 0" in resumed.stderr, resumed.stderr
    assert reference.differences(tree) == []
    assert leftovers(tree.root) == []
    assert tree.run("render", "PulseScene").returncode == 0


# What a killed stage writes beside an output before renaming it in place: a SIGKILL leaves it there.
LEFTOVER = [
    f"slides/{QUALITY}/.pulse.pdf.wt6_5m8d.tmp",  # files.atomic_output (found by bench/faults.py)
    f"renders/{QUALITY}/.PulseScene.mp4.4242.tmp",  # render._copy_atomic
    f"slides/{QUALITY}/.pulse.pptx.abcd.tmp.pptx",
    "data/.pulse.npz.restore-4242",
    f"slides/{QUALITY}/files/.PulseScene.old-4242/a.mp4",
    f"slides/{QUALITY}/.stage-pulse-x1y2/index.html",  # decks/html.py
    ".seqanim/cache/.0123abcd.4242/COMPLETE",  # graph.cache_store
]
NOT_LEFTOVER = ["data/.keep", f"slides/{QUALITY}/.pulse.notes"]  # dot-files of the same folders, not a build's


def test_build_killed_alone_takes_its_stages_with_it(tiny: Tree) -> None:
    """SIGKILL to the build process only (not its group): its stages must die with it, write nothing after,
    and the next build must redo what they were doing, to an uninterrupted build's outputs. SIGKILL runs no
    cleanup: what a killed stage was writing beside an output stays (here, one of each writer's temporary
    files), until the next build that takes the lock removes it; other dot-files of the same folders stay."""
    tree = tiny
    args = ("render", "PulseScene", "--set", f"pulse.height={SAVED}")
    reference = _reference(tree, args, f"scene:{QUALITY}:PulseScene")
    process = _start_inside(tree, args, _partial_movies(tree, "PulseScene"), "manim to write partial movies")
    killed = time.time()
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    poll(lambda: processes_in(tree.root) == [], 10, "the stages to die with the build")
    time.sleep(2)  # what an orphaned stage would publish, it would have published by now
    late = [name for name in tree.outputs() if (tree.root / name).stat().st_mtime > killed]
    assert late == [], f"written after the build was killed: {late}"
    for name in LEFTOVER + NOT_LEFTOVER:
        (tree.root / name).parent.mkdir(parents=True, exist_ok=True)
        (tree.root / name).write_text("x")
    resumed = tree.run(*args)
    assert resumed.returncode == 0 and "ran 1, restored 0" in resumed.stderr, resumed.stderr
    assert [name for name in leftovers(tree.root) if name not in NOT_LEFTOVER] == []
    assert [name for name in LEFTOVER if (tree.root / name).exists()] == []
    assert all((tree.root / name).exists() for name in NOT_LEFTOVER)
    for name in NOT_LEFTOVER:
        (tree.root / name).unlink()
    assert reference.differences(tree) == []
    assert tree.run("render", "PulseScene").returncode == 0


# --- a full disk: one line, nothing published half-written ----------------------------------------------


class SmallDisk:
    """A copy of the module's tiny lecture, with a second scene, whose writes fail for lack of room: on a
    tmpfs of its own when this runs as root (its free space set by `room`), else under `ulimit -f` (files over
    a size limit fail: EFBIG)."""

    SIZE_MB = 64

    def __init__(self, folder: Path, tiny: Tree) -> None:
        self.mount = folder
        folder.mkdir()
        made = (
            os.geteuid() == 0
            and subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={self.SIZE_MB}m", "tmpfs", str(folder)], capture_output=True
            ).returncode
            == 0
        )
        self.tmpfs = bool(made)
        # Its files as built (copy2 keeps their times: the copy is up to date), but for what no build keeps.
        scratch = lambda directory, names: {"dask", "stage", "logs"} if Path(directory).name == ".seqanim" else ()  # noqa: E731
        shutil.copytree(tiny.root, folder / "lecture", symlinks=True, ignore=scratch)
        with open(folder / "lecture" / "scenes" / "pulse.py", "a") as scenes:
            scenes.write(PULSE_AGAIN)
        self.tree = Tree(folder / "lecture")
        self.limit: int | None = None

    def room(self, kilobytes: int | None) -> None:
        """Leave `kilobytes` free (None: plenty)."""
        if self.tmpfs:
            used = (shutil.disk_usage(self.mount).used + 1023) // 1024
            size = self.SIZE_MB * 1024 if kilobytes is None else used + kilobytes
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


@pytest.fixture
def small_disk(tiny: Tree, tmp_path: Path) -> Iterator[SmallDisk]:
    disk = SmallDisk(tmp_path / "mount", tiny)
    try:
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


# Room left for a build of two renders, one at a time, after the experiment (a few hundred bytes): a render
# writes hundreds of KB, so the first runs out of room and stops the build; the other does not start and add a
# line. One representative of what docs/engine.md promises on a full disk; bench/faults.py fills the disk at
# several sizes in the experiment, the renders and the deck export of a rebuild.
ROOM_KB = 100


def test_disk_full_stops_with_one_line_and_nothing_half_written(small_disk: SmallDisk) -> None:
    command = ("render", "PulseScene", "PulseAgain", "--set", f"pulse.height={HEIGHT + 6}")
    before = small_disk.tree.outputs()
    small_disk.room(ROOM_KB)
    try:
        result = small_disk.run(*command, "-j", "1")
    finally:
        small_disk.room(None)
    line = one_error_line(result)
    assert "no space left on the disk holding " in line or "file size limit reached" in line, line
    root = small_disk.tree.root
    after = small_disk.tree.outputs()
    assert set(after) >= set(before), "an output went missing"
    assert all(_whole(root / name) for name in after if after[name] != before.get(name))
    assert leftovers(root) == []
    resumed = small_disk.run(*command)
    assert resumed.returncode == 0, resumed.stderr
    assert small_disk.tree.data_param("pulse", "height") == HEIGHT + 6
    assert leftovers(root) == []
