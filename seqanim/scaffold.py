"""`seqanim new`: working skeletons for the people who extend the lecture.

`new experiment NAME` writes precompute/NAME.py (a parameter model, a tiny seeded computation, `run`),
its table in lecture.toml and its test. `new scene NAME --data EXPERIMENT --part PART` computes the
experiment if its data is missing, then writes scenes/PART/<name>.py and adds it last to the part's scenes
(so it joins that part's deck): a scene that plots one of the experiment's arrays, with its words beside it
(notes formatted from the metrics, narration for the listener in two beats), and its test. Nothing is
overwritten: a name that exists already is an error.
"""

from __future__ import annotations

import ast
import keyword
import re
import subprocess
import sys
from pathlib import Path

from seqanim.errors import ConfigError
from seqanim.files import atomic_write_text
from seqanim.lecture import registry
from seqanim.lecture.contract import read_sidecar
from seqanim.workspace import Workspace

EXPERIMENT_TEMPLATE = '''\
"""{name}: a new experiment. Say here what it computes and which notebook cell it comes from."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from precompute.common import deterministic
from seqanim import Experiment, Field, Params


class Parameters(Params):
    steps: int = Field(40, ge=2, le=10000, description="time steps of the signal")
    decay: float = Field(0.9, gt=0, le=1.5, description="factor the signal is multiplied by per step")
    noise: float = Field(0.02, ge=0, le=1, description="standard deviation of the noise added per step")
    seed: int = Field(0, ge=0, description="torch seed of the noise")


EXPERIMENT = Experiment(Parameters, seconds=0.1)


def run(params: Parameters) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A decaying signal h_t = decay^t + noise: replace with the notebook's computation."""
    deterministic(params.seed)
    steps = torch.arange(params.steps, dtype=torch.float64)
    signal = params.decay**steps + params.noise * torch.randn(params.steps, dtype=torch.float64)
    arrays = {{"steps": steps.numpy(), "signal": signal.numpy()}}
    metrics = {{"final": float(signal[-1]), "half_life": float(np.log(0.5) / np.log(params.decay))}}
    return arrays, metrics
'''

EXPERIMENT_TEST_TEMPLATE = '''\
"""precompute/{name}.py: its defaults compute, and what it writes to data/ is what the scene reads."""

from __future__ import annotations

import numpy as np

from precompute.{name} import Parameters, run


def test_{name}_runs_with_its_defaults() -> None:
    params = Parameters()
    arrays, metrics = run(params)
    assert all(np.isfinite(np.asarray(value, dtype=float)).all() for value in arrays.values())
    assert all(np.isfinite(value) for value in metrics.values())


def test_{name}_is_deterministic() -> None:
    first, _ = run(Parameters())
    second, _ = run(Parameters())
    assert all(np.array_equal(first[key], second[key]) for key in first)
'''

SCENE_TEMPLATE = '''\
"""{name}: one slide that draws `{array}` from data/{experiment}.npz. Say here what it shows and which notebook
cell it comes from."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import DOWN, Create, FadeIn

from seqanim import Artifact, LectureSlide, spoken, translated
from seqanim.kit import theme
from seqanim.kit.plots import Plot, nice_range

# --- the words: the slide's facts computed once, phrased for the lecturer (notes), the listener (said) and
# the screen; one sentence per beat, by name ------------------------------------------------------------------


@dataclass(frozen=True)
class Curve:
    """What the slide tells of `{array}`: read from the data once; every phrasing reads these fields."""

    count: int  # how many values
    low: float
    high: float


def curve_facts(art: Artifact) -> Curve:
    values = art["{array}"]
    return Curve(count=len(values), low=float(values.min()), high=float(values.max()))


def curve_notes(art: Artifact) -> str:
    """The speaker notes, formatted from the slide's facts and the experiment's metrics."""
    facts = curve_facts(art)
    return {notes_text}


@translated  # each language of [publish] languages may write these beats again (scenes/<part>/de.py)
def curve_said(art: Artifact) -> dict[str, str]:
    """What the listener hears, beat by beat: while the plot appears, then while its curve is drawn."""
    facts = curve_facts(art)
    return {{
        "appears": "This plot shows {array_words}, computed by the {experiment_words} experiment.",
        "drawn": f"Its {{spoken.count(facts.count, 'value')}} run from {{spoken.number(facts.low)}} "
        f"{{spoken.mark('top')}}to {{spoken.number(facts.high)}}.",
    }}


# --- the scene ----------------------------------------------------------------------------------------------


class {name}(LectureSlide):
    """{experiment}: `{array}` as a curve."""

    data = ("{experiment}",)

    def construct(self) -> None:
        self.art = self.load("{experiment}")
        self.curve()

    def curve(self) -> None:
        values, facts = self.art["{array}"], curve_facts(self.art)
        said = curve_said(self.art)
        self.next_slide(notes=curve_notes(self.art))
        plot = Plot(
            (0, facts.count - 1, max(1, (facts.count - 1) // 4)),
            nice_range(facts.low, facts.high),
            width=7.5, height=3.8, x_label="index", y_label="{array}",
        )  # fmt: skip
        plot.move_to(0.2 * DOWN)  # between the title and the caption
        # Each beat lasts as long as its words: its animations take their run times from them.
        with self.beat(said["appears"]) as beat:
            self.title("{title}", along=[FadeIn(plot)], run_time=beat.remaining)
        with self.beat(said["drawn"]) as beat:
            curve = plot.curve(np.arange(len(values)), values, theme.highlight())
            self.play(Create(curve), run_time=beat.until("top"))  # drawn while its range is said
            self.say({caption}, run_time=beat.remaining)
'''

SCENE_TEST_TEMPLATE = '''\
"""{name} (scenes/{part}/{snake}.py): what it says is what data/{experiment}.npz holds, in words a listener hears."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scenes.{part}.{snake} import curve_notes, curve_said
from seqanim.author import spoken
from seqanim.lecture import contract


def test_{snake}_renders_one_clean_slide(scene_report: Callable[[str], dict[str, Any]]) -> None:
    report = scene_report("{name}")
    assert report["slides"] == 1
    assert report["layout_violations"] == []


def test_{snake}_notes_come_from_the_data(scene_report: Callable[[str], dict[str, Any]]) -> None:
    art = contract.load("{experiment}")
    assert scene_report("{name}")["notes"] == [curve_notes(art)]
{metric_asserts}

def test_{snake}_narration_is_heard_and_quotes_the_data() -> None:
    art = contract.load("{experiment}")
    said = curve_said(art)
    assert all(spoken.unheard(beat) == [] for beat in said.values())
    assert spoken.number(float(art["{array}"].max())) in said["drawn"]
'''


def _identifier(name: str, what: str, pattern: str) -> str:
    if not re.fullmatch(pattern, name) or keyword.iskeyword(name):
        raise ConfigError(
            f"'{name}' is not a valid {what} name "
            f"({'snake_case' if what == 'experiment' else 'CamelCase'} letters and digits)"
        )
    return name


def _snake(camel: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel).lower()


def new_experiment(workspace: Workspace, name: str) -> list[Path]:
    """precompute/NAME.py, its lecture.toml table and tests/test_precompute_NAME.py."""
    _identifier(name, "experiment", r"[a-z][a-z0-9_]*")
    module = workspace.precompute / f"{name}.py"
    test = workspace.root / "tests" / f"test_precompute_{name}.py"
    for path in (module, test):
        if path.exists():
            raise ConfigError(f"{workspace.label(path)} exists already; pick another name")
    atomic_write_text(module, EXPERIMENT_TEMPLATE.format(name=name))
    registry.forget()
    from seqanim.lecture import defaults  # after the module exists: its table comes from its model

    atomic_write_text(workspace.config, workspace.config.read_text().rstrip("\n") + "\n\n" + defaults.table(name))
    atomic_write_text(test, EXPERIMENT_TEST_TEMPLATE.format(name=name))
    _tidy(module, test)
    return [module, workspace.config, test]


def _first_curve(workspace: Workspace, experiment: str) -> str:
    """The experiment's first 1-D array of numbers: what the new scene plots."""
    try:
        sidecar = read_sidecar(experiment)
    except Exception:  # noqa: BLE001 - no data yet (or stale): compute it, then read again
        result = subprocess.run(
            [sys.executable, "-m", "seqanim.cli", "precompute", experiment],
            cwd=workspace.root,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise ConfigError(
                f"`seqanim precompute {experiment}` failed; fix it first "
                f"({(result.stderr.strip().splitlines() or ['?'])[-1]})"
            ) from None
        sidecar = read_sidecar(experiment)
    for key, spec in sidecar["arrays"].items():
        if len(spec["shape"]) == 1 and spec["shape"][0] >= 2 and spec["dtype"].startswith(("float", "int")):
            return key
    raise ConfigError(f"data/{experiment}.npz has no 1-D array to plot; write the scene by hand (docs/authoring.md)")


def _tidy(*paths: Path) -> None:
    """Sort and merge imports and format, as `make test`'s lint expects (ruff is in the test extras)."""
    files = [str(path) for path in paths]
    subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--quiet", "--fix", "--select", "I,F401", *files], capture_output=True
    )
    subprocess.run([sys.executable, "-m", "ruff", "format", "--quiet", *files], capture_output=True)


def _add_to_part(init: Path, module: str) -> str:
    """The part's __init__.py with `module` added last to `PART = Part(..., scenes=(...))`."""
    source = init.read_text()
    lines = source.splitlines(keepends=True)

    def offset(line: int, column: int) -> int:  # ast counts columns in UTF-8 bytes
        return sum(map(len, lines[: line - 1])) + len(lines[line - 1].encode()[:column].decode())

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Part":
            scenes = next((arg.value for arg in node.keywords if arg.arg == "scenes"), None)
            if isinstance(scenes, ast.Tuple) and scenes.elts:
                at = offset(scenes.elts[-1].end_lineno, scenes.elts[-1].end_col_offset)
                return f"{source[:at]}, {module!r}{source[at:]}"
            if isinstance(scenes, ast.Tuple):  # scenes=(): the first
                at = offset(scenes.lineno, scenes.col_offset) + 1
                return f"{source[:at]}{module!r},{source[at:]}"
    raise ConfigError(f"{init.name}: PART = Part(title, order, scenes=(...)) not found; add '{module}' by hand")


def new_scene(workspace: Workspace, name: str, experiment: str, part: str) -> list[Path]:
    """scenes/PART/<name>.py, a scene reading EXPERIMENT with its words beside it, added last to PART's scenes;
    and tests/test_scene_<name>.py."""
    from seqanim.decks.plan import humanise  # the title the decks give the scene

    _identifier(name, "scene", r"[A-Z][A-Za-z0-9]*")
    registry.experiment(experiment)
    parts = registry.parts()
    if part not in parts:
        raise ConfigError(f"unknown part '{part}'; known: {', '.join(parts)} (one per folder of scenes/)")
    if name in registry.scenes():
        raise ConfigError(
            f"a scene named {name} exists already ({workspace.label(registry.scene(name).source)}); pick another name"
        )
    init = parts[part].source
    if init.name != "__init__.py":
        raise ConfigError(f"{workspace.label(init)} is a part in one file; make it a folder (docs/authoring.md)")
    snake = _snake(name)
    module = init.parent / f"{snake}.py"
    test = workspace.root / "tests" / f"test_scene_{snake}.py"
    for path in (module, test):
        if path.exists():
            raise ConfigError(f"{workspace.label(path)} exists already; pick another name")
    array = _first_curve(workspace, experiment)
    metrics = [
        key
        for key, value in read_sidecar(experiment)["metrics"].items()
        if isinstance(value, (int, float)) and not isinstance(value, bool)
    ]
    metrics = [key for key in metrics if key != "seconds"]  # the run time is no fact of the lecture
    readouts = ' + ", " + '.join(f'f"{key} = {{art.metrics[{key!r}]:.3g}}"' for key in metrics) or '"no metrics"'
    notes_text = f'f"{name} plots {array} from data/{experiment}.npz ({{facts.count}} values). " + {readouts}'
    caption = f'f"{array}: {{facts.count}} values from data/{experiment}.npz"'
    words = {"array_words": _words(array), "experiment_words": _words(experiment)}
    part_source = _add_to_part(init, snake)  # before anything is written: a part it cannot read changes nothing
    atomic_write_text(module, SCENE_TEMPLATE.format(
        name=name, experiment=experiment, array=array, title=humanise(name), notes_text=notes_text, caption=caption,
        **words,
    ))  # fmt: skip
    metric_asserts = "".join(
        f'    assert f"{key} = {{art.metrics[{key!r}]:.3g}}" in curve_notes(art)\n' for key in metrics
    )
    atomic_write_text(test, SCENE_TEST_TEMPLATE.format(
        name=name, part=init.parent.name, experiment=experiment, array=array, snake=snake,
        metric_asserts=metric_asserts,
    ))  # fmt: skip
    atomic_write_text(init, part_source)
    _tidy(module, test, init)
    registry.forget()
    return [module, init, test]


def _words(name: str) -> str:
    """An identifier as words a voice can say: loss_curve2 -> "loss curve"."""
    return " ".join(re.sub(r"[^A-Za-z]+", " ", name).split()) or "its values"
