"""The words of the recurrent-networks part (scenes/rnn/), called on the real data/ without rendering: every
beat of the narration is fit to be heard, and it quotes the data's key numbers in spoken form. The expected
phrases are computed here from data/ with seqanim.author.spoken."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scenes.rnn import PART
from scenes.rnn import adding_problem as adding
from scenes.rnn import echo_of_a_pulse as echo
from scenes.rnn import hidden_state_dynamics as dynamics
from scenes.rnn import inside_the_lstm as inside
from scenes.rnn import training_race as race
from seqanim.author import spoken
from seqanim.lecture.contract import Artifact

Load = Callable[[str], Artifact]
FOLDER = Path(__file__).resolve().parents[1] / "scenes" / "rnn"
# scene -> its file, in the order the scenes play
SCENES = {
    "HiddenStateDynamics": "hidden_state_dynamics",
    "EchoOfAPulse": "echo_of_a_pulse",
    "AddingProblem": "adding_problem",
    "TrainingRace": "training_race",
    "InsideTheLSTM": "inside_the_lstm",
}


def heard(*slides: str | list[str] | dict[str, Any]) -> None:
    """Every beat of every slide says something, and nothing a voice would read out as notation or a cue."""
    for said in slides:
        beats = spoken.sentences_of(said)
        assert beats, "a slide without beats"
        for beat in beats:
            assert beat.strip() and spoken.unheard(beat) == [], f"{beat!r}: {spoken.unheard(beat)}"


def two_digits(value: float) -> str:
    """A positive number rounded to two significant digits, as said."""
    text = f"{value:.2g}"
    rounded = float(text)
    if rounded >= 10:
        return spoken.integer(int(rounded))
    return spoken.number(rounded, len(text.partition(".")[2]))


def factor(ratio: float) -> str:
    """How many times a length shrank or grew, as said."""
    return two_digits(1 / ratio if ratio < 1 else ratio) + " times"


def facts_class(node: ast.ClassDef) -> bool:
    """Whether a class is a beat's facts: a frozen dataclass, `@dataclass(frozen=True)`."""
    return any(
        isinstance(decorator, ast.Call)
        and getattr(decorator.func, "id", None) == "dataclass"
        and any(word.arg == "frozen" and getattr(word.value, "value", None) is True for word in decorator.keywords)
        for decorator in node.decorator_list
    )


def test_the_part_lists_one_file_per_scene_in_playing_order() -> None:
    init = ast.parse((FOLDER / "__init__.py").read_text())
    imported = [node for node in ast.walk(init) if isinstance(node, ast.ImportFrom)]
    # the declaration only, from the public API: the scenes are not imported
    assert [(node.module, [alias.name for alias in node.names]) for node in imported] == [("seqanim", ["Part"])]
    assert PART.title == "Recurrent neural networks" and PART.order == 1
    assert PART.scenes == tuple(SCENES.values())
    for name, stem in SCENES.items():
        tree = ast.parse((FOLDER / f"{stem}.py").read_text())
        classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef) and not facts_class(node)]
        assert classes == [name]  # beside the scene, only the frozen dataclasses of its beats' facts
        assert not any(isinstance(node, ast.ImportFrom) and node.module == "scenes.rnn" for node in ast.walk(tree))


def test_hidden_state_dynamics_words(artifact: Load) -> None:
    run = artifact("linear_rnn")
    rhos, norms = run["rhos"], run["norms"]
    steps, finals = norms.shape[1] - 1, norms[:, -1]
    stage = dynamics.stage_said(steps, len(run["eigen_angles"]))
    sweep, verdict = dynamics.sweep_said(rhos), dynamics.verdict_said(rhos, norms)
    heard(stage, sweep, verdict)
    assert list(stage) == ["written", "plotted", "diagrams"] and list(sweep) == ["growing", "shrinking"]
    assert list(verdict) == ["claim", "why"]
    assert spoken.integer(steps) in stage["plotted"]
    assert spoken.integer(len(run["eigen_angles"])) in stage["diagrams"]
    assert spoken.number(rhos.min(), 2) in sweep["growing"] and spoken.number(rhos.max(), 2) in sweep["growing"]
    assert spoken.count(round(math.log10(finals.max() / finals.min())), "power") + " of ten" in verdict["why"]

    said_for = {}
    for name, indices in dynamics.regimes(rhos):
        beats = dynamics.regime_said(name, rhos, norms, indices)
        heard(beats)
        assert len(beats) == len(indices)  # one beat per rho, while its curve is traced
        said_for.update(zip(indices, beats))
    assert sorted(said_for) == list(range(len(rhos)))  # every rho is run, once
    for index, said in said_for.items():
        rho, ratio = float(rhos[index]), float(finals[index] / norms[index, 0])
        assert f"rho {spoken.number(rho, 2)}" in said or f"rho at {spoken.number(rho, 2)}" in said
        if math.isclose(ratio, 1, rel_tol=1e-3):
            assert "kept its length" in said
        else:
            assert f"{'shrunk' if ratio < 1 else 'grown'} about {factor(ratio)}" in said


def test_echo_of_a_pulse_words(artifact: Load) -> None:
    run = artifact("linear_rnn")
    rhos, states = run["echo_rhos"], run["echo_states"]
    radii = np.linalg.norm(states, axis=-1)
    divisor = round(2 * np.pi / float(run["echo_angle"]))
    opening, replay = echo.opening_said(rhos), echo.replay_said(rhos)
    heard(opening, replay, echo.verdict_said())
    assert list(opening) == ["written", "panels"]
    for rho in rhos:
        assert spoken.number(float(rho), 2) in opening["panels"]
    for rho, row in zip(rhos, radii):
        said = echo.echo_said(float(rho), divisor, row)
        heard(said)
        assert list(said) == ["traced", "leaves"]
        beats = spoken.sentences_of(said)
        assert f"rho at {spoken.number(float(rho), 2)}" in beats[0]
        assert f"every full turn of {spoken.integer(divisor)} steps" in beats[0]
        if math.isclose(rho, 1):
            assert "radius one" in beats[0] and "kept its length" in beats[0]
        else:
            assert f"multiplies its radius by {two_digits(float(rho) ** divisor)}" in beats[0]
            assert factor(float(row[-1] / row[0])) in beats[0]
        outside = np.flatnonzero(row > 2.0)  # the panels' shared scale
        assert len(beats) == (2 if outside.size else 1)
        if outside.size:
            assert f"at step {spoken.integer(int(outside[0]))}" in beats[1]
    assert [word for word in ("fades", "holds", "grows") if word in replay] == ["fades", "holds", "grows"]


def test_adding_problem_words(artifact: Load) -> None:
    run = artifact("adding")
    values, marks = run["example_values"], run["example_marks"]
    first, second = (int(i) for i in np.flatnonzero(marks))
    baseline = float(run["baseline"])
    task, sequence = adding.task_said(len(values)), adding.stream_said(marks)
    marked, target = adding.marked_said(values, marks), adding.target_said(values, marks, float(run["example_target"]))
    hard = adding.hard_said(values, marks, baseline)
    heard(task, sequence, marked, target, hard)
    assert list(marked) == ["lit", "apart"] and list(hard) == ["carried", "baseline"]
    assert spoken.integer(len(values)) in task
    assert f"steps {spoken.integer(first)} and {spoken.integer(second)}" in sequence
    assert f"{spoken.number(values[first], 2)} and {spoken.number(values[second], 2)}" in marked["lit"]
    assert f"{spoken.integer(second - first)} steps apart" in marked["apart"]
    assert spoken.number(float(run["example_target"]), 2) in target
    assert f"{spoken.integer(len(values) - 1 - first)} steps" in hard["carried"]
    assert spoken.number(baseline, 2) in hard["baseline"]


def test_training_race_words(artifact: Load) -> None:
    run = artifact("adding")
    kinds, mse, baseline = [str(kind) for kind in run["kinds"]], run["test_mse"], float(run["baseline"])
    finals = np.array([run.metrics[f"final_mse_{kind}"] for kind in kinds])
    setup = race.setup_said(kinds, run.params["hidden"], baseline)
    running = race.race_said(kinds, mse, baseline, run.params)
    ends, verdict = race.finals_said(kinds, finals, baseline), race.verdict_said(kinds, finals, baseline)
    heard(setup, running, ends, verdict)
    assert list(setup) == ["plotted", "baseline"] and list(verdict) == ["claim", "rest"]
    plotted = spoken.bookmarks(setup["plotted"])[0]  # the words as heard: the cells' names carry bookmarks
    assert spoken.integer(run.params["hidden"]) in plotted and spoken.listing(kinds) in plotted
    assert spoken.number(baseline, 2) in setup["baseline"]
    assert spoken.integer(run.params["test_size"]) in running
    assert spoken.integer(run.params["iters"]) in running
    # The notebook's result, read from data/ here: LSTM and GRU solve the task, the vanilla RNN does not.
    solved = [kind for kind, final in zip(kinds, finals) if final < baseline / 10]
    assert solved == ["LSTM", "GRU"]
    assert "the LSTM and the GRU plunge" in running and "the RNN stays near the baseline" in running
    for kind, final in zip(kinds, finals):
        quoted = f"about {two_digits(baseline / final)} times under" if kind in solved else spoken.number(final, 2)
        assert f"the {kind} {'' if kind in solved else 'at '}{quoted}" in ends
    assert "the LSTM and the GRU get there" in verdict["claim"]
    assert verdict["rest"].startswith("The RNN does not")


def _gate_ratio(gate: np.ndarray, markers: tuple[int, int]) -> float:
    """How much more a gate changes into the marked steps (and the steps after) than at the other steps."""
    moves = [float(np.abs(gate[t] - gate[t - 1]).mean()) for t in range(1, len(gate))]
    switching = {t for m in markers for t in (m, m + 1) if 1 <= t < len(gate)}
    at = np.mean([moves[t - 1] for t in sorted(switching)])
    return float(at / np.median([moves[t - 1] for t in range(1, len(gate)) if t not in switching]))


def test_inside_the_lstm_words(artifact: Load) -> None:
    run = artifact("lstm_inside")
    values, write, cell, guess = run["values"], run["write_norm"], run["cell_norm"], run["running_guess"]
    first, second = (int(m) for m in run["markers"])
    target = float(run["target"])
    opening, at_first, holding = inside.opening_said(run), inside.first_marker_said(run), inside.holding_said(run)
    at_second, answer, gates = inside.second_marker_said(run), inside.answer_said(run), inside.gates_said(run)
    heard(opening, at_first, holding, at_second, answer, gates)
    assert list(opening) == ["sequence", "marked", "panels"]
    assert list(answer) == ["reached", "error"] and list(gates) == ["shown", "switching"]
    assert f"steps {spoken.integer(first)} and {spoken.integer(second)}" in opening["marked"]
    assert f"{spoken.number(values[first], 2)} and {spoken.number(values[second], 2)}" in opening["marked"]
    assert spoken.number(target, 2) in opening["panels"]
    assert f"step {spoken.integer(first)}" in at_first
    assert two_digits(write[first]) in at_first and spoken.number(guess[first], 2) in at_first
    between = cell[first + 1 : second]
    assert f"between {two_digits(between.min())} and {two_digits(between.max())}" in holding
    assert spoken.number(guess[second - 1], 2) in holding
    assert spoken.number(run["true_running_sum"][first], 2) in holding
    assert spoken.number(guess[second], 2) in at_second
    assert ("largest" in at_second) == (int(np.argmax(write)) == second)
    reached = spoken.bookmarks(answer["reached"])[0]  # the words as heard: its bookmarks stand inside the phrase
    assert f"{spoken.number(guess[-1], 2)}, against a target of {spoken.number(target, 2)}" in reached
    assert spoken.number(abs(guess[-1] - target), 2) in answer["error"]
    assert spoken.integer(run["input_gate"].shape[1]) in gates["shown"]
    assert f"about {two_digits(_gate_ratio(run['input_gate'], (first, second)))} times more" in gates["switching"]


@pytest.mark.parametrize("scene", SCENES)
def test_the_words_come_before_the_scene(scene: str) -> None:
    """Each scene file reads top to bottom: its words (module-level `*_notes` and `*_said` functions of the
    data, and the facts they quote), then its scene class."""
    tree = ast.parse((FOLDER / f"{SCENES[scene]}.py").read_text())
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert any(name.endswith("_notes") for name in functions)
    assert any(name.endswith("_said") for name in functions)
    scene_at = next(i for i, node in enumerate(tree.body) if isinstance(node, ast.ClassDef) and node.name == scene)
    words_at = [
        i for i, node in enumerate(tree.body) if isinstance(node, ast.FunctionDef) and node.name.endswith("_said")
    ]
    assert max(words_at) < scene_at


# --- the words under other outcomes: arrays made here, or other parameters of the cheap experiments ----------

BASELINE = 1 / 6  # the notebook's predict-the-mean MSE: Var(u1 + u2) for u ~ U[0, 1)
CELLS = ["RNN", "LSTM", "GRU"]  # the notebook's race; LSTM and GRU have gates, the vanilla RNN has none


def heard_without_marks(said: str) -> str:
    return spoken.bookmarks(said)[0]


def test_training_race_says_gates_only_of_cells_that_have_them() -> None:
    """With a shorter T the vanilla RNN can solve the task too: it does so without gates."""
    from scenes.rnn import de

    every = np.array([BASELINE / 20, BASELINE / 500, BASELINE / 400])  # all three under a tenth of the baseline
    claim = heard_without_marks(race.verdict_said(CELLS, every, BASELINE)["claim"])
    assert "the RNN, the LSTM and the GRU get there, carrying the first value across" in claim
    assert "the LSTM and the GRU through their gates, the RNN without any" in claim
    assert "their gates carrying" not in claim
    notes = race.verdict_notes(CELLS, every, BASELINE)
    assert "the gates carry" not in notes and "LSTM and GRU through their gates, RNN without gates" in notes
    german = de.TrainingRace.verdict_said(CELLS, every, BASELINE)["claim"]
    assert "das LSTM und das GRU mit ihren Gates, das RNN ohne" in german and "ihre Gates tragen" not in german

    alone = np.array([BASELINE / 20, BASELINE / 2, BASELINE / 3])  # only the vanilla RNN solves it
    claim = heard_without_marks(race.verdict_said(CELLS, alone, BASELINE)["claim"])
    assert "the RNN gets there, carrying the first value across without any gates." in claim
    assert "without gates" in race.verdict_notes(CELLS, alone, BASELINE)
    assert "trägt den ersten Wert ohne Gates hinüber" in de.TrainingRace.verdict_said(CELLS, alone, BASELINE)["claim"]

    gated = np.array([BASELINE, BASELINE / 500, BASELINE / 400])  # the notebook's outcome: the gates carry it
    assert "their gates carrying" in heard_without_marks(race.verdict_said(CELLS, gated, BASELINE)["claim"])


def test_training_race_counts_and_names_the_cells_it_races() -> None:
    """adding.kinds = ["LSTM", "GRU"]: two cells in the title, the notes and the narration."""
    from scenes.rnn import de

    kinds = ["LSTM", "GRU"]
    mse = np.array([[0.4, 0.1, 0.003], [0.5, 0.1, 0.002]])  # both start above the baseline and solve it
    params = {"hidden": 64, "iters": 600, "lr": 5e-3, "batch": 128, "clip": 1.0, "T": 40, "test_size": 512}
    assert race.title(kinds) == "LSTM vs GRU" and race.title(CELLS) == "Vanilla RNN vs LSTM vs GRU"
    assert "on two recurrent cells (LSTM, GRU)" in race.setup_notes(kinds, params, BASELINE)
    running = heard_without_marks(race.race_said(kinds, mse, BASELINE, params))
    assert "Both start above the baseline." in running
    assert "Beide starten über der Baseline." in de.TrainingRace.race_said(kinds, mse, BASELINE, params)
    assert "All three start above the baseline." in heard_without_marks(
        race.race_said(CELLS, np.vstack([mse[:1], mse]), BASELINE, params)
    )


def linear_rnn(**values: Any) -> Artifact:
    """The linear_rnn experiment run here (it takes well under a second) with some parameters changed."""
    from precompute.linear_rnn import Parameters, run

    return Artifact("linear_rnn", *run(Parameters(**values)), params={})


def test_echo_of_a_pulse_counts_its_panels() -> None:
    """linear_rnn.echo_rhos = [0.9, 1.1]: two panels, not three."""
    from scenes.rnn import de

    run = linear_rnn(echo_rhos=[0.9, 1.1])
    rhos, radii = run["echo_rhos"], np.linalg.norm(run["echo_states"], axis=-1)
    divisor = round(2 * np.pi / float(run["echo_angle"]))
    assert len(rhos) == 2
    panels = heard_without_marks(echo.opening_said(rhos)["panels"])
    assert panels.startswith("Two panels, for rho of zero point nine and one point one;")
    assert de.EchoOfAPulse.opening_said(rhos)["panels"].startswith("Zwei Felder, für ρ = 0,9 und ρ = 1,1;")
    assert "shared by both" in echo.echo_notes(float(rhos[0]), divisor, radii[0], len(rhos))
    assert echo.replay_notes(rhos, radii).startswith("Both echoes again, side by side")
    assert "three" not in echo.replay_notes(rhos, radii)

    alone = linear_rnn(echo_rhos=[0.9])["echo_rhos"]  # one panel: nothing beside it to share a scale with
    assert heard_without_marks(echo.opening_said(alone)["panels"]).startswith("One panel, for rho of zero point nine;")
    assert "side by side" not in echo.replay_said(alone).lower() and "Nebeneinander" not in (
        de.EchoOfAPulse.replay_said(alone)
    )


def test_hidden_state_dynamics_flat_curve_only_of_a_rho_of_one() -> None:
    """linear_rnn.rhos = [0.85, 0.95, 1.05, 1.15]: no curve keeps the signal, so none is shown as the one."""
    from scenes.rnn import de

    run = linear_rnn(rhos=[0.85, 0.95, 1.05, 1.15])
    rhos, norms = run["rhos"], run["norms"]
    kept = np.isclose(norms[:, -1] / norms[:, 0], 1, rtol=1e-3)
    assert not kept.any()  # every curve shrinks or grows: there is no flat one
    why = heard_without_marks(dynamics.verdict_said(rhos, norms)["why"])
    assert "only a radius of exactly one keeps the signal, and no radius here is exactly one." in why
    assert "keiner der Radien hier ist genau eins" in de.HiddenStateDynamics.verdict_said(rhos, norms)["why"]
    assert dynamics.flat_curve(rhos) is None  # the scene flashes the line of length one, no curve

    notebook = linear_rnn()  # the notebook's rhos, with 1.0 among them: its curve is the flat one
    flat = dynamics.flat_curve(notebook["rhos"])
    assert flat is not None and np.allclose(notebook["norms"][flat], 1)
    assert "here" not in heard_without_marks(dynamics.verdict_said(notebook["rhos"], notebook["norms"])["why"])


def test_hidden_state_dynamics_sweep_through_the_circle_only_when_it_crosses() -> None:
    """linear_rnn.rhos = [0.5, 0.8, 0.9]: the ring stays inside the unit circle, and nothing explodes."""
    from scenes.rnn import de

    inside = linear_rnn(rhos=[0.5, 0.8, 0.9])["rhos"]
    assert (inside < 1).all()
    said = {name: heard_without_marks(beat) for name, beat in dynamics.sweep_said(inside).items()}
    assert "grows but stays inside the unit circle" in said["growing"] and "through" not in said["growing"]
    assert "no radius here lies outside the circle" in said["shrinking"] and "explodes" not in said["shrinking"]
    german = de.HiddenStateDynamics.sweep_said(inside)
    assert "bleibt aber innerhalb des Einheitskreises" in german["growing"] and "durch" not in german["growing"]
    assert "explodiert" not in german["shrinking"]
    assert "through" not in dynamics.sweep_notes(inside) and "explodes" not in dynamics.sweep_notes(inside)

    outside = linear_rnn(rhos=[1.05, 1.15])["rhos"]
    said = {name: heard_without_marks(beat) for name, beat in dynamics.sweep_said(outside).items()}
    assert "grows but stays outside the unit circle" in said["growing"]
    assert "no radius here lies inside it" in said["shrinking"] and "dies" not in said["shrinking"]

    across = linear_rnn()["rhos"]  # the notebook's sweep crosses the circle
    assert "grows through the unit circle" in heard_without_marks(dynamics.sweep_said(across)["growing"])


def untrained_lstm(monkeypatch: pytest.MonkeyPatch, seed: int) -> Artifact:
    """lstm_inside run on an LSTM that was never trained (its initial weights from `seed`): an example whose
    writes, memory and gates need not follow the markers. Built here in about a second, without data/."""
    import torch

    from precompute import lstm_inside
    from precompute.adding import Parameters as Adding
    from precompute.adding import Seq

    torch.manual_seed(seed)
    fresh = Seq("LSTM", Adding().hidden)
    monkeypatch.setattr(lstm_inside, "load_state_dict", lambda *_: fresh.state_dict())
    return Artifact("lstm_inside", *lstm_inside.run(lstm_inside.Parameters(), Adding()), params={})


def test_inside_the_lstm_says_what_an_untrained_cell_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """An untrained LSTM (seed 1): its write at the second marker is no higher than between the markers, its
    memory falls back to where it was before the first marker, and its guess falls at both markers."""
    from scenes.rnn import de

    run = untrained_lstm(monkeypatch, seed=1)
    write, cell, guess = run["write_norm"], run["cell_norm"], run["running_guess"]
    first, second = (int(m) for m in run["markers"])
    assert write[second] <= write[first + 1 : second].max() and cell[first + 1 : second].min() <= cell[first - 1]
    assert guess[first] < guess[first - 1] and guess[second] < guess[second - 1]

    at_first = heard_without_marks(inside.first_marker_said(run))
    assert f"the guess falls to {spoken.number(guess[first], 2)}" in at_first
    assert "die Schätzung fällt auf" in de.InsideTheLSTM.first_marker_said(run)
    holding = heard_without_marks(inside.holding_said(run))
    assert "the memory does not hold" in holding and "the memory holds" not in holding
    assert "hält das Gedächtnis nicht" in de.InsideTheLSTM.holding_said(run)
    assert "the memory does not hold" in inside.holding_notes(run)
    at_second = heard_without_marks(inside.second_marker_said(run))
    assert "spikes" not in at_second and "no higher than between the markers" in at_second
    assert f"the guess falls to {spoken.number(guess[second], 2)}" in at_second
    german = de.InsideTheLSTM.second_marker_said(run)
    assert "schlägt" not in german and "die Schätzung fällt auf" in german
    assert "spikes" not in inside.second_marker_notes(run)
    assert "writes at the markers and holds" not in inside.answer_notes(run)


def test_inside_the_lstm_says_when_the_first_write_and_the_gates_do_not_stand_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same example with no larger write at the first marker, and an input gate that holds still there."""
    from scenes.rnn import de

    run = untrained_lstm(monkeypatch, seed=1)
    first, second = (int(m) for m in run["markers"])
    write, gate = run["write_norm"].copy(), run["input_gate"].copy()
    write[first] = write[:first].max()  # no higher than before the marker
    for marker in (first, second):  # the gate holds still into the marked steps and the steps after
        gate[marker : marker + 2] = gate[marker - 1]
    run.arrays["write_norm"], run.arrays["input_gate"] = write, gate
    assert _gate_ratio(gate, (first, second)) < 1

    at_first = heard_without_marks(inside.first_marker_said(run))
    assert "jumps" not in at_first and f"the write is {two_digits(write[first])}, no higher than before" in at_first
    assert "springt die Schreibstärke" not in de.InsideTheLSTM.first_marker_said(run)
    assert "jumps" not in inside.first_marker_notes(run)
    assert "again" not in heard_without_marks(inside.second_marker_said(run))
    switching = heard_without_marks(inside.gates_said(run)["switching"])
    assert switching.startswith("They do not switch at the markers") and "times more" not in switching
    assert "stärker als anderswo" not in de.InsideTheLSTM.gates_said(run)["switching"].replace("nicht stärker", "")
    assert inside.gates_caption(run).startswith("the gates do not switch at the markers")
    assert "do not switch" in inside.gates_notes(run)


def test_markers_beyond_the_sequence_name_markers_that_fit() -> None:
    """lstm_inside.markers past adding.T: the error names markers that pass, one in each half as training
    marks them, for every T the markers [7, 27] and [3, 5] do not fit."""
    import re

    from precompute.adding import Parameters as Adding
    from precompute.lstm_inside import Parameters

    for markers in ([7, 27], [3, 5]):
        for length in range(4, markers[1] + 1):
            with pytest.raises(ValueError, match=r"set lstm_inside.markers to e\.g\. (\[\d+, \d+\])") as error:
                Parameters(markers=markers).check_upstream(adding=Adding(T=length))
            fits = ast.literal_eval(re.search(r"e\.g\. (\[\d+, \d+\])", str(error.value)).group(1))
            Parameters(markers=fits).check_upstream(adding=Adding(T=length))  # they pass
            assert fits[0] < length // 2 <= fits[1] < length
