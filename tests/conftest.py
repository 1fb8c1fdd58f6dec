"""Shared fixtures, and the suite's own workspace.

The suite never builds in the lecturer's checkout. When it starts, it copies the lecturer's files
(lecture.toml, precompute/, scenes/, narration/) into a folder of its own and works there: in every pytest
process, `seqanim.workspace.current()` is that folder before anything reads a path, and once the tests are
collected it is the current directory, so every build, copy and read of data/, renders/, slides/ and
.seqanim/ happens there. `SEQANIM_WORKSPACE` is not passed on: a command a test starts in a copy of its own
(cwd=) finds that copy, as a lecturer's command finds the folder it runs in.

The suite runs the real pipeline once in its workspace and asserts on what it produced; nothing is mocked.
It builds the whole lecture at the `check` quality (every experiment trained, every scene's code run with its
words timed and its layout checked, no frame drawn, no audio made), and renders, narrates and publishes one deck for
real at preview quality: `sample`, two scenes of two parts, which the suite adds to its lecture.toml. When
the session ends it checks that the checkout's generated folders hold what they held when it started, and
fails the run, naming the files, if they do not.

    SEQANIM_TEST_WORKSPACE=DIR   run in DIR as it is, and keep it (a workspace of a test that runs the suite's
                                 generated tests, or a suite workspace kept for the next run)
    SEQANIM_TEST_SKIP_BUILD=1    trust that workspace to be built
    SEQANIM_TEST_KEEP=1          keep the temporary workspace and print where it is
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from seqanim.lecture import contract
from seqanim.lecture.config import experiment_params, load
from seqanim.workspace import WORKSPACE_ENV, current, find_root

# The quality the suite builds the whole lecture at (no frame drawn), and the one it renders, narrates and
# publishes its sample deck at (240p10, the cheapest that draws). Every test module reads these values.
CHECK = "check"
QUALITY = "preview"
SAMPLE = "sample"
SAMPLE_SCENES = ("EchoOfAPulse", "QueryKeyValue")  # a loop slide, formulas, two parts: a title and two dividers
SAMPLE_DECK = f'\n[decks.{SAMPLE}]\ntitle = "A sample of the lecture"\nscenes = {json.dumps(list(SAMPLE_SCENES))}\n'


def frame_settings(quality: str = QUALITY) -> dict[str, int]:
    """The pixel size and frame rate manim renders `quality` at (seqanim.stages.render's table over manim's)."""
    from manim.constants import QUALITIES

    from seqanim.stages.render import MANIM_QUALITY

    settings = MANIM_QUALITY[quality]
    base = QUALITIES[settings["quality"]]
    return {key: settings.get(key, base[key]) for key in ("pixel_width", "pixel_height", "frame_rate")}


# The lecturer's files the suite copies; the generated folders it must leave as they were.
LECTURER_FILES = ("lecture.toml", "precompute", "scenes", "narration", "pyproject.toml", "package.json",
                  "package-lock.json")  # fmt: skip
GENERATED = ("data", "renders", "slides", ".seqanim")
TEST_WORKSPACE_ENV = "SEQANIM_TEST_WORKSPACE"
SUITE_ENV = "SEQANIM_SUITE_WORKSPACE"  # where the controlling process put it, for xdist's workers


def lasts_its_words(report: dict[str, Any]) -> bool:
    """A scene's video is rendered at the pace of its narration: it lasts at least its beats' words, and at most
    the published cut's 15 % more (the pauses between beats, the held frame that ends each slide) and a second."""
    speech = sum(beat["speech"] for beats in report["beats"] for beat in beats)
    return speech > 5 and speech <= report["duration"] <= 1.15 * speech + 1


def suite_workspace(source: Path, target: Path) -> Path:
    """`target` made a workspace of the lecture in `source`: its lecturer's files copied (again, so that an
    edited scene is the one tested) with the sample deck added to its lecture.toml, reveal.js linked; its own
    data/, renders/, slides/ (their READMEs only) and .seqanim/ start empty."""
    target.mkdir(parents=True, exist_ok=True)
    for name in LECTURER_FILES:
        origin, copy = source / name, target / name
        if origin.is_dir():
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(origin, copy, ignore=shutil.ignore_patterns("__pycache__"))
        elif origin.exists():
            shutil.copy2(origin, copy)
    with open(target / "lecture.toml", "a") as toml:
        toml.write(SAMPLE_DECK)
    for folder in GENERATED[:3]:  # the README each generated folder carries in git, as a clone has it
        readme = source / folder / "README.md"
        if readme.is_file():
            (target / folder).mkdir(exist_ok=True)
            shutil.copy2(readme, target / folder / "README.md")
    modules = target / "node_modules"
    if (source / "node_modules").exists() and not modules.exists():
        modules.symlink_to((source / "node_modules").resolve())
    return target


def snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every file of `root`'s generated folders with its size, modification time and inode: a file written,
    replaced, added or removed changes it (not its change time, which a hard link made elsewhere moves). Cheap
    enough for a built lecture (no content read)."""
    found = {}
    for folder in GENERATED:
        for path in (root / folder).rglob("*"):
            if not path.is_dir():
                stat = path.lstat()
                found[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return found


def changed(before: dict[str, tuple[int, int, int]], after: dict[str, tuple[int, int, int]]) -> list[str]:
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


def pytest_configure(config: pytest.Config) -> None:
    """The suite's workspace: a copy of the lecture in `SEQANIM_WORKSPACE` or of the one the current directory
    lies in, made by the controlling process; every process (xdist's workers too) works in it."""
    if hasattr(config, "workerinput"):
        _work_in(Path(os.environ[SUITE_ENV]))
        return
    named = os.environ.pop(WORKSPACE_ENV, None)
    lecture = Path(named).resolve() if named else find_root()
    if os.environ.get(TEST_WORKSPACE_ENV):
        workspace = Path(os.environ[TEST_WORKSPACE_ENV]).resolve()
        if not (workspace / "lecture.toml").exists():
            suite_workspace(lecture, workspace)
    else:
        folder = Path(tempfile.mkdtemp(prefix="seqanim-suite-"))
        workspace = suite_workspace(lecture, folder / "lecture")
        config.stash[_TEMPORARY] = folder
    os.environ[SUITE_ENV] = str(workspace)
    _work_in(workspace)
    if workspace != lecture:
        config.stash[_CHECKOUT] = (lecture, snapshot(lecture))


def _work_in(workspace: Path) -> None:
    """This process's workspace is `workspace` (its children's is the folder they run in)."""
    os.environ[WORKSPACE_ENV] = str(workspace)
    current.cache_clear()
    current()
    del os.environ[WORKSPACE_ENV]


# The test files that take longest, slowest first (worker-seconds per file in a run's --durations: 94 to 19 s).
# `make test` gives each worker a whole file at a time in this order (--no-loadscope-reorder): xdist's own order,
# the files with the most tests first, put these last, and the slowest ran alone on one core for up to a minute
# and a half at the end while the other core had nothing left to do.
SLOWEST_FILES = ("test_publish", "test_dask", "test_check", "test_precompute_attention", "test_kills",
                 "test_authoring", "test_build", "test_variants", "test_faults", "test_translations", "test_decks",
                 "test_present")  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slowest files first, the quick ones after them to fill the end; each file's tests in their order."""
    rank = {name: place for place, name in enumerate(SLOWEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))


def pytest_collection_finish(session: pytest.Session) -> None:
    """After collection (which reads the command line's paths from where pytest was started): work in the
    suite's folder, so a command a test starts without a folder of its own runs there too."""
    os.chdir(os.environ[SUITE_ENV])


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when the checkout's generated folders changed while the suite ran."""
    config = session.config
    if _CHECKOUT not in config.stash:
        return
    checkout, before = config.stash[_CHECKOUT]
    touched = changed(before, snapshot(checkout))
    if touched:
        listed = ", ".join(touched[:10]) + (f" and {len(touched) - 10} more" if len(touched) > 10 else "")
        print(f"\nerror: the suite changed the checkout's generated files: {listed}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_TEMPORARY, None)
    if folder is None:
        return
    if os.environ.get("SEQANIM_TEST_KEEP"):
        print(f"\nthe suite's workspace is kept in {folder / 'lecture'}", file=sys.stderr)
    else:
        shutil.rmtree(folder, ignore_errors=True)


_TEMPORARY = pytest.StashKey[Path]()
_CHECKOUT = pytest.StashKey[tuple[Path, dict[str, tuple[int, int, int]]]]()


# A suite started in the background by a shell without job control (`make test &`, nohup) inherits SIGINT
# ignored, and so would every build the tests start: the Ctrl-C tests would then test nothing. A Python
# handler is reset to the default on exec, so the builds get SIGINT as a terminal would send it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def lecture_built() -> Path:
    """Build the lecture once per session: everything at the check quality, then the sample deck at preview.
    Under pytest-xdist every worker asks: the first one builds, the others wait for it and find everything up
    to date."""
    if not os.environ.get("SEQANIM_TEST_SKIP_BUILD"):
        current().state_dir.mkdir(parents=True, exist_ok=True)
        with open(current().state_dir / "tests.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the build's own lock would make a second worker fail, not wait
            for command in (("build", "--quality", CHECK), ("slides", SAMPLE, "--quality", QUALITY)):
                subprocess.run([sys.executable, "-m", "seqanim.cli", *command], cwd=current().root, check=True)
    return current().root


@pytest.fixture(scope="session")
def artifact(lecture_built: Path) -> Callable[[str], contract.Artifact]:
    """Load a data/ artifact, checked against the current lecture.toml."""
    lecture = load()
    return lambda name: contract.load(name, params=experiment_params(lecture, name))


@pytest.fixture(scope="session")
def scene_report(lecture_built: Path) -> Callable[[str], dict[str, Any]]:
    """The report of a scene's check: slides, notes, narration, beats, layout violations, duration, resolution."""

    def read(scene: str) -> dict[str, Any]:
        return json.loads((current().renders(CHECK) / f"{scene}.report.json").read_text())

    return read
