"""The check quality against a real render: what a check reports of a scene (its slides, words, beats and
layout, and how long its video lasts) is what rendering it reports, and a check makes nothing to narrate or
export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seqanim.engine import graph
from seqanim.lecture.config import load
from seqanim.workspace import current
from tests.conftest import CHECK, QUALITY, SAMPLE, SAMPLE_SCENES
from tests.tree import Tree, make_tree, one_error_line

SHARED = ("duration", "slides", "loops", "notes", "narrations", "beats", "alts", "screen_texts", "layout_violations")


@pytest.mark.parametrize("scene", SAMPLE_SCENES)
def test_a_check_reports_what_the_render_of_its_frames_does(lecture_built: Path, scene: str) -> None:
    checked = json.loads((current().renders(CHECK) / f"{scene}.report.json").read_text())
    rendered = json.loads((current().renders(QUALITY) / f"{scene}.report.json").read_text())
    assert checked["fps"] == rendered["fps"]
    assert {key: checked[key] for key in SHARED} == {key: rendered[key] for key in SHARED}
    assert not (current().renders(CHECK) / f"{scene}.mp4").exists()


def test_a_build_at_check_has_nothing_to_narrate_or_export(lecture_built: Path, tmp_path: Path) -> None:
    stages = graph.plan(load(), CHECK)
    assert {stage.kind for stage in stages.values()} == {"experiment", "scene"}
    tree: Tree = make_tree(tmp_path / "lecture")
    line = one_error_line(tree.run("slides", SAMPLE, "--quality", CHECK))
    assert "check draws no frames" in line and "preview or above" in line


# Values a lecturer may set that once broke a scene's layout, with what each one broke: those that cost the
# suite a few seconds. SortAlignment at 5 values, SelfAttentionLookup at 3 items, RopeRotation at 64 positions
# and the rest of the why-attention part at six memory items, fixed too, cost a minute more together
# (docs/measurements.md: checked by hand).
OTHER_VALUES = {
    # Six memory items, one key below 0 in each coordinate, and the query [3, 0] (the part's scenes read the same
    # items). Scores of 2.12 and a shifted row down to -2.12, on the weights' scale: bars off the frame, over the
    # heading; at five keys the step formulas on one line ran over the bars, at six the bars' numbers touched
    "SoftmaxNormalization": (
        (
            "qkv_walkthrough.query=[3, 0]",
            "qkv_walkthrough.keys=[[1, 0], [0, 1], [1, 1], [-1, 0.5], [0.5, -1], [2, 1]]",
            "qkv_walkthrough.values=[[10, 0], [0, 10], [10, 10], [5, 5], [2, 8], [4, 6]]",
            'qkv_walkthrough.labels=["A", "B", "C", "D", "E", "F"]',
            "qkv_walkthrough.is_real_key=[true, true, false, true, true, true]",
        ),
        "[2.1213, 0.0000, 2.1213, -2.1213, 1.0607, 4.2426]",
    ),
    # three tables of five columns that must hold 'NaN': off both edges of the frame (41 problems; at six, 45)
    "PaddingMask": ((), "is_real_key = [True, True, False, True, True, True]"),
    # the right weights beside the wrong ones, five columns each, and their sums: over each other (41 problems)
    "CausalMask": ((), "the six vectors [1, 0], [0, 1], [1, 1], [-1, 0.5], [0.5, -1], [2, 1]"),
    # two dimensions only: the curves lie close, and their labels, both placed between them, overlapped;
    # 64 keys: bars of a fixed width, the charts 17 units wide
    "ScaledDotProduct": (("scaling.dims=[2, 4]", "scaling.n_keys=64"), "at d = 4. One sample of 64 keys"),
    # 22 decades: a tick label per decade overlapped, the end labels of 0.95, 1.00 and 1.05 (within 1.3 decades)
    # overlapped each other, and those at the top ran into the eigenvalues' title
    "HiddenStateDynamics": (
        ("linear_rnn.rhos=[0.5, 0.8, 0.9, 0.95, 1.0, 1.05, 1.15]",),
        "rho in 0.50, 0.80, 0.90, 0.95, 1.00, 1.05, 1.15",
    ),
    # 16 positions: cells of a fixed size, a Gram matrix 1.1 units square whose rotated title met the other (at 120,
    # 8.4 units square, off the frame)
    "SinusoidalPositions": (("positional.length=16",), "16 positions x 64 dimensions"),
    # a key below 0 (the items above): the key plane began at -0.5, a key's dot and label lay off its left edge; the
    # long query's label, above its middle, lay over key A's; five scores in one column ran into the caption; F one
    # unit right of C: no corner of C's dot held its label clear of F's
    "QueryKeyValue": ((), "k_D = [-1, 0.5], k_E = [0.5, -1], k_F = [2, 1]"),
    # 32 tokens: one row of them scaled down to fit, their text 11 px tall (and at 12 a row, a third row off the
    # frame); a numbered tick each, run together; a label per row and column of the matrix, on each other. 48
    # tokens (three rows of 16): the third row and its targets off the frame (33 problems)
    "AttentionPooling": (("groupby.length=48",), "48 tokens with a key and a value"),
    # 8 items (as many as keys): numbers shrunk to 11 px, "query" over its neighbour, the bars off the frame
    "SelfAttentionLookup": (("lookup.items=8",), "Here 8 item tokens"),
}


def test_scenes_keep_their_layout_at_other_values(lecture_built: Path, tmp_path: Path) -> None:
    """Each scene checked at values of its parameters other than the lecture's: no text overlaps, nothing
    leaves the frame (each report says it used the values). Their new words are timed, not said: a check
    makes no audio."""
    tree = make_tree(tmp_path / "lecture")
    clips = sorted((tree.root / ".seqanim" / "voice").glob("*.wav"))
    settings = [option for values, _ in OTHER_VALUES.values() for value in values for option in ("--set", value)]
    result = tree.run("render", *OTHER_VALUES, "-j", "2", *settings)
    assert result.returncode == 0, result.stderr
    assert clips and sorted((tree.root / ".seqanim" / "voice").glob("*.wav")) == clips
    for scene, (_, quoted) in OTHER_VALUES.items():
        report = json.loads((tree.root / "renders" / CHECK / f"{scene}.report.json").read_text())
        assert quoted in " ".join(report["notes"]), scene
        assert report["layout_violations"] == [], scene
    assert "warning:" not in result.stderr
