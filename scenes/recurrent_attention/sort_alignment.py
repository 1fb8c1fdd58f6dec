"""SortAlignment (seed 000, cell at4): the same attention seq2seq, with a bidirectional encoder, trained to
sort distinct values. Step by step, each decoder step points to wherever the t-th smallest value sits; the
finished matrix is set beside the reversal's (position decides there, content here), three held-out inputs
show a new permutation each, and the scene closes on the claim that attention aligns by content. Everything
drawn is the trained models' real attention from data/seq2seq_sort and data/seq2seq_reverse."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    RIGHT,
    UP,
    Circumscribe,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    ReplacementTransform,
    VGroup,
    Write,
)

from scenes.recurrent_attention.shared import (
    MOST,
    AlignmentBuildUp,
    mistakes_noted,
    mistakes_said,
    reads_both_ways,
    symbols,
    wrong_steps,
)
from seqanim import Artifact, count, integer, listing, mark, percent, translated
from seqanim.kit import theme
from seqanim.kit.alignment import cell_outlines
from seqanim.kit.heatmap import Heatmap

DETAILED = 2  # the first decoder steps, one slide each; the rest run fast on one slide

# --- the words -------------------------------------------------------------------------------------

ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
).split()


def _smallest(rank: int) -> str:
    """'smallest', '2nd smallest', ..., '11th smallest', '21st smallest' for rank 0, 1, ..."""
    n = rank + 1
    if n == 1:
        return "smallest"
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} smallest"


@translated
def _smallest_said(rank: int) -> str:
    """'smallest', 'second smallest', ... as heard ('next smallest' past the twentieth)."""
    if rank == 0:
        return "smallest"
    return f"{ORDINALS[rank]} smallest" if rank < len(ORDINALS) else "next smallest"


def _misses(run: Artifact) -> list[int]:
    """The steps whose peak is not on the t-th smallest value."""
    peaks, positions = run["attention_argmax"], run["sorted_position"]
    return [t for t in range(len(peaks)) if peaks[t] != positions[t]]


@translated
def _steps_said(steps: list[int], length: int) -> str:
    """'the last step', 'step two', 'steps two and five' as heard."""
    if steps == [length - 1]:
        return "the last step"
    return ("step " if len(steps) == 1 else "steps ") + listing([integer(t) for t in steps])


@dataclass(frozen=True)
class HeldOutInput:
    """One held-out input shown after the example: its values, the attention, the output and where it errs."""

    source: np.ndarray
    attention: np.ndarray
    prediction: np.ndarray
    target: np.ndarray  # its values sorted
    wrong: list[int]  # the steps whose output is not the target's


def _more(run: Artifact) -> list[HeldOutInput]:
    """The held-out inputs shown one after the other."""
    shown = zip(run["more_sources"], run["more_attention"], run["more_predictions"])
    return [
        HeldOutInput(source, attention, prediction, np.sort(source), wrong_steps(prediction, np.sort(source)))
        for source, attention, prediction in shown
    ]


def stage_notes(run: Artifact) -> str:
    source, target = run["source"], run["target"]
    encoder = "a bidirectional encoder" if reads_both_ways(run) else "a plain left-to-right GRU encoder"
    return (
        "Reversal is purely positional: output t always wants input L-1-t. "
        f"Now the same attention seq2seq, with {encoder}, "
        f"is trained to SORT {len(source)} distinct values. "
        f"The notebook's example input {symbols(source)}, target {symbols(target)}. "
        "Step t must point to wherever the t-th smallest value sits."
    )


@translated
def stage_said(run: Artifact) -> dict[str, str]:
    return {
        "encoder": f"Now the same kind of network learns to sort {count(len(run['source']), 'value')}.",
        "decoder": (
            f"Its encoder reads them {'both ways' if reads_both_ways(run) else 'from left to right'}; "
            f"{mark('step')}each step must find the next smallest."
        ),
    }


@dataclass(frozen=True)
class StepFacts:
    """One decoder step of the example, as its notes, caption and narration (English and German) tell it."""

    step: int
    value: int  # the step-th smallest value, the one due
    where: int  # the source position it sits at
    weight: float  # the weight on that position
    wrote: int  # the decoder's output


def step_facts(run: Artifact, step: int) -> StepFacts:
    """What decoder step `step` wants, how much weight lands on it, and what it writes."""
    where = int(run["sorted_position"][step])
    return StepFacts(
        step=step,
        value=int(run["target"][step]),
        where=where,
        weight=float(run["attention"][step, where]),
        wrote=int(run["prediction"][step]),
    )


def step_notes(run: Artifact, step: int) -> str:
    facts, energies = step_facts(run, step), run["energies"]
    note = (
        f"Decoder step {step}: the {_smallest(step)} value is {facts.value}, at source position {facts.where}. "
        f"The additive scores run from {energies[step].min():.1f} to {energies[step].max():.1f}; "
        f"after the softmax {facts.weight:.2f} of the weight lands on position {facts.where}, "
        f"and the decoder emits {facts.wrote}."
    )
    if step == 0:
        note = (
            "Same scoring network as for reversal: e = v^T tanh(W_k h_j + W_q s_t), "
            "then a softmax over source positions. " + note
        )
    return note


def step_caption(run: Artifact, step: int) -> str:
    facts = step_facts(run, step)
    return (
        f"step {step}: the {_smallest(step)} value, {facts.value}, sits at position {facts.where}: "
        f"{facts.weight:.0%} of the weight"
    )


@translated
def step_said(run: Artifact, step: int) -> dict[str, str]:
    facts = step_facts(run, step)
    value = integer(facts.value)
    # Bookmarks: where the wanted value is named ('want'), the scores start ('scores'), the weights are read
    # ('share', after the softmax's formula) and pointed at ('there').
    if step == 0:
        scores = (
            f"Step zero wants {mark('want')}the smallest value, {value}; "
            f"{mark('network')}the same small network {mark('scores')}scores every value."
        )
    else:
        scores = f"Step {integer(step)} wants {mark('want')}the {_smallest_said(step)} value, {value}."
    share = percent(facts.weight, 0)
    weights = (
        f"After the softmax, {mark('share')}{share} of the weight {mark('there')}sits on that value."
        if step == 0
        else f"{share.capitalize()} of the weight {mark('there')}sits on that value."
    )
    landing = f"The decoder writes {integer(facts.wrote)}"
    if facts.wrote == facts.value:
        landing += ", as it should."
    else:
        landing += f"; that is wrong, {value} was due."
    return {"scores": scores, "weights": weights, "landing": landing}


@dataclass(frozen=True)
class RestFacts:
    """The steps decoded fast, and the example's output, as the rest slide tells them."""

    length: int  # the example's values
    misses: list[int]  # the steps whose peak is not on the t-th smallest value
    wrong: list[int]  # the steps whose output is not the target's


def rest_facts(run: Artifact) -> RestFacts:
    """Where the peaks miss the wanted value, and where the output is wrong."""
    return RestFacts(
        length=len(run["source"]), misses=_misses(run), wrong=wrong_steps(run["prediction"], run["target"])
    )


def rest_notes(run: Artifact) -> str:
    facts, attention, target, positions = rest_facts(run), run["attention"], run["target"], run["sorted_position"]
    prediction = run["prediction"]
    notes = (
        "The remaining steps, faster. "
        + (
            "The bright cell jumps around, following the values, not the positions: "
            if not facts.misses
            else f"The bright cell is on the t-th smallest value at {facts.length - len(facts.misses)} of "
            f"{facts.length} steps: "
        )
        + "; ".join(
            f"step {t} -> position {int(positions[t])} (value {target[t]}, weight {attention[t, positions[t]]:.2f})"
            for t in range(DETAILED, facts.length)
        )
        + f". Output {symbols(prediction)}: example correct = {run.metrics['example_correct']}."
    )
    if facts.wrong:
        notes += f" Where it errs: {mistakes_noted(prediction, target)}."
    return notes


def rest_caption(run: Artifact) -> str:
    facts = rest_facts(run)
    if not facts.misses:
        return "the remaining steps: the pointer jumps wherever the next value sits"
    return (
        f"the remaining steps: the peak is on the next value at {facts.length - len(facts.misses)} of "
        f"{facts.length} steps"
    )


@translated
def rest_said(run: Artifact) -> dict[str, str]:
    facts = rest_facts(run)
    first = "The remaining steps run faster; the bright cell jumps to wherever the next value sits."
    second = "It follows values, not positions"
    second += f"; only at {_steps_said(facts.misses, facts.length)} does the peak miss." if facts.misses else "."
    if facts.wrong:  # 'read': the outputs are read down the rows
        second += f" {mark('read')}The output goes wrong: {mistakes_said(run['prediction'], run['target'])}."
    else:
        second += f" {mark('read')}The output comes out sorted, all {count(facts.length, 'value')} in place."
    return {"faster": first, "result": second}


@dataclass(frozen=True)
class ContrastFacts:
    """How often position decides in reversal and content decides in sorting, on held-out steps."""

    position_decides: float  # the reversal's held-out steps whose peak is on its fixed position (mirror or L-t)
    late: bool  # that position is L-t, one step late (more held-out peaks there than on the mirror L-1-t)
    positional: bool  # position decides in most held-out steps (`MOST`): the reversal draws one staircase
    content_decides: float  # the sorter's held-out steps whose peak is on the t-th smallest value
    by_content: bool  # content decides in most held-out steps


def contrast_facts(run: Artifact, reverse: Artifact) -> ContrastFacts:
    """The two matrices' held-out evidence: the reversal's staircase, the sorter's permutation."""
    late, mirror = reverse.metrics["held_out_argmax_on_shifted"], reverse.metrics["held_out_argmax_on_mirror"]
    content = run.metrics["held_out_argmax_on_target"]
    return ContrastFacts(
        position_decides=max(late, mirror),
        late=late > mirror,
        positional=max(late, mirror) > MOST,
        content_decides=content,
        by_content=content > MOST,
    )


def contrast_notes(run: Artifact, reverse: Artifact) -> str:
    facts = contrast_facts(run, reverse)
    position = "L-t" if facts.late else "the mirror L-1-t"
    reverse_said = (
        "Reversal (left) is positional: "
        f"the same staircase for every input, {facts.position_decides:.1%} of held-out "
        f"steps peak at the same position {position}. "
        if facts.positional
        else f"Reversal (left) is not clearly positional: only {facts.position_decides:.1%} of held-out steps peak "
        f"at the same position {position}. "
    )
    sort_said = (
        "Sorting (right) is content-driven: the peak sits wherever the t-th smallest value is, "
        f"{facts.content_decides:.2%} of held-out steps; "
        if facts.by_content
        else f"Sorting (right) only partly follows content: the peak is on the t-th smallest value in "
        f"{facts.content_decides:.2%} of held-out steps; "
    )
    return "Side by side. " + reverse_said + sort_said + "the matrix is a permutation that changes with every input."


CONTRAST_CAPTION = "same model, same scoring rule: the alignment it learns depends on the task"


@translated
def contrast_said(run: Artifact, reverse: Artifact) -> dict[str, str]:
    facts = contrast_facts(run, reverse)
    return {
        "moves": "Now side by side: the sorting matrix moves right.",
        "staircase": (
            f"On the left, reversal: {mark('staircase')}one staircase for every input."
            if facts.positional
            else f"On the left, reversal: {mark('staircase')}its peaks, step by step."
        ),
        "decides": (
            (
                f"Position decides there, in {percent(facts.position_decides, 0)} of held-out steps; "
                if facts.positional
                else f"There the peak sits at one fixed position in only {percent(facts.position_decides, 0)} of "
                "held-out steps; "
            )
            + (
                f"{mark('content')}content decides here. "
                if facts.by_content
                else f"{mark('content')}here content decides in only {percent(facts.content_decides, 0)}. "
            )
            + f"{mark('same')}Same model, different task, different alignment."
        ),
    }


@dataclass(frozen=True)
class OtherInputsFacts:
    """The held-out inputs shown after the example, and how many of them come out sorted."""

    inputs: list[HeldOutInput]
    correct: int  # the inputs sorted correctly
    total: int


def other_inputs_facts(run: Artifact) -> OtherInputsFacts:
    """The held-out inputs, one after the other, and the count of those sorted right."""
    inputs = _more(run)
    return OtherInputsFacts(inputs=inputs, correct=int(run.metrics["more_correct"]), total=len(inputs))


def other_inputs_notes(run: Artifact) -> str:
    facts = other_inputs_facts(run)
    correct, total = facts.correct, facts.total
    described = "; ".join(
        f"input {symbols(shown.source)}: step 0 points to position "
        f"{int(shown.attention[0].argmax())} (value {shown.source[int(shown.attention[0].argmax())]}), "
        f"output {symbols(shown.prediction)}"
        for shown in facts.inputs
    )
    verdict = (
        f"All {total} are sorted correctly." if correct == total else f"{correct} of {total} are sorted correctly."
    )
    return (
        f"{total} held-out inputs, one after the other, on the right; "
        f"the reversal on the left would look the same for every input. {described}. {verdict}"
    )


def input_caption(index: int, source: np.ndarray, prediction: np.ndarray) -> str:
    return f"held-out input {index + 1}: {symbols(source)}  ->  {symbols(prediction)}"


@translated
def other_inputs_said(run: Artifact) -> list[str]:
    """One beat per held-out input: the new permutation, and whether it comes out sorted. Bookmarks: where the
    reversal is pointed at ('reverse'), where the outputs are read ('all')."""
    facts = other_inputs_facts(run)
    correct, total = facts.correct, facts.total
    said = []
    for index, shown in enumerate(facts.inputs):
        if index == 0:
            beat = "A new input, never seen in training: the bright cells move with its values."
        elif index == 1:
            beat = "Another input, another permutation; "
            beat += f"{mark('reverse')}the reversal on the left would not change at all."
        else:
            beat = "And another."
        if shown.wrong:
            beat += f" This one slips: {mistakes_said(shown.prediction, shown.target)}."
        if index == total - 1:
            beat += (
                f" {mark('all')}All {integer(total)} come out sorted."
                if correct == total
                else f" {mark('all')}{integer(correct).capitalize()} of {integer(total)} come out sorted."
            )
        said.append(beat)
    return said


def _reverse_mass(reverse: Artifact) -> float:
    """The reversal's strongest alignment (wherever its peaks sit), to compare with before calling sorting softer."""
    return max(reverse.metrics["held_out_shifted_mass"], reverse.metrics["held_out_mirror_mass"])


@dataclass(frozen=True)
class SummaryFacts:
    """The sorter's held-out statistics against the reversal's, as the summary slide tells them."""

    target_mass: float  # the mean weight on the t-th smallest value
    neighbour_mass: float  # the mean weight on its neighbours in sorted order
    reverse_mass: float  # the reversal's on its preferred position (`_reverse_mass`)
    softer: bool  # the sorter's weight on the right value is below the reversal's
    on_target: float  # the held-out steps whose peak is on the right value
    by_content: bool  # that is most of them (`MOST`): attention aligns by content
    accuracy: float  # held-out token accuracy, teacher-forced
    greedy_accuracy: float  # held-out token accuracy, decoding greedily
    test_size: int  # the held-out inputs


def summary_facts(run: Artifact, reverse: Artifact) -> SummaryFacts:
    """How sharply the sorter aligns by content, held out, and whether that is softer than the reversal."""
    metrics, reverse_mass = run.metrics, _reverse_mass(reverse)
    return SummaryFacts(
        target_mass=metrics["held_out_target_mass"],
        neighbour_mass=metrics["held_out_neighbour_mass"],
        reverse_mass=reverse_mass,
        softer=metrics["held_out_target_mass"] < reverse_mass,
        on_target=metrics["held_out_argmax_on_target"],
        by_content=metrics["held_out_argmax_on_target"] > MOST,
        accuracy=metrics["token_accuracy"],
        greedy_accuracy=metrics["greedy_token_accuracy"],
        test_size=run.params["test_size"],
    )


def summary_notes(run: Artifact, reverse: Artifact) -> str:
    facts = summary_facts(run, reverse)
    return (
        f"On {facts.test_size} held-out inputs the sorter gets {facts.accuracy:.1%} of "
        f"tokens right teacher-forced and {facts.greedy_accuracy:.1%} decoding greedily. "
        f"Attention is {'softer' if facts.softer else 'no softer'} than for reversal "
        f"({facts.reverse_mass:.1%} on its preferred position): "
        f"on average {facts.target_mass:.1%} of the weight sits on the t-th smallest value and "
        f"{facts.neighbour_mass:.1%} on its neighbours in sorted order "
        "(the values just below and above); the peak is on the right value in "
        f"{facts.on_target:.2%} of steps. "
        "Dashed squares mark where the t-th smallest value of the input on screen sits."
    )


def summary_evidence(run: Artifact) -> str:
    return f"held out, {run.metrics['held_out_argmax_on_target']:.1%} of steps peak there"


def summary_mass(run: Artifact, reverse: Artifact) -> dict[str, str]:
    """The held-out weight on the right value ('sort'), and the reversal's on its preferred position ('reverse'),
    one line each."""
    facts = summary_facts(run, reverse)
    return {
        "sort": f"on average {facts.target_mass:.0%} of the weight sits there",
        "reverse": f"(reversal: {facts.reverse_mass:.0%} on its position)",
    }


SUMMARY_CAPTION = "dashed: where the t-th smallest value of this input sits"


@translated
def summary_said(run: Artifact, reverse: Artifact) -> dict[str, str]:
    facts = summary_facts(run, reverse)
    on_target = percent(facts.target_mass, 0)
    if facts.softer:
        softer = f"On average only {on_target} of the weight lands {mark('right')}on the right value: "
        softer += "softer than in reversal."
    else:
        softer = f"On average {on_target} of the weight lands {mark('right')}on the right value, "
        softer += "as much as in reversal."
    return {
        "dashed": f"The reversal fades; {mark('dashed')}dashed squares mark where each step should look.",
        "content": (
            f"Attention aligns by content: {mark('in')}in "
            f"{percent(facts.on_target, 0)} of held-out steps, the peak is on the right value."
            if facts.by_content
            else f"Attention aligns only partly by content: {mark('in')}in just "
            f"{percent(facts.on_target, 0)} of held-out steps is the peak on the right value."
        ),
        "answers": softer,
    }


# --- the scene -------------------------------------------------------------------------------------


class SortAlignment(AlignmentBuildUp):
    """at4: trained to sort, each step points to wherever the t-th smallest value sits (content, not position)."""

    data = ("seq2seq_sort", "seq2seq_reverse")

    def construct(self) -> None:
        self.run, self.reverse = self.load("seq2seq_sort"), self.load("seq2seq_reverse")
        self.stage()
        for step in range(min(DETAILED, len(self.source))):
            self.step(step)
        self.rest()
        self.contrast()
        self.other_inputs()
        self.summary()

    def stage(self) -> None:
        self.build_stage(
            self.run,
            side=4.0,
            col_title="source value",
            encoder_text=f"values $x_j$, read {'both ways' if reads_both_ways(self.run) else 'left to right'} "
            "into states $h_j$",
        )
        self.next_slide(notes=stage_notes(self.run))
        said = stage_said(self.run)
        with self.beat(said["encoder"]) as beat:  # the values appear
            self.title("A harder alignment: learning to sort", along=[self.encoder_reads()], run_time=beat.remaining)
        with self.beat(said["decoder"]) as beat:  # how the encoder reads, then the decoder and its matrix
            self.play(FadeIn(self.encoder_label, shift=0.1 * DOWN), run_time=beat.until("step"))
            self.show_decoder(beat.remaining / 2)
            self.show_matrix(beat.remaining)

    def step(self, step: int) -> None:
        self.next_slide(notes=step_notes(self.run, step))
        said = step_said(self.run, step)
        wanted = self.indicate_token(step_facts(self.run, step).where, theme.highlight())
        with self.beat(said["scores"]) as beat:  # the wanted value is pointed at as it is named
            self.point(step, beat.until("want"), *self.drop_caption())
            if step == 0:
                self.play(*wanted, run_time=beat.until("network"))
                self.introduce_scores(beat.until("scores"))
                self.score(step, beat.remaining)
            else:
                self.score(step, beat.remaining, *wanted)
        with self.beat(said["weights"]) as beat:
            if step == 0:
                self.introduce_weights(beat.until("share"))
            self.weigh(step, beat.until("there"))
            self.play(*self.peak(step), *self.recaption(step_caption(self.run, step), theme.caption_colour()),
                      run_time=beat.remaining)  # fmt: skip
        with self.beat(said["landing"]) as beat:
            self.land(step, beat.remaining)

    def rest(self) -> None:
        self.next_slide(notes=rest_notes(self.run))
        said = rest_said(self.run)
        steps = list(range(DETAILED, len(self.source)))
        half = len(steps) // 2
        with self.beat(said["faster"]) as beat:
            self.say(rest_caption(self.run), run_time=0.4)
            self.decode(steps[:half], beat)
        with self.beat(said["result"]) as beat:
            self.decode(steps[half:], beat, until="read")
            wrong = wrong_steps(self.prediction, self.run["target"])
            self.read_rows(wrong or range(len(self.source)), beat.remaining)

    def small_heatmap(
        self,
        attention: np.ndarray,
        source: np.ndarray,
        prediction: np.ndarray,
        side: float,
        colourbar: bool,
        col_title: str,
    ) -> Heatmap:
        return Heatmap(
            attention,
            row_labels=[str(p) for p in prediction],
            col_labels=[str(s) for s in source],
            row_title="decoder output",
            col_title=col_title,
            cell_size=side / len(source),  # `side` units square at any sequence length
            vmin=0.0,
            vmax=1.0,
            col_labels_on_top=True,
            colourbar=colourbar,
        )

    def contrast(self) -> None:
        reverse = self.reverse
        self.next_slide(notes=contrast_notes(self.run, reverse))
        said = contrast_said(self.run, reverse)
        sort_map = self.small_heatmap(self.attention, self.source, self.prediction, 3.6, True, "source value")
        sort_map.shift(np.array([3.3, -0.75, 0]) - sort_map.cells.get_center())
        reverse_map = self.small_heatmap(
            reverse["attention"], reverse["source"], reverse["prediction"], 3.6, False, "source symbol"
        )
        reverse_map.shift(np.array([-3.4, -0.75, 0]) - reverse_map.cells.get_center())
        facts = contrast_facts(self.run, reverse)
        reverse_rule = "reverse: position decides" if facts.positional else "reverse: no fixed position"
        sort_rule = "sort: content decides" if facts.by_content else "sort: content, in part"
        self.reverse_subtitle = theme.text(reverse_rule, theme.LABEL_SIZE, theme.key_colour()).next_to(
            reverse_map, UP, buff=0.15
        )
        self.sort_subtitle = theme.text(sort_rule, theme.LABEL_SIZE, theme.highlight()).next_to(sort_map, UP, buff=0.15)
        self.sort_subtitle.align_to(self.reverse_subtitle, UP)
        with self.beat(said["moves"]) as beat:
            self.clear_mechanism()
            self.heatmap.row_labels.set_opacity(1)
            self.bring_to_front(self.heatmap)  # the one thing moving: what stays is drawn once, not per frame
            self.play(ReplacementTransform(self.heatmap, sort_map), run_time=beat.remaining)
            self.heatmap = sort_map
        peaks = reverse["attention"].argmax(axis=1)
        with self.beat(said["staircase"]) as beat:  # the reversal's matrix, then its staircase of peaks, row by row
            self.play(FadeIn(reverse_map, shift=0.3 * RIGHT), run_time=beat.until("staircase"))
            stairs = [Indicate(reverse_map.cell(t, int(j)), color=theme.key_colour()) for t, j in enumerate(peaks)]
            self.play(LaggedStart(*stairs, lag_ratio=0.3, group=reverse_map), run_time=beat.remaining)
        with self.beat(said["decides"]) as beat:
            self.play(FadeIn(self.reverse_subtitle), run_time=beat.until("content"))
            self.play(FadeIn(self.sort_subtitle), run_time=beat.until("same"))
            self.say(CONTRAST_CAPTION, run_time=beat.remaining)
        self.reverse_map = reverse_map

    def other_inputs(self) -> None:
        self.next_slide(notes=other_inputs_notes(self.run))
        shown_inputs = other_inputs_facts(self.run).inputs
        for index, (shown, said) in enumerate(zip(shown_inputs, other_inputs_said(self.run))):
            new_map = self.small_heatmap(shown.attention, shown.source, shown.prediction, 3.6, True, "source value")
            new_map.move_to(self.heatmap)
            with self.beat(said) as beat:  # the new input's matrix; the unchanging reversal; the sorted outputs
                self.bring_to_front(self.heatmap)  # the reversal beside it stays still: drawn once
                until = next((beat.until(name) for name in ("reverse", "all") if name in beat.marks), beat.remaining)
                caption = self.recaption(input_caption(index, shown.source, shown.prediction))
                self.play(ReplacementTransform(self.heatmap, new_map), *caption, run_time=until)
                self.heatmap = new_map
                if "reverse" in beat.marks:
                    self.play(Circumscribe(self.reverse_map, color=theme.key_colour()),
                              run_time=beat.until("all") if "all" in beat.marks else beat.remaining)  # fmt: skip
                if "all" in beat.marks:
                    rows = [Indicate(label, color=theme.highlight()) for label in new_map.row_labels]
                    self.play(LaggedStart(*rows, lag_ratio=0.3, group=new_map.row_labels), run_time=beat.remaining)

    def summary(self) -> None:
        self.next_slide(notes=summary_notes(self.run, self.reverse))
        said = summary_said(self.run, self.reverse)
        # The scene ends on its claim and its evidence; the rest of the held-out statistics are in the notes.
        # In the lecture's sans, as the evidence under it (LaTeX would set the sentence in serif).
        lines = (
            ("Attention aligns by content:", "step t points to wherever", "the t-th smallest value sits")
            if summary_facts(self.run, self.reverse).by_content
            else ("Attention aligns only partly", "by content: step t often misses", "the t-th smallest value")
        )
        claim = VGroup(*[theme.text(line, theme.BODY_SIZE) for line in lines]).arrange(DOWN, buff=0.14)
        evidence = theme.label(summary_evidence(self.run), theme.SMALL_SIZE, theme.muted())
        masses = summary_mass(self.run, self.reverse)
        mass = VGroup(*[theme.label(masses[name], theme.SMALL_SIZE, theme.muted()) for name in ("sort", "reverse")])
        mass.arrange(DOWN, buff=0.1)
        VGroup(claim, evidence, mass).arrange(DOWN, buff=0.45).move_to([-3.5, -0.3, 0])
        mass.next_to(evidence, DOWN, buff=0.15)
        # Dashed: where the t-th smallest value of the input on screen sits, i.e. where the weight should go.
        last_source = self.run["more_sources"][-1]
        targets = cell_outlines(
            self.heatmap, [(t, int(position)) for t, position in enumerate(np.argsort(last_source))]
        )
        with self.beat(said["dashed"]) as beat:
            self.bring_to_front(self.reverse_map, self.reverse_subtitle)  # fading on top: the rest is drawn once
            self.play(FadeOut(self.reverse_map), FadeOut(self.reverse_subtitle), run_time=beat.until("dashed"))
            self.play(Create(targets, lag_ratio=0.3),
                      *self.recaption(SUMMARY_CAPTION, theme.caption_colour()), run_time=beat.remaining)  # fmt: skip
        with self.beat(said["content"]) as beat:
            self.play(Write(claim), run_time=beat.until("in"))
            self.play(FadeIn(evidence, shift=0.1 * UP), run_time=beat.remaining)
        with self.beat(said["answers"]) as beat:  # the weight on the dashed squares, against the reversal's
            self.play(FadeIn(mass, shift=0.1 * UP), run_time=beat.until("right"))
            self.play(Indicate(targets, color=theme.highlight(), scale_factor=1.05), run_time=beat.remaining)
