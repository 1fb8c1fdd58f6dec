"""`make bench`: run the benchmarks one after the other and write what each printed into docs/measurements.md,
under the date and the machine they ran on.

Each bench prints its own figures, measured side by side within its run (these machines are shared and
noisy, so a ratio from one run means more than a time). This script runs them, shows their output as it
comes, and writes each bench's record into the section of docs/measurements.md between its two markers: the
date, the commit and the machine (processor, cores, memory, Python, torch), the bench's exit status and time,
and its last lines. A bench that did not run keeps its earlier record; the rest of the file, the figures of
earlier sessions with their context, is kept.

    .venv/bin/python bench/record.py [--only NAME ...] [--lines N]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASUREMENTS = ROOT / "docs" / "measurements.md"
START, END = "<!-- make bench: start -->", "<!-- make bench: end -->"

BENCHES = [  # as `make bench` has run them: quick ones first, the whole-lecture ones after
    ["lines.py"],
    ["precompute.py"],
    ["kernels.py"],
    ["reverse_seeds.py"],
    ["build.py"],
    ["faults.py", "--kills", "2"],
    ["variants.py"],
    ["publish.py", "--cut", "full"],
    ["caches.py"],
    ["variant.py"],
]


def machine() -> str:
    """One line: processor, cores, memory, Python and torch, as the figures depend on them."""
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor() or "unknown processor",
    )
    memory = next(
        (
            int(line.split()[1]) // 1024**2
            for line in Path("/proc/meminfo").read_text().splitlines()
            if "MemTotal" in line
        ),
        0,
    )
    torch = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
    ).stdout.strip()
    return f"{cpu}, {os.cpu_count()} cores, {memory} GB; Python {platform.python_version()}, torch {torch or '?'}"


def commit() -> str:
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True).stdout
    return head.stdout.strip() + (" with uncommitted changes" if dirty.strip() else "") if head.returncode == 0 else "?"


def run(bench: list[str]) -> tuple[int, float, list[str]]:
    """Run one bench, echoing its output; its exit status, seconds and printed lines."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / bench[0]), *bench[1:]],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
    )  # fmt: skip
    lines = []
    for line in process.stdout or []:
        print(line, end="", flush=True)
        lines.append(line.rstrip("\n"))
    return process.wait(), time.perf_counter() - started, lines


def entry(bench: list[str], status: int, seconds: float, lines: list[str], last: int) -> str:
    """One bench's record: when, where and how it ran, and its last lines."""
    today = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    verdict = "done" if status == 0 else f"**failed (exit {status})**"
    return "\n".join([
        f"### bench/{' '.join(bench)}",
        "",
        f"{today}, at {commit()}, on {machine()}: {verdict} in {seconds / 60:.1f} min.",
        "",
        "```",
        *lines[-last:],
        "```",
        "",
    ])  # fmt: skip


def write(entries: dict[str, str]) -> None:
    """Put `entries` (bench -> its record) into the section between the markers, beside the records of the
    benches that did not run this time; create the section first, under the title. Nothing else changes."""
    current = MEASUREMENTS.read_text()
    if START in current and END in current:
        before, rest = current.split(START, 1)
        inside, after = rest.split(END, 1)
    else:
        title, _, body = current.partition("\n\n")
        before, inside, after = f"{title}\n\n", "", f"\n\n{body}"
    kept = {block.split("\n", 1)[0]: "### " + block for block in inside.split("\n### ")[1:]}
    records = {**kept, **{f"bench/{name}": text for name, text in entries.items()}}
    order = [f"bench/{' '.join(bench)}" for bench in BENCHES]
    blocks = [records[name].rstrip("\n") + "\n" for name in order if name in records]  # one blank line between
    heading = "## The last `make bench`\n\nEach bench as `bench/record.py` last ran it (`make bench` runs them all).\n"
    text = "\n".join([START, heading, *blocks, END])
    temporary = MEASUREMENTS.with_name(f".{MEASUREMENTS.name}.tmp")
    temporary.write_text(before + text + after)
    os.replace(temporary, MEASUREMENTS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="Only these benches, e.g. kernels build.")
    parser.add_argument("--lines", type=int, default=25, help="The last lines of each bench's output kept.")
    args = parser.parse_args()
    chosen = [bench for bench in BENCHES if not args.only or bench[0].removesuffix(".py") in args.only]
    if not chosen:
        names = ", ".join(bench[0].removesuffix(".py") for bench in BENCHES)
        print(f"error: --only {' '.join(args.only)}: no such bench; known: {names}", file=sys.stderr)
        return 2
    statuses = []
    for bench in chosen:
        print(f"== bench/{' '.join(bench)}", flush=True)
        status, seconds, lines = run(bench)
        write({" ".join(bench): entry(bench, status, seconds, lines, args.lines)})  # a stopped run keeps what ran
        statuses.append(status)
    print(f"recorded in {MEASUREMENTS.relative_to(ROOT)}")
    return 0 if not any(statuses) else 1


if __name__ == "__main__":
    sys.exit(main())
