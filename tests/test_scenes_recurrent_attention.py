"""ReverseAlignment and SortAlignment: rendered, laid out cleanly, and narrated with numbers from data/."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import CHECK, frame_settings, lasts_its_words

SLIDES = {"ReverseAlignment": 7, "SortAlignment": 7}


@pytest.mark.parametrize("scene", sorted(SLIDES))
def test_scene_renders_cleanly(scene_report, scene: str) -> None:
    report = scene_report(scene)
    assert report["layout_violations"] == []
    frame = frame_settings(CHECK)
    assert report["resolution"] == [frame["pixel_width"], frame["pixel_height"]]
    assert report["slides"] == SLIDES[scene]
    assert len(report["notes"]) == SLIDES[scene]
    assert lasts_its_words(report), (report["duration"], report["beats"])


def _words(values: np.ndarray) -> str:
    return " ".join(str(int(v)) for v in values)


def _on_mirror(attention: np.ndarray) -> str:
    """The note's account of where the peak is on the mirror position L-1-t, computed here from the attention."""
    length = len(attention)
    steps = [t for t in range(length) if attention[t].argmax() == length - 1 - t]
    if len(steps) == 1:
        return f"the peak is on the mirror at step {steps[0]} "
    return f"the peak is on the mirror at steps {steps[0]}" if steps else "the peak is on the mirror at no step"


def test_reverse_notes_quote_the_data(scene_report, artifact) -> None:
    notes = scene_report("ReverseAlignment")["notes"]
    run = artifact("seq2seq_reverse")
    attention, metrics = run["attention"], run.metrics
    # The recipe: the notebook's Adam steps, then `settle` more with the rate falling to zero (0: the notebook's).
    recipe = [f"{run.params['iters']} Adam steps and then {run.params['settle']} more"] if run.params["settle"] else []
    expected = [
        [_words(run["source"]), _words(run["target"]), *recipe],
        *[
            [f"{attention[t].max():.2f} on position {int(attention[t].argmax())}", f"{run['energies'][t].max():.1f}"]
            for t in range(3)
        ],
        [
            f"step {t} -> position {int(attention[t].argmax())} ({attention[t].max():.2f})"
            for t in range(3, len(attention))
        ],
        [
            f"{metrics['example_mirror_mass']:.1%}",
            f"{metrics['held_out_mirror_mass']:.1%}",
            f"{metrics['example_shifted_mass']:.1%}",
            f"{metrics['held_out_shifted_mass']:.1%}",
            f"{metrics['held_out_argmax_on_shifted']:.1%}",
            _on_mirror(attention),
        ],
        [f"{metrics['token_accuracy']:.1%}", f"{metrics['greedy_token_accuracy']:.1%}"],
    ]
    assert len(expected) == len(notes)
    for note, quotes in zip(notes, expected):
        for quote in quotes:
            assert quote in note, f"{quote!r} missing from note {note[:80]!r}"


def test_sort_notes_quote_the_data(scene_report, artifact) -> None:
    notes = scene_report("SortAlignment")["notes"]
    run = artifact("seq2seq_sort")
    reverse = artifact("seq2seq_reverse")
    attention, metrics, source = run["attention"], run.metrics, run["source"]
    position = np.argsort(source)
    expected = [
        [_words(source), _words(np.sort(source))],
        *[[f"{attention[t, position[t]]:.2f} of the weight", f"position {position[t]}"] for t in range(2)],
        [
            f"step {t} -> position {position[t]} (value {np.sort(source)[t]}, weight {attention[t, position[t]]:.2f})"
            for t in range(2, len(source))
        ],
        [f"{reverse.metrics['held_out_argmax_on_shifted']:.1%}", f"{metrics['held_out_argmax_on_target']:.2%}"],
        [
            f"{len(run['more_sources'])} held-out inputs",
            *[
                f"input {_words(more)}: step 0 points to position {int(att[0].argmax())}"
                for more, att in zip(run["more_sources"], run["more_attention"])
            ],
        ],
        [
            f"{metrics['token_accuracy']:.1%}",
            f"{metrics['held_out_target_mass']:.1%}",
            f"{metrics['held_out_neighbour_mass']:.1%}",
        ],
    ]
    assert len(expected) == len(notes)
    for note, quotes in zip(notes, expected):
        for quote in quotes:
            assert quote in note, f"{quote!r} missing from note {note[:80]!r}"


def test_sort_scene_shows_other_inputs_with_other_permutations(artifact) -> None:
    """The scene's "different input, different permutation" slide needs distinct held-out permutations."""
    run = artifact("seq2seq_sort")
    pointers = {tuple(np.argmax(a, axis=1)) for a in run["more_attention"]}
    assert len(pointers) == len(run["more_attention"])
