"""InsideTheLSTM (notebook cell rnn8): the LSTM trained on the adding problem, run on one example with the
recurrence replayed by hand. On one time axis: what each step writes ||i_t * c~_t||, what the cell holds ||c_t||
and the running guess fc(h_t) against the true running sum; then the forget, input and output gates of every
hidden unit. It writes at the markers and holds the sum in its cell in between."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    Circle,
    Circumscribe,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    Integer,
    LaggedStart,
    Line,
    ManimColor,
    ShowPassingFlash,
    ValueTracker,
    VGroup,
    VMobject,
    linear,
)

from scenes.rnn.shared import about, two_digits
from seqanim import Artifact, LectureSlide, spoken, translated
from seqanim.kit import theme
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.plots import Plot
from seqanim.kit.stream import Stream

GATES = (("forget_gate", r"forget $f_t$"), ("input_gate", r"input $i_t$"), ("output_gate", r"output $o_t$"))


def markers(run: Artifact) -> tuple[int, int]:
    first, second = (int(m) for m in run["markers"])
    return first, second


@dataclass(frozen=True)
class GateChange:
    """How much a gate moves: its mean |gate_t - gate_(t-1)| over units at the marked steps and the step after,
    and its median at the other steps."""

    at: float
    elsewhere: float


def change_at_markers(gate: np.ndarray, markers: tuple[int, int]) -> GateChange:
    """How much `gate` (steps x units) moves at the marked steps and the step after, and elsewhere."""
    length = len(gate)
    change = np.abs(np.diff(gate, axis=0)).mean(axis=1)  # change[t - 1]: into step t
    switching = sorted({t for m in markers for t in (m, m + 1) if 1 <= t < length})
    others = [t for t in range(1, length) if t not in switching]
    return GateChange(
        float(change[[t - 1 for t in switching]].mean()), float(np.median(change[[t - 1 for t in others]]))
    )


# --- each beat's facts, in one place: the notes, the narration and the German quote them --------------------


@dataclass(frozen=True)
class Opening:
    """The example's marked steps, their values, and the target (their sum)."""

    first: int
    second: int
    one: float
    other: float
    target: float


def opening_facts(run: Artifact) -> Opening:
    first, second = markers(run)
    values = run["values"]
    return Opening(first, second, float(values[first]), float(values[second]), float(run["target"]))


def way(before: float, after: float) -> str:
    """Which way a guess moved in one step, as heard (to two places): "rises", "falls" or "stays"."""
    if spoken.number(before, 2) == spoken.number(after, 2):
        return "stays"
    return "rises" if after > before else "falls"


GUESS_TO = {"jumps": "jumps to", "rises": "rises to", "falls": "falls to", "stays": "stays at"}


@dataclass(frozen=True)
class FirstMarker:
    """The first marked step: the largest write before it, the write and the guess there and the guess before;
    `jumps`: whether the write there is larger than every write before it; `guess_way`: how the guess moves."""

    step: int
    write_before: float
    write: float
    guess_before: float
    guess: float
    jumps: bool
    guess_way: str


def first_marker_facts(run: Artifact) -> FirstMarker:
    first, _ = markers(run)
    write, guess = run["write_norm"], run["running_guess"]
    before, at = float(write[:first].max()), float(write[first])
    guess_before, guess_at = float(guess[first - 1]), float(guess[first])
    return FirstMarker(first, before, at, guess_before, guess_at, at > before, way(guess_before, guess_at))


@dataclass(frozen=True)
class Holding:
    """The steps strictly between the markers: the range of the cell's length, the guess at their ends, and the
    true running sum there; `before`: the cell's length just before the first marker, and `holds`: whether the
    cell stays above it all the way (it keeps what it wrote)."""

    first: int
    last: int
    low: float
    high: float
    guess_from: float
    guess_to: float
    true_sum: float
    before: float
    holds: bool


def holding_facts(run: Artifact) -> Holding:
    first, second = markers(run)
    cell, guess = run["cell_norm"], run["running_guess"]
    between, before = cell[first + 1 : second], float(cell[first - 1])
    return Holding(
        first + 1,
        second - 1,
        float(between.min()),
        float(between.max()),
        float(guess[first]),
        float(guess[second - 1]),
        float(run["true_running_sum"][first]),
        before,
        bool(between.min() > before),
    )


@dataclass(frozen=True)
class SecondMarker:
    """The second marked step: the write there, where the largest write of the sequence is and its size, and the
    guess before and at the step."""

    step: int
    write: float
    largest_at: int
    largest: float
    guess_before: float
    guess: float
    spikes: bool
    guess_way: str


def second_marker_facts(run: Artifact) -> SecondMarker:
    """`spikes`: whether the write there is larger than every write between the markers; `guess_way`: how the
    guess moves, "jumps" when it rises more than twice its typical step between the markers."""
    first, second = markers(run)
    write, guess = run["write_norm"], run["running_guess"]
    largest_at = int(np.argmax(write))
    guess_before, guess_at = float(guess[second - 1]), float(guess[second])
    drift = np.abs(np.diff(guess[first + 1 : second]))  # the guess's steps between the markers
    moved = way(guess_before, guess_at)
    if moved == "rises" and guess_at - guess_before > 2 * float(np.median(drift) if drift.size else 0.0):
        moved = "jumps"
    return SecondMarker(
        second,
        float(write[second]),
        largest_at,
        float(write.max()),
        guess_before,
        guess_at,
        bool(write[second] > write[first + 1 : second].max()),
        moved,
    )


@dataclass(frozen=True)
class Answer:
    """The guess after the last step, the target and the error between them."""

    last: int
    guess: float
    target: float
    error: float


def answer_facts(run: Artifact) -> Answer:
    guess, target = float(run["running_guess"][-1]), float(run["target"])
    return Answer(len(run["running_guess"]) - 1, guess, target, abs(guess - target))


@dataclass(frozen=True)
class Gates:
    """The gates' shape (hidden units, time steps) and how much each gate moves at the markers and elsewhere
    (by its name in the run, e.g. "input_gate"); `ratio`: how many times more the input gate moves there."""

    units: int
    steps: int
    changes: dict[str, GateChange]
    ratio: float

    @property
    def switches(self) -> bool:
        """Whether the input gate moves more at the markers than elsewhere."""
        return self.ratio > 1

    @property
    def times(self) -> str:
        """The ratio to two significant digits, as written: "12", "1.4" ("0" for a gate still at the markers)."""
        if not self.ratio > 0:
            return f"{self.ratio:g}"
        rounded, decimals = two_digits(self.ratio)
        return f"{rounded:.{max(decimals, 0)}f}"


def gates_facts(run: Artifact) -> Gates:
    changes = {name: change_at_markers(run[name], markers(run)) for name, _ in GATES}
    switching = changes["input_gate"]
    return Gates(run["input_gate"].shape[1], len(run["values"]), changes, switching.at / switching.elsewhere)


# --- the words: notes for the lecturer, narration for the listener (one string per beat) --------------------


def opening_notes(run: Artifact) -> str:
    facts = opening_facts(run)
    return (
        f"Open up the trained LSTM and run it on one sequence with markers at t = {facts.first} and "
        f"t = {facts.second}: {facts.one:.2f} + {facts.other:.2f}, target {facts.target:.2f}. "
        "We replay the recurrence by hand to read the gates."
    )


@translated
def opening_said(run: Artifact) -> dict[str, str]:
    """While the input's values appear; while the marked ones light up, then are pointed out ('values'); while
    the marker lines are drawn, then each panel as it is named ('write', 'memory', 'guess', 'target')."""
    facts = opening_facts(run)
    return {
        "sequence": "Now we open up the trained LSTM on one sequence.",
        "marked": (
            f"Its markers sit at steps {spoken.integer(facts.first)} and {spoken.integer(facts.second)}, "
            f"{spoken.mark('values')}on the values {spoken.number(facts.one, 2)} and "
            f"{spoken.number(facts.other, 2)}."
        ),
        "panels": (
            f"Three panels follow: {spoken.mark('write')}what the cell writes, {spoken.mark('memory')}what its memory "
            f"holds, and {spoken.mark('guess')}its guess of the sum, {spoken.mark('target')}against a target of "
            f"{spoken.number(facts.target, 2)}."
        ),
    }


def first_marker_notes(run: Artifact) -> str:
    facts = first_marker_facts(run)
    if facts.jumps:
        write = f"then jumps to {facts.write:.2f} at t = {facts.step}, the first marked step"
    else:
        write = f"and at t = {facts.step}, the first marked step, it is {facts.write:.2f}, no higher"
    guess = f"{facts.guess_way} from {facts.guess_before:.2f} to {facts.guess:.2f}"
    if facts.guess_way == "stays":
        guess = f"stays at {facts.guess:.2f}"
    return (
        f"Before the first marker the write ||i * c~|| stays at or below {facts.write_before:.2f}, {write}. "
        f"The guess fc(h_t) {guess}."
    )


@translated
def first_marker_said(run: Artifact) -> str:
    """While time runs up to the first marker, then while the write and the guess are pointed out."""
    facts = first_marker_facts(run)
    write = f"jumps to {about(facts.write)}" if facts.jumps else f"is {about(facts.write)}, no higher than before,"
    return (
        f"At the first marker, step {spoken.integer(facts.step)}, {spoken.mark('write')}the write {write} "
        f"{spoken.mark('guess')}and the guess {GUESS_TO[facts.guess_way]} {spoken.number(facts.guess, 2)}."
    )


def holding_notes(run: Artifact) -> str:
    facts = holding_facts(run)
    verdict = (
        "the memory holds"
        if facts.holds
        else f"the memory does not hold (before the first marker it was {facts.before:.2f})"
    )
    return (
        f"Between the markers {verdict}: ||c_t|| stays between {facts.low:.2f} and "
        f"{facts.high:.2f} from t = {facts.first} to t = {facts.last}, "
        f"while the guess drifts from {facts.guess_from:.2f} to {facts.guess_to:.2f}; "
        f"the true running sum is {facts.true_sum:.2f}."
    )


@translated
def holding_said(run: Artifact) -> str:
    """While time runs between the markers, then while the guess and the true sum are pointed out."""
    facts = holding_facts(run)
    holds = "the memory holds, between" if facts.holds else "the memory does not hold: it ranges between"
    fell = "" if facts.holds else ", down to where it was before the first marker"
    return (
        f"Between the markers {holds} {about(facts.low)} and {about(facts.high)}{fell}, "
        f"{spoken.mark('guess')}while the guess drifts to {spoken.number(facts.guess_to, 2)}; "
        f"{spoken.mark('true')}the true sum stays {spoken.number(facts.true_sum, 2)}."
    )


def second_marker_notes(run: Artifact) -> str:
    facts = second_marker_facts(run)
    largest = (
        ", the largest of the sequence"
        if facts.largest_at == facts.step
        else f" (the largest write, {facts.largest:.2f}, is at t = {facts.largest_at})"
    )
    again = " again" if first_marker_facts(run).jumps else ""
    write = f"spikes{again} to {facts.write:.2f}"
    if not facts.spikes:
        write = f"is {facts.write:.2f}, no higher than between the markers"
    guess = f"{facts.guess_way} from {facts.guess_before:.2f} to {facts.guess:.2f}"
    if facts.guess_way == "stays":
        guess = f"stays at {facts.guess:.2f}"
    return f"At the second marker the write {write}{largest}; the guess {guess}."


@translated
def second_marker_said(run: Artifact) -> str:
    """While time steps onto the second marker, then while the write and the guess are pointed out."""
    facts = second_marker_facts(run)
    largest = ", its largest," if facts.largest_at == facts.step else ""
    again = " again" if first_marker_facts(run).jumps else ""
    write = f"spikes{again}{largest}" if facts.spikes else "rises no higher than between the markers"
    return (
        f"At the second marker {spoken.mark('write')}the write {write} "
        f"{spoken.mark('guess')}and the guess {GUESS_TO[facts.guess_way]} {spoken.number(facts.guess, 2)}."
    )


def answer_notes(run: Artifact) -> str:
    facts = answer_facts(run)
    return (
        f"After the last step the readout gives fc(h_{facts.last}) = {facts.guess:.3f} against the "
        f"target {facts.target:.3f}: error {facts.error:.3f}. "
        f"{behaviour(run)}; "
        "it was trained only on the final step, so the running guess before it is not exact."
    )


def behaviour(run: Artifact) -> str:
    """What this example shows the LSTM doing, from the writes at the markers and the memory between them."""
    writes = first_marker_facts(run).jumps and second_marker_facts(run).spikes
    holds = holding_facts(run).holds
    if writes and holds:
        return "The LSTM writes at the markers and holds in between"
    if writes:
        return "The LSTM writes at the markers but does not hold in between"
    if holds:
        return "The LSTM holds in between, but its writes at the markers do not stand out"
    return "Neither the writes at the markers nor the memory between them stand out"


@translated
def answer_said(run: Artifact) -> dict[str, str]:
    """While time runs to the last step, the final guess is marked ('guess'), then the target ('target'); while
    the error is drawn, then the guess is followed along the way ('rough')."""
    facts = answer_facts(run)
    return {
        "reached": (
            f"After the last step {spoken.mark('guess')}the guess is {spoken.number(facts.guess, 2)}, "
            f"{spoken.mark('target')}against a target of {spoken.number(facts.target, 2)}."
        ),
        "error": (
            f"An error of {spoken.number(facts.error, 2)}. "
            f"{spoken.mark('rough')}Trained only on its final answer, the network's guess along the way is rough."
        ),
    }


def gates_notes(run: Artifact) -> str:
    facts = gates_facts(run)
    each = "; ".join(
        f"the {label} gate changes by {facts.changes[name].at:.3f} per unit on average at the markers and "
        f"the step after, {facts.changes[name].elsewhere:.3f} (median) at the other steps"
        for name, label in (("forget_gate", "forget"), ("input_gate", "input"), ("output_gate", "output"))
    )
    return (
        "Behind the curves, the gates of every hidden unit: rows are the "
        f"{facts.units} hidden units, columns the {facts.steps} time steps, "
        f"on the same time axis as the input. {each}. "
        + (
            f"The gates switch at the markers and hold in between: the input gate moves {facts.times}x more there."
            if facts.switches
            else f"The gates do not switch at the markers: the input gate moves {facts.times}x as much there."
        )
    )


def gates_caption(run: Artifact) -> str:
    """The claim shown under the gates while the narration makes it."""
    facts = gates_facts(run)
    if not facts.switches:
        return f"the gates do not switch at the markers (input gate: {facts.times}× the change)"
    return f"the gates switch at the markers and hold in between (input gate: {facts.times}× the change)"


@translated
def gates_said(run: Artifact) -> dict[str, str]:
    """While the curves fade, then each gate's heatmap appears as it is named ('forget', 'input', 'output') and
    its axis ('rows'); while the marked steps are lit and their columns lined, then the input gate is pointed out
    ('input') and the claim appears ('times')."""
    facts = gates_facts(run)
    return {
        "shown": (
            f"Behind these curves are the gates of all {spoken.integer(facts.units)} hidden units: "
            f"{spoken.mark('forget')}forget, {spoken.mark('input')}input and {spoken.mark('output')}output, "
            f"{spoken.mark('rows')}one row per unit and one column per step."
        ),
        "switching": (
            "They switch at the markers and hold in between: "
            f"{spoken.mark('input')}there the input gate {spoken.mark('times')}moves about {about(facts.ratio)} "
            "times more than elsewhere."
            if facts.switches
            else "They do not switch at the markers: "
            f"{spoken.mark('input')}there the input gate {spoken.mark('times')}moves no more than elsewhere, "
            f"about {about(facts.ratio)} times as much."
        ),
    }


# --- the scene ----------------------------------------------------------------------------------------------


class InsideTheLSTM(LectureSlide):
    """rnn8: the trained LSTM on one example: it writes at the markers and holds the sum in its cell."""

    data = ("lstm_inside",)

    def construct(self) -> None:
        self.run = self.load("lstm_inside")
        self.values, self.marks = self.run["values"], self.run["marks"]
        self.write, self.cell = self.run["write_norm"], self.run["cell_norm"]
        self.guess, self.running = self.run["running_guess"], self.run["true_running_sum"]
        self.target = float(self.run["target"])
        self.markers = list(markers(self.run))
        self.length = len(self.values)
        self.opening()
        self.first_marker()
        self.holding()
        self.second_marker()
        self.answer()
        self.gates()

    # --- the slides -------------------------------------------------------------------------------------

    def opening(self) -> None:
        self.next_slide(notes=opening_notes(self.run))
        said = opening_said(self.run)
        self.build_panels()
        with self.beat(said["sequence"]) as beat:
            axis = [FadeIn(self.stream_label), Create(self.stream.baseline), self.stream.appear()]
            self.title("What the trained LSTM actually does", along=axis, run_time=beat.remaining)
        with self.beat(said["marked"]) as beat:
            self.play(self.stream.light(self.markers, theme.highlight()), run_time=beat.until("values"))
            self.play(
                LaggedStart(*[Indicate(self.stream.stem(m)) for m in self.markers], lag_ratio=0.5),
                run_time=beat.remaining,
            )
        with self.beat(said["panels"]) as beat:  # each panel as it is named
            self.play(Create(self.marker_lines), run_time=beat.until("write"))
            self.play(Create(self.write_plot), FadeIn(self.legends[0]), run_time=beat.until("memory"))
            self.play(Create(self.memory), FadeIn(self.legends[1]), run_time=beat.until("guess"))
            self.play(Create(self.readout), FadeIn(self.legends[2]), run_time=beat.until("target"))
            self.play(Create(self.target_line), FadeIn(self.target_label), run_time=beat.remaining)
        self.cursor_time = ValueTracker(0.0)
        self.start_live()

    def first_marker(self) -> None:
        self.next_slide(notes=first_marker_notes(self.run))
        said = first_marker_said(self.run)
        first = self.markers[0]
        with self.beat(said) as beat:
            self.walk_to(first, beat.until("write"))
            self.play(self.point_out(self.write_plot, first, self.write[first]), run_time=beat.until("guess"))
            self.play(self.point_out(self.readout, first, self.guess[first]), run_time=beat.remaining)

    def holding(self) -> None:
        self.next_slide(notes=holding_notes(self.run))
        said = holding_said(self.run)
        first, last = self.markers[0], self.markers[1] - 1
        with self.beat(said) as beat:
            self.walk_to(last, beat.until("guess"))
            self.play(self.point_out(self.readout, last, self.guess[last]), run_time=beat.until("true"))
            self.play(self.point_out(self.readout, last, self.running[first], theme.muted()), run_time=beat.remaining)

    def second_marker(self) -> None:
        self.next_slide(notes=second_marker_notes(self.run))
        said = second_marker_said(self.run)
        second = self.markers[1]
        with self.beat(said) as beat:
            self.walk_to(second, beat.until("write"))
            self.play(self.point_out(self.write_plot, second, self.write[second]), run_time=beat.until("guess"))
            self.play(self.point_out(self.readout, second, self.guess[second]), run_time=beat.remaining)

    def answer(self) -> None:
        self.next_slide(notes=answer_notes(self.run))
        said = answer_said(self.run)
        with self.beat(said["reached"]) as beat:
            self.walk_to(self.length - 1, beat.until("guess"))
            self.finish(beat.until("target"))
            self.play(Indicate(self.target_label), Indicate(self.target_line), run_time=beat.remaining)
        with self.beat(said["error"]) as beat:
            self.play(Create(self.error[0]), FadeIn(self.error[1]), run_time=beat.until("rough"))
            along = self.live[3].copy().clear_updaters().set_stroke(theme.highlight(), width=6)
            self.play(ShowPassingFlash(along, time_width=0.3, rate_func=linear), run_time=beat.remaining)

    def gates(self) -> None:
        self.next_slide(notes=gates_notes(self.run))
        said = gates_said(self.run)
        maps, axis = self.gate_maps()
        columns = self.marker_columns(maps)
        with self.beat(said["shown"]) as beat:  # the curves give way to the gates, each as it is named
            self.play(FadeOut(self.curves_shown()), run_time=beat.until("forget"))
            self.play(FadeIn(maps[0]), run_time=beat.until("input"))
            self.play(FadeIn(maps[1]), run_time=beat.until("output"))
            self.play(FadeIn(maps[2]), run_time=beat.until("rows"))
            self.play(FadeIn(axis), run_time=beat.remaining)
        with self.beat(said["switching"]) as beat:
            lit = [Indicate(self.stream.stem(m)) for m in self.markers]
            self.play(Create(columns), *lit, run_time=beat.until("input"))
            gate = Circumscribe(maps[1][0].cells, fade_out=True, color=theme.highlight())
            self.play(gate, run_time=beat.until("times"))
            self.say(gates_caption(self.run), theme.caption_colour(), run_time=beat.remaining)

    # --- layout -----------------------------------------------------------------------------------------

    def build_panels(self) -> None:
        length = self.length
        left, width = -4.9, 9.1
        self.stream = Stream(
            self.values, self.marks, width=width * length / (length - 1), height=0.9, tick_every=0, dot_radius=0.045
        )
        self.stream.move_to([left + width / 2, 2.3, 0])
        self.stream_label = theme.text("input", theme.LABEL_SIZE).next_to(self.stream, LEFT, buff=0.35)

        # Three panels on one time axis: what a step writes, what the cell holds (its own panel), the guess.
        write_top = float(np.ceil(self.write.max() * 2) / 2)
        cell_top = float(np.ceil(self.cell.max()))
        guess_top = float(np.ceil(max(self.guess.max(), self.running.max()) * 2) / 2)
        self.write_plot = Plot(
            (0, length - 1, 5), (0, write_top, write_top / 2), width=width, height=0.75, x_numbers=False
        )
        self.memory = Plot((0, length - 1, 5), (0, cell_top, cell_top / 2), width=width, height=0.75, x_numbers=False)
        self.readout = Plot(
            (0, length - 1, 5),
            (0, guess_top, guess_top / 2),
            width=width,
            height=0.75,
            x_label="time step $t$",
            label_size=theme.SMALL_SIZE,
        )
        self.legends = VGroup(
            VGroup(theme.label(r"write $\|i_t \odot \tilde c_t\|$", theme.SMALL_SIZE, theme.value_colour())),
            VGroup(theme.label(r"cell memory $\|c_t\|$", theme.SMALL_SIZE, theme.model_colour("LSTM"))),
            VGroup(
                theme.label(r"guess $\mathrm{fc}(h_t)$", theme.SMALL_SIZE, theme.output_colour()),
                theme.text("true running sum", theme.SMALL_SIZE, theme.muted()),
            ),
        )
        # Top down, each panel under its legend, and the legend clear of what is above it (the stream, or the
        # panel before: its axis line would run through the legend's words).
        above, left = self.stream.get_bottom()[1], self.stream.x_of(0)
        for plot, legend in zip(self.panels(), self.legends):
            legend.arrange(RIGHT, buff=0.4)
            legend.move_to([left + 0.15 + legend.width / 2, above - 0.08 - legend.height / 2, 0])
            plot.shift([left - plot.axes.c2p(0, 0)[0], legend.get_bottom()[1] - 0.05 - plot.axes.get_top()[1], 0])
            above = plot.axes.get_bottom()[1]

        # A dashed line down each panel at each marker, not through the legends between the panels.
        self.marker_lines = VGroup(
            DashedVMobject(
                Line([x, panel.axes.get_bottom()[1], 0], [x, panel.axes.get_top()[1], 0]), num_dashes=10
            ).set_stroke(theme.highlight(), width=1.5, opacity=0.6)
            for x in map(self.stream.x_of, self.markers)
            for panel in self.panels()
        )
        self.target_line = self.readout.hline(self.target, theme.highlight())
        self.target_label = theme.text(f"target {self.target:.2f}", theme.SMALL_SIZE, theme.highlight())
        self.target_label.next_to(self.target_line, RIGHT, buff=0.1)

    def start_live(self) -> None:
        steps = np.arange(self.length)
        time = self.cursor_time
        self.live = VGroup(
            self.write_plot.series(steps, self.write, theme.value_colour(), tracker=time, stroke_width=3),
            self.memory.series(steps, self.cell, theme.model_colour("LSTM"), tracker=time, stroke_width=3),
            self.readout.series(steps, self.running, theme.muted(), tracker=time, step=True, stroke_width=2.5),
            self.readout.series(steps, self.guess, theme.output_colour(), tracker=time, stroke_width=3),
        )
        # Over the stream and down each panel, but not through the legends between them.
        cursor = VGroup(self.stream.cursor(time, theme.foreground()), *map(self.panel_cursor, self.panels()))
        cursor.set_stroke(theme.foreground(), width=2, opacity=0.7)
        stamp = VGroup(
            theme.text("t =", theme.LABEL_SIZE),
            Integer(0, font_size=theme.tex_size(theme.BODY_SIZE), color=theme.foreground()),
        ).arrange(RIGHT, buff=0.1)
        stamp.add_updater(lambda m: m[1].set_value(round(time.get_value())))
        stamp.move_to([5.9, 2.25, 0])
        self.add(self.live, cursor, stamp)
        self.cursor = cursor

    def panels(self) -> tuple[Plot, Plot, Plot]:
        return self.write_plot, self.memory, self.readout

    def panel_cursor(self, panel: Plot) -> Line:
        """A vertical line down `panel` at the cursor's step, following it."""

        def follow(line: Line) -> None:
            x = self.stream.x_of(self.cursor_time.get_value())
            line.put_start_and_end_on([x, panel.axes.get_bottom()[1], 0], [x, panel.axes.get_top()[1], 0])

        line = Line([0, 0, 0], [0, 1, 0])
        follow(line)
        return line.add_updater(follow)

    def curves_shown(self) -> VGroup:
        """Everything of the three panels on screen: axes, legends, marker lines, the live curves, the cursor."""
        return VGroup(
            self.write_plot,
            self.memory,
            self.readout,
            self.legends,
            self.target_line,
            self.target_label,
            self.marker_lines,
            self.live,
            self.final,
            self.error,
            self.cursor,
        )

    def gate_maps(self) -> tuple[VGroup, VMobject]:
        """The T x H gate heatmaps: forget, input and output gate per time step (columns) and unit (rows),
        each with its name; and the axis note under them. Not yet shown."""
        maps = VGroup()
        for (name, label), y in zip(GATES, (0.95, -0.4, -1.75)):
            values = self.run[name].T  # (hidden units, time steps)
            heatmap = Heatmap(
                values,
                cell_size=self.stream.step,
                cell_height=1.15 / values.shape[0],
                vmin=0.0,
                vmax=1.0,
                dense=True,
                cell_stroke=0,
                colourbar=name == "input_gate",
                titles=False,
            )
            heatmap.shift([self.stream.x_of(0) - heatmap.cell(0, 0).get_center()[0], y - heatmap.cells.get_y(), 0])
            name_label = theme.label(label, theme.SMALL_SIZE).next_to(heatmap.cells, LEFT, buff=0.2)
            maps.add(VGroup(heatmap, name_label))
        axis = theme.text(f"rows: {self.run[GATES[0][0]].shape[1]} hidden units", theme.SMALL_SIZE, theme.muted())
        axis.next_to(maps, DOWN, buff=0.15).align_to(maps[0][0].cells, LEFT)
        # The marked steps are the lit input boxes right above their columns.
        return maps, axis

    def marker_columns(self, maps: VGroup) -> VGroup:
        """A dashed line down each marked step's column, over the three gate heatmaps."""
        top, bottom = maps[0][0].cells.get_top()[1], maps[2][0].cells.get_bottom()[1]
        return VGroup(
            *[
                DashedVMobject(
                    Line([self.stream.x_of(m), bottom, 0], [self.stream.x_of(m), top, 0]), num_dashes=24
                ).set_stroke(theme.highlight(), width=2, opacity=0.8)
                for m in self.markers
            ]
        )

    def point_out(self, plot: Plot, step: int, value: float, colour: ManimColor | None = None) -> Circumscribe:
        """A ring drawn around the value of step `step` on `plot`, then taken away: the number being read."""
        spot = Dot(plot.axes.c2p(step, float(value)), radius=0.1)
        return Circumscribe(spot, Circle, fade_out=True, color=colour or theme.highlight(), buff=0.04)

    def walk_to(self, step: int, run_time: float) -> None:
        """Time runs to `step` at an even pace: the cursor and the curves behind it."""
        self.play(self.cursor_time.animate.set_value(float(step)), run_time=run_time, rate_func=linear)

    def finish(self, run_time: float) -> None:
        """The final guess, marked and labelled beside the target; its error to the target (on self, not shown)."""
        last = self.length - 1
        end, goal = self.readout.axes.c2p(last, self.guess[-1]), self.readout.axes.c2p(last, self.target)
        final = theme.text(f"final guess {self.guess[-1]:.2f}", theme.SMALL_SIZE, theme.output_colour())
        final.next_to(self.target_label, DOWN, buff=0.12).align_to(self.target_label, LEFT)
        self.final = VGroup(final, Dot(end, radius=0.06, color=theme.output_colour()))
        self.play(FadeIn(final), Create(self.final[1]), run_time=run_time)
        gap = Line(end, goal, color=theme.highlight(), stroke_width=4)
        error = theme.text(f"error {abs(self.guess[-1] - self.target):.2f}", theme.SMALL_SIZE, theme.highlight())
        self.error = VGroup(gap, error.next_to(final, DOWN, buff=0.12).align_to(final, LEFT))
