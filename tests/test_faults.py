"""Faults the build survives (issue #17): two builds at once, damaged outputs, state and cache, cleaning,
cache eviction and bad input. Everything runs for real on an isolated copy of the built lecture, or, where a
render is locked or damaged, on the timed tiny lecture (tests/tiny.py: a render of seconds); kills, full
disks and watch are in test_kills.py.

Damage is always written to a new file renamed over the output, never in place: the copy's renders/ and
slides/ are hard links to the real tree's files (tests/tree.py), and an in-place write would reach them.
The only in-place writes here are to files the copy built itself.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from seqanim import contract
from seqanim.config import load
from tests.conftest import QUALITY
from tests.tiny import HEIGHT, timed_lecture
from tests.tree import Tree, framemd5, leftovers, lines, make_tree, one_error_line

STEPS = load().linear_rnn.steps  # other values are offsets from it: whatever the lecture says, they differ
LOCKED = "error: another seqanim build is running in this folder; wait for it or stop it"


@pytest.fixture(scope="module")
def tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return make_tree(tmp_path_factory.mktemp("faults") / "lecture")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return timed_lecture(tmp_path_factory.mktemp("faults") / "tiny")


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


# --- two builds at once ----------------------------------------------------------------------------------


def test_two_builds_at_once_only_one_runs(tiny: Tree) -> None:
    tree = tiny
    args = ("render", "PulseScene", "-j", "1", "--set", f"pulse.height={HEIGHT + 1}")
    first, second = tree.popen(*args), tree.popen(*args)
    results = [(*process.communicate(timeout=300), process.returncode) for process in (first, second)]
    codes = sorted(code for _, _, code in results)
    assert codes == [0, 2], results
    loser = next(stderr for _, stderr, code in results if code == 2)
    winner = next(stderr for _, stderr, code in results if code == 0)
    assert lines(loser) == [LOCKED]
    assert "ran 2, restored 0 from cache" in winner  # the winner did it all, once
    assert tree.data_param("pulse", "height") == HEIGHT + 1
    assert tree.run("render", "PulseScene").returncode == 0  # back to lecture.toml (from the cache)


# --- damaged outputs: named in one line each, rebuilt on request ---------------------------------------

# One damaged file per stage, no damaged stage downstream of another (a skipped stage is not examined).
OUTPUTS = {
    "data-and-scenes": {
        "data/adding_lstm.pt": "data/lstm_inside.npz",
        "data/positional.npz": "data/rope.npz",
        "data/linear_rnn.npz": "data/scaling.npz",  # its sidecar is a hard link of its cache entry (see below)
        f"renders/{QUALITY}/ReverseAlignment.mp4": f"renders/{QUALITY}/SortAlignment.mp4",
        f"slides/{QUALITY}/ScaledScores.json": f"slides/{QUALITY}/CausalMask.json",
        f"renders/{QUALITY}/CausalMask.narrated.mp4": f"renders/{QUALITY}/PaddingMask.narrated.mp4",
    },
    "decks": {
        f"slides/{QUALITY}/rnn.pdf": f"slides/{QUALITY}/transformers.pdf",
        f"slides/{QUALITY}/why-attention.pptx": f"slides/{QUALITY}/rnn.pptx",
        f"slides/{QUALITY}/recurrent-attention.html": f"slides/{QUALITY}/full.html",
    },
}
FIX = re.compile(r"run `seqanim (precompute|render|render --narrated|slides) ([\w-]+)` to rebuild it")


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
        fixed = tree.run(*command.split(), *names)
        assert fixed.returncode == 0, fixed.stderr
    assert tree.outputs() == original, "the named commands did not bring back the built outputs"
    assert leftovers(tree.root) == []  # restoring a stage whose other outputs were intact left no temporary link
    assert "up to date" in tree.run("build").stderr


@pytest.mark.parametrize("how", list(DAMAGE))
def test_damaged_state_is_named_and_the_build_recovers(tree: Tree, how: str) -> None:
    state = tree.root / ".seqanim" / "state.json"
    original = tree.outputs()
    stages = len(json.loads(state.read_text()))
    replace(state, DAMAGE[how](state.read_bytes(), (tree.root / f"slides/{QUALITY}/CausalMask.json").read_bytes()))

    result = tree.run("build")
    assert result.returncode == 0, result.stderr
    warning, summary = lines(result.stderr)
    assert warning.startswith("warning: .seqanim/state.json is corrupt (kept as state.json.corrupt)")
    assert summary == f"ran 0, restored {stages} from cache"  # every stage checked again, none recomputed
    assert tree.outputs() == original
    assert len(json.loads(state.read_text())) == stages
    assert leftovers(tree.root) == []
    assert "up to date" in tree.run("build").stderr
    (state.parent / "state.json.corrupt").unlink()


def _damage_in_place(path: Path, how: str) -> None:
    """Damage a cache entry's file in place (its own inode: the copy's outputs are other links of it)."""
    with open(path, "r+b") as handle:
        payload = DAMAGE[how](handle.read(), b"")
        handle.seek(0)
        handle.truncate()
        handle.write(payload)


def test_damaged_cache_entries_are_named_dropped_and_rebuilt(tiny: Tree) -> None:
    """Two entries this copy built itself, damaged in place: the experiment's npz truncated, and a slide video
    inside the scene's entry (a folder of it) zeroed, same size. Going back to those parameters names each in
    one warning, drops both entries and rebuilds both stages: a damaged entry is never restored."""
    tree = tiny
    other = f"pulse.height={HEIGHT + 2}"
    assert tree.run("render", "PulseScene", "--set", other).returncode == 0
    built_data = (tree.root / "data" / "pulse.npz").read_bytes()
    built_video = framemd5(tree.root / f"renders/{QUALITY}/PulseScene.mp4")
    experiment = tree.cache_entry("experiment:pulse")
    scene = tree.cache_entry(f"scene:{QUALITY}:PulseScene")
    assert tree.run("render", "PulseScene").returncode == 0  # back: the entries now stand alone
    (slides,) = scene.glob("*-PulseScene")  # the entry's folder of slide videos
    slide_video = sorted(slides.iterdir())[0]
    _damage_in_place(experiment / "0-pulse.npz", "truncated")
    _damage_in_place(slide_video, "zeroed")

    result = tree.run("render", "PulseScene", "--set", other)
    assert result.returncode == 0, result.stderr
    *warnings, summary = lines(result.stderr)
    assert sorted(warnings) == sorted(
        [
            f"warning: .seqanim/cache/{experiment.name}/0-pulse.npz in the cache is damaged; "
            "entry dropped, experiment:pulse is rebuilt",
            f"warning: .seqanim/cache/{scene.name}/{slides.name}/{slide_video.name} in the cache is damaged; "
            f"entry dropped, scene:{QUALITY}:PulseScene is rebuilt",
        ]
    )
    # The experiment's key is unchanged, so the scene's is too: its entry is looked up, found damaged, rendered.
    assert summary == "ran 2, restored 0 from cache"
    assert (tree.root / "data" / "pulse.npz").read_bytes() == built_data  # recomputed, not the damaged bytes
    assert framemd5(tree.root / f"renders/{QUALITY}/PulseScene.mp4") == built_video
    assert tree.run("render", "PulseScene").returncode == 0


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


# --- more kinds of damaged output: thumbnails, reports, slide videos, deck assets, deck videos, cards ---------

# One file of each kind; a folder (slide videos, HTML assets, card videos) stands for one of its files, which
# is named. Two groups, so that no damaged stage lies downstream of another (a skipped stage is not examined).
MORE_OUTPUTS = {
    "scenes": {
        f"renders/{QUALITY}/TrainingRace.png": f"renders/{QUALITY}/AddingProblem.png",
        f"renders/{QUALITY}/QueryKeyValue.report.json": f"renders/{QUALITY}/ScaledScores.report.json",
        f"slides/{QUALITY}/files/WeightedRetrieval/": f"renders/{QUALITY}/CausalMask.mp4",
    },
    "decks": {
        f"slides/{QUALITY}/why-attention_assets/": f"renders/{QUALITY}/EchoOfAPulse.mp4",
        f"renders/{QUALITY}/rnn.mp4": f"renders/{QUALITY}/transformers.mp4",
        f"renders/{QUALITY}/transformers.png": f"renders/{QUALITY}/rnn.png",
        f"slides/{QUALITY}/cards/recurrent-attention-title.json": f"slides/{QUALITY}/cards/rnn-title.json",
        f"slides/{QUALITY}/cards/files/full-title/": f"renders/{QUALITY}/rnn.mp4",
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
    assert leftovers(tree.root) == []
    assert "up to date" in tree.run("build").stderr


# --- bad input: one line, exit 2 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("present", "no-such-deck"), "error: unknown deck 'no-such-deck'; known: rnn,"),
        (("build", "--config", "missing.toml"), "missing.toml: parameters file not found"),
        (("build", "--config", "{bad}"), "not valid TOML"),
        (("build", "--quality", "ultra"), "'ultra' is not one of 'preview', 'low', 'medium', 'high', '4k'"),
        (("build", "--bogus"), "No such option '--bogus'"),
        (("frobnicate",), "No such command 'frobnicate'"),
        (("build", "--scheduler", "localhost:8786"), "'--scheduler': not a Dask scheduler address"),
        (("build", "--set", "build.scheduler=localhost"), "build.scheduler: not a Dask scheduler address"),
        (("build", "--set", "build.cluster=k8s"), "build.cluster = 'k8s': Input should be 'local', 'slurm' or 'pbs'"),
        # Work to do, and nobody at the address: said once the connection timeout is over.
        (
            (
                "precompute",
                "linear_rnn",
                "--set",
                f"linear_rnn.steps={STEPS + 13}",
                "--scheduler",
                "tcp://127.0.0.1:9",
                "--set",
                "build.scheduler_timeout=1.5",
            ),
            "cannot reach the Dask scheduler at tcp://127.0.0.1:9 within 1.5 s",
        ),
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
    assert "ran 1" in result.stderr and tree.data_param("linear_rnn", "steps") == STEPS + 5
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
    new = tree.cache_entry("experiment:linear_rnn").name
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
        for path in [
            tree.root / "lecture.toml",
            *(tree.root / "precompute").glob("*.py"),
            *(tree.root / "scenes").rglob("*.py"),
        ]
    }
    result = tree.run("clean")
    assert result.returncode == 0, result.stderr
    assert not (tree.root / ".seqanim").exists()
    for folder in ("data", "renders", "slides"):
        assert [path.name for path in (tree.root / folder).iterdir()] == ["README.md"]
    assert {path: (tree.root / path).read_bytes() for path in sources} == sources
    assert (tree.root / "scenes" / "rnn" / "__init__.py").exists()
    dry = tree.run("build", "--dry-run")
    assert "never built" in dry.stdout and dry.stdout.strip().endswith("stages would run")
