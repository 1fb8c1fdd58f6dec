"""Benchmark: what "what if?" variants cost and how fast the HTML deck switches them.

In a copy of the built lecture (tests/tree.py: the real tree is untouched), side by side in one run:

  sweep    `seqanim build` with `[variants] adding.T = [30, 60, 80]`: three variants built side by side, each
           the adding and lstm_inside experiments and the AddingProblem, TrainingRace and InsideTheLSTM renders;
  singles  the same stages for three other values (31, 61, 81, so that nothing comes from the cache), one
           `seqanim render ... --set adding.T=V` after the other.

Printed: both times and their ratio (the goal: the sweep at most 1.2x the singles), then the time Chromium
takes to switch variant on an AddingProblem slide of `rnn.variants.html` (`]`, until the variant's video is
loaded; median of 10), and what TrainingRace's notes say at each T (its words come from its data).

    .venv/bin/python bench/variants.py [--keep]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tree import make_tree  # noqa: E402

SWEEP, SINGLES = [30, 60, 80], [31, 61, 81]
SCENES = ["AddingProblem", "TrainingRace", "InsideTheLSTM"]
CHROMIUM = "/usr/bin/chromium"


def with_sweep(lecture: str) -> str:
    """lecture.toml with the sweep under its [variants] table."""
    return re.sub(r"^\[variants\]\n", f"[variants]\nadding.T = {SWEEP}\n", lecture, count=1, flags=re.M)


def timed(tree, *args: str) -> float:
    started = time.perf_counter()
    result = tree.run(*args, timeout=3600)
    if result.returncode != 0:
        sys.exit(f"seqanim {' '.join(args)} failed: {result.stderr[-2000:]}")
    return time.perf_counter() - started


def switch_seconds(page_path: Path) -> list[float]:
    from playwright.sync_api import sync_playwright

    data = json.loads(re.search(r"const data = (\{.*?\});\n", page_path.read_text()).group(1))
    slide = min(int(index) for index, entry in data["slides"].items() if entry["scene"] == "AddingProblem")
    seconds = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--autoplay-policy=no-user-gesture-required"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(page_path.as_uri() + f"#/{slide}")
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        page.wait_for_timeout(1000)
        for _ in range(10):
            before = page.evaluate("Reveal.getSlideBackground(Reveal.getIndices().h).querySelector('video').currentSrc")
            started = time.perf_counter()
            page.keyboard.press("]")
            page.wait_for_function(
                "(before) => { const v = Reveal.getSlideBackground(Reveal.getIndices().h).querySelector('video');"
                " return v.currentSrc !== before && v.readyState >= 2; }",
                arg=before,
            )
            seconds.append(time.perf_counter() - started)
        browser.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the copy (its path is printed)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="seqanim-bench-variants-"))
    try:
        tree = make_tree(folder / "lecture", quality="low")
        toml, lecture = tree.root / "lecture.toml", (ROOT / "lecture.toml").read_text()
        toml.write_text(with_sweep(lecture))
        sweep = timed(tree, "build", "-j", "2")
        toml.write_text(lecture)  # back to the lecture without variants
        singles = [timed(tree, "render", *SCENES, "-j", "2", "--set", f"adding.T={value}") for value in SINGLES]
        print(f"sweep of adding.T = {SWEEP}: {sweep:.1f} s; three single builds {SINGLES}: "
              f"{' + '.join(f'{s:.1f}' for s in singles)} = {sum(singles):.1f} s; "
              f"ratio {sweep / sum(singles):.2f} (goal <= 1.2)")  # fmt: skip
        toml.write_text(with_sweep(lecture))  # the sweep again: restored from the cache, for the deck
        timed(tree, "build")
        seconds = switch_seconds(tree.root / "slides" / "low" / "rnn.variants.html")
        print(f"switching variant in Chromium: median {statistics.median(seconds) * 1000:.0f} ms, "
              f"slowest {max(seconds) * 1000:.0f} ms of {len(seconds)} (goal < 500 ms)")  # fmt: skip
        for value in SWEEP:
            report = tree.root / ".seqanim" / "variants" / f"adding.T={value}" / "renders" / "low"
            notes = json.loads((report / "TrainingRace.report.json").read_text())["notes"]
            print(f"TrainingRace at T = {value}: {notes[-1][:160]}")
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
