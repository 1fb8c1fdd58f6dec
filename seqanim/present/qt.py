"""Present a deck live with manim-slides' Qt presenter: the title card, dividers and scenes in order.

The presenter plays a snapshot of the deck's slide files (hard links, so it is instant and costs no
space): a `seqanim build` that re-renders a scene while the lecture runs replaces `slides/<q>/files/`
under a live presenter, which would otherwise stall on a vanished video.
`QT_QPA_PLATFORM` is passed through untouched: the caller sets `offscreen` for a headless run.

Before anything is built, `preflight` checks that Qt's platform plugin loads on this display (the system
libraries PySide6's xcb plugin needs are not part of the wheel; `make` installs them on Debian). Stopping
`seqanim present` (Ctrl-C, SIGTERM, a closed terminal, even SIGKILL) stops the presenter it started.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import webbrowser
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType

from seqanim.decks import DeckPlan, prepare
from seqanim.errors import SeqanimError, StageFailed, ToolMissingError
from seqanim.files import link_or_copy, remove_orphans
from seqanim.lecture.config import Lecture
from seqanim.lecture.variants import Variant
from seqanim.workspace import current


def _snapshots() -> Path:
    """Where the presenter's slide snapshots live while it plays."""
    return current().state_dir / "present"


class PresenterUnavailable(SeqanimError):
    """The Qt presenter cannot open a window here: no display, or a system library its plugin needs is missing."""


# --- preflight: can Qt's platform plugin load on this display? -----------------------------------------

# Debian packages of the libraries PySide6's Qt loads (`ldd` on plugins/platforms/libqxcb.so, libQt6XcbQpa,
# the xcb GL integrations and plugins/multimedia); a soname not listed falls back to Debian's naming rule.
DEBIAN_PACKAGES = {
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libXext.so.6": "libxext6",
    "libXrandr.so.2": "libxrandr2",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
    "libbrotlicommon.so.1": "libbrotli1",
    "libbrotlidec.so.1": "libbrotli1",
    "libgssapi_krb5.so.2": "libgssapi-krb5-2",
    "libz.so.1": "zlib1g",
    "libgcc_s.so.1": "libgcc-s1",
    "libc.so.6": "libc6",
    "libm.so.6": "libc6",
}
PROBE_TIMEOUT = 20.0
# In a child: load the plugin the way Qt will (the message names the library that fails), then open a
# QGuiApplication on the display (Qt aborts the process when it cannot).
PROBE = """\
import ctypes, sys
try:
    ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
except OSError as error:
    print(error, file=sys.stderr)
    sys.exit(3)
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(["seqanim-preflight"])
print(app.platformName())
"""


def qt_plugins() -> Path:
    """PySide6's Qt plugin folder, found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        raise ToolMissingError("PySide6 is not installed in this Python; run `make` to set up .venv")
    return Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins"


def debian_package(soname: str) -> str:
    """`libxcb-icccm.so.4` -> `libxcb-icccm4`, `libxkbcommon-x11.so.0` -> `libxkbcommon-x11-0` (Debian policy 8.1)."""
    if soname in DEBIAN_PACKAGES:
        return DEBIAN_PACKAGES[soname]
    name, _, version = soname.partition(".so")
    version = version.lstrip(".").split(".")[0]
    name = name.lower().replace("_", "-")
    return f"{name}{'-' if name[-1:].isdigit() else ''}{version}"


def _platform(env: Mapping[str, str]) -> str | None:
    """The platform plugin Qt will pick with this environment, None when there is no display at all."""
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    if env.get("DISPLAY"):
        return "xcb"
    if env.get("WAYLAND_DISPLAY"):
        return "wayland"
    return None


def library_problems(files: Sequence[Path], env: Mapping[str, str]) -> list[tuple[str, str]]:
    """(library, what is wrong) for every library `files` need that the dynamic loader cannot load, by `ldd`:
    `not found`, or a file it cannot use (`file too short`, `invalid ELF header`, ...)."""
    result = subprocess.run(
        ["ldd", *map(str, files)], check=False, env=dict(env), capture_output=True, text=True, timeout=PROBE_TIMEOUT
    )
    problems: dict[str, str] = {}
    for line in (result.stdout + result.stderr).splitlines():
        if match := re.match(r"\s*(\S+) => not found", line):
            problems.setdefault(match[1], "missing")
        elif match := re.search(r"error while loading shared libraries: (\S+?): (.+)$", line):
            problems.setdefault(Path(match[1]).name, _unusable(match[1], match[2], env))
    return list(problems.items())


def _unusable(path: str, reason: str, env: Mapping[str, str]) -> str:
    shadowing = str(Path(path).parent) in [os.path.normpath(p) for p in env.get("LD_LIBRARY_PATH", "").split(":") if p]
    return f"unusable ({path}: {reason.strip()}{', found first through LD_LIBRARY_PATH' if shadowing else ''})"


def _install_hint(problems: Sequence[tuple[str, str]]) -> str:
    packages = sorted({debian_package(library) for library, _ in problems})
    missing = [library for library, why in problems if why == "missing"]
    names = [f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing"] if missing else []
    names = ", ".join(names + [f"{library} is {why}" for library, why in problems if why != "missing"])
    sudo = "" if os.geteuid() == 0 else "sudo "
    what = "package" if len(packages) == 1 else "packages"
    install = f"{sudo}apt-get install {' '.join(packages)}"
    return f"{names} (Debian {what} {' '.join(packages)}); install with `{install}` (or run `make`)"


def preflight(deck: str, quality: str, env: Mapping[str, str] | None = None, plugins: Path | None = None) -> str:
    """Check cheaply (one `ldd`, one short child process) that Qt's platform plugin loads and opens this display;
    return the platform's name. Raise PresenterUnavailable with one line (the missing library, its Debian
    package and the install command; or that there is no display, and where the HTML deck is) when it cannot."""
    env = dict(os.environ if env is None else env)
    plugins = plugins or qt_plugins()
    html = current().label(current().slides(quality) / f"{deck}.html")
    browser = f"`seqanim present {deck} --browser` opens the offline HTML deck {html} instead"
    platform = _platform(env)
    if platform is None:
        raise PresenterUnavailable(
            "no display: neither DISPLAY nor WAYLAND_DISPLAY is set, so the Qt presenter has no screen to open on; "
            f"{browser} "
            "(or run it under an X server, e.g. `xvfb-run`)"
        )
    plugin = plugins / "platforms" / f"libq{platform}.so"
    if not plugin.exists():
        plugin = next(iter(sorted((plugins / "platforms").glob(f"libq{platform}*.so"))), plugin)
    files = [plugin, *sorted((plugins / "multimedia").glob("*.so"))]
    if platform == "xcb":
        files += sorted((plugins / "xcbglintegrations").glob("*.so"))
    if problems := library_problems([path for path in files if path.exists()], env):
        raise PresenterUnavailable(
            f"the Qt presenter cannot load its {platform} platform plugin: {_install_hint(problems)}"
        )
    try:
        probe = subprocess.run(
            [sys.executable, "-c", PROBE, str(plugin)],
            check=False,
            env={**env, "QT_QPA_PLATFORM": env.get("QT_QPA_PLATFORM") or platform},
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            cwd=current().root,
        )
    except subprocess.TimeoutExpired:
        raise PresenterUnavailable(
            f"Qt's {platform} platform plugin did not open the display "
            f"{env.get('DISPLAY') or env.get('WAYLAND_DISPLAY', '')} "
            f"within {PROBE_TIMEOUT:.0f} s; is the display server running? {browser}"
        ) from None
    if probe.returncode == 0:
        return platform
    raise _probe_failed(probe, platform, env, browser)


def _probe_failed(
    probe: subprocess.CompletedProcess[str], platform: str, env: Mapping[str, str], browser: str
) -> PresenterUnavailable:
    """The one line for a probe that failed: the library the loader could not load, or the display it could
    not open."""
    lines = [line.strip() for line in probe.stderr.splitlines() if line.strip()]
    if probe.returncode == 3 and lines:  # the dynamic loader's own message names the library
        library = re.match(r"(\S+?): (.*)$", lines[-1])
        name = Path(library[1]).name if library else lines[-1]
        why = (
            "missing"
            if "cannot open shared object file" in lines[-1] or not library
            else _unusable(library[1], library[2], env)
        )
        return PresenterUnavailable(
            f"the Qt presenter cannot load its {platform} platform plugin: {_install_hint([(name, why)])}"
        )
    display = env.get("DISPLAY") if platform == "xcb" else env.get("WAYLAND_DISPLAY")
    if any("could not connect to display" in line for line in lines):
        return PresenterUnavailable(
            f"the Qt presenter cannot connect to display {display}: "
            f"is the X server running and may this user use it? {browser}"
        )
    detail = next(
        (line for line in lines if line.startswith("qt.")), lines[0] if lines else f"exit code {probe.returncode}"
    )
    return PresenterUnavailable(
        f"Qt's {platform} platform plugin failed to start on display {display}: {detail}; {browser}"
    )


def open_in_browser(deck: str, quality: str) -> Path:
    """Open the deck's offline HTML in the default browser (`$BROWSER`, then xdg-open, ...); return its path."""
    html = current().slides(quality) / f"{deck}.html"
    if not html.exists():
        raise StageFailed(f"{current().label(html)} is missing; run `seqanim slides {deck} --quality {quality}`")
    try:
        opened = webbrowser.get().open(html.as_uri(), new=2)
    except webbrowser.Error:
        opened = False
    if not opened:
        raise ToolMissingError(
            f"no web browser found to open {current().label(html)}; open it in any browser (it needs no network)"
        )
    return html


def _start_at(sizes: list[int], start_at: int, deck: str) -> str:
    """1-based deck slide number -> manim-slides' "presentation,slide" (both 0-based)."""
    if not 1 <= start_at <= sum(sizes):
        raise SeqanimError(f"--start-at {start_at} is outside the {deck} deck, which has slides 1..{sum(sizes)}")
    index, offset = 0, start_at - 1
    while offset >= sizes[index]:
        offset -= sizes[index]
        index += 1
    return f"{index},{offset}"


def present_command(
    lecture: Lecture,
    deck: str,
    quality: str,
    *,
    fullscreen: bool,
    screen: int | None,
    start_at: int | None,
    extra: Sequence[str] = (),
    folder: Path | None = None,
    names: Sequence[str] | None = None,
) -> list[str]:
    """The `manim-slides present` command line for the deck (cards rendered first if needed).

    `start_at` is the 1-based deck slide number, as the HTML deck ("c/t") and the PDF handout number them.
    By default it presents `slides/<q>/` directly; `present` passes a snapshot `folder` and its `names`.
    """
    plan, presentations = prepare(lecture, deck, quality)
    # --silent: manim-slides would otherwise ask PyPI for a newer version at every start.
    command = [sys.executable, "-m", "manim_slides", "--silent", "present", "--folder"]
    command.append(str(folder or current().slides(quality)))
    if fullscreen:
        command.append("--full-screen")
    if screen is not None:
        command += ["--screen", str(screen)]
    if start_at is not None:
        command += ["--start-at", _start_at([len(p.slides) for p in presentations], start_at, deck)]
    # The slides are rendered at the pace of their narration; the lecturer presents at [decks] playback_rate.
    command += ["--playback-rate", f"{lecture.decks.playback_rate:g}"]
    command += [*extra, *(names if names is not None else [entry.present_name for entry in plan.entries])]
    return command


def variant_plan(plan: DeckPlan, variant: Variant) -> DeckPlan:
    """The deck with the variant's slide files for the scenes it changes."""
    entries = tuple(
        replace(entry, slide_file=variant.root / "slides" / plan.quality / f"{entry.name}.json")
        if entry.kind == "scene" and entry.name in variant.scenes and not variant.default
        else entry
        for entry in plan.entries
    )
    return replace(plan, entries=entries)


def snapshot(plan: DeckPlan, root: Path) -> list[str]:
    """Hard-link the deck's slide videos under `root` and write their JSONs to `root/deck/`; return the
    names to present from `--folder root/deck`."""
    deck_folder = root / "deck"
    deck_folder.mkdir(parents=True)
    names = []
    for number, entry in enumerate(plan.entries):
        name = f"{number:03d}-{''.join(ch if ch.isalnum() else '_' for ch in entry.name)}"
        for attempt in range(2):  # a re-render may swap the files between reading the JSON and linking
            raw = json.loads(entry.slide_file.read_text())
            try:
                for slide in raw["slides"]:
                    for key in ("file", "rev_file"):
                        source = entry.slide_file.parent.parent / slide[key]
                        target = root / "files" / name / Path(slide[key]).name
                        if not target.exists():
                            link_or_copy(source, target)  # a vanished source: FileNotFoundError, tried again
                        slide[key] = f"files/{name}/{target.name}"  # relative to root: JSON's parent's parent
                break
            except FileNotFoundError:
                if attempt:
                    raise StageFailed(
                        f"the slide files of {entry.name} changed while preparing the presenter; try again"
                    ) from None
        (deck_folder / f"{name}.json").write_text(json.dumps(raw))
        names.append(name)
    return names


def present(
    lecture: Lecture,
    deck: str,
    quality: str,
    *,
    fullscreen: bool,
    screen: int | None,
    start_at: int | None,
    extra: Sequence[str] = (),
    variant: Variant | None = None,
) -> int:
    """Open the Qt presenter on the deck; return its exit code (130 when interrupted, 128 + N on signal N).
    With a `variant`, the scenes it changes are the variant's (manim-slides' presenter takes no keys of ours:
    one deck per variant, opened at `start_at`, is how the Qt presenter switches)."""
    plan, _ = prepare(lecture, deck, quality)
    if variant is not None:
        plan = variant_plan(plan, variant)
    snapshots = _snapshots()
    snapshots.mkdir(parents=True, exist_ok=True)
    remove_orphans(snapshots)  # those of a `seqanim present` killed outright
    root = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-{deck}-", dir=snapshots))
    # A signal this process ignores stays ignored (`nohup seqanim present` keeps presenting after a hangup).
    stopping = [signum for signum in (signal.SIGTERM, signal.SIGHUP) if signal.getsignal(signum) is not signal.SIG_IGN]
    previous = {signum: signal.signal(signum, _raise_stopped) for signum in stopping}
    try:
        names = snapshot(plan, root)
        command = present_command(
            lecture, deck, quality, fullscreen=fullscreen, screen=screen, start_at=start_at, extra=extra,
            folder=root / "deck", names=names,
        )  # fmt: skip
        return _supervise(command)
    except _Stopped as stopped:
        return 128 + stopped.signum
    except KeyboardInterrupt:
        return 130
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        shutil.rmtree(root, ignore_errors=True)


class _Stopped(BaseException):
    """SIGTERM or SIGHUP arrived; unwinds like KeyboardInterrupt so the presenter and the snapshot go too."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_stopped(signum: int, frame: FrameType | None) -> None:
    raise _Stopped(signum)


_LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """In the forked child, before exec: the kernel sends it SIGTERM when seqanim dies, even by SIGKILL."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # seqanim died between fork and prctl
        os._exit(1)


def _supervise(command: list[str]) -> int:
    """Run the presenter; whatever stops this process (Ctrl-C, SIGTERM, SIGHUP) stops it first."""
    parent = os.getpid()
    # preexec_fn: only prctl and getppid run between fork and exec, and seqanim starts no threads here.
    child = subprocess.Popen(command, cwd=current().root, preexec_fn=lambda: _die_with_parent(parent))  # noqa: PLW1509
    try:
        return child.wait()
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
