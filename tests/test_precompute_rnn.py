"""The recurrent-network experiments (seed 000, cells rnn2, rnn4, rnn6, rnn8) against data/ and the notebook's
claims."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch

from precompute import adding as adding_experiment
from precompute import lstm_inside as inside_experiment
from precompute.adding import Parameters as Adding
from precompute.common import load_state_dict
from precompute.lstm_inside import Parameters as LstmInside
from seqanim.errors import ConfigError, DataError
from seqanim.lecture import contract
from seqanim.lecture.config import load

BASELINE = 1 / 6  # the notebook's predict-the-mean baseline, 0.167


@pytest.fixture
def restore_torch_state() -> Iterator[None]:
    """`deterministic()` pins threads and deterministic algorithms process-wide; put them back afterwards."""
    threads = torch.get_num_threads()
    deterministic_algorithms = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    generators = torch.get_rng_state(), np.random.get_state(), random.getstate()
    yield
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(deterministic_algorithms, warn_only=warn_only)
    torch.set_rng_state(generators[0])
    np.random.set_state(generators[1])
    random.setstate(generators[2])


# --- linear_rnn: h_t = rho Q h_(t-1) -------------------------------------------------------------------


def _notebook_rnn2(rhos: list[float], size: int, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The notebook's own lines (cell rnn2), float32 as written there: norms and h_t[:2] per rho."""
    torch.manual_seed(seed)
    N, T = size, steps
    Q, _ = torch.linalg.qr(torch.randn(N, N))
    h0 = torch.randn(N)
    h0 = h0 / h0.norm()
    all_norms, all_heads = [], []
    for rho in rhos:
        h = h0.clone()
        norms = [1.0]
        heads = [h[:2].tolist()]
        for _ in range(T):
            h = (rho * Q) @ h
            norms.append(h.norm().item())
            heads.append(h[:2].tolist())
        all_norms.append(norms)
        all_heads.append(heads)
    return np.array(all_norms), np.array(all_heads)


def test_linear_rnn_follows_the_notebook_draws(artifact, restore_torch_state: None) -> None:
    run = artifact("linear_rnn")
    params = run.params
    norms, heads = _notebook_rnn2(list(params["rhos"]), params["size"], params["steps"], params["seed"])
    np.testing.assert_allclose(run["norms"], norms, rtol=1e-5)
    # The first two coordinates depend on Q and h_0 themselves, not only on rho^t.
    np.testing.assert_allclose(run["first_two"] / run["norms"][..., None], heads / norms[..., None], atol=1e-5)


def test_norms_follow_rho_to_the_t(artifact) -> None:
    """The notebook's claim ||h_t|| = rho^t (Q orthogonal, ||h_0|| = 1)."""
    run = artifact("linear_rnn")
    steps = np.arange(run["norms"].shape[1])
    np.testing.assert_allclose(
        run["norms"], run["rhos"][:, None] ** steps, rtol=1e-5
    )  # Q is orthogonal to float32 precision
    np.testing.assert_allclose(np.abs(np.exp(1j * run["eigen_angles"])), 1.0)


# --- adding: the training race ----------------------------------------------------------------------


def test_lstm_and_gru_fall_far_below_the_baseline(artifact) -> None:
    run = artifact("adding")
    assert run.metrics["final_mse_LSTM"] < BASELINE / 10
    assert run.metrics["final_mse_GRU"] < BASELINE / 10


def test_vanilla_rnn_does_not_solve_the_task(artifact) -> None:
    assert artifact("adding").metrics["final_mse_RNN"] > BASELINE * 0.5


def test_curves_have_one_row_per_kind_and_match_the_final_metrics(artifact) -> None:
    run = artifact("adding")
    kinds = [str(k) for k in run["kinds"]]
    assert kinds == ["RNN", "LSTM", "GRU"]
    assert run["kinds"].dtype.kind == "U"  # fixed-width unicode, never pickled objects
    iters, mse = run["curve_iters"], run["test_mse"]
    params = run.params
    assert mse.shape == (3, len(iters))
    assert iters[0] == 0 and iters[-1] == params["iters"] and np.all(np.diff(iters) > 0)
    assert np.all(iters[:-1] % params["eval_every"] == 0)
    assert np.all(np.isfinite(mse)) and np.all(mse > 0)
    for index, kind in enumerate(kinds):
        assert mse[index, -1] == pytest.approx(run.metrics[f"final_mse_{kind}"])
    assert float(run["baseline"]) == pytest.approx(BASELINE)


def test_example_has_one_marker_in_each_half_and_target_is_their_sum(artifact) -> None:
    run = artifact("adding")
    values, marks = run["example_values"], run["example_marks"]
    length = run.params["T"]
    assert values.shape == marks.shape == (length,)
    first, second = np.flatnonzero(marks)
    assert first < length // 2 <= second
    assert float(run["example_target"]) == pytest.approx(values[first] + values[second], abs=1e-6)
    assert np.all((values >= 0) & (values < 1))


def test_adding_is_deterministic(tmp_path: Path, restore_torch_state: None) -> None:
    """Same parameters -> identical arrays, metrics and LSTM weights; tiny sizes keep it fast. `run` writes
    nothing itself: the weights come back with the arrays, for the build to write."""
    params = Adding(T=10, hidden=8, iters=12, batch=16, eval_every=5, test_size=32)
    saved = contract.data_dir() / "adding_lstm.pt"
    before = saved.stat().st_mtime_ns if saved.exists() else None
    first_arrays, first_metrics, first_files = adding_experiment.run(params)
    second_arrays, second_metrics, second_files = adding_experiment.run(params)
    assert first_arrays.keys() == second_arrays.keys()
    for key in first_arrays:
        assert np.asarray(first_arrays[key]).tobytes() == np.asarray(second_arrays[key]).tobytes(), key
    assert first_metrics == second_metrics
    assert list(first_files) == ["adding_lstm.pt"]
    first_weights, second_weights = first_files["adding_lstm.pt"], second_files["adding_lstm.pt"]
    assert first_weights.keys() == second_weights.keys()
    assert all(torch.equal(first_weights[key], second_weights[key]) for key in first_weights)
    assert (saved.stat().st_mtime_ns if saved.exists() else None) == before  # nothing written
    assert list(first_arrays["curve_iters"]) == [0, 5, 10, 12]


# --- lstm_inside: the replayed recurrence -------------------------------------------------------------


def _trained_lstm(adding) -> adding_experiment.Seq:
    """The LSTM the adding experiment saved (after its artifact is loaded, i.e. built and current)."""
    net = adding_experiment.Seq("LSTM", adding.params["hidden"])
    net.load_state_dict(load_state_dict("adding_lstm.pt", "adding"))
    return net.eval()


def test_replayed_hidden_states_equal_nn_lstm(artifact) -> None:
    run = artifact("lstm_inside")
    net = _trained_lstm(artifact("adding"))
    x = torch.zeros(1, len(run["values"]), 2)
    x[0, :, 0] = torch.from_numpy(run["values"]).float()
    x[0, :, 1] = torch.from_numpy(run["marks"]).float()
    with torch.no_grad():
        out, (_, c_n) = net.rnn(x)
    np.testing.assert_allclose(run["hidden"], out[0].double().numpy(), atol=1e-5)
    np.testing.assert_allclose(run["cell"][-1], c_n[0, 0].double().numpy(), atol=1e-5)
    with torch.no_grad():
        guess = net.fc(out[0]).squeeze(-1).double().numpy()
    np.testing.assert_allclose(run["running_guess"], guess, atol=1e-5)


def test_gates_are_consistent(artifact) -> None:
    run = artifact("lstm_inside")
    i, f, g, o = run["input_gate"], run["forget_gate"], run["candidate"], run["output_gate"]
    for gate in (i, f, o):
        assert np.all((gate >= 0) & (gate <= 1))
    assert np.all(np.abs(g) <= 1)
    previous = np.vstack([np.zeros_like(run["cell"][:1]), run["cell"][:-1]])
    np.testing.assert_allclose(run["cell"], f * previous + i * g, atol=1e-5)
    np.testing.assert_allclose(run["hidden"], o * np.tanh(run["cell"]), atol=1e-5)
    np.testing.assert_allclose(run["write_norm"], np.linalg.norm(i * g, axis=1), atol=1e-5)
    np.testing.assert_allclose(run["cell_norm"], np.linalg.norm(run["cell"], axis=1), atol=1e-5)


def test_example_follows_the_notebook(artifact, restore_torch_state: None) -> None:
    run = artifact("lstm_inside")
    params = load().lstm_inside
    torch.manual_seed(params.example_seed)
    expected = torch.rand(len(run["values"])).double().numpy()
    np.testing.assert_array_equal(run["values"], expected)
    assert list(np.flatnonzero(run["marks"])) == list(params.markers)
    first, second = params.markers
    assert float(run["target"]) == pytest.approx(expected[first] + expected[second])
    np.testing.assert_allclose(run["true_running_sum"][-1], run["target"])


def test_write_norm_jumps_at_the_markers(artifact) -> None:
    """The figure's claim: the LSTM writes to its cell when a marker arrives. Its write norm jumps there: the
    two largest step-to-step increases happen exactly at the markers. (Not "the write is largest at the
    marker": with a longer sequence, adding.T = 36, the trained cell's baseline write drifts above the
    first marker's later on, while the jumps stay at the markers.)"""
    run = artifact("lstm_inside")
    write = run["write_norm"]
    first, second = (int(m) for m in run["markers"])
    jumps = np.diff(write)
    assert set(np.argsort(jumps)[-2:] + 1) == {first, second}


def test_final_guess_is_close_to_the_target(artifact) -> None:
    run = artifact("lstm_inside")
    assert run.metrics["abs_error"] == pytest.approx(abs(run.metrics["final_guess"] - run.metrics["target"]))
    assert run.metrics["abs_error"] < 0.15
    assert float(run["running_guess"][-1]) == pytest.approx(run.metrics["final_guess"], abs=1e-6)


# --- bad input is rejected -------------------------------------------------------------------------------


def test_markers_beyond_the_sequence_are_rejected() -> None:
    with pytest.raises(ConfigError, match="markers"):
        load(overrides=["lstm_inside.markers=[7, 45]"])


def test_unordered_markers_are_rejected() -> None:
    with pytest.raises(ConfigError, match="markers"):
        load(overrides=["lstm_inside.markers=[27, 7]"])


def test_lstm_inside_rejects_markers_beyond_t_directly() -> None:
    with pytest.raises(DataError, match="markers"):
        inside_experiment.example(LstmInside(markers=[7, 45]), 40)


def test_adding_rejects_a_test_seed_equal_to_the_training_seed() -> None:
    with pytest.raises(ConfigError, match="test_seed"):
        load(overrides=["adding.test_seed=0"])
