"""An isolated copy of the suite's built lecture, for tests that break, kill or change things.

ROOT is the suite's workspace (tests/conftest.py), never the lecturer's checkout. A copy is a workspace of its
own (see seqanim/workspace.py): the lecturer's files (lecture.toml, precompute/, scenes/), data/ and the cache
are copied; videos, slide files, voice clips and manim's LaTeX and text SVGs are hard-linked (they are only ever
replaced by rename or added, never written in place, so links are safe). Commands run in the copy with
PYTHONPATH pointing at it, so its own precompute and scenes are imported; the engine is this repository's.
`worker_checkout` makes what a remote Dask worker is started in: a clone of this repository with this tree's
code.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seqanim.stages.render import SHARED_MEDIA
from seqanim.workspace import ENGINE, REPOSITORY, current
from tests.conftest import CHECK

ROOT = current().root

COPIED = ("precompute", "scenes", "narration", "lecture.toml", "pyproject.toml", "package.json", "package-lock.json")
LINKED = ("renders", "slides", "node_modules")


@dataclass
class Tree:
    root: Path

    def env(self) -> dict[str, str]:
        """The copy's own precompute and scenes first, then this repository's engine: an editable install
        of another checkout must not supply `seqanim`."""
        return {**os.environ, "PYTHONPATH": os.pathsep.join((str(self.root), str(ENGINE.parent)))}

    def run(
        self, *args: str, timeout: float = 600, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "seqanim.cli", *args],
            cwd=self.root,
            env={**self.env(), **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "seqanim.cli", *args],
            cwd=self.root,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            # Ctrl-C's default, as on a terminal, even when this runs as a background job (SIGINT ignored).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
        )

    def data_param(self, experiment: str, key: str) -> Any:
        """A parameter as `data/` says its experiment last ran with."""
        return json.loads((self.root / "data" / f"{experiment}.json").read_text())["params"][key]

    def cache_entry(self, stage_id: str) -> Path:
        """The cache entry of the stage's recorded build."""
        key = json.loads((self.root / ".seqanim" / "state.json").read_text())[stage_id]["key"]
        return self.root / ".seqanim" / "cache" / key

    def outputs(self) -> dict[str, str]:
        """Content hash of every generated file (data/, renders/, slides/)."""
        result = {}
        for folder in ("data", "renders", "slides"):
            for path in sorted((self.root / folder).rglob("*")):
                if path.is_file() and not path.name.startswith("."):
                    result[str(path.relative_to(self.root))] = hashlib.sha256(path.read_bytes()).hexdigest()
        return result


def make_tree(destination: Path, quality: str = CHECK) -> Tree:
    """A copy of the suite's built lecture whose commands build at `quality` by default: the check quality the
    suite built everything at, so a plain `seqanim build` there is up to date (the benches measure the
    lecturer's build, `low`). Its sample deck is built at preview (tests.conftest)."""
    destination.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy2(source, destination / name)
    toml = destination / "lecture.toml"
    toml.write_text(re.sub(r'^quality = "\w+"', f'quality = "{quality}"', toml.read_text(), count=1, flags=re.M))
    shutil.copytree(ROOT / "data", destination / "data")
    for name in LINKED:
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, destination / name, copy_function=os.link, symlinks=True)
    state = ROOT / ".seqanim" / "state.json"
    (destination / ".seqanim").mkdir()
    if state.exists():
        shutil.copy2(state, destination / ".seqanim" / "state.json")
    voice = ROOT / ".seqanim" / "voice"
    if voice.exists():  # the narration clips, linked: a clip is only ever replaced by rename
        shutil.copytree(voice, destination / ".seqanim" / "voice", copy_function=os.link)
    for folder in SHARED_MEDIA:  # manim's LaTeX and text SVGs, linked: a render writes only its own copies
        if (ROOT / ".seqanim" / "media" / folder).exists():
            shutil.copytree(ROOT / ".seqanim" / "media" / folder, destination / ".seqanim" / "media" / folder,
                            copy_function=os.link)  # fmt: skip
    cache = ROOT / ".seqanim" / "cache"
    if cache.exists():  # real copies: tests damage the copy's entries in place
        for entry in cache.iterdir():
            if entry.is_dir() and (entry / "COMPLETE").is_file():  # finished: what a build would restore
                shutil.copytree(entry, destination / ".seqanim" / "cache" / entry.name)
    return Tree(destination)


def worker_checkout(folder: Path, commit: str | None = None) -> Path:
    """What `git clone` and `make setup` make on a worker machine: a clone of this repository at HEAD, with
    this tree's code copied over it (the build's code, uncommitted changes included) and reveal.js; with
    `commit`, one more commit of its own, as a worker left at another version of the code."""
    # --no-hardlinks: a commit in the clone would otherwise touch the checkout's objects (git freshens an object
    # it writes again by its mtime, and a local clone shares their inodes): 3 MB copied instead.
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPOSITORY), str(folder)], check=True)
    for source in (ENGINE, ROOT / "precompute", ROOT / "scenes"):
        shutil.rmtree(folder / source.name)
        shutil.copytree(source, folder / source.name, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "node_modules").symlink_to(REPOSITORY / "node_modules")
    if commit:
        with open(folder / "seqanim" / "engine" / "task.py", "a") as source:
            source.write(f"# {commit}\n")
        git = ["git", "-C", str(folder), "-c", "user.name=test", "-c", "user.email=test@example.org"]
        subprocess.run([*git, "commit", "--quiet", "-am", commit], check=True)
    return folder


def with_value(text: str, table: str, key: str, value: object) -> str:
    """`text`, a lecture.toml, with `key` of `[table]` set to `value` (its comment kept), whatever it was:
    what a lecturer's edit does, for tests that must not depend on today's values."""
    lines, section, done = text.splitlines(keepends=True), None, False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]").strip()
        elif section == table and stripped.split("=", 1)[0].strip() == key and not done:
            name, rest = line.split("=", 1)
            comment = rest[rest.index("#") :] if "#" in rest else ""
            assignment = f"{name}= {json.dumps(value)}"
            lines[index] = (f"{assignment:<44}{comment}".rstrip() if comment else assignment) + "\n"
            done = True
    if not done:
        raise KeyError(f"[{table}] {key} is not in the file")
    return "".join(lines)


def framemd5(path: Path) -> str:
    """A hash of every decoded frame: two videos with the same pictures, whatever their container's bytes."""
    decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "framemd5", "-"], capture_output=True)
    return hashlib.sha256(decoded.stdout).hexdigest() if decoded.returncode == 0 else f"undecodable {path}"


def processes_in(root: Path) -> list[str]:
    """Processes working in `root`: a build, its local Dask workers, its stages, their LaTeX and ffmpeg."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if os.readlink(entry / "cwd").startswith(str(root)):
                    command = (entry / "cmdline").read_bytes()[:80].replace(b"\0", b" ").decode(errors="replace")
                    found.append(f"{entry.name} {command}")
            except OSError:
                continue
    return found


def leftovers(root: Path) -> list[str]:
    """What no finished build may leave: outputs never start with a dot, so every dot-file or dot-folder in
    data/, renders/, slides/ is a temporary one; so is a dot-entry of the cache, anything in staging, or a
    local Dask worker's folder (its tasks' scratch workspaces)."""
    found = [str(p.relative_to(root)) for folder in ("data", "renders", "slides") for p in (root / folder).rglob(".*")]
    cache = root / ".seqanim" / "cache"
    found += [str(p.relative_to(root)) for p in cache.glob(".*")] if cache.exists() else []
    for folder in (root / ".seqanim" / "stage", root / ".seqanim" / "dask"):
        found += [str(p.relative_to(root)) for p in folder.iterdir()] if folder.exists() else []
    return found


def workspaces(root: Path) -> list[Path]:
    """The tree and the scratch workspaces its local Dask workers run stages in."""
    return [root, *root.glob(".seqanim/dask/*/dask-scratch-space/worker-*/seqanim/tasks/*")]


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one `error: ...` line a refused command prints (exit 2), and nothing else."""
    found = lines(result.stderr)
    assert result.returncode == 2, result.stderr
    assert len(found) == 1, result.stderr
    assert found[0].startswith("error: ")
    return found[0]


def poll(condition: Callable[[], bool], timeout: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        said = f"; the log says:\n{log.read_text()[-3000:]}" if log else ""
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s waiting for {what}{said}"
        time.sleep(0.1)


def stop_group(process: subprocess.Popen[Any]) -> None:
    """Kill a process started with start_new_session=True and everything it started, whatever is left of it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
