"""Benchmark: do the trained experiments' claims hold on every CPU kernel path torch can take on this machine?

torch picks its CPU kernels by the processor (the first line printed names the path it takes unforced); the
environment variable ATEN_CPU_CAPABILITY = default | avx2 | avx512 forces one path, and the paths round floats
differently, so a model trained on one path is not the model trained on another. A claim the lecture makes
about a trained model must hold on all of them. For each path the CPU offers (default always; avx2 and
avx512 when /proc/cpuinfo lists the flags avx2 and avx512f) every trained experiment (adding, and
lstm_inside on the LSTM that adding trains; seq2seq_reverse, seq2seq_sort, lookup, groupby) runs its own
`run(params)`, with lecture.toml's parameters and the upstream parameters `seqanim precompute` hands it,
in a fresh process with that path forced and SEQANIM_QUIET=1; each process reports the path torch says it
took, which must be the forced one. adding and lstm_inside share a process, in a scratch workspace of its
own (adding's saved LSTM goes to its data/, never to this checkout's). Two processes run at a time, one
torch thread each (as in a build).

It prints one table: a row per claim (the thresholds are the test suite's, tests/test_precompute_*.py;
the reversal's are its goals; the sorter's greedy accuracy, which the suite does not bound, gets its
teacher-forced bound), a column per kernel path, each cell the figure and whether the claim holds;
then one line saying whether every claim held on every path. It exits 0 whatever the claims do, 1 when a
run failed (and says which). About 2 minutes of CPU per path.

    .venv/bin/python bench/kernels.py [--paths default avx2] [--set seq2seq_reverse.settle=0]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from seqanim.lecture.config import CONFIG_ENV, load  # noqa: E402 - after the path insert: bench/ runs as a script
from seqanim.workspace import WORKSPACE_ENV, current  # noqa: E402

current().importable()  # the lecture's own precompute/, as `seqanim precompute` imports it
from precompute.adding import BASELINE_MSE as BASELINE  # noqa: E402 - predict-the-mean MSE, 1/6

PATHS = {"default": None, "avx2": "avx2", "avx512": "avx512f"}  # kernel path -> the CPU flag it needs
# One process each, longest first; lstm_inside opens the LSTM adding has just saved, so it runs after it.
GROUPS = (("adding", "lstm_inside"), ("seq2seq_reverse",), ("seq2seq_sort",), ("groupby",), ("lookup",))
MARK = "KERNELS "  # the worker's result line


@dataclass(frozen=True)
class Claim:
    experiment: str
    text: str
    figure: Callable[[dict[str, Any]], Any]  # from the experiment's metrics (and the worker's extras)
    holds: Callable[[Any], bool]
    show: Callable[[Any], str] = lambda value: f"{value:.4g}"


def correct(value: bool) -> str:
    return "right" if value else "wrong"


CLAIMS = (
    Claim("adding", "adding: LSTM test MSE < baseline/10", lambda m: m["final_mse_LSTM"], lambda v: v < BASELINE / 10),
    Claim("adding", "adding: GRU test MSE < baseline/10", lambda m: m["final_mse_GRU"], lambda v: v < BASELINE / 10),
    Claim(
        "adding",
        "adding: RNN does not solve it, MSE > baseline/2",
        lambda m: m["final_mse_RNN"],
        lambda v: v > BASELINE / 2,
    ),
    Claim(
        "lstm_inside",
        "lstm_inside: 2 largest write jumps at the markers",
        lambda m: m["write_jumps"],
        lambda v: v["steps"] == v["markers"],
        lambda v: ",".join(map(str, v["steps"])),
    ),
    Claim("lstm_inside", "lstm_inside: final guess within 0.15", lambda m: m["abs_error"], lambda v: v < 0.15),
    Claim(
        "seq2seq_reverse", "reverse: held-out acc forced >= 0.97", lambda m: m["token_accuracy"], lambda v: v >= 0.97
    ),
    Claim(
        "seq2seq_reverse",
        "reverse: held-out acc greedy >= 0.95",
        lambda m: m["greedy_token_accuracy"],
        lambda v: v >= 0.95,
    ),
    Claim("seq2seq_reverse", "reverse: example forced right", lambda m: m["example_correct"], bool, correct),
    Claim("seq2seq_reverse", "reverse: example greedy right", lambda m: m["example_greedy_correct"], bool, correct),
    Claim(
        "seq2seq_reverse",
        "reverse: peaks on shifted mirror > 0.5",
        lambda m: m["held_out_argmax_on_shifted"],
        lambda v: v > 0.5,
    ),
    Claim("seq2seq_sort", "sort: held-out acc forced > 0.95", lambda m: m["token_accuracy"], lambda v: v > 0.95),
    Claim("seq2seq_sort", "sort: held-out acc greedy > 0.95", lambda m: m["greedy_token_accuracy"], lambda v: v > 0.95),
    Claim("seq2seq_sort", "sort: example forced right", lambda m: m["example_correct"], bool, correct),
    Claim("seq2seq_sort", "sort: example greedy right", lambda m: m["example_greedy_correct"], bool, correct),
    Claim(
        "seq2seq_sort",
        "sort: peaks on the t-th smallest > 0.95",
        lambda m: m["held_out_argmax_on_target"],
        lambda v: v > 0.95,
    ),
    Claim(
        "seq2seq_sort", "sort: mass on the t-th smallest > 0.5", lambda m: m["held_out_target_mass"], lambda v: v > 0.5
    ),
    Claim("lookup", "lookup: held-out accuracy > 0.95", lambda m: m["accuracy"], lambda v: v > 0.95),
    Claim("lookup", "lookup: query mass on the match > 0.9", lambda m: m["query_match_mass"], lambda v: v > 0.9),
    Claim("lookup", "lookup: example answered right", lambda m: m["example_correct"], bool, correct),
    Claim("groupby", "groupby: in-group mass > 0.8", lambda m: m["within_group_mass"], lambda v: v > 0.8),
    Claim(
        "groupby",
        "groupby: MSE / global-mean MSE < 0.01",
        lambda m: m["mse"] / m["baseline_mse"],
        lambda v: v < 0.01,
    ),
)


# --- the worker: one group of experiments, in this process, on the kernel path the environment forces ---------


def extras(name: str, arrays: dict[str, Any]) -> dict[str, Any]:
    """Figures a claim reads from the arrays rather than the metrics."""
    if name != "lstm_inside":
        return {}
    import numpy as np

    jumps = np.diff(arrays["write_norm"])  # the write norm's step-to-step increases; step k+1 - step k
    steps = sorted(int(step) + 1 for step in np.argsort(jumps)[-2:])
    markers = sorted(int(marker) for marker in arrays["markers"])
    return {"write_jumps": {"steps": steps, "markers": markers}}


def worker(names: list[str]) -> None:
    """Run each experiment as `seqanim precompute` does (seqanim/stages/experiments.py: its table validated by its own
    model, the upstream tables as their models), writing no artifact but its extra outputs (state dicts), which a
    later experiment of the group may open; print the metrics as JSON."""
    import importlib

    import torch

    from seqanim.lecture import registry
    from seqanim.lecture.config import current as lecture_in_force
    from seqanim.workspace import current as workspace

    lecture = lecture_in_force()
    results: dict[str, Any] = {"capability": torch.backends.cpu.get_cpu_capability()}
    for name in names:
        module = importlib.import_module(f"precompute.{name}")
        params = module.EXPERIMENT.params.model_validate(lecture.section(name))
        upstream = {dep: lecture.params(dep) for dep in registry.experiment(name).reads}
        started = time.perf_counter()
        arrays, metrics, *extra = module.run(params, **upstream)
        for filename, state in (extra[0] if extra else {}).items():  # adding's LSTM, which lstm_inside opens
            workspace().data.mkdir(exist_ok=True)
            torch.save(state, workspace().data / filename)
        results[name] = {**metrics, **extras(name, arrays), "seconds": round(time.perf_counter() - started, 1)}
    print(MARK + json.dumps(results, default=float))


# --- the parent ----------------------------------------------------------------------------------------------


def offered_paths() -> list[str]:
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    return [path for path, flag in PATHS.items() if flag is None or flag in flags]


def scratch_workspace(folder: Path, config: Path) -> dict[str, str]:
    """A workspace whose data/ is empty and whose precompute/ is the lecture's; the environment that selects it
    and hands the resolved parameters over (as the build hands them to its stage processes)."""
    folder.mkdir(parents=True)
    (folder / "data").mkdir()
    (folder / "precompute").symlink_to(current().precompute, target_is_directory=True)
    shutil.copy2(current().config, folder / "lecture.toml")
    return {WORKSPACE_ENV: str(folder), CONFIG_ENV: str(config)}


def run_group(path: str, names: tuple[str, ...], env: dict[str, str]) -> tuple[dict[str, Any], str]:
    """One fresh process; returns its results and, if it failed, what it said."""
    result = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", *names],
        env={**os.environ, **env, "ATEN_CPU_CAPABILITY": path, "SEQANIM_QUIET": "1"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith(MARK)]
    if result.returncode != 0 or not lines:
        return {}, f"{path} {'+'.join(names)}: exit {result.returncode}\n{result.stderr[-2000:]}"
    found = json.loads(lines[-1][len(MARK) :])
    if found["capability"] != path.upper():
        return {}, f"{path} {'+'.join(names)}: torch took {found['capability']}, not the forced {path.upper()}"
    return found, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), help="kernel paths (default: all the CPU offers)")
    parser.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE", help="as `seqanim --set`")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return

    import torch

    offered = offered_paths()
    paths = [path for path in (args.paths or offered) if path in offered]
    lecture = load(overrides=args.set)
    print(
        f"machine: {os.cpu_count()} cores, kernel paths offered: {', '.join(offered)} "
        f"(unforced, torch {torch.__version__} takes {torch.backends.cpu.get_cpu_capability()}); "
        f"parameters: {current().label(current().config)}" + "".join(f" --set {text}" for text in args.set)
    )
    started = time.perf_counter()
    results: dict[str, dict[str, Any]] = {path: {} for path in paths}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="seqanim-kernels-") as temporary:
        config = Path(temporary) / "lecture.json"
        config.write_text(lecture.model_dump_json())
        jobs = [
            (path, names, scratch_workspace(Path(temporary) / f"{path}-{names[0]}", config))
            for names in GROUPS
            for path in paths
        ]
        with ThreadPoolExecutor(2) as pool:
            for (path, _, _), (found, failure) in zip(jobs, pool.map(lambda job: run_group(*job), jobs)):
                results[path] |= found
                if failure:
                    failures.append(failure)
    wall = time.perf_counter() - started

    width = max(len(claim.text) for claim in CLAIMS)
    print(f"{'claim':{width}s}" + "".join(f"  {path:>16s}" for path in paths))
    held = total = 0
    for claim in CLAIMS:
        cells = []
        for path in paths:
            metrics = results[path].get(claim.experiment)
            total += 1
            if metrics is None:
                cells.append("no run")
                continue
            try:
                value = claim.figure(metrics)
            except KeyError:
                cells.append("absent")
                continue
            ok = bool(claim.holds(value))
            held += ok
            cells.append(f"{claim.show(value)} {'ok' if ok else 'NO'}")
        print(f"{claim.text:{width}s}" + "".join(f"  {cell:>16s}" for cell in cells))
    seconds = {
        path: " ".join(
            f"{name} {results[path][name]['seconds']:.0f}s" for name in results[path] if name != "capability"
        )
        for path in paths
    }
    for path in paths:
        print(f"run time on {path}: {seconds[path]}")
    print(f"{len(paths)} kernel paths x {len(GROUPS)} processes, two at a time: {wall:.0f} s")
    for failure in failures:
        print(f"run failed: {failure}")
    verdict = "every claim held on every path" if held == total else "NOT every claim held on every path"
    print(f"kernels: {held}/{total} claim-path pairs held: {verdict} ({', '.join(paths)})")
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
