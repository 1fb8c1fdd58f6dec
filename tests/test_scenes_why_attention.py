"""The eight seed-003 scenes: clean layout, 854x480, the expected slides, and notes quoting the data."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import CHECK, frame_settings

SLIDES = {
    "QueryKeyValue": 3,
    "ScaledScores": 4,
    "SoftmaxNormalization": 4,
    "WeightedRetrieval": 3,
    "QueryAndTemperature": 7,
    "CausalMask": 4,
    "PaddingMask": 3,
    "WhatAttentionExplains": 5,
}


def row(values) -> str:  # type: ignore[no-untyped-def]
    return "[" + ", ".join(f"{float(v):.4f}" for v in values) + "]"


def short(values) -> str:  # type: ignore[no-untyped-def]
    return "[" + ", ".join(f"{float(v):g}" for v in values) + "]"


def expected_numbers(art) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """One formatted data value per slide, in slide order (built from the artifact, not typed)."""
    temps, tw = art["temperatures"], art["temperature_weights"]
    order = [int(i) for i in np.argsort(temps) if not np.isclose(temps[i], 1.0)] + [
        int(np.flatnonzero(np.isclose(temps, 1.0))[0])
    ]
    return {
        "QueryKeyValue": [
            ", ".join(f"k_{label} = {short(key)}" for label, key in zip(art["labels"], art["K"])),
            ", ".join(
                f"{label}: k = {short(key)} -> v = {short(value)}"
                for label, key, value in zip(art["labels"], art["K"], art["V"])
            ),
            f"{art['labels'][0]}: {art['raw_scores'][0, 0]:g}",
        ],
        "ScaledScores": [
            f"{np.sqrt(int(art['d_k'])):.4f}",
            f"{art['scores'][0, 0]:.4f}",
            f"{art['scores'][0, 2]:.4f}",
            row(art["scores"][0]),
        ],
        "SoftmaxNormalization": [
            row(art["scores"][0]),
            row(art["shifted"][0]),
            f"{art['exp_sum'][0]:.4f}",
            row(art["weights"][0]),
        ],
        "WeightedRetrieval": [row(art["weights"][0]), row(art["contributions"][0]), row(art["context"][0])],
        "QueryAndTemperature": [
            row(art["query_weights"][0]),
            row(art["query_weights"][1]),
            row(art["query_weights"][2]),
            row(tw[order[-1]]),
        ]
        + [row(tw[i]) for i in order],
        "CausalMask": [
            row(art["self_scores"][0]),
            row(art["causal_scores"][0]),
            "; ".join(row(r) for r in art["causal_weights"]),
            row(art["softmax_then_mask_sums"]),
        ],
        "PaddingMask": [
            "; ".join(str(int(r.sum())) for r in art["padding_allowed"]),
            row(art["padding_weights"][1]),
            str(art["all_masked_error"]),
        ],
        "WhatAttentionExplains": [
            row(art["context"][0]),
            row(art["changed_context"][0]),
            row(art["removed_context"][0]),
            f"{art.metrics['sdpa_max_abs_diff']:.2e}",
            row(art["weights"][0]),  # the closing claim comes last, after the implementation check
        ],
    }


@pytest.mark.parametrize("scene", list(SLIDES))
def test_scene_report(scene: str, scene_report, artifact) -> None:  # type: ignore[no-untyped-def]
    report = scene_report(scene)
    assert report["layout_violations"] == []
    frame = frame_settings(CHECK)
    assert report["resolution"] == [frame["pixel_width"], frame["pixel_height"]]
    assert report["slides"] == SLIDES[scene]
    notes = report["notes"]
    assert len(notes) == SLIDES[scene]
    numbers = expected_numbers(artifact("qkv_walkthrough"))[scene]
    assert len(numbers) == SLIDES[scene]
    for index, (note, number) in enumerate(zip(notes, numbers)):
        assert number in note, f"{scene} slide {index + 1}: {number!r} not in {note!r}"


def test_checkpoints_in_notes(scene_report, artifact) -> None:  # type: ignore[no-untyped-def]
    art = artifact("qkv_walkthrough")
    checkpoints = {
        "ScaledScores": f"{art['scores'][0, 0]:.4f}",
        "SoftmaxNormalization": f"{art['weights'][0, 0]:.4f}, {art['weights'][0, 1]:.4f}",
        "WeightedRetrieval": f"{art['context'][0, 0]:.4f}, {art['context'][0, 1]:.4f}",
        "CausalMask": short(art["causal_weights"][0]),
    }
    for scene, text in checkpoints.items():
        assert any("Checkpoint" in note and text in note for note in scene_report(scene)["notes"]), (scene, text)
    practice = " ".join(note for scene in SLIDES for note in scene_report(scene)["notes"])
    for marker in ("Practice 1", "Practice 2", "Practice 3", "Practice 4", "Practice 5"):
        assert marker in practice


def test_examples_in_notes_come_from_data(scene_report, artifact) -> None:  # type: ignore[no-untyped-def]
    """The negative-score query and the lowest-scoring key are picked from the data, not named by hand."""
    art = artifact("qkv_walkthrough")
    negative = next(i for i in range(len(art["queries"])) if art["query_scores"][i].min() < 0)
    assert (
        f"with q = {short(art['queries'][negative])} they are {row(art['query_scores'][negative])}"
        in scene_report("ScaledScores")["notes"][3]
    )
    lowest = int(np.argmin(art["scores"][0]))
    assert (
        f"{art['labels'][lowest]} still has positive weight {art['weights'][0, lowest]:.4f}"
        in scene_report("SoftmaxNormalization")["notes"][3]
    )
