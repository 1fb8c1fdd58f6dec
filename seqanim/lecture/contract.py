"""The data contract between precompute and scenes: `data/<name>.npz` plus `data/<name>.json`.

The sidecar records the name, parameters and their hash, metrics, every array's shape and dtype, the
seed and library versions. `load` checks all of it, so a scene never draws from a missing, corrupt or
stale file: it gets one line that names the file and the command that fixes it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from seqanim.errors import DataError
from seqanim.files import atomic_output, digest
from seqanim.workspace import current

FORMAT = 1


def data_dir() -> Path:
    return current().data


@dataclass(frozen=True)
class Artifact:
    """One experiment's arrays, metrics and the parameters that produced them."""

    name: str
    arrays: dict[str, np.ndarray]
    metrics: dict[str, Any]
    params: dict[str, Any]

    def __getitem__(self, key: str) -> np.ndarray:
        try:
            return self.arrays[key]
        except KeyError:
            raise DataError(
                f"data/{self.name}.npz has no array '{key}' (it has {', '.join(sorted(self.arrays))}); "
                f"run `seqanim precompute {self.name}`"
            ) from None


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for package in ("torch",):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    return versions


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def save(
    name: str, arrays: dict[str, Any], metrics: dict[str, Any], params: dict[str, Any], directory: Path | None = None
) -> Path:
    """Write `<name>.npz` then its sidecar, each atomically. The sidecar goes last: it marks the pair complete."""
    directory = directory or data_dir()
    arrays = {key: np.asarray(value) for key, value in arrays.items()}
    for key, value in arrays.items():
        if value.dtype == object:
            raise DataError(f"{name}: array '{key}' has dtype object; the contract allows no pickles")
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # uncompressed: deterministic bytes and fast loads
    npz_path = directory / f"{name}.npz"
    payload = buffer.getvalue()
    # The pair is complete only when the sidecar (renamed last) carries the npz's hash: a crash between the
    # two renames leaves an npz without its sidecar, which `load` refuses. Both are written in full before
    # either is renamed, so a write that fails (a full disk) leaves the previous pair as it was.
    sidecar = {
        "npz_sha256": hashlib.sha256(payload).hexdigest(),
        "format": FORMAT,
        "name": name,
        "params": _jsonable(params),
        "params_hash": digest(_jsonable(params)),
        "seed": params.get("seed"),
        "metrics": _jsonable(metrics),
        "arrays": {key: {"shape": list(value.shape), "dtype": str(value.dtype)} for key, value in arrays.items()},
        "versions": _versions(),
    }
    text = json.dumps(sidecar, indent=2, sort_keys=True) + "\n"
    with atomic_output(directory / f"{name}.json") as sidecar_tmp, atomic_output(npz_path) as npz_tmp:
        for tmp, content in ((npz_tmp, payload), (sidecar_tmp, text.encode())):
            with open(tmp, "wb") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
    return npz_path  # renamed: the npz (inner) first, then the sidecar


def read_sidecar(name: str, directory: Path | None = None) -> dict[str, Any]:
    directory = directory or data_dir()
    path = directory / f"{name}.json"
    fix = f"run `seqanim precompute {name}`"
    if not path.exists():
        raise DataError(f"data/{name}.json is missing; {fix}")
    try:
        sidecar = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise DataError(f"data/{name}.json is corrupt (not JSON); {fix}") from None
    if sidecar.get("format") != FORMAT or sidecar.get("name") != name:
        raise DataError(f"data/{name}.json is from another format or experiment; {fix}")
    return sidecar


def load(name: str, params: dict[str, Any] | None = None, directory: Path | None = None) -> Artifact:
    """Load and verify one artifact. With `params`, also check it was made from exactly those parameters."""
    directory = directory or data_dir()
    fix = f"run `seqanim precompute {name}`"
    sidecar = read_sidecar(name, directory)
    if params is not None and sidecar["params_hash"] != digest(_jsonable(params)):
        changed = sorted(k for k in set(params) | set(sidecar["params"]) if params.get(k) != sidecar["params"].get(k))
        detail = ", ".join(
            f"{name}.{k}: data has {sidecar['params'].get(k)!r}, lecture.toml has {params.get(k)!r}"
            for k in changed[:3]
        )
        raise DataError(f"data/{name}.npz was made from other parameters ({detail}); {fix}")
    npz_path = directory / f"{name}.npz"
    if not npz_path.exists():
        raise DataError(f"data/{name}.npz is missing; {fix}")
    payload = npz_path.read_bytes()
    if hashlib.sha256(payload).hexdigest() != sidecar.get("npz_sha256"):
        raise DataError(f"data/{name}.npz is corrupt or truncated, or does not belong to its sidecar; {fix}")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as error:
        raise DataError(f"data/{name}.npz is corrupt or truncated ({type(error).__name__}); {fix}") from None
    expected = sidecar["arrays"]
    if set(arrays) != set(expected):
        raise DataError(f"data/{name}.npz does not match its sidecar (arrays differ); {fix}")
    for key, spec in expected.items():
        if list(arrays[key].shape) != spec["shape"] or str(arrays[key].dtype) != spec["dtype"]:
            raise DataError(
                f"data/{name}.npz: array '{key}' has shape {arrays[key].shape}, sidecar says {spec['shape']}; {fix}"
            )
    return Artifact(name=name, arrays=arrays, metrics=sidecar["metrics"], params=sidecar["params"])
