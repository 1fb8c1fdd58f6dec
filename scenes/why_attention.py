"""Seed 003: why attention, and how it works. Compare (scores), normalise (softmax), retrieve (weighted
values), then masks and what an attention plot can and cannot explain. Every number is read from
data/qkv_walkthrough (precompute/qkv_walkthrough.py)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    DecimalNumber,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    ManimColor,
    MathTex,
    NumberLine,
    RoundedRectangle,
    SurroundingRectangle,
    Text,
    Transform,
    ValueTracker,
    VGroup,
    Write,
    smooth,
)

from seqanim.contract import Artifact
from seqanim.declare import Part
from seqanim.kit import theme
from seqanim.kit.bars import Bars
from seqanim.kit.formula import CONTEXT, SCORES, WEIGHTS, formula
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.matrix import MatrixTable, number_format
from seqanim.kit.motion import roll
from seqanim.kit.vectors import VectorDiagram
from seqanim.slide import LectureSlide

PART = Part("Why attention, and how it works", order=3)

# Bottom captions of these scenes run a little larger than the kit's default label size.
CAPTION_SIZE = theme.LABEL_SIZE

# --- formatting: every number on screen and in the notes goes through these -------------------------


def fmt_row(values: Sequence[float], decimals: int = 4) -> str:
    """[0.7071, 0.0000, 0.7071]"""
    return "[" + ", ".join(f"{float(v):.{decimals}f}" for v in values) + "]"


def fmt_g(values: Sequence[float]) -> str:
    """[1, 0]: short form of exact small numbers (the hand-designed vectors, a [1, 0, 0] weight row)."""
    return "[" + ", ".join(f"{float(v):g}" for v in values) + "]"


def item_colours(count: int) -> list[ManimColor]:
    """One colour per memory item (A, B, C), kept through every scene; distinct from the Q/K/V role colours."""
    return [theme.item_colour(i) for i in range(count)]


def key_labels(art: Artifact) -> list[str]:
    return [str(label) for label in art["labels"]]


def position_labels(count: int) -> list[str]:
    return [f"pos {i}" for i in range(count)]


class WhyAttentionSlide(LectureSlide):
    """Shared furniture of the seed-003 scenes: the walkthrough artifact, its key labels and item colours."""

    data = ("qkv_walkthrough",)

    def setup(self) -> None:
        super().setup()
        self.art = self.load("qkv_walkthrough")
        self.labels = key_labels(self.art)
        self.colours = item_colours(len(self.labels))


# --- cells 5-7 -----------------------------------------------------------------------------------


class QueryKeyValue(WhyAttentionSlide):
    """Q asks, K addresses, V stores. Keys are points, the query an arrow; A and C score the same."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        art = self.art
        Q, K, V = art["Q"], art["K"], art["V"]
        self.next_slide(
            notes=f"Start with a query and an addressable memory. Q asks what to retrieve: q = {fmt_g(Q[0])}. "
            "K describes how each memory item matches: "
            f"{', '.join(f'k_{label} = {fmt_g(k)}' for label, k in zip(self.labels, K))}. "
            f"Shapes: Q {Q.shape}, K {K.shape}, V {V.shape}. Hand-designed teaching vectors, not learned embeddings. "
            "Attention answers the fixed-context bottleneck: "
            "instead of one final encoder state, every output query retrieves from all earlier states."
        )
        heading = self.heading("Query, keys and values")
        diagram, points, query = self.key_plane(Q[0], K)
        points.set_z_index(2)  # the query arrow ends on key A: keep the keys on top
        self.title(heading, along=[Create(diagram)], run_time=0.8)
        self.play(LaggedStart(*[FadeIn(p, scale=0.5) for p in points], lag_ratio=0.3), run_time=1.0)
        self.play(GrowArrow(query[0]), FadeIn(query[1]), run_time=0.8)

        self.next_slide(
            notes="V holds the information to combine, one value row per key row: "
            f"{', '.join(f'{label}: k = {fmt_g(k)} -> v = {fmt_g(v)}' for label, k, v in zip(self.labels, K, V))}. "
            "A key is an address; its associated value need not equal the key. "
            "Keep key rows paired with their value rows."
        )
        tables = self.memory_tables(K, V).to_edge(RIGHT, buff=0.45).shift(0.35 * UP)
        self.play(FadeIn(tables), run_time=0.8)
        row_boxes = VGroup(
            *[
                SurroundingRectangle(
                    VGroup(tables[0].row_entries(i), tables[1].row_entries(i)), buff=0.06, color=c, stroke_width=2
                )
                for i, c in enumerate(self.colours)
            ]
        )
        self.play(LaggedStart(*[Create(b) for b in row_boxes], lag_ratio=0.4), run_time=1.2)
        self.say("a key is an address; its value need not equal the key", colour=theme.muted(), size=CAPTION_SIZE)

        raw = art["raw_scores"][0]
        self.next_slide(
            notes="Project each key onto the query: q.k = "
            f"{', '.join(f'{label}: {s:g}' for label, s in zip(self.labels, raw))}. "
            f"Checkpoint: A and C have the same dot product with this query ({raw[0]:g} = {raw[2]:g}), "
            "although their keys differ. "
            "Practice 4: additive attention attaches to an LSTM encoder-decoder the same way: "
            "a decoder query scores all encoder states; no need to remove recurrence."
        )
        self.play(FadeOut(row_boxes), run_time=0.4)
        self.projections(diagram, Q[0], K, raw, tables)
        same = [i for i in range(len(raw)) if np.isclose(raw[i], raw.max())]
        self.say(
            f"{' and '.join(self.labels[i] for i in same)} score the same with this query: q\u00b7k = {raw.max():g}",
            colour=theme.caption_colour(),
            size=CAPTION_SIZE,
        )

    def key_plane(self, query: np.ndarray, keys: np.ndarray) -> tuple[VGroup, VGroup, VGroup]:
        span = max(1.5, float(np.abs(np.vstack([keys, query[None]])).max()) + 0.5)
        diagram = VectorDiagram((-0.5, span, 0.5), (-0.5, span, 0.5), width=5.0)
        diagram.to_edge(LEFT, buff=0.9).shift(0.25 * DOWN)
        axes_labels = VGroup(
            theme.text("key dim 1", theme.SMALL_SIZE, theme.muted()).next_to(diagram, DOWN, buff=0.08),
            theme.text("key dim 2", theme.SMALL_SIZE, theme.muted())
            .rotate(np.pi / 2)
            .next_to(diagram, LEFT, buff=0.08),
        )
        diagram.add(axes_labels)
        points = VGroup(
            *[diagram.point(k, c, f"{label} {fmt_g(k)}") for k, c, label in zip(keys, self.colours, self.labels)]
        )
        arrow = diagram.arrow(query, theme.query_colour())
        # Above the arrow's middle: below it is where the keys' shadows on q will stack.
        label = theme.text(f"q = {fmt_g(query)}", theme.LABEL_SIZE, theme.query_colour()).next_to(arrow, UP, buff=0.12)
        self.diagram = diagram
        return diagram, points, VGroup(arrow, label)

    def memory_tables(self, K: np.ndarray, V: np.ndarray) -> VGroup:
        short = number_format(0)
        keys = MatrixTable(
            K, row_labels=self.labels, row_label_colours=self.colours, col_title="key k", fmt=short, cell_width=0.6
        )
        values = MatrixTable(V, col_title="value v", fmt=short, cell_width=0.75)
        for table, colour in ((keys, theme.key_colour()), (values, theme.value_colour())):
            table.col_title.set_color(colour)
        values.next_to(keys, RIGHT, buff=0.35).align_to(keys.cells, DOWN)
        values.shift((keys.cells.get_y() - values.cells.get_y()) * UP)
        return VGroup(keys, values)

    def projections(
        self, diagram: VectorDiagram, query: np.ndarray, keys: np.ndarray, raw: np.ndarray, tables: VGroup
    ) -> None:
        """Each key casts its shadow on q's direction, one after another (the first slowly): the shadow's
        length times |q| is the score, which then appears beside the tables."""
        line = diagram.direction_line(query, theme.query_colour())
        self.play(Create(line), run_time=0.6)
        readouts = VGroup(
            *[
                MathTex(rf"q \cdot k_{{{label}}} = {score:g}", font_size=theme.BODY_SIZE + 8, color=colour)
                for score, colour, label in zip(raw, self.colours, self.labels)
            ]
        )
        readouts.arrange(DOWN, aligned_edge=LEFT, buff=0.2).next_to(tables, DOWN, buff=0.45).align_to(
            tables, LEFT
        ).shift(0.5 * RIGHT)
        for index, (key, colour) in enumerate(zip(keys, self.colours)):
            # Shadows stack beside the line like rulers, so equal scores show as equal lengths.
            drop, shadow, foot = diagram.projection(key, query, colour, offset=0.16 + 0.13 * index)
            speed = 1.0 if index == 0 else 0.6
            self.play(Create(drop), FadeIn(foot, scale=0.5), run_time=0.7 * speed)
            self.play(Create(shadow), run_time=0.6 * speed)
            self.play(FadeIn(readouts[index], target_position=shadow.get_end()), run_time=0.7 * speed)
        best = [readouts[i] for i in range(len(raw)) if np.isclose(raw[i], raw.max())]
        self.play(*[Indicate(r, color=theme.highlight(), scale_factor=1.15) for r in best], run_time=1.0)


# --- cells 8-10 ----------------------------------------------------------------------------------


class ScaledScores(WhyAttentionSlide):
    """Each q.k_i computed in view and divided by sqrt(d_k): the score row, entry by entry."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        art = self.art
        Q, K = art["Q"], art["K"]
        raw, scores = art["raw_scores"][0], art["scores"][0]
        d_k = int(art["d_k"])
        self.next_slide(
            notes="For each query compute its dot product with every key, then divide by "
            f"sqrt(d_k) = sqrt({d_k}) = {np.sqrt(d_k):.4f}. "
            "This controls the score scale as the key dimension grows (unit-variance coordinates); "
            "it does not normalise vector lengths. "
            f"Q is {Q.shape[0]}x{Q.shape[1]}, K^T is {K.shape[1]}x{K.shape[0]}: "
            "S has one row per query, one column per key."
        )
        heading = self.heading("Scaled scores")
        equation = formula(SCORES, size=theme.BODY_SIZE + 6).next_to(heading, DOWN, buff=0.3)
        self.title(heading, along=[Write(equation)], run_time=1.0)
        big = dict(entry_size=theme.BODY_SIZE, label_size=theme.LABEL_SIZE, cell_height=0.62)
        query = MatrixTable(
            Q,
            row_labels=["q"],
            row_label_colours=[theme.query_colour()],
            col_title="Q",
            fmt=number_format(0),
            cell_width=0.7,
            **big,
        )
        # Wide columns: q's entries slide down each column beside the key's own entries.
        keys_t = MatrixTable(
            K.T,
            col_labels=self.labels,
            col_label_colours=self.colours,
            col_title=r"$K^\top$ (columns = keys)",
            fmt=number_format(0),
            cell_width=1.25,
            **big,
        )
        query.col_title.set_color(theme.query_colour())
        keys_t.col_title.set_color(theme.key_colour())
        operands = (
            VGroup(query, keys_t)
            .arrange(RIGHT, buff=0.6, aligned_edge=DOWN)
            .next_to(equation, DOWN, buff=0.45)
            .to_edge(LEFT, buff=0.5)
        )
        row = MatrixTable(
            np.full((1, len(scores)), np.nan),
            row_labels=["q"],
            row_label_colours=[theme.query_colour()],
            col_labels=self.labels,
            col_label_colours=self.colours,
            col_title="S (scaled scores)",
            cell_width=1.6,
            **big,
        )
        row.entries.set_opacity(0)
        row.next_to(operands, RIGHT, buff=0.7).align_to(keys_t.cells, DOWN)
        self.play(FadeIn(operands), run_time=0.8)
        self.play(FadeIn(row), run_time=0.6)

        # q, stood up as a column, slides over K^T: at each column its entries meet the key's, and the score
        # appears as it passes.
        slider = query.row_entries(0).copy().set_color(theme.query_colour())
        for index in range(len(scores)):
            label = self.labels[index]
            if index < 2:
                rest = ", ".join(f"{name}: {s:.4f}" for name, s in zip(self.labels[index + 1 :], scores[index + 1 :]))
                self.next_slide(
                    notes=f"Key {label}: q.k_{label} = {' + '.join(f'{q:g}*{k:g}' for q, k in zip(Q[0], K[index]))} = "
                    f"{raw[index]:g}; scaled: {raw[index]:g} / sqrt({d_k}) = {scores[index]:.4f}."
                    + (f" The same for the rest: {rest}." if index == 1 else "")
                )
            self.compute_entry(
                index,
                Q[0],
                K[index],
                raw[index],
                scores[index],
                d_k,
                keys_t,
                row,
                slider,
                pace=(1.0, 0.7, 0.45)[min(index, 2)],
            )
        self.slider = slider

        self.next_slide(
            notes=f"Checkpoint: the scaled score row is approximately {fmt_row(scores)}. "
            f"Raw dot products {fmt_g(raw)}. "
            f"Scores are not yet probabilities and may be negative{self.negative_example()}."
        )
        summary = MathTex(
            r"S = \frac{1}{\sqrt{" + f"{d_k}" + "}}",
            rf"\left[{', '.join(f'{r:g}' for r in raw)}\right]",
            "=",
            rf"\left[{', '.join(f'{s:.4f}' for s in scores)}\right]",
            font_size=theme.BODY_SIZE + 12,
            color=theme.foreground(),
        )
        summary[3].set_color(theme.highlight())
        summary.move_to(self.work)
        box = SurroundingRectangle(row.entries, buff=0.12, color=theme.highlight())
        self.play(roll(self.work, summary), Create(box), FadeOut(self.slider), run_time=1.0)
        # The caption's claim is shown, not asserted: this query's scores are all >= 0, so another query of
        # the walkthrough (from the data) shows negative ones.
        negative = self.negative_scores()
        if negative is not None:
            query, query_scores = negative
            line = MathTex(
                rf"q = {fmt_g(query)}:\quad S = \left[{', '.join(f'{v:.4f}' for v in query_scores)}\right]",
                font_size=theme.tex_size(theme.LABEL_SIZE),
                color=theme.muted(),
            ).next_to(summary, DOWN, buff=0.45)
            self.play(FadeIn(line, shift=0.2 * UP), run_time=0.8)
            self.say("scores, not yet probabilities: another query gives negative ones", size=CAPTION_SIZE)
        else:
            self.say("scores, not yet probabilities: a softmax turns them into weights", size=CAPTION_SIZE)

    def negative_scores(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The first query of the walkthrough with a negative scaled score, and its scores."""
        queries, query_scores = self.art["queries"], self.art["query_scores"]
        for query, scores in zip(queries, query_scores):
            if scores.min() < 0:
                return query, scores
        return None

    def negative_example(self) -> str:
        """A later query of the walkthrough whose scaled scores go negative, quoted with its scores."""
        negative = self.negative_scores()
        if negative is None:
            return ""
        return f": with q = {fmt_g(negative[0])} they are {fmt_row(negative[1])}"

    def compute_entry(
        self,
        index: int,
        query: np.ndarray,
        key: np.ndarray,
        raw: float,
        score: float,
        d_k: int,
        keys_t: MatrixTable,
        row: MatrixTable,
        slider: VGroup,
        pace: float,
    ) -> None:
        """q's column moves beside key column `index`; the dot product and its scaling are written out, and
        the score travels into its cell of S. `pace` < 1 runs it faster (the first key slowly, then quicker)."""
        label = self.labels[index]
        colour = self.colours[index]
        terms = " + ".join(rf"{q:g}\cdot{k:g}" for q, k in zip(query, key))
        size = theme.BODY_SIZE + 12
        dot = MathTex(rf"q\cdot k_{{{label}}}", "=", terms, "=", f"{raw:g}", font_size=size, color=theme.foreground())
        dot[0].set_color(colour)
        scaled = MathTex(
            rf"\frac{{{raw:g}}}{{\sqrt{{{d_k}}}}}", "=", f"{score:.4f}", font_size=size, color=theme.foreground()
        )
        scaled[2].set_color(colour)
        VGroup(dot, scaled).arrange(RIGHT, buff=0.8).move_to(1.55 * DOWN)
        # q's i-th entry sits left of the key's i-th entry, in the left part of the wide cell.
        places = [keys_t.cell(r, index).get_center() + 0.36 * keys_t.cell_width * LEFT for r in range(len(query))]
        # A multiplication dot between each pair, so "1 1" reads as 1 times 1.
        times = VGroup(
            *[
                MathTex(r"\cdot", font_size=size, color=theme.muted()).move_to(
                    (place + keys_t.cell(r, index).get_center()) / 2
                )
                for r, place in enumerate(places)
            ]
        )
        column = VGroup(keys_t.column_box(index, colour), times)
        if hasattr(self, "work"):
            self.play(FadeOut(self.work), run_time=0.3 * pace)
        if index == 0:  # q leaves its row and stands up beside the first key column
            moves = [entry.animate.move_to(place) for entry, place in zip(slider, places)]
            self.add(slider)
            self.play(LaggedStart(*moves, lag_ratio=0.15), Create(column), run_time=1.2)
        else:
            self.play(
                *[entry.animate.move_to(place) for entry, place in zip(slider, places)],
                Create(column),
                run_time=0.7 * pace,
            )
        self.play(Write(dot), run_time=1.0 * pace)
        self.play(Write(scaled), run_time=0.8 * pace)
        # The computed number travels into its cell (moved, not morphed), where the table's entry takes over.
        target = row.entry_target(0, index, score, colour)
        travelling = scaled[2].copy()
        self.play(travelling.animate.scale_to_fit_height(target.height).move_to(target), run_time=0.8 * pace)
        row.entries[index].become(target)
        self.remove(travelling)
        self.add(row)
        self.play(FadeOut(column), run_time=0.3 * pace)
        self.work = VGroup(dot, scaled)


# --- cells 11-13 ---------------------------------------------------------------------------------


class SoftmaxNormalization(WhyAttentionSlide):
    """Score bars through subtract-the-max, exponentiate, divide by the sum: a row of weights that sums to 1."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        art = self.art
        scores, shifted, exp, weights = art["scores"][0], art["shifted"][0], art["exp"][0], art["weights"][0]
        exp_sum = float(art["exp_sum"][0])
        self.next_slide(
            notes=f"Softmax turns the score row {fmt_row(scores)} into weights in three steps: "
            "subtract the row maximum, exponentiate, divide by the row sum. "
            "Each query row must sum to 1 over the available keys."
        )
        heading = self.heading("Softmax: scores become weights")
        bars = Bars(
            scores,
            self.labels,
            max_value=1.0,
            height=2.6,
            colours=self.colours,
            min_value=float(min(shifted.min(), 0.0)),
            bar_width=0.95,
            spacing=0.55,
            value_size=theme.tex_size(theme.LABEL_SIZE),
        )
        bars.to_edge(LEFT, buff=1.3)
        bars.shift((-0.1 - bars.baseline.get_y()) * UP)  # room above for bars of 1, below for the shifted row
        bars_caption = theme.text("scores s", theme.LABEL_SIZE, theme.muted()).next_to(bars.labels, DOWN, buff=0.2)
        self.title(heading, along=[FadeIn(bars), FadeIn(bars_caption)], run_time=0.8)
        steps = self.step_lines(scores, shifted, exp, exp_sum, weights).to_edge(RIGHT, buff=0.6).shift(0.2 * DOWN)
        self.play(FadeIn(steps[0]), run_time=0.6)

        self.next_slide(
            notes=f"Step 1, subtract the row maximum {scores.max():.4f}: the row becomes {fmt_row(shifted)}. "
            "Subtracting a shared constant changes no probability: "
            f"softmax of either row is {fmt_row(art['weights_from_shifted'][0])}. It only keeps exp from overflowing."
        )
        bars_caption = self.advance(steps, 1, bars_caption, "s \u2212 max s")
        self.play(bars.morph(shifted), run_time=1.4)
        self.play(FadeIn(steps[2], shift=0.2 * UP), run_time=0.6)

        zero_key = int(np.argmin(scores))  # the lowest-scoring key still keeps some weight
        self.next_slide(
            notes=f"Step 2, exponentiate: {fmt_row(exp)}. Every entry is now positive; the row sum is {exp_sum:.4f}."
        )
        bars_caption = self.advance(steps, 3, bars_caption, "exp(s \u2212 max s)")
        self.play(bars.morph(exp), run_time=1.4)

        self.next_slide(
            notes=f"Step 3, divide by the sum {exp_sum:.4f}. "
            f"Checkpoint: the weights are approximately {fmt_row(weights)}, sum {weights.sum():.4f}. "
            f"{self.labels[zero_key]} still has positive weight {weights[zero_key]:.4f} even though its score is "
            f"{scores[zero_key]:.4f}, the lowest: softmax never gives exactly zero to an allowed key."
        )
        bars_caption = self.advance(steps, 4, bars_caption, "weights w")
        self.play(bars.morph(weights), run_time=1.4)
        box = SurroundingRectangle(
            VGroup(bars.bars[zero_key], bars.readouts[zero_key], bars.labels[zero_key]),
            buff=0.1,
            color=theme.highlight(),
        )
        self.play(Create(box), run_time=0.6)
        self.say(
            f"{self.labels[zero_key]}: score {scores[zero_key]:.4f}, yet weight {weights[zero_key]:.4f} > 0",
            colour=theme.caption_colour(),
            size=CAPTION_SIZE,
        )

    def step_lines(
        self, scores: np.ndarray, shifted: np.ndarray, exp: np.ndarray, exp_sum: float, weights: np.ndarray
    ) -> VGroup:
        def row(values: np.ndarray) -> str:
            return r"\left[" + ", ".join(f"{v:.4f}" for v in values) + r"\right]"

        size = theme.tex_size(theme.SMALL_SIZE)
        lines = VGroup(
            MathTex(r"s = ", row(scores), font_size=size),
            MathTex(r"s - \max s = ", row(shifted), font_size=size),
            MathTex(r"\operatorname{softmax}(s) = \operatorname{softmax}(s - \max s)", font_size=size),
            MathTex(r"e^{\,s - \max s} = ", row(exp), rf"\quad \Sigma = {exp_sum:.4f}", font_size=size),
            MathTex(
                r"w = \frac{e^{\,s - \max s}}{\Sigma} = ",
                row(weights),
                rf"\quad \Sigma w = {weights.sum():.4f}",
                font_size=size,
            ),
        )
        lines.set_color(theme.foreground())
        lines[2].set_color(theme.muted())
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.42)
        lines[2].shift(0.2 * UP + 0.3 * RIGHT)
        return lines

    def advance(self, steps: VGroup, index: int, bars_caption: Text, caption: str) -> Text:
        """Dim the steps done, reveal the next one, and retitle the bars (returns the new title)."""
        done = [steps[i] for i in range(index) if i != 2]
        new_caption = theme.text(caption, theme.LABEL_SIZE, theme.muted()).move_to(bars_caption)
        self.play(
            *[line.animate.set_opacity(0.45) for line in done],
            FadeIn(steps[index], shift=0.2 * UP),
            roll(bars_caption, new_caption),
            run_time=0.7,
        )
        self.play(
            Indicate(
                steps[index][1] if len(steps[index]) > 1 else steps[index], color=theme.highlight(), scale_factor=1.05
            ),
            run_time=0.6,
        )
        return new_caption


# --- cells 14-16 ---------------------------------------------------------------------------------


class WeightedRetrieval(WhyAttentionSlide):
    """C = AV: every value is scaled by its weight and the pieces add up tip to tail. No argmax."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        art = self.art
        V, weights, contributions, context = art["V"], art["weights"][0], art["contributions"], art["context"][0]
        self.next_slide(
            notes=f"The output is weights @ V. The weights {fmt_row(weights)} scale the values "
            f"{', '.join(f'v_{label} = {fmt_g(v)}' for label, v in zip(self.labels, V))}; "
            "each output coordinate combines the same weights with that coordinate of every value."
        )
        heading = self.heading("Retrieve: a weighted sum of values")
        equation = formula(CONTEXT, size=theme.BODY_SIZE + 8).to_edge(LEFT, buff=0.9).shift(1.9 * UP)
        diagram = self.value_plane(V)
        value_arrows = VGroup(*[diagram.arrow(v, c, stroke_width=3).set_opacity(0.35) for v, c in zip(V, self.colours)])
        value_labels = VGroup(
            *[
                theme.text(f"v_{label}", theme.LABEL_SIZE, c).next_to(
                    diagram.to_point(v), UP if v[1] >= v[0] else RIGHT, buff=0.1
                )
                for v, c, label in zip(V, self.colours, self.labels)
            ]
        )
        self.title(heading, along=[Write(equation), Create(diagram)], run_time=1.0)
        self.play(LaggedStart(*[GrowArrow(a) for a in value_arrows], lag_ratio=0.3), FadeIn(value_labels), run_time=1.2)

        lines = VGroup(
            *[
                MathTex(
                    rf"w_{{{label}}}\,v_{{{label}}} = {w:.4f}\times{fmt_g(v)} = ",
                    rf"[{c[0]:.4f}, {c[1]:.4f}]",
                    font_size=theme.tex_size(theme.SMALL_SIZE),
                )
                for label, w, v, c in zip(self.labels, weights, V, contributions)
            ]
        )
        for line, colour in zip(lines, self.colours):
            line.set_color(colour)
        total = MathTex(
            r"c = \sum_i w_i v_i = ",
            rf"[{context[0]:.4f}, {context[1]:.4f}]",
            font_size=theme.BODY_SIZE + 6,
            color=theme.highlight(),
        )
        VGroup(*lines, total).arrange(DOWN, aligned_edge=LEFT, buff=0.32).next_to(equation, DOWN, buff=0.5).align_to(
            equation, LEFT
        )
        total.shift(0.15 * DOWN)

        self.next_slide(
            notes="Each value shrinks to w_i v_i and joins the chain tip to tail: "
            + "; ".join(f"w_{label} v_{label} = {fmt_row(c)}" for label, c in zip(self.labels, contributions))
            + ". There is no argmax selection: every value contributes."
        )
        tip = np.zeros(2)
        pieces = VGroup()
        for index, (value, contribution, colour) in enumerate(zip(V, contributions, self.colours)):
            if np.linalg.norm(contribution) < 1e-9:
                self.play(FadeIn(lines[index]), run_time=0.5)
                continue
            piece = value_arrows[index].copy().set_opacity(1)
            self.play(
                FadeIn(lines[index], shift=0.2 * RIGHT),
                piece.animate.become(diagram.arrow(contribution, colour, stroke_width=5)),
                run_time=1.0,
            )
            self.play(
                piece.animate.become(diagram.arrow(tip + contribution, colour, start=tip, stroke_width=5)), run_time=0.9
            )
            pieces.add(piece)
            tip = tip + contribution

        self.next_slide(
            notes=f"Checkpoint: the context is approximately {fmt_row(context)}. Coordinate 1 comes from "
            f"{' and '.join(label for label, c in zip(self.labels, contributions) if abs(c[0]) > 1e-9)} "
            f"({' + '.join(f'{c[0]:.4f}' for c in contributions if abs(c[0]) > 1e-9)}); coordinate 2 from "
            f"{' and '.join(label for label, c in zip(self.labels, contributions) if abs(c[1]) > 1e-9)} "
            f"({' + '.join(f'{c[1]:.4f}' for c in contributions if abs(c[1]) > 1e-9)})."
        )
        result = diagram.arrow(context, theme.highlight(), stroke_width=7)
        result_label = theme.text(f"c = {fmt_row(context)}", theme.LABEL_SIZE, theme.highlight()).next_to(
            result.get_end(), UP, buff=0.2
        )
        result_label.shift(min(0.0, diagram.get_right()[0] - result_label.get_right()[0]) * RIGHT)
        pieces.set_z_index(2)  # the chain stays on top of the sum it builds
        self.play(FadeIn(total, shift=0.2 * RIGHT), GrowArrow(result), run_time=1.2)
        self.play(FadeIn(result_label), run_time=0.5)
        self.say("no argmax: every value contributes to the context", colour=theme.caption_colour(), size=CAPTION_SIZE)

    def value_plane(self, V: np.ndarray) -> VectorDiagram:
        top = float(np.ceil(max(V.max(), 1.0))) + 1.5
        low = min(-1.0, float(V.min()) - 1.0)
        diagram = VectorDiagram((low, top, 2), (low, top, 2), width=4.9)
        diagram.to_edge(RIGHT, buff=0.8).shift(0.25 * DOWN)
        diagram.add(theme.text("value dim 1", theme.SMALL_SIZE, theme.muted()).next_to(diagram, DOWN, buff=0.08))
        diagram.add(
            theme.text("value dim 2", theme.SMALL_SIZE, theme.muted())
            .rotate(np.pi / 2)
            .next_to(diagram, LEFT, buff=0.08)
        )
        return diagram


# --- cells 17-19 and practice 1 ------------------------------------------------------------------


class QueryAndTemperature(WhyAttentionSlide):
    """The memory stays, the query turns: the weight heatmap fills row by row. Then the temperature sweeps."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        art = self.art
        K, queries, query_weights, query_contexts = (
            art["K"],
            art["queries"],
            art["query_weights"],
            art["query_contexts"],
        )
        row_labels = [f"q = {fmt_g(q)}" for q in queries]
        self.next_slide(
            notes=f"Change only the query; the memory stays fixed. Predict the ranking before each step. "
            f"q = {fmt_g(queries[0])}: weights {fmt_row(query_weights[0])}, context {fmt_row(query_contexts[0])}."
        )
        heading = self.heading("Change only the query")
        diagram = (
            VectorDiagram((-1.5, 1.5, 0.5), (-1.5, 1.5, 0.5), width=4.8).to_edge(LEFT, buff=0.8).shift(0.45 * DOWN)
        )
        points = VGroup(*[diagram.point(k, c, label) for k, c, label in zip(K, self.colours, self.labels)]).set_z_index(
            2
        )
        angle = ValueTracker(float(np.arctan2(queries[0][1], queries[0][0])))
        length = ValueTracker(float(np.linalg.norm(queries[0])))
        arrow = diagram.arrow(queries[0], theme.query_colour())
        arrow.add_updater(
            lambda m: m.become(
                diagram.arrow(
                    length.get_value() * np.array([np.cos(angle.get_value()), np.sin(angle.get_value())]),
                    theme.query_colour(),
                )
            )
        )
        heatmap = Heatmap(
            query_weights,
            row_labels=row_labels,
            col_labels=self.labels,
            vmin=0.0,
            vmax=1.0,
            annotate=True,
            fmt="{:.4f}",
            cell_size=1.35,
            label_size=theme.SMALL_SIZE,
            col_labels_on_top=True,
        )
        for label, colour in zip(heatmap.col_labels, self.colours):
            label.set_color(colour)
        heatmap.blank().to_edge(RIGHT, buff=0.5).shift(0.45 * DOWN)
        heatmap.annotations.set_z_index(1)  # animate_values re-adds the cells on top; keep the numbers above them
        query_label = theme.text(row_labels[0], theme.LABEL_SIZE, theme.query_colour()).next_to(diagram, UP, buff=0.15)
        self.title(heading, along=[Create(diagram), FadeIn(points)], run_time=0.8)
        self.play(GrowArrow(arrow), FadeIn(query_label), FadeIn(heatmap), run_time=0.8)
        self.fill_row(heatmap, query_weights, 0)

        for index in range(1, len(queries)):
            lower = [self.labels[i] for i in np.argsort(query_weights[index])[:2]]
            self.next_slide(
                notes=f"q = {fmt_g(queries[index])}: weights {fmt_row(query_weights[index])}, "
                f"context {fmt_row(query_contexts[index])}."
                + (
                    " Checkpoint: a query with negative first coordinate "
                    "reduces the weights of keys with positive first coordinate "
                    f"({', '.join(f'{label}: {w:.4f}' for label, w in zip(self.labels, query_weights[index]))}). "
                    "Retrieval depends on the query, not on one universal ranking."
                    if queries[index][0] < 0
                    else f" The ranking changes with the query: {' and '.join(lower)} now weigh least."
                )
            )
            target = float(np.arctan2(queries[index][1], queries[index][0]))
            new_label = theme.text(row_labels[index], theme.LABEL_SIZE, theme.query_colour()).move_to(query_label)
            self.play(
                angle.animate.set_value(target),
                length.animate.set_value(float(np.linalg.norm(queries[index]))),
                roll(query_label, new_label),
                run_time=1.2,
            )
            query_label = new_label
            self.fill_row(heatmap, query_weights, index)
        arrow.clear_updaters()
        self.say(
            "one memory, three rankings: retrieval depends on the query",
            colour=theme.caption_colour(),
            size=CAPTION_SIZE,
        )
        self.temperature(VGroup(diagram, points, arrow, query_label), heatmap, heading)

    def fill_row(self, heatmap: Heatmap, weights: np.ndarray, row: int) -> None:
        cols = weights.shape[1]
        labels = [heatmap.annotations[row * cols + c] for c in range(cols)]
        self.play(
            heatmap.animate_values(weights, rows=[row]),
            *[label.animate.set_opacity(1) for label in labels],
            run_time=0.8,
        )

    def temperature(self, previous: VGroup, heatmap: Heatmap, heading: Text) -> None:
        art = self.art
        weights_at, temps = art["temperature_weights"], art["temperatures"]
        sweep_t, sweep_w = art["sweep_temperatures"], art["sweep_weights"]
        base = float(art["temperature"])
        start = int(np.argmin(np.abs(temps - base))) if np.any(np.isclose(temps, base)) else 0
        order = [int(i) for i in np.argsort(temps)]
        self.next_slide(
            notes="Temperature divides the scores before the softmax: A = softmax(S / T). "
            f"Keep Q, K, V fixed (q = {fmt_g(art['Q'][0])}). "
            f"At T = {temps[start]:g} the weights are {fmt_row(weights_at[start])}. "
            "Practice 1: predict the sharpness at "
            + " and ".join(f"T = {t:g}" for t in temps if not np.isclose(t, temps[start]))
            + " before you watch."
        )
        log_t = ValueTracker(float(np.log(temps[start])))

        def weights_now() -> np.ndarray:
            # Interpolate the precomputed sweep in log T (the sweep grid is geometric).
            return np.array(
                [np.interp(log_t.get_value(), np.log(sweep_t), sweep_w[:, k]) for k in range(sweep_w.shape[1])]
            )

        bars = Bars(
            weights_now(),
            self.labels,
            max_value=float(np.ceil(sweep_w.max() * 10) / 10),
            height=4.0,
            colours=self.colours,
            bar_width=1.0,
            spacing=0.6,
            value_size=theme.tex_size(theme.LABEL_SIZE),
        )
        bars.to_edge(LEFT, buff=1.4)
        bars.shift((-2.1 - bars.baseline.get_y()) * UP)  # tall bars down to just above the caption
        equation = MathTex(
            r"A = \operatorname{softmax}\!\left(\frac{S}{T}\right)",
            font_size=theme.BODY_SIZE + 10,
            color=theme.foreground(),
        )
        equation.to_edge(RIGHT, buff=1.2).shift(1.6 * UP)
        dial = NumberLine(
            x_range=[np.log2(sweep_t[0]), np.log2(sweep_t[-1]), 1],
            length=5.0,
            color=theme.muted(),
            include_numbers=False,
        )
        dial.next_to(equation, DOWN, buff=1.3)
        ticks = VGroup(
            *[
                theme.text(f"{2.0**x:g}", theme.SMALL_SIZE, theme.muted()).next_to(dial.n2p(x), DOWN, buff=0.2)
                for x in np.arange(np.ceil(np.log2(sweep_t[0])), np.floor(np.log2(sweep_t[-1])) + 1)
            ]
        )
        marks = VGroup(*[Dot(dial.n2p(np.log2(t)), radius=0.06, color=theme.foreground()) for t in temps])
        dial_title = theme.text("temperature T (log scale)", theme.LABEL_SIZE, theme.muted()).next_to(
            ticks, DOWN, buff=0.2
        )
        knob = Dot(radius=0.13, color=theme.highlight()).add_updater(
            lambda m: m.move_to(dial.n2p(log_t.get_value() / np.log(2)))
        )
        readout = VGroup(
            MathTex("T =", font_size=theme.BODY_SIZE + 6, color=theme.highlight()),
            DecimalNumber(temps[start], num_decimal_places=2, font_size=theme.BODY_SIZE + 6, color=theme.highlight()),
        ).arrange(RIGHT, buff=0.15)
        readout.next_to(dial, UP, buff=0.4)
        readout[1].add_updater(lambda m: m.set_value(float(np.exp(log_t.get_value()))))
        # The layouts ease into each other: the heatmap row of this very query (its weights at T = 1) turns into
        # the bars, while the rest of the first layout fades; then the dial comes in.
        source = next((r for r, q in enumerate(art["queries"]) if np.allclose(q, art["Q"][0])), None)
        new_heading = theme.text("Then change only the temperature", theme.TITLE_SIZE, weight="BOLD").move_to(heading)
        leaving = [FadeOut(previous, shift=0.4 * LEFT), FadeOut(heatmap), roll(heading, new_heading, distance=0.6)]
        if self._caption is not None:
            leaving.append(FadeOut(self._caption))
            self._caption = None
        if source is not None and np.isclose(temps[start], base):
            ghosts = VGroup(*[cell.copy() for cell in heatmap.row(source)])
            self.add(ghosts)
            self.play(*leaving, *[Transform(g, bar.copy()) for g, bar in zip(ghosts, bars.bars)], run_time=1.4)
            self.remove(ghosts)
            self.add(bars.bars)
            rest = VGroup(bars.baseline, bars.labels, bars.readouts)
            self.play(
                FadeIn(rest),
                Write(equation),
                FadeIn(VGroup(dial, ticks, marks, dial_title, knob, readout), shift=0.2 * LEFT),
                run_time=1.0,
            )
            self.remove(bars.bars, rest)
            self.add(bars)  # one chart again, whole
        else:  # no heatmap row holds these weights: the first layout leaves, then the second comes
            self.play(*leaving, run_time=0.8)
            self.play(
                FadeIn(bars),
                Write(equation),
                FadeIn(VGroup(dial, ticks, marks, dial_title, knob, readout)),
                run_time=1.0,
            )
        bars.add_updater(lambda m: m.set_values(weights_now()))

        stops = [i for i in order if i != start] + [start]
        for stop in stops:
            t = temps[stop]
            sharper = t < temps[start]
            if stop == start:
                self.next_slide(
                    notes=f"Sweep the whole dial, T = {sweep_t[0]:g} to {sweep_t[-1]:g}: the weights run from "
                    f"{fmt_row(sweep_w[0])} (sharp: the top scores share almost everything) to "
                    f"{fmt_row(sweep_w[-1])} (soft: toward uniform). "
                    f"Back to T = {t:g}: standard scaled dot-product attention uses temperature 1; "
                    f"weights {fmt_row(weights_at[stop])}."
                )
            else:
                self.next_slide(
                    notes=f"T = {t:g}: weights {fmt_row(weights_at[stop])}. "
                    + (
                        "Temperature below 1 sharpens the distribution: the larger scores take more weight."
                        if sharper
                        else "Temperature above 1 softens it: the weights move toward uniform."
                    )
                )
            if stop == start:  # the dial's whole range, where the bars change most, before settling at T = 1
                self.say(
                    f"the whole dial, T = {sweep_t[0]:g} to {sweep_t[-1]:g}: from sharp to nearly uniform",
                    colour=theme.muted(),
                    size=CAPTION_SIZE,
                )
                for end, run_time in ((sweep_t[-1], 1.5), (sweep_t[0], 3.0)):
                    self.play(log_t.animate.set_value(float(np.log(end))), run_time=run_time, rate_func=smooth)
            self.play(log_t.animate.set_value(float(np.log(t))), run_time=2.0, rate_func=smooth)
            message = (
                f"T = {t:g}: standard attention"
                if stop == start
                else f"T = {t:g} {'sharpens' if sharper else 'softens'}: {fmt_row(weights_at[stop])}"
            )
            self.say(message, colour=theme.caption_colour() if stop != start else theme.foreground(), size=CAPTION_SIZE)
        bars.clear_updaters()


# --- cells 20-22 ---------------------------------------------------------------------------------


class CausalMask(WhyAttentionSlide):
    """Self-scores, the causal mask slides over them (future -> -inf) before the softmax; rows renormalise."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        art = self.art
        K, self_scores, allowed = art["K"], art["self_scores"], art["causal_allowed"]
        causal_scores, causal_weights = art["causal_scores"], art["causal_weights"]
        positions = position_labels(len(K))
        self.next_slide(
            notes="Self-attention derives Q, K and V from one sequence; here the three vectors "
            f"{', '.join(fmt_g(k) for k in K)} are positions 0..{len(K) - 1}, so S = X X^T / sqrt(d_k) is square: "
            f"rows are receiving queries, columns are source keys. Row 0 reads {fmt_row(self_scores[0])}. "
            "Practice 5: cross-attention would take Q from one stream and K, V from another."
        )
        heading = self.heading("Causal mask: no peeking ahead")
        equation = formula(WEIGHTS, size=theme.BODY_SIZE + 6).next_to(heading, DOWN, buff=0.25)
        scores = MatrixTable(
            self_scores,
            row_labels=positions,
            col_labels=positions,
            row_title="query (rows)",
            col_title="key (columns)",
            cell_width=1.24,
            cell_height=0.6,
            entry_size=theme.SMALL_SIZE,
        )
        scores.to_edge(LEFT, buff=0.35).shift(0.4 * DOWN)
        s_label = MathTex("S", font_size=theme.BODY_SIZE + 6, color=theme.foreground()).next_to(scores, DOWN, buff=0.2)
        self.title(heading, along=[Write(equation), FadeIn(scores), FadeIn(s_label)], run_time=1.0)

        self.next_slide(
            notes="Position t may access positions <= t, including itself. "
            "The mask M is 0 where allowed and -inf for the future; it is added to S before the softmax. "
            f"Row 0 becomes {fmt_row(causal_scores[0])}."
        )
        mask_values = np.where(allowed, 0.0, -np.inf)
        mask = MatrixTable(
            mask_values,
            row_labels=positions,
            col_labels=positions,
            fmt=number_format(0),
            cell_width=1.24,
            cell_height=0.6,
            entry_size=theme.SMALL_SIZE,
        )
        mask.to_edge(RIGHT, buff=0.9).match_y(scores.cells).shift((scores.cells.get_y() - mask.cells.get_y()) * UP)
        m_label = (
            MathTex("M", font_size=theme.BODY_SIZE + 6, color=theme.foreground())
            .next_to(mask, DOWN, buff=0.2)
            .match_y(s_label)
        )
        tiles = VGroup(
            *[
                mask.cell(r, c).copy().set_fill(theme.highlight(), opacity=0.35)
                for r in range(len(K))
                for c in range(len(K))
                if not allowed[r, c]
            ]
        )
        self.play(FadeIn(mask), FadeIn(m_label), FadeIn(tiles), run_time=0.8)
        self.play(tiles.animate.shift(scores.cells.get_center() - mask.cells.get_center()), run_time=1.5)
        new_label = MathTex("S + M", font_size=theme.BODY_SIZE + 6, color=theme.foreground()).move_to(s_label)
        self.play(scores.transform_entries(causal_scores), roll(s_label, new_label), run_time=1.0)
        s_label = new_label
        self.play(tiles.animate.set_fill(theme.muted(), opacity=0.2), run_time=0.5)

        self.next_slide(
            notes="Now the softmax, row by row over the allowed keys: "
            "exp(-inf) = 0, so the future gets exactly zero weight and each row renormalises. "
            f"Checkpoint: the first row must be {fmt_g(causal_weights[0])}. "
            f"Rows: {'; '.join(fmt_row(r) for r in causal_weights)}; row sums {fmt_row(causal_weights.sum(axis=-1))}."
        )
        self.play(FadeOut(mask), FadeOut(m_label), run_time=0.5)
        scores.fmt = number_format(4, exact_zero=True)  # masked weights are exactly 0
        a_label = MathTex("A", font_size=theme.BODY_SIZE + 6, color=theme.foreground()).move_to(s_label)
        self.play(roll(s_label, a_label), FadeOut(tiles), run_time=0.6)
        s_label = a_label
        # The softmax runs one query row at a time, the first slowly, then faster: each allowed score counts
        # to its weight as its cells fill, a masked -inf rolls to an exact 0.
        running = scores.row_box(0)
        self.play(Create(running), run_time=0.4)
        for animations, run_time in scores.rows_in_turn(causal_weights, allowed, running, first=1.8):
            self.play(*animations, run_time=run_time)
        sums = scores.row_sums(causal_weights.sum(axis=-1))
        self.play(FadeIn(sums), run_time=0.6)
        # The running box goes back to the first row: its weights are the checkpoint.
        first = running
        self.play(first.animate.move_to(scores.row_box(0)), run_time=0.6)
        self.say(
            f"first row = {fmt_g(causal_weights[0])}: position 0 sees only itself",
            colour=theme.caption_colour(),
            size=CAPTION_SIZE,
        )
        self.correct = VGroup(scores, s_label, sums, first)

        self.contrast(positions)

    def contrast(self, positions: list[str]) -> None:
        art = self.art
        wrong, wrong_sums = art["softmax_then_mask"], art["softmax_then_mask_sums"]
        self.next_slide(
            notes=f"The wrong order: softmax over every key first, then zero the future. The rows no longer sum to 1: "
            f"row sums {fmt_row(wrong_sums)}. Mask BEFORE the softmax, and keep rows = queries, columns = keys."
        )
        table = MatrixTable(
            wrong,
            col_labels=positions,
            col_title="✗ softmax, then mask (wrong)",
            fmt=number_format(4, exact_zero=True),
            cell_width=1.24,
            cell_height=0.6,
            entry_size=theme.SMALL_SIZE,
        )
        table.col_title.set_color(theme.error_colour())
        table.fill_cells(np.where(art["causal_allowed"], wrong, -np.inf), animate=False)
        table.shift((self.correct[0].cells.get_y() - table.cells.get_y()) * UP)
        sums = table.row_sums(
            wrong_sums, [theme.foreground() if np.isclose(s, 1.0) else theme.error_colour() for s in wrong_sums]
        )
        VGroup(table, sums).to_edge(RIGHT, buff=0.3)
        self.play(FadeIn(table, shift=0.3 * LEFT), run_time=0.8)
        self.play(LaggedStart(*[FadeIn(s) for s in sums], lag_ratio=0.3), run_time=1.0)
        bad = VGroup(*[sums[r] for r in range(len(wrong_sums)) if not np.isclose(wrong_sums[r], 1.0)])
        self.play(*[Indicate(s, color=theme.error_colour()) for s in bad], run_time=0.8)
        self.say(
            "mask before softmax: otherwise rows no longer sum to 1", colour=theme.caption_colour(), size=CAPTION_SIZE
        )


# --- cells 23-25 ---------------------------------------------------------------------------------


class PaddingMask(WhyAttentionSlide):
    """Padding hides nonexistent keys, causal hides the future: combine them; an all-masked row is refused."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        art = self.art
        causal, real, combined = art["causal_allowed"], art["is_real_key"], art["padding_allowed"]
        weights = art["padding_weights"]
        positions = position_labels(len(real))
        padded = [i for i in range(len(real)) if not real[i]]
        self.next_slide(
            notes="A padding mask hides nonexistent tokens, a causal mask hides future tokens. "
            f"Combine the two permissions with AND: is_real_key = {[bool(x) for x in real]}, "
            f"so key {', '.join(positions[i] for i in padded)} is padding. "
            f"Allowed keys per query row: {'; '.join(str(int(row.sum())) for row in combined)}."
        )
        heading = self.heading("Padding mask + causal mask")
        small = dict(
            fmt="{:.0f}",
            cell_width=0.95,  # "NaN" fits its cell with room to spare
            cell_height=0.72,
            entry_size=theme.BODY_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        columns = [str(i) for i in range(len(real))]
        causal_t = MatrixTable(
            causal.astype(float), row_labels=positions, col_labels=columns, col_title="causal", **small
        )
        padding_t = MatrixTable(real[None, :].astype(float), col_labels=columns, col_title="key is real", **small)
        # The combined permissions start as a copy of the causal ones: the padded column then turns off.
        combined_t = MatrixTable(
            causal.astype(float), row_labels=positions, col_labels=columns, col_title="allowed", **small
        )
        for table, values in ((causal_t, causal), (padding_t, real[None, :]), (combined_t, causal)):
            table.fill_cells(**self.permission_fill(values), animate=False)
        amp = MathTex(r"\wedge", font_size=theme.BODY_SIZE + 14, color=theme.foreground())
        eq = MathTex("=", font_size=theme.BODY_SIZE + 14, color=theme.foreground())
        row = VGroup(causal_t, amp, padding_t, eq, combined_t).arrange(RIGHT, buff=0.45).shift(0.5 * DOWN)
        padding_t.match_y(causal_t.cells).shift((causal_t.cells.get_y() - padding_t.cells.get_y()) * UP)
        notes = theme.text("rows = queries, columns = keys; 1 = allowed", theme.LABEL_SIZE, theme.muted()).next_to(
            row, DOWN, buff=0.5
        )
        self.title(heading, along=[FadeIn(causal_t)], run_time=0.6)
        self.play(FadeIn(amp), FadeIn(padding_t), run_time=0.6)
        # Causal's cells travel to the result (moved, not morphed), then the padded key's column switches off.
        travelling = VGroup(causal_t.cells, causal_t.entries).copy()
        self.play(FadeIn(eq), travelling.animate.move_to(VGroup(combined_t.cells, combined_t.entries)), run_time=1.0)
        self.remove(travelling)
        self.add(combined_t.cells, combined_t.entries)
        # Its frame comes once the cells have landed (they passed over where its row labels stand).
        frame = VGroup(combined_t.brackets, combined_t.row_labels, combined_t.col_labels, combined_t.col_title)
        self.play(FadeIn(frame), FadeIn(notes), run_time=0.5)
        self.remove(combined_t.cells, combined_t.entries, frame)
        self.add(combined_t)
        boxes = VGroup(*[padding_t.cell_box(0, i, theme.blocked_colour()) for i in padded])
        self.play(Create(boxes), run_time=0.5)
        self.play(
            combined_t.transform_entries(combined.astype(float)),
            combined_t.fill_cells(**self.permission_fill(combined)),
            *[Create(combined_t.column_box(i, theme.blocked_colour())) for i in padded],
            run_time=0.9,
        )

        self.next_slide(
            notes="Softmax over the allowed keys only. "
            "No query can retrieve the padded key: its column is exactly "
            f"{', '.join(f'{w:g}' for w in weights[:, padded[0]]) if padded else 'absent'}. "
            f"Rows: {'; '.join(fmt_row(r) for r in weights)}; row sums {fmt_row(weights.sum(axis=-1))}. "
            "Padded query rows are normally excluded from the loss, not read as predictions. "
            "Practice 2: replace all keys by the same vector and every query weighs the keys equally, "
            f"{fmt_row(art['same_key_weights'][0])}; with this padding mask the padded key still gets zero: "
            f"{fmt_row(art['same_key_padded_weights'][0])}."
        )
        self.play(
            FadeOut(VGroup(causal_t, amp, padding_t, eq, notes, boxes)),
            *[FadeOut(m) for m in self.mobjects if isinstance(m, SurroundingRectangle)],
            run_time=0.5,
        )
        self.play(combined_t.animate.to_edge(LEFT, buff=0.5), run_time=0.7)
        # The masked scores S + M, normalised row by row into the weights (the first row slowly, then faster).
        result = MatrixTable(
            art["padding_scores"],
            row_labels=positions,
            col_labels=positions,
            fmt=number_format(4, exact_zero=True),
            cell_width=1.4,
            cell_height=0.72,
            entry_size=theme.LABEL_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        result.to_edge(RIGHT, buff=2.3).match_y(combined_t.cells).shift(
            (combined_t.cells.get_y() - result.cells.get_y()) * UP
        )
        arrow = Arrow(combined_t.get_right(), result.get_left(), buff=0.25, color=theme.muted(), stroke_width=3)
        heading = MathTex(r"S + M", font_size=theme.BODY_SIZE + 10, color=theme.foreground()).next_to(
            result, UP, buff=0.2
        )
        self.play(GrowArrow(arrow), FadeIn(heading), FadeIn(result), run_time=1.0)
        softmax = MathTex(
            r"A = \operatorname{softmax}(S+M)", font_size=theme.BODY_SIZE + 10, color=theme.foreground()
        ).move_to(heading)  # heads the result: above the arrow it collided with the row labels
        running = result.row_box(0)
        self.play(roll(heading, softmax), Create(running), run_time=0.6)
        for animations, run_time in result.rows_in_turn(weights, combined, running):
            self.play(*animations, run_time=run_time)
        sums = result.row_sums(weights.sum(axis=-1), size=theme.LABEL_SIZE)
        self.play(
            FadeOut(running),
            FadeIn(sums),
            *[Create(result.column_box(i, theme.blocked_colour())) for i in padded],
            run_time=0.8,
        )
        if padded:
            self.say(
                f"padded key {positions[padded[0]]}: weight exactly {weights[:, padded[0]].max():g} in every row",
                colour=theme.caption_colour(),
                size=CAPTION_SIZE,
            )
        self.weights_view = VGroup(result, arrow, softmax, sums)
        self.combined_t = combined_t
        self.all_masked(positions)

    @staticmethod
    def permission_fill(allowed: np.ndarray) -> dict:  # type: ignore[type-arg]
        """`fill_cells` arguments that tint allowed cells in the value role and leave blocked ones empty."""
        return dict(
            values=np.where(allowed, 1.0, -np.inf),
            vmin=0,
            vmax=1,
            colormap=[theme.value_colour()] * 2,
            opacity=0.45,
            recolour_entries=False,
        )

    def all_masked(self, positions: list[str]) -> None:
        art = self.art
        dead = art["all_masked_allowed"]
        message = str(art["all_masked_error"])
        empty = [r for r in range(dead.shape[0]) if not dead[r].any()]
        self.next_slide(
            notes=f"If key {positions[0]} were padding too, query row {empty[0]} would have no allowed key: "
            "softmax would be 0/0 = NaN. Prevent that case rather than silently treating NaN as an answer; "
            f"our helper refuses it with: {message}"
        )
        boxes = [m for m in self.mobjects if isinstance(m, SurroundingRectangle)]
        self.play(FadeOut(self.weights_view), *[FadeOut(b) for b in boxes], run_time=0.5)
        table = self.combined_t
        self.play(
            table.transform_entries(dead.astype(float)),
            table.fill_cells(**self.permission_fill(dead)),
            run_time=0.8,
        )
        for r in empty:
            self.play(Create(table.row_box(r, theme.error_colour())), run_time=0.5)
        # In the matrix: what a naive softmax returns for that row, 0/0 = NaN in every cell (from the data).
        naive = art["all_masked_naive"]
        nan_colours = {(r, c): theme.error_colour() for r in empty for c in range(naive.shape[1])}
        nan_note = theme.label(
            f"naive softmax of row {', '.join(map(str, empty))}: $0/0$ = NaN", theme.SMALL_SIZE, theme.error_colour()
        ).next_to(table, DOWN, buff=0.3)
        nan_note.align_to(table, LEFT)
        self.play(table.transform_entries(naive, nan_colours, rows=empty), FadeIn(nan_note), run_time=0.8)
        wrapped = textwrap.wrap(f"DataError: {message}", 38, break_long_words=False, break_on_hyphens=False)
        lines = VGroup(*[theme.text(line, theme.LABEL_SIZE, theme.foreground()) for line in wrapped]).arrange(
            DOWN, aligned_edge=LEFT, buff=0.12
        )
        panel = RoundedRectangle(
            corner_radius=0.15,
            width=lines.width + 0.6,
            height=lines.height + 0.5,
            color=theme.error_colour(),
            stroke_width=3,
            fill_color=theme.background(),
            fill_opacity=1,
        )
        error = VGroup(panel, lines.move_to(panel)).to_edge(RIGHT, buff=0.6).match_y(table.cells)
        arrow = Arrow(table.get_right(), error.get_left(), buff=0.2, color=theme.error_colour(), stroke_width=3)
        self.play(GrowArrow(arrow), FadeIn(error, shift=0.2 * LEFT), run_time=1.0)
        self.say("an all-masked row is refused, not returned as NaN", colour=theme.caption_colour(), size=CAPTION_SIZE)


# --- cells 29-31, then 26-28 ---------------------------------------------------------------------


class WhatAttentionExplains(WhyAttentionSlide):
    """Interventions: change one value (weights fixed, output moves); remove a key (the rest renormalise).
    SDPA parity."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        art = self.art
        V, weights, context = art["V"], art["weights"], art["context"]
        self.next_slide(
            notes="Weights describe a computation; causal importance needs an intervention. "
            f"Hold Q and K fixed: weights {fmt_row(weights[0])}, context {fmt_row(context[0])}."
        )
        heading = self.heading("What an attention plot can explain")
        w_table = MatrixTable(
            weights,
            row_labels=["w"],
            col_labels=self.labels,
            col_label_colours=self.colours,
            col_title="weights (fixed Q, K)",
            fmt=number_format(4, exact_zero=True),
            cell_width=1.35,
            cell_height=0.75,
            entry_size=theme.LABEL_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        v_table = MatrixTable(
            V,
            row_labels=self.labels,
            row_label_colours=self.colours,
            col_title="values V",
            fmt="{:g}",
            cell_width=0.95,
            cell_height=0.75,
            entry_size=theme.LABEL_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        v_table.col_title.set_color(theme.value_colour())
        c_table = MatrixTable(
            context,
            col_title="context c",
            cell_width=1.7,  # room for a context of 27.7998 beside 23.7887
            cell_height=0.75,
            entry_size=theme.LABEL_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        c_table.col_title.set_color(theme.highlight())
        times = MathTex(r"\times", font_size=theme.BODY_SIZE + 8, color=theme.foreground())
        equals = MathTex("=", font_size=theme.BODY_SIZE + 8, color=theme.foreground())
        layout = VGroup(w_table, times, v_table, equals, c_table).arrange(RIGHT, buff=0.35).shift(0.3 * DOWN)
        for side in (w_table, times, equals, c_table):
            side.shift(
                (v_table.cells.get_y() - (side.cells.get_y() if isinstance(side, MatrixTable) else side.get_y())) * UP
            )
        self.title(heading, along=[FadeIn(layout)], run_time=1.0)
        self.tables = (w_table, v_table, c_table)
        self.change_value()
        self.remove_key()
        self.parity(layout)
        self.closing()  # the scene ends on its claim

    def change_value(self) -> None:
        art = self.art
        w_table, v_table, c_table = self.tables
        index = int(np.flatnonzero(np.any(art["changed_V"] != art["V"], axis=1))[0])
        same = bool(np.array_equal(art["changed_weights"], art["weights"]))
        self.next_slide(
            notes=f"Intervention 1: change only v_{self.labels[index]} to {fmt_g(art['changed_V'][index])}. "
            f"The weights stay {fmt_row(art['changed_weights'][0])} ({'identical' if same else 'changed'}), "
            f"yet the context moves from {fmt_row(art['context'][0])} to {fmt_row(art['changed_context'][0])}. "
            "Practice 3: a very large value can change the output greatly with no change to the attention weights."
        )
        highlighted = {(index, c): theme.highlight() for c in range(art["V"].shape[1])}
        self.play(
            v_table.transform_entries(art["changed_V"], highlighted), Create(v_table.row_box(index)), run_time=1.0
        )
        verdict = theme.text("unchanged" if same else "changed", theme.LABEL_SIZE, theme.value_colour()).next_to(
            w_table, DOWN, buff=0.3
        )
        self.play(Create(w_table.row_box(0, theme.value_colour())), FadeIn(verdict), run_time=0.7)
        self.play(
            c_table.count_entries(art["changed_context"], {(0, 0): theme.highlight(), (0, 1): theme.highlight()}),
            run_time=1.4,
        )
        self.say(
            f"same weights, context {fmt_row(art['context'][0])} \u2192 {fmt_row(art['changed_context'][0])}",
            colour=theme.caption_colour(),
            size=CAPTION_SIZE,
        )
        self.intervention_marks = VGroup(verdict, *[m for m in self.mobjects if isinstance(m, SurroundingRectangle)])

    def remove_key(self) -> None:
        art = self.art
        w_table, v_table, c_table = self.tables
        removed = [i for i in range(art["removed_allowed"].shape[1]) if not art["removed_allowed"][0, i]]
        rw = art["removed_weights"][0]
        self.next_slide(
            notes=f"Intervention 2: restore V and remove memory {', '.join(self.labels[i] for i in removed)} by "
            f"masking it. Normalisation changes too: the remaining weights renormalise to {fmt_row(rw)} and the "
            f"context becomes {fmt_row(art['removed_context'][0])}. "
            "Removing an item is not the same as reading its weight off the plot."
        )
        self.play(
            FadeOut(self.intervention_marks),
            v_table.transform_entries(art["V"]),
            c_table.count_entries(art["context"]),
            run_time=1.0,
        )
        crosses = VGroup(
            *[v_table.row_box(i, theme.blocked_colour()) for i in removed],
            *[w_table.cell_box(0, i, theme.blocked_colour()) for i in removed],
        )
        self.play(Create(crosses), *[v_table.row_entries(i).animate.set_opacity(0.3) for i in removed], run_time=0.7)
        self.marks = crosses
        self.play(
            w_table.count_entries(
                art["removed_weights"], {(0, i): theme.highlight() for i in range(len(rw)) if i not in removed}
            ),
            run_time=1.2,
        )
        self.play(
            c_table.count_entries(art["removed_context"], {(0, 0): theme.highlight(), (0, 1): theme.highlight()}),
            run_time=1.2,
        )
        self.say(
            f"remove {', '.join(self.labels[i] for i in removed)}: "
            f"the rest renormalise to {fmt_row([w for i, w in enumerate(rw) if i not in removed])}",
            colour=theme.caption_colour(),
            size=CAPTION_SIZE,
        )

    def parity(self, layout: VGroup) -> None:
        art = self.art
        diff, masked_diff = art.metrics["sdpa_max_abs_diff"], art.metrics["sdpa_padding_max_abs_diff"]
        self.next_slide(
            notes="Verify the same calculation with PyTorch: "
            "F.scaled_dot_product_attention(q, k, v, dropout_p=0.0) in float32 gives "
            f"{fmt_row(art['sdpa_context'][0])} against NumPy's {fmt_row(art['context'][0])}: "
            f"max abs difference {diff:.2e}. "
            "With the combined causal+padding Boolean mask (True = allowed in SDPA) "
            f"the difference is {masked_diff:.2e}. "
            "Other PyTorch APIs use other mask conventions: read the API you call. "
            "This is an implementation check, not evidence that attention learned language."
        )
        self.play(FadeOut(layout), FadeOut(self.marks), FadeOut(self._caption), run_time=0.6)
        self._caption = None
        header = theme.text(
            "NumPy vs torch.nn.functional.scaled_dot_product_attention", theme.BODY_SIZE, theme.foreground()
        ).shift(2.1 * UP)
        rows = VGroup(
            VGroup(
                theme.text("NumPy (float64)", theme.LABEL_SIZE, theme.muted()),
                theme.text(fmt_row(art["context"][0]), theme.BODY_SIZE),
            ),
            VGroup(
                theme.text("SDPA (float32)", theme.LABEL_SIZE, theme.muted()),
                theme.text(fmt_row(art["sdpa_context"][0]), theme.BODY_SIZE),
            ),
            VGroup(
                theme.text("max |difference|", theme.LABEL_SIZE, theme.muted()),
                theme.text(f"{diff:.2e}", theme.BODY_SIZE, theme.value_colour()),
            ),
            VGroup(
                theme.text("with causal+padding mask", theme.LABEL_SIZE, theme.muted()),
                theme.text(f"{masked_diff:.2e}", theme.BODY_SIZE, theme.value_colour()),
            ),
        )
        # A two-column table: names right-aligned, values left-aligned, one row per line.
        VGroup(*[pair[0] for pair in rows], *[pair[1] for pair in rows]).arrange_in_grid(
            rows=len(rows), cols=2, buff=(0.5, 0.35), col_alignments="rl", flow_order="dr"
        )
        rows.next_to(header, DOWN, buff=0.6)
        self.play(FadeIn(header), run_time=0.6)
        self.play(LaggedStart(*[FadeIn(r, shift=0.2 * UP) for r in rows], lag_ratio=0.3), run_time=1.5)
        self.say(
            "an implementation check, not evidence that attention learned language",
            colour=theme.muted(),
            size=CAPTION_SIZE,
        )
        self.check = VGroup(header, rows)

    def closing(self) -> None:
        art = self.art
        self.next_slide(
            notes="State exactly what the heatmap supports: where the chosen computation routes information "
            f"(here weights {fmt_row(art['weights'][0])}). "
            "It does not prove why a real-world outcome occurred; "
            "causal claims need interventions like the two before the check."
        )
        self.play(FadeOut(self.check), FadeOut(self._caption), run_time=0.6)
        self._caption = None
        # The claim the scene ends on, large, in the middle of the frame: nothing else stays on screen.
        first = theme.text("Attention weights show routing:", theme.BODY_SIZE + 8, theme.foreground(), weight="BOLD")
        second = theme.text("where this computation sends information.", theme.BODY_SIZE + 2, theme.foreground())
        third = theme.text("They are not causal importance:", theme.BODY_SIZE + 8, theme.highlight(), weight="BOLD")
        fourth = theme.text(
            "that takes an intervention (change a value, remove a key).", theme.BODY_SIZE + 2, theme.foreground()
        )
        VGroup(first, second, third, fourth).arrange(DOWN, buff=0.32).shift(0.2 * DOWN)
        VGroup(third, fourth).shift(0.3 * DOWN)
        self.play(FadeIn(VGroup(first, second), shift=0.2 * UP), run_time=0.8)
        self.play(FadeIn(VGroup(third, fourth), shift=0.2 * UP), run_time=0.8)
