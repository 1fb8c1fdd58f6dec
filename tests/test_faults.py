"""Faults the build survives (issue #17): two builds at once, damaged outputs, state and cache, cleaning,
cache eviction and bad input. Everything runs for real on an isolated copy of the built lecture.

Damage is always written to a new file renamed over the output, never in place: the copy's renders/ and
slides/ are hard links to the real tree's files (tests/tree.py), and an in-place write would reach them.
The only in-place writes here are to files the copy built itself.
"""

from __future__ import annotations

import json
import os
import re
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
from tests.tree import ROOT, Tree, framemd5, make_tree, processes_in, with_value
from tests.tree import leftovers as temporary_files

STEPS = load().linear_rnn.steps  # other values are offsets from it: whatever the lecture says, they differ
INTERRUPTED = "interrupted; finished outputs are kept, the next build resumes"
LOCKED = "error: another seqanim build is running in this folder; wait for it or stop it"


@pytest.fixture(scope="module")
def tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return make_tree(tmp_path_factory.mktemp("faults") / "lecture")


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    found = lines(result.stderr)
    assert result.returncode == 2, result.stderr
    assert len(found) == 1, result.stderr
    assert found[0].startswith("error: ")
    return found[0]


def poll(condition: Callable[[], bool], timeout: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        said = f"; the log says:\n{log.read_text()[-3000:]}" if log else ""
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s waiting for {what}{said}"
        time.sleep(0.1)


def replace(path: Path, payload: bytes) -> None:
    """Damage `path`: new bytes under its name, by rename (see the module docstring)."""
    temporary = path.with_name(path.name + ".damage")
    temporary.write_bytes(payload)
    os.replace(temporary, path)


DAMAGE = {
    "truncated": lambda payload, other: payload[: len(payload) // 2],
    "zeroed": lambda payload, other: bytes(len(payload)),  # same size: only the mtime tells
    "replaced": lambda payload, other: other,  # another output of the same kind
}


def leftovers(tree: Tree) -> list[str]:
    return temporary_files(tree.root)


def steps_in_data(tree: Tree) -> int:
    return json.loads((tree.root / "data" / "linear_rnn.json").read_text())["params"]["steps"]


def samples_in_data(tree: Tree) -> int:
    return json.loads((tree.root / "data" / "scaling.json").read_text())["params"]["n_samples"]


# --- two builds at once ----------------------------------------------------------------------------------


def test_two_builds_at_once_only_one_runs(tree: Tree) -> None:
    args = ("render", "EchoOfAPulse", "-j", "1", "--set", f"linear_rnn.steps={STEPS + 11}")
    first, second = tree.popen(*args), tree.popen(*args)
    results = [(*process.communicate(timeout=300), process.returncode) for process in (first, second)]
    codes = sorted(code for _, _, code in results)
    assert codes == [0, 2], results
    loser = next(stderr for _, stderr, code in results if code == 2)
    winner = next(stderr for _, stderr, code in results if code == 0)
    assert lines(loser) == [LOCKED]
    assert "ran 2, restored 0 from cache" in winner  # the winner did it all, once
    assert steps_in_data(tree) == STEPS + 11
    assert tree.run("render", "EchoOfAPulse").returncode == 0  # back to lecture.toml (from the cache)


def test_build_while_watch_runs(tree: Tree, tmp_path: Path) -> None:
    """watch holds the lock only while it builds: a build runs while it idles; a build that holds the lock
    when a file is saved makes watch say so once, and build the change when the other build is done."""
    log = tmp_path / "watch.log"
    config = tree.root / "lecture.toml"
    original = config.read_text()
    stage_log = tree.root / ".seqanim" / "logs" / "experiment-scaling.log"
    with open(log, "w") as sink:
        watch = subprocess.Popen(
            [sys.executable, "-m", "seqanim.cli", "watch", "--interval", "0.3"],
            cwd=tree.root,
            env=tree.env(),
            stdout=sink,
            stderr=sink,
            start_new_session=True,
        )
    samples = load().scaling.n_samples  # three other values: run by hand (idle, locked) and saved
    idle_value, manual_value, saved_value = samples + 200, samples + 500, samples + 1000
    try:
        poll(lambda: "up to date" in log.read_text(), 120, "watch's first pass")
        idle = tree.run("precompute", "scaling", "--set", f"scaling.n_samples={idle_value}")
        assert idle.returncode == 0, idle.stderr  # watch is idle: it holds no lock
        assert samples_in_data(tree) == idle_value

        stage_log.unlink(missing_ok=True)
        manual = tree.popen("render", "ScaledDotProduct", "-j", "1", "--set", f"scaling.n_samples={manual_value}")
        poll(stage_log.exists, 120, "the manual build to start its first stage (it then holds the lock)")
        config.write_text(with_value(original, "scaling", "n_samples", saved_value))
        poll(lambda: "another seqanim build is running" in log.read_text(), 120, "watch to find the lock held", log)
        _, manual_err = manual.communicate(timeout=300)
        assert manual.returncode == 0 and "ran 2, restored 0" in manual_err, manual_err
        after_lock = lambda: log.read_text().split("another seqanim build is running", 1)[1]  # noqa: E731
        poll(lambda: "ran 2, restored 0" in after_lock(), 300, "watch to build the change once the lock was free", log)
        assert samples_in_data(tree) == saved_value
        assert log.read_text().count("another seqanim build is running") == 1  # said once, not at every check
    finally:
        config.write_text(original)
        os.killpg(watch.pid, signal.SIGINT)
        watch.wait(timeout=60)
    restore = tree.run("render", "ScaledDotProduct")
    assert restore.returncode == 0, restore.stderr
    assert samples_in_data(tree) == samples


# --- damaged outputs: named in one line each, rebuilt on request ---------------------------------------

# One damaged file per stage, no damaged stage downstream of another (a skipped stage is not examined).
OUTPUTS = {
    "data-and-scenes": {
        "data/adding_lstm.pt": "data/lstm_inside.npz",
        "data/positional.npz": "data/rope.npz",
        "data/linear_rnn.npz": "data/scaling.npz",  # its sidecar is a hard link of its cache entry (see below)
        "renders/low/ReverseAlignment.mp4": "renders/low/SortAlignment.mp4",
        "slides/low/ScaledScores.json": "slides/low/CausalMask.json",
    },
    "decks": {
        "slides/low/rnn.pdf": "slides/low/transformers.pdf",
        "slides/low/why-attention.pptx": "slides/low/rnn.pptx",
        "slides/low/recurrent-attention.html": "slides/low/full.html",
    },
}
FIX = re.compile(r"run `seqanim (precompute|render|slides) ([\w-]+)` to rebuild it")


@pytest.mark.parametrize("how", list(DAMAGE))
@pytest.mark.parametrize("group", list(OUTPUTS))
def test_damaged_output_is_named_and_rebuilt_on_request(tree: Tree, group: str, how: str) -> None:
    # Restored from this copy's own cache, linear_rnn's outputs are hard links of its entry: restoring the
    # damaged npz must leave the intact sidecar (the same file as the entry's) and no temporary link.
    assert tree.run("precompute", "linear_rnn", "--set", f"linear_rnn.steps={STEPS + 3}").returncode == 0
    assert tree.run("precompute", "linear_rnn").returncode == 0
    original = tree.outputs()
    for name, other in OUTPUTS[group].items():
        path = tree.root / name
        replace(path, DAMAGE[how](path.read_bytes(), (tree.root / other).read_bytes()))
    damaged = tree.outputs()

    refused = tree.run("build")
    assert refused.returncode == 2, refused.stderr
    errors = lines(refused.stderr)
    assert len(errors) == len(OUTPUTS[group]), refused.stderr  # one line per damaged file, nothing else
    for name in OUTPUTS[group]:
        assert sum(f"{name} changed since it was built" in line for line in errors) == 1, refused.stderr
    assert tree.outputs() == damaged, "a refused build changed files"

    fixes: dict[str, list[str]] = {}
    for line in errors:
        match = FIX.search(line)
        assert match, line
        fixes.setdefault(match[1], []).append(match[2])
    for command, names in fixes.items():
        fixed = tree.run(command, *names)
        assert fixed.returncode == 0, fixed.stderr
    assert tree.outputs() == original, "the named commands did not bring back the built outputs"
    assert leftovers(tree) == []  # restoring a stage whose other outputs were intact left no temporary link
    assert "up to date" in tree.run("build").stderr


@pytest.mark.parametrize("how", list(DAMAGE))
def test_damaged_state_is_named_and_the_build_recovers(tree: Tree, how: str) -> None:
    state = tree.root / ".seqanim" / "state.json"
    original = tree.outputs()
    stages = len(json.loads(state.read_text()))
    replace(state, DAMAGE[how](state.read_bytes(), (tree.root / "slides/low/CausalMask.json").read_bytes()))

    result = tree.run("build")
    assert result.returncode == 0, result.stderr
    warning, summary = lines(result.stderr)
    assert warning.startswith("warning: .seqanim/state.json is corrupt (kept as state.json.corrupt)")
    assert summary == f"ran 0, restored {stages} from cache"  # every stage checked again, none recomputed
    assert tree.outputs() == original
    assert len(json.loads(state.read_text())) == stages
    assert leftovers(tree) == []
    assert "up to date" in tree.run("build").stderr
    (state.parent / "state.json.corrupt").unlink()


def _entry(tree: Tree, stage_id: str) -> Path:
    key = json.loads((tree.root / ".seqanim" / "state.json").read_text())[stage_id]["key"]
    return tree.root / ".seqanim" / "cache" / key


@pytest.mark.parametrize("how", list(DAMAGE))
def test_damaged_cache_entry_is_named_and_dropped(tree: Tree, how: str) -> None:
    """An entry this copy built itself (so its files are hard links of nothing outside it), damaged in place
    for truncation and zeros; a damaged entry is never restored."""
    other = f"linear_rnn.steps={STEPS + 21 + list(DAMAGE).index(how)}"
    assert tree.run("precompute", "linear_rnn", "--set", other).returncode == 0
    built = (tree.root / "data" / "linear_rnn.npz").read_bytes()
    entry = _entry(tree, "experiment:linear_rnn")
    assert tree.run("precompute", "linear_rnn").returncode == 0  # back: the entry now stands alone
    cached = entry / "0-linear_rnn.npz"
    if how == "replaced":
        replace(cached, (tree.root / "data" / "rope.npz").read_bytes())
    else:
        with open(cached, "r+b") as handle:
            payload = DAMAGE[how](handle.read(), b"")
            handle.seek(0)
            handle.truncate()
            handle.write(payload)

    result = tree.run("precompute", "linear_rnn", "--set", other)
    assert result.returncode == 0, result.stderr
    warning, summary = lines(result.stderr)
    assert warning == (
        f"warning: .seqanim/cache/{entry.name}/0-linear_rnn.npz in the cache is damaged; "
        "entry dropped, experiment:linear_rnn is rebuilt"
    )
    assert summary == "ran 1, restored 0 from cache"
    assert (tree.root / "data" / "linear_rnn.npz").read_bytes() == built  # recomputed, not the damaged bytes
    assert tree.run("precompute", "linear_rnn").returncode == 0


def test_output_truncated_in_place_takes_its_cache_copy_with_it(tree: Tree) -> None:
    """Outputs and their cache entry share bytes (hard links): an output of this copy truncated in place
    is named, and rebuilding it on request recomputes instead of restoring the truncated entry."""
    assert tree.run("precompute", "linear_rnn", "--set", f"linear_rnn.steps={STEPS + 30}").returncode == 0
    path = tree.root / "data" / "linear_rnn.npz"
    built = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.truncate(len(built) // 2)
    line = one_error_line(tree.run("precompute", "--set", f"linear_rnn.steps={STEPS + 30}"))
    assert "data/linear_rnn.npz changed since it was built" in line
    fixed = tree.run("precompute", "linear_rnn", "--set", f"linear_rnn.steps={STEPS + 30}")
    assert fixed.returncode == 0, fixed.stderr
    assert "in the cache is damaged" in fixed.stderr and "ran 1, restored 0" in fixed.stderr
    assert path.read_bytes() == built
    contract.load("linear_rnn", directory=tree.root / "data")
    assert tree.run("precompute", "linear_rnn").returncode == 0


def test_leftovers_of_a_killed_build_are_removed_by_the_next(tree: Tree) -> None:
    """SIGKILL runs no cleanup: what a killed stage was writing beside an output stays, until the next build
    that takes the lock removes it. Files of the same folders that are not such leftovers stay."""
    leftover = [
        "slides/low/.rnn.pdf.wt6_5m8d.tmp",  # files.atomic_output (found by bench/faults.py)
        "renders/low/.EchoOfAPulse.mp4.4242.tmp",  # render._copy_atomic
        "slides/low/.rnn.pptx.abcd.tmp.pptx",
        "data/.linear_rnn.npz.restore-4242",
        "slides/low/files/.EchoOfAPulse.old-4242/a.mp4",
        "slides/low/.stage-rnn-x1y2/index.html",  # decks/html.py
        ".seqanim/cache/.0123abcd.4242/COMPLETE",  # graph.cache_store
    ]
    kept = ["data/.keep", "slides/low/.rnn.notes"]
    for name in leftover + kept:
        (tree.root / name).parent.mkdir(parents=True, exist_ok=True)
        (tree.root / name).write_text("x")
    result = tree.run("precompute", "linear_rnn", "--set", f"linear_rnn.steps={STEPS + 4}")
    assert result.returncode == 0, result.stderr
    assert [name for name in leftovers(tree) if name not in kept] == []
    assert [name for name in leftover if (tree.root / name).exists()] == []
    assert all((tree.root / name).exists() for name in kept)
    for name in kept:
        (tree.root / name).unlink()
    assert tree.run("precompute", "linear_rnn").returncode == 0


# --- more kinds of damaged output: thumbnails, reports, slide videos, deck assets, deck videos, cards ---------

# One file of each kind; a folder (slide videos, HTML assets, card videos) stands for one of its files, which
# is named. Two groups, so that no damaged stage lies downstream of another (a skipped stage is not examined).
MORE_OUTPUTS = {
    "scenes": {
        "renders/low/TrainingRace.png": "renders/low/AddingProblem.png",
        "renders/low/QueryKeyValue.report.json": "renders/low/ScaledScores.report.json",
        "slides/low/files/WeightedRetrieval/": "renders/low/CausalMask.mp4",
    },
    "decks": {
        "slides/low/why-attention_assets/": "renders/low/EchoOfAPulse.mp4",
        "renders/low/rnn.mp4": "renders/low/transformers.mp4",
        "renders/low/transformers.png": "renders/low/rnn.png",
        "slides/low/cards/recurrent-attention-title.json": "slides/low/cards/rnn-title.json",
        "slides/low/cards/files/full-title/": "renders/low/rnn.mp4",
    },
}


@pytest.mark.parametrize("group", list(MORE_OUTPUTS))
def test_every_kind_of_output_damaged_is_named_and_rebuilt_on_request(tree: Tree, group: str) -> None:
    original = tree.outputs()
    damaged_names = []
    for number, (name, other) in enumerate(MORE_OUTPUTS[group].items()):
        if name.endswith("/"):
            name += sorted(p.name for p in (tree.root / name).iterdir() if p.is_file())[0]
        how = list(DAMAGE)[number % len(DAMAGE)]  # each file a different way
        path = tree.root / name
        replace(path, DAMAGE[how](path.read_bytes(), (tree.root / other).read_bytes()))
        damaged_names.append(name)
    damaged = tree.outputs()

    refused = tree.run("build")
    assert refused.returncode == 2, refused.stderr
    errors = lines(refused.stderr)
    assert len(errors) == len(damaged_names), refused.stderr
    for name in damaged_names:
        assert sum(f"{name} changed since it was built" in line for line in errors) == 1, (name, refused.stderr)
    assert tree.outputs() == damaged, "a refused build changed files"
    for line in errors:
        match = FIX.search(line)
        assert match, line
        fixed = tree.run(match[1], match[2])
        assert fixed.returncode == 0, fixed.stderr
    assert tree.outputs() == original, "the named commands did not bring back the built outputs"
    assert leftovers(tree) == []
    assert "up to date" in tree.run("build").stderr


def test_damaged_scene_cache_entry_is_named_and_rendered_again(tree: Tree) -> None:
    """A slide video inside a scene's entry (a folder of the entry), zeroed in place in an entry this copy
    built: going back to those parameters names it, drops the entry and renders again."""
    other = f"linear_rnn.steps={STEPS + 50}"
    assert tree.run("render", "EchoOfAPulse", "--set", other).returncode == 0
    built = framemd5(tree.root / "renders/low/EchoOfAPulse.mp4")
    entry = _entry(tree, "scene:low:EchoOfAPulse")
    assert tree.run("render", "EchoOfAPulse").returncode == 0
    cached = sorted((entry / "4-EchoOfAPulse").iterdir())[0]
    with open(cached, "r+b") as handle:
        size = len(handle.read())
        handle.seek(0)
        handle.write(bytes(size))
    result = tree.run("render", "EchoOfAPulse", "--set", other)
    assert result.returncode == 0, result.stderr
    warning, summary = lines(result.stderr)
    assert warning == (
        f"warning: .seqanim/cache/{entry.name}/4-EchoOfAPulse/{cached.name} in the cache is damaged; "
        "entry dropped, scene:low:EchoOfAPulse is rebuilt"
    )
    assert summary == "ran 1, restored 1 from cache"  # the experiment comes back, the scene renders again
    assert framemd5(tree.root / "renders/low/EchoOfAPulse.mp4") == built
    assert tree.run("render", "EchoOfAPulse").returncode == 0


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
    return lambda: any((tree.root / ".seqanim" / "stage").glob(f"{scene}-low-*/media/videos/*/*/*/*.mp4"))


def _exporting(tree: Tree, deck: str) -> Callable[[], bool]:
    """The deck's export is writing: a temporary file or folder of it beside its outputs."""
    return lambda: any(
        deck in path.name for folder in ("slides/low", "renders/low") for path in (tree.root / folder).glob(".*")
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
        _REFERENCES[args] = (Reference(kept, tree.outputs()), _entry(tree, stage).name)
    reference, key = _REFERENCES[args]
    assert tree.run(args[0], args[1]).returncode == 0
    shutil.rmtree(tree.root / ".seqanim" / "cache" / key)
    return reference


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_kill_inside_a_render_resumes_to_the_same_outputs(tree: Tree, sig: signal.Signals) -> None:
    args = ("render", "EchoOfAPulse", "--set", f"linear_rnn.steps={STEPS + 40}")
    stage = "scene:low:EchoOfAPulse"
    reference = _reference(tree, args, stage)
    recorded = _state(tree)[stage]["key"]
    process = _start_inside(tree, args, _partial_movies(tree, "EchoOfAPulse"), "manim to write partial movies")
    os.killpg(process.pid, sig)
    _, stderr = process.communicate(timeout=60)
    assert _state(tree)[stage]["key"] == recorded, "the render finished before the kill"  # it was running
    if sig == signal.SIGINT:
        assert process.returncode == 130 and lines(stderr)[-1] == INTERRUPTED, stderr
    poll(lambda: processes_in(tree.root) == [], 10, "the build's processes to end")
    resumed = tree.run(*args)
    assert resumed.returncode == 0 and "ran 1, restored 0" in resumed.stderr, resumed.stderr
    assert reference.differences(tree) == []
    assert leftovers(tree) == []
    assert tree.run("render", "EchoOfAPulse").returncode == 0


def test_kill_inside_a_deck_export_resumes_to_the_same_outputs(tree: Tree) -> None:
    deck = "recurrent-attention"
    args = ("slides", deck, "--set", f"decks.handout_notes={str(not load().decks.handout_notes).lower()}")
    stage = f"deck:low:{deck}"
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
    assert leftovers(tree) == []
    assert tree.run("slides", deck).returncode == 0


def test_build_killed_alone_takes_its_stages_with_it(tree: Tree) -> None:
    """SIGKILL to the build process only (not its group): its stages must die with it, write nothing after,
    and the next build must redo what they were doing."""
    args = ("render", "EchoOfAPulse", "--set", f"linear_rnn.steps={STEPS + 42}")
    process = _start_inside(tree, args, _partial_movies(tree, "EchoOfAPulse"), "manim to write partial movies")
    killed = time.time()
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    poll(lambda: processes_in(tree.root) == [], 10, "the stages to die with the build")
    time.sleep(2)  # what an orphaned stage would publish, it would have published by now
    late = [name for name in tree.outputs() if (tree.root / name).stat().st_mtime > killed]
    assert late == [], f"written after the build was killed: {late}"
    resumed = tree.run(*args)
    assert resumed.returncode == 0 and "ran 1" in resumed.stderr, resumed.stderr
    assert leftovers(tree) == []
    assert tree.run("render", "EchoOfAPulse").returncode == 0


# --- a full disk: one line, nothing published half-written ----------------------------------------------


class SmallDisk:
    """A workspace whose writes fail for lack of room: on a tmpfs of its own when this runs as root (its free
    space set per test), else under `ulimit -f` (files over a size limit fail: EFBIG)."""

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
        self.tree = Tree(folder / "lecture")
        self.tree.root.mkdir()
        for name in ("precompute", "scenes", "lecture.toml"):
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, self.tree.root / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, self.tree.root / name)
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


@pytest.fixture(scope="module")
def small_disk(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SmallDisk]:
    disk = SmallDisk(tmp_path_factory.mktemp("disk") / "mount")
    try:
        built = disk.run("render", "EchoOfAPulse")  # a cold build: one experiment, one scene
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


# Room left, per stage that must run out of it: an experiment's npz takes ~14 KB, a render's partial movies MBs.
ROOM = {"experiment": (8, ("precompute", "linear_rnn")), "render": (200, ("render", "EchoOfAPulse"))}


@pytest.mark.parametrize("where", list(ROOM))
def test_disk_full_stops_with_one_line_and_nothing_half_written(small_disk: SmallDisk, where: str) -> None:
    kilobytes, command = ROOM[where]
    steps = STEPS + 60 + list(ROOM).index(where)
    before = small_disk.tree.outputs()
    small_disk.room(kilobytes)
    try:
        result = small_disk.run(*command, "-j", "1", "--set", f"linear_rnn.steps={steps}")
    finally:
        small_disk.room(None)
    line = one_error_line(result)
    assert "no space left on the disk holding " in line or "file size limit reached" in line, line
    root = small_disk.tree.root
    after = small_disk.tree.outputs()
    assert set(after) >= set(before), "an output went missing"
    assert all(_whole(root / name) for name in after if after[name] != before.get(name))
    assert temporary_files(root) == []
    if where == "experiment":
        assert after["data/linear_rnn.npz"] == before["data/linear_rnn.npz"]  # the new one did not fit
    resumed = small_disk.run(*command, "--set", f"linear_rnn.steps={steps}")
    assert resumed.returncode == 0, resumed.stderr
    assert steps_in_data(small_disk.tree) == steps
    assert temporary_files(root) == []


# --- bad input: one line, exit 2 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("present", "no-such-deck"), "error: unknown deck 'no-such-deck'; known: rnn,"),
        (("build", "--config", "missing.toml"), "missing.toml: parameters file not found"),
        (("build", "--config", "{bad}"), "not valid TOML"),
        (("build", "--quality", "ultra"), "'ultra' is not one of 'low', 'medium', 'high', '4k'"),
        (("build", "--bogus"), "No such option '--bogus'"),
        (("frobnicate",), "No such command 'frobnicate'"),
    ],
)
def test_bad_input_is_one_line(tree: Tree, tmp_path: Path, args: tuple[str, ...], expected: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[adding]\nT = [\n")
    before = tree.outputs()
    line = one_error_line(tree.run(*(str(bad) if arg == "{bad}" else arg for arg in args)))
    assert expected in line
    assert tree.outputs() == before


def test_jobs_zero_means_all_cores(tree: Tree) -> None:
    result = tree.run("precompute", "linear_rnn", "-j", "0", "--set", f"linear_rnn.steps={STEPS + 5}")
    assert result.returncode == 0, result.stderr
    assert "ran 1" in result.stderr and steps_in_data(tree) == STEPS + 5
    assert tree.run("precompute", "linear_rnn").returncode == 0


# --- the cache's size limit, and cleaning (these run last: they empty the copy) --------------------------


def _cache_bytes(tree: Tree) -> int:
    return sum(f.stat().st_size for f in (tree.root / ".seqanim" / "cache").rglob("*") if f.is_file())


def test_cache_eviction_keeps_outputs(tree: Tree) -> None:
    cache = tree.root / ".seqanim" / "cache"
    used = {entry.name: (entry / "COMPLETE").stat().st_mtime for entry in cache.iterdir()}
    assert _cache_bytes(tree) > 1024 * 1024
    before = tree.outputs()
    result = tree.run("precompute", "linear_rnn", "--set", f"linear_rnn.steps={STEPS + 6}", "--set", "build.cache_mb=1")
    assert result.returncode == 0, result.stderr
    assert _cache_bytes(tree) <= 1024 * 1024
    new = _entry(tree, "experiment:linear_rnn").name
    kept = {entry.name for entry in cache.iterdir()}
    assert new in kept and len(kept) < len(used)
    evicted = set(used) - kept
    newest_evicted = max(used[name] for name in evicted)
    assert all(used[name] >= newest_evicted for name in kept - {new}), "evicted a more recently used entry"
    after = tree.outputs()  # outputs are never evicted: only the cache's links to them
    assert {name for name in after if after[name] != before[name]} == {"data/linear_rnn.npz", "data/linear_rnn.json"}
    back = tree.run("precompute", "linear_rnn")
    assert back.returncode == 0, back.stderr
    assert tree.outputs() == before


def test_clean_cache_only_keeps_outputs_and_state(tree: Tree) -> None:
    before = tree.outputs()
    result = tree.run("clean", "--cache-only")
    assert result.returncode == 0 and "cache emptied" in result.stderr
    assert not (tree.root / ".seqanim" / "cache").exists()
    assert (tree.root / ".seqanim" / "state.json").exists()
    assert tree.outputs() == before
    assert "up to date" in tree.run("build").stderr


def test_clean_removes_every_output_and_keeps_the_sources(tree: Tree) -> None:
    sources = {
        path.relative_to(tree.root): path.read_bytes()
        for path in [tree.root / "lecture.toml", *(tree.root / "precompute").glob("*.py")]
    }
    result = tree.run("clean")
    assert result.returncode == 0, result.stderr
    assert not (tree.root / ".seqanim").exists()
    for folder in ("data", "renders", "slides"):
        assert [path.name for path in (tree.root / folder).iterdir()] == ["README.md"]
    assert {path: (tree.root / path).read_bytes() for path in sources} == sources
    assert (tree.root / "scenes" / "rnn.py").exists()
    dry = tree.run("build", "--dry-run")
    assert "never built" in dry.stdout and dry.stdout.strip().endswith("stages would run")
