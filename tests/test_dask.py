"""The build on many machines (issue #16), on this machine's loopback: a real `dask scheduler` and two
`dask worker` processes, each started in a checkout of the project of its own, as on other machines: a clone
at this commit, with the build's code copied over it (uncommitted changes too: what counts is the digest of
the code). A build sent to them must publish what a local build publishes, survive a worker killed
mid-render, and leave nothing of the lecture on the workers; a worker at another commit is refused in one line.
The workers render a sample scene at preview, to be compared frame by frame with the suite's own render; the
tests of Ctrl-C and of the local cluster's placement need no frames and run at the check quality. The tests
that do not use the two workers come first (they are started for the last two): the one that kills a worker,
then the Ctrl-C test, which needs only the other.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from seqanim.lecture import registry
from seqanim.workspace import REPOSITORY
from tests.conftest import CHECK, QUALITY, SAMPLE_SCENES
from tests.tree import (
    ROOT,
    Tree,
    framemd5,
    leftovers,
    lines,
    make_tree,
    poll,
    processes_in,
    stop_group,
    worker_checkout,
)

DASK = Path(sys.executable).with_name("dask")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Worker:
    checkout: Path  # where it was started: its code and its caches (.seqanim/voice, .seqanim/media)
    scratch: Path  # its Dask folder: the stages' scratch workspaces
    address: str
    process: subprocess.Popen[bytes]


@dataclass
class Cluster:
    address: str
    workers: list[Worker]


def _environment(checkout: Path) -> dict[str, str]:
    """A worker's environment: this venv's Python packages, and the checkout's own seqanim (an editable install
    of this tree must not supply it)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SEQANIM_WORKSPACE")}
    return {**env, "PYTHONPATH": str(checkout)}


def _start_scheduler(folder: Path) -> tuple[str, subprocess.Popen[bytes]]:
    folder.mkdir(parents=True)
    port = _free_port()
    scheduler = subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        cwd=folder,
        env=_environment(folder),
        stdout=subprocess.DEVNULL,
        stderr=open(folder / "scheduler.log", "ab"),
        start_new_session=True,
    )
    return f"tcp://127.0.0.1:{port}", scheduler


def _start_worker(scheduler: str, checkout: Path, scratch: Path) -> Worker:
    """`dask worker ADDRESS --nthreads 1`, started in `checkout` (README: Many machines)."""
    scratch.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    command = [str(DASK), "worker", scheduler, "--nthreads", "1", "--worker-port", str(port), "--no-dashboard"]
    process = subprocess.Popen(
        [*command, "--name", scratch.name, "--local-directory", str(scratch)],
        cwd=checkout,
        env=_environment(checkout),
        stdout=subprocess.DEVNULL,
        stderr=open(scratch.parent / f"{scratch.name}.log", "ab"),
        start_new_session=True,  # killed as a whole, as a machine that goes away
    )
    return Worker(checkout, scratch, f"tcp://127.0.0.1:{port}", process)


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout="60s") as client:
        client.wait_for_workers(count, timeout=120)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    base = tmp_path_factory.mktemp("dask")
    address, scheduler = _start_scheduler(base / "scheduler")
    workers = [_start_worker(address, worker_checkout(base / f"clone-{n}"), base / f"worker-{n}") for n in (1, 2)]
    _wait_for_workers(address, 2)
    yield Cluster(address, workers)
    for worker in workers:
        stop_group(worker.process)
    stop_group(scheduler)


def _unbuilt(tree: Tree, scenes: tuple[str, ...], experiments: tuple[str, ...], quality: str = QUALITY) -> None:
    """Remove these stages' outputs (the scenes' at `quality`) and the whole cache: the next build must run them,
    nothing restores."""
    shutil.rmtree(tree.root / ".seqanim" / "cache")
    for name in experiments:
        for path in (tree.root / "data").glob(f"{name}.*"):
            path.unlink()
    for scene in scenes:
        published = list((tree.root / "renders" / quality).glob(f"{scene}.*"))
        assert published, f"{scene} was not built at {quality}"
        for path in published:
            path.unlink()
        if quality != CHECK:  # a check publishes no slides
            (tree.root / "slides" / quality / f"{scene}.json").unlink()
            shutil.rmtree(tree.root / "slides" / quality / "files" / scene)


def _frames(path: Path) -> int:
    probe = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
         "stream=nb_read_frames", "-of", "csv=p=0", str(path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return int(probe.stdout.strip())


def _stage_processes(worker: Worker) -> list[str]:
    """Processes working in a task's scratch folder on the worker: the stage and what it started."""
    tasks = [path for path in worker.scratch.rglob("tasks") if path.parent.name == "seqanim"]
    return [process for folder in tasks for process in processes_in(folder)]


def _lecture_files(worker: Worker, scratch: bool = True) -> list[str]:
    """Anything of the lecture's outputs left on a worker: in its Dask folder (unless `scratch` is false), or in
    its checkout's output folders (which hold their READMEs only)."""
    suffixes = {".npz", ".pt", ".mp4", ".png", ".pdf", ".pptx", ".html", ".vtt", ".srt"}
    found = [
        str(path)
        for path in (worker.scratch.rglob("*") if scratch else [])
        if path.is_file() and (path.suffix in suffixes or {"data", "renders", "slides"} & set(path.parts))
    ]
    outputs = (worker.checkout / name for name in ("data", "renders", "slides"))
    return found + [str(path) for folder in outputs for path in folder.iterdir() if path.name != "README.md"]


def test_a_worker_at_another_commit_is_refused_in_one_line(lecture_built: Path, tmp_path: Path) -> None:
    """Its stage fails with one line naming both commits and the fix; nothing is published."""
    checkout = worker_checkout(tmp_path / "checkout", commit="a change the build does not have")
    address, scheduler = _start_scheduler(tmp_path / "scheduler")
    worker = _start_worker(address, checkout, tmp_path / "worker")
    try:
        _wait_for_workers(address, 1)
        tree = make_tree(tmp_path / "lecture")
        _unbuilt(tree, (), ("linear_rnn",))
        before = tree.outputs()
        result = tree.run("precompute", "linear_rnn", "--scheduler", address)
    finally:
        stop_group(worker.process)
        stop_group(scheduler)
    theirs, ours = (
        subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        for folder in (checkout, REPOSITORY)
    )
    said = [line for line in lines(result.stderr) if not line.startswith(f"dask scheduler {address}")]
    assert result.returncode == 2 and len(said) == 1, result.stderr
    line = said[0]
    assert line.startswith(f"error: experiment:linear_rnn: worker {worker.address} runs seqanim at commit "), line
    assert f"runs seqanim at commit {theirs.stdout.strip()}" in line, line
    assert f"the build is at {ours.stdout.strip()}" in line, line
    assert line.endswith("there and restart the worker"), line
    assert tree.outputs() == before


def test_a_no_op_build_starts_no_cluster_and_contacts_no_scheduler(lecture_built: Path, tmp_path: Path) -> None:
    """Up to date: no Dask at all, not even a connection to the scheduler lecture.toml names."""
    tree = make_tree(tmp_path / "lecture")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.1)
    contacted: list[str] = []

    def accept() -> None:
        while listener.fileno() != -1:
            try:
                contacted.append(str(listener.accept()[1]))
            except (TimeoutError, OSError):
                continue

    threading.Thread(target=accept, daemon=True).start()
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    # The copy has no declarations cache yet: its first build imports precompute/ and scenes/ to read what they
    # declare, as a fresh checkout's first build does. The second one is a lecturer's every-day no-op build.
    first = tree.run("build", "--set", f"build.scheduler={address}")
    assert first.returncode == 0 and "up to date" in first.stderr, first.stderr
    # `-X importtime` lists every module the build imports: an up-to-date build needs neither Dask nor the
    # heavy libraries a stage uses (its speed is bench/build.py's and bench/caches.py's to measure, not a test's).
    command = [sys.executable, "-X", "importtime", "-m", "seqanim.cli", "build", "--set", f"build.scheduler={address}"]
    result = subprocess.run(command, cwd=tree.root, env=tree.env(), capture_output=True, text=True, timeout=120)
    listener.close()
    assert result.returncode == 0 and "up to date" in result.stderr, result.stderr
    timings = [line for line in result.stderr.splitlines() if line.startswith("import time:")]
    imported = {line.rsplit("|", 1)[-1].strip() for line in timings}
    assert "seqanim.lecture.config" in imported, result.stderr[-500:]  # the import list is there
    heavy = sorted(name for name in imported if name.split(".")[0] in ("dask", "distributed", "torch", "manim"))
    assert heavy == [], heavy[:5]
    assert contacted == []
    assert not (tree.root / ".seqanim" / "dask").exists()


def test_independent_stages_run_on_both_local_workers(lecture_built: Path, tmp_path: Path) -> None:
    """Two renders with nothing between them run at once, one per worker of the local cluster (Dask places a
    task where its inputs are; both renders' inputs are built already, and must not draw them to one worker).
    At the tree's quality, the check: where the stages run needs no frames."""
    scenes = ("AddingProblem", "WeightedRetrieval")  # two short checks, of data from two experiments
    tree = make_tree(tmp_path / "lecture")
    result = tree.run("render", *scenes, "-j", "2", "--set", 'theme.muted="#8a8f90"')
    assert result.returncode == 0 and "ran 2, restored 0 from cache" in result.stderr, result.stderr
    timeline = json.loads((tree.root / ".seqanim" / "logs" / "timeline.json").read_text())
    first, second = (timeline[f"scene:{CHECK}:{scene}"] for scene in scenes)
    assert first["worker"] != second["worker"]
    assert max(first["start"], second["start"]) < min(first["end"], second["end"]), timeline
    assert leftovers(tree.root) == []


def test_a_build_sent_to_a_scheduler_publishes_what_a_local_build_does_though_a_worker_dies(
    cluster: Cluster, lecture_built: Path, tmp_path: Path
) -> None:
    """A sample scene and the data it reads, built on the cluster at preview, while the worker rendering the
    scene is killed mid-render: the task is retried on the other worker, no partial output is published and the
    killed worker's stage process dies with it. What is published is what the suite's local build published:
    the data byte for byte, the video frame for frame, the slides; the surviving worker, which ran its stages to
    their end, keeps nothing of the lecture. The killed worker stays down (the Ctrl-C test, the last one on the
    cluster, needs one)."""
    scene, data = "QueryKeyValue", "qkv_walkthrough"  # the shorter sample scene (no partial movies cached at preview)
    assert scene in SAMPLE_SCENES and data in registry.scene(scene).data  # rendered at preview by the suite
    tree = make_tree(tmp_path / "lecture")
    _unbuilt(tree, (scene,), (data,))
    log = tree.root / ".seqanim" / "logs" / f"scene-{QUALITY}-{scene}.log"
    build = tree.popen("render", scene, "--quality", QUALITY, "--scheduler", cluster.address)
    try:
        poll(lambda: log.exists() and "running on worker" in log.read_text(), 120, "the render to start")
        first = log.read_text().split()[-1]
        victim = next(worker for worker in cluster.workers if worker.address == first)
        poll(lambda: any(victim.scratch.rglob("*.svg")), 60, "the render to be under way on its worker")
        stop_group(victim.process)
        _, err = build.communicate(timeout=300)
    except BaseException:
        stop_group(build)
        raise
    assert build.returncode == 0, err
    assert "ran 2, restored 0 from cache" in err  # the data, and the render
    assert f"dask scheduler {cluster.address}" in err
    survivor = next(worker for worker in cluster.workers if worker is not victim)
    assert log.read_text().startswith(f"ran on worker {survivor.address}\n")
    poll(lambda: processes_in(victim.scratch) == [], 10, "the killed worker's stage process to die")
    # Data: byte for byte what the local build wrote (its sidecar but for the measured run time).
    assert (tree.root / "data" / f"{data}.npz").read_bytes() == (ROOT / "data" / f"{data}.npz").read_bytes()
    remote, local = (json.loads((root / "data" / f"{data}.json").read_text()) for root in (tree.root, ROOT))
    remote["metrics"].pop("seconds"), local["metrics"].pop("seconds")
    assert remote == local
    video, reference = tree.root / "renders" / QUALITY / f"{scene}.mp4", ROOT / "renders" / QUALITY / f"{scene}.mp4"
    assert _frames(video) == _frames(reference)
    assert framemd5(video) == framemd5(reference)
    slides, built = (root / "slides" / QUALITY / f"{scene}.json" for root in (tree.root, ROOT))
    assert slides.read_bytes() == built.read_bytes()
    names = [
        sorted(p.name for p in (root / "slides" / QUALITY / "files" / scene).iterdir()) for root in (tree.root, ROOT)
    ]
    assert names[0] == names[1]
    assert '"slides"' in log.read_text()
    assert _lecture_files(survivor) == []
    assert _lecture_files(victim, scratch=False) == []  # its Dask folder holds what its killed stage left
    assert leftovers(tree.root) == []
    # Up to date now, and the next build says so without a cluster.
    again = tree.run("render", scene, "--quality", QUALITY, "--scheduler", cluster.address)
    assert again.returncode == 0 and "up to date" in again.stderr, again.stderr


def test_ctrl_c_cancels_the_remote_stages(cluster: Cluster, lecture_built: Path, tmp_path: Path) -> None:
    """Ctrl-C on a build whose scene runs on a remote worker (its check: the tree's quality) stops the stage
    there; nothing is published. It runs on the worker the test above left."""
    scene = "ScaledScores"
    tree = make_tree(tmp_path / "lecture")
    _unbuilt(tree, (scene,), (), CHECK)
    log = tree.root / ".seqanim" / "logs" / f"scene-{CHECK}-{scene}.log"
    build = tree.popen("render", scene, "--scheduler", cluster.address)
    poll(lambda: log.exists() and "running on worker" in log.read_text(), 120, "the render to start")
    worker = next(worker for worker in cluster.workers if worker.address == log.read_text().split()[-1])
    poll(lambda: _stage_processes(worker) != [], 60, "the stage's process on its worker")
    os.killpg(build.pid, signal.SIGINT)
    out, err = build.communicate(timeout=60)
    assert build.returncode == 130, err
    assert err.strip().splitlines()[-1] == "interrupted; finished outputs are kept, the next build resumes"
    poll(lambda: _stage_processes(worker) == [], 15, "the remote stage to be stopped")
    assert list((tree.root / "renders" / CHECK).glob(f"{scene}.*")) == []
