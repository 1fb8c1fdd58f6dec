"""ReverseAlignment (seed 000, cell at2): a GRU encoder-decoder with additive attention, trained to reverse a
sequence, decodes the notebook's example step by step. At every step the additive scores become softmax
weights, drawn as a fan of lines and written into a row of the alignment matrix; the finished matrix is then
compared with the mirror anti-diagonal the notebook expects, and the trained model turns out to look one step
late. Everything drawn is the trained model's real attention from data/seq2seq_reverse."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import DOWN, LEFT, RIGHT, Create, FadeIn, FadeOut, LaggedStart, VGroup

from scenes.recurrent_attention.shared import (
    MOST,
    AlignmentBuildUp,
    mistakes_noted,
    mistakes_said,
    reads_both_ways,
    symbols,
    wrong_steps,
)
from seqanim import Artifact, count, integer, mark, percent, translated
from seqanim.kit import theme
from seqanim.kit.alignment import cell_outlines

DETAILED = 3  # the first decoder steps, one slide each; the rest run fast on one slide

# --- the words -------------------------------------------------------------------------------------


def _mirror(run: Artifact) -> np.ndarray:
    """Step t's mirror position L-1-t, where the symbol to emit sits."""
    length = len(run["source"])
    return length - 1 - np.arange(length)


def _late_steps(run: Artifact) -> list[int]:
    """One step late: the peak sits where the previous output's source symbol is (L-t), not on the mirror."""
    peaks, shifted, mirror = run["attention_argmax"], run["shifted_position"], _mirror(run)
    return [t for t in range(len(peaks)) if peaks[t] == shifted[t] != mirror[t]]


def _mirror_steps(run: Artifact) -> list[int]:
    peaks, mirror = run["attention_argmax"], _mirror(run)
    return [t for t in range(len(peaks)) if peaks[t] == mirror[t]]


def _looks_late(run: Artifact) -> bool:
    return run.metrics["held_out_argmax_on_shifted"] > run.metrics["held_out_argmax_on_mirror"]


def _steps(steps: list[int]) -> str:
    """'no step', 'step 0', 'steps 0 and 3', 'steps 0, 2 and 5'."""
    if not steps:
        return "no step"
    if len(steps) == 1:
        return f"step {steps[0]}"
    return "steps " + ", ".join(map(str, steps[:-1])) + f" and {steps[-1]}"


def _walk(positions: np.ndarray) -> str:
    """How a sequence of peak positions moves: 'walks from right to left', ... (from the data, not assumed)."""
    moves = np.diff(positions)
    if np.all(moves <= 0):
        return "walks from right to left"
    if np.all(moves >= 0):
        return "walks from left to right"
    return "jumps around"


def _almost_all(weight: float) -> bool:
    """Whether a weight's percentage would round to all (then it is said as 'almost all')."""
    return weight >= 0.995


def _share(weight: float) -> str:
    """A weight as heard: 'ninety-eight percent', or 'almost all' where the percentage would round to all."""
    return "almost all" if _almost_all(weight) else percent(weight, 0)


def stage_notes(run: Artifact) -> str:
    source, params = run["source"], run.params
    notes = (
        "A GRU encoder-decoder with additive (Bahdanau) attention, trained to REVERSE a sequence of "
        f"{len(source)} symbols. The notebook's example input is {symbols(source)}; "
        f"the target is {symbols(run['target'])}. "
        "On the left the mechanism, on the right the alignment matrix, empty for now."
    )
    if params["settle"] > 0:
        notes += (
            f" Unlike the notebook's recipe, the model trains the notebook's {params['iters']} Adam steps and then "
            f"{params['settle']} more with the learning rate falling linearly to zero: at {params['iters']} steps "
            "the result depends on which CPU kernels torch picks. With settle = 0 it is the notebook's recipe."
        )
    return notes


@translated
def stage_said(run: Artifact) -> dict[str, str]:
    length = len(run["source"])
    reads = "both ways, left to right and right to left" if reads_both_ways(run) else "from left to right"
    return {
        "encoder": f"A recurrent encoder reads {count(length, 'symbol')}, {reads}.",
        "decoder": f"A decoder must write them in reverse; {mark('matrix')}the matrix shows where it looks.",
    }


@dataclass(frozen=True)
class StepFacts:
    """One decoder step of the example, as its notes, caption and narration (English and German) tell it."""

    step: int
    where: int  # the source position the largest weight sits on
    weight: float  # that weight
    mirror: int  # the mirror position L-1-t, where the symbol to emit sits
    on_mirror: bool  # the peak is on the mirror
    late: bool  # the peak is one step late: on L-t, where the previous output's source symbol sits
    seen: int  # the source symbol at the peak
    due: int  # the source symbol at the mirror, the one due now
    wrote: int  # the decoder's output
    wanted: int  # the target's symbol
    written: bool  # the symbol at the peak is the previous output (said of a late step)


def step_facts(run: Artifact, step: int) -> StepFacts:
    """What decoder step `step` did: where it looked, how much, and what it wrote."""
    source, prediction = run["source"], run["prediction"]
    where, mirror = int(run["attention_argmax"][step]), int(_mirror(run)[step])
    return StepFacts(
        step=step,
        where=where,
        weight=float(run["attention"][step].max()),
        mirror=mirror,
        on_mirror=where == mirror,
        late=step in _late_steps(run),
        seen=int(source[where]),
        due=int(source[mirror]),
        wrote=int(prediction[step]),
        wanted=int(run["target"][step]),
        written=int(prediction[step - 1]) == int(source[where]),
    )


def step_notes(run: Artifact, step: int) -> str:
    facts, energies = step_facts(run, step), run["energies"]
    note = (
        f"Decoder step {step}: the decoder state s_{step} scores every encoder state, "
        f"e = v^T tanh(W_k h_j + W_q s_{step}); the scores run from {energies[step].min():.1f} to "
        f"{energies[step].max():.1f}. "
        f"The softmax turns them into weights: {facts.weight:.2f} on position {facts.where}, so the line there is "
        f"thick. It emits {facts.wrote}."
    )
    if step == 0:
        note = "The additive score is a tiny network comparing decoder state and encoder state. " + note
    if facts.on_mirror:
        note += f" That is the mirror position L-1-t = {facts.mirror}, where the target symbol {facts.due} sits."
    elif facts.late:
        note += (
            f" Note: the mirror position would be {facts.mirror} (symbol {facts.due}, the target); it looks at "
            f"position {facts.where} instead, one step later, where the previous target {facts.seen} sits."
        )
    else:
        note += (
            f" Note: the mirror position would be {facts.mirror} (symbol {facts.due}, the target); it looks elsewhere."
        )
    return note


def step_caption(run: Artifact, step: int) -> str:
    facts = step_facts(run, step)
    return f"step {step}: {facts.weight:.1%} of the weight on source position {facts.where} (symbol {facts.seen})"


@translated
def step_said(run: Artifact, step: int) -> dict[str, str]:
    facts = step_facts(run, step)
    seen, wrote = integer(facts.seen), integer(facts.wrote)
    # Bookmarks: where the scores start to fill ('scores'), where the weights are read ('why'), where the
    # output's source symbol is pointed at ('where').
    if step == 0:
        scores = (
            f"Step zero: {mark('network')}a tiny network {mark('scores')}scores every source symbol "
            "against the decoder state."
        )
        weights = f"Softmax turns scores into {mark('weights')}weights: {_share(facts.weight)} on symbol {seen}"
    else:
        scores = f"Step {integer(step)}: a new decoder state, {mark('scores')}so new scores."
        weights = f"{_share(facts.weight).capitalize()} of the weight is on symbol {seen}"
    if facts.on_mirror:
        weights += f", {mark('why')}the symbol due now."
    elif facts.late:
        weights += (
            f", {mark('why')}written a step ago." if facts.written else f", {mark('why')}the symbol due a step ago."
        )
    else:
        weights += f", {mark('why')}not on the {integer(facts.due)} due now."
    landing = f"Out comes {wrote}, {mark('where')}"
    if facts.wrote != facts.wanted:
        landing += f"but {integer(facts.wanted)} was due."
    elif facts.on_mirror:
        landing += "the symbol it looked at."
    elif facts.where == facts.mirror + 1:
        landing += "just left of where it looked."
    else:
        landing += "which is right."
    return {"scores": scores, "weights": weights, "landing": landing}


@dataclass(frozen=True)
class RestFacts:
    """The steps decoded fast, and the example's output, as the rest slide tells them."""

    length: int  # the example's symbols
    others: int  # the steps decoded fast, after the detailed ones
    walk: str  # how the peak moves over all steps (`_walk`'s words, which the German translates)
    wrong: list[int]  # the steps whose output is not the target's


def rest_facts(run: Artifact) -> RestFacts:
    """How the remaining steps go: the peaks' walk, and where the output is wrong."""
    length = len(run["source"])
    return RestFacts(
        length=length,
        others=max(length - DETAILED, 0),
        walk=_walk(run["attention_argmax"]),
        wrong=wrong_steps(run["prediction"], run["target"]),
    )


def rest_notes(run: Artifact) -> str:
    facts, attention, peaks, prediction = rest_facts(run), run["attention"], run["attention_argmax"], run["prediction"]
    notes = (
        f"The remaining steps, faster. Watch the bright cell: over all {facts.length} steps it {facts.walk}. "
        + "; ".join(
            f"step {t} -> position {int(peaks[t])} ({attention[t].max():.2f})" for t in range(DETAILED, facts.length)
        )
        + f". Output {symbols(prediction)}: example correct = {run.metrics['example_correct']}."
    )
    if facts.wrong:
        notes += f" Where it errs: {mistakes_noted(prediction, run['target'])}."
    return notes


def rest_caption(run: Artifact) -> str:
    return f"the remaining steps: the bright cell {rest_facts(run).walk}"


@translated
def rest_said(run: Artifact) -> dict[str, str]:
    facts = rest_facts(run)
    first = f"The other {count(facts.others, 'step')} run faster. Watch the bright cell: it {facts.walk}."
    if facts.wrong:
        second = (
            "Read down the rows: the output is the input reversed, "
            f"except that {mark('read')}{mistakes_said(run['prediction'], run['target'])}."
        )
    else:
        second = (
            "Read down the rows: the output is the input reversed, "
            f"{mark('read')}all {count(facts.length, 'symbol')} in place."
        )
    return {"faster": first, "result": second}


@dataclass(frozen=True)
class MirrorFacts:
    """The finished matrix against the notebook's mirror anti-diagonal, as the mirror slide tells it."""

    length: int  # the example's steps
    on_mirror: list[int]  # the steps whose peak is on the mirror L-1-t
    late: list[int]  # the steps whose peak is one step late, on L-t
    looks_late: bool  # held out, the peak is on L-t more often than on the mirror
    mirror_mass: float  # the weight on the mirror in the example
    late_mass: float  # the weight on L-t in the example
    held_out_mirror_mass: float
    held_out_late_mass: float
    held_out_on_late: float  # the held-out steps whose peak is on L-t
    held_out_on_mirror: float  # the held-out steps whose peak is on the mirror
    test_size: int  # the held-out sequences


def mirror_facts(run: Artifact) -> MirrorFacts:
    """Where the example's peaks sit against the mirror, and the weight there, in the example and held out."""
    metrics = run.metrics
    return MirrorFacts(
        length=len(run["source"]),
        on_mirror=_mirror_steps(run),
        late=_late_steps(run),
        looks_late=_looks_late(run),
        mirror_mass=metrics["example_mirror_mass"],
        late_mass=metrics["example_shifted_mass"],
        held_out_mirror_mass=metrics["held_out_mirror_mass"],
        held_out_late_mass=metrics["held_out_shifted_mass"],
        held_out_on_late=metrics["held_out_argmax_on_shifted"],
        held_out_on_mirror=metrics["held_out_argmax_on_mirror"],
        test_size=run.params["test_size"],
    )


def mirror_notes(run: Artifact) -> str:
    facts = mirror_facts(run)
    return (
        "The notebook expects a clean anti-diagonal: output t attends to its mirror image, "
        "position L-1-t (dashed squares). "
        f"On the mirror the trained model puts {facts.mirror_mass:.1%} of the weight in this "
        f"example and {facts.held_out_mirror_mass:.1%} on {facts.test_size} held-out sequences; "
        f"on position L-t (the previous output's source position) {facts.late_mass:.1%} here "
        f"and {facts.held_out_late_mass:.1%} held out. "
        f"The argmax is on L-t for {facts.held_out_on_late:.1%} of held-out steps and on the "
        f"mirror for {facts.held_out_on_mirror:.1%}. "
        f"In this example the peak is on the mirror at {_steps(facts.on_mirror)} and one step late at "
        f"{_steps(facts.late)}."
        + (
            " So the model does not quite draw the notebook's anti-diagonal: it looks one step late."
            if facts.looks_late
            else ""
        )
    )


def mirror_caption(run: Artifact) -> str:
    facts = mirror_facts(run)
    return f"peak on the mirror at {_steps(facts.on_mirror)}, on L-t at {len(facts.late)} of {facts.length} steps"


def mirror_board(run: Artifact) -> dict[str, str]:
    """The lines beside the matrix, top to bottom: the dashed squares; the weight on the mirror and on L-t, each
    here and held out; the verdict."""
    facts = mirror_facts(run)
    late, length = len(facts.late), facts.length
    verdict = "the model looks one step late" if late == length - 1 else f"one step late at {late} of {length} steps"
    return {
        "dashed": "dashed: the mirror position L-1-t",
        "mirror": f"weight on the mirror: {facts.mirror_mass:.0%}",
        "mirror_held_out": f"({facts.held_out_mirror_mass:.0%} on held-out sequences)",
        "late": f"weight on position L-t: {facts.late_mass:.0%}",
        "late_held_out": f"({facts.held_out_late_mass:.0%} on held-out sequences)",
        "verdict": verdict,
    }


@translated
def mirror_said(run: Artifact) -> dict[str, str]:
    facts = mirror_facts(run)
    on_mirror, late = percent(facts.mirror_mass, 0), percent(facts.late_mass, 0)
    first = "Dashed squares mark the mirror image: where the notebook expects each step to look."
    if facts.looks_late:
        second = (
            f"Only {on_mirror} of the weight sits there; {mark('right')}{late} sits one square right: "
            f"one step late, {mark('held')}on held-out sequences too."
        )
    else:
        second = (
            f"{on_mirror.capitalize()} of the weight sits there, {mark('right')}and {late} one square to the right; "
            f"{mark('held')}on held-out sequences the mirror wins."
        )
    return {"dashed": first, "weights": second}


@dataclass(frozen=True)
class ExplainFacts:
    """Why the model looks where it does, and how well it does, as the last slide tells it."""

    looks_late: bool  # held out, the peak is on L-t more often than on the mirror
    both_ways: bool  # the encoder is bidirectional: only its forward half reads left to right
    accuracy: float  # held-out token accuracy, teacher-forced (as the notebook)
    greedy_accuracy: float  # held-out token accuracy, fed its own outputs
    correct: bool  # the example comes out right teacher-forced
    greedy_correct: bool  # the example comes out right greedily
    greedy_wrong: list[int]  # the example's wrong steps, decoding greedily
    on_position: float  # the held-out steps whose peak is on the mirror or on L-t, whichever holds more
    aligned: bool  # that is most of them (`MOST`): attention has learned an alignment


def explain_facts(run: Artifact) -> ExplainFacts:
    """The reason's case (late or on the mirror) and the accuracies, held out and on the example."""
    metrics = run.metrics
    on_position = max(metrics["held_out_argmax_on_shifted"], metrics["held_out_argmax_on_mirror"])
    return ExplainFacts(
        looks_late=_looks_late(run),
        both_ways=reads_both_ways(run),
        accuracy=metrics["token_accuracy"],
        greedy_accuracy=metrics["greedy_token_accuracy"],
        correct=metrics["example_correct"],
        greedy_correct=metrics["example_greedy_correct"],
        greedy_wrong=wrong_steps(run["greedy_prediction"], run["target"]),
        on_position=on_position,
        aligned=on_position > MOST,
    )


def explain_notes(run: Artifact) -> str:
    facts = explain_facts(run)
    both = {
        (True, True): "right both ways",
        (True, False): "right teacher-forced only",
        (False, True): "right greedily only",
        (False, False): "wrong both ways",
    }[(facts.correct, facts.greedy_correct)]
    if facts.looks_late and facts.both_ways:
        reason = (
            "Why one step late? The bidirectional encoder's forward GRU reads left to right, so its half of the "
            "state at position L-t has just read x_(L-t) and still remembers x_(L-1-t), the symbol to emit now "
            "(its backward half remembers x_(L-t+1)). "
            "The decoder was just fed its previous output x_(L-t), so finding where that symbol sits is an easy "
            "content match; reading one step back comes free from the recurrence. "
            "Either position would do; training settled on this one. "
        )
    elif facts.looks_late:
        reason = (
            "Why one step late? The encoder GRU reads left to right, so its state at position L-t has just read "
            "x_(L-t) and still remembers x_(L-1-t), the symbol to emit now. "
            "The decoder was just fed its previous output x_(L-t), so finding where that symbol sits is an easy "
            "content match; reading one step back comes free from the recurrence. "
            "Either position would do; training settled on this one. "
        )
    else:
        reason = "Held out, the peak sits on the mirror more often than on L-t: the notebook's anti-diagonal. "
    notes = (
        reason + f"Held-out token accuracy: {facts.accuracy:.1%} teacher-forced (as the notebook), "
        f"{facts.greedy_accuracy:.1%} when the decoder is fed its own outputs; "
        f"the example is {both} (teacher-forced correct = {facts.correct}, "
        f"greedy correct = {facts.greedy_correct})."
    )
    if facts.greedy_wrong:
        notes += f" Decoding greedily, {mistakes_noted(run['greedy_prediction'], run['target'])}."
    return notes


@dataclass(frozen=True)
class ExplainBoard:
    """The lines beside the matrix on the last slide: the reason, then the held-out accuracy."""

    reason: tuple[str, ...]  # three lines
    accuracy: str  # the heading
    teacher_forced: str
    greedy: str


def explain_board(run: Artifact) -> ExplainBoard:
    """The reason (three lines) and the held-out accuracy (a heading and two lines)."""
    facts = explain_facts(run)
    if facts.looks_late and facts.both_ways:
        reason = (
            "the forward GRU reads left to right:",
            "its state at L-t still remembers",
            "x at L-1-t, the symbol to emit now",
        )
    elif facts.looks_late:
        reason = (
            "the encoder reads left to right:",
            "its state at L-t still remembers",
            "x at L-1-t, the symbol to emit now",
        )
    else:
        reason = ("held out, the peak sits on", "the mirror more often than on L-t", "the notebook's anti-diagonal")
    return ExplainBoard(
        reason=reason,
        accuracy="held-out token accuracy:",
        teacher_forced=f"{facts.accuracy:.1%} teacher-forced",
        greedy=f"{facts.greedy_accuracy:.1%} decoding greedily",
    )


EXPLAIN_CAPTION = "attention learned an alignment: a position, found anew at every step"


def explain_caption(run: Artifact) -> str:
    facts = explain_facts(run)
    if facts.aligned:
        return EXPLAIN_CAPTION
    return f"no clear alignment yet: held out, {facts.on_position:.0%} of peaks on the mirror or on L-t"


@translated
def explain_said(run: Artifact) -> dict[str, str]:
    """The reason, the held-out accuracy teacher-forced, then greedily and the conclusion ('aligned')."""
    facts = explain_facts(run)
    if facts.looks_late and facts.both_ways:
        reason = (
            "Why late? The forward half of each encoder state still remembers the symbol just before it, the one "
            "due now."
        )
    elif facts.looks_late:
        reason = "Why late? Each encoder state still remembers the symbol just before it, the one due now."
    else:
        reason = "Held out, the peak sits on the mirror more often than one step late: the notebook's anti-diagonal."
    overall = f"Overall, {percent(facts.accuracy, 0)} of held-out symbols come out right."
    fed = f"Fed its own outputs, it still gets {percent(facts.greedy_accuracy, 0)}."
    if facts.greedy_wrong:
        fed += f" On this example, {mistakes_said(run['greedy_prediction'], run['target'])}."
    if facts.aligned:
        fed += f" {mark('aligned')}Attention has learned an alignment."
    else:
        fed += (
            f" {mark('aligned')}Its attention has not settled: only {percent(facts.on_position, 0)} of held-out "
            "peaks sit on the mirror or one step late."
        )
    return {"why": reason, "overall": overall, "fed": fed}


# --- the scene -------------------------------------------------------------------------------------


class ReverseAlignment(AlignmentBuildUp):
    """at2: trained to reverse, attention lines each output up with a source position."""

    data = ("seq2seq_reverse",)

    def construct(self) -> None:
        self.run = self.load("seq2seq_reverse")
        self.stage()
        for step in range(min(DETAILED, len(self.source))):
            self.step(step)
        self.rest()
        self.compare_with_mirror()
        self.explain()

    def stage(self) -> None:
        self.build_stage(
            self.run,
            side=4.2,
            col_title="source symbol",
            encoder_text="source symbols $x_j$, read into encoder states $h_j$",
        )
        self.next_slide(notes=stage_notes(self.run))
        said = stage_said(self.run)
        with self.beat(said["encoder"]) as beat:  # the symbols appear left to right, as the encoder reads them
            reads = [FadeIn(self.encoder_label), self.encoder_reads()]
            self.title("Seq2seq attention learns to align", along=reads, run_time=beat.remaining)
        with self.beat(said["decoder"]) as beat:
            self.show_decoder(beat.until("matrix"))
            self.show_matrix(beat.remaining)

    def step(self, step: int) -> None:
        self.next_slide(notes=step_notes(self.run, step))
        said = step_said(self.run, step)
        with self.beat(said["scores"]) as beat:
            if step == 0:
                self.point(step, beat.until("network"))
                self.introduce_scores(beat.until("scores"))
            else:  # the previous step's caption goes as the decoder moves on
                self.point(step, beat.until("scores"), *self.drop_caption())
            self.score(step, beat.remaining)
        with self.beat(said["weights"]) as beat:
            if step == 0:
                self.introduce_weights(beat.until("weights"))
            self.weigh(step, beat.until("why"))
            self.play(*self.peak(step), run_time=beat.remaining / 2)
            self.say(step_caption(self.run, step), theme.caption_colour(), run_time=beat.remaining)
        with self.beat(said["landing"]) as beat:  # the row lands; then the source symbol it wrote is pointed at
            self.land(step, beat.until("where"))
            due = step_facts(self.run, step).mirror
            self.play(*self.indicate_token(due, theme.query_colour()), run_time=beat.remaining)

    def rest(self) -> None:
        self.next_slide(notes=rest_notes(self.run))
        said = rest_said(self.run)
        steps = list(range(DETAILED, len(self.source)))
        half = (len(steps) + 1) // 2  # the second beat reads the rows at its end: fewer steps in it
        with self.beat(said["faster"]) as beat:
            self.say(rest_caption(self.run), run_time=0.4)
            self.decode(steps[:half], beat)
        with self.beat(said["result"]) as beat:
            self.decode(steps[half:], beat, until="read")
            wrong = wrong_steps(self.prediction, self.run["target"])
            self.read_rows(wrong or range(len(self.source)), beat.remaining)

    @staticmethod
    def board(*rows: tuple[str, object]) -> VGroup:
        """Left-aligned lines of text, each with its own colour."""
        return VGroup(*[theme.text(text, theme.LABEL_SIZE, colour) for text, colour in rows]).arrange(
            DOWN, aligned_edge=LEFT, buff=0.22
        )

    def compare_with_mirror(self) -> None:
        self.next_slide(notes=mirror_notes(self.run))
        said = mirror_said(self.run)
        mirror = _mirror(self.run)
        outlines = cell_outlines(self.heatmap, [(t, int(mirror[t])) for t in range(len(mirror))])
        shifted = self.run["shifted_position"]
        late = cell_outlines(
            self.heatmap, [(t, int(shifted[t])) for t in mirror_facts(self.run).late], theme.key_colour()
        )
        plain, aside, stress = theme.foreground(), theme.muted(), theme.highlight()
        colours = {
            "dashed": plain,
            "mirror": plain,
            "mirror_held_out": aside,
            "late": stress,
            "late_held_out": aside,
            "verdict": stress,
        }
        words = mirror_board(self.run)
        lines = self.board(*[(words[name], colours[name]) for name in words]).move_to([-3.6, 0.2, 0])
        line = dict(zip(words, lines))
        with self.beat(said["dashed"]) as beat:  # the dashed squares run down the anti-diagonal
            self.clear_mechanism()
            self.play(
                FadeIn(line["dashed"], shift=0.1 * RIGHT),
                Create(outlines, lag_ratio=0.5),
                run_time=beat.remaining,
            )
        with self.beat(said["weights"]) as beat:  # the weight on the mirror; on L-t, its squares; then held out
            self.play(FadeIn(line["mirror"], shift=0.1 * RIGHT), run_time=beat.until("right"))
            self.play(
                FadeIn(line["late"], shift=0.1 * RIGHT),
                Create(late, lag_ratio=0.3),
                run_time=beat.until("held"),
            )
            held = [FadeIn(line[name], shift=0.1 * RIGHT) for name in ("mirror_held_out", "late_held_out", "verdict")]
            self.play(LaggedStart(*held, lag_ratio=0.3), run_time=beat.remaining / 2)
            self.say(mirror_caption(self.run), run_time=beat.remaining)
        self.mirror_lines = lines

    def explain(self) -> None:
        self.next_slide(notes=explain_notes(self.run))
        said = explain_said(self.run)
        words = explain_board(self.run)
        board = self.board(
            *[(line, theme.foreground()) for line in words.reason],
            (words.accuracy, theme.muted()),
            (words.teacher_forced, theme.value_colour()),
            (words.greedy, theme.value_colour()),
        )
        board.move_to([-3.6, 0.2, 0])
        board[3:].shift(0.3 * DOWN)  # a gap between the reason and the accuracy
        with self.beat(said["why"]) as beat:
            self.play(FadeOut(self.mirror_lines), run_time=0.4)
            self.play(LaggedStart(*[FadeIn(line, shift=0.1 * RIGHT) for line in board[:3]], lag_ratio=0.4),
                      run_time=beat.remaining)  # fmt: skip
        with self.beat(said["overall"]) as beat:
            self.play(LaggedStart(*[FadeIn(line, shift=0.1 * RIGHT) for line in board[3:5]], lag_ratio=0.4),
                      run_time=beat.remaining)  # fmt: skip
        with self.beat(said["fed"]) as beat:
            self.play(FadeIn(board[5], shift=0.1 * RIGHT), run_time=beat.until("aligned"))
            self.say(explain_caption(self.run), theme.caption_colour(), run_time=beat.remaining)
