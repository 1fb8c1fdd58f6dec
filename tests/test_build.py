"""The build graph, the CLI and bad input, run for real on an isolated copy of the built lecture (tests/tree.py):
the suite built it at the check quality, and its sample deck at preview. The graph's and the cache's tests run
at the check quality (no frame drawn); a change's reach into a deck is shown on the sample deck, and the one
test about manim's shared LaTeX renders a scene at preview."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from seqanim.decks.plan import deck_names
from seqanim.engine import code, graph
from seqanim.errors import ConfigError, DataError
from seqanim.lecture import contract, registry
from seqanim.lecture.config import experiment_params, load
from seqanim.stages.render import SHARED_MEDIA
from seqanim.workspace import current
from tests.conftest import CHECK, QUALITY, SAMPLE, SAMPLE_SCENES
from tests.tree import Tree, make_tree, one_error_line


@pytest.fixture(scope="module")
def tree(lecture_built: Path, tmp_path_factory: pytest.TempPathFactory) -> Tree:
    return make_tree(tmp_path_factory.mktemp("tree") / "lecture")


def would_run(result) -> set[str]:  # noqa: ANN001
    """The stages a --dry-run lists."""
    assert result.returncode == 0, result.stderr
    return {line.split()[2] for line in result.stdout.splitlines() if line.startswith("would run")}


def reading(experiments: set[str]) -> list[str]:
    """The scenes that read one of `experiments`, as the registry declares them."""
    return [name for name in registry.scenes() if experiments & set(registry.scene(name).data)]


# --- the graph --------------------------------------------------------------------------------------


def test_every_scene_and_experiment_is_in_the_graph(lecture_built: Path) -> None:
    """At a quality that draws, the graph holds every experiment, scene, narrated cut and deck; at the check
    quality, which draws nothing, the experiments and the scenes' checks only. `make test` built the whole
    lecture at the check quality and the sample deck at preview first: nothing of either may be stale."""
    lecture = load()
    stages = graph.plan(lecture, QUALITY)
    kinds = {stage.kind for stage in stages.values()}
    assert kinds == {"experiment", "scene", "narration", "deck"}
    assert {s.name for s in stages.values() if s.kind == "scene"} == set(registry.scenes())
    assert {s.name for s in stages.values() if s.kind == "narration"} == set(registry.scenes())
    assert {s.name for s in stages.values() if s.kind == "experiment"} == set(registry.experiments())
    assert {s.name for s in stages.values() if s.kind == "deck"} == set(deck_names(lecture))
    checked = graph.plan(lecture, CHECK)
    assert {stage.kind for stage in checked.values()} == {"experiment", "scene"}
    assert {s.name for s in checked.values() if s.kind == "scene"} == set(registry.scenes())
    assert {s.name for s in checked.values() if s.kind == "experiment"} == set(registry.experiments())
    assert graph.pending(checked) == {}, "make test checks the whole lecture first: nothing may be stale"
    sample = graph.plan(lecture, QUALITY, decks=[SAMPLE])
    assert {s.name for s in sample.values() if s.kind == "scene"} == set(SAMPLE_SCENES)
    assert graph.pending(sample) == {}, "make test builds the sample deck first: nothing of it may be stale"


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
    """The lecture at the check quality, and the sample deck at preview, built again: nothing runs or changes."""
    before = tree.outputs()
    for command in (("build",), ("slides", SAMPLE, "--quality", QUALITY)):
        result = tree.run(*command)
        assert result.returncode == 0, result.stderr
        assert "up to date" in result.stderr, (command, result.stderr)
    assert tree.outputs() == before


def test_latex_is_compiled_once_for_every_scene_and_quality(tree: Tree, tmp_path: Path) -> None:
    """manim's LaTeX and text SVGs live in one folder for every scene and quality (the check quality is one): a
    scene rendered at a quality it was never built at finds every formula there. WeightedRetrieval, whose
    formulas its check compiled, is rendered at preview: its `latex` and `dvisvgm` fail if called, and it
    neither adds a file to the folder nor writes one there (manim rewrites a Text's SVG each time it builds
    it: done in the shared file, a parallel render could read it empty, and a killed one leave it so)."""
    built = current().media  # the session's check of every scene, and its render of the sample scenes
    for quality in (CHECK, QUALITY):
        kept = list(built.glob(f"{quality}/*/Tex")) + list(built.glob(f"{quality}/*/texts"))
        assert kept == [], f"a scene keeps its own: {kept[:3]}"
    media = tree.root / ".seqanim" / "media"  # the copy's: linked from the build's
    shared = _files(media)
    assert any(name.endswith(".svg") for name in shared["Tex"]), "the lecture's formulas are not in the shared folder"
    for tool in ("latex", "dvisvgm"):  # first on PATH: a formula compiled again fails the render
        stub = tmp_path / tool
        stub.write_text(f"#!/bin/sh\necho '{tool} was called' >&2\nexit 1\n")
        stub.chmod(0o755)
    path = f"{tmp_path}{os.pathsep}{os.environ['PATH']}"
    scene = "WeightedRetrieval"
    assert "MathTex(" in registry.scene(scene).source.read_text(), "the scene must have formulas to test this"
    assert not (tree.root / "renders" / QUALITY / f"{scene}.mp4").exists(), "the scene was only checked"
    result = tree.run("render", scene, "--quality", QUALITY, env={"PATH": path})
    assert result.returncode == 0 and "ran 1, restored 0" in result.stderr, result.stderr
    assert (tree.root / "renders" / QUALITY / f"{scene}.mp4").is_file()
    assert _files(media) == shared


def _files(media: Path) -> dict[str, dict[str, tuple[int, int]]]:
    """Per shared folder of manim's, its files' inodes and times of last writing."""
    return {
        folder: {path.name: (path.stat().st_ino, path.stat().st_mtime_ns) for path in (media / folder).iterdir()}
        for folder in SHARED_MEDIA
    }


def test_dry_run_lists_exactly_what_adding_T_feeds(tree: Tree) -> None:
    """The tree's build (the check quality) reruns the experiment a parameter feeds, those that read it and the
    checks of the scenes that read any of them, nothing else. At a quality that draws, their narrated cuts and
    the decks that show them follow: the test below shows it on the sample deck."""
    lecture = load()
    changed = lecture.adding.T + 1
    result = tree.run("build", "--dry-run", "--set", f"adding.T={changed}")
    experiments = {"adding", "lstm_inside"}  # lstm_inside reads adding's trained LSTM
    assert "adding" in registry.experiment("lstm_inside").reads
    scenes = {"AddingProblem", "TrainingRace", "InsideTheLSTM"}
    assert set(reading(experiments)) == scenes
    assert would_run(result) == {f"experiment:{name}" for name in experiments} | {
        f"scene:{CHECK}:{name}" for name in scenes
    }
    assert f"adding.T {lecture.adding.T} -> {changed}" in result.stdout


def test_theme_change_reaches_scenes_and_decks_but_not_data(tree: Tree) -> None:
    """The theme reruns every scene's check, and at preview the sample deck's scenes, their narrated cuts (their
    video changed) and the deck; no experiment."""
    theme = 'theme.background="#000000"'
    assert would_run(tree.run("build", "--dry-run", "--set", theme)) == {
        f"scene:{CHECK}:{name}" for name in registry.scenes()
    }
    deck = tree.run("slides", SAMPLE, "--quality", QUALITY, "--dry-run", "--set", theme)
    assert would_run(deck) == {
        f"{kind}:{QUALITY}:{name}" for kind in ("scene", "narration") for name in SAMPLE_SCENES
    } | {f"deck:{QUALITY}:{SAMPLE}"}


def test_code_change_reruns_only_its_stages(tree: Tree) -> None:
    source = tree.root / "precompute" / "positional.py"
    original = source.read_text()
    try:
        source.write_text(original + "\n# a comment changes the code fingerprint\n")
        result = tree.run("build", "--dry-run")
        would = [line.split()[2] for line in result.stdout.splitlines() if line.startswith("would run")]
        assert would[0] == "experiment:positional"
        assert "precompute/positional.py changed" in result.stdout
        assert set(would) == {"experiment:positional", *(f"scene:{CHECK}:{name}" for name in reading({"positional"}))}
    finally:
        source.write_text(original)


def test_an_experiment_depends_on_no_narration_code(lecture_built: Path) -> None:
    """An experiment runs no voice, caption or slide code: editing those reruns scenes and their cuts and
    trains nothing again. Scenes import the public API (`from seqanim import LectureSlide`), whose names are
    followed to their modules; its type-only imports are not."""
    from seqanim.workspace import ENGINE

    narration = {
        f"code:seqanim/{name}.py" for name in ("publish/voice", "publish/captions", "author/slide", "publish/narrate")
    }
    runner = set(code.code_inputs(ENGINE / "stages" / "experiments.py"))
    assert runner & narration == set() and "code:seqanim/lecture/contract.py" in runner
    for name in registry.experiments():
        assert set(code.code_inputs(registry.experiment(name).source)) & narration == set(), name
    for name in registry.scenes():
        scene = registry.scene(name)
        assert {"code:seqanim/author/slide.py", "code:seqanim/publish/voice.py"} <= set(
            code.code_inputs(scene.source)
        ), name


def test_switching_back_restores_from_cache(tree: Tree) -> None:
    """A parameter changed reruns its experiment and the scene's check; changed back, both come back from the
    cache, byte for byte (a variant's video does too: tests/test_variants.py)."""
    seed = load().linear_rnn.seed
    scene = "EchoOfAPulse"
    assert "linear_rnn" in registry.scene(scene).data
    names = [
        "data/linear_rnn.npz",
        "data/linear_rnn.json",
        *(f"renders/{CHECK}/{scene}.{ext}" for ext in ("report.json", "png")),
    ]
    before = tree.outputs()
    # -j 1: the two stages run one after the other, so one worker of the local cluster is enough
    changed = tree.run("render", scene, "-j", "1", "--set", f"linear_rnn.seed={seed + 1}")
    assert changed.returncode == 0 and "ran 2, restored 0 from cache" in changed.stderr, changed.stderr
    assert tree.outputs()["data/linear_rnn.npz"] != before["data/linear_rnn.npz"]
    back = tree.run("render", scene)
    assert back.returncode == 0, back.stderr
    assert "ran 0, restored 2 from cache" in back.stderr
    after = tree.outputs()
    for name in names:
        assert after[name] == before[name], name


def test_list_shows_the_graph(tree: Tree) -> None:
    """At a quality that draws, the graph has decks too (the check quality's has none)."""
    result = tree.run("list", "--quality", QUALITY)
    assert result.returncode == 0, result.stderr
    for name in ("adding", "lstm_inside", "InsideTheLSTM", "RopeRotation", "why-attention", SAMPLE):
        assert name in result.stdout


# --- bad input: one line, exit 2, nothing overwritten ----------------------------------------------------


BAD_PARAMETERS = [
    ("adding.bogus=1", "unknown key 'adding.bogus'"),
    ("adding.T=forty", "adding.T = 'forty'"),
    ("adding.T=2", "adding.T = 2 is out of range: allowed >= 4"),
    ("linear_rnn.rhos=[0.9, -1.0]", "spectral radius -1.0"),
    ("qkv_walkthrough.temperature=0", "qkv_walkthrough.temperature = 0 is out of range"),
    ("qkv_walkthrough.is_real_key=[false, true, true]", "is_real_key[0] must be true"),
]


@pytest.mark.parametrize(("override", "expected"), BAD_PARAMETERS)
def test_bad_parameter_is_named_in_one_line(override: str, expected: str) -> None:
    """Each rule (a known key, its type, its range, an experiment's own check) refuses a bad value with a message
    of one line, as `load` makes it for every command's --set and --config (its CLI line: the test below)."""
    with pytest.raises(ConfigError) as raised:
        load(overrides=[override])
    assert expected in str(raised.value) and "\n" not in str(raised.value)


def test_bad_parameter_is_one_line_and_changes_nothing(tree: Tree) -> None:
    """The command prints that message as its one line, exits 2 and overwrites nothing (one rule stands for all:
    they share the path from `load` to the CLI)."""
    override, expected = BAD_PARAMETERS[2]
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
        [sys.executable, "-m", "seqanim.engine.worker", "scene", "HiddenStateDynamics", "--quality", QUALITY],
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
        [sys.executable, "-m", "seqanim.engine.worker", "scene", "HiddenStateDynamics", "--quality", QUALITY],
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
        "from seqanim import LectureSlide, Part\n\n"
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
