"""A seeded fault campaign on an isolated copy of the built lecture (the real tree is untouched).

Three kinds of trial, drawn at random (seeded):

  kill    a one-parameter rebuild (`build --set linear_rnn.steps=K`: one experiment, two scenes, the rnn
          and full decks) is sent SIGKILL or SIGINT (to its whole process group, as a terminal's Ctrl-C or an
          OOM kill of the session would) at a moment drawn from the stage timeline of .seqanim/state.json:
          a stage of the rebuild at random, then a fraction of the seconds it took last time after it starts.
          The next build must finish; data/ must be byte-identical to an uninterrupted build with the same K
          (a reference copy, built once per K; sidecars but for metrics.seconds, the measured run time), every
          video must have the reference's frame count, every slide JSON the reference's bytes, and no
          temporary file or staging folder may be left.
  damage  an output (scene video, slide JSON, deck PDF/PPTX/HTML, data npz/pt, state.json) is truncated, zeroed
          or replaced by another output; the next build must name it in one line (state.json: warn and
          recover), the command it names must bring the built bytes back, and a last build is up to date.
  lock    two builds of the same change at once: exactly one runs, the other exits 2 with one line.

    .venv/bin/python bench/faults.py [--trials N] [--seed S]

Ends with the line `faults: K/N trials survived`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tree import Tree, make_tree  # noqa: E402

STEPS = (41, 47)  # the values of linear_rnn.steps the kill trials rebuild with (one reference build each)
TEMPORARY = re.compile(r"^\..*(\.tmp|\.old-|\.restore-|\.stage-)")
DAMAGED = (
    "renders/low/EchoOfAPulse.mp4",
    "slides/low/RopeRotation.json",
    "slides/low/rnn.pdf",
    "slides/low/transformers.pptx",
    "slides/low/why-attention.html",
    "data/positional.npz",
    "data/adding_lstm.pt",
    ".seqanim/state.json",
)
OTHER = {".mp4": "renders/low/SortAlignment.mp4", ".json": "slides/low/CausalMask.json", ".pdf": "slides/low/full.pdf"}
FIX = re.compile(r"run `seqanim (precompute|render|slides) ([\w-]+)` to rebuild it")


def stage_log(tree: Tree, stage_id: str) -> Path:
    return tree.root / ".seqanim" / "logs" / f"{stage_id.replace(':', '-')}.log"


def hashes(tree: Tree) -> dict[str, str]:
    return tree.outputs()


def frames(path: Path) -> int:
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets"]
        + ["-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", str(path)],
        capture_output=True,
        text=True,
    )
    return int(probe.stdout.strip() or -1)


def sidecar(path: Path) -> dict:
    """A data/ sidecar without what no two runs share: metrics.seconds, the experiment's measured run time."""
    value = json.loads(path.read_text())
    value.get("metrics", {}).pop("seconds", None)
    return value


def leftovers(tree: Tree) -> list[str]:
    """Temporary files and staging folders a finished build must not leave."""
    found = []
    for folder in ("data", "renders", "slides", ".seqanim"):
        for path in (tree.root / folder).rglob("*"):
            if TEMPORARY.match(path.name) or (path.parent.name == "cache" and path.name.startswith(".")):
                found.append(str(path.relative_to(tree.root)))
    staging = tree.root / ".seqanim" / "stage"
    if staging.exists():
        found += [str(p.relative_to(tree.root)) for p in staging.iterdir()]
    return found


class Campaign:
    def __init__(self, workdir: Path, rng: random.Random) -> None:
        self.rng = rng
        print("copying the built tree twice (victim, reference) ...", flush=True)
        self.victim = make_tree(workdir / "victim")
        self.reference = make_tree(workdir / "reference")
        self.default_keys = self.keys(self.victim)
        self.expected: dict[int, dict[str, str]] = {}
        self.frames: dict[int, dict[str, int]] = {}
        self.sidecars: dict[int, dict[str, dict]] = {}
        self.affected: dict[int, list[str]] = {}

    @staticmethod
    def keys(tree: Tree) -> dict[str, str]:
        state = json.loads((tree.root / ".seqanim" / "state.json").read_text())
        return {stage_id: entry["key"] for stage_id, entry in state.items()}

    def reference_for(self, steps: int) -> None:
        """Build the reference copy once with `steps`, uninterrupted, and remember what it produced."""
        if steps in self.expected:
            return
        tree = self.reference
        dry = tree.run("build", "--dry-run", "--set", f"linear_rnn.steps={steps}")
        self.affected[steps] = [line.split()[2] for line in dry.stdout.splitlines() if line.startswith("would run")]
        started = time.perf_counter()
        result = tree.run("build", "--set", f"linear_rnn.steps={steps}", timeout=3600)
        if result.returncode != 0:
            raise SystemExit(f"reference build with steps={steps} failed:\n{result.stderr}")
        print(f"reference build, linear_rnn.steps={steps}: {time.perf_counter() - started:.0f} s", flush=True)
        self.expected[steps] = hashes(tree)
        self.sidecars[steps] = {path.name: sidecar(path) for path in (tree.root / "data").glob("*.json")}
        self.frames[steps] = {name: frames(tree.root / name) for name in self.expected[steps] if name.endswith(".mp4")}
        tree.run("build", timeout=3600)  # back to lecture.toml (from the cache)

    def reset_victim(self, steps: int) -> None:
        """Back to lecture.toml, with no cache entry of the `steps` rebuild, so that it really runs."""
        result = self.victim.run("build", timeout=3600)
        if result.returncode != 0:
            raise SystemExit(f"resetting the victim failed:\n{result.stderr}")
        cache = self.victim.root / ".seqanim" / "cache"
        for entry in cache.iterdir():
            try:
                stage = json.loads((entry / "COMPLETE").read_text())["stage"]
            except (OSError, ValueError, KeyError):
                continue
            if stage in self.affected[steps] and self.default_keys.get(stage) != entry.name:
                shutil.rmtree(entry)

    # --- the trials ------------------------------------------------------------------------------------

    def kill(self, number: int) -> tuple[str, bool, str]:
        steps = self.rng.choice(STEPS)
        sig = self.rng.choice([signal.SIGKILL, signal.SIGINT])
        self.reference_for(steps)
        self.reset_victim(steps)
        tree = self.victim
        seconds = json.loads((tree.root / ".seqanim" / "state.json").read_text())
        target = self.rng.choice(self.affected[steps])
        delay = self.rng.uniform(0, seconds.get(target, {}).get("seconds") or 1.0)
        log = stage_log(tree, target)
        log.unlink(missing_ok=True)
        process = tree.popen("build", "--set", f"linear_rnn.steps={steps}")
        deadline = time.monotonic() + 600
        while not log.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(delay)
        running = process.poll() is None
        if running:
            os.killpg(process.pid, sig)
        process.communicate(timeout=120)
        what = f"{sig.name} {target} +{delay:.1f}s steps={steps}" + ("" if running else " (build had ended)")

        problems = []
        resumed = tree.run("build", "--set", f"linear_rnn.steps={steps}", timeout=3600)
        if resumed.returncode != 0:
            problems.append("resume failed: " + resumed.stderr.strip().splitlines()[-1])
        got, expected = hashes(tree), self.expected[steps]
        for name, digest in expected.items():
            if got.get(name) == digest:
                continue
            if name not in got:
                problems.append(f"{name} missing")
            elif name.startswith("data/") and not (
                name.endswith(".json") and sidecar(tree.root / name) == self.sidecars[steps][name[5:]]
            ):
                problems.append(f"{name} differs from the reference")
            elif name.startswith("slides/low/") and name.endswith(".json") and "/files/" not in name:
                problems.append(f"{name} differs from the reference")
            elif name.endswith(".mp4") and frames(tree.root / name) != self.frames[steps][name]:
                problems.append(f"{name}: frame count differs")
        problems += [f"left behind: {name}" for name in leftovers(tree)]
        check = tree.run("build", "--dry-run", "--set", f"linear_rnn.steps={steps}")
        if not check.stdout.strip().startswith("0 of"):
            problems.append("not up to date after the resumed build")
        return what, not problems, "; ".join(problems[:3])

    def damage(self, number: int) -> tuple[str, bool, str]:
        tree = self.victim
        tree.run("build", timeout=3600)
        name = self.rng.choice(DAMAGED)
        how = self.rng.choice(["truncated", "zeroed", "replaced"])
        path = tree.root / name
        before = hashes(tree)
        payload = path.read_bytes()
        other = tree.root / OTHER.get(path.suffix, "data/rope.npz")
        damaged = {
            "truncated": payload[: len(payload) // 2],
            "zeroed": bytes(len(payload)),
            "replaced": other.read_bytes(),
        }[how]
        temporary = path.with_name(path.name + ".damage")  # by rename: renders/ are hard links of the real tree
        temporary.write_bytes(damaged)
        os.replace(temporary, path)
        what = f"{how} {name}"
        result = tree.run("build", timeout=3600)
        errors = [line for line in result.stderr.splitlines() if line.strip()]
        problems = []
        if name == ".seqanim/state.json":
            if result.returncode != 0 or not errors[0].startswith("warning: .seqanim/state.json is corrupt"):
                problems.append(f"not recovered: {result.stderr.strip()[:200]}")
            (path.parent / "state.json.corrupt").unlink(missing_ok=True)
        else:
            if result.returncode != 2 or len(errors) != 1 or f"{name} changed since it was built" not in errors[0]:
                problems.append(f"not named in one line: {result.stderr.strip()[:200]}")
            match = FIX.search(errors[0]) if errors else None
            if match is None:
                problems.append("no fix named")
            else:
                fixed = tree.run(match[1], match[2], timeout=3600)
                if fixed.returncode != 0:
                    problems.append(f"`seqanim {match[1]} {match[2]}` failed")
        if hashes(tree) != before:
            problems.append("outputs differ from the built ones afterwards")
        if "up to date" not in tree.run("build").stderr:
            problems.append("not up to date afterwards")
        return what, not problems, "; ".join(problems[:3])

    def lock(self, number: int) -> tuple[str, bool, str]:
        steps = self.rng.choice(STEPS)
        self.reference_for(steps)
        self.reset_victim(steps)
        tree = self.victim
        args = ("build", "--set", f"linear_rnn.steps={steps}")
        both = [tree.popen(*args), tree.popen(*args)]
        results = [(p.communicate(timeout=3600)[1], p.returncode) for p in both]
        codes = sorted(code for _, code in results)
        problems = []
        if codes != [0, 2]:
            problems.append(f"exit codes {codes}")
        losers = [err for err, code in results if code == 2]
        if losers and [line for line in losers[0].splitlines() if line.strip()] != [
            "error: another seqanim build is running in this folder; wait for it or stop it"
        ]:
            problems.append(f"loser said: {losers[0].strip()[:200]}")
        got = hashes(tree)
        for name, digest in self.expected[steps].items():
            if name.startswith("data/") and got.get(name) != digest:
                if not (name.endswith(".json") and sidecar(tree.root / name) == self.sidecars[steps][name[5:]]):
                    problems.append(f"{name} differs from the reference")
        return f"two builds, steps={steps}", not problems, "; ".join(problems)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--keep", action="store_true", help="Keep the copies (their path is printed).")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="seqanim-faults-"))
    started = time.perf_counter()
    try:
        campaign = Campaign(workdir, rng)
        # Kills are the point: half of the trials (rounded up), one lock trial from 3 trials on, damage the rest.
        kills = (args.trials + 1) // 2
        locks = 1 if args.trials >= 3 else 0
        kinds = ["kill"] * kills + ["lock"] * locks + ["damage"] * (args.trials - kills - locks)
        rng.shuffle(kinds)
        rows = []
        for number, kind in enumerate(kinds, start=1):
            trial_started = time.perf_counter()
            what, survived, why = getattr(campaign, kind)(number)
            seconds = time.perf_counter() - trial_started
            rows.append((number, kind, what, survived, why, seconds))
            mark = "survived" if survived else f"FAILED: {why}"
            print(f"{number:>3}  {kind:<6}  {what:<62}  {seconds:>5.0f} s  {mark}", flush=True)
    finally:
        if args.keep:
            print(f"copies kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print()
    print(f"{'kind':<8}{'trials':>8}{'survived':>10}")
    for kind in ("kill", "damage", "lock"):
        of_kind = [row for row in rows if row[1] == kind]
        print(f"{kind:<8}{len(of_kind):>8}{sum(row[3] for row in of_kind):>10}")
    print(f"campaign: {time.perf_counter() - started:.0f} s, seed {args.seed}")
    print(f"faults: {sum(row[3] for row in rows)}/{len(rows)} trials survived")


if __name__ == "__main__":
    main()
