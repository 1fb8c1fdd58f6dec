"""Part 2 of seed 000: recurrent attention. A GRU encoder-decoder with additive attention learns to reverse
(at2) and to sort (at4); at every decoder step the additive scores become a softmax row of the alignment
matrix. Everything drawn is the trained models' real attention from data/."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    LaggedStart,
    MathTex,
    ReplacementTransform,
    RoundedRectangle,
    VGroup,
    Write,
)

from seqanim.contract import Artifact
from seqanim.declare import Part
from seqanim.kit import theme
from seqanim.kit.alignment import ScoreStrip, TokenRow, WeightedFan, cell_outlines, label_above
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.motion import RollTexts, roll
from seqanim.slide import LectureSlide

PART = Part("Recurrent attention", order=2)


def _smallest(rank: int) -> str:
    """'smallest', '2nd smallest', ..., '11th smallest', '21st smallest' for rank 0, 1, ..."""
    n = rank + 1
    if n == 1:
        return "smallest"
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} smallest"


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


def _lines(*rows: tuple[str, object]) -> VGroup:
    """Left-aligned lines of text, each with its own colour."""
    return VGroup(*[theme.text(text, theme.LABEL_SIZE, colour) for text, colour in rows]).arrange(
        DOWN, aligned_edge=LEFT, buff=0.22
    )


class _AlignmentBuildUp(LectureSlide):
    """The shared build-up: encoder tokens on top, the decoder state below, scores -> weights -> heatmap row."""

    PANEL_LEFT = -6.75  # left edge of the mechanism panel; the heatmap sits right of x = 0
    SPACING = 0.72  # one token per column: a two-decimal weight fits under its token at the smallest size
    STRIP_CELL = 0.64

    def build_stage(
        self,
        source: np.ndarray,
        prediction: np.ndarray,
        attention: np.ndarray,
        energies: np.ndarray,
        cell_size: float,
        col_title: str,
        encoder_text: str,
    ) -> None:
        """Create (without showing) every mobject of the build-up."""
        self.source, self.prediction, self.attention, self.energies = source, prediction, attention, energies
        length = len(source)

        self.encoder = TokenRow([str(s) for s in source], spacing=self.SPACING, colour=theme.key_colour())
        self.encoder.move_to([0, 2.05, 0]).align_to([self.PANEL_LEFT, 0, 0], LEFT)
        panel_centre = self.encoder.get_center()[0]
        self.encoder_label = label_above(self.encoder, encoder_text).align_to(self.encoder, LEFT)

        self.node = RoundedRectangle(
            corner_radius=0.12,
            width=3.1,
            height=0.56,
            stroke_color=theme.query_colour(),
            fill_color=theme.query_colour(),
            fill_opacity=0.2,
        )
        self.node.move_to([panel_centre, 0.1, 0])
        self.node_text = self.state_label(0)
        self.emitted = VGroup()  # "emits 2", next to the decoder state once it has spoken
        self.fan = WeightedFan(
            self.node.get_top(), [self.encoder.bottom(j) for j in range(length)], colour=theme.highlight()
        )

        limit = float(np.abs(energies).max())
        self.energy_strip = ScoreStrip(
            length,
            vmin=-limit,
            vmax=limit,
            colormap=theme.diverging_colormap(),
            spacing=self.SPACING,
            cell_size=self.STRIP_CELL,
            fmt="{:.1f}",
        )
        self.energy_strip.move_to([panel_centre, -1.45, 0]).blank()
        # Weights under 0.05 show as colour only: the row reads as its peaks, not as a row of small numbers.
        self.weight_strip = ScoreStrip(
            length, vmin=0.0, vmax=1.0, spacing=self.SPACING, cell_size=self.STRIP_CELL, fmt="{:.2f}", hide_below=0.05
        )
        self.weight_strip.move_to([panel_centre, -2.7, 0]).blank()
        self.energy_label = MathTex(
            r"e_{t,j}", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.foreground()
        ).next_to(self.energy_strip, LEFT, buff=0.1)
        self.weight_label = MathTex(
            r"\alpha_{t,j}", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.foreground()
        ).next_to(self.weight_strip, LEFT, buff=0.1)
        self.score_formula = MathTex(
            r"e_{t,j} = v^\top \tanh(W_k\, h_j + W_q\, s_t)",
            font_size=theme.tex_size(theme.LABEL_SIZE),
            color=theme.foreground(),
        )
        self.score_formula.move_to([panel_centre, -0.68, 0])
        self.softmax_formula = MathTex(
            r"\alpha_{t,j} = \mathrm{softmax}_j\,(e_{t,j})",
            font_size=theme.tex_size(theme.LABEL_SIZE),
            color=theme.foreground(),
        )
        self.softmax_formula.move_to([panel_centre, -2.07, 0])

        self.heatmap = Heatmap(
            attention,
            row_labels=[str(p) for p in prediction],
            col_labels=[str(s) for s in source],
            row_title="query: decoder output",
            col_title=f"key: {col_title}",
            cell_size=cell_size,
            vmin=0.0,
            vmax=1.0,
            col_labels_on_top=True,
        )
        self.heatmap.shift(np.array([3.9, -0.5, 0]) - self.heatmap.cells.get_center())
        self.heatmap.blank()
        self.heatmap.row_labels.set_opacity(0)
        self.heatmap.row_labels.set_z_index(1)  # lit one by one: drawn last, so the matrix under them stays still
        self.row_box = self.heatmap.row_box(0, theme.query_colour())

    def state_label(self, step: int) -> VGroup:
        """ "decoder state s_t" with a real subscript, centred in the decoder node."""
        words = theme.text("decoder state", theme.SMALL_SIZE)
        symbol = MathTex(rf"s_{{{step}}}", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.foreground())
        return VGroup(words, symbol).arrange(RIGHT, buff=0.12).move_to(self.node)

    def show_stage(self) -> None:
        self.play(LaggedStart(FadeIn(self.encoder), FadeIn(self.encoder_label), lag_ratio=0.3), run_time=0.9)
        self.play(FadeIn(self.heatmap), FadeIn(self.node), FadeIn(self.node_text), Create(self.fan), run_time=1.0)

    def decode_step(self, step: int, detailed: bool, introduce: bool = False) -> None:
        """One decoder step: scores, softmax weights (fan + strip), then the row lands in the heatmap."""
        pace = 1.0 if detailed else 0.45
        # What stays still during a step is drawn once per animation, not on every frame.
        self.backdrop(
            self._caption,
            self.score_formula,
            self.softmax_formula,
            self.energy_label,
            self.weight_label,
            self.node,
            self.heatmap,
            self.encoder_label,
            self.encoder,
        )
        box = self.heatmap.row_box(step, theme.query_colour())
        fades = [self.emitted.animate.set_opacity(0.35)] if len(self.emitted) else []
        self.play(
            RollTexts(self.node_text, self.state_label(step)),
            ReplacementTransform(self.row_box, box),
            *fades,
            run_time=0.4 * pace,
        )
        self.row_box = box
        if introduce:
            self.play(Write(self.score_formula), FadeIn(self.energy_strip), run_time=1.2)
        self.play(*self.energy_strip.animate_values(self.energies[step]), run_time=0.9 * pace)
        self.energy_strip.settle()
        if introduce:
            self.play(Write(self.softmax_formula), FadeIn(self.weight_strip), run_time=1.0)
        weights = self.attention[step]
        self.play(*self.weight_strip.animate_values(weights), self.fan.animate_weights(weights), run_time=0.9 * pace)
        self.weight_strip.settle()
        if detailed:
            self.wait(0.4)
        # Write the weights into row `step` of the alignment matrix: the strip's cells fly into place.
        ghost = self.weight_strip.cells.copy()
        landing = VGroup(*[cell.copy() for cell in self.heatmap.row(step)])
        for cell, weight in zip(landing, weights):
            cell.set_fill(self.weight_strip.colour(float(weight)), opacity=1)
        emitted = theme.text(f"emits {self.prediction[step]}", theme.LABEL_SIZE, theme.query_colour()).next_to(
            self.node, RIGHT, buff=0.25
        )
        label = self.heatmap.row_labels[step]
        self.play(
            ReplacementTransform(ghost, landing),
            label.animate.set_opacity(1).set_color(theme.query_colour()),
            roll(self.emitted, emitted) if len(self.emitted) else FadeIn(emitted),
            run_time=0.9 * pace,
        )
        self.emitted = emitted
        self.heatmap.recolour(self.attention, rows=[step])
        self.remove(landing)
        if step > 0:
            self.heatmap.row_labels[step - 1].set_color(theme.foreground())

    def clear_mechanism(self) -> None:
        """Fade out the left panel (tokens, decoder, strips, formulas), keeping the heatmap."""
        self.heatmap.row_labels.set_color(theme.foreground())
        self.backdrop(self.heatmap)  # it stays: drawn once while the panel fades
        parts = [
            self.encoder,
            self.encoder_label,
            self.node,
            self.node_text,
            self.emitted,
            self.fan,
            self.energy_strip,
            self.weight_strip,
            self.energy_label,
            self.weight_label,
            self.score_formula,
            self.softmax_formula,
            self.row_box,
        ]
        self.play(*[FadeOut(part) for part in parts], run_time=0.7)


class ReverseAlignment(_AlignmentBuildUp):
    """at2: trained to reverse, attention lines each output up with a source position."""

    data = ("seq2seq_reverse",)

    def construct(self) -> None:
        run = self.load("seq2seq_reverse")
        self.metrics = run.metrics
        source, prediction, target = run["source"], run["prediction"], run["target"]
        self.length = len(source)
        self.peaks, self.shifted = run["attention_argmax"], run["shifted_position"]
        self.mirror = self.length - 1 - np.arange(self.length)
        # One step late = the peak sits where the previous output's source symbol is (L-t), not on the mirror (L-1-t).
        self.late_steps = [t for t in range(self.length) if self.peaks[t] == self.shifted[t] != self.mirror[t]]
        self.mirror_steps = [t for t in range(self.length) if self.peaks[t] == self.mirror[t]]
        self.looks_late = self.metrics["held_out_argmax_on_shifted"] > self.metrics["held_out_argmax_on_mirror"]
        self.build_stage(
            source,
            prediction,
            run["attention"],
            run["energies"],
            cell_size=0.42,
            col_title="source symbol",
            encoder_text="source symbols $x_j$, read into encoder states $h_j$",
        )

        self.next_slide(
            notes=(
                "A GRU encoder-decoder with additive (Bahdanau) attention, trained to REVERSE a sequence of "
                f"{self.length} symbols. The notebook's example input is {' '.join(map(str, source))}; "
                f"the target is {' '.join(map(str, target))}. "
                "On the left the mechanism, on the right the alignment matrix, empty for now."
            )
        )
        self.title("Seq2seq attention learns to align")
        self.show_stage()

        detailed = min(3, self.length)
        for step in range(detailed):
            weight = self.attention[step].max()
            where = int(self.peaks[step])
            self.next_slide(notes=self._step_note(step, where, weight))
            self.say(
                f"step {step}: {weight:.1%} of the weight on source position {where} (symbol {source[where]})",
                theme.caption_colour(),
            )
            self.decode_step(step, detailed=True, introduce=step == 0)

        rest = range(detailed, self.length)
        walk = _walk(self.peaks)
        self.next_slide(
            notes=(
                f"The remaining steps, faster. Watch the bright cell: over all {self.length} steps it {walk}. "
                + "; ".join(f"step {t} -> position {int(self.peaks[t])} ({self.attention[t].max():.2f})" for t in rest)
                + f". Output {' '.join(map(str, prediction))}: example correct = {self.metrics['example_correct']}."
            )
        )
        self.say(f"the remaining steps: the bright cell {walk}")
        for step in rest:
            self.decode_step(step, detailed=False)
        self.remove(self.row_box)
        self.play(FadeOut(self.emitted), run_time=0.3)
        self.compare_with_mirror(run)
        self.explain()

    def _step_note(self, step: int, where: int, weight: float) -> str:
        mirror = int(self.mirror[step])
        note = (
            f"Decoder step {step}: the decoder state s_{step} scores every encoder state, "
            f"e = v^T tanh(W_k h_j + W_q s_{step}); the scores run from {self.energies[step].min():.1f} to "
            f"{self.energies[step].max():.1f}. "
            f"The softmax turns them into weights: {weight:.2f} on position {where}, so the line there is thick. "
            f"It emits {self.prediction[step]}."
        )
        if step == 0:
            note = "The additive score is a tiny network comparing decoder state and encoder state. " + note
        if where == mirror:
            note += (
                f" That is the mirror position L-1-t = {mirror}, where the target symbol {self.source[mirror]} sits."
            )
        elif step in self.late_steps:
            note += (
                f" Note: the mirror position would be {mirror} (symbol {self.source[mirror]}, the target); it looks at "
                f"position {where} instead, one step later, where the previous target {self.source[where]} sits."
            )
        else:
            note += (
                f" Note: the mirror position would be {mirror} (symbol {self.source[mirror]}, the target); "
                "it looks elsewhere."
            )
        return note

    def compare_with_mirror(self, run: Artifact) -> None:
        metrics, length = self.metrics, self.length
        late = self.looks_late
        self.next_slide(
            notes=(
                "The notebook expects a clean anti-diagonal: output t attends to its mirror image, "
                "position L-1-t (dashed squares). "
                f"On the mirror the trained model puts {metrics['example_mirror_mass']:.1%} of the weight in this "
                f"example and {metrics['held_out_mirror_mass']:.1%} on {run.params['test_size']} held-out sequences; "
                f"on position L-t (the previous output's source position) {metrics['example_shifted_mass']:.1%} here "
                f"and {metrics['held_out_shifted_mass']:.1%} held out. "
                f"The argmax is on L-t for {metrics['held_out_argmax_on_shifted']:.1%} of held-out steps and on the "
                f"mirror for {metrics['held_out_argmax_on_mirror']:.1%}. "
                f"In this example the peak is on the mirror at {_steps(self.mirror_steps)} and one step late at "
                f"{_steps(self.late_steps)}."
                + (
                    " So the model does not quite draw the notebook's anti-diagonal: it looks one step late."
                    if late
                    else ""
                )
            )
        )
        self.clear_mechanism()
        mirror = cell_outlines(self.heatmap, [(t, int(self.mirror[t])) for t in range(length)])
        verdict = (
            "the model looks one step late"
            if len(self.late_steps) == length - 1
            else f"one step late at {len(self.late_steps)} of {length} steps"
        )
        lines = _lines(
            ("dashed: the mirror position L-1-t", theme.foreground()),
            (f"weight on the mirror: {metrics['example_mirror_mass']:.0%}", theme.foreground()),
            (f"({metrics['held_out_mirror_mass']:.0%} on held-out sequences)", theme.muted()),
            (f"weight on position L-t: {metrics['example_shifted_mass']:.0%}", theme.highlight()),
            (f"({metrics['held_out_shifted_mass']:.0%} on held-out sequences)", theme.muted()),
            (verdict, theme.highlight()),
        ).move_to([-3.6, 0.2, 0])
        self.say(
            f"peak on the mirror at {_steps(self.mirror_steps)}, on L-t at {len(self.late_steps)} of {length} steps"
        )
        self.play(Create(mirror), run_time=1.2)
        self.play(LaggedStart(*[FadeIn(line, shift=0.1 * RIGHT) for line in lines], lag_ratio=0.25), run_time=1.8)
        self.mirror_outline, self.mirror_lines = mirror, lines

    def explain(self) -> None:
        metrics = self.metrics
        both = {
            (True, True): "right both ways",
            (True, False): "right teacher-forced only",
            (False, True): "right greedily only",
            (False, False): "wrong both ways",
        }[(metrics["example_correct"], metrics["example_greedy_correct"])]
        if self.looks_late:
            reason = (
                "Why one step late? The encoder GRU reads left to right, so its state at position L-t has just read "
                "x_(L-t) and still remembers x_(L-1-t), the symbol to emit now. "
                "The decoder was just fed its previous output x_(L-t), so finding where that symbol sits is an easy "
                "content match; reading one step back comes free from the recurrence. "
                "Either position would do; training settled on this one. "
            )
            why_lines = [
                ("the encoder reads left to right:", theme.foreground()),
                ("its state at L-t still remembers", theme.foreground()),
                ("x at L-1-t, the symbol to emit now", theme.foreground()),
            ]
        else:
            reason = "Held out, the peak sits on the mirror more often than on L-t: the notebook's anti-diagonal. "
            why_lines = [
                ("held out, the peak sits on", theme.foreground()),
                ("the mirror more often than on L-t", theme.foreground()),
                ("the notebook's anti-diagonal", theme.foreground()),
            ]
        self.next_slide(
            notes=(
                reason + f"Held-out token accuracy: {metrics['token_accuracy']:.1%} teacher-forced (as the notebook), "
                f"{metrics['greedy_token_accuracy']:.1%} when the decoder is fed its own outputs; "
                f"the example is {both} (teacher-forced correct = {metrics['example_correct']}, "
                f"greedy correct = {metrics['example_greedy_correct']})."
            )
        )
        why = _lines(
            *why_lines,
            ("held-out token accuracy:", theme.muted()),
            (f"{metrics['token_accuracy']:.1%} teacher-forced", theme.value_colour()),
            (f"{metrics['greedy_token_accuracy']:.1%} decoding greedily", theme.value_colour()),
        ).move_to([-3.6, 0.2, 0])
        why[3:].shift(0.3 * DOWN)  # a gap between the reason and the accuracy
        self.play(FadeOut(self.mirror_lines), run_time=0.5)
        self.play(LaggedStart(*[FadeIn(line, shift=0.1 * RIGHT) for line in why], lag_ratio=0.25), run_time=1.8)
        self.say("attention learned an alignment: a position, found anew at every step", theme.caption_colour())
        self.wait(0.8)


class SortAlignment(_AlignmentBuildUp):
    """at4: trained to sort, each step points to wherever the t-th smallest value sits (content, not position)."""

    data = ("seq2seq_sort", "seq2seq_reverse")

    def construct(self) -> None:
        run = self.load("seq2seq_sort")
        self.metrics = run.metrics
        source, prediction, target = run["source"], run["prediction"], run["target"]
        self.sorted_position = run["sorted_position"]
        self.peaks = run["attention_argmax"]
        self.length = len(source)
        self.build_stage(
            source,
            prediction,
            run["attention"],
            run["energies"],
            cell_size=0.5,
            col_title="source value",
            encoder_text="values $x_j$, read both ways into states $h_j$",
        )

        self.next_slide(
            notes=(
                "Reversal is purely positional: output t always wants input L-1-t. "
                "Now the same attention seq2seq, with a bidirectional encoder, "
                f"is trained to SORT {self.length} distinct values. "
                f"The notebook's example input {' '.join(map(str, source))}, target {' '.join(map(str, target))}. "
                "Step t must point to wherever the t-th smallest value sits."
            )
        )
        self.title("A harder alignment: learning to sort")
        self.show_stage()

        detailed = min(2, self.length)
        for step in range(detailed):
            where = int(self.sorted_position[step])
            weight = self.attention[step, where]
            self.next_slide(notes=self._step_note(step, where, weight))
            self.say(
                f"step {step}: the {_smallest(step)} value, {target[step]}, sits at position {where}: "
                f"{weight:.0%} of the weight",
                theme.caption_colour(),
            )
            self.decode_step(step, detailed=True, introduce=step == 0)

        rest = range(detailed, self.length)
        follows = bool(np.array_equal(self.peaks, self.sorted_position))
        on_value = sum(int(self.peaks[t] == self.sorted_position[t]) for t in range(self.length))
        self.next_slide(
            notes=(
                "The remaining steps, faster. "
                + (
                    "The bright cell jumps around, following the values, not the positions: "
                    if follows
                    else f"The bright cell is on the t-th smallest value at {on_value} of {self.length} steps: "
                )
                + "; ".join(
                    f"step {t} -> position {int(self.sorted_position[t])} (value {target[t]}, "
                    f"weight {self.attention[t, self.sorted_position[t]]:.2f})"
                    for t in rest
                )
                + f". Output {' '.join(map(str, prediction))}: example correct = {self.metrics['example_correct']}."
            )
        )
        self.say(
            "the remaining steps: the pointer jumps wherever the next value sits"
            if follows
            else f"the remaining steps: the peak is on the next value at {on_value} of {self.length} steps"
        )
        for step in rest:
            self.decode_step(step, detailed=False)
        self.remove(self.row_box)
        self.play(FadeOut(self.emitted), run_time=0.3)
        reverse = self.load("seq2seq_reverse")
        self.contrast(reverse)
        self.other_inputs(run)
        self.summary(run, reverse)

    def _step_note(self, step: int, where: int, weight: float) -> str:
        target = np.sort(self.source)
        note = (
            f"Decoder step {step}: the {_smallest(step)} value is {target[step]}, at source position {where}. "
            f"The additive scores run from {self.energies[step].min():.1f} to {self.energies[step].max():.1f}; "
            f"after the softmax {weight:.2f} of the weight lands on position {where}, "
            f"and the decoder emits {self.prediction[step]}."
        )
        if step == 0:
            note = (
                "Same scoring network as for reversal: e = v^T tanh(W_k h_j + W_q s_t), "
                "then a softmax over source positions. " + note
            )
        return note

    def _small_heatmap(
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

    def contrast(self, reverse: Artifact) -> None:
        reverse_metrics = reverse.metrics
        self.next_slide(
            notes=(
                "Side by side. Reversal (left) is positional: "
                f"the same staircase for every input, {reverse_metrics['held_out_argmax_on_shifted']:.1%} of held-out "
                "steps peak at the same position L-t. "
                "Sorting (right) is content-driven: the peak sits wherever the t-th smallest value is, "
                f"{self.metrics['held_out_argmax_on_target']:.2%} of held-out steps; "
                "the matrix is a permutation that changes with every input."
            )
        )
        self.clear_mechanism()
        sort_map = self._small_heatmap(self.attention, self.source, self.prediction, 0.45, True, "source value")
        sort_map.shift(np.array([3.3, -0.75, 0]) - sort_map.cells.get_center())
        reverse_map = self._small_heatmap(
            reverse["attention"], reverse["source"], reverse["prediction"], 0.36, False, "source symbol"
        )
        reverse_map.shift(np.array([-3.4, -0.75, 0]) - reverse_map.cells.get_center())
        self.heatmap.row_labels.set_opacity(1)
        self.bring_to_front(self.heatmap)  # the one thing moving: what stays is drawn once, not per frame
        self.play(ReplacementTransform(self.heatmap, sort_map), run_time=1.0)
        self.heatmap = sort_map
        self.play(FadeIn(reverse_map, shift=0.3 * RIGHT), run_time=0.8)
        self.reverse_subtitle = theme.text("reverse: position decides", theme.LABEL_SIZE, theme.key_colour()).next_to(
            reverse_map, UP, buff=0.15
        )
        self.sort_subtitle = theme.text("sort: content decides", theme.LABEL_SIZE, theme.highlight()).next_to(
            sort_map, UP, buff=0.15
        )
        self.sort_subtitle.align_to(self.reverse_subtitle, UP)
        self.play(FadeIn(self.reverse_subtitle), FadeIn(self.sort_subtitle), run_time=0.6)
        self.reverse_map = reverse_map
        self.say("same model, same scoring rule: the alignment it learns depends on the task")

    def other_inputs(self, run: Artifact) -> None:
        sources, attentions, predictions = run["more_sources"], run["more_attention"], run["more_predictions"]
        correct, count = int(run.metrics["more_correct"]), len(sources)
        described = "; ".join(
            f"input {' '.join(map(str, src))}: step 0 points to position "
            f"{int(att[0].argmax())} (value {src[int(att[0].argmax())]}), output {' '.join(map(str, pred))}"
            for src, att, pred in zip(sources, attentions, predictions)
        )
        verdict = (
            f"All {count} are sorted correctly." if correct == count else f"{correct} of {count} are sorted correctly."
        )
        self.next_slide(
            notes=(
                f"{count} held-out inputs, one after the other, on the right; "
                f"the reversal on the left would look the same for every input. {described}. {verdict}"
            )
        )
        for index, (src, att, pred) in enumerate(zip(sources, attentions, predictions)):
            new_map = self._small_heatmap(att, src, pred, 0.45, True, "source value")
            new_map.move_to(self.heatmap)
            self.say(f"held-out input {index + 1}: {' '.join(map(str, src))}  ->  {' '.join(map(str, pred))}")
            self.bring_to_front(self.heatmap)  # the reversal beside it stays still: drawn once
            self.play(ReplacementTransform(self.heatmap, new_map), run_time=1.2)
            self.heatmap = new_map
            self.wait(1.0)

    def summary(self, run: Artifact, reverse: Artifact) -> None:
        metrics = run.metrics
        # Compare with the reversal's strongest alignment (wherever its peaks sit) before calling sorting softer.
        reverse_mass = max(reverse.metrics["held_out_shifted_mass"], reverse.metrics["held_out_mirror_mass"])
        softer = metrics["held_out_target_mass"] < reverse_mass
        self.next_slide(
            notes=(
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
        )
        # The scene ends on its claim; the held-out statistics are in the notes.
        # In the lecture's sans, as the evidence under it (LaTeX would set the sentence in serif).
        lines = ("Attention aligns by content:", "step t points to wherever", "the t-th smallest value sits")
        claim = VGroup(*[theme.text(line, theme.BODY_SIZE) for line in lines]).arrange(DOWN, buff=0.14)
        evidence = theme.label(
            f"held out, {metrics['held_out_argmax_on_target']:.1%} of steps peak there",
            theme.SMALL_SIZE,
            theme.muted(),
        )
        VGroup(claim, evidence).arrange(DOWN, buff=0.45).move_to([-3.5, -0.3, 0])
        # Dashed: where the t-th smallest value of the input on screen sits, i.e. where the weight should go.
        last_source = run["more_sources"][-1]
        targets = cell_outlines(
            self.heatmap, [(t, int(position)) for t, position in enumerate(np.argsort(last_source))]
        )
        self.bring_to_front(self.reverse_map, self.reverse_subtitle)  # fading on top: the rest is drawn once
        self.play(FadeOut(self.reverse_map), FadeOut(self.reverse_subtitle), run_time=0.6)
        self.play(Create(targets), run_time=1.0)
        self.play(Write(claim), run_time=1.6)
        self.play(FadeIn(evidence, shift=0.1 * UP), run_time=0.5)
        self.say("dashed: where the t-th smallest value of this input sits", theme.caption_colour())
        self.wait(1.2)
