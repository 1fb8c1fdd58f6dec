"""`seqanim new`: in a workspace of its own, a new experiment and a new scene build, render, lint and pass
their generated tests, with no other edit (docs/authoring.md walks through the same steps). The workspace builds
the new experiment's data and the new scene's check only (`seqanim render --quality check`: the scene's code run
with each animation skipped to its end, its words timed, its layout checked and its last frame drawn), which is
what the generated tests read, as the suite's do; nothing else of the lecture is built. That a check reports
what a render of its frames does is tests/test_check.py's to show; the suite renders its sample deck for real."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from seqanim.workspace import REPOSITORY, WORKSPACE_ENV
from tests.conftest import CHECK, QUALITY, TEST_WORKSPACE_ENV, frame_settings

LECTURER_FILES = ("lecture.toml", "pyproject.toml", "precompute", "scenes", "tests/__init__.py", "tests/conftest.py")


def _workspace(root: Path) -> Path:
    """A new workspace holding only the lecturer's files: no data, no renders, no cache."""
    for name in LECTURER_FILES:
        source, target = REPOSITORY / name, root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    return root


def _run(root: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    # The workspace's own precompute and scenes first, then this checkout's engine (not the editable install's).
    path = os.pathsep.join((str(root), str(REPOSITORY)))
    # A suite run here tests this workspace as it is (built by the test), not a copy of it.
    env = {**os.environ, WORKSPACE_ENV: str(root), "PYTHONPATH": path, TEST_WORKSPACE_ENV: str(root)}
    env["SEQANIM_TEST_SKIP_BUILD"] = "1"
    result = subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(args)}:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    return result


def _free_names() -> tuple[str, str]:
    """demo_exp and DemoScene, as the guide names them; numbered when a lecturer has already added those to this
    repository (whose suite then runs their generated tests too)."""
    for suffix in ["", *map(str, range(2, 100))]:
        experiment, scene = f"demo_exp{suffix}", f"DemoScene{suffix}"
        taken = (REPOSITORY / "precompute" / f"{experiment}.py").exists() or any(
            f"class {scene}(" in path.read_text() for path in (REPOSITORY / "scenes").rglob("*.py")
        )
        if not taken:
            return experiment, scene
    raise AssertionError("no free demo name")


EXPERIMENT, SCENE = _free_names()
SNAKE = "demo_scene" + SCENE.removeprefix("DemoScene")


@pytest.fixture(scope="module")
def authored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _workspace(tmp_path_factory.mktemp("authoring") / "lecture")
    _run(root, "-m", "seqanim.cli", "new", "experiment", EXPERIMENT)
    _run(root, "-m", "seqanim.cli", "new", "scene", SCENE, "--data", EXPERIMENT, "--part", "rnn")
    _run(root, "-m", "seqanim.cli", "render", SCENE, "--quality", CHECK)  # the report the generated tests read
    return root


def test_new_files_are_where_the_guide_says(authored: Path) -> None:
    assert (authored / "precompute" / f"{EXPERIMENT}.py").is_file()
    assert f"class {SCENE}(LectureSlide):" in (authored / "scenes" / "rnn" / f"{SNAKE}.py").read_text()
    assert f'"{SNAKE}",\n    ),' in (authored / "scenes" / "rnn" / "__init__.py").read_text()  # last in the order
    assert (authored / "tests" / f"test_precompute_{EXPERIMENT}.py").is_file()
    assert (authored / "tests" / f"test_scene_{SNAKE}.py").is_file()
    assert f"[{EXPERIMENT}]" in (authored / "lecture.toml").read_text()
    _run(authored, "-m", "seqanim.cli", "config", "--check")  # the new table has every key and comment


def test_the_new_scene_renders_from_the_new_data(authored: Path) -> None:
    """Its check: more than a second of animation, its last frame drawn at the check's size, its notes quoting
    the new experiment's result."""
    report = json.loads((authored / "renders" / CHECK / f"{SCENE}.report.json").read_text())
    assert report["duration"] > 1
    size = frame_settings(CHECK)
    with Image.open(authored / "renders" / CHECK / f"{SCENE}.png") as thumbnail:
        assert thumbnail.size == (size["pixel_width"], size["pixel_height"])
    sidecar = json.loads((authored / "data" / f"{EXPERIMENT}.json").read_text())
    assert f"final = {sidecar['metrics']['final']:.3g}" in report["notes"][0]


def test_the_new_scene_joins_its_part_deck(authored: Path) -> None:
    code = (
        "from seqanim.lecture.config import load; from seqanim.decks.plan import deck_scenes; "
        "print(deck_scenes(load(), 'rnn')[-1])"
    )
    assert _run(authored, "-c", code).stdout.strip() == SCENE
    dry = _run(authored, "-m", "seqanim.cli", "slides", "rnn", "--quality", QUALITY, "--dry-run").stdout
    assert f"would run experiment:{EXPERIMENT} " not in dry  # made above: up to date
    assert f"would run scene:{QUALITY}:{SCENE} " in dry  # the rnn deck renders it, to show it
    assert f"would run deck:{QUALITY}:rnn " in dry


def test_generated_tests_pass_and_lint_clean(authored: Path) -> None:
    generated = [f"tests/test_precompute_{EXPERIMENT}.py", f"tests/test_scene_{SNAKE}.py"]
    result = _run(authored, "-m", "pytest", "-q", "-p", "no:cacheprovider", *generated)
    assert "5 passed" in result.stdout
    sources = [f"precompute/{EXPERIMENT}.py", f"scenes/rnn/{SNAKE}.py", "scenes/rnn/__init__.py", *generated]
    _run(authored, "-m", "ruff", "check", "--no-cache", *sources)
    _run(authored, "-m", "ruff", "format", "--check", "--no-cache", *sources)


def test_a_scene_whose_layout_breaks_is_named_in_one_warning_line(authored: Path, tmp_path: Path) -> None:
    """A value a scene's layout was not made for builds (the lecturer may want it anyway), but the build says so:
    one line naming the scene, the count and the first problem, and the report that lists them all."""
    root = tmp_path / "lecture"
    shutil.copytree(authored, root, symlinks=True)
    scene = root / "scenes" / "rnn" / f"{SNAKE}.py"
    scene.write_text(scene.read_text().replace("plot.move_to(0.2 * DOWN)", "plot.move_to(0.2 * DOWN).shift([5, 0, 0])"))
    result = _run(root, "-m", "seqanim.cli", "render", SCENE, "--quality", CHECK)
    report = f"renders/{CHECK}/{SCENE}.report.json"
    problems = json.loads((root / report).read_text())["layout_violations"]
    assert problems and "outside frame" in problems[0]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: scene {SCENE}: {len(problems)} layout problems at these values, the first: {problems[0]}; "
        f"{report} lists them"
    ]


def test_a_name_that_exists_is_refused(authored: Path) -> None:
    env = {**os.environ, WORKSPACE_ENV: str(authored), "PYTHONPATH": str(authored)}
    result = subprocess.run(
        [sys.executable, "-m", "seqanim.cli", "new", "experiment", EXPERIMENT],
        cwd=authored,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: precompute/{EXPERIMENT}.py exists already; pick another name"


def test_a_scene_file_its_part_does_not_list_is_named_in_one_line(tmp_path: Path) -> None:
    """A scene written into scenes/rnn/ but left out of PART.scenes would never be built: the lecture refuses
    to load, naming the file and the fix; listed again, it loads."""
    root = _workspace(tmp_path / "lecture")
    scene = root / "scenes" / "rnn" / "echo_of_a_pulse.py"
    scene.rename(scene.with_name("echo_copy.py"))
    env = {**os.environ, WORKSPACE_ENV: str(root), "PYTHONPATH": os.pathsep.join((str(root), str(REPOSITORY)))}
    result = subprocess.run(
        [sys.executable, "-m", "seqanim.cli", "list"], cwd=root, env=env, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: scenes/rnn/echo_copy.py holds a scene but scenes/rnn/__init__.py does not list it; "
        "add 'echo_copy' to PART.scenes where it belongs in the order"
    ]
    part = root / "scenes" / "rnn" / "__init__.py"
    part.write_text(part.read_text().replace('"echo_of_a_pulse"', '"echo_copy"'))
    listed = subprocess.run(
        [sys.executable, "-m", "seqanim.cli", "list"], cwd=root, env=env, capture_output=True, text=True
    )
    assert listed.returncode == 0, listed.stderr
    assert "EchoOfAPulse" in listed.stdout


def test_the_public_api_names_what_a_lecture_imports_and_loads_nothing_heavy() -> None:
    """`from seqanim import LectureSlide, mark, ...` gives the objects of their modules; `import seqanim` alone
    imports neither manim nor torch (the commands import it first)."""
    check = (
        "import sys, seqanim; heavy = sorted({'manim', 'torch'} & set(sys.modules)); "
        "from seqanim import *; from seqanim.author.slide import LectureSlide as S; "
        "from seqanim.author.spoken import mark as m; "
        "print(heavy, LectureSlide is S, mark is m)"
    )
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=REPOSITORY, check=True)
    assert result.stdout.split() == ["[]", "True", "True"], result.stdout


def test_the_engines_map_in_docs_names_every_place_of_the_build_core() -> None:
    """docs/engine.md's table of concepts names every top-level name of the build core, and nothing the code lacks."""
    result = subprocess.run(
        [sys.executable, str(REPOSITORY / "bench" / "lines.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
