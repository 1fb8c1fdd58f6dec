"""Benchmark the build, side by side in one run, on an isolated copy of the tree (the real one is untouched).

Prints:
  1. a full cold build (no data, no cache) and the no-op build after it;
  2. the rebuild after `--set adding.T=41`, as a fraction of the full build;
  3. rendering the same scenes with -j 2 against -j 1;
  4. render throughput per scene (seconds of video per wall second) at low and, with --high, high quality,
     slowest first.

    .venv/bin/python bench/build.py [--high] [--scenes A,B,...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tree import Tree, make_tree  # noqa: E402

PAIR_SCENES = ["HiddenStateDynamics", "EchoOfAPulse", "ScaledScores", "SoftmaxNormalization"]


def timed(tree: Tree, *args: str) -> float:
    started = time.perf_counter()
    result = tree.run(*args, timeout=7200)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"seqanim {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return seconds


def cold_tree(workdir: Path) -> Tree:
    tree = make_tree(workdir / "tree")
    for folder in ("data", "renders", "slides"):
        for path in (tree.root / folder).iterdir():
            if path.name == "README.md":
                continue
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    (tree.root / ".seqanim" / "state.json").unlink(missing_ok=True)
    shutil.rmtree(tree.root / ".seqanim" / "cache", ignore_errors=True)  # cold: nothing to restore
    return tree


def throughput(tree: Tree, quality: str) -> list[tuple[str, float, float, float]]:
    rows = []
    for report_path in sorted((tree.root / "renders" / quality).glob("*.report.json")):
        report = json.loads(report_path.read_text())
        rows.append(
            (
                report["scene"],
                report["duration"],
                report["render_seconds"],
                report["duration"] / report["render_seconds"],
            )
        )
    return sorted(rows, key=lambda row: row[3])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--high", action="store_true", help="also render every scene at high quality (slow)")
    parser.add_argument("--scenes", default=",".join(PAIR_SCENES), help="scenes for the -j comparison")
    args = parser.parse_args()
    pair = args.scenes.split(",")
    with tempfile.TemporaryDirectory() as temporary:
        tree = cold_tree(Path(temporary))
        full = timed(tree, "build")
        noop = timed(tree, "build")
        adding = timed(tree, "build", "--set", "adding.T=41")
        # Same work twice: a theme value unseen before forces a real render (manim's cache cannot help).
        serial = timed(tree, "render", *pair, "-j", "1", "--set", 'theme.muted="#8a8f99"')
        parallel = timed(tree, "render", *pair, "-j", "2", "--set", 'theme.muted="#8a8f9a"')
        print(f"full cold build (precompute + render + decks, low): {full:8.1f} s")
        print(f"no-op build after it:                             {noop:8.2f} s   ({noop / full:.4f} of full)")
        print(f"rebuild after --set adding.T=41:                  {adding:8.1f} s   ({adding / full:.2f} of full)")
        print(
            f"render {len(pair)} scenes -j 1: {serial:.1f} s, -j 2: {parallel:.1f} s, speed-up {serial / parallel:.2f}x"
        )
        qualities = ["low"]
        if args.high:
            timed(tree, "render", "--quality", "high")
            qualities.append("high")
        for quality in qualities:
            rows = throughput(tree, quality)
            total_video = sum(row[1] for row in rows)
            total_wall = sum(row[2] for row in rows)
            print(
                f"\nthroughput at {quality}: {total_video:.0f} s of video in {total_wall:.0f} s of render time "
                f"= {total_video / total_wall:.2f} video-s per wall-s"
            )
            print(f"  {'scene':24s} {'video s':>8s} {'render s':>9s} {'video/wall':>10s}")
            for scene, duration, seconds, ratio in rows:
                print(f"  {scene:24s} {duration:8.1f} {seconds:9.1f} {ratio:10.2f}")


if __name__ == "__main__":
    main()
