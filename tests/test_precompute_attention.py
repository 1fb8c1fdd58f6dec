"""The trained attention models of seed 000 (at2, at4, tf2, tf8), checked against data/ and the notebook's claims.

Thresholds marked "observed" are checks on the trained models (the notebook states no number there); the
others assert what the notebook's text or titles say.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple
from unittest import mock

import numpy as np
import pytest
import torch

from precompute import groupby, lookup, seq2seq_reverse, seq2seq_sort
from precompute.groupby import Parameters as GroupBy
from precompute.lookup import Parameters as Lookup
from precompute.seq2seq_model import Seq2SeqAttention
from precompute.seq2seq_model import Seq2SeqParams as Seq2Seq
from seqanim.lecture.config import load
from seqanim.workspace import REPOSITORY, current

SEQ2SEQ = ("seq2seq_reverse", "seq2seq_sort")
NOTEBOOK_000 = REPOSITORY / "seeds" / "000_6ad51b100fcd38b8.txt"


class Bounds(NamedTuple):
    forced: float  # held-out token accuracy, teacher-forced
    greedy: float  # the same fed its own outputs
    example: bool  # the shown example reversed right, both ways


# The reversal's goals, for the recipe they are measured at: seq2seq_reverse's defaults, whose 1100 settling
# steps after the notebook's 900 reach them on every CPU kernel path (bench/kernels.py observed 0.992-0.996
# teacher-forced, 0.978-0.991 greedy). Any other values are unmeasured, and the notebook's own recipe (settle = 0)
# has not settled at its last step: its held-out accuracy still swings by several points from step to step
# (bench/reverse_seeds.py), so the kernel path or any float-rounding change redraws it (at the defaults but
# settle = 0: 0.969-0.977 teacher-forced, 0.920-0.936 greedy over the three paths). There the bounds only say
# "learned the task" (chance is 1/12).
REVERSE_GOALS = Bounds(forced=0.97, greedy=0.95, example=True)
LEARNED_THE_TASK = Bounds(forced=0.7, greedy=0.45, example=False)


def reverse_bounds(params: dict[str, Any]) -> Bounds:
    """The bounds a reverse model trained with these parameters must reach."""
    measured = seq2seq_reverse.Parameters.model_validate(params) == seq2seq_reverse.Parameters()
    return REVERSE_GOALS if measured else LEARNED_THE_TASK


def kernel_paths() -> list[str]:
    """The ATEN_CPU_CAPABILITY values this CPU offers: default always, avx2 and avx512 by their cpuinfo flags."""
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    flags = set(next((line.split(":", 1)[1].split() for line in cpuinfo.splitlines() if line.startswith("flags")), []))
    return ["default"] + [path for path, flag in (("avx2", "avx2"), ("avx512", "avx512f")) if flag in flags]


REVERSE_RUN = """
import json, torch
from precompute import seq2seq_reverse
from seqanim.lecture.config import load
_, metrics = seq2seq_reverse.run(load().seq2seq_reverse)
print(json.dumps({**metrics, "cpu_kernels": torch.backends.cpu.get_cpu_capability()}))
"""


def _reverse_on_kernel_path(path: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", REVERSE_RUN],
        cwd=current().root,  # the workspace's lecture.toml and precompute/ (a copy's, under bench/variant.py)
        env={**os.environ, "ATEN_CPU_CAPABILITY": path, "SEQANIM_QUIET": "1"},
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert result.returncode == 0, f"{path}: {result.stderr[-2000:]}"
    return json.loads(result.stdout.splitlines()[-1])


@pytest.fixture
def torch_global_state() -> Iterator[None]:
    """Experiments call `deterministic` (1 thread, reseeded generators): undo it afterwards."""
    threads, strict = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch_rng, numpy_rng, python_rng = torch.get_rng_state(), np.random.get_state(), random.getstate()
    yield
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(strict)
    torch.set_rng_state(torch_rng)
    np.random.set_state(numpy_rng)
    random.setstate(python_rng)


# --- the shown examples are the notebook's: its own lines, run on torch's global generator ---------------------


def test_reverse_example_is_the_notebooks(artifact) -> None:
    run = artifact("seq2seq_reverse")
    V, Ls, example_seed = run.params["vocab"], run.params["length"], run.params["example_seed"]
    with torch.random.fork_rng():
        # at2: torch.manual_seed(7); s1, t1 = rev_batch(1, distinct=True)
        torch.manual_seed(example_seed)
        src = torch.stack([torch.randperm(V)[:Ls] for _ in range(1)])
        s1, t1 = src, torch.flip(src, [1])
    np.testing.assert_array_equal(run["source"], s1[0].numpy())
    np.testing.assert_array_equal(run["target"], t1[0].numpy())


def test_sort_example_is_the_notebooks(artifact) -> None:
    run = artifact("seq2seq_sort")
    V, Ls, example_seed = run.params["vocab"], run.params["length"], run.params["example_seed"]
    with torch.random.fork_rng():
        # at4: torch.manual_seed(3); s1, t1 = sort_batch(1)
        torch.manual_seed(example_seed)
        src = torch.stack([torch.randperm(V)[:Ls] for _ in range(1)])
        tgt, _ = torch.sort(src, 1)
    np.testing.assert_array_equal(run["source"], src[0].numpy())
    np.testing.assert_array_equal(run["target"], tgt[0].numpy())


def test_lookup_example_is_the_notebooks(artifact) -> None:
    run = artifact("lookup")
    NK, NV, Li, B = run.params["n_keys"], run.params["n_values"], run.params["items"], 1
    with torch.random.fork_rng():
        # tf2: torch.manual_seed(5); keys, vals, qkey, ans = lookup_batch(1)
        torch.manual_seed(run.params["example_seed"])
        keys = torch.stack([torch.randperm(NK)[:Li] for _ in range(B)])
        vals = torch.randint(0, NV, (B, Li))
        qi = torch.randint(0, Li, (B,))
        ar = torch.arange(B)
        qkey, ans = keys[ar, qi], vals[ar, qi]
    np.testing.assert_array_equal(run["keys"], keys[0].numpy())
    np.testing.assert_array_equal(run["values"], vals[0].numpy())
    assert int(run["query_key"]) == int(qkey[0])
    assert int(run["answer"]) == int(ans[0])


def test_groupby_example_is_the_notebooks(artifact) -> None:
    run = artifact("groupby")
    K, N = run.params["n_keys"], run.params["length"]
    with torch.random.fork_rng():
        # tf8: torch.manual_seed(8); keys, vals, tgt = grp_batch(1); order = torch.argsort(keys[0])
        torch.manual_seed(run.params["example_seed"])
        keys = torch.randint(0, K, (1, N))
        vals = torch.rand(1, N)
        order = torch.argsort(keys[0])
    np.testing.assert_array_equal(run["keys"], keys[0, order].numpy())
    np.testing.assert_allclose(run["values"], vals[0, order].numpy().astype(np.float64))


# --- the seq2seq model is the notebook's: same initial weights, same forward, same training steps ----------------


def _notebook_seq2seq(cell_id: str) -> dict[str, Any]:
    """The namespace of the notebook cell's definitions (V, Ls, BOS, its batch function, Attn, Seq2Seq), without
    its training loop and plots."""
    cells = json.loads(NOTEBOOK_000.read_text())["cells"]
    source = next("".join(c["source"]) for c in cells if c.get("id") == cell_id)
    namespace: dict[str, Any] = {"sns": mock.MagicMock()}
    exec(source[: source.index("torch.manual_seed(1); m = Seq2Seq()")], namespace)  # noqa: S102 - the seed notebook
    return namespace


@pytest.mark.usefixtures("torch_global_state")
@pytest.mark.parametrize(
    ("cell_id", "name", "batch"), [("at2", "seq2seq_reverse", "rev_batch"), ("at4", "seq2seq_sort", "sort_batch")]
)
def test_seq2seq_model_is_the_notebooks(cell_id: str, name: str, batch: str) -> None:
    notebook = _notebook_seq2seq(cell_id)
    params = getattr(load(), name)
    torch.manual_seed(params.seed)
    theirs = notebook["Seq2Seq"]()
    torch.manual_seed(params.seed)
    ours = Seq2SeqAttention(params)
    # Parameters created in the notebook's order and shapes: the seed gives the notebook's initial weights.
    for (their_name, their_weight), (our_name, our_weight) in zip(
        theirs.named_parameters(), ours.named_parameters(), strict=True
    ):
        assert their_weight.shape == our_weight.shape, (their_name, our_name)
        torch.testing.assert_close(our_weight, their_weight, rtol=0, atol=0, msg=f"{our_name} vs {their_name}")
    # A few Adam steps on the notebook's batches, drawn from the global generator as its loop does.
    optimisers = [torch.optim.Adam(model.parameters(), params.lr) for model in (theirs, ours)]
    for _ in range(3):
        source, target = notebook[batch](params.batch)
        for model, optimiser, logits in zip(
            (theirs, ours), optimisers, (theirs(source, target)[0], ours(source, target).logits)
        ):
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, params.vocab), target.reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    for their_weight, our_weight in zip(theirs.parameters(), ours.parameters()):
        torch.testing.assert_close(our_weight, their_weight, rtol=1e-5, atol=1e-6)
    with torch.no_grad():
        their_logits, their_attention = theirs(source, target)
        decoded = ours(source, target)
    torch.testing.assert_close(decoded.logits, their_logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(decoded.attention, their_attention, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", [*SEQ2SEQ, "lookup", "groupby"])
def test_attention_rows_are_distributions(artifact, name: str) -> None:
    attention = artifact(name)["attention"]
    assert attention.ndim == 2 and attention.shape[0] == attention.shape[1]
    assert np.all(attention >= 0)
    np.testing.assert_allclose(attention.sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("name", SEQ2SEQ)
def test_seq2seq_example_bookkeeping(artifact, name: str) -> None:
    run = artifact(name)
    assert run.metrics["example_correct"] == bool((run["prediction"] == run["target"]).all())
    assert run.metrics["example_greedy_correct"] == bool((run["greedy_prediction"] == run["target"]).all())
    # The example uses distinct symbols, as the notebook ("no ambiguity").
    assert len(set(run["source"].tolist())) == len(run["source"])


def test_sort_gets_the_shown_example_right(artifact) -> None:
    # The sorter has settled (held-out accuracy 1.0 observed, on every kernel path: bench/kernels.py). The reverse
    # model's example is one of its goals, checked with them (test_reverse_task_and_accuracy).
    run = artifact("seq2seq_sort")
    np.testing.assert_array_equal(run["prediction"], run["target"])
    np.testing.assert_array_equal(run["greedy_prediction"], run["target"])


@pytest.mark.parametrize("name", SEQ2SEQ)
def test_energies_softmax_to_the_attention(artifact, name: str) -> None:
    run = artifact(name)
    energies = run["energies"]
    weights = np.exp(energies - energies.max(axis=1, keepdims=True))
    np.testing.assert_allclose(weights / weights.sum(axis=1, keepdims=True), run["attention"], atol=1e-5)


def test_reverse_task_and_accuracy(artifact) -> None:
    run = artifact("seq2seq_reverse")
    np.testing.assert_array_equal(run["target"], run["source"][::-1])
    bounds = reverse_bounds(run.params)
    # Held out: teacher-forced as the notebook, and greedy (fed its own outputs, errors compound).
    assert run.metrics["token_accuracy"] >= bounds.forced
    assert run.metrics["greedy_token_accuracy"] >= bounds.greedy
    assert run.metrics["greedy_token_accuracy"] <= run.metrics["token_accuracy"] + 1e-9
    if bounds.example:
        np.testing.assert_array_equal(run["prediction"], run["target"])
        np.testing.assert_array_equal(run["greedy_prediction"], run["target"])


@pytest.mark.slow
def test_reverse_goals_hold_on_every_kernel_path(artifact) -> None:
    """torch picks CPU kernels by the processor; each path rounds floats its own way and so trains another
    model. seq2seq_reverse on lecture.toml's parameters must reach the same bounds on every path the CPU offers:
    the path the build took, from data/, and each other one run again (ATEN_CPU_CAPABILITY forced, a fresh
    process each, side by side)."""
    params = load().seq2seq_reverse
    bounds = reverse_bounds(params.model_dump())
    built = artifact("seq2seq_reverse").metrics
    others = [path for path in kernel_paths() if path.upper() != built["cpu_kernels"]]
    assert len(others) == len(kernel_paths()) - 1, f"data/ was trained on {built['cpu_kernels']}, not a path here"
    with ThreadPoolExecutor(2) as pool:
        runs = {built["cpu_kernels"].lower(): built, **dict(zip(others, pool.map(_reverse_on_kernel_path, others)))}
    failed = []
    for path, metrics in runs.items():
        assert metrics["cpu_kernels"] == path.upper(), f"forced {path}, torch took {metrics['cpu_kernels']}"
        goals = {
            f"token_accuracy >= {bounds.forced}": metrics["token_accuracy"] >= bounds.forced,
            f"greedy_token_accuracy >= {bounds.greedy}": metrics["greedy_token_accuracy"] >= bounds.greedy,
            "example_correct": metrics["example_correct"] or not bounds.example,
            "example_greedy_correct": metrics["example_greedy_correct"] or not bounds.example,
            "held_out_argmax_on_shifted > 0.5": metrics["held_out_argmax_on_shifted"] > 0.5,
        }
        failed += [f"{path}: {goal}" for goal, held in goals.items() if not held]
    assert not failed, f"{failed}; measured: {runs}"


def test_reverse_alignment_is_one_step_late(artifact) -> None:
    """The notebook says "each output attends to its mirror-image input (anti-diagonal)". The trained model's
    peaks fall mostly one position late (L-t), where the symbol it emitted last sits, not on the mirror."""
    run = artifact("seq2seq_reverse")
    attention = run["attention"]
    length = attention.shape[0]
    argmax = attention.argmax(axis=1)
    assert argmax[0] == length - 1  # step 0: the mirror position, the last symbol
    shifted = np.minimum(length - np.arange(length), length - 1)
    np.testing.assert_allclose(run["shifted_mass"], attention[np.arange(length), shifted])
    np.testing.assert_array_equal(run["attention_argmax"], argmax)
    np.testing.assert_array_equal(run["shifted_position"], shifted)
    # Held out, so one example cannot decide it. Observed at the defaults (settled): 0.99 of the peaks on L-t,
    # 0.11 on the mirror (step 0, where the two coincide), 0.12 of the weight on the mirror; with settle = 0 (the
    # notebook's recipe) 0.96 of the peaks on L-t, on each kernel path.
    assert run.metrics["held_out_argmax_on_shifted"] > 0.5
    assert run.metrics["held_out_argmax_on_shifted"] > 2 * run.metrics["held_out_argmax_on_mirror"]
    assert run.metrics["held_out_mirror_mass"] < 0.5


def test_sort_task_accuracy_and_content_alignment(artifact) -> None:
    run = artifact("seq2seq_sort")
    np.testing.assert_array_equal(run["target"], np.sort(run["source"]))
    assert run.metrics["token_accuracy"] > 0.95  # observed (1.0), held out
    # The notebook: "step t attends to wherever the t-th smallest value sits (content-driven)". Except maybe the
    # last step: the one value left is known by elimination, so where it looks is free (observed: position 0, not 5).
    np.testing.assert_array_equal(run["attention"].argmax(axis=1)[:-1], np.argsort(run["source"])[:-1])
    np.testing.assert_array_equal(run["attention_argmax"], run["attention"].argmax(axis=1))
    assert run.metrics["held_out_argmax_on_target"] > 0.95  # observed 0.99
    assert run.metrics["held_out_target_mass"] > 0.5  # observed (0.66): softer than the peaks suggest


def test_sort_permutation_differs_per_input(artifact) -> None:
    run = artifact("seq2seq_sort")
    sources, attention = run["more_sources"], run["more_attention"]
    np.testing.assert_allclose(attention.sum(axis=2), 1.0, atol=1e-5)
    pointers = [tuple(a.argmax(axis=1)) for a in [run["attention"], *attention]]
    assert len(set(pointers)) == len(pointers)  # every input gets its own permutation
    for source, pointer in zip(sources, pointers[1:]):
        np.testing.assert_array_equal(pointer[:-1], np.argsort(source)[:-1])  # the last step's look is free
    np.testing.assert_array_equal(run["more_predictions"], np.sort(sources, axis=1))


def test_lookup_query_row_picks_the_matching_item(artifact) -> None:
    run = artifact("lookup")
    keys, values = run["keys"], run["values"]
    match = int(run["match_index"])
    assert keys[match] == run["query_key"]
    assert int(run["attention"][-1].argmax()) == match
    assert int(run["prediction"]) == int(run["answer"]) == values[match]
    assert run.metrics["accuracy"] > 0.95  # observed (1.0), held out
    # The notebook: the query row "lights up almost entirely on the one item whose key matches (a near one-hot row)".
    assert run.metrics["query_match_mass"] > 0.9
    assert run["attention"][-1, match] > 0.9
    # "... while every other row just keeps each item attending to itself."
    items = len(keys)
    np.testing.assert_array_equal(run["attention"][:items].argmax(axis=1), np.arange(items))
    labels = run["labels"]
    assert labels.dtype.kind == "U" and labels[-1] == f"query k{int(run['query_key'])}"
    assert labels[match] == f"k{keys[match]}=v{values[match]}"


def test_groupby_attention_is_block_structured(artifact) -> None:
    run = artifact("groupby")
    keys, attention = run["keys"], run["attention"]
    assert np.all(np.diff(keys) >= 0)  # sorted by key, as the notebook
    same_key = keys[:, None] == keys[None, :]
    assert (attention * same_key).sum(axis=1).mean() > 0.8
    assert run.metrics["within_group_mass"] > 0.8  # held out
    # The notebook: "attention spreads its weight *uniformly* over all tokens that share its key".
    for row, key in enumerate(keys):
        group = keys == key
        np.testing.assert_allclose(attention[row, group], 1.0 / group.sum(), atol=0.05)
    # The output is the per-key mean value.
    for key in np.unique(keys):
        group = keys == key
        np.testing.assert_allclose(run["target"][group], run["values"][group].mean())
    # The notebook: "the attention output equals the per-key average value".
    np.testing.assert_allclose(run["output"], run["target"], atol=0.05)


def test_groupby_mse_far_below_the_global_mean_baseline(artifact) -> None:
    metrics = artifact("groupby").metrics
    # Observed: the notebook shows the two curves coincide but quotes no MSE.
    assert metrics["mse"] < 0.01 * metrics["baseline_mse"]
    assert metrics["mse"] < 0.01 * metrics["sequence_mean_mse"]


@pytest.mark.usefixtures("torch_global_state")
def test_experiments_are_deterministic() -> None:
    """Same parameters, byte-identical arrays: one cheap run of each kind twice."""
    cheap = [
        (lookup, Lookup(iters=3, test_size=64)),
        (groupby, GroupBy(iters=3, test_size=64)),
        (seq2seq_reverse, Seq2Seq(iters=2, test_size=32, length=4)),
    ]
    for module, params in cheap:
        first, first_metrics = module.run(params)
        second, second_metrics = module.run(params)
        assert first.keys() == second.keys()
        for key in first:
            assert np.asarray(first[key]).tobytes() == np.asarray(second[key]).tobytes(), f"{module.__name__}: {key}"
        assert first_metrics == second_metrics


@pytest.mark.usefixtures("torch_global_state")
def test_sort_experiment_runs_small() -> None:
    """A barely trained sorter: the bookkeeping around the model must still be consistent."""
    params = Seq2Seq(iters=2, test_size=16, length=4, bidirectional=True, test_seed=5)
    arrays, metrics = seq2seq_sort.run(params)
    source = arrays["source"]
    assert len(set(source.tolist())) == params.length  # distinct values, as the notebook's randperm
    np.testing.assert_array_equal(arrays["target"], np.sort(source))
    np.testing.assert_array_equal(arrays["sorted_position"], np.argsort(source))
    np.testing.assert_array_equal(arrays["attention_argmax"], arrays["attention"].argmax(axis=1))
    assert arrays["more_attention"].shape == (seq2seq_sort.MORE_EXAMPLES, params.length, params.length)
    sorted_more = np.sort(arrays["more_sources"], axis=1)
    assert metrics["more_correct"] == int((arrays["more_predictions"] == sorted_more).all(axis=1).sum())
    assert metrics["example_correct"] == bool((arrays["prediction"] == arrays["target"]).all())


@pytest.mark.parametrize("model", [Lookup, GroupBy, Seq2Seq])
def test_held_out_seed_must_differ(model) -> None:
    with pytest.raises(ValueError, match="test_seed must differ"):
        model(seed=3, test_seed=3)
