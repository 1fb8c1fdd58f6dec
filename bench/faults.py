"""A seeded fault campaign on isolated copies of the lecture (the real tree is untouched).

Every trial builds the `sample` deck: a `[decks.sample]` table the copies add to lecture.toml, with one scene
of two lecture parts (EchoOfAPulse, QueryKeyValue). Its targets are two experiments (linear_rnn, 0.5 s;
qkv_walkthrough, 0.2 s), two scene renders (10-20 s each) and one deck export (title and divider cards, HTML,
PDF, PPTX, joined video: about 6 s): every kind of stage, in about 30 s for a cold build, where the whole
lecture takes 5 minutes. The kinds of trial:

  kill     SIGKILL or SIGINT to the build's process group (a terminal's Ctrl-C, an OOM kill of the session)
           at a moment drawn from the stage timeline: a stage of the build at random, then a fraction of the
           seconds it took in the reference build after its log appears. Two builds: `cold` (after
           `seqanim clean`: `seqanim slides sample` from nothing, the cache empty) and `rebuild` (one
           parameter, `--set linear_rnn.steps=K`: an experiment, a scene, the deck). Which stages were
           running at the kill is read back (their logs exist, their new key is not recorded) and tallied.
           Then no process of the build may be left, the next build must finish, and its outputs must
           equal an uninterrupted build's: data/ byte for byte (sidecars but for metrics.seconds, the
           measured run time), videos frame for frame (ffmpeg framemd5) where their bytes differ, slide
           JSON byte for byte, the same set of files, and no temporary file or staging folder left.
           A SIGINT must end with exit 130 and the one line `interrupted; ...`.
  cli      SIGKILL to the build process alone, while a stage runs: its stages must die too (no process
           left), nothing may be written after the kill, and the next build must finish as above.
  damage   one output of each kind (data npz/sidecar/pt, scene video, thumbnail, report, narrated cut, slide
           JSON, a slide video file, the deck's PDF/PPTX/HTML, an HTML asset, the deck video and thumbnail, a card):
           truncated, zeroed or replaced by another output. The next build must name that file in one
           line and change nothing; the command it names must bring back the built bytes. Plus a damaged
           cache entry (named in one warning line, dropped, rebuilt: never restored) and state.json.
  lock     two builds of the same change at once: exactly one runs, the other exits 2 with one line.
  disk     the one-parameter rebuild on a tmpfs with a few KB to a few MB free: the build must stop with
           exit 2 and one line saying which disk is full; every file in data/, renders/, slides/ must be
           whole (npz/pt loads, JSON parses, videos decode, PNG/PDF/PPTX open), no temporary file left; with
           space again, the build finishes and equals the reference. Needs root (mount); skipped otherwise.

    .venv/bin/python bench/faults.py [--kills N] [--seed S] [--keep]

`--kills N`: N trials per signal and build (4N kills); the other kinds are fixed in number (damage: each
target once; cli 3; lock 2; disk 4). A kill aimed past the build's end (the build ran faster than the
reference timeline) sends no signal and is drawn again, up to 4 draws; only a trial missed 4 times is counted
as missed. The trials run in rounds (one kill of each kind per round, others
spread over the first rounds) and the tally is printed every round, so a stopped campaign still says what
ran. Ends with one `faults: K/N trials survived` line per kind of trial and one for all.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.tree import Tree, make_tree, processes_in  # noqa: E402

DECK = "sample"
SAMPLE = '\n[decks.sample]\ntitle = "Fault campaign sample"\nscenes = ["EchoOfAPulse", "QueryKeyValue"]\n'
STEPS = (41, 47)  # the values of linear_rnn.steps the rebuilds use (one reference build each)
INTERRUPTED = "interrupted; finished outputs are kept, the next build resumes"
LOCKED = "error: another seqanim build is running in this folder; wait for it or stop it"
DAMAGE: dict[str, Callable[[bytes, bytes], bytes]] = {
    "truncated": lambda payload, other: payload[: len(payload) // 2],
    "zeroed": lambda payload, other: bytes(len(payload)),  # same size: only the mtime tells
    "replaced": lambda payload, other: other,
}
# Damaged file -> another output of its kind (what "replaced" puts in its place). Folders: their first file.
DAMAGED = {
    "data/linear_rnn.npz": "data/qkv_walkthrough.npz",
    "data/qkv_walkthrough.json": "data/linear_rnn.json",
    "renders/low/EchoOfAPulse.mp4": "renders/low/QueryKeyValue.mp4",
    "renders/low/QueryKeyValue.png": "renders/low/EchoOfAPulse.png",
    "renders/low/EchoOfAPulse.report.json": "renders/low/QueryKeyValue.report.json",
    "renders/low/QueryKeyValue.narrated.mp4": "renders/low/EchoOfAPulse.narrated.mp4",
    "slides/low/QueryKeyValue.json": "slides/low/EchoOfAPulse.json",
    "slides/low/files/EchoOfAPulse/": "renders/low/QueryKeyValue.mp4",
    "slides/low/sample.pdf": "renders/low/EchoOfAPulse.png",
    "slides/low/sample.pptx": "slides/low/sample.pdf",
    "slides/low/sample.html": "slides/low/EchoOfAPulse.json",
    "slides/low/sample_assets/": "renders/low/EchoOfAPulse.mp4",
    "renders/low/sample.mp4": "renders/low/EchoOfAPulse.mp4",
    "renders/low/sample.png": "renders/low/QueryKeyValue.png",
    "slides/low/cards/sample-title.json": "slides/low/QueryKeyValue.json",
    "cache": "",  # a file of a cache entry
    ".seqanim/state.json": "slides/low/QueryKeyValue.json",
}
FIX = ("precompute", "render", "slides")
AIMS = 4  # draws per kill trial while its aim falls after the build's end (see Campaign._aimed)


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def last_line(text: str) -> str:
    found = lines(text)
    return found[-1][:160] if found else "(nothing)"


def framemd5(path: Path) -> str:
    """A hash of every decoded frame: two videos with the same pictures, whatever their container bytes."""
    decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "framemd5", "-"], capture_output=True)
    return hashlib.sha256(decoded.stdout).hexdigest() if decoded.returncode == 0 else f"undecodable {path}"


def sidecar(path: Path) -> dict:
    """A data/ sidecar without what no two runs share: metrics.seconds, the experiment's measured run time."""
    value = json.loads(path.read_text())
    value.get("metrics", {}).pop("seconds", None)
    return value


def leftovers(tree: Tree) -> list[str]:
    """Temporary files and staging folders: outputs never start with a dot, cache entries never either."""
    found = [
        str(path.relative_to(tree.root))
        for folder in ("data", "renders", "slides")
        for path in (tree.root / folder).rglob(".*")
    ]
    cache = tree.root / ".seqanim" / "cache"
    found += [str(p.relative_to(tree.root)) for p in cache.glob(".*")] if cache.exists() else []
    for folder in (tree.root / ".seqanim" / "stage", tree.root / ".seqanim" / "dask"):  # dask: local workers' scratch
        found += [str(p.relative_to(tree.root)) for p in folder.iterdir()] if folder.exists() else []
    return found


def wait_for_no_processes(root: Path, timeout: float = 10) -> list[str]:
    deadline = time.monotonic() + timeout
    while (left := processes_in(root)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def whole(path: Path) -> str | None:
    """None when `path` is a complete file of its kind; else what is wrong with it."""
    try:
        if path.suffix == ".json":
            json.loads(path.read_bytes())
        elif path.suffix in (".npz", ".pt"):
            if path.suffix == ".npz":
                import numpy as np

                with np.load(path) as arrays:
                    [arrays[key] for key in arrays.files]
            else:
                zipfile.ZipFile(path).testzip()  # torch.save writes a zip
        elif path.suffix == ".mp4":
            if framemd5(path).startswith("undecodable") or path.stat().st_size == 0:
                return "does not decode"
        elif path.suffix == ".png":
            from PIL import Image

            Image.open(path).verify()
        elif path.suffix == ".pdf":
            payload = path.read_bytes()
            if not payload.startswith(b"%PDF") or b"%%EOF" not in payload[-1024:]:
                return "not a whole PDF"
        elif path.suffix == ".pptx":
            if zipfile.ZipFile(path).testzip() is not None:
                return "a damaged zip member"
        elif path.suffix == ".html":
            if b"</html>" not in path.read_bytes()[-4096:]:
                return "no </html>"
    except Exception as error:  # noqa: BLE001 - any failure to read it back is the finding
        return f"{type(error).__name__}: {error}"[:120]
    return None


class Expected:
    """What an uninterrupted build of the sample deck produced (a copy of its outputs), to compare with."""

    def __init__(self, tree: Tree, destination: Path) -> None:
        for folder in ("data", "renders", "slides"):
            shutil.copytree(tree.root / folder, destination / folder, symlinks=True)
        self.root = destination
        self.hashes = Tree(destination).outputs()
        self.sidecars = {p.name: sidecar(p) for p in (destination / "data").glob("*.json")}
        self.frames: dict[str, str] = {}

    def frames_of(self, name: str) -> str:
        if name not in self.frames:
            self.frames[name] = framemd5(self.root / name)
        return self.frames[name]

    def differences(self, tree: Tree) -> list[str]:
        got = tree.outputs()
        problems = [f"{name} missing" for name in self.hashes if name not in got]
        problems += [f"{name} is extra" for name in got if name not in self.hashes]
        for name, digest in self.hashes.items():
            if name not in got or got[name] == digest:
                continue
            if name.startswith("data/") and name.endswith(".json"):
                if sidecar(tree.root / name) != self.sidecars[name[5:]]:
                    problems.append(f"{name} differs")
            elif name.endswith(".mp4"):
                if framemd5(tree.root / name) != self.frames_of(name):
                    problems.append(f"{name}: frames differ")
            elif name.endswith(".report.json"):  # a scene's report carries its render time
                if _report(tree.root / name) != _report(self.root / name):
                    problems.append(f"{name} differs")
            elif name.startswith("data/") or name.endswith(".json"):
                problems.append(f"{name} differs")
        return problems


def _report(path: Path) -> dict:
    value = json.loads(path.read_text())
    value.pop("render_seconds", None)
    return value


class Campaign:
    def __init__(self, workdir: Path, rng: random.Random) -> None:
        self.rng = rng
        self.workdir = workdir
        print("copying the lecture (victim, reference) and building the references ...", flush=True)
        self.victim = self._copy(workdir / "victim")  # the sample deck's outputs only (kill, cli, lock)
        self._ok(self.victim.run("clean"))
        self.reference = self._copy(workdir / "reference")
        # The whole lecture, built, and the sample deck: damage trials run `seqanim build`, which refuses a
        # damaged output (`seqanim slides sample` names the deck, so it would rebuild it on request). Built
        # here, whatever the checkout holds: a first damage trial must not be the build of the rest.
        self.full = self._copy(workdir / "full")
        self._ok(self.full.run("build", timeout=3600))
        tree = self.reference
        self._ok(tree.run("clean"))
        self.stages_cold = self._plan(tree, ())
        started = time.perf_counter()
        self._ok(tree.run("slides", DECK, timeout=1800))
        print(f"reference cold build: {time.perf_counter() - started:.0f} s", flush=True)
        self.timeline = self._seconds(tree)
        self.keys: dict[int | None, dict[str, str]] = {None: self._keys(tree)}
        self.expected: dict[int | None, Expected] = {None: Expected(tree, workdir / "expected-cold")}
        self.stages_rebuild: dict[int, list[str]] = {}
        for steps in STEPS:
            self.stages_rebuild[steps] = self._plan(tree, self._set(steps))
            started = time.perf_counter()
            self._ok(tree.run("slides", DECK, *self._set(steps), timeout=1800))
            print(f"reference rebuild, linear_rnn.steps={steps}: {time.perf_counter() - started:.0f} s", flush=True)
            self.timeline.update(self._seconds(tree))
            self.keys[steps] = self._keys(tree)
            self.expected[steps] = Expected(tree, workdir / f"expected-{steps}")
        self.default_keys = self.keys[None]
        self.landed: Counter[str] = Counter()

    # --- helpers ---------------------------------------------------------------------------------------

    @staticmethod
    def _copy(destination: Path) -> Tree:
        tree = make_tree(destination, quality="low")
        with open(tree.root / "lecture.toml", "a") as config:
            config.write(SAMPLE)
        return tree

    @staticmethod
    def _set(steps: int | None) -> tuple[str, ...]:
        return () if steps is None else ("--set", f"linear_rnn.steps={steps}")

    @staticmethod
    def _ok(result: subprocess.CompletedProcess[str]) -> None:
        if result.returncode != 0:
            raise SystemExit(f"campaign setup failed: {result.stderr.strip()[-2000:]}")

    @staticmethod
    def _plan(tree: Tree, overrides: tuple[str, ...]) -> list[str]:
        dry = tree.run("slides", DECK, "--dry-run", *overrides)
        return [line.split()[2] for line in dry.stdout.splitlines() if line.startswith("would run")]

    @staticmethod
    def _state(tree: Tree) -> dict:
        try:
            return json.loads((tree.root / ".seqanim" / "state.json").read_text())
        except (OSError, ValueError):
            return {}

    def _seconds(self, tree: Tree) -> dict[str, float]:
        return {stage: entry.get("seconds") or 0.5 for stage, entry in self._state(tree).items()}

    def _keys(self, tree: Tree) -> dict[str, str]:
        return {stage: entry["key"] for stage, entry in self._state(tree).items()}

    @staticmethod
    def _log(tree: Tree, stage: str) -> Path:
        return tree.root / ".seqanim" / "logs" / f"{stage.replace(':', '-')}.log"

    def _reset(self, steps: int | None) -> list[str]:
        """The victim before a trial: cold (nothing built, no cache) or built with the defaults, with no
        cache entry of the `steps` rebuild (so that it really runs). Returns the stages the build will run."""
        tree = self.victim
        if steps is None:
            self._ok(tree.run("clean"))
            return list(self.stages_cold)
        self._ok(tree.run("slides", DECK, timeout=1800))
        cache = tree.root / ".seqanim" / "cache"
        for entry in cache.iterdir() if cache.exists() else []:
            try:
                stage = json.loads((entry / "COMPLETE").read_text())["stage"]
            except (OSError, ValueError, KeyError):
                continue
            if stage in self.stages_rebuild[steps] and self.default_keys.get(stage) != entry.name:
                shutil.rmtree(entry)
        return list(self.stages_rebuild[steps])

    def _resumed(self, steps: int | None, problems: list[str]) -> None:
        """The next build finishes, equals the reference, leaves nothing behind and is then up to date."""
        tree = self.victim
        resumed = tree.run("slides", DECK, *self._set(steps), timeout=1800)
        if resumed.returncode != 0:
            problems.append(f"next build failed: {last_line(resumed.stderr)}")
            return
        problems += self.expected[steps].differences(tree)
        problems += [f"left behind: {name}" for name in leftovers(tree)]
        if not tree.run("slides", DECK, "--dry-run", *self._set(steps)).stdout.strip().startswith("0 of"):
            problems.append("not up to date after the next build")

    def _start_and_aim(self, stages: list[str], steps: int | None) -> tuple[subprocess.Popen[str], str, float]:
        """Start the build; wait for a stage drawn at random to start, then a random part of its time."""
        tree = self.victim
        target = self.rng.choice(stages)
        delay = self.rng.uniform(0, self.timeline.get(target, 1.0))
        for stage in stages:
            self._log(tree, stage).unlink(missing_ok=True)
        process = tree.popen("slides", DECK, *self._set(steps))
        log = self._log(tree, target)
        deadline = time.monotonic() + 600
        while not log.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(delay)
        return process, target, delay

    def _aimed(
        self, steps: int | None, pick: Callable[[list[str]], list[str]] = list
    ) -> tuple[list[str], subprocess.Popen[str], str, float, int]:
        """Reset the victim, start the build and aim (at one of `pick(stages)`). An aim that falls after the
        build has ended (the build ran faster than the reference timeline) sent no signal and tests nothing:
        it is drawn again, up to AIMS draws. Returns the stages, the build, the aim and the draws it took."""
        for draw in range(1, AIMS + 1):
            stages = self._reset(steps)
            process, target, delay = self._start_and_aim(pick(stages), steps)
            # Still running: aimed. The last draw, or a build that failed on its own, goes back to the trial,
            # which reports the failure: a failed build must not be drawn again and go unseen.
            if process.poll() is None or draw == AIMS or process.returncode != 0:
                return stages, process, target, delay, draw
            process.communicate(timeout=300)
        raise AssertionError("unreachable")

    def _running(self, stages: list[str]) -> list[str]:
        """Stages that had started (their log exists) and were not recorded with their new key."""
        state, keys = self._state(self.victim), self.keys[self._steps]
        return [
            stage
            for stage in stages
            if self._log(self.victim, stage).exists() and state.get(stage, {}).get("key") != keys[stage]
        ]

    # --- the trials ------------------------------------------------------------------------------------

    def kill(self, build: str, sig: signal.Signals) -> tuple[str, bool, str]:
        steps = None if build == "cold" else self.rng.choice(STEPS)
        self._steps = steps
        stages, process, target, delay, draws = self._aimed(steps)
        running = process.poll() is None
        if running:
            os.killpg(process.pid, sig)
        _, stderr = process.communicate(timeout=300)
        inside = self._running(stages) if running else []
        for stage in inside:
            self.landed[f"{build} {sig.name} in {stage.split(':')[0]}"] += 1
        what = f"{sig.name} {build}{'' if steps is None else f' steps={steps}'}: aimed {target} +{delay:.1f}s"
        what += f" (draw {draws}), " if draws > 1 else ", "
        what += f"landed in {','.join(s.split(':')[-1] for s in inside) or 'no stage'}"
        what += "" if running or process.returncode != 0 else " (build had ended)"  # a failed build is no miss
        problems = [] if running or process.returncode == 0 else [f"the build failed: {last_line(stderr)}"]
        # A SIGINT after the last stage ended may find the build done: it exits 0 with its summary (the resumed
        # build below then checks the outputs). Anywhere else it must stop the build: exit 130 and the one line.
        finished = not inside and process.returncode == 0 and (lines(stderr) or [""])[-1].startswith("ran ")
        interrupted = process.returncode == 130 and lines(stderr)[-1:] == [INTERRUPTED]
        if running and sig == signal.SIGINT and not (interrupted or finished):
            problems.append(f"SIGINT: exit {process.returncode}, said {last_line(stderr)}")
        left = wait_for_no_processes(self.victim.root)
        if left:
            problems.append(f"processes left: {left[:2]}")
        self._resumed(steps, problems)
        return what, not problems, "; ".join(problems[:3])

    def cli(self) -> tuple[str, bool, str]:
        steps = self.rng.choice(STEPS)
        self._steps = steps
        stages, process, target, delay, draws = self._aimed(
            steps, lambda stages: [stage for stage in stages if not stage.startswith("experiment")]
        )
        problems = []
        killed_at = time.time()
        ended = process.poll() is not None
        if not ended:
            os.kill(process.pid, signal.SIGKILL)  # the build alone, not its group
        _, stderr = process.communicate(timeout=300)
        if ended and process.returncode != 0:
            problems.append(f"the build failed: {last_line(stderr)}")
        inside = self._running(stages)
        left = wait_for_no_processes(self.victim.root)
        if left:
            problems.append(f"processes left: {left[:2]}")
        time.sleep(2)  # what an orphaned stage would write, it writes within this
        late = [
            name
            for name in self.victim.outputs()
            if (self.victim.root / name).stat().st_mtime > killed_at + 0.5  # the stage's last instant
        ]
        problems += [f"written after the kill: {name}" for name in late[:2]]
        self._resumed(steps, problems)
        what = f"SIGKILL build alone, steps={steps}: aimed {target} +{delay:.1f}s"
        what += f" (draw {draws}), landed in " if draws > 1 else ", landed in "
        what += ",".join(s.split(":")[-1] for s in inside) or "no stage"
        what += " (build had ended)" if ended and process.returncode == 0 else ""  # a failed build is no miss
        return what, not problems, "; ".join(problems[:3])

    def damage(self, name: str) -> tuple[str, bool, str]:
        tree = self.full
        how = self.rng.choice(list(DAMAGE))
        problems: list[str] = []
        if name == "cache":
            return self._damage_cache(how)
        other = (tree.root / DAMAGED[name]).read_bytes()
        if name.endswith("/"):  # a folder: one of its files
            name = name + sorted(p.name for p in (tree.root / name).iterdir() if p.is_file())[0]
        path = tree.root / name
        before = tree.outputs()
        damaged = DAMAGE[how](path.read_bytes(), other)
        temporary = path.with_name(path.name + ".damage")  # by rename: outputs share bytes with the cache
        temporary.write_bytes(damaged)
        os.replace(temporary, path)
        result = tree.run("build", timeout=1800)
        errors = lines(result.stderr)
        if name == ".seqanim/state.json":
            if result.returncode != 0 or not errors[0].startswith("warning: .seqanim/state.json is corrupt"):
                problems.append(f"not recovered: {last_line(result.stderr)}")
            (path.parent / "state.json.corrupt").unlink(missing_ok=True)
        else:
            if result.returncode != 2 or len(errors) != 1 or f"{name} changed since it was built" not in errors[0]:
                problems.append(f"not named in one line: {result.stderr.strip()[:200]}")
            if tree.outputs() != {**before, name: tree.outputs().get(name)}:
                problems.append("the refused build changed other files")
            fix = errors[0].split("run `seqanim ", 1)[-1].split("`")[0].split() if errors else []
            if len(fix) < 2 or fix[0] not in FIX:
                problems.append("no fix named")
            else:
                fixed = tree.run(*fix, timeout=1800)
                if fixed.returncode != 0:
                    problems.append(f"`seqanim {' '.join(fix)}` failed: {last_line(fixed.stderr)}")
        if tree.outputs() != before:
            problems.append("outputs differ from the built ones afterwards")
        problems += [f"left behind: {n}" for n in leftovers(tree)]
        if "up to date" not in tree.run("build").stderr:
            problems.append("not up to date afterwards")
        return f"{how} {name}", not problems, "; ".join(problems[:3])

    def _damage_cache(self, how: str) -> tuple[str, bool, str]:
        """A file of the default EchoOfAPulse entry damaged while another version is in place; going back
        must name it, drop the entry and render again, never restore the damaged bytes."""
        tree = self.full
        stage = "scene:low:EchoOfAPulse"
        steps = self.rng.choice(STEPS)
        self._ok(tree.run("slides", DECK, *self._set(steps), timeout=1800))
        entry = tree.root / ".seqanim" / "cache" / self.default_keys[stage]
        files = sorted(p for p in entry.rglob("*") if p.is_file() and p.name != "COMPLETE")
        path = self.rng.choice(files)
        damaged = DAMAGE[how](path.read_bytes(), (tree.root / "renders/low/QueryKeyValue.mp4").read_bytes())
        temporary = path.with_name(path.name + ".damage")
        temporary.write_bytes(damaged)
        os.replace(temporary, path)
        result = tree.run("slides", DECK, timeout=1800)
        label = str(path.relative_to(tree.root))
        problems = []
        expected = f"warning: {label} in the cache is damaged; entry dropped, {stage} is rebuilt"
        if result.returncode != 0 or expected not in lines(result.stderr):
            problems.append(f"not named: {result.stderr.strip()[:200]}")
        video = "renders/low/EchoOfAPulse.mp4"
        if framemd5(tree.root / video) != self.expected[None].frames_of(video):
            problems.append(f"{video} is not the default render")
        problems += [f"left behind: {n}" for n in leftovers(tree)]
        return f"{how} cache entry file {path.name}", not problems, "; ".join(problems[:3])

    def lock(self) -> tuple[str, bool, str]:
        steps = self.rng.choice(STEPS)
        self._reset(steps)
        tree = self.victim
        both = [tree.popen("slides", DECK, *self._set(steps)) for _ in range(2)]
        results = [(p.communicate(timeout=1800)[1], p.returncode) for p in both]
        problems = []
        codes = sorted(code for _, code in results)
        if codes != [0, 2]:
            problems.append(f"exit codes {codes}")
        losers = [err for err, code in results if code == 2]
        if losers and lines(losers[0]) != [LOCKED]:
            problems.append(f"the other said: {losers[0].strip()[:200]}")
        problems += self.expected[steps].differences(tree)
        return f"two builds, steps={steps}", not problems, "; ".join(problems[:3])

    # --- disk full: a copy on a tmpfs ------------------------------------------------------------------

    def disk_setup(self) -> bool:
        mount = self.workdir / "disk"
        mount.mkdir()
        made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(mount)], capture_output=True)
        if made.returncode != 0:
            print(f"disk trials skipped: cannot mount a tmpfs ({last_line(made.stderr.decode())})", flush=True)
            return False
        self.mount = mount
        root = mount / "lecture"
        root.mkdir()
        for name in ("precompute", "scenes", "lecture.toml", "pyproject.toml"):
            source = self.victim.root / name
            (shutil.copytree(source, root / name, symlinks=True) if source.is_dir() else shutil.copy2(source, root))
        for name in ("data", "renders", "slides"):  # their READMEs: the reference's outputs include them
            (root / name).mkdir()
            shutil.copy2(self.victim.root / name / "README.md", root / name)
        self.disk_tree = Tree(root)
        self._ok(self.disk_tree.run("slides", DECK, timeout=1800))  # cold, on the tmpfs
        return True

    def disk_cleanup(self) -> None:
        if getattr(self, "mount", None) is not None:
            subprocess.run(["umount", "-l", str(self.mount)], capture_output=True)

    def _disk_size(self, kilobytes: int) -> None:
        subprocess.run(["mount", "-o", f"remount,size={kilobytes}k", str(self.mount)], check=True)

    def disk(self) -> tuple[str, bool, str]:
        tree = self.disk_tree
        steps = self.rng.choice(STEPS)
        self._disk_size(256 * 1024)
        self._ok(tree.run("slides", DECK, timeout=1800))
        cache = tree.root / ".seqanim" / "cache"
        for entry in cache.iterdir():  # only the default version stays: the rebuild really runs
            if entry.name not in self.default_keys.values():
                shutil.rmtree(entry)
        before = set(tree.outputs())
        free_kb = self.rng.choice([8, 48, 160, 400, 1000])
        used_kb = (shutil.disk_usage(self.mount).used + 1023) // 1024
        self._disk_size(used_kb + free_kb)
        result = tree.run("slides", DECK, "-j", "1", *self._set(steps), timeout=1800)
        errors = lines(result.stderr)
        problems = []
        if result.returncode != 2 or len(errors) != 1 or "no space left" not in errors[0].lower():
            problems.append(f"exit {result.returncode}: {result.stderr.strip()[-200:]}")
        problems += [f"{name} went missing" for name in sorted(before - set(tree.outputs()))]
        for name in tree.outputs():
            wrong = whole(tree.root / name)
            if wrong:
                problems.append(f"{name} is not whole: {wrong}")
        problems += [f"left behind: {n}" for n in leftovers(tree)]
        self._disk_size(256 * 1024)
        resumed = tree.run("slides", DECK, *self._set(steps), timeout=1800)
        if resumed.returncode != 0:
            problems.append(f"with space again, the build failed: {last_line(resumed.stderr)}")
        else:
            problems += self.expected[steps].differences(tree)
        said = errors[0].split(": ", 2)[-1][:90] if errors else "nothing"
        return f"{free_kb} KB free, steps={steps}: {said}", not problems, "; ".join(problems[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=30, help="Trials per signal and build (cold, rebuild).")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--keep", action="store_true", help="Keep the copies (their path is printed).")
    parser.add_argument("--smoke", action="store_true", help="One trial of each kind (a check of the bench).")
    parser.add_argument("--only", help="Run only the trials whose kind starts with this (e.g. disk, kill cold).")
    args = parser.parse_args()
    # A background job of a shell starts with SIGINT ignored, and its children would inherit that: the builds
    # this starts must get Ctrl-C's default (KeyboardInterrupt), as on a terminal.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="seqanim-faults-"))
    started = time.perf_counter()
    rows: list[tuple[str, bool, float]] = []
    campaign = None
    try:
        campaign = Campaign(workdir, rng)
        disk = campaign.disk_setup()
        others: list[tuple[str, Callable[[], tuple[str, bool, str]]]] = [
            ("damage", lambda name=name: campaign.damage(name)) for name in DAMAGED
        ]
        others += [("cli", campaign.cli)] * min(3, args.kills) + [("lock", campaign.lock)] * min(2, args.kills)
        others += [("disk", campaign.disk)] * (min(4, args.kills) if disk else 0)
        rng.shuffle(others)
        rounds = []
        per_round = -(-len(others) // max(1, min(args.kills, 10)))  # the others spread over the first rounds
        for number in range(args.kills):
            trials = [
                (f"kill {build} {sig.name}", lambda build=build, sig=sig: campaign.kill(build, sig))
                for build in ("cold", "rebuild")
                for sig in (signal.SIGKILL, signal.SIGINT)
            ]
            trials += others[number * per_round : (number + 1) * per_round]
            rng.shuffle(trials)
            rounds.append(trials)
        if args.smoke:
            rounds = [
                [
                    ("kill cold SIGKILL", lambda: campaign.kill("cold", signal.SIGKILL)),
                    ("kill rebuild SIGINT", lambda: campaign.kill("rebuild", signal.SIGINT)),
                    ("cli", campaign.cli),
                    ("lock", campaign.lock),
                    *([("disk", campaign.disk)] if disk else []),
                    *[("damage", lambda name=name: campaign.damage(name)) for name in list(DAMAGED)[-6:]],
                ]
            ]
        if args.only:
            rounds = [[trial for trial in trials if trial[0].startswith(args.only)] for trials in rounds]
        number = 0
        for trials in rounds:
            for kind, trial in trials:
                number += 1
                trial_started = time.perf_counter()
                what, survived, why = trial()
                seconds = time.perf_counter() - trial_started
                if what.endswith("(build had ended)"):  # aimed past the build's end: no signal was sent
                    kind = f"missed {kind}"
                rows.append((kind, survived, seconds))
                mark = "survived" if survived else f"FAILED: {why}"
                print(f"{number:>4}  {kind:<20} {what:<84} {seconds:>4.0f} s  {mark}", flush=True)
            tally(rows, campaign, time.perf_counter() - started, final=False)
    finally:
        if campaign is not None:
            campaign.disk_cleanup()
        if args.keep:
            print(f"copies kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"\ncampaign: {time.perf_counter() - started:.0f} s, seed {args.seed}, --kills {args.kills}")
    tally(rows, campaign, time.perf_counter() - started, final=True)


def tally(rows: list[tuple[str, bool, float]], campaign: Campaign | None, seconds: float, *, final: bool) -> None:
    kinds = sorted({kind for kind, _, _ in rows})
    if not final:
        counts = {k: (sum(ok for kk, ok, _ in rows if kk == k), sum(kk == k for kk, _, _ in rows)) for k in kinds}
        summary = ", ".join(f"{k} {ok}/{n}" for k, (ok, n) in counts.items())
        print(f"      tally after {len(rows)} trials, {seconds:.0f} s: {summary}", flush=True)
        return
    print(f"{'kind':<22}{'trials':>7}{'survived':>10}{'s/trial':>9}")
    for kind in kinds:
        of_kind = [row for row in rows if row[0] == kind]
        mean = sum(row[2] for row in of_kind) / len(of_kind)
        print(f"{kind:<22}{len(of_kind):>7}{sum(row[1] for row in of_kind):>10}{mean:>9.0f}")
    if campaign is not None and campaign.landed:
        print("kills landed in: " + ", ".join(f"{k} {n}" for k, n in sorted(campaign.landed.items())))
    faults = [row for row in rows if not row[0].startswith("missed")]  # a missed kill tested nothing
    for kind in kinds:
        of_kind = [row for row in rows if row[0] == kind]
        if not kind.startswith("missed"):
            print(f"faults: {sum(row[1] for row in of_kind)}/{len(of_kind)} trials survived ({kind})")
    missed = len(rows) - len(faults)
    note = f" ({missed} missed kills not counted)" if missed else ""
    print(f"faults: {sum(row[1] for row in faults)}/{len(faults)} trials survived{note}")


if __name__ == "__main__":
    main()
