"""The five recurrent-network scenes: clean layout, slide structure and notes quoting real data."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from seqanim.config import ROOT

# scene -> (slides it produces, index of its loop slide or None)
SCENES = {
    "HiddenStateDynamics": (6, 4),
    "EchoOfAPulse": (6, 4),
    "AddingProblem": (5, None),
    "TrainingRace": (4, None),
    "InsideTheLSTM": (5, None),
}


@pytest.mark.parametrize("scene", SCENES)
def test_scene_renders_cleanly(scene_report, scene: str) -> None:
    report = scene_report(scene)
    assert report["layout_violations"] == []
    assert report["resolution"] == [854, 480]
    assert report["slides"] == SCENES[scene][0]
    assert len(report["notes"]) == SCENES[scene][0]
    assert 5 < report["duration"] < 60


@pytest.mark.parametrize("scene", SCENES)
def test_every_note_quotes_a_number(scene_report, scene: str) -> None:
    for note in scene_report(scene)["notes"]:
        assert re.search(r"\d", note), note


@pytest.mark.parametrize("scene", SCENES)
def test_loop_slides_are_never_first_or_last(lecture_built, scene: str) -> None:
    slides = json.loads((ROOT / "slides" / "low" / f"{scene}.json").read_text())["slides"]
    loops = [index for index, slide in enumerate(slides) if slide["loop"]]
    expected = SCENES[scene][1]
    assert loops == ([] if expected is None else [expected])
    assert 0 not in loops and len(slides) - 1 not in loops


def _notes(scene_report, scene: str) -> str:
    return "\n".join(scene_report(scene)["notes"])


def test_hidden_state_notes_quote_the_final_norms(scene_report, artifact) -> None:
    run = artifact("linear_rnn")
    notes = _notes(scene_report, "HiddenStateDynamics")
    for rho, norm in zip(run["rhos"], run["norms"][:, -1]):
        assert f"rho = {rho:.2f}: ||h_{run['norms'].shape[1] - 1}|| = {norm:.3g}" in notes


def test_echo_notes_quote_the_final_echo_sizes(scene_report, artifact) -> None:
    run = artifact("linear_rnn")
    radii = np.linalg.norm(run["echo_states"][:, -1], axis=-1)
    notes = _notes(scene_report, "EchoOfAPulse")
    for rho, radius in zip(run["echo_rhos"], radii):
        assert f"{radius:.3g} (rho = {rho:g})" in notes


def test_adding_problem_notes_quote_the_example(scene_report, artifact) -> None:
    run = artifact("adding")
    values, marks = run["example_values"], run["example_marks"]
    first, second = np.flatnonzero(marks)
    notes = _notes(scene_report, "AddingProblem")
    assert f"{values[first]:.2f} + {values[second]:.2f} = {float(run['example_target']):.2f}" in notes
    assert f"{second - first} steps apart" in notes
    assert f"{float(run['baseline']):.3f}" in notes


def test_training_race_notes_quote_final_mse_and_verdict(scene_report, artifact) -> None:
    run = artifact("adding")
    notes = _notes(scene_report, "TrainingRace")
    for kind in ("RNN", "LSTM", "GRU"):
        assert f"{kind} {run.metrics[f'final_mse_{kind}']:.3g}" in notes
    # The verdict is computed from data: LSTM and GRU solved, the vanilla RNN did not.
    assert "LSTM and GRU fall far below the baseline" in notes
    assert "RNN stays near the baseline" in notes


def test_inside_the_lstm_notes_quote_write_spikes_and_final_guess(scene_report, artifact) -> None:
    run = artifact("lstm_inside")
    notes = _notes(scene_report, "InsideTheLSTM")
    first, second = (int(m) for m in run["markers"])
    assert f"jumps to {run['write_norm'][first]:.2f} at t = {first}" in notes
    assert f"spikes again to {run['write_norm'][second]:.2f}" in notes
    assert f"= {run['running_guess'][-1]:.3f} against the target {float(run['target']):.3f}" in notes
