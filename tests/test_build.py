"""The build graph, the CLI and bad input, run for real on an isolated copy of the built lecture."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from seqanim import contract, graph, registry
from seqanim.config import experiment_params, load
from seqanim.decks.plan import deck_names, deck_scenes
from seqanim.errors import ConfigError, DataError
from seqanim.render import SHARED_MEDIA
from seqanim.workspace import current
from tests.conftest import QUALITY
from tests.tiny import HEIGHT, timed_lecture
from tests.tree import Tree, make_tree


@pytest.fixture(scope="module")
def tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return make_tree(tmp_path_factory.mktemp("tree") / "lecture")


def one_error_line(result) -> str:  # noqa: ANN001
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


# --- the graph --------------------------------------------------------------------------------------


def test_every_scene_and_experiment_is_in_the_graph(lecture_built: Path) -> None:
    stages = graph.plan(load(), QUALITY)
    kinds = {stage.kind for stage in stages.values()}
    assert kinds == {"experiment", "scene", "narration", "deck"}
    assert {s.name for s in stages.values() if s.kind == "scene"} == set(registry.scenes())
    assert {s.name for s in stages.values() if s.kind == "narration"} == set(registry.scenes())
    assert {s.name for s in stages.values() if s.kind == "experiment"} == set(registry.experiments())
    assert graph.pending(stages) == {}, "make test builds everything first: nothing may be stale"


def test_a_cold_build_starts_the_longest_chains_first() -> None:
    """With no timing history, the experiments' SECONDS hints order the work, and a stage inherits the
    cost of the longest chain of pending stages waiting on it (critical-path scheduling)."""
    stages = graph.plan(load(), QUALITY)
    priority = graph.priorities(stages, stages, state={})
    for stage_id, stage in stages.items():
        own = graph.expected_cost(stage, {})
        waiting = [other for other, candidate in stages.items() if stage_id in candidate.deps]
        assert priority[stage_id] == pytest.approx(own + max((priority[other] for other in waiting), default=0.0))
    experiments = sorted((s for s in stages if s.startswith("experiment:")), key=lambda s: -priority[s])
    seconds = {name: spec.seconds for name, spec in registry.experiments().items()}
    two_longest = sorted(seconds, key=lambda name: -seconds[name])[:2]
    assert {s.removeprefix("experiment:") for s in experiments[:2]} == set(two_longest)
    assert priority["experiment:adding"] > graph.expected_cost(
        stages["experiment:adding"], {}
    )  # lstm_inside waits on it
    recorded = {stage_id: {"seconds": 99.0} for stage_id in stages}
    assert graph.expected_cost(stages["experiment:positional"], recorded) == 99.0  # a measured time beats the hint


def test_second_build_does_nothing(tree: Tree) -> None:
    before = tree.outputs()
    result = tree.run("build")
    assert result.returncode == 0, result.stderr
    assert "up to date" in result.stderr
    assert tree.outputs() == before


def test_latex_is_compiled_once_for_every_scene_and_quality(tree: Tree, tmp_path: Path) -> None:
    """manim's LaTeX and text SVGs live in one folder for every scene and quality: a scene rendered at a quality
    the lecture was never built at finds every formula there. Its `latex` and `dvisvgm` fail if called, and it
    neither adds a file to the folder nor writes one there (manim rewrites a Text's SVG each time it builds
    it: done in the shared file, a parallel render could read it empty, and a killed one leave it so)."""
    built = current().media  # the session's build of every scene
    assert not list(built.glob(f"{QUALITY}/*/Tex")) + list(built.glob(f"{QUALITY}/*/texts")), "a scene keeps its own"
    media = tree.root / ".seqanim" / "media"  # the copy's: linked from the build's
    shared = _files(media)
    assert any(name.endswith(".svg") for name in shared["Tex"]), "the lecture's formulas are not in the shared folder"
    for tool in ("latex", "dvisvgm"):  # first on PATH: a formula compiled again fails the render
        stub = tmp_path / tool
        stub.write_text(f"#!/bin/sh\necho '{tool} was called' >&2\nexit 1\n")
        stub.chmod(0o755)
    path = f"{tmp_path}{os.pathsep}{os.environ['PATH']}"
    result = tree.run("render", "ScaledScores", "--quality", "low", env={"PATH": path})
    assert result.returncode == 0 and "ran 1, restored 0" in result.stderr, result.stderr
    assert _files(media) == shared


def _files(media: Path) -> dict[str, dict[str, tuple[int, int]]]:
    """Per shared folder of manim's, its files' inodes and times of last writing."""
    return {
        folder: {path.name: (path.stat().st_ino, path.stat().st_mtime_ns) for path in (media / folder).iterdir()}
        for folder in SHARED_MEDIA
    }


def test_dry_run_lists_exactly_what_adding_T_feeds(tree: Tree) -> None:
    lecture = load()
    changed = lecture.adding.T + 1
    result = tree.run("build", "--dry-run", "--set", f"adding.T={changed}")
    assert result.returncode == 0, result.stderr
    would = {line.split()[2] for line in result.stdout.splitlines() if line.startswith("would run")}
    decks = {
        f"deck:{QUALITY}:{name}"
        for name in deck_names(lecture)
        if {"AddingProblem", "TrainingRace", "InsideTheLSTM"} & set(deck_scenes(lecture, name))
    }
    expected = {
        "experiment:adding",
        "experiment:lstm_inside",
        f"scene:{QUALITY}:AddingProblem",
        f"scene:{QUALITY}:TrainingRace",
        f"scene:{QUALITY}:InsideTheLSTM",
        f"narration:{QUALITY}:AddingProblem",
        f"narration:{QUALITY}:TrainingRace",
        f"narration:{QUALITY}:InsideTheLSTM",
    } | decks
    assert would == expected
    assert f"adding.T {lecture.adding.T} -> {changed}" in result.stdout
    assert {f"deck:{QUALITY}:rnn", f"deck:{QUALITY}:full"} <= decks


def test_theme_change_reaches_scenes_and_decks_but_not_data(tree: Tree) -> None:
    result = tree.run("build", "--dry-run", "--set", 'theme.background="#000000"')
    would = {line.split()[2] for line in result.stdout.splitlines() if line.startswith("would run")}
    assert would and not any(stage.startswith("experiment:") for stage in would)
    assert {f"scene:{QUALITY}:{name}" for name in registry.scenes()} <= would


def test_code_change_reruns_only_its_stages(tree: Tree) -> None:
    source = tree.root / "precompute" / "positional.py"
    original = source.read_text()
    try:
        source.write_text(original + "\n# a comment changes the code fingerprint\n")
        result = tree.run("build", "--dry-run")
        would = [line.split()[2] for line in result.stdout.splitlines() if line.startswith("would run")]
        assert would[0] == "experiment:positional"
        assert "precompute/positional.py changed" in result.stdout
        assert all("positional" in line or "SinusoidalPositions" in line or line.startswith("deck:") for line in would)
    finally:
        source.write_text(original)


def test_an_experiment_depends_on_no_narration_code(lecture_built: Path) -> None:
    """An experiment runs no voice, caption or slide code: editing those reruns scenes and their cuts and
    trains nothing again. Scenes import the public API (`from seqanim import LectureSlide`), whose names are
    followed to their modules; its type-only imports are not."""
    from seqanim.workspace import ENGINE

    narration = {f"code:seqanim/{name}.py" for name in ("voice", "captions", "slide", "narrate")}
    runner = set(graph.code_inputs(ENGINE / "experiments.py"))
    assert runner & narration == set() and "code:seqanim/contract.py" in runner
    for name in registry.experiments():
        assert set(graph.code_inputs(registry.experiment(name).source)) & narration == set(), name
    for name in registry.scenes():
        scene = registry.scene(name)
        assert {"code:seqanim/slide.py", "code:seqanim/voice.py"} <= set(graph.code_inputs(scene.source)), name


def test_switching_back_restores_from_cache(tmp_path: Path) -> None:
    tree = timed_lecture(tmp_path / "tiny")  # a render of seconds: the lecture's scenes last a minute or more
    before = tree.outputs()
    changed = tree.run("render", "PulseScene", "--set", f"pulse.height={HEIGHT + 1}")
    assert changed.returncode == 0, changed.stderr
    assert tree.outputs()["data/pulse.npz"] != before["data/pulse.npz"]
    back = tree.run("render", "PulseScene")
    assert back.returncode == 0, back.stderr
    assert "ran 0, restored 2 from cache" in back.stderr
    after = tree.outputs()
    for name in ("data/pulse.npz", f"renders/{QUALITY}/PulseScene.mp4", f"slides/{QUALITY}/PulseScene.json"):
        assert after[name] == before[name]


def test_list_shows_the_graph(tree: Tree) -> None:
    result = tree.run("list")
    assert result.returncode == 0, result.stderr
    for name in ("adding", "lstm_inside", "InsideTheLSTM", "RopeRotation", "why-attention"):
        assert name in result.stdout


# --- bad input: one line, exit 2, nothing overwritten ----------------------------------------------------


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("adding.bogus=1", "unknown key 'adding.bogus'"),
        ("adding.T=forty", "adding.T = 'forty'"),
        ("adding.T=2", "adding.T = 2 is out of range: allowed >= 4"),
        ("linear_rnn.rhos=[0.9, -1.0]", "spectral radius -1.0"),
        ("qkv_walkthrough.temperature=0", "qkv_walkthrough.temperature = 0 is out of range"),
        ("qkv_walkthrough.is_real_key=[false, true, true]", "is_real_key[0] must be true"),
    ],
)
def test_bad_parameter_is_one_line_and_changes_nothing(tree: Tree, override: str, expected: str) -> None:
    before = tree.outputs()
    line = one_error_line(tree.run("build", "--set", override))
    assert expected in line
    assert tree.outputs() == before


def test_bad_parameters_file(tree: Tree, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text((tree.root / "lecture.toml").read_text().replace("hidden = 64", "hidden = 0", 1))
    before = tree.outputs()
    line = one_error_line(tree.run("build", "--config", str(bad)))
    assert "adding.hidden = 0 is out of range: allowed >= 2" in line
    assert tree.outputs() == before


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (("render", "NoSuchScene"), "unknown scene 'NoSuchScene'"),
        (("slides", "no-such-deck"), "unknown deck 'no-such-deck'"),
        (("precompute", "nope"), "unknown experiment 'nope'"),
    ],
)
def test_unknown_names(tree: Tree, command: tuple[str, ...], expected: str) -> None:
    assert expected in one_error_line(tree.run(*command))


def test_truncated_npz_is_named_and_not_overwritten(tree: Tree) -> None:
    path = tree.root / "data" / "positional.npz"
    original = path.read_bytes()
    try:
        path.write_bytes(original[: len(original) // 3])
        before = tree.outputs()
        line = one_error_line(tree.run("render", "SinusoidalPositions"))
        assert "data/positional.npz changed since it was built" in line and "seqanim precompute positional" in line
        assert tree.outputs() == before
        with pytest.raises(DataError, match="corrupt or truncated"):
            contract.load("positional", directory=tree.root / "data")
        repaired = tree.run("precompute", "positional")  # naming the stage rebuilds it (from the cache)
        assert repaired.returncode == 0, repaired.stderr
        assert path.read_bytes() == original
    finally:
        path.write_bytes(original)


def test_data_from_other_parameters_is_refused(tree: Tree, tmp_path: Path) -> None:
    lecture = load(overrides=["positional.length=20"])
    from precompute import positional

    arrays, metrics = positional.run(lecture.positional)
    contract.save("positional", arrays, metrics, experiment_params(lecture, "positional"), directory=tmp_path)
    with pytest.raises(
        DataError, match=r"made from other parameters \(positional.length: data has 20, lecture.toml has 60\)"
    ):
        contract.load("positional", params=experiment_params(load(), "positional"), directory=tmp_path)
    data = tree.root / "data"
    saved = {name: (data / name).read_bytes() for name in ("positional.npz", "positional.json")}
    try:
        for name in saved:
            (data / name).write_bytes((tmp_path / name).read_bytes())
        before = tree.outputs()
        line = one_error_line(tree.run("render", "SinusoidalPositions"))
        assert "data/positional" in line and "seqanim precompute positional" in line
        assert tree.outputs() == before
    finally:
        for name, payload in saved.items():
            (data / name).write_bytes(payload)


def test_missing_latex_is_named(tree: Tree, tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    import shutil
    import sys

    for tool in ("ffmpeg", "ffprobe"):
        (bare / tool).symlink_to(shutil.which(tool))
    import os
    import subprocess

    before = tree.outputs()
    completed = subprocess.run(
        [sys.executable, "-m", "seqanim.worker", "scene", "HiddenStateDynamics", "--quality", QUALITY],
        cwd=tree.root,
        env={**os.environ, "PYTHONPATH": str(tree.root), "PATH": str(bare)},
        capture_output=True,
        text=True,
    )
    line = one_error_line(completed)
    assert "LaTeX is missing" in line and "make setup" in line
    assert tree.outputs() == before


def test_missing_cairo_is_named(tree: Tree, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    shadow = tmp_path / "shadow"
    shadow.mkdir()
    # A module that fails to import as a real missing binding does; only the import check sees it.
    (shadow / "manimpango.py").write_text("raise ImportError('libpango-1.0.so.0: cannot open shared object file')\n")
    before = tree.outputs()
    completed = subprocess.run(
        [sys.executable, "-m", "seqanim.worker", "scene", "HiddenStateDynamics", "--quality", QUALITY],
        cwd=tree.root,
        env={**os.environ, "PYTHONPATH": f"{shadow}:{tree.root}"},
        capture_output=True,
        text=True,
    )
    line = one_error_line(completed)
    assert "Cairo/Pango bindings are missing" in line and "make setup" in line
    assert tree.outputs() == before


def test_scene_that_raises(tree: Tree) -> None:
    broken = tree.root / "scenes" / "zz_broken.py"
    broken.write_text(
        "from seqanim.declare import Part\n"
        "from seqanim.slide import LectureSlide\n\n"
        'PART = Part("Broken", order=99)\n\n\n'
        "class BrokenScene(LectureSlide):\n"
        '    data = ("linear_rnn",)\n\n'
        "    def construct(self) -> None:\n"
        '        self.next_slide(notes="about to fail")\n'
        "        raise ZeroDivisionError('a bug in the scene')\n"
    )
    try:
        before = tree.outputs()
        line = one_error_line(tree.run("render", "BrokenScene"))
        assert "scene BrokenScene raised ZeroDivisionError: a bug in the scene" in line
        assert tree.outputs() == before
    finally:
        broken.unlink()


def test_a_scenes_module_must_declare_its_part(tree: Tree) -> None:
    """Every module of scenes/ is a deck: one without PART gets one line that names the file and the fix."""
    stray = tree.root / "scenes" / "zz_no_part.py"
    stray.write_text('"""A module someone forgot to declare."""\n')
    try:
        line = one_error_line(tree.run("list"))
        assert (
            line
            == "error: scenes/zz_no_part.py: declare the lecture part, e.g. PART = Part('Recurrent networks', order=1)"
        )
    finally:
        stray.unlink()
    assert tree.run("list").returncode == 0  # the folder's bytes changed back: discovered again, cleanly


def test_override_syntax_is_checked() -> None:
    with pytest.raises(ConfigError, match="must look like section.key=value"):
        load(overrides=["adding"])
    with pytest.raises(ConfigError, match="render.quality = 'ultra'"):
        load(overrides=["render.quality=ultra"])
