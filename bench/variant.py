"""The test suite on a lecture whose lecturer changed a few values: do the tests read the parameters in force,
or today's lecture.toml?

A copy of this checkout (tracked files, the built data/, renders/, slides/ and cache, so only what the new
values feed is rebuilt) gets a lecture.toml with VARIANT's values, edited in place as a lecturer would; then
pytest runs there, with the copy's own engine and tests, and its summary line is printed.

    .venv/bin/python bench/variant.py [PYTEST ARGS...]      e.g. tests/test_build.py tests/test_kills.py

`make bench` runs it on the whole suite. Needs a built tree (`make`); the copy is removed afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tree import make_tree, with_value  # noqa: E402

# Not today's values, each inside its documented range: a longer adding task, a shorter linear-RNN run,
# a narrower RoPE.
VARIANT = {("adding", "T"): 36, ("linear_rnn", "steps"): 48, ("rope", "d"): 24}


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [name for name in listed.stdout.splitlines() if (ROOT / name).is_file()]


def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="seqanim-variant-"))
    try:
        copy = make_tree(workdir / "lecture").root  # lecture files, data/, cache; renders/ slides/ linked
        if (ROOT.parent / "shared").exists():  # the seed notebooks, where tests/test_config.py finds them
            (workdir / "shared").symlink_to(ROOT.parent / "shared")
        for name in tracked_files():  # the engine, the tests, the Makefile: this checkout's own
            target = copy / name
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, target)
        config = copy / "lecture.toml"
        text = config.read_text()
        for (table, key), value in VARIANT.items():
            text = with_value(text, table, key, value)
        config.write_text(text)
        env = {**os.environ, "PYTHONPATH": str(copy)}
        env.pop("SEQANIM_TEST_SKIP_BUILD", None)  # the variant must be built: the suite's first fixture does it
        check = subprocess.run([sys.executable, "-m", "seqanim.cli", "config", "--check"], cwd=copy, env=env)
        if check.returncode != 0:
            raise SystemExit("the variant lecture.toml does not validate")
        print("variant: " + ", ".join(f"{table}.{key} = {value}" for (table, key), value in VARIANT.items()))
        started = time.perf_counter()
        args = sys.argv[1:] or ["tests"]
        suite = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=15", *args],
            cwd=copy,
            env=env,
        )
        print(f"variant suite ({' '.join(args)}): exit {suite.returncode}, {time.perf_counter() - started:.0f} s")
        raise SystemExit(suite.returncode)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
