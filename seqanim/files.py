"""Writing outputs so that nothing already built is lost: temporary file, fsync, rename. And content hashes."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from seqanim.errors import DiskFull
from seqanim.workspace import current

_UMASK = os.umask(0)
os.umask(_UMASK)


def publish_mode(path: Path | str) -> None:
    """Temporary files are created 0600; a published output must be readable by a web server or a colleague."""
    os.chmod(path, 0o666 & ~_UMASK)


# A full disk, a full quota, or a file over the size limit (`ulimit -f`; Python ignores SIGXFSZ, so the
# write fails with EFBIG instead of the process dying).
FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def disk_full(error: OSError, path: Path | str) -> DiskFull:
    """The one-line error for a write to `path` that failed with one of FULL."""
    label = current().label(Path(path))
    if error.errno == errno.EFBIG:
        return DiskFull(f"{label}: file size limit reached while writing it (ulimit -f); raise it and build again")
    try:
        usage = shutil.disk_usage(next(folder for folder in (Path(path), *Path(path).parents) if folder.is_dir()))
        free = f"{_size(usage.free)} free of {_size(usage.total)}"
    except OSError:
        free = "free space unknown"
    return DiskFull(f"no space left on the disk holding {label} ({free}); free some space and build again")


def tool_wrote_to_a_full_disk(stderr: str, path: Path | str) -> None:
    """Raise the one-line full-disk error when a tool (ffmpeg) failed writing `path` for lack of space: its own
    last line says only "Conversion failed!"."""
    for message, code in (("No space left on device", errno.ENOSPC), ("Disk quota exceeded", errno.EDQUOT)):
        if message in stderr:
            raise disk_full(OSError(code, message), path)
    if "File too large" in stderr:
        raise disk_full(OSError(errno.EFBIG, "File too large"), path)


def _size(count: int) -> str:
    return f"{count / 1024**2:.0f} MB" if count >= 10 * 1024**2 else f"{count / 1024:.0f} KB"


@contextmanager
def naming_a_full_disk(path: Path | str) -> Iterator[None]:
    """Turn a write that failed for lack of space into one line naming `path` (other errors pass)."""
    try:
        yield
    except OSError as error:
        if error.errno in FULL:
            raise disk_full(error, path) from None
        raise


@contextmanager
def atomic_output(path: Path, suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary path beside `path`, renamed over `path` on success: readers see old or new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with naming_a_full_disk(path):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
        os.close(fd)
        try:
            yield Path(tmp)
            publish_mode(tmp)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write `payload` to a temporary file, fsync it, then rename it over `path`."""
    with atomic_output(path) as tmp, open(tmp, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode())


def digest(value: Any) -> str:
    """A stable content hash of any JSON-able value."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def link_or_copy(source: Path, target: Path) -> None:
    """The same bytes under a second name: outputs are only ever replaced by rename, never edited, so a
    hard link is safe (a copy where links are not possible)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def replace_dir(staged: Path, final: Path) -> None:
    """Swap a folder in with two renames; the old one is removed only after the new one is in place."""
    final.parent.mkdir(parents=True, exist_ok=True)
    trash = final.with_name(f".{final.name}.old-{os.getpid()}")
    if final.exists():
        os.replace(final, trash)
    os.replace(staged, final)
    shutil.rmtree(trash, ignore_errors=True)


def remove_orphans(folder: Path) -> None:
    """Entries of `folder` named `PID` or `PID-...` whose process is gone: a SIGKILLed process runs no cleanup."""
    for entry in folder.iterdir() if folder.exists() else []:
        owner = entry.name.split("-", 1)[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            shutil.rmtree(entry, ignore_errors=True)
