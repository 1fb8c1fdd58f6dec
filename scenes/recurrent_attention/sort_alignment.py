"""SortAlignment (seed 000, cell at4): the same attention seq2seq, with a bidirectional encoder, trained to
sort distinct values. Step by step, each decoder step points to wherever the t-th smallest value sits; the
finished matrix is set beside the reversal's (position decides there, content here), three held-out inputs
show a new permutation each, and the scene closes on the claim that attention aligns by content. Everything
drawn is the trained models' real attention from data/seq2seq_sort and data/seq2seq_reverse."""

from __future__ import annotations

import numpy as np
from manim import DOWN, RIGHT, UP, Create, FadeIn, FadeOut, ReplacementTransform, VGroup, Write

from scenes.recurrent_attention.shared import (
    AlignmentBuildUp,
    mistakes_noted,
    mistakes_said,
    symbols,
    wrong_steps,
)
from seqanim.contract import Artifact
from seqanim.kit import theme
from seqanim.kit.alignment import cell_outlines
from seqanim.kit.heatmap import Heatmap
from seqanim.spoken import count, integer, listing, percent

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


def _smallest_said(rank: int) -> str:
    """'smallest', 'second smallest', ... as heard ('next smallest' past the twentieth)."""
    if rank == 0:
        return "smallest"
    return f"{ORDINALS[rank]} smallest" if rank < len(ORDINALS) else "next smallest"


def _misses(run: Artifact) -> list[int]:
    """The steps whose peak is not on the t-th smallest value."""
    peaks, positions = run["attention_argmax"], run["sorted_position"]
    return [t for t in range(len(peaks)) if peaks[t] != positions[t]]


def _steps_said(steps: list[int], length: int) -> str:
    """'the last step', 'step two', 'steps two and five' as heard."""
    if steps == [length - 1]:
        return "the last step"
    return ("step " if len(steps) == 1 else "steps ") + listing([integer(t) for t in steps])


def _more(run: Artifact) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The held-out inputs shown one after the other: (source, attention, prediction) each."""
    return list(zip(run["more_sources"], run["more_attention"], run["more_predictions"]))


def stage_notes(run: Artifact) -> str:
    source, target = run["source"], run["target"]
    return (
        "Reversal is purely positional: output t always wants input L-1-t. "
        "Now the same attention seq2seq, with a bidirectional encoder, "
        f"is trained to SORT {len(source)} distinct values. "
        f"The notebook's example input {symbols(source)}, target {symbols(target)}. "
        "Step t must point to wherever the t-th smallest value sits."
    )


def stage_said(run: Artifact) -> tuple[str, str]:
    return (
        f"Now the same kind of network learns to sort {count(len(run['source']), 'value')}.",
        "Its encoder reads them both ways; each step must find the next smallest.",
    )


def step_notes(run: Artifact, step: int) -> str:
    energies, where = run["energies"], int(run["sorted_position"][step])
    weight, target = run["attention"][step, where], np.sort(run["source"])
    note = (
        f"Decoder step {step}: the {_smallest(step)} value is {target[step]}, at source position {where}. "
        f"The additive scores run from {energies[step].min():.1f} to {energies[step].max():.1f}; "
        f"after the softmax {weight:.2f} of the weight lands on position {where}, "
        f"and the decoder emits {run['prediction'][step]}."
    )
    if step == 0:
        note = (
            "Same scoring network as for reversal: e = v^T tanh(W_k h_j + W_q s_t), "
            "then a softmax over source positions. " + note
        )
    return note


def step_caption(run: Artifact, step: int) -> str:
    where = int(run["sorted_position"][step])
    weight = run["attention"][step, where]
    return (
        f"step {step}: the {_smallest(step)} value, {run['target'][step]}, sits at position {where}: "
        f"{weight:.0%} of the weight"
    )


def step_said(run: Artifact, step: int) -> tuple[str, str, str]:
    where, value = int(run["sorted_position"][step]), integer(int(run["target"][step]))
    weight, wrote = float(run["attention"][step, where]), int(run["prediction"][step])
    if step == 0:
        scores = f"Step zero wants the smallest value, {value}; the same small network scores every value."
    else:
        scores = f"Step {integer(step)} wants the {_smallest_said(step)} value, {value}."
    share = percent(weight, 0)
    weights = (
        f"After the softmax, {share} of the weight sits on that value."
        if step == 0
        else f"{share.capitalize()} of the weight sits on that value."
    )
    landing = f"The decoder writes {integer(wrote)}"
    if wrote == int(run["target"][step]):
        landing += ", as it should."
    else:
        landing += f"; that is wrong, {value} was due."
    return scores, weights, landing


def rest_notes(run: Artifact) -> str:
    attention, target, positions = run["attention"], run["target"], run["sorted_position"]
    length, prediction = len(positions), run["prediction"]
    on_value = length - len(_misses(run))
    notes = (
        "The remaining steps, faster. "
        + (
            "The bright cell jumps around, following the values, not the positions: "
            if not _misses(run)
            else f"The bright cell is on the t-th smallest value at {on_value} of {length} steps: "
        )
        + "; ".join(
            f"step {t} -> position {int(positions[t])} (value {target[t]}, weight {attention[t, positions[t]]:.2f})"
            for t in range(DETAILED, length)
        )
        + f". Output {symbols(prediction)}: example correct = {run.metrics['example_correct']}."
    )
    if wrong_steps(prediction, target):
        notes += f" Where it errs: {mistakes_noted(prediction, target)}."
    return notes


def rest_caption(run: Artifact) -> str:
    length = len(run["source"])
    if not _misses(run):
        return "the remaining steps: the pointer jumps wherever the next value sits"
    return f"the remaining steps: the peak is on the next value at {length - len(_misses(run))} of {length} steps"


def rest_said(run: Artifact) -> tuple[str, str]:
    length, misses = len(run["source"]), _misses(run)
    prediction, target = run["prediction"], run["target"]
    first = "The remaining steps run faster; the bright cell jumps to wherever the next value sits."
    second = "It follows values, not positions"
    second += f"; only at {_steps_said(misses, length)} does the peak miss." if misses else "."
    if wrong_steps(prediction, target):
        second += f" The output goes wrong: {mistakes_said(prediction, target)}."
    else:
        second += f" The output comes out sorted, all {count(length, 'value')} in place."
    return first, second


def contrast_notes(run: Artifact, reverse: Artifact) -> str:
    return (
        "Side by side. Reversal (left) is positional: "
        f"the same staircase for every input, {reverse.metrics['held_out_argmax_on_shifted']:.1%} of held-out "
        "steps peak at the same position L-t. "
        "Sorting (right) is content-driven: the peak sits wherever the t-th smallest value is, "
        f"{run.metrics['held_out_argmax_on_target']:.2%} of held-out steps; "
        "the matrix is a permutation that changes with every input."
    )


CONTRAST_CAPTION = "same model, same scoring rule: the alignment it learns depends on the task"


def contrast_said(run: Artifact, reverse: Artifact) -> tuple[str, str, str]:
    return (
        "Now side by side: the sorting matrix moves right.",
        "On the left, reversal: one staircase for every input.",
        f"Position decides there, in {percent(reverse.metrics['held_out_argmax_on_shifted'], 0)} of held-out steps; "
        "content decides here. Same model, different task, different alignment.",
    )


def other_inputs_notes(run: Artifact) -> str:
    more = _more(run)
    correct, total = int(run.metrics["more_correct"]), len(more)
    described = "; ".join(
        f"input {symbols(src)}: step 0 points to position "
        f"{int(att[0].argmax())} (value {src[int(att[0].argmax())]}), output {symbols(pred)}"
        for src, att, pred in more
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


def other_inputs_said(run: Artifact) -> tuple[str, ...]:
    """One beat per held-out input: the new permutation, and whether it comes out sorted."""
    more = _more(run)
    correct, total = int(run.metrics["more_correct"]), len(more)
    said = []
    for index, (source, _, prediction) in enumerate(more):
        if index == 0:
            beat = "A new input, never seen in training: the bright cells move with its values."
        elif index == 1:
            beat = "Another input, another permutation; the reversal on the left would not change at all."
        else:
            beat = "And another."
        target = np.sort(source)
        if wrong_steps(prediction, target):
            beat += f" This one slips: {mistakes_said(prediction, target)}."
        if index == total - 1:
            beat += (
                f" All {integer(total)} come out sorted."
                if correct == total
                else f" {integer(correct).capitalize()} of {integer(total)} come out sorted."
            )
        said.append(beat)
    return tuple(said)


def summary_notes(run: Artifact, reverse: Artifact) -> str:
    metrics = run.metrics
    # Compare with the reversal's strongest alignment (wherever its peaks sit) before calling sorting softer.
    reverse_mass = max(reverse.metrics["held_out_shifted_mass"], reverse.metrics["held_out_mirror_mass"])
    softer = metrics["held_out_target_mass"] < reverse_mass
    return (
        f"On {run.params['test_size']} held-out inputs the sorter gets {metrics['token_accuracy']:.1%} of "
        f"tokens right teacher-forced and {metrics['greedy_token_accuracy']:.1%} decoding greedily. "
        f"Attention is {'softer' if softer else 'no softer'} than for reversal "
        f"({reverse_mass:.1%} on its preferred position): "
        f"on average {metrics['held_out_target_mass']:.1%} of the weight sits on the t-th smallest value and "
        f"{metrics['held_out_neighbour_mass']:.1%} on its neighbours in sorted order "
        "(the values just below and above); the peak is on the right value in "
        f"{metrics['held_out_argmax_on_target']:.2%} of steps. "
        "Dashed squares mark where the t-th smallest value of the input on screen sits."
    )


def summary_evidence(run: Artifact) -> str:
    return f"held out, {run.metrics['held_out_argmax_on_target']:.1%} of steps peak there"


SUMMARY_CAPTION = "dashed: where the t-th smallest value of this input sits"


def summary_said(run: Artifact, reverse: Artifact) -> tuple[str, str, str]:
    metrics = run.metrics
    reverse_mass = max(reverse.metrics["held_out_shifted_mass"], reverse.metrics["held_out_mirror_mass"])
    on_target = percent(metrics["held_out_target_mass"], 0)
    if metrics["held_out_target_mass"] < reverse_mass:
        softer = f"On average only {on_target} of the weight lands on the right value: softer than in reversal."
    else:
        softer = f"On average {on_target} of the weight lands on the right value, as much as in reversal."
    return (
        "The reversal fades; dashed squares mark where each step should look.",
        "Attention aligns by content: in "
        f"{percent(metrics['held_out_argmax_on_target'], 0)} of held-out steps, the peak is on the right value.",
        softer,
    )


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
            cell_size=0.5,
            col_title="source value",
            encoder_text="values $x_j$, read both ways into states $h_j$",
        )
        self.next_slide(notes=stage_notes(self.run))
        encoder, decoder = stage_said(self.run)
        with self.beat(encoder):
            self.title("A harder alignment: learning to sort")
            self.show_encoder()
            self.wait(0.8)
        with self.beat(decoder):
            self.show_decoder()
            self.wait(1.5)

    def step(self, step: int) -> None:
        self.next_slide(notes=step_notes(self.run, step))
        scores, weights, landing = step_said(self.run, step)
        introduce = step == 0
        with self.beat(scores):
            self.say(step_caption(self.run, step), theme.caption_colour())
            self.point(step, detailed=True)
            self.score(step, detailed=True, introduce=introduce)
        with self.beat(weights):
            self.weigh(step, detailed=True, introduce=introduce)
            self.wait(0.6)
        with self.beat(landing):
            self.land(step, detailed=True)
            self.wait(0.6)

    def rest(self) -> None:
        self.next_slide(notes=rest_notes(self.run))
        faster, result = rest_said(self.run)
        steps = list(range(DETAILED, len(self.source)))
        half = len(steps) // 2
        with self.beat(faster):
            self.say(rest_caption(self.run))
            for step in steps[:half]:
                self.decode_step(step, detailed=False)
        with self.beat(result):
            for step in steps[half:]:
                self.decode_step(step, detailed=False)
            self.finish_decoding()

    def small_heatmap(
        self,
        attention: np.ndarray,
        source: np.ndarray,
        prediction: np.ndarray,
        cell_size: float,
        colourbar: bool,
        col_title: str,
    ) -> Heatmap:
        return Heatmap(
            attention,
            row_labels=[str(p) for p in prediction],
            col_labels=[str(s) for s in source],
            row_title="decoder output",
            col_title=col_title,
            cell_size=cell_size,
            vmin=0.0,
            vmax=1.0,
            col_labels_on_top=True,
            colourbar=colourbar,
        )

    def contrast(self) -> None:
        reverse = self.reverse
        self.next_slide(notes=contrast_notes(self.run, reverse))
        moves, staircase, decides = contrast_said(self.run, reverse)
        sort_map = self.small_heatmap(self.attention, self.source, self.prediction, 0.45, True, "source value")
        sort_map.shift(np.array([3.3, -0.75, 0]) - sort_map.cells.get_center())
        reverse_map = self.small_heatmap(
            reverse["attention"], reverse["source"], reverse["prediction"], 0.36, False, "source symbol"
        )
        reverse_map.shift(np.array([-3.4, -0.75, 0]) - reverse_map.cells.get_center())
        self.reverse_subtitle = theme.text("reverse: position decides", theme.LABEL_SIZE, theme.key_colour()).next_to(
            reverse_map, UP, buff=0.15
        )
        self.sort_subtitle = theme.text("sort: content decides", theme.LABEL_SIZE, theme.highlight()).next_to(
            sort_map, UP, buff=0.15
        )
        self.sort_subtitle.align_to(self.reverse_subtitle, UP)
        with self.beat(moves):
            self.clear_mechanism()
            self.heatmap.row_labels.set_opacity(1)
            self.bring_to_front(self.heatmap)  # the one thing moving: what stays is drawn once, not per frame
            self.play(ReplacementTransform(self.heatmap, sort_map), run_time=1.0)
            self.heatmap = sort_map
            self.wait(0.5)
        with self.beat(staircase):
            self.play(FadeIn(reverse_map, shift=0.3 * RIGHT), run_time=0.8)
            self.wait(1.0)
        with self.beat(decides):
            self.play(FadeIn(self.reverse_subtitle), FadeIn(self.sort_subtitle), run_time=0.6)
            self.say(CONTRAST_CAPTION)
            self.wait(2.5)
        self.reverse_map = reverse_map

    def other_inputs(self) -> None:
        self.next_slide(notes=other_inputs_notes(self.run))
        for index, ((source, attention, prediction), said) in enumerate(
            zip(_more(self.run), other_inputs_said(self.run))
        ):
            new_map = self.small_heatmap(attention, source, prediction, 0.45, True, "source value")
            new_map.move_to(self.heatmap)
            with self.beat(said):
                self.say(input_caption(index, source, prediction))
                self.bring_to_front(self.heatmap)  # the reversal beside it stays still: drawn once
                self.play(ReplacementTransform(self.heatmap, new_map), run_time=1.2)
                self.heatmap = new_map
                self.wait(1.0)

    def summary(self) -> None:
        self.next_slide(notes=summary_notes(self.run, self.reverse))
        dashed, content, answers = summary_said(self.run, self.reverse)
        # The scene ends on its claim; the held-out statistics are in the notes.
        # In the lecture's sans, as the evidence under it (LaTeX would set the sentence in serif).
        lines = ("Attention aligns by content:", "step t points to wherever", "the t-th smallest value sits")
        claim = VGroup(*[theme.text(line, theme.BODY_SIZE) for line in lines]).arrange(DOWN, buff=0.14)
        evidence = theme.label(summary_evidence(self.run), theme.SMALL_SIZE, theme.muted())
        VGroup(claim, evidence).arrange(DOWN, buff=0.45).move_to([-3.5, -0.3, 0])
        # Dashed: where the t-th smallest value of the input on screen sits, i.e. where the weight should go.
        last_source = self.run["more_sources"][-1]
        targets = cell_outlines(
            self.heatmap, [(t, int(position)) for t, position in enumerate(np.argsort(last_source))]
        )
        with self.beat(dashed):
            self.bring_to_front(self.reverse_map, self.reverse_subtitle)  # fading on top: the rest is drawn once
            self.play(FadeOut(self.reverse_map), FadeOut(self.reverse_subtitle), run_time=0.6)
            self.play(Create(targets), run_time=1.0)
            self.wait(0.8)
        with self.beat(content):
            self.play(Write(claim), run_time=1.6)
            self.play(FadeIn(evidence, shift=0.1 * UP), run_time=0.5)
            self.wait(1.5)
        with self.beat(answers):
            self.say(SUMMARY_CAPTION, theme.caption_colour())
            self.wait(2.5)
