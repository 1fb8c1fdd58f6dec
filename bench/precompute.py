"""Benchmark: the seed notebooks' own computation cells against `seqanim precompute`, side by side, one run.

The notebooks' cells are executed from ../shared/seeds as they are, with plotting switched off (pyplot,
seaborn and matplotlib.patches replaced by objects that accept any call), in a fresh process with the
machine's default torch threads. seqanim's side is a cold `seqanim precompute` (no data, no cache) of
all experiments on the same settings, in an isolated copy of the tree. Shared machines are noisy, so
the two sides alternate for --rounds rounds (which goes first alternates too); every round's ratio is
printed, then the median (goal: <= 0.8), then the metrics of both side by side, each model scored on the
same held-out set: adding test MSE per cell, reverse and sort token accuracy (teacher-forced), lookup
accuracy and group-by MSE.

    .venv/bin/python bench/precompute.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from seqanim.lecture.config import load  # noqa: E402 - after the path insert: bench/ runs as a script
from tests.tree import make_tree  # noqa: E402

SEEDS = ROOT.parent / "shared" / "seeds"
NOTEBOOKS = ["000_6ad51b100fcd38b8.txt", "003_48cf20683bbc56a4.txt"]

# Plotting off: every pyplot/seaborn call returns an object that accepts any further call.
STUBS = textwrap.dedent(
    """
    import importlib.machinery, sys, types
    def _missing(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)  # inspect and importlib probe dunders: be a plain module to them
        return Anything()
    class Anything:
        def __getattr__(self, name): return Anything()
        def __call__(self, *a, **k): return Anything()
        def __getitem__(self, key): return Anything()
        def __iter__(self): return iter([Anything(), Anything()])
    for name in ("matplotlib.pyplot", "matplotlib.patches", "seaborn"):
        module = types.ModuleType(name); module.__getattr__ = _missing; sys.modules[name] = module
        module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    import matplotlib
    matplotlib.pyplot = sys.modules["matplotlib.pyplot"]
    matplotlib.patches = sys.modules["matplotlib.patches"]
    """
)

# Metrics of the notebook's own models, on the held-out sets seqanim scores its models on: drawn by the notebook's
# own batch functions after torch.manual_seed(test_seed), which is what seqanim's seeded generators draw. Each
# snippet runs right after its cell (at2 and at4 both name their model `m`); fork_rng leaves later cells alone.
AFTER_CELL = {
    "at2": """
with torch.random.fork_rng():
    torch.manual_seed({seq2seq_reverse.test_seed}); _source, _target = rev_batch({seq2seq_reverse.test_size})
    with torch.no_grad():
        _bench["reverse_token_accuracy"] = (m(_source, _target)[0].argmax(-1) == _target).float().mean().item()
""",
    "at4": """
with torch.random.fork_rng():
    torch.manual_seed({seq2seq_sort.test_seed}); _source, _target = sort_batch({seq2seq_sort.test_size})
    with torch.no_grad():
        _bench["sort_token_accuracy"] = (m(_source, _target)[0].argmax(-1) == _target).float().mean().item()
""",
    "tf2": """
with torch.random.fork_rng():
    torch.manual_seed({lookup.test_seed}); _keys, _vals, _qkey, _ans = lookup_batch({lookup.test_size})
    with torch.no_grad():
        _bench["lookup_accuracy"] = (ml(_keys, _vals, _qkey)[0].argmax(-1) == _ans).float().mean().item()
""",
    "tf8": """
with torch.random.fork_rng():
    torch.manual_seed({groupby.test_seed}); _keys, _vals, _tgt = grp_batch({groupby.test_size})
    with torch.no_grad():
        _bench["groupby_mse"] = F.mse_loss(g(_keys, _vals)[0], _tgt).item()
""",
}
MEASURE = """
import json
xte, yte = adding_batch({adding.test_size}, {adding.T}, seed={adding.test_seed})
with torch.no_grad():
    _bench |= {{kind: torch.nn.functional.mse_loss(models[kind](xte), yte).item() for kind in models}}
print("NOTEBOOK_METRICS", json.dumps(_bench))
"""
KINDS = ("RNN", "LSTM", "GRU")


def notebook_source(name: str, after_cell: dict[str, str] | None = None) -> str:
    cells = json.loads((SEEDS / name).read_text())["cells"]
    code = [
        "".join(cell["source"]) + "\n" + (after_cell or {}).get(cell.get("id", ""), "")
        for cell in cells
        if cell["cell_type"] == "code"
    ]
    return "\n\n".join(code)


def with_parameters(snippet: str) -> str:
    """A snippet with lecture.toml's sizes and seeds filled in (the defaults are the notebook's)."""
    lecture = load()
    return snippet.format_map({name: lecture.params(name) for name in lecture.experiments})


def run_notebooks(workdir: Path) -> tuple[float, dict[str, float]]:
    (workdir / "sklearn").mkdir(exist_ok=True)  # the 003 setup cell only checks that it is importable
    (workdir / "sklearn" / "__init__.py").write_text("")
    script = workdir / "notebooks.py"
    after_cell = {cell: with_parameters(snippet) for cell, snippet in AFTER_CELL.items()}
    body = STUBS + "\n_bench = {}\n" + notebook_source(NOTEBOOKS[0], after_cell) + "\n" + with_parameters(MEASURE)
    # 003 runs in its own namespace, as its own notebook would.
    script.write_text(body + "\nexec(compile(open('nb003.py').read(), 'nb003', 'exec'), {})\n")
    (workdir / "nb003.py").write_text(STUBS + "\n" + notebook_source(NOTEBOOKS[1]))
    started = time.perf_counter()
    result = subprocess.run([sys.executable, str(script)], cwd=workdir, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"notebook run failed:\n{result.stderr[-2000:]}")
    line = next(line for line in result.stdout.splitlines() if line.startswith("NOTEBOOK_METRICS"))
    return seconds, json.loads(line.split(" ", 1)[1])


def run_seqanim(workdir: Path) -> tuple[float, dict[str, float]]:
    tree = make_tree(workdir / "tree", quality="low")
    for path in (tree.root / "data").iterdir():
        if path.name != "README.md":
            path.unlink()
    (tree.root / ".seqanim" / "state.json").unlink(missing_ok=True)
    shutil.rmtree(tree.root / ".seqanim" / "cache", ignore_errors=True)  # cold: nothing to restore
    started = time.perf_counter()
    result = tree.run("precompute")
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"seqanim precompute failed:\n{result.stderr[-2000:]}")

    def metrics(name: str) -> dict[str, float]:
        return json.loads((tree.root / "data" / f"{name}.json").read_text())["metrics"]

    adding = metrics("adding")
    return seconds, {kind: adding[f"final_mse_{kind}"] for kind in KINDS} | {
        "reverse_token_accuracy": metrics("seq2seq_reverse")["token_accuracy"],
        "sort_token_accuracy": metrics("seq2seq_sort")["token_accuracy"],
        "lookup_accuracy": metrics("lookup")["accuracy"],
        "groupby_mse": metrics("groupby")["mse"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of both sides (default 3)")
    rounds = parser.parse_args().rounds
    print(f"machine: {os.cpu_count()} cores; both sides run the notebooks' default settings; {rounds} rounds")
    ratios = []
    with tempfile.TemporaryDirectory() as temporary:
        for index in range(rounds):
            workdir = Path(temporary) / f"round{index}"
            workdir.mkdir()
            if index % 2 == 0:
                notebook_seconds, notebook_metrics = run_notebooks(workdir)
                ours_seconds, ours_metrics = run_seqanim(workdir)
            else:
                ours_seconds, ours_metrics = run_seqanim(workdir)
                notebook_seconds, notebook_metrics = run_notebooks(workdir)
            ratios.append(ours_seconds / notebook_seconds)
            print(
                f"round {index + 1}: notebooks {notebook_seconds:6.1f} s   "
                f"seqanim precompute {ours_seconds:6.1f} s   ratio {ratios[-1]:.2f}",
                flush=True,
            )
    print("notebooks = 000 + 003 code cells, plotting off; seqanim = all 11 experiments, cold, `seqanim precompute`")
    print(f"median ratio seqanim / notebooks: {statistics.median(ratios):.2f}  (goal <= 0.80)")
    print("metrics of the last round, both sides on the same held-out sets:")
    rows = [(f"adding {kind} test MSE (lower is better)", kind) for kind in KINDS] + [
        ("seq2seq reverse token accuracy", "reverse_token_accuracy"),
        ("seq2seq sort token accuracy", "sort_token_accuracy"),
        ("lookup accuracy", "lookup_accuracy"),
        ("group-by test MSE (lower is better)", "groupby_mse"),
    ]
    for label, key in rows:
        print(f"  {label:40s} notebook {notebook_metrics[key]:.6g}   seqanim {ours_metrics[key]:.6g}")


if __name__ == "__main__":
    main()
