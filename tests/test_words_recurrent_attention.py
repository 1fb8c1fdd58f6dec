"""The words of recurrent attention, computed from data/ without rendering: every beat of the narration is fit
to be heard (`unheard` finds nothing), says the data's key numbers in spoken form, and the notes say what the
slides need them to (the reversal's training recipe, the example's mistakes)."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from scenes.recurrent_attention import PART
from scenes.recurrent_attention import reverse_alignment as reverse_words
from scenes.recurrent_attention import sort_alignment as sort_words
from seqanim.author.spoken import bookmarks, count, integer, percent, sentences_of, unheard
from seqanim.lecture.contract import Artifact

PART_FOLDER = Path(__file__).resolve().parents[1] / "scenes" / "recurrent_attention"


def reverse_beats(run: Artifact) -> list[list[str]]:
    """Every slide's beats of ReverseAlignment, in the order the slides play."""
    slides = [
        reverse_words.stage_said(run),
        *[reverse_words.step_said(run, t) for t in range(min(reverse_words.DETAILED, len(run["source"])))],
        reverse_words.rest_said(run),
        reverse_words.mirror_said(run),
        reverse_words.explain_said(run),
    ]
    return [sentences_of(said) for said in slides]


def sort_beats(run: Artifact, reverse: Artifact) -> list[list[str]]:
    """Every slide's beats of SortAlignment, in the order the slides play."""
    slides = [
        sort_words.stage_said(run),
        *[sort_words.step_said(run, t) for t in range(min(sort_words.DETAILED, len(run["source"])))],
        sort_words.rest_said(run),
        sort_words.contrast_said(run, reverse),
        sort_words.other_inputs_said(run),
        sort_words.summary_said(run, reverse),
    ]
    return [sentences_of(said) for said in slides]


def _assert_heard(slides: list[list[str]]) -> None:
    for number, beats in enumerate(slides, start=1):
        assert 1 <= len(beats) <= 4, f"slide {number} has {len(beats)} beats"
        for beat in beats:
            assert beat.strip(), f"slide {number}: an empty beat"
            assert unheard(beat) == [], f"slide {number}: {unheard(beat)} in {beat!r}"


def _with(run: Artifact, **arrays: np.ndarray) -> Artifact:
    return dataclasses.replace(run, arrays={**run.arrays, **arrays})


# --- the part's layout -------------------------------------------------------------------------------


def test_the_part_lists_one_file_per_scene_without_importing_them() -> None:
    assert PART.title == "Recurrent attention" and PART.order == 2
    assert PART.scenes == ("reverse_alignment", "sort_alignment")
    init = ast.parse((PART_FOLDER / "__init__.py").read_text())
    imported = [
        (node.module, [a.name for a in node.names]) for node in ast.walk(init) if isinstance(node, ast.ImportFrom)
    ]
    assert imported == [("seqanim", ["Part"])]  # the declaration only: the scenes are not imported
    for stem in PART.scenes:
        tree = ast.parse((PART_FOLDER / f"{stem}.py").read_text())
        scenes = [
            node.name
            for node in tree.body
            if isinstance(node, ast.ClassDef) and any(getattr(item, "name", "") == "construct" for item in node.body)
        ]
        assert len(scenes) == 1, f"{stem}.py defines {scenes}"
        assert "".join(f"_{c.lower()}" if c.isupper() else c for c in scenes[0]).lstrip("_") == stem
        modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "scenes.recurrent_attention" not in modules  # the scenes import shared helpers, never the package


# --- ReverseAlignment --------------------------------------------------------------------------------


def test_reverse_narration_is_heard_and_says_the_data(artifact) -> None:
    run = artifact("seq2seq_reverse")
    slides = reverse_beats(run)
    _assert_heard(slides)
    source, prediction, attention, metrics = run["source"], run["prediction"], run["attention"], run.metrics
    assert count(len(source), "symbol") in reverse_words.stage_said(run)["encoder"]
    for step in range(reverse_words.DETAILED):
        said = reverse_words.step_said(run, step)
        assert slides[1 + step] == sentences_of(said)
        weights, landing = said["weights"], said["landing"]
        where = int(attention[step].argmax())
        assert f"symbol {integer(int(source[where]))}" in weights
        if attention[step].max() < 0.995:  # a share that rounds to all is said as "almost all"
            assert percent(float(attention[step].max()), 0) in weights.lower()
        assert integer(int(prediction[step])) in landing
    rest = " ".join(slides[1 + reverse_words.DETAILED])
    assert count(len(source) - reverse_words.DETAILED, "step") in rest
    mirror = " ".join(slides[2 + reverse_words.DETAILED])
    assert percent(metrics["example_mirror_mass"], 0) in mirror
    assert percent(metrics["example_shifted_mass"], 0) in mirror
    explain = " ".join(slides[3 + reverse_words.DETAILED])
    assert percent(metrics["token_accuracy"], 0) in explain
    assert percent(metrics["greedy_token_accuracy"], 0) in explain


def test_reverse_notes_say_how_the_recipe_differs_from_the_notebook(artifact) -> None:
    run = artifact("seq2seq_reverse")
    iters, settle = run.params["iters"], run.params["settle"]
    notes = reverse_words.stage_notes(run)
    if settle > 0:
        assert f"the notebook's {iters} Adam steps and then {settle} more" in notes
        assert "falling linearly to zero" in notes and "CPU kernels" in notes
    notebook = dataclasses.replace(run, params={**run.params, "settle": 0})
    assert "CPU kernels" not in reverse_words.stage_notes(notebook)


def test_reverse_says_where_the_example_goes_wrong(artifact) -> None:
    run = artifact("seq2seq_reverse")
    target, step = run["target"], len(run["target"]) - 2
    wrong = target.copy()
    wrong[step] = next(s for s in run["source"] if s != target[step])
    teacher_forced = _with(run, prediction=wrong)
    spoken = f"step {integer(step)} it writes {integer(int(wrong[step]))} instead of {integer(int(target[step]))}"
    assert spoken in reverse_words.rest_said(teacher_forced)["result"]
    assert f"step {step} emits {wrong[step]} where the target is {target[step]}" in reverse_words.rest_notes(
        teacher_forced
    )
    greedy = _with(run, greedy_prediction=wrong)
    assert spoken in " ".join(sentences_of(reverse_words.explain_said(greedy)))
    assert f"step {step} emits {wrong[step]}" in reverse_words.explain_notes(greedy)
    _assert_heard(
        [sentences_of(reverse_words.rest_said(teacher_forced)), sentences_of(reverse_words.explain_said(greedy))]
    )
    # As stored in data/: a mistake is named exactly when the example has one.
    mistaken = np.any(run["prediction"] != target) or np.any(run["greedy_prediction"] != target)
    assert ("instead of" in " ".join(" ".join(beats) for beats in reverse_beats(run))) == bool(mistaken)


# --- SortAlignment -----------------------------------------------------------------------------------


def test_sort_narration_is_heard_and_says_the_data(artifact) -> None:
    run, reverse = artifact("seq2seq_sort"), artifact("seq2seq_reverse")
    slides = sort_beats(run, reverse)
    _assert_heard(slides)
    source, attention, metrics = run["source"], run["attention"], run.metrics
    position, ordered = np.argsort(source), np.sort(source)
    assert count(len(source), "value") in sort_words.stage_said(run)["encoder"]
    for step in range(sort_words.DETAILED):
        said = sort_words.step_said(run, step)
        assert slides[1 + step] == sentences_of(said)
        scores, weights, landing = said["scores"], said["weights"], said["landing"]
        assert integer(int(ordered[step])) in scores
        assert percent(float(attention[step, position[step]]), 0) in weights.lower()
        assert integer(int(run["prediction"][step])) in landing
    rest = " ".join(slides[1 + sort_words.DETAILED])
    if np.array_equal(run["prediction"], ordered):
        assert count(len(source), "value") in rest
    contrast = " ".join(slides[2 + sort_words.DETAILED])
    assert percent(reverse.metrics["held_out_argmax_on_shifted"], 0) in contrast
    others = slides[3 + sort_words.DETAILED]
    assert len(others) == len(run["more_sources"])
    assert integer(len(run["more_sources"])) in others[-1].lower()
    summary = " ".join(slides[4 + sort_words.DETAILED])
    assert percent(metrics["held_out_argmax_on_target"], 0) in summary
    assert percent(metrics["held_out_target_mass"], 0) in summary


def test_sort_says_where_an_input_goes_wrong(artifact) -> None:
    run = artifact("seq2seq_sort")
    ordered = np.sort(run["source"])
    wrong = ordered.copy()
    wrong[[0, 1]] = wrong[[1, 0]]
    said = sort_words.rest_said(_with(run, prediction=wrong))["result"]
    assert f"step {integer(0)} it writes {integer(int(ordered[1]))} instead of {integer(int(ordered[0]))}" in said
    more = run["more_predictions"].copy()
    more[0][[0, 1]] = more[0][[1, 0]]
    slipped = sort_words.other_inputs_said(_with(run, more_predictions=more))
    assert "slips" in slipped[0]
    _assert_heard([[said], slipped])


@pytest.mark.parametrize("scene", ["reverse_alignment", "sort_alignment"])
def test_every_slide_has_notes_and_words(scene: str) -> None:
    """Each `<slide>_said` has its `<slide>_notes` beside it in the scene's file."""
    module = reverse_words if scene == "reverse_alignment" else sort_words
    own = [name for name, value in vars(module).items() if getattr(value, "__module__", None) == module.__name__]
    said = {name.removesuffix("_said") for name in own if name.endswith("_said") and not name.startswith("_")}
    notes = {name.removesuffix("_notes") for name in own if name.endswith("_notes")}
    assert said == notes and len(said) >= 5


# --- words that hold for other parameters (the built artifacts, a parameter or metric replaced) --------------


def _trained(run: Artifact, **params: object) -> Artifact:
    """The run as if trained with `params` changed (the words read them from the artifact)."""
    return dataclasses.replace(run, params={**run.params, **params})


def test_the_encoders_are_said_to_read_as_they_were_trained(artifact: Callable[[str], Artifact]) -> None:
    """A sorter trained with a one-way encoder is not said to read both ways; a reverser trained with a
    bidirectional one is not said to read only left to right, and its 'why late' names the forward half (English
    and German)."""
    from scenes.recurrent_attention import de

    sort = artifact("seq2seq_sort")
    assert sort.params["bidirectional"]  # the notebook's sorter reads both ways
    assert "both ways" in sort_words.stage_said(sort)["decoder"]
    one_way = _trained(sort, bidirectional=False)
    decoder = bookmarks(sort_words.stage_said(one_way)["decoder"])[0]
    assert "both ways" not in decoder and "from left to right" in decoder
    assert "bidirectional" not in sort_words.stage_notes(one_way)
    german = de.SortAlignment.stage_said(one_way)["decoder"]
    assert "beide Richtungen" not in german and "von links nach rechts" in german

    reverse = artifact("seq2seq_reverse")
    assert not reverse.params["bidirectional"]  # the notebook's reverser reads left to right only
    assert reverse_words.explain_facts(reverse).looks_late  # the 'why late' below explains a late model
    both = _trained(reverse, bidirectional=True)
    encoder = reverse_words.stage_said(both)["encoder"]
    assert "both ways" in encoder and not encoder.endswith("from left to right.")
    assert "in beide Richtungen" in de.ReverseAlignment.stage_said(both)["encoder"]
    assert "forward half" in reverse_words.explain_said(both)["why"]
    assert "forward GRU" in reverse_words.explain_notes(both)
    assert "the encoder reads left to right:" not in reverse_words.explain_board(both).reason
    assert "Vorwärtshälfte" in de.ReverseAlignment.explain_said(both)["why"]
    _assert_heard([sentences_of(reverse_words.stage_said(both)), sentences_of(reverse_words.explain_said(both))])


def _measured(run: Artifact, **metrics: float) -> Artifact:
    """The run as if its held-out metrics had come out as `metrics`."""
    return dataclasses.replace(run, metrics={**run.metrics, **metrics})


def test_the_conclusions_follow_the_held_out_peaks(artifact: Callable[[str], Artifact]) -> None:
    """A reverser that looks at the mirror is quoted by its mirror peaks, not its few late ones; one whose peaks
    follow no position is not said to be decided by position nor to have learned an alignment; a sorter whose peaks
    are mostly off the right value does not 'align by content' (English and German)."""
    from scenes.recurrent_attention import de

    sort, reverse = artifact("seq2seq_sort"), artifact("seq2seq_reverse")
    mirror = _measured(reverse, held_out_argmax_on_mirror=0.93, held_out_argmax_on_shifted=0.04)
    decides = bookmarks(sort_words.contrast_said(sort, mirror)["decides"])[0]
    assert f"Position decides there, in {percent(0.93, 0)}" in decides
    assert percent(0.04, 0) not in decides
    assert "the mirror L-1-t" in sort_words.contrast_notes(sort, mirror)
    assert "Attention has learned an alignment." in bookmarks(reverse_words.explain_said(mirror)["fed"])[0]

    unsettled = _measured(reverse, held_out_argmax_on_mirror=0.2, held_out_argmax_on_shifted=0.3)
    contrast = sort_words.contrast_said(sort, unsettled)
    assert "Position decides" not in contrast["decides"] and "one staircase" not in contrast["staircase"]
    assert f"only {percent(0.3, 0)}" in contrast["decides"]
    assert "Dort entscheidet die Position" not in de.SortAlignment.contrast_said(sort, unsettled)["decides"]
    fed = bookmarks(reverse_words.explain_said(unsettled)["fed"])[0]
    assert "learned an alignment" not in fed and f"only {percent(0.3, 0)}" in fed
    assert "gelernt" not in de.ReverseAlignment.explain_said(unsettled)["fed"]
    assert "learned an alignment" not in reverse_words.explain_caption(unsettled)

    missing = _measured(sort, held_out_argmax_on_target=0.3)
    content = bookmarks(sort_words.summary_said(missing, reverse)["content"])[0]
    assert "Attention aligns by content" not in content and "only partly" in content
    assert "nur teilweise" in de.SortAlignment.summary_said(missing, reverse)["content"]
    assert "content decides here" not in sort_words.contrast_said(missing, reverse)["decides"]
    _assert_heard([sentences_of(sort_words.contrast_said(missing, unsettled)), [fed, content]])
