"""Benchmark: the seed notebooks' own computation cells against `seqanim precompute`, side by side, one run.

The notebooks' cells are executed from ../shared/seeds as they are, with plotting switched off (pyplot,
seaborn and matplotlib.patches replaced by objects that accept any call), in a fresh process with the
machine's default torch threads. seqanim's side is a cold `seqanim precompute` (no data, no cache) of
all experiments on the same settings, in an isolated copy of the tree. Prints both times, the ratio
(goal: <= 0.5) and the adding-problem test MSEs of both, measured on the same held-out set.

    .venv/bin/python bench/precompute.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tree import make_tree  # noqa: E402

SEEDS = ROOT.parent / "shared" / "seeds"
NOTEBOOKS = ["000_6ad51b100fcd38b8.txt", "003_48cf20683bbc56a4.txt"]

# Plotting off: every pyplot/seaborn call returns an object that accepts any further call.
STUBS = textwrap.dedent(
    '''
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
    import matplotlib; matplotlib.pyplot = sys.modules["matplotlib.pyplot"]; matplotlib.patches = sys.modules["matplotlib.patches"]
    '''
)

MEASURE = textwrap.dedent(
    '''
    import json
    xte, yte = adding_batch(512, 40, seed=999)
    with torch.no_grad():
        mse = {kind: torch.nn.functional.mse_loss(models[kind](xte), yte).item() for kind in models}
    print("NOTEBOOK_METRICS", json.dumps(mse))
    '''
)


def notebook_source(name: str) -> str:
    cells = json.loads((SEEDS / name).read_text())["cells"]
    return "\n\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")


def run_notebooks(workdir: Path) -> tuple[float, dict[str, float]]:
    (workdir / "sklearn").mkdir(exist_ok=True)  # the 003 setup cell only checks that it is importable
    (workdir / "sklearn" / "__init__.py").write_text("")
    script = workdir / "notebooks.py"
    body = STUBS + "\n" + notebook_source(NOTEBOOKS[0]) + "\n" + MEASURE
    # 003 runs in its own namespace, as its own notebook would.
    script.write_text(body + "\nexec(compile(open('nb003.py').read(), 'nb003', 'exec'), {})\n")
    (workdir / "nb003.py").write_text(STUBS + "\n" + notebook_source(NOTEBOOKS[1]))
    started = time.perf_counter()
    result = subprocess.run([sys.executable, str(script)], cwd=workdir, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"notebook run failed:\n{result.stderr[-2000:]}")
    line = next(line for line in result.stdout.splitlines() if line.startswith("NOTEBOOK_METRICS"))
    return seconds, json.loads(line.split(" ", 1)[1])


def run_seqanim(workdir: Path) -> tuple[float, dict[str, float]]:
    tree = make_tree(workdir / "tree")
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
    metrics = json.loads((tree.root / "data" / "adding.json").read_text())["metrics"]
    return seconds, {kind: metrics[f"final_mse_{kind}"] for kind in ("RNN", "LSTM", "GRU")}


def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        workdir = Path(temporary)
        print(f"machine: {os.cpu_count()} cores; both sides run the notebooks' default settings")
        notebook_seconds, notebook_mse = run_notebooks(workdir)
        ours_seconds, ours_mse = run_seqanim(workdir)
    print(f"notebooks (000 + 003 code cells, plotting off): {notebook_seconds:7.1f} s")
    print(f"seqanim precompute (all 11 experiments, cold):  {ours_seconds:7.1f} s")
    print(f"ratio seqanim / notebooks: {ours_seconds / notebook_seconds:.2f}  (goal <= 0.50)")
    print("adding problem, test MSE on the held-out set (seed 999):")
    for kind in ("RNN", "LSTM", "GRU"):
        print(f"  {kind:4s}  notebook {notebook_mse[kind]:.4f}   seqanim {ours_mse[kind]:.4f}")


if __name__ == "__main__":
    main()
