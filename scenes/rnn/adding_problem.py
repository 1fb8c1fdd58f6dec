"""AddingProblem (notebook cell rnn4): the adding problem on one example sequence. Two input channels, a stream
of values and a marker that is on at two steps; the target is the sum of the two marked values, read only after
the last step, and predicting the mean is the baseline to beat."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Circumscribe,
    Create,
    DoubleArrow,
    FadeIn,
    FadeOut,
    Indicate,
    TransformFromCopy,
    ValueTracker,
    VGroup,
    linear,
)

from seqanim import LectureSlide, mark, spoken, translated
from seqanim.kit import layout, theme
from seqanim.kit.formula import formula
from seqanim.kit.stream import Stream


def markers(marks: np.ndarray) -> tuple[int, int]:
    """The two marked steps of a sequence."""
    first, second = (int(i) for i in np.flatnonzero(marks > 0.5))
    return first, second


@dataclass(frozen=True)
class Example:
    """What the words quote of the example sequence: its marked steps, their values, how many steps apart they
    are, its last step and how many steps the first value must be carried to it."""

    first: int
    second: int
    one: float
    other: float
    apart: int
    last: int
    carried: int


def example(values: np.ndarray, marks: np.ndarray) -> Example:
    """The example's facts: what the notes, the narration and the German quote."""
    first, second = markers(marks)
    last = len(values) - 1
    return Example(first, second, float(values[first]), float(values[second]), second - first, last, last - first)


# --- the words: notes for the lecturer, narration for the listener (one string per beat) --------------------


def task_notes(length: int) -> str:
    return (
        "The adding problem, Hochreiter and Schmidhuber's classic LSTM benchmark. "
        f"Each sequence has T = {length} steps and two input channels: "
        "a value in [0, 1) and a marker that is 1 at exactly two steps, one in each half."
    )


@translated
def task_said(length: int) -> str:
    """While the title and the empty channels appear."""
    return (
        f"The adding problem, a classic test of long memory: {mark('steps')}{spoken.integer(length)} steps, "
        f"each with {mark('value')}a value between zero and one and {mark('marker')}a marker."
    )


def stream_notes(length: int, seed: int, marks: np.ndarray) -> str:
    first, second = markers(marks)
    return (
        f"The network reads the two channels one step at a time, {length} steps in all. "
        f"Here is one example sequence (seed {seed}); its markers sit at t = {first} and t = {second}."
    )


@translated
def stream_said(marks: np.ndarray) -> str:
    """While the example sequence appears, step by step."""
    first, second = markers(marks)
    return (
        "The network reads the two channels one step at a time. "
        f"{mark('marker')}The marker is on at exactly two steps: "
        f"{mark('here')}here, steps {spoken.integer(first)} and {spoken.integer(second)}."
    )


def marked_notes(values: np.ndarray, marks: np.ndarray) -> str:
    facts = example(values, marks)
    return (
        f"The two marked values are {facts.one:.2f} at t = {facts.first} and {facts.other:.2f} at "
        f"t = {facts.second}: {facts.apart} steps apart."
    )


@translated
def marked_said(values: np.ndarray, marks: np.ndarray) -> dict[str, str]:
    """While the marked values light up, then while the gap between them is drawn."""
    facts = example(values, marks)
    return {
        "lit": f"The marked values are {spoken.number(facts.one, 2)} and {spoken.number(facts.other, 2)}.",
        "apart": f"They sit {spoken.integer(facts.apart)} steps apart.",
    }


def target_notes(values: np.ndarray, marks: np.ndarray, target: float) -> str:
    facts = example(values, marks)
    return f"The target is the sum of the two marked values: {facts.one:.2f} + {facts.other:.2f} = {target:.2f}."


@translated
def target_said(values: np.ndarray, marks: np.ndarray, target: float) -> str:
    """While the two values travel into the sum."""
    facts = example(values, marks)
    one, other = spoken.number(facts.one, 2), spoken.number(facts.other, 2)
    return (f"The target is their sum: {mark('one')}{one} plus {mark('other')}{other} {mark('makes')}makes "
            f"{spoken.number(target, 2)}.")  # fmt: skip


def hard_notes(values: np.ndarray, marks: np.ndarray, baseline: float) -> str:
    facts = example(values, marks)
    return (
        f"Why it is hard: at t = {facts.first} the net sees {facts.one:.2f} but the answer is read only after "
        f"the last step, t = {facts.last}. "
        f"It must carry the first marked value across {facts.carried} steps of distracting values. "
        f"Predicting the mean sum, 1, already gives MSE 1/6 = {baseline:.3f}: that is the baseline to beat."
    )


@translated
def hard_said(values: np.ndarray, marks: np.ndarray, baseline: float) -> dict[str, str]:
    """While the reasons appear, then while they stay."""
    facts = example(values, marks)
    return {
        "carried": (
            "What makes it hard: the network must carry the first value "
            f"{mark('across')}across {spoken.integer(facts.carried)} steps of distracting numbers before it answers."
        ),
        "baseline": (
            "Always guessing the average sum already scores a mean squared error of "
            f"{spoken.number(baseline, 2)}: {mark('beat')}that is the baseline to beat."
        ),
    }


# --- the scene ----------------------------------------------------------------------------------------------


class AddingProblem(LectureSlide):
    """rnn4: two channels, a stream of values and two markers; the target is the sum of the marked values."""

    data = ("adding",)

    def construct(self) -> None:
        self.run = self.load("adding")
        self.values, self.marks = self.run["example_values"], self.run["example_marks"]
        self.target = float(self.run["example_target"])
        self.baseline = float(self.run["baseline"])
        self.first, self.second = markers(self.marks)
        self.example = example(self.values, self.marks)
        self.task()
        self.sequence()
        self.marked()
        self.total()
        self.why_hard()

    # --- the slides -------------------------------------------------------------------------------------

    def task(self) -> None:
        self.next_slide(notes=task_notes(len(self.values)))
        said = task_said(len(self.values))
        self.stream = Stream(
            self.values,
            self.marks,
            width=11.0,
            height=2.3,
            value_label="value",
            marker_label="marker",
            label_size=theme.SMALL_SIZE,
            tick_every=5,
        )
        self.stream.move_to(0.35 * UP).shift(0.45 * RIGHT)
        self.stream.hide()
        time_label = theme.text("time step", theme.SMALL_SIZE, theme.muted())
        time_label.next_to(self.stream.ticks, DOWN, buff=0.1)
        value_label, marker_label = self.stream.channel_labels
        with self.beat(said) as beat:  # the empty time axis, then each channel as it is named
            heading = "A long-memory task: the adding problem"
            self.title(heading, along=[Create(self.stream.baseline)], run_time=beat.until("steps"))
            self.play(FadeIn(self.stream.ticks), FadeIn(time_label), run_time=beat.until("value"))
            self.play(FadeIn(value_label, shift=0.1 * RIGHT), run_time=beat.until("marker"))
            self.play(FadeIn(marker_label, shift=0.1 * RIGHT), run_time=beat.remaining)

    def sequence(self) -> None:
        self.next_slide(notes=stream_notes(len(self.values), self.run.params["example_seed"], self.marks))
        said = stream_said(self.marks)
        _, marker_label = self.stream.channel_labels
        with self.beat(said) as beat:  # the steps come one at a time; then the marker channel and its two steps
            self.play(self.stream.appear(), run_time=beat.until("marker"))
            self.play(Indicate(marker_label, color=theme.highlight()), run_time=beat.until("here"))
            cells = [self.stream.marker_cells[step] for step in (self.first, self.second)]
            self.play(*[Indicate(cell, scale_factor=2.0) for cell in cells], run_time=beat.remaining)

    def marked(self) -> None:
        self.next_slide(notes=marked_notes(self.values, self.marks))
        said = marked_said(self.values, self.marks)
        self.labels = VGroup()
        stems = [(stem.get_bottom(), stem.get_top()) for stem in self.stream.stems]
        for index in (self.first, self.second):
            label = theme.text(f"{self.values[index]:.2f}", theme.LABEL_SIZE, theme.highlight())
            label.next_to(self.stream.top(index), UP, buff=0.15)
            while layout.conflicts(label, lines=stems):  # over a taller neighbour's stem: above it
                label.shift(0.05 * UP)
            self.labels.add(label)
        gap_arrow, gap_label = self.gap()
        with self.beat(said["lit"]) as beat:
            self.play(
                self.stream.light([self.first, self.second], theme.highlight()),
                FadeIn(self.labels, shift=0.1 * UP),
                run_time=beat.remaining,
            )
        with self.beat(said["apart"]) as beat:
            self.play(Create(gap_arrow), FadeIn(gap_label), run_time=beat.remaining)

    def total(self) -> None:
        self.next_slide(notes=target_notes(self.values, self.marks, self.target))
        said = target_said(self.values, self.marks, self.target)
        terms = ("y =", f"{self.example.one:.2f}", "+", f"{self.example.other:.2f}", "=", f"{self.target:.2f}")
        self.equation = formula(terms, theme.tex_size(theme.BODY_SIZE), {}).set_color(theme.highlight())
        self.equation.move_to(2.0 * DOWN)  # its three reasons below keep clear of the frame's foot
        y, one, plus, other, equals, total = self.equation
        with self.beat(said) as beat:  # each marked value travels into the sum as it is read
            self.play(FadeIn(y), run_time=beat.until("one"))
            self.play(TransformFromCopy(self.labels[0], one), FadeIn(plus), run_time=beat.until("other"))
            self.play(TransformFromCopy(self.labels[1], other), run_time=beat.until("makes"))
            self.play(FadeIn(equals), FadeIn(total, shift=0.1 * LEFT), run_time=beat.remaining)

    def why_hard(self) -> None:
        self.next_slide(notes=hard_notes(self.values, self.marks, self.baseline))
        said = hard_said(self.values, self.marks, self.baseline)
        reads, carry, mean = self.reasons()
        step = ValueTracker(self.first)
        cursor = self.stream.cursor(step, theme.highlight()).set_stroke(width=4)  # where the carried value has got to
        with self.beat(said["carried"]) as beat:
            self.play(FadeIn(reads, shift=0.1 * UP), run_time=beat.until("across"))
            self.add(cursor)
            self.play(
                FadeIn(carry, shift=0.1 * UP),
                step.animate.set_value(len(self.values) - 1),
                run_time=beat.remaining,
                rate_func=linear,
            )
        cursor.clear_updaters()
        with self.beat(said["baseline"]) as beat:
            self.play(FadeOut(cursor), run_time=0.3)
            self.play(FadeIn(mean, shift=0.1 * UP), run_time=beat.until("beat"))
            self.play(Circumscribe(mean, color=theme.highlight()), run_time=beat.remaining)

    # --- drawing ------------------------------------------------------------------------------------------

    def gap(self) -> tuple[DoubleArrow, VGroup]:
        """A double arrow over the stream from the first marked step to the second, and its label."""
        height = self.stream.get_top()[1] + 0.35
        gap_arrow = DoubleArrow(
            [self.stream.x_of(self.first), height, 0],
            [self.stream.x_of(self.second), height, 0],
            buff=0,
            color=theme.highlight(),
            stroke_width=3,
            tip_length=0.18,
        )
        gap_label = theme.text(f"{self.example.apart} steps apart", theme.SMALL_SIZE, theme.highlight())
        return gap_arrow, gap_label.next_to(gap_arrow, UP, buff=0.08)

    def reasons(self) -> VGroup:
        """Three lines under the sum: what the net must carry, how far, and the baseline."""
        facts = self.example
        read = f"the net reads {facts.one:.2f} at t = {facts.first} but answers only after t = {facts.last}:"
        why = VGroup(
            theme.text(read, theme.LABEL_SIZE),
            theme.text(f"it must carry that value across {facts.carried} steps;", theme.LABEL_SIZE),
            theme.text(f"baseline (predict the mean): MSE {self.baseline:.3f}", theme.LABEL_SIZE, theme.muted()),
        ).arrange(DOWN, buff=0.15)
        return why.next_to(self.equation, DOWN, buff=0.3)
