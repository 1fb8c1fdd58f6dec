"""AttentionPooling, notebook cell tf8: attention pooling as a soft group-by. Trained to output the mean value
of each token's key group, attention spreads uniformly over the group: the task, the attention matrix, its
blocks, and the output against the true group means."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Circumscribe,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    SurroundingRectangle,
    VGroup,
    linear,
)

from scenes.transformers.shared import TICK_SIZE, significant, significant_rounded
from seqanim import Artifact, LectureSlide, count, integer, mark, percent, translated
from seqanim.kit import theme
from seqanim.kit.alignment import token_box
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.plots import Plot

# --- the words ----------------------------------------------------------------------------------------


def _keys(run: Artifact) -> np.ndarray:
    return run["keys"].astype(int)


def _groups(keys: np.ndarray) -> list[np.ndarray]:
    """The positions of each key group, in key order."""
    return [np.flatnonzero(keys == key) for key in np.unique(keys)]


# A held-out squared error below this is rounding, not error: float32 values in [0, 1) round by about 1e-7, whose
# square is 1e-14. With one key group the sequence's mean is every token's answer, and its error is that small.
EXACT_MSE = 1e-12


@dataclass(frozen=True)
class Pooling:
    """The facts of the pooling example every beat's words say, read once from the run."""

    tokens: int
    first_key: int  # the first token's key
    first_mean: float  # the mean value of its key group: its target
    within: float  # the share of every row's weight that stays inside its key group
    largest: int  # which of the key groups (`_groups`) is the largest: it shows the even spread best
    group_size: int  # its size
    share: float  # the weight each of its tokens gets from one of them
    positions: int
    max_error: float  # the attention output's largest error in this example
    guess_exact: bool  # held out, guessing each sequence's mean is exact (`EXACT_MSE`): nothing to beat
    attention_exact: bool  # held out, the attention's output is exact
    times_smaller: float  # held out, guessing each sequence's mean's squared error over the attention's

    @property
    def compared(self) -> str:
        """The attention's held-out error against the guess, as said to two digits: "smaller", "same", "larger"."""
        ratio = significant_rounded(self.times_smaller).value
        return "smaller" if ratio > 1 else "same" if ratio == 1 else "larger"


def pooling_facts(run: Artifact) -> Pooling:
    """What the pooling example shows: the task, the weight kept in a group, its even spread and the output's
    errors."""
    keys = _keys(run)
    groups = _groups(keys)
    largest = max(range(len(groups)), key=lambda g: len(groups[g]))
    group = groups[largest]
    return Pooling(
        tokens=len(keys),
        first_key=int(keys[0]),
        first_mean=float(run["target"][0]),
        within=float(run.metrics["example_within_group_mass"]),
        largest=largest,
        group_size=len(group),
        share=float(run["attention"][group[0], group].mean()),
        positions=len(run["target"]),
        max_error=float(run.metrics["example_max_abs_error"]),
        guess_exact=run.metrics["sequence_mean_mse"] < EXACT_MSE,
        attention_exact=run.metrics["mse"] < EXACT_MSE,
        times_smaller=run.metrics["sequence_mean_mse"] / max(run.metrics["mse"], EXACT_MSE),
    )


def tokens_notes(run: Artifact) -> str:
    facts = pooling_facts(run)
    return (
        "The lookup picked one position. "
        f"The same mechanism can average: {facts.tokens} tokens with a key and a value, "
        "trained so every token outputs the mean value of its key group. "
        f"Tokens are sorted by key so groups sit together; this example has {len(_groups(_keys(run)))} groups; "
        f"the k{facts.first_key} group's values average {facts.first_mean:.4f}."
    )


@translated
def tokens_said(run: Artifact) -> dict[str, str]:
    facts = pooling_facts(run)
    return {
        "opening": (
            f"Attention can also average. {count(facts.tokens, 'token').capitalize()} each carry a key, "
            f"{mark('colour')}shown by colour, and {mark('value')}a value."
        ),
        "task": (
            f"Each token must output {mark('mean')}the mean value of its key group; for key "
            f"{integer(facts.first_key)}, {mark('first')}that is {significant(facts.first_mean)}."
        ),
    }


def matrix_notes(run: Artifact) -> str:
    return (
        "The attention matrix: rows are the attending tokens (queries), columns the attended ones (keys). "
        f"In this example {pooling_facts(run).within:.1%} of every row's weight stays inside "
        "its own key group."
    )


@translated
def matrix_said(run: Artifact) -> dict[str, str]:
    return {
        "rows_and_columns": (
            f"In the trained attention matrix, {mark('row')}each row is a token looking; "
            f"{mark('column')}each column, a token it sees."
        ),
        "within": (
            f"Of every row's weight, {percent(pooling_facts(run).within, 1)} {mark('inside')}stays "
            "inside its own key group."
        ),
    }


def blocks_notes(run: Artifact) -> str:
    attention, keys = run["attention"], _keys(run)
    sizes = ", ".join(
        f"k{keys[g[0]]}: {len(g)} tokens, weight {attention[g[0], g].mean():.3f} each" for g in _groups(keys)
    )
    return (
        "Block structure: each token spreads its weight uniformly over all tokens sharing its key, "
        f"about 1/(group size) each ({sizes}). A soft group-by. "
        f"Held out, {run.metrics['within_group_mass']:.1%} of the weight stays in the group."
    )


@translated
def blocks_said(run: Artifact) -> dict[str, str]:
    facts = pooling_facts(run)
    return {
        "blocks_shown": "Each key group forms a square block of weight.",
        "even_spread": (
            f"Inside a block the weight is spread evenly: {mark('group')}in a group of {integer(facts.group_size)}, "
            f"each token gets {significant(facts.share)}. {mark('soft')}A soft group-by."
        ),
    }


def outputs_notes(run: Artifact) -> str:
    return (
        "The attention output next to the true group means: "
        f"largest error in this example {pooling_facts(run).max_error:.4f}. "
        f"Held-out MSE {run.metrics['mse']:.2e}, against {run.metrics['sequence_mean_mse']:.4f} for predicting "
        f"each sequence's mean and {run.metrics['baseline_mse']:.4f} for the global mean."
    )


@translated
def outputs_said(run: Artifact) -> dict[str, str]:
    facts = pooling_facts(run)
    return {
        "truth": (
            f"This plot shows {mark('truth')}the true group mean at each of the {count(facts.positions, 'position')}."
        ),
        "output": (
            "The attention output, dashed, lands right on them: "
            f"{mark('error')}its largest error is {significant(facts.max_error)}."
        ),
        "held_out": _held_out_compared(facts),
    }


def _held_out_compared(facts: Pooling) -> str:
    """The held-out squared error against guessing each sequence's mean: the ratio as said (to two digits), or
    which of the two is exact. Bookmark 'times': where the guess's error comes in."""
    if facts.guess_exact:
        return (
            f"On held-out sequences nothing beats {mark('times')}guessing each sequence's mean: "
            "here that guess is already exact."
        )
    if facts.attention_exact:
        return (
            f"On held-out sequences its squared error is only rounding, {mark('times')}unlike guessing each "
            "sequence's mean."
        )
    if facts.compared == "smaller":
        compared = f"about {significant(facts.times_smaller)} times smaller than"
    elif facts.compared == "same":
        compared = "about as large as"
    else:
        compared = f"about {significant(1 / facts.times_smaller)} times larger than"
    return f"On held-out sequences its squared error is {mark('times')}{compared} guessing each sequence's mean."


# --- the scene ----------------------------------------------------------------------------------------


class AttentionPooling(LectureSlide):
    """tf8: trained to output each key group's mean value, attention spreads uniformly over the group."""

    data = ("groupby",)

    def construct(self) -> None:
        self.run = self.load("groupby")
        self.keys = _keys(self.run)
        self.facts = pooling_facts(self.run)
        self.tokens()
        self.matrix()
        self.blocks()
        self.outputs()

    def tokens(self) -> None:
        run = self.run
        self.next_slide(notes=tokens_notes(run))
        said = tokens_said(run)
        heading = self.heading("Self-attention can pool, not just pick")
        # 12 tokens fit a row at the default width, 16 on narrower boxes past 24 tokens (groupby.length); each
        # row's targets stand under it. Past two rows (more than 32 tokens) the rows stand closer, on shorter boxes
        # and arrows, so that four rows fit the frame.
        per_row = math.ceil(len(self.keys) / math.ceil(len(self.keys) / (12 if len(self.keys) <= 24 else 16)))
        width = min(0.95, (13.4 - 0.15 * (per_row - 1)) / per_row)
        close = len(self.keys) > 2 * per_row
        box_height, arrow_room, row_gap, top_gap = (0.72, 0.3, 0.8, 0.5) if close else (1.0, 0.7, 1.5, 0.9)
        tokens = [
            token_box(f"k{key}\n{value:.2f}", theme.item_colour(key), width=width, height=box_height)
            for key, value in zip(self.keys, run["values"])
        ]
        rows = [
            VGroup(*tokens[start : start + per_row]).arrange(RIGHT, buff=0.15)
            for start in range(0, len(tokens), per_row)
        ]
        rows[0].next_to(heading, DOWN, buff=top_gap)
        for above, row in zip(rows, rows[1:]):
            row.next_to(above, DOWN, buff=row_gap)
        self.token_row = VGroup(*tokens)
        target_size = theme.LABEL_SIZE if per_row <= 12 else theme.SMALL_SIZE  # 16 a row: room between them
        targets = VGroup(
            *[
                theme.text(f"{value:.2f}", target_size, theme.item_colour(key)).next_to(token, DOWN, buff=arrow_room)
                for key, value, token in zip(self.keys, run["target"], self.token_row)
            ]
        )
        target_title = theme.text(
            "target: mean value of the token's key group", theme.LABEL_SIZE, theme.muted()
        ).next_to(targets, DOWN, buff=0.35)
        arrows = VGroup(
            *[
                Arrow(
                    token.get_bottom(),
                    target.get_top(),
                    buff=0.08,
                    color=theme.muted(),
                    stroke_width=2,
                    max_tip_length_to_length_ratio=0.3,
                )
                for token, target in zip(self.token_row, targets)
            ]
        )
        groups = _groups(self.keys)
        with self.beat(said["opening"]) as beat:  # the tokens appear, then their colours (keys), then their values
            tokens = LaggedStart(*[FadeIn(token, shift=0.1 * DOWN) for token in self.token_row], lag_ratio=0.15)
            self.title(heading, along=[tokens], run_time=beat.until("colour"))
            by_key = [Indicate(VGroup(*[self.token_row[i][0] for i in group])) for group in groups]
            self.play(LaggedStart(*by_key, lag_ratio=0.6), run_time=beat.until("value"))
            self.play(LaggedStart(*[Indicate(token[1], scale_factor=1.15) for token in self.token_row], lag_ratio=0.1),
                      run_time=beat.remaining)  # fmt: skip
        first = groups[0]
        with self.beat(said["task"]) as beat:  # each token points to its group's mean; key 0's is read out
            self.play(LaggedStart(*[Create(arrow) for arrow in arrows], lag_ratio=0.1), run_time=beat.until("mean"))
            self.play(LaggedStart(*[FadeIn(target, shift=0.1 * DOWN) for target in targets], lag_ratio=0.1),
                      FadeIn(target_title), run_time=beat.until("first"))  # fmt: skip
            self.play(Circumscribe(VGroup(*[self.token_row[i] for i in first], *[targets[i] for i in first]),
                                   color=theme.highlight()), run_time=beat.remaining)  # fmt: skip
        self.task = VGroup(targets, target_title, arrows)

    def matrix(self) -> None:
        attention = self.run["attention"]
        self.next_slide(notes=matrix_notes(self.run))
        said = matrix_said(self.run)
        values = [f"{value:.2f}" for value in self.run["values"]]
        cell = 5.2 / len(self.keys)  # 5.2 units square, as at the default 10 tokens (groupby.length)
        # Rows name key and value, columns (the same tokens, same order) the key; where the cells are too small for
        # that, each key group is named once (the tokens are sorted by key, so a group is a block).
        groups = [(f"k{self.keys[group[0]]}", group) for group in _groups(self.keys)]
        self.heatmap = Heatmap(
            attention,
            row_labels=[f"k{key} {value}" for key, value in zip(self.keys, values)],
            col_labels=[f"k{key}" for key in self.keys],
            row_groups=groups,
            col_groups=groups,
            row_title="query",
            col_title="key",  # "key (columns)", beside "query (rows)"
            cell_size=cell,
            vmin=0.0,
            vmax=float(attention.max()),
            label_size=theme.SMALL_SIZE,
        )
        self.heatmap.to_edge(LEFT, buff=0.3).shift(0.3 * DOWN)
        for labels, spans in ((self.heatmap.row_labels, self.heatmap.row_spans),
                              (self.heatmap.col_labels, self.heatmap.col_spans)):  # fmt: skip
            for label, span in zip(labels, spans):
                label.set_color(theme.item_colour(self.keys[span[0]]))  # coloured by key group, like the tokens
        with self.beat(said["rows_and_columns"]) as beat:
            self.play(FadeOut(self.token_row), FadeOut(self.task), run_time=0.4)
            self.play(FadeIn(self.heatmap), run_time=beat.until("row"))
            self.play(LaggedStart(*[Indicate(label) for label in self.heatmap.row_labels], lag_ratio=0.15),
                      run_time=beat.until("column"))  # fmt: skip
            self.play(LaggedStart(*[Indicate(label) for label in self.heatmap.col_labels], lag_ratio=0.15),
                      run_time=beat.remaining)  # fmt: skip
        share = self.facts.within
        with self.beat(said["within"]) as beat:  # the share is written, then each row's in-group cells light up in turn
            self.within = self.fact(f"{share:.1%} of every row's weight", "stays inside its key group")
            self.within.next_to(self.heatmap, RIGHT, buff=0.6).align_to(self.heatmap.cells, UP).shift(0.6 * DOWN)
            self.play(FadeIn(self.within, shift=0.1 * UP), run_time=beat.until("inside"))
            rows = [VGroup(*[self.heatmap.cell(i, j) for j in g]) for g in _groups(self.keys) for i in g]
            self.play(LaggedStart(*[Indicate(row, scale_factor=1.05) for row in rows], lag_ratio=0.3),
                      run_time=beat.remaining)  # fmt: skip
        self.add(self.heatmap)  # manim took the lit cells out of it: one heatmap again

    def blocks(self) -> None:
        keys = self.keys
        self.next_slide(notes=blocks_notes(self.run))
        said = blocks_said(self.run)
        outlines = VGroup()
        for group in _groups(keys):
            corner_cells = VGroup(self.heatmap.cell(group[0], group[0]), self.heatmap.cell(group[-1], group[-1]))
            outlines.add(
                SurroundingRectangle(
                    corner_cells, buff=0.0, color=theme.item_colour(int(keys[group[0]])), stroke_width=4
                )
            )
        with self.beat(said["blocks_shown"]) as beat:
            self.play(LaggedStart(*[Create(outline) for outline in outlines], lag_ratio=0.5), run_time=beat.remaining)
        largest = self.facts.largest
        group = _groups(keys)[largest]
        with self.beat(said["even_spread"]) as beat:  # the largest block's cells, its even share, then the name of it
            cells = VGroup(*[self.heatmap.cell(i, j) for i in group for j in group])
            self.play(Indicate(cells, scale_factor=1.05), run_time=beat.until("group"))
            self.add(self.heatmap, outlines)  # manim took the lit cells out: one heatmap again, the outlines over it
            spread = self.fact(
                f"a group of {self.facts.group_size}: {self.facts.share:.3f}", "of the weight on each token"
            )
            spread.next_to(self.within, DOWN, buff=0.5, aligned_edge=LEFT)
            self.play(FadeIn(spread, shift=0.1 * UP), run_time=beat.until("soft"))
            soft = theme.text("a soft group-by", theme.BODY_SIZE, theme.highlight())
            soft.next_to(spread, DOWN, buff=0.5, aligned_edge=LEFT)
            self.play(FadeIn(soft), Circumscribe(outlines[largest], color=theme.highlight()), run_time=beat.remaining)
        self.facts = VGroup(self.within, spread, soft)

    @staticmethod
    def fact(*lines: str, size: int = theme.LABEL_SIZE) -> VGroup:
        """A short written fact, line under line, beside the picture it is about."""
        return VGroup(*[theme.text(line, size, theme.muted()) for line in lines]).arrange(
            DOWN, aligned_edge=LEFT, buff=0.1
        )

    def outputs(self) -> None:
        target, output = self.run["target"], self.run["output"]
        self.next_slide(notes=outputs_notes(self.run))
        said = outputs_said(self.run)
        count = len(target)
        plot = Plot(
            (0, count - 1, math.ceil(count / 10)),  # a numbered tick for each position up to 10, then every other
            (0, 1, 0.25),
            width=4.4,
            height=3.6,
            x_label="position",
            y_label="value",
            tick_size=TICK_SIZE,
        )
        plot.to_edge(RIGHT, buff=0.35).shift(0.1 * UP)  # room below it for the held-out errors
        positions = np.arange(count)
        truth_line = plot.curve(positions, target, theme.foreground(), stroke_width=3)
        truth_dots = VGroup(
            *[Dot(point, radius=0.09, color=theme.foreground()) for point in plot.to_screen(positions, target)]
        )
        output_line = DashedVMobject(
            plot.curve(positions, output, theme.output_colour(), stroke_width=3), num_dashes=40
        )
        output_dots = VGroup(
            *[Dot(point, radius=0.05, color=theme.output_colour()) for point in plot.to_screen(positions, output)]
        )
        legend = (
            VGroup(
                theme.text("true group mean", theme.SMALL_SIZE, theme.foreground()),
                theme.text("attention output", theme.SMALL_SIZE, theme.output_colour()),
            )
            .arrange(RIGHT, buff=0.4)
            .next_to(plot, UP, buff=0.2)
        )
        worst = int(np.argmax(np.abs(output - target)))
        metrics = self.run.metrics
        with self.beat(said["truth"]) as beat:  # the plot, then the truth traced left to right as it is named
            self.play(FadeOut(self.facts), run_time=0.4)
            self.play(Create(plot), run_time=beat.until("truth"))
            self.play(FadeIn(legend[0]), Create(truth_line), LaggedStart(*[FadeIn(dot) for dot in truth_dots]),
                      rate_func=linear, run_time=beat.remaining)  # fmt: skip
        with self.beat(said["output"]) as beat:  # the output traced over it, then its worst point circled
            self.play(FadeIn(legend[1]), Create(output_line), LaggedStart(*[FadeIn(dot) for dot in output_dots]),
                      rate_func=linear, run_time=beat.until("error"))  # fmt: skip
            self.play(Circumscribe(VGroup(truth_dots[worst], output_dots[worst]), color=theme.highlight()),
                      run_time=beat.remaining)  # fmt: skip
        with self.beat(said["held_out"]) as beat:  # the held-out errors, side by side
            errors = self.fact(
                f"held-out MSE {metrics['mse']:.1e}",
                f"each sequence's mean: {metrics['sequence_mean_mse']:.4f}",
                size=theme.SMALL_SIZE,
            )
            errors.next_to(plot, DOWN, buff=0.2).align_to(plot, RIGHT)
            self.play(FadeIn(errors[0], shift=0.1 * UP), run_time=beat.until("times"))
            self.play(FadeIn(errors[1], shift=0.1 * UP), run_time=beat.remaining)
