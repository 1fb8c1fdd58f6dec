"""TrainingRace (notebook cell rnn6): a vanilla RNN, an LSTM and a GRU, each with one linear readout, trained
on the adding problem. Their test MSE on a log plot as they train, against the predict-the-mean baseline, and
which of them solve the task (an MSE under a tenth of the baseline)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    Integer,
    LaggedStart,
    Tex,
    Text,
    ValueTracker,
    VGroup,
    linear,
)

from scenes.rnn.shared import about
from seqanim import LectureSlide, mark, spoken, translated
from seqanim.kit import theme
from seqanim.kit.plots import Plot, decade_range

# --- the words: notes for the lecturer, narration for the listener (one string per beat) --------------------


GATED = ("LSTM", "GRU")  # the cells with gates; the vanilla RNN has none
NAMES = {"RNN": "Vanilla RNN"}  # a cell's name in the title, where it is not its kind


@dataclass(frozen=True)
class Verdict:
    """Which cells solve the task (a final MSE under a tenth of the baseline) and which do not; `near`: whether
    those that fail all stay above half the baseline (they learned little more than the mean; False when none
    fails). `gated` and `plain`: the solved cells with gates, and those without (they carry the value all the
    same)."""

    solved: list[str]
    failed: list[str]
    near: bool
    gated: list[str]
    plain: list[str]


def verdict(kinds: list[str], finals: np.ndarray, baseline: float) -> Verdict:
    """The cells' verdict from their final MSEs: what the notes, the narration and the German quote."""
    solved = [kind for kind, final in zip(kinds, finals) if final < baseline / 10]
    failed = [kind for kind in kinds if kind not in solved]
    near = bool(failed) and bool(min(finals[kinds.index(kind)] for kind in failed) > baseline / 2)
    gated = [kind for kind in solved if kind in GATED]
    return Verdict(solved, failed, near, gated, [kind for kind in solved if kind not in GATED])


def title(kinds: list[str]) -> str:
    """The scene's title, from the cells it races: "Vanilla RNN vs LSTM vs GRU"."""
    names = [NAMES.get(kind, kind) for kind in kinds]
    return " vs ".join(names) if len(names) > 1 else f"{names[0]} on the adding problem"


def the(kinds: list[str]) -> str:
    """The cells' names with their article, as said: "the LSTM and the GRU"."""
    return spoken.listing([f"the {kind}" for kind in kinds])


def setup_notes(kinds: list[str], params: dict, baseline: float) -> str:
    return (
        f"One linear readout on {spoken.count(len(kinds), 'recurrent cell')} ({', '.join(kinds)}), "
        f"each with {params['hidden']} hidden units, trained {params['iters']} Adam steps (lr {params['lr']:g}, "
        f"batch {params['batch']}, gradient clip {params['clip']:g}) on T = {params['T']}. "
        f"The dashed line is the predict-the-mean baseline, MSE {baseline:.3f}."
    )


@translated
def setup_said(kinds: list[str], hidden: int, baseline: float) -> dict[str, str]:
    """While the empty plot is drawn, then while the baseline is."""
    named = spoken.listing([f"{mark(f'kind{i}')}{kind}" for i, kind in enumerate(kinds)])
    return {
        "plotted": (
            f"{spoken.sentence(spoken.count(len(kinds), 'recurrent cell'))}, {named}, "
            f"{mark('hidden')}each with {spoken.integer(hidden)} hidden units, now train on the adding problem."
        ),
        "baseline": (
            f"The dashed line is the error of always predicting the mean: {mark('value')}{spoken.number(baseline, 2)}."
        ),
    }


def race_notes(kinds: list[str], mse: np.ndarray, params: dict) -> str:
    starts = "; ".join(f"{kind} starts at {mse[i, 0]:.3f}" for i, kind in enumerate(kinds))
    return f"Test MSE on {params['test_size']} held-out sequences, every {params['eval_every']} steps. {starts}."


def starters(cells: int) -> str:
    """Who starts, by how many cells race: "It starts", "Both start", "All three start"."""
    if cells == 1:
        return "It starts"
    return "Both start" if cells == 2 else f"All {spoken.integer(cells)} start"


@translated
def race_said(kinds: list[str], mse: np.ndarray, baseline: float, params: dict) -> str:
    """While the legend appears and the curves run."""
    result = verdict(kinds, mse[:, -1], baseline)
    solved, failed = result.solved, result.failed
    said = (
        f"Here is each cell's test error on {spoken.integer(params['test_size'])} held-out sequences, "
        f"{mark('over')}over {spoken.integer(params['iters'])} training steps. {mark('start')}"
    )
    if (mse[:, 0] > baseline).all():
        said += f" {starters(len(kinds))} above the baseline."
    said += f" {mark('race')}"
    if solved:
        said += f" Then {the(solved)} {'plunges' if len(solved) == 1 else 'plunge'}"
        said += "." if not failed else ","
    if failed:
        where = "near the baseline" if result.near else "above a tenth of the baseline"
        said += f" {'while ' if solved else ''}{the(failed)} {'stays' if len(failed) == 1 else 'stay'} {where}."
    return said


def finals_notes(kinds: list[str], finals: np.ndarray, baseline: float) -> str:
    ends = "; ".join(f"{kind} {finals[i]:.3g}" for i, kind in enumerate(kinds))
    return f"Final held-out MSE: {ends} (baseline {baseline:.3f})."


@translated
def finals_said(kinds: list[str], finals: np.ndarray, baseline: float) -> str:
    """While each curve's final MSE is labelled."""
    solved, ends = verdict(kinds, finals, baseline).solved, []
    for index, (kind, final) in enumerate(zip(kinds, finals)):
        if kind in solved:
            ends.append(f"{mark(f'kind{index}')}the {kind} about {about(baseline / final)} times under the baseline")
        else:
            ends.append(f"{mark(f'kind{index}')}the {kind} at {spoken.number(float(final), 2)}")
    return f"Final errors: {spoken.listing(ends)}."


def carried_notes(result: Verdict) -> str:
    """How the solved cells carry the first value: through gates only where they have them."""
    if not result.plain:
        return "the gates carry the first value across the gap"
    said = f"{'it carries' if len(result.solved) == 1 else 'they carry'} the first value across the gap"
    if not result.gated:
        return said + " without gates"
    through = f"{' and '.join(result.gated)} through {'its' if len(result.gated) == 1 else 'their'} gates"
    return f"{said}, {through}, {' and '.join(result.plain)} without gates"


def verdict_notes(kinds: list[str], finals: np.ndarray, baseline: float) -> str:
    result = verdict(kinds, finals, baseline)
    solved, failed = result.solved, result.failed
    threshold = baseline / 10
    parts = []
    if solved:
        ends = ", ".join(f"{finals[kinds.index(kind)]:.3g}" for kind in solved)
        parts.append(
            f"{' and '.join(solved)} fall{'s' if len(solved) == 1 else ''} far below the baseline ({ends}, "
            f"under {threshold:.4f}, a tenth of {baseline:.3f}): {carried_notes(result)}"
        )
    if failed:
        ends = [finals[kinds.index(kind)] for kind in failed]
        where = "near the baseline" if result.near else "above a tenth of the baseline"
        meaning = "learned little more than the mean" if result.near else "did not solve the task"
        parts.append(
            f"{' and '.join(failed)} stay{'s' if len(failed) == 1 else ''} {where} "
            f"({', '.join(f'{end:.3f}' for end in ends)}): {'it' if len(failed) == 1 else 'they'} {meaning}"
        )
    return "; ".join(parts) + "."


@translated
def verdict_said(kinds: list[str], finals: np.ndarray, baseline: float) -> dict[str, str]:
    """While the solved line and the verdict appear, then while they stay."""
    result = verdict(kinds, finals, baseline)
    solved, failed = result.solved, result.failed
    one = len(solved) == 1
    claim = f"Solved means under a tenth of the baseline: {mark('solved')}"
    if solved and not result.plain:
        claim += f"{the(solved)} {'gets' if one else 'get'} there, {'its' if one else 'their'} gates carrying "
        claim += "the first value across."
    elif solved:  # a vanilla RNN among them: it carries the value without gates
        claim += f"{the(solved)} {'gets' if one else 'get'} there, carrying the first value across"
        if result.gated:
            gates = "its gates" if len(result.gated) == 1 else "their gates"
            claim += f": {the(result.gated)} through {gates}, {the(result.plain)} without any."
        else:
            claim += " without any gates."
    else:
        claim += "none of the cells gets there."
    if not failed:
        return {"claim": claim, "rest": "Every cell solves the task."}
    one = len(failed) == 1
    meaning = "learned little more than the mean" if result.near else "stayed above a tenth of the baseline"
    rest = (
        f"{spoken.sentence(the(failed))} {'does' if one else 'do'} not: "
        f"{mark('meaning')}{'it' if one else 'they'} {meaning}."
    )
    return {"claim": claim, "rest": rest}


# --- the scene ----------------------------------------------------------------------------------------------


class TrainingRace(LectureSlide):
    """rnn6: test MSE of vanilla RNN, LSTM and GRU while they train on the adding problem."""

    data = ("adding",)

    def construct(self) -> None:
        run = self.load("adding")
        self.kinds = [str(kind) for kind in run["kinds"]]
        self.iters, self.mse = run["curve_iters"], run["test_mse"]
        self.baseline = float(run["baseline"])
        self.finals = self.mse[:, -1]
        self.params = run.params  # the parameters that produced these curves
        self.lineup()
        self.race()
        self.label_finals()
        self.verdict()

    # --- the slides -------------------------------------------------------------------------------------

    def lineup(self) -> None:
        self.next_slide(notes=setup_notes(self.kinds, self.params, self.baseline))
        said = setup_said(self.kinds, self.params["hidden"], self.baseline)
        line, label = self.build_plot()
        self.step = ValueTracker(0.0)
        self.curves, self.readout = self.build_race()
        with self.beat(said["plotted"]) as beat:  # the empty plot, then each cell's name in the legend as it is said
            self.title(title(self.kinds), along=[Create(self.plot)], run_time=beat.until("kind0"))
            for index, name in enumerate(self.legend):
                following = f"kind{index + 1}" if index + 1 < len(self.kinds) else "hidden"
                self.play(FadeIn(name, shift=0.2 * LEFT), run_time=beat.until(following))
            self.play(FadeIn(self.size_note, shift=0.1 * UP), run_time=beat.remaining)
        with self.beat(said["baseline"]) as beat:
            self.play(Create(line), run_time=beat.until("value"))
            self.play(FadeIn(label, shift=0.1 * UP), run_time=beat.remaining)

    def race(self) -> None:
        self.next_slide(notes=race_notes(self.kinds, self.mse, self.params))
        said = race_said(self.kinds, self.mse, self.baseline, self.params)
        curves, readout = self.curves, self.readout
        starts = VGroup(
            *[
                Dot(self.plot.axes.c2p(0, float(self.mse[i, 0])), radius=0.06, color=theme.model_colour(kind))
                for i, kind in enumerate(self.kinds)
            ]
        )
        self.add(curves)
        with self.beat(said) as beat:  # what is plotted, where the cells start, then the race itself
            self.play(Indicate(self.plot.y_label, color=theme.highlight()), run_time=beat.until("over"))
            steps = Indicate(self.plot.x_label, color=theme.highlight())
            self.play(FadeIn(readout), steps, run_time=beat.until("start"))
            self.play(LaggedStart(*[FadeIn(dot, scale=0.5) for dot in starts]), run_time=beat.until("race"))
            self.play(self.step.animate.set_value(float(self.iters[-1])), run_time=beat.remaining, rate_func=linear)
        for curve in curves:
            curve.clear_updaters()
        readout[1].clear_updaters()

    def label_finals(self) -> None:
        self.next_slide(notes=finals_notes(self.kinds, self.finals, self.baseline))
        said = finals_said(self.kinds, self.finals, self.baseline)
        self.labels = self.final_labels()
        with self.beat(said) as beat:  # each curve's final error at its end, as it is read
            self.play(FadeOut(self.legend), FadeOut(self.size_note), run_time=beat.until("kind0"))
            for index, label in enumerate(self.labels):
                following = f"kind{index + 1}" if index + 1 < len(self.kinds) else None
                span = beat.until(following) if following else beat.remaining
                self.play(FadeIn(label, shift=0.2 * LEFT), run_time=span)

    def verdict(self) -> None:
        self.next_slide(notes=verdict_notes(self.kinds, self.finals, self.baseline))
        said = verdict_said(self.kinds, self.finals, self.baseline)
        result = verdict(self.kinds, self.finals, self.baseline)
        solved, failed = result.solved, result.failed
        threshold_line, lines = self.verdict_lines()
        solved_labels = VGroup(*[self.labels[self.kinds.index(kind)] for kind in solved])
        failed_labels = VGroup(*[self.labels[self.kinds.index(kind)] for kind in failed])
        with self.beat(said["claim"]) as beat:  # the line at a tenth of the baseline, then the cells that pass under it
            self.play(Create(threshold_line), run_time=beat.until("solved"))
            self.play(FadeIn(lines[0]), Indicate(solved_labels if solved else lines[0]), run_time=beat.remaining)
        with self.beat(said["rest"]) as beat:
            if failed:
                if solved:
                    self.play(FadeIn(lines[1]), run_time=beat.until("meaning"))
                self.play(Indicate(failed_labels, color=theme.error_colour()), run_time=beat.remaining)
            else:
                self.play(Indicate(self.labels), run_time=beat.remaining)

    # --- drawing ------------------------------------------------------------------------------------------

    def build_plot(self) -> tuple[VGroup, VGroup]:
        """The log plot of test MSE against training step (on self), and the baseline's line and label."""
        low, high, decades = decade_range(
            float(np.floor(np.log10(self.mse.min()))), float(np.ceil(np.log10(self.mse.max())))
        )
        total = int(self.iters[-1])
        self.plot = Plot(
            (0, total, 100),
            (low, high, decades),
            width=8.4,
            height=4.7,
            x_label="training step",
            y_label="test MSE (log)",
            log_y=True,
            tick_size=theme.tex_size(theme.SMALL_SIZE),
        )
        self.plot.move_to([-1.3, -0.2, 0])  # room under "training step" for the verdict, at the frame's foot
        baseline = self.plot.hline(self.baseline, theme.muted())
        label = theme.text(f"predict the mean: {self.baseline:.3f}", theme.SMALL_SIZE, theme.muted())
        label.next_to(self.plot.axes.c2p(total, self.baseline), UP, buff=0.08).align_to(baseline, RIGHT)
        return baseline, label

    def build_race(self) -> tuple[VGroup, VGroup]:
        """The live curves (drawn up to the step tracker), and the step counter; the legend on self."""
        # The vanilla RNN is drawn last, on top: for its first few hundred steps it runs under LSTM and GRU.
        order = sorted(range(len(self.kinds)), key=lambda i: self.kinds[i] == "RNN")
        curves = VGroup(
            *[
                self.plot.live_curve(self.iters, self.mse[i], self.step, theme.model_colour(self.kinds[i]))
                for i in order
            ]
        )
        counter_label = Tex("step", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.muted())
        counter = Integer(0, font_size=theme.tex_size(theme.BODY_SIZE), color=theme.foreground())
        counter.add_updater(lambda m: m.set_value(int(self.step.get_value())))
        readout = VGroup(counter_label, counter).arrange(RIGHT, buff=0.2).move_to([5.2, 2.2, 0])
        self.legend = VGroup(*[theme.text(kind, theme.LABEL_SIZE, theme.model_colour(kind)) for kind in self.kinds])
        self.legend.arrange(DOWN, aligned_edge=LEFT, buff=0.2).next_to(readout, DOWN, buff=0.4).align_to(readout, LEFT)
        hidden = self.params["hidden"]
        self.size_note = VGroup(  # two short lines: one is wider than the room right of the plot
            theme.text(f"{hidden} hidden", theme.SMALL_SIZE, theme.muted()),
            theme.text("units each", theme.SMALL_SIZE, theme.muted()),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.1)
        self.size_note.next_to(self.legend, DOWN, buff=0.3).align_to(self.legend, LEFT)
        return curves, readout

    def final_labels(self) -> VGroup:
        """Each curve's final MSE at its end, pushed apart where they would overlap; in the order of the cells."""
        ends = [self.plot.axes.c2p(float(self.iters[-1]), float(final))[1] for final in self.finals]
        placed: list[float] = []
        labels: dict[int, Text] = {}
        for index in np.argsort(ends):
            y = max(ends[index], placed[-1] + 0.38) if placed else ends[index]
            placed.append(y)
            kind = self.kinds[index]
            label = theme.text(f"{kind} {self.finals[index]:.3g}", theme.LABEL_SIZE, theme.model_colour(kind))
            label.move_to([self.plot.axes.get_right()[0] + 0.2 + label.width / 2, y, 0])
            labels[int(index)] = label
        return VGroup(*[labels[index] for index in range(len(self.kinds))])

    def verdict_lines(self) -> tuple[VGroup, VGroup]:
        """The line at a tenth of the baseline, and the verdict: which cells solve the task."""
        threshold = self.baseline / 10
        result = verdict(self.kinds, self.finals, self.baseline)
        solved, failed = result.solved, result.failed
        lines = VGroup()
        if solved:
            lines.add(
                theme.text(
                    f"✓ solved (MSE < {threshold:.4f}): {', '.join(solved)}", theme.LABEL_SIZE, theme.allowed_colour()
                )
            )
        if failed:
            lines.add(theme.text(f"✗ not solved: {', '.join(failed)}", theme.LABEL_SIZE, theme.error_colour()))
        lines.arrange(RIGHT, buff=0.6).to_edge(DOWN, buff=0.3)
        return self.plot.hline(threshold, theme.muted()), lines
