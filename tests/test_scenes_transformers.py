"""The five Transformer scenes of seed 000: rendered at 854x480 with a clean layout, the planned slides, and
speaker notes that quote numbers formatted from data/ (expected strings are built here from the artifacts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from seqanim.lecture.contract import Artifact
from tests.conftest import CHECK, frame_settings, lasts_its_words

SLIDES = {
    "SelfAttentionLookup": 5,
    "AttentionPooling": 4,
    "SinusoidalPositions": 5,
    "RopeRotation": 6,
    "ScaledDotProduct": 3,
}


def expected_notes(scene: str, artifact: Callable[[str], Artifact]) -> list[str]:
    """One data-formatted number per slide that its note must quote."""
    if scene == "SelfAttentionLookup":
        run = artifact("lookup")
        attention, match = run["attention"], int(run["match_index"])
        return [
            f"{run.metrics['accuracy']:.1%}",
            f"{np.mean(np.diagonal(attention)[:-1]):.3f}",
            f"{attention[-1, match]:.3f}",
            f"{1 - attention[-1, match]:.4f}",
            f"{run.metrics['query_match_mass']:.3f}",
        ]
    if scene == "AttentionPooling":
        run = artifact("groupby")
        return [
            f"k{int(run['keys'][0])} group's values average {run['target'][0]:.4f}",
            f"{run.metrics['example_within_group_mass']:.1%}",
            f"{run.metrics['within_group_mass']:.1%}",
            f"{run.metrics['mse']:.2e}",
        ]
    if scene == "SinusoidalPositions":
        run = artifact("positional")
        gram = run["pe_gram"]
        offset = max(1, gram.shape[0] // 6)
        return [
            f"{run['wavelengths'][0]:.2f}",
            f"{run['pe'][-1, -2]:.4f}",
            f"{np.diagonal(gram).mean():.1f}",
            f"{gram[0, offset]:.4f}",
            f"{gram[0].min():.2f}",
        ]
    if scene == "RopeRotation":
        run = artifact("rope")
        scores, offset, shift = run["scores"], run.params["offset"], run.params["shift"]
        turns = run["pair_angles"][0, -1] / (2 * np.pi)
        return [
            f"{run['freqs'][1]:.4f}",
            f"{turns:.2f} turns",
            f"{scores[0, offset]:.4f}",
            f"{scores[shift, shift + offset]:.4f}",
            f"{scores[-1 - offset, -1]:.4f}",
            f"{scores[shift, shift]:.4f}",
        ]
    if scene == "ScaledDotProduct":
        run = artifact("scaling")
        return [
            f"{run['logit_std'][-1]:.2f}",
            f"{run['entropy_unscaled'][-1]:.3f}",
            f"{run['entropy_scaled'].min():.3f}",
        ]
    raise KeyError(scene)


@pytest.mark.parametrize("scene", list(SLIDES))
def test_scene_renders_cleanly(scene: str, scene_report: Callable[[str], dict[str, Any]]) -> None:
    report = scene_report(scene)
    assert report["layout_violations"] == []
    frame = frame_settings(CHECK)
    assert report["resolution"] == [frame["pixel_width"], frame["pixel_height"]]
    assert report["slides"] == SLIDES[scene]
    assert len(report["notes"]) == SLIDES[scene]
    assert lasts_its_words(report), (report["duration"], report["beats"])


@pytest.mark.parametrize("scene", list(SLIDES))
def test_every_note_quotes_data(
    scene: str, scene_report: Callable[[str], dict[str, Any]], artifact: Callable[[str], Artifact]
) -> None:
    notes = scene_report(scene)["notes"]
    for index, (note, number) in enumerate(zip(notes, expected_notes(scene, artifact), strict=True)):
        assert number in note, f"{scene} slide {index + 1}: expected {number!r} in {note!r}"
