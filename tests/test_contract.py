"""The data contract: what precompute writes is what scenes read, and every broken file is named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from seqanim.errors import DataError
from seqanim.lecture import contract
from seqanim.lecture.config import digest

PARAMS = {"seed": 3, "T": 40}


def saved(directory: Path) -> Path:
    arrays = {
        "norms": np.linspace(0, 1, 12).reshape(3, 4),
        "kinds": np.array(["RNN", "LSTM"]),
        "target": np.float64(1.25),
    }
    return contract.save("demo", arrays, {"final_mse": np.float32(0.5)}, PARAMS, directory=directory)


def test_round_trip_records_everything(tmp_path: Path) -> None:
    saved(tmp_path)
    sidecar = json.loads((tmp_path / "demo.json").read_text())
    assert sidecar["params"] == PARAMS and sidecar["params_hash"] == digest(PARAMS) and sidecar["seed"] == 3
    assert sidecar["arrays"]["norms"] == {"shape": [3, 4], "dtype": "float64"}
    assert sidecar["arrays"]["kinds"]["dtype"] == "<U4"
    assert {"python", "numpy", "torch"} <= set(sidecar["versions"])
    artifact = contract.load("demo", params=PARAMS, directory=tmp_path)
    assert artifact.metrics["final_mse"] == 0.5
    np.testing.assert_array_equal(artifact["norms"], np.linspace(0, 1, 12).reshape(3, 4))
    assert list(artifact["kinds"]) == ["RNN", "LSTM"]
    assert not list(tmp_path.glob(".*tmp")), "no temporary files are left behind"


def test_object_arrays_are_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="dtype object"):
        contract.save("demo", {"mixed": np.array([1, "a", None], dtype=object)}, {}, PARAMS, directory=tmp_path)
    assert not (tmp_path / "demo.npz").exists()


def test_missing_files_name_the_command(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"data/demo.json is missing; run `seqanim precompute demo`"):
        contract.load("demo", directory=tmp_path)
    saved(tmp_path)
    (tmp_path / "demo.npz").unlink()
    with pytest.raises(DataError, match=r"data/demo.npz is missing"):
        contract.load("demo", directory=tmp_path)


@pytest.mark.parametrize("cut", [0, 10, 200, -30])
def test_truncated_npz(tmp_path: Path, cut: int) -> None:
    path = saved(tmp_path)
    payload = path.read_bytes()
    path.write_bytes(payload[:cut] if cut >= 0 else payload[:cut])
    with pytest.raises(DataError, match=r"data/demo.npz is corrupt or truncated"):
        contract.load("demo", directory=tmp_path)


def test_corrupt_sidecar_and_mismatch(tmp_path: Path) -> None:
    saved(tmp_path)
    (tmp_path / "demo.json").write_text("{not json")
    with pytest.raises(DataError, match="demo.json is corrupt"):
        contract.load("demo", directory=tmp_path)
    saved(tmp_path)
    sidecar = json.loads((tmp_path / "demo.json").read_text())
    sidecar["arrays"]["norms"]["shape"] = [4, 3]
    (tmp_path / "demo.json").write_text(json.dumps(sidecar))
    with pytest.raises(DataError, match="array 'norms' has shape"):
        contract.load("demo", directory=tmp_path)


def test_stale_parameters_are_named(tmp_path: Path) -> None:
    saved(tmp_path)
    with pytest.raises(DataError, match=r"made from other parameters \(demo.T: data has 40, lecture.toml has 41\)"):
        contract.load("demo", params={"seed": 3, "T": 41}, directory=tmp_path)


def test_unknown_array_names_the_fix(tmp_path: Path) -> None:
    saved(tmp_path)
    artifact = contract.load("demo", directory=tmp_path)
    with pytest.raises(DataError, match="has no array 'gates'"):
        artifact["gates"]
