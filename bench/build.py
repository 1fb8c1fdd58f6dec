"""Benchmark the build, side by side in one run, on an isolated copy of the tree (the real one is untouched).

Prints:
  1. a full cold build (no data, no cache) and the no-op build after it;
  2. the rebuild after `--set adding.T=41`, as a fraction of the full build;
  3. rendering the same scenes with -j 2 against -j 1;
  4. render throughput per scene (seconds of video per wall second) at low and, with --high, high quality,
     slowest first.

With `--against REV`, instead: the whole lecture of revision REV (its engine, scenes and lecture.toml) against
this tree's, each a cold build with -j 2 at low (or `--quality`), alternating which goes first, --rounds times; printed
with the stage-seconds of each kind (experiments, scenes, narrations, decks).

With `--executors REV`, instead: the engine of revision REV (`915073f`: Dask as a process pool under a
scheduler of the engine's own; `03b5f4e`: before Dask) against this tree's, on the same cold low-quality build
with -j 2, alternating which goes first, --rounds times. With `--distributed`, instead: four scenes at high
quality on the local cluster (-j 2) against the same four sent to a `dask scheduler` with two `dask worker`
processes on this machine, started in a clone of this tree (as a remote worker would be); with
`--distributed --everything`, the whole lecture, cold at low quality, both ways, and every output compared:
data and text outputs byte for byte, videos frame for frame (ffmpeg framemd5), the same set of files.

    .venv/bin/python bench/build.py [--high] [--scenes A,B,...]
    .venv/bin/python bench/build.py --against main [--rounds 1] [--quality check]
    .venv/bin/python bench/build.py --executors 915073f [--rounds 1]
    .venv/bin/python bench/build.py --distributed [--scenes A,B,C,D] [--everything]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tree import Tree, framemd5, make_tree, worker_checkout  # noqa: E402

PAIR_SCENES = ["HiddenStateDynamics", "EchoOfAPulse", "ScaledScores", "SoftmaxNormalization"]


def timed(tree: Tree, *args: str, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    result = tree.run(*args, timeout=7200, env=env)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"seqanim {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return seconds


def cold_tree(workdir: Path) -> Tree:
    tree = make_tree(workdir / "tree", quality="low")
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


def executors(base: str, rounds: int) -> None:
    """A cold low-quality build, -j 2: revision `base`'s engine against this tree's, side by side."""
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        engine = work / "engine"
        engine.mkdir()
        archive = subprocess.run(["git", "archive", base, "seqanim"], cwd=ROOT, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(engine)], input=archive.stdout, check=True)
        seconds: dict[str, list[float]] = {base: [], "this tree": []}
        for index in range(rounds):
            order = [base, "this tree"] if index % 2 == 0 else ["this tree", base]
            for side in order:
                tree = cold_tree(work / f"{index}-{side.replace(' ', '-')}")
                env = None
                if side == base:  # the old engine, and the lecture.toml it knows (no [build] keys of Dask)
                    env = {"PYTHONPATH": os.pathsep.join((str(tree.root), str(engine)))}
                    config = tree.root / "lecture.toml"
                    keys = ("scheduler", "cluster", "batch_")
                    config.write_text(
                        "".join(line for line in config.read_text().splitlines(True) if not line.startswith(keys))
                    )
                took = timed(tree, "build", "-j", "2", env=env)
                seconds[side].append(took)
                # The stages' own time, summed: the rest of 2 x wall is the executor's (and idle cores).
                state = json.loads((tree.root / ".seqanim" / "state.json").read_text())
                busy = sum(entry.get("seconds") or 0 for entry in state.values())
                print(
                    f"round {index + 1}  {side:10s} cold build -j 2: {took:7.1f} s  (stages {busy:6.1f} s, "
                    f"{busy / (2 * took):.0%} of 2 cores)",
                    flush=True,
                )
                shutil.rmtree(tree.root)
        old, new = min(seconds[base]), min(seconds["this tree"])
        print(f"\nbest of {rounds}: {base} {old:.1f} s, this tree {new:.1f} s, ratio {new / old:.3f}")


def against(base: str, rounds: int, quality: str = "low") -> None:
    """A cold build at `quality`, -j 2: the lecture at revision `base` (engine, scenes, parameters) against this
    tree's, side by side; the wall time and the seconds each kind of stage took."""
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        seconds: dict[str, list[float]] = {base: [], "this tree": []}
        for index in range(rounds):
            order = [base, "this tree"] if index % 2 == 0 else ["this tree", base]
            for side in order:
                tree = cold_tree(work / f"{index}-{side.replace(' ', '-')}")
                for cache in ("voice", "media"):  # as on a fresh machine: no clip spoken, no formula compiled
                    shutil.rmtree(tree.root / ".seqanim" / cache, ignore_errors=True)
                env = None
                if side == base:
                    archive = subprocess.run(["git", "archive", base], cwd=ROOT, check=True, capture_output=True)
                    for name in ("seqanim", "precompute", "scenes", "lecture.toml"):
                        target = tree.root / name
                        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
                    names = ["seqanim", "precompute", "scenes", "lecture.toml"]
                    subprocess.run(["tar", "-x", "-C", str(tree.root), *names], input=archive.stdout, check=True)
                    env = {"PYTHONPATH": str(tree.root)}
                took = timed(tree, "build", "-j", "2", "--quality", quality, env=env)
                seconds[side].append(took)
                state = json.loads((tree.root / ".seqanim" / "state.json").read_text())
                kinds: dict[str, float] = {}
                for stage, entry in state.items():
                    kinds[stage.split(":")[0]] = kinds.get(stage.split(":")[0], 0.0) + (entry.get("seconds") or 0)
                video = sum(
                    json.loads(path.read_text())["duration"]
                    for path in (tree.root / "renders" / quality).glob("*.report.json")
                )
                busy = sum(kinds.values())
                print(
                    f"round {index + 1}  {side:10s} cold build at {quality}, -j 2: {took:7.1f} s wall, "
                    f"stages {busy:6.1f} s ("
                    + ", ".join(f"{kind} {value:.0f}" for kind, value in sorted(kinds.items()))
                    + f"); rendered {video / 60:.1f} min of slide video",
                    flush=True,
                )
                shutil.rmtree(tree.root)
        old, new = min(seconds[base]), min(seconds["this tree"])
        print(f"\nbest of {rounds}: {base} {old:.1f} s, this tree {new:.1f} s, ratio {new / old:.3f}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def dask_on_this_machine(work: Path, workers: int = 2) -> Iterator[str]:
    """A `dask scheduler` and `workers` single-threaded `dask worker` processes, started in a clone of this tree
    (README: Many machines), each with a Dask folder of its own."""
    dask = str(Path(sys.executable).with_name("dask"))
    address = f"tcp://127.0.0.1:{_free_port()}"
    clone = worker_checkout(work / "clone")
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(clone)}
    processes = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard"],
            cwd=work, env={**env, "DASK_DISTRIBUTED__SCHEDULER__UNKNOWN_TASK_DURATION": "1h"},  # as the README says
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
    ]  # fmt: skip
    for index in range(workers):
        folder = work / f"worker-{index + 1}"
        folder.mkdir()
        processes.append(
            subprocess.Popen(
                [dask, "worker", address, "--nthreads", "1", "--no-dashboard",
                 "--local-directory", str(folder)],
                cwd=clone, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            )
        )  # fmt: skip
    try:
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def distributed(scenes: list[str]) -> None:
    """The same scenes at high quality: the local cluster, then a scheduler with two workers."""
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        tree = make_tree(work / "tree", quality="low")
        # A theme value unseen before forces real renders on both sides; each side its own value.
        local = timed(tree, "render", *scenes, "-q", "high", "-j", "2", "--set", 'theme.muted="#8a8f9b"')
        print(f"local cluster, -j 2:                  {local:7.1f} s", flush=True)
        for scene in scenes:  # what a scene costs at high quality against low: for the many-machine estimate
            high, low = (
                json.loads((tree.root / "renders" / quality / f"{scene}.report.json").read_text())["render_seconds"]
                for quality in ("high", "low")
            )
            print(f"  {scene:24s} render {high:6.1f} s at high, {low:5.1f} s at low: x{high / low:.1f}")
        with dask_on_this_machine(work) as address:
            remote = timed(
                tree, "render", *scenes, "-q", "high", "--scheduler", address, "--set", 'theme.muted="#8a8f9c"'
            )
        print(f"scheduler + 2 workers on this machine: {remote:7.1f} s")
        print(f"{len(scenes)} scenes at high quality: scheduler / local = {remote / local:.3f}")


def outputs(tree: Tree) -> dict[str, str]:
    """Every built file under data/, renders/, slides/, by its path: videos by their frames, PPTX by their entries,
    others by bytes.
    A sidecar's measured run time and a report's render time differ run to run: left out."""
    found = {}
    for folder in ("data", "renders", "slides"):
        for path in sorted((tree.root / folder).rglob("*")):
            if not path.is_file() or path.name == "README.md":
                continue
            label = path.relative_to(tree.root).as_posix()
            if path.suffix == ".mp4":
                found[label] = framemd5(path)
            elif path.suffix == ".pptx":  # a zip whose entries carry their write time: compare what they hold
                with zipfile.ZipFile(path) as pptx:
                    found[label] = hashlib.sha256(
                        b"".join(pptx.read(name) for name in sorted(pptx.namelist()))
                    ).hexdigest()
            elif path.name.endswith((".report.json", ".json")) and folder != "slides":
                value = json.loads(path.read_text())
                if isinstance(value, dict):
                    value.pop("render_seconds", None)
                    value.get("metrics", {}).pop("seconds", None)
                found[label] = json.dumps(value, sort_keys=True)
            else:
                found[label] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def everything() -> None:
    """The whole lecture, cold at low quality: on the local cluster (-j 2), then sent to a scheduler with two
    workers on this machine; every output compared."""
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        local, remote = cold_tree(work / "local"), cold_tree(work / "remote")
        local_seconds = timed(local, "build", "-j", "2")
        print(f"whole lecture, local cluster -j 2:      {local_seconds:7.1f} s", flush=True)
        with dask_on_this_machine(work) as address:
            remote_seconds = timed(remote, "build", "--scheduler", address)
        print(f"whole lecture, scheduler + 2 workers:   {remote_seconds:7.1f} s ({remote_seconds / local_seconds:.2f})")
        again = remote.run("build", "--dry-run")
        print(f"dry run after it: {again.stdout.strip().splitlines()[-1] if again.stdout.strip() else again.stderr}")
        mine, theirs = outputs(local), outputs(remote)
        differ = sorted(label for label in mine.keys() & theirs.keys() if mine[label] != theirs[label])
        only = sorted(mine.keys() ^ theirs.keys())
        print(
            f"outputs: {len(mine)} local, {len(theirs)} remote; differing: {len(differ)}; on one side only: {len(only)}"
        )
        for label in [*differ, *only][:20]:
            print(f"  {label}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--high", action="store_true", help="also render every scene at high quality (slow)")
    parser.add_argument("--scenes", default=",".join(PAIR_SCENES), help="scenes for the -j and --distributed runs")
    parser.add_argument("--against", metavar="REV", help="the lecture at REV against this tree's (cold, -j 2)")
    parser.add_argument("--executors", metavar="REV", help="compare REV's executor with this tree's (cold, -j 2)")
    parser.add_argument("--rounds", type=int, default=1, help="--against, --executors: builds per side")
    parser.add_argument("--quality", default="low", help="--against: the quality both builds are at")
    parser.add_argument("--distributed", action="store_true", help="high quality: local cluster vs a scheduler")
    parser.add_argument("--everything", action="store_true", help="--distributed: the whole lecture, outputs compared")
    args = parser.parse_args()
    pair = args.scenes.split(",")
    if args.against:
        return against(args.against, args.rounds, args.quality)
    if args.executors:
        return executors(args.executors, args.rounds)
    if args.distributed:
        return everything() if args.everything else distributed(pair)
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
