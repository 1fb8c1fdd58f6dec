"""AttentionPooling, notebook cell tf8: attention pooling as a soft group-by. Trained to output the mean value
of each token's key group, attention spreads uniformly over the group: the task, the attention matrix, its
blocks, and the output against the true group means."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    SurroundingRectangle,
    VGroup,
)

from scenes.transformers.shared import TICK_SIZE, significant
from seqanim.contract import Artifact
from seqanim.kit import theme
from seqanim.kit.alignment import token_box
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.plots import Plot
from seqanim.slide import LectureSlide
from seqanim.spoken import count, integer, percent

# --- the words ----------------------------------------------------------------------------------------


def _keys(run: Artifact) -> np.ndarray:
    return run["keys"].astype(int)


def _groups(keys: np.ndarray) -> list[np.ndarray]:
    """The positions of each key group, in key order."""
    return [np.flatnonzero(keys == key) for key in np.unique(keys)]


def tokens_notes(run: Artifact) -> str:
    keys = _keys(run)
    return (
        "The lookup picked one position. "
        f"The same mechanism can average: {len(keys)} tokens with a key and a value, "
        "trained so every token outputs the mean value of its key group. "
        f"Tokens are sorted by key so groups sit together; this example has {len(set(keys.tolist()))} groups; "
        f"the k{keys[0]} group's values average {run['target'][0]:.4f}."
    )


def tokens_said(run: Artifact) -> tuple[str, str]:
    keys = _keys(run)
    return (
        f"Attention can also average. {count(len(keys), 'token').capitalize()} each carry a key, shown by colour, "
        "and a value.",
        "Each token must output the mean value of its key group; for key "
        f"{integer(int(keys[0]))}, that is {significant(run['target'][0])}.",
    )


def matrix_notes(run: Artifact) -> str:
    return (
        "The attention matrix: rows are the attending tokens (queries), columns the attended ones (keys). "
        f"In this example {run.metrics['example_within_group_mass']:.1%} of every row's weight stays inside "
        "its own key group."
    )


def matrix_said(run: Artifact) -> tuple[str, str]:
    return (
        "In the trained attention matrix, each row is a token looking, each column a token it sees.",
        f"Of every row's weight, {percent(run.metrics['example_within_group_mass'], 1)} stays inside its own key "
        "group.",
    )


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


def blocks_said(run: Artifact) -> tuple[str, str]:
    attention, keys = run["attention"], _keys(run)
    group = max(_groups(keys), key=len)  # the largest group shows the even spread best
    share = float(attention[group[0], group].mean())
    return (
        "Each key group forms a square block of weight.",
        f"Inside a block the weight is spread evenly: in a group of {integer(len(group))}, each token gets "
        f"{significant(share)}. A soft group-by.",
    )


def outputs_notes(run: Artifact) -> str:
    return (
        "The attention output next to the true group means: "
        f"largest error in this example {run.metrics['example_max_abs_error']:.4f}. "
        f"Held-out MSE {run.metrics['mse']:.2e}, against {run.metrics['sequence_mean_mse']:.4f} for predicting "
        f"each sequence's mean and {run.metrics['baseline_mse']:.4f} for the global mean."
    )


def times_smaller(run: Artifact) -> int:
    """How many times smaller the held-out squared error is than predicting each sequence's mean, to two
    significant digits."""
    ratio = run.metrics["sequence_mean_mse"] / run.metrics["mse"]
    return int(round(ratio, 1 - int(np.floor(np.log10(ratio)))))


def outputs_said(run: Artifact) -> tuple[str, str, str]:
    return (
        f"This plot shows the true group mean at each of the {count(len(run['target']), 'position')}.",
        "The attention output, dashed, lands right on them: its largest error is "
        f"{significant(run.metrics['example_max_abs_error'])}.",
        f"On held-out sequences its squared error is about {integer(times_smaller(run))} times smaller than "
        "guessing each sequence's mean.",
    )


# --- the scene ----------------------------------------------------------------------------------------


class AttentionPooling(LectureSlide):
    """tf8: trained to output each key group's mean value, attention spreads uniformly over the group."""

    data = ("groupby",)

    def construct(self) -> None:
        self.run = self.load("groupby")
        self.keys = _keys(self.run)
        self.tokens()
        self.matrix()
        self.blocks()
        self.outputs()

    def tokens(self) -> None:
        run = self.run
        self.next_slide(notes=tokens_notes(run))
        opening, task_said = tokens_said(run)
        heading = self.heading("Self-attention can pool, not just pick")
        self.token_row = VGroup(
            *[
                token_box(f"k{key}\n{value:.2f}", theme.item_colour(key), width=0.95, height=1.0)
                for key, value in zip(self.keys, run["values"])
            ]
        ).arrange(RIGHT, buff=0.15)
        self.token_row.next_to(heading, DOWN, buff=0.9)
        targets = VGroup(
            *[
                theme.text(f"{value:.2f}", theme.LABEL_SIZE, theme.item_colour(key)).next_to(token, DOWN, buff=0.7)
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
        with self.beat(opening):
            self.title(heading)
            self.play(FadeIn(self.token_row, lag_ratio=0.08), run_time=1.2)
            self.wait(0.5)
        with self.beat(task_said):
            self.play(Create(arrows), FadeIn(targets), FadeIn(target_title), run_time=1.0)
            self.wait(1.3)
        self.task = VGroup(targets, target_title, arrows)

    def matrix(self) -> None:
        attention = self.run["attention"]
        self.next_slide(notes=matrix_notes(self.run))
        rows_and_columns, within = matrix_said(self.run)
        values = [f"{value:.2f}" for value in self.run["values"]]
        # Rows name key and value; columns (the same tokens, same order) name the key, coloured by group like the rows.
        self.heatmap = Heatmap(
            attention,
            row_labels=[f"k{key} {value}" for key, value in zip(self.keys, values)],
            col_labels=[f"k{key}" for key in self.keys],
            row_title="query",
            col_title="key (attended token)",
            cell_size=0.52,
            vmin=0.0,
            vmax=float(attention.max()),
            label_size=theme.SMALL_SIZE,
        )
        self.heatmap.to_edge(LEFT, buff=0.3).shift(0.3 * DOWN)
        for labels in (self.heatmap.row_labels, self.heatmap.col_labels):
            for label, key in zip(labels, self.keys):
                label.set_color(theme.item_colour(key))
        with self.beat(rows_and_columns):
            self.play(FadeOut(self.token_row), FadeOut(self.task), FadeIn(self.heatmap), run_time=1.0)
            self.wait(1.0)
        with self.beat(within):
            self.wait(1.7)

    def blocks(self) -> None:
        keys = self.keys
        self.next_slide(notes=blocks_notes(self.run))
        blocks_shown, even_spread = blocks_said(self.run)
        outlines = VGroup()
        for group in _groups(keys):
            corner_cells = VGroup(self.heatmap.cell(group[0], group[0]), self.heatmap.cell(group[-1], group[-1]))
            outlines.add(
                SurroundingRectangle(
                    corner_cells, buff=0.0, color=theme.item_colour(int(keys[group[0]])), stroke_width=4
                )
            )
        with self.beat(blocks_shown):
            self.play(Create(outlines, lag_ratio=0.3), run_time=1.2)
        with self.beat(even_spread):
            self.wait(2.6)

    def outputs(self) -> None:
        target, output = self.run["target"], self.run["output"]
        self.next_slide(notes=outputs_notes(self.run))
        truth_said, output_said, held_out = outputs_said(self.run)
        count = len(target)
        plot = Plot(
            (0, count - 1, 1),
            (0, 1, 0.25),
            width=4.4,
            height=3.6,
            x_label="position",
            y_label="value",
            tick_size=TICK_SIZE,
        )
        plot.to_edge(RIGHT, buff=0.35).shift(0.35 * DOWN)
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
        with self.beat(truth_said):
            self.play(Create(plot), FadeIn(legend), run_time=0.8)
            self.play(Create(truth_line), FadeIn(truth_dots), run_time=0.8)
        with self.beat(output_said):
            self.play(Create(output_line), FadeIn(output_dots), run_time=0.8)
            self.wait(1.2)
        with self.beat(held_out):
            self.wait(1.9)
