"""Benchmark: what each cache beside the build's output cache (`.seqanim/cache`) saves, measured side by side.

The build keeps one content-addressed cache of stage outputs. Four smaller ones sit beside it; each is kept
only if taking it away costs measurable time. In a copy of the built lecture (tests/tree.py: the real tree is
untouched), each case runs the same command with the cache and without it (moved away just before, put back
after), alternating, `--rounds` times; every run but the no-op builds and the export changes a parameter to a
value not used before, so the stage cache cannot answer for it:

  params.json        a no-op `seqanim build`: the validated experiment tables (else each experiment's module,
                     and torch with it, is imported to validate its table);
  declarations.json  a no-op `seqanim build`: what precompute/ and scenes/ declare (else every module is
                     imported, manim and torch with them);
  voice/             the rnn deck's narrations and export after a [publish] change that leaves every clip's
                     words and voice alone (`publish.caption_chars`): clips found, or synthesised again;
  media/Tex, texts   two scenes re-rendered for a theme colour: manim's LaTeX and text SVGs found, or made
                     again (LaTeX + dvisvgm per formula);
  cards              the rnn deck exported again (its record and cache entry dropped, nothing else changed):
                     its title card found, or rendered.

Printed per case: the median seconds with and without, and their ratio.

    .venv/bin/python bench/caches.py [--quality low] [--rounds 2] [--only CASE] [--keep]
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tree import Tree, make_tree  # noqa: E402

_fresh = itertools.count(1)


def timed(tree: Tree, *args: str) -> float:
    started = time.perf_counter()
    result = tree.run(*args, timeout=3600)
    if result.returncode != 0:
        sys.exit(f"seqanim {' '.join(args)} failed: {result.stderr[-2000:]}")
    return time.perf_counter() - started


def without(paths: list[Path], run: Callable[[], float]) -> float:
    """`run()` with `paths` moved away; they are put back afterwards (what the run made instead is dropped)."""
    aside = [path.with_name(path.name + ".aside") for path in paths]
    for path, moved in zip(paths, aside):
        if path.exists():
            path.rename(moved)
    try:
        return run()
    finally:
        for path, moved in zip(paths, aside):
            if moved.exists():
                if path.is_dir():
                    shutil.rmtree(path)
                elif path.exists():
                    path.unlink()
                moved.rename(path)


def cases(tree: Tree, quality: str) -> dict[str, tuple[list[Path], Callable[[], float]]]:
    state, slides = tree.root / ".seqanim", tree.root / "slides" / quality

    def no_op() -> float:
        return timed(tree, "build", "--quality", quality)

    def narrations() -> float:
        return timed(tree, "slides", "rnn", "-q", quality, "--set", f"publish.caption_chars={40 + next(_fresh) % 30}")

    def renders() -> float:
        muted = f'theme.muted="#8a8f{next(_fresh):02x}"'
        return timed(tree, "render", "ScaledScores", "SoftmaxNormalization", "-q", quality, "--set", muted)

    def export() -> float:  # the deck alone runs again: its record and cache entry are dropped, nothing else
        stage = f"deck:{quality}:rnn"
        records = json.loads((state / "state.json").read_text())
        shutil.rmtree(state / "cache" / records.pop(stage)["key"], ignore_errors=True)
        (state / "state.json").write_text(json.dumps(records))
        return timed(tree, "slides", "rnn", "-q", quality)

    return {
        "params.json (no-op build)": ([state / "params.json"], no_op),
        "declarations.json (no-op build)": ([state / "declarations.json"], no_op),
        "voice/ (rnn narrations)": ([state / "voice"], narrations),
        "media/Tex, texts (2 renders)": ([state / "media" / "Tex", state / "media" / "texts"], renders),
        "cards (rnn export)": ([slides / "cards"], export),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quality", default="low")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", default="", help="Run only the cases whose name contains this.")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="seqanim-caches-"))
    tree = make_tree(workdir / "lecture", quality=args.quality)
    try:
        print(f"bringing the copy up to date at {args.quality} ...", flush=True)
        timed(tree, "build", "--quality", args.quality)
        print(f"{'cache':34} {'with':>8} {'without':>8} {'ratio':>6}")
        for name, (paths, run) in cases(tree, args.quality).items():
            if args.only not in name:
                continue
            run()  # warm: the first run after another case may carry its leftovers
            kept, dropped = [], []
            for _ in range(args.rounds):
                kept.append(run())
                dropped.append(without(paths, run))
            with_s, without_s = statistics.median(kept), statistics.median(dropped)
            print(f"{name:34} {with_s:7.2f}s {without_s:7.2f}s {without_s / with_s:6.2f}", flush=True)
    finally:
        if args.keep:
            print(f"kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
