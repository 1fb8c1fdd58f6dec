"""Benchmark: render wall time of chosen scenes at low quality, a base revision against this tree, side by side.

Both sides are exported (`git archive`) into a temporary folder with this tree's data/ and LaTeX cache
(media/), so neither touches the real tree and both start equally warm. The sides alternate scene by
scene for --rounds rounds (which goes first alternates too: shared machines are noisy); every render's
seconds are printed, then per scene the best of each side and the ratio after/before.

    .venv/bin/python bench/render_speed.py [--base REV] [--rounds 2] [--scenes A,B,...]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOWEST = ["ReverseAlignment", "SortAlignment", "HiddenStateDynamics"]


def export(revision: str, target: Path) -> Path:
    """A copy of `revision` at `target`, with this tree's data/, media/ and .venv."""
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    for folder in ("data", "media"):
        if (ROOT / folder).exists():
            shutil.copytree(ROOT / folder, target / folder, dirs_exist_ok=True)
    (target / ".venv").symlink_to((ROOT / ".venv").resolve())
    return target


def render(tree: Path, scene: str) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        [str(tree / ".venv" / "bin" / "python"), "-m", "seqanim.stages.render", scene, "--quality", "low", "--quiet"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/local/bin:/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"{scene} failed in {tree}:\n{result.stderr[-2000:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD~1", help="revision to compare against (default HEAD~1)")
    parser.add_argument("--head", default="HEAD", help="revision measured (default HEAD)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--scenes", default=",".join(SLOWEST))
    args = parser.parse_args()
    scenes = [s for s in args.scenes.split(",") if s]
    with tempfile.TemporaryDirectory(prefix="seqanim-render-bench-") as work:
        sides = {"before": export(args.base, Path(work) / "before"), "after": export(args.head, Path(work) / "after")}
        seconds: dict[tuple[str, str], list[float]] = {}
        for round_index in range(args.rounds):
            for scene_index, scene in enumerate(scenes):
                order = ["before", "after"] if (round_index + scene_index) % 2 == 0 else ["after", "before"]
                for side in order:
                    took = render(sides[side], scene)
                    seconds.setdefault((scene, side), []).append(took)
                    print(f"round {round_index + 1}  {scene:22s} {side:6s} {took:6.1f} s", flush=True)
        print(f"\nbest of {args.rounds} (wall seconds, `python -m seqanim.stages.render SCENE --quality low`):")
        print(f"{'scene':22s} {args.base[:10]:>10s} {args.head[:10]:>10s}  after/before")
        for scene in scenes:
            before, after = min(seconds[(scene, "before")]), min(seconds[(scene, "after")])
            print(f"{scene:22s} {before:10.1f} {after:10.1f}  {after / before:11.2f}")


if __name__ == "__main__":
    sys.exit(main())
