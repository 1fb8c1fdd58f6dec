"""Faults the build survives (issue #17): two builds at once, damaged outputs, state and cache, cleaning,
cache eviction and bad input. Everything runs for real on an isolated copy of the suite's built lecture (its
check, and its sample deck at preview); kills, full disks and watch are in test_kills.py.

Damage is always written to a new file renamed over the output, never in place: the copy's renders/ and
slides/ are hard links to the suite's files (tests/tree.py), and an in-place write would reach them. The only
in-place writes here are to the copy's own cache entries (make_tree copies them) and to outputs restored from
them (the cache restores copies).

Every real build costs a local Dask cluster's start (seconds), a restore from the cache or a refused build
only the command's; so the tests damage, refuse and restore, and run a stage only where that is the point.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from seqanim.lecture import contract, registry
from seqanim.lecture.config import load
from seqanim.stages.render import MANIM_QUALITY
from tests.conftest import CHECK, QUALITY, SAMPLE
from tests.tree import Tree, leftovers, lines, make_tree, one_error_line

STEPS = load().linear_rnn.steps  # other values are offsets from it: whatever the lecture says, they differ
LOCKED = "error: another seqanim build is running in this folder; wait for it or stop it"


@pytest.fixture(scope="module")
def tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return make_tree(tmp_path_factory.mktemp("faults") / "lecture")


def replace(path: Path, payload: bytes) -> None:
    """Damage `path`: new bytes under its name, by rename (see the module docstring)."""
    temporary = path.with_name(path.name + ".damage")
    temporary.write_bytes(payload)
    os.replace(temporary, path)


DAMAGE = {
    "truncated": lambda payload, other: payload[: len(payload) // 2],
    "zeroed": lambda payload, other: bytes(len(payload)),  # same size: only the content tells
    "replaced": lambda payload, other: other,  # another output of the same kind
}


def _restored(tree: Tree, experiment: str) -> Path:
    """The experiment's outputs brought back from the copy's own cache (its npz damaged by rename, then rebuilt
    on request): files of their own, as after any build or restore. Returns the npz."""
    path = tree.root / "data" / f"{experiment}.npz"
    replace(path, DAMAGE["truncated"](path.read_bytes(), b""))
    restored = tree.run("precompute", experiment)
    assert restored.returncode == 0 and "ran 0, restored 1" in restored.stderr, restored.stderr
    return path


# --- two builds at once ----------------------------------------------------------------------------------


# Another length of the linear RNN's run: the two builds at once make it, and the damaged cache entry is its
# (restored when that test ran, else built).
OTHER = ("precompute", "linear_rnn", "--set", f"linear_rnn.steps={STEPS + 1}")


def test_two_builds_at_once_only_one_runs(tree: Tree) -> None:
    args = (*OTHER, "-j", "1")
    first, second = tree.popen(*args), tree.popen(*args)
    results = [(*process.communicate(timeout=300), process.returncode) for process in (first, second)]
    codes = sorted(code for _, _, code in results)
    assert codes == [0, 2], results
    loser = next(stderr for _, stderr, code in results if code == 2)
    winner = next(stderr for _, stderr, code in results if code == 0)
    assert lines(loser) == [LOCKED]
    assert "ran 1, restored 0 from cache" in winner  # the winner did it all, once
    assert tree.data_param("linear_rnn", "steps") == STEPS + 1
    assert tree.run("precompute", "linear_rnn").returncode == 0  # back to lecture.toml (from the cache)


# --- damaged outputs: named in one line each, rebuilt on request ---------------------------------------

# Each round damages one file per stage, no damaged stage downstream of another (a stage whose input is refused
# is skipped, not examined), each file a different way; a folder (slide videos, HTML assets, card videos) stands
# for its first file, which is named. Between them the rounds damage every kind of output once: the
# experiments' npz, sidecar and .pt and a scene's thumbnail and report (the check, in a plain build); a scene's
# video, slide JSON and slide videos and a narrated cut (the sample deck's scenes, at preview); and each kind of
# the deck's outputs, a round each (the deck is one stage). bench/faults.py damages each of them too, a way
# drawn at random in every campaign.
#
# A plain `seqanim build` in the copy builds at check: it finds a damaged check output or data/ file. A damaged
# preview output of a scene is found by building the sample deck (`seqanim slides sample`); not one of the deck
# itself, which `slides sample` names and so rebuilds on request. `seqanim present sample` builds the deck
# without naming it a request: it finds the damage and stops before presenting (a BROWSER that fails would end
# it if it did not).
BUILD = ("build",)
SCENES = ("slides", SAMPLE, "--quality", QUALITY)
PRESENT = ("present", SAMPLE, "--quality", QUALITY, "--browser")
ROUNDS: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, str]]]] = {  # round -> (build, {damaged: (how, other)})
    "data-and-checks": (
        BUILD,
        {
            "data/adding_lstm.pt": ("truncated", "data/lstm_inside.npz"),
            "data/positional.npz": ("zeroed", "data/rope.npz"),
            "data/linear_rnn.npz": ("replaced", "data/scaling.npz"),  # its outputs restored from the cache
            "data/rope.json": ("truncated", "data/positional.json"),
            f"renders/{CHECK}/QueryKeyValue.report.json": ("zeroed", f"renders/{CHECK}/ScaledScores.report.json"),
            f"renders/{CHECK}/ReverseAlignment.png": ("replaced", f"renders/{CHECK}/SortAlignment.png"),
        },
    ),
    "scene-and-narration": (
        SCENES,
        {
            f"renders/{QUALITY}/EchoOfAPulse.mp4": ("truncated", f"renders/{QUALITY}/QueryKeyValue.mp4"),
            f"renders/{QUALITY}/QueryKeyValue.narrated.mp4": ("zeroed", f"renders/{QUALITY}/EchoOfAPulse.narrated.mp4"),
        },
    ),
    "slides": (
        SCENES,
        {
            f"slides/{QUALITY}/QueryKeyValue.json": ("replaced", f"slides/{QUALITY}/EchoOfAPulse.json"),
            f"slides/{QUALITY}/files/EchoOfAPulse/": ("truncated", f"renders/{QUALITY}/QueryKeyValue.mp4"),
        },
    ),
}
DECK = {
    f"slides/{QUALITY}/{SAMPLE}.pdf": ("zeroed", ""),
    f"slides/{QUALITY}/{SAMPLE}.pptx": ("truncated", ""),
    f"slides/{QUALITY}/{SAMPLE}.html": ("replaced", f"slides/{QUALITY}/{SAMPLE}.transcript.html"),
    f"slides/{QUALITY}/{SAMPLE}_assets/": ("zeroed", ""),
    f"renders/{QUALITY}/{SAMPLE}.mp4": ("replaced", f"renders/{QUALITY}/EchoOfAPulse.narrated.mp4"),
    f"renders/{QUALITY}/{SAMPLE}.png": ("truncated", ""),
    f"slides/{QUALITY}/cards/{SAMPLE}-title.json": ("replaced", f"slides/{QUALITY}/EchoOfAPulse.json"),
    f"slides/{QUALITY}/cards/files/{SAMPLE}-title/": ("zeroed", ""),
}
ROUNDS |= {f"deck-{Path(name).name}": (PRESENT, {name: damage}) for name, damage in DECK.items()}
FIX = re.compile(  # the command, the name, and the quality should the line name one
    r"run `seqanim (precompute|render|render --narrated|slides) ([\w-]+)(?: --quality (\w+))?` to rebuild it"
)
NO_BROWSER = {"BROWSER": "false"}  # a `present` that found nothing to refuse fails at once instead of opening one


@pytest.mark.parametrize("round_", list(ROUNDS))
def test_damaged_output_is_named_and_rebuilt_on_request(tree: Tree, round_: str) -> None:
    command, damage = ROUNDS[round_]
    if "data/linear_rnn.npz" in damage:
        # Restored from this copy's own cache: restoring the damaged npz must leave the intact sidecar and no
        # temporary file.
        _restored(tree, "linear_rnn")
    original = tree.outputs()
    named = []
    for name, (how, other) in damage.items():
        if name.endswith("/"):
            name += sorted(p.name for p in (tree.root / name).iterdir() if p.is_file())[0]
        path = tree.root / name
        replace(path, DAMAGE[how](path.read_bytes(), (tree.root / other).read_bytes() if other else b""))
        named.append(name)
    damaged = tree.outputs()

    refused = tree.run(*command, env=NO_BROWSER)
    assert refused.returncode == 2, refused.stderr
    errors = lines(refused.stderr)
    assert len(errors) == len(named), refused.stderr  # one line per damaged file, nothing else
    for name in named:
        assert sum(f"{name} changed since it was built" in line for line in errors) == 1, (name, refused.stderr)
    assert tree.outputs() == damaged, "a refused build changed files"

    quality = CHECK if command == BUILD else QUALITY
    fixes: dict[tuple[str, str | None], list[str]] = {}
    for line in errors:
        match = FIX.search(line)
        assert match, line
        # A scene's, a narration's or a deck's line names its quality (an experiment has none): the command
        # then rebuilds it whatever lecture.toml's [render] quality is (the copy's is the check).
        assert match[3] == (None if match[1] == "precompute" else quality), line
        fixes.setdefault((match[1], match[3]), []).append(match[2])
    for (fix, said), names in fixes.items():  # the commands the lines name, as they name them
        fixed = tree.run(*fix.split(), *names, *(("--quality", said) if said else ()))
        assert fixed.returncode == 0, fixed.stderr
    assert tree.outputs() == original, "the named commands did not bring back the built outputs"
    assert leftovers(tree.root) == []  # restoring a stage whose other outputs were intact left no temporary link
    again = tree.run(*(BUILD if command == BUILD else SCENES))
    assert "up to date" in again.stderr, again.stderr


@pytest.mark.parametrize("how", ["truncated", "replaced"])
def test_damaged_state_is_named_and_the_build_recovers(tree: Tree, how: str) -> None:
    """state.json that is not JSON (truncated; zeroed fails the same way) or JSON that is not a table of
    stages (replaced by a slide JSON). A plain build plans every experiment and every scene at check and
    restores each; the sample deck's build restores its preview stages."""
    state = tree.root / ".seqanim" / "state.json"
    original = tree.outputs()
    stages = len(json.loads(state.read_text()))
    planned = len(registry.experiments()) + len(registry.scenes())
    other = (tree.root / f"slides/{QUALITY}/QueryKeyValue.json").read_bytes()
    replace(state, DAMAGE[how](state.read_bytes(), other))

    result = tree.run("build")
    assert result.returncode == 0, result.stderr
    warning, summary = lines(result.stderr)
    assert warning.startswith("warning: .seqanim/state.json is corrupt (kept as state.json.corrupt)")
    assert summary == f"ran 0, restored {planned} from cache"  # every stage checked again, none recomputed
    sample = tree.run(*SCENES)
    assert sample.returncode == 0, sample.stderr
    assert lines(sample.stderr) == [f"ran 0, restored {stages - planned} from cache"]
    assert tree.outputs() == original
    assert len(json.loads(state.read_text())) == stages
    assert leftovers(tree.root) == []
    assert "up to date" in tree.run("build").stderr
    (state.parent / "state.json.corrupt").unlink()


def _damage_in_place(path: Path, how: str) -> None:
    """Damage a cache entry's file in place."""
    with open(path, "r+b") as handle:
        payload = DAMAGE[how](handle.read(), b"")
        handle.seek(0)
        handle.truncate()
        handle.write(payload)


def test_damaged_cache_entry_is_named_dropped_and_rebuilt(tree: Tree) -> None:
    """The entry of the other length, damaged in place: its npz zeroed, same size (only its content tells).
    Going back to those parameters names it in one warning, drops the entry and runs the stage: a damaged entry
    is never restored. Every entry is checked the same way, a scene's with its
    folder of slide videos too; bench/faults.py damages a scene's."""
    assert tree.run(*OTHER).returncode == 0
    path = tree.root / "data" / "linear_rnn.npz"
    built = path.read_bytes()
    entry = tree.cache_entry("experiment:linear_rnn")
    assert tree.run("precompute", "linear_rnn").returncode == 0  # back to the lecture's length
    _damage_in_place(entry / "0-linear_rnn.npz", "zeroed")

    result = tree.run(*OTHER)
    assert result.returncode == 0, result.stderr
    assert lines(result.stderr) == [
        f"warning: .seqanim/cache/{entry.name}/0-linear_rnn.npz in the cache is damaged; "
        "entry dropped, experiment:linear_rnn is rebuilt",
        "ran 1, restored 0 from cache",
    ]
    assert path.read_bytes() == built  # recomputed, not the damaged bytes
    assert tree.run("precompute", "linear_rnn").returncode == 0


def test_output_truncated_in_place_is_named_and_restored_whole_from_the_cache(tree: Tree) -> None:
    """The cache keeps copies: an output of this copy truncated in place is named, leaves its cache entry
    whole, and rebuilding it on request restores the entry (its content checked) instead of recomputing. The
    rebuild runs with `-j 0`, all cores."""
    path = _restored(tree, "linear_rnn")
    built = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.truncate(len(built) // 2)
    line = one_error_line(tree.run("precompute"))
    assert "data/linear_rnn.npz changed since it was built" in line
    fixed = tree.run("precompute", "linear_rnn", "-j", "0")
    assert fixed.returncode == 0, fixed.stderr
    assert lines(fixed.stderr) == ["ran 0, restored 1 from cache"]
    assert path.read_bytes() == built
    contract.load("linear_rnn", directory=tree.root / "data")
    assert "up to date" in tree.run("precompute").stderr


# --- bad input: one line, exit 2 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("present", "no-such-deck"), "error: unknown deck 'no-such-deck'; known: rnn,"),
        (("build", "--config", "missing.toml"), "missing.toml: parameters file not found"),
        (("build", "--config", "{bad}"), "not valid TOML"),
        (("build", "--quality", "ultra"), f"'ultra' is not one of {', '.join(map(repr, MANIM_QUALITY))}"),
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


# --- the cache's size limit, and cleaning (these run last: they empty the copy) --------------------------


def _cache_bytes(tree: Tree) -> int:
    return sum(f.stat().st_size for f in (tree.root / ".seqanim" / "cache").rglob("*") if f.is_file())


def test_cache_eviction_keeps_outputs(tree: Tree) -> None:
    """A build that uses an entry (here a restore: the damaged npz rebuilt on request) trims the cache to
    `[build] cache_mb` after: least recently used first, the entry it used kept, outputs never."""
    cache = tree.root / ".seqanim" / "cache"
    used = {entry.name: (entry / "COMPLETE").stat().st_mtime for entry in cache.iterdir()}
    assert _cache_bytes(tree) > 1024 * 1024
    before = tree.outputs()
    path = tree.root / "data" / "linear_rnn.npz"
    replace(path, DAMAGE["zeroed"](path.read_bytes(), b""))
    result = tree.run("precompute", "linear_rnn", "--set", "build.cache_mb=1")
    assert result.returncode == 0 and "ran 0, restored 1" in result.stderr, result.stderr
    assert _cache_bytes(tree) <= 1024 * 1024
    new = tree.cache_entry("experiment:linear_rnn").name
    kept = {entry.name for entry in cache.iterdir()}
    assert new in kept and len(kept) < len(used)
    evicted = set(used) - kept
    newest_evicted = max(used[name] for name in evicted)
    assert all(used[name] >= newest_evicted for name in kept - {new}), "evicted a more recently used entry"
    assert tree.outputs() == before  # outputs are never evicted: only the cache's links to them


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
