"""The five recurrent-network scenes: clean layout, slide structure and notes quoting real data."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from seqanim.lecture.contract import Artifact
from tests.conftest import CHECK, frame_settings, lasts_its_words

# scene -> (slides it produces, index of its loop slide or None)
SCENES = {
    "HiddenStateDynamics": (6, 4),
    "EchoOfAPulse": (6, 4),
    "AddingProblem": (5, None),
    "TrainingRace": (4, None),
    "InsideTheLSTM": (6, None),
}


@pytest.mark.parametrize("scene", SCENES)
def test_scene_renders_cleanly(scene_report, scene: str) -> None:
    report = scene_report(scene)
    assert report["layout_violations"] == []
    frame = frame_settings(CHECK)
    assert report["resolution"] == [frame["pixel_width"], frame["pixel_height"]]
    assert report["slides"] == SCENES[scene][0]
    assert len(report["notes"]) == SCENES[scene][0]
    assert lasts_its_words(report), (report["duration"], report["beats"])


GATES = ("forget", "input", "output")


def _gate_change(gate: np.ndarray, markers: tuple[int, int]) -> str:
    """Mean change of a gate over the hidden units into the marked steps and the steps right after them."""
    steps = sorted({t for m in markers for t in (m, m + 1) if t < len(gate)})
    return f"{np.mean([np.abs(gate[t] - gate[t - 1]).mean() for t in steps]):.3f}"


def expected_notes(scene: str, artifact: Callable[[str], Artifact]) -> list[list[str]]:
    """Per slide, values formatted here from data/ that the slide's note must quote."""
    if scene == "HiddenStateDynamics":
        run = artifact("linear_rnn")
        rhos, finals = run["rhos"], run["norms"][:, -1]
        steps = run["norms"].shape[1] - 1
        regimes = [
            np.flatnonzero(rhos < 1 - 1e-9),
            np.flatnonzero(np.isclose(rhos, 1.0)),
            np.flatnonzero(rhos > 1 + 1e-9),
        ]
        return [
            [f"{steps} steps", ", ".join(f"{rho:.2f}" for rho in rhos)],
            *[[f"rho = {rhos[i]:.2f}: ||h_{steps}|| = {finals[i]:.3g}" for i in indices] for indices in regimes],
            [f"from {rhos.min():.2f} to {rhos.max():.2f}"],
            [f"{finals.min():.2g} to {finals.max():.3g}"],
        ]
    if scene == "EchoOfAPulse":
        run = artifact("linear_rnn")
        rhos, states = run["echo_rhos"], run["echo_states"]
        steps = states.shape[1] - 1
        radii = np.linalg.norm(states[:, -1], axis=-1)
        divisor = round(2 * np.pi / float(run["echo_angle"]))
        return [
            [f"2 pi/{divisor}", f"{steps} steps"],
            *[[f"{rho**divisor:.3g}", f"|h_{steps}| = {radius:.3g}"] for rho, radius in zip(rhos, radii)],
            [f"rho = {rho:g}: |h_{steps}| = {radius:.3g}" for rho, radius in zip(rhos, radii)],
            [f"{radius:.3g} (rho = {rho:g})" for rho, radius in zip(rhos, radii)],
        ]
    if scene == "AddingProblem":
        run = artifact("adding")
        values, marks = run["example_values"], run["example_marks"]
        first, second = (int(i) for i in np.flatnonzero(marks))
        return [
            [f"T = {len(values)} steps"],
            [f"seed {run.params['example_seed']}", f"t = {first} and t = {second}"],
            [f"{values[first]:.2f} at t = {first}", f"{second - first} steps apart"],
            [f"{values[first]:.2f} + {values[second]:.2f} = {float(run['example_target']):.2f}"],
            [f"{float(run['baseline']):.3f}", f"across {len(values) - 1 - first} steps"],
        ]
    if scene == "TrainingRace":
        run = artifact("adding")
        kinds, mse = [str(kind) for kind in run["kinds"]], run["test_mse"]
        finals = {kind: run.metrics[f"final_mse_{kind}"] for kind in kinds}
        return [
            [
                f"{run.params['hidden']} hidden units",
                f"{run.params['iters']} Adam steps",
                f"MSE {float(run['baseline']):.3f}",
            ],
            [f"{kind} starts at {mse[i, 0]:.3f}" for i, kind in enumerate(kinds)],
            [f"{kind} {finals[kind]:.3g}" for kind in kinds],
            [f"{finals['LSTM']:.3g}, {finals['GRU']:.3g}", f"({finals['RNN']:.3f})"],
        ]
    if scene == "InsideTheLSTM":
        run = artifact("lstm_inside")
        values, write, cell, guess = run["values"], run["write_norm"], run["cell_norm"], run["running_guess"]
        first, second = (int(m) for m in run["markers"])
        target = float(run["target"])
        return [
            [f"t = {first} and t = {second}", f"{values[first]:.2f} + {values[second]:.2f}, target {target:.2f}"],
            [f"jumps to {write[first]:.2f} at t = {first}"],
            [f"between {cell[first + 1 : second].min():.2f} and {cell[first + 1 : second].max():.2f}"],
            [f"spikes again to {write[second]:.2f}"],
            [f"= {guess[-1]:.3f} against the target {target:.3f}"],
            [
                f"the {name} gate changes by {_gate_change(run[f'{name}_gate'], (first, second))} per unit"
                for name in GATES
            ],
        ]
    raise KeyError(scene)


@pytest.mark.parametrize("scene", SCENES)
def test_every_slide_note_quotes_its_data(scene_report, artifact, scene: str) -> None:
    notes = scene_report(scene)["notes"]
    expected = expected_notes(scene, artifact)
    assert len(expected) == len(notes) == SCENES[scene][0]
    for index, (note, values) in enumerate(zip(notes, expected)):
        for value in values:
            assert value in note, f"slide {index}: {value!r} not in {note!r}"


@pytest.mark.parametrize("scene", SCENES)
def test_loop_slides_are_never_first_or_last(scene_report, scene: str) -> None:
    report = scene_report(scene)
    expected = SCENES[scene][1]
    assert report["loops"] == ([] if expected is None else [expected])
    assert 0 not in report["loops"] and report["slides"] - 1 not in report["loops"]


def test_training_race_verdict_follows_the_data(scene_report, artifact) -> None:
    run = artifact("adding")
    verdict = scene_report("TrainingRace")["notes"][-1]
    # The notebook's claim, checked against data here: LSTM and GRU solve the task, the vanilla RNN does not.
    assert run.metrics["final_mse_LSTM"] < run.metrics["baseline"] / 10 > run.metrics["final_mse_GRU"]
    assert "LSTM and GRU fall far below the baseline" in verdict
    assert "RNN stays near the baseline" in verdict


def test_inside_the_lstm_calls_the_second_write_largest_only_when_it_is(scene_report, artifact) -> None:
    run = artifact("lstm_inside")
    note = scene_report("InsideTheLSTM")["notes"][3]
    largest = int(np.argmax(run["write_norm"])) == int(run["markers"][1])
    assert ("the largest of the sequence" in note) == largest


def test_regime_word_matches_the_spectral_radius_on_screen(scene_report, artifact) -> None:  # noqa: ANN001
    """At the end of each regime slide the readout names the regime of the rho on screen (a frame-state check)."""
    report = scene_report("HiddenStateDynamics")
    rhos = artifact("linear_rnn")["rhos"]
    expected = [
        word
        for word, present in (
            ("forgets", (rhos < 1).any()),
            ("holds", np.isclose(rhos, 1).any()),
            ("explodes", (rhos > 1).any()),
        )
        if present
    ]
    regime_slides = report["screen_texts"][1 : 1 + len(expected)]  # slides 2..: one slide per regime
    shown = [[word for word in ("forgets", "holds", "explodes") if word in texts] for texts in regime_slides]
    assert shown == [[word] for word in expected]
