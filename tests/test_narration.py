"""The narration of the whole lecture is written for a listener: every slide of every scene speaks in beats
tied to its animations, and no beat carries notation, digits or a cue to the room (those stay in the notes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from seqanim.author import spoken
from seqanim.lecture import registry


@pytest.mark.parametrize("scene", sorted(registry.scenes()))
def test_every_slide_speaks_in_beats_a_listener_can_follow(
    scene: str, scene_report: Callable[[str], dict[str, Any]]
) -> None:
    report = scene_report(scene)
    assert len(report["beats"]) == report["slides"]
    for number, (beats, narration) in enumerate(zip(report["beats"], report["narrations"]), start=1):
        assert beats, f"{scene} slide {number} has no beat"
        assert narration == " ".join(beat["said"] for beat in beats)
        assert any(beat["end"] > beat["start"] for beat in beats), f"{scene} slide {number}: no beat animates"
        for beat in beats:
            assert spoken.unheard(beat["said"]) == [], (scene, number, beat["said"])
