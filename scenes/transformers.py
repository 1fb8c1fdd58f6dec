"""Part 3 of seed 000: Transformers. Self-attention as lookup and as pooling, sinusoidal and rotary
positions, and why dot products are scaled by 1/sqrt(d). Every number is read from data/."""

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
    Line,
    ManimColor,
    MathTex,
    Rectangle,
    SurroundingRectangle,
    Text,
    TransformFromCopy,
    ValueTracker,
    VGroup,
    linear,
    smooth,
)

from seqanim.declare import Part
from seqanim.kit import theme
from seqanim.kit.alignment import token_box
from seqanim.kit.bars import Bars
from seqanim.kit.heatmap import Heatmap, colour_for
from seqanim.kit.motion import Travel
from seqanim.kit.plots import Plot, nice_range
from seqanim.kit.readout import Readout
from seqanim.kit.rotation import PhasorCircle
from seqanim.slide import LectureSlide

PART = Part("Transformers", order=4)


# Axis numbers a little above the kit default: these plots are small on a 854x480 frame.
TICK_SIZE = theme.tex_size(theme.SMALL_SIZE)


def _label_beside_curve(
    plot: Plot, xs: np.ndarray, ys: np.ndarray, label: Text, direction: np.ndarray, gap: float = 0.25
) -> Text:
    """Put `label` right-aligned with the curve's last point,
    `gap` above (UP) or below (DOWN) the curve everywhere under it."""
    screen = plot.to_screen(xs, ys)
    label.move_to(screen[-1]).align_to(screen[-1], RIGHT)
    span = np.linspace(label.get_left()[0], label.get_right()[0], 24)
    heights = np.interp(span, screen[:, 0], screen[:, 1])
    if direction[1] > 0:
        label.shift((heights.max() + gap - label.get_bottom()[1]) * UP)
    else:
        label.shift((heights.min() - gap - label.get_top()[1]) * UP)
    return label


def _diagonal_line(heatmap: Heatmap, offset: int, colour: ManimColor) -> Line:
    """A line through the cells (i, i + offset) of a square heatmap."""
    size = heatmap.shape[0]
    first = heatmap.cell(0, offset) if offset >= 0 else heatmap.cell(-offset, 0)
    last = heatmap.cell(size - 1 - offset, size - 1) if offset >= 0 else heatmap.cell(size - 1, size - 1 + offset)
    return Line(first.get_corner(UP + LEFT), last.get_corner(DOWN + RIGHT), color=colour, stroke_width=4)


# --- tf2: self-attention is content-based lookup ----------------------------------------------------


class SelfAttentionLookup(LectureSlide):
    """tf2: a trained one-head layer answers "which value has key k?" with a near one-hot attention row."""

    data = ("lookup",)

    def construct(self) -> None:
        self.run = self.load("lookup")
        self.labels = [str(label) for label in self.run["labels"]]
        self.match = int(self.run["match_index"])
        self.attention = self.run["attention"]
        self.tokens()
        self.matrix()
        self.query_row()
        self.bars()
        self.read_out()

    def tokens(self) -> None:
        run, items = self.run, len(self.labels) - 1
        self.next_slide(
            notes="Every token emits a query, a key and a value. "
            f"Here {items} item tokens each carry a key and a value, "
            f"and the last token carries only the query key k{int(run['query_key'])}. "
            "One layer, one head, trained only to output the matching value; "
            f"it answers {run.metrics['accuracy']:.1%} of held-out lookups correctly."
        )
        self.heading = self.title("Self-attention is content-based lookup")
        colours = [theme.key_colour()] * items + [theme.query_colour()]
        self.token_row = VGroup(
            *[token_box(label, colour, width=1.35) for label, colour in zip(self.labels, colours)]
        ).arrange(RIGHT, buff=0.25)
        self.token_row.next_to(self.heading, DOWN, buff=0.8)
        kinds = VGroup(
            theme.text("items: key + value", theme.LABEL_SIZE, theme.key_colour()).next_to(
                self.token_row[:items], DOWN, buff=0.3
            ),
            theme.text("query: key only", theme.LABEL_SIZE, theme.query_colour()).next_to(
                self.token_row[-1], DOWN, buff=0.3
            ),
        )
        task = theme.text(f"task: output the value stored under key k{int(run['query_key'])}", theme.BODY_SIZE)
        layer = theme.text(
            f"one self-attention layer, one head, width {run.params['d']}", theme.LABEL_SIZE, theme.muted()
        )
        VGroup(layer, task).arrange(DOWN, buff=0.35).next_to(kinds, DOWN, buff=0.9)
        self.play(FadeIn(self.token_row, lag_ratio=0.1), run_time=1.2)
        self.play(FadeIn(kinds))
        self.play(FadeIn(layer), FadeIn(task, shift=0.2 * UP))
        self.kinds = VGroup(kinds, layer, task)

    def matrix(self) -> None:
        diagonal = float(np.mean(np.diagonal(self.attention)[:-1]))
        self.next_slide(
            notes="The full attention matrix: each row is the token doing the attending (the query), "
            "each column an attended token (the key). "
            f"Every item row keeps its weight on itself: on average {diagonal:.3f} on the diagonal."
        )
        two_line = [label.replace("=", "\n").replace(" ", "\n") for label in self.labels]
        self.heatmap = Heatmap(
            self.attention,
            row_labels=self.labels,
            col_labels=two_line,
            row_title="query",
            col_title="key",
            cell_size=0.76,  # wide enough that "query k0" under the last column clears "k4 v3"
            vmin=0.0,
            vmax=1.0,
            annotate=True,
            fmt="{:.2f}",
            annotation_size=theme.SMALL_SIZE,
            annotate_from=0.005,  # a weight that rounds to 0.00 shows as colour only, not as 49 "0.00" labels
        )
        self.heatmap.to_edge(LEFT, buff=0.3).shift(0.05 * DOWN)
        # Each token travels to become its row (as the query) and its column (as the key) of the matrix.
        travels = [
            Travel(token[1], label)
            for labels in (self.heatmap.row_labels, self.heatmap.col_labels)
            for token, label in zip(self.token_row, labels)
        ]
        self.play(FadeOut(self.kinds), *[FadeOut(token[0]) for token in self.token_row], run_time=0.5)
        self.play(FadeIn(self.heatmap), *[FadeOut(token[1]) for token in self.token_row], *travels, run_time=1.4)

    def query_row(self) -> None:
        weight = float(self.attention[-1, self.match])
        self.next_slide(
            notes=f"The bottom row is the query '{self.labels[-1]}'. "
            f"It puts {weight:.3f} of its weight on item #{self.match} ({self.labels[self.match]}), "
            "the one item whose key matches: a near one-hot row."
        )
        self.box = self.heatmap.row_box(len(self.labels) - 1, theme.query_colour())
        self.play(Create(self.box))

    def bars(self) -> None:
        row = self.attention[-1]
        self.next_slide(
            notes=f"The query row on its own: one tall bar of {row[self.match]:.3f} on the matching item; "
            f"the other {len(row) - 1} weights add up to {1 - row[self.match]:.4f}."
        )
        colours = [theme.query_colour() if j == self.match else theme.key_colour() for j in range(len(row))]
        short = [label.replace("=", "\n").replace(" ", "\n") for label in self.labels]
        self.chart = Bars(
            row,
            short,
            max_value=1.0,
            height=2.6,
            bar_width=0.5,
            spacing=0.26,
            colours=colours,
            decimals=3,
            label_size=theme.SMALL_SIZE,
            value_size=theme.tex_size(theme.SMALL_SIZE),
        )
        self.chart.next_to(self.heatmap, RIGHT, buff=0.4).align_to(self.heatmap.cells, DOWN).shift(0.3 * UP)
        for readout, weight in zip(self.chart.readouts, row):
            if weight < 0.01:  # only the weights that matter carry a number; the bars show the rest
                readout.set_opacity(0)
        axis = theme.text("attention weight of the query row", theme.LABEL_SIZE, theme.muted()).next_to(
            self.chart, UP, buff=0.35
        )
        self.play(
            TransformFromCopy(self.heatmap.row(len(row) - 1), self.chart.bars),
            FadeIn(self.chart.baseline),
            FadeIn(self.chart.labels),
            run_time=1.2,
        )
        self.play(FadeIn(self.chart.readouts), FadeIn(axis))
        self.chart_title = axis

    def read_out(self) -> None:
        run = self.run
        prediction, answer = int(run["prediction"]), int(run["answer"])
        self.next_slide(
            notes=f"The value is read off the attended item: predicted v{prediction}, true v{answer}. "
            f"Over {run.params['test_size']} held-out lookups the accuracy is {run.metrics['accuracy']:.1%}, "
            f"and the query row puts {run.metrics['query_match_mass']:.3f} of its weight "
            "on the matching item on average."
        )
        verdict = "correct" if prediction == answer else "wrong"
        read = theme.text(
            f"read the value of {self.labels[self.match]}: v{int(run['values'][self.match])}",
            theme.LABEL_SIZE,
            theme.value_colour(),
        )
        mark, colour = ("✓", theme.allowed_colour()) if verdict == "correct" else ("✗", theme.error_colour())
        result = theme.text(f"{mark} predicted v{prediction}, true v{answer} ({verdict})", theme.LABEL_SIZE, colour)
        lines = VGroup(read, result).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        lines.next_to(self.chart, UP, buff=0.6).align_to(self.chart, LEFT)
        if lines.get_right()[0] > 6.9:
            lines.shift((6.9 - lines.get_right()[0]) * RIGHT)
        start = self.chart.readouts[self.match].get_top()
        arrow = Arrow(
            start, [start[0], lines.get_bottom()[1], 0], buff=0.08, color=theme.value_colour(), stroke_width=4
        )
        self.play(FadeOut(self.chart_title), run_time=0.3)
        self.play(Create(arrow), FadeIn(read, shift=0.2 * UP))
        self.play(FadeIn(result, shift=0.2 * UP))


# --- tf8: attention pooling as a soft group-by -------------------------------------------------------


class AttentionPooling(LectureSlide):
    """tf8: trained to output each key group's mean value, attention spreads uniformly over the group."""

    data = ("groupby",)

    def construct(self) -> None:
        self.run = self.load("groupby")
        self.keys = self.run["keys"].astype(int)
        self.tokens()
        self.matrix()
        self.blocks()
        self.outputs()

    def tokens(self) -> None:
        run = self.run
        self.next_slide(
            notes="The lookup picked one position. "
            f"The same mechanism can average: {len(self.keys)} tokens with a key and a value, "
            "trained so every token outputs the mean value of its key group. "
            f"Tokens are sorted by key so groups sit together; this example has {len(set(self.keys.tolist()))} groups; "
            f"the k{self.keys[0]} group's values average {run['target'][0]:.4f}."
        )
        self.heading = self.title("Self-attention can pool, not just pick")
        self.token_row = VGroup(
            *[
                token_box(f"k{key}\n{value:.2f}", theme.item_colour(key), width=0.95, height=1.0)
                for key, value in zip(self.keys, run["values"])
            ]
        ).arrange(RIGHT, buff=0.15)
        self.token_row.next_to(self.heading, DOWN, buff=0.9)
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
        self.play(FadeIn(self.token_row, lag_ratio=0.08), run_time=1.2)
        self.play(Create(arrows), FadeIn(targets), FadeIn(target_title), run_time=1.0)
        self.task = VGroup(targets, target_title, arrows)

    def matrix(self) -> None:
        attention = self.run["attention"]
        self.next_slide(
            notes="The attention matrix: rows are the attending tokens (queries), columns the attended ones (keys). "
            f"In this example {self.run.metrics['example_within_group_mass']:.1%} of every row's weight stays inside "
            "its own key group."
        )
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
        self.play(FadeOut(self.token_row), FadeOut(self.task), FadeIn(self.heatmap), run_time=1.0)

    def blocks(self) -> None:
        attention, keys = self.run["attention"], self.keys
        groups = [np.flatnonzero(keys == key) for key in np.unique(keys)]
        sizes = ", ".join(
            f"k{keys[g[0]]}: {len(g)} tokens, weight {attention[g[0], g].mean():.3f} each" for g in groups
        )
        self.next_slide(
            notes="Block structure: each token spreads its weight uniformly over all tokens sharing its key, "
            f"about 1/(group size) each ({sizes}). A soft group-by. "
            f"Held out, {self.run.metrics['within_group_mass']:.1%} of the weight stays in the group."
        )
        outlines = VGroup()
        for group in groups:
            corner_cells = VGroup(self.heatmap.cell(group[0], group[0]), self.heatmap.cell(group[-1], group[-1]))
            outlines.add(
                SurroundingRectangle(
                    corner_cells, buff=0.0, color=theme.item_colour(int(keys[group[0]])), stroke_width=4
                )
            )
        self.play(Create(outlines, lag_ratio=0.3), run_time=1.2)

    def outputs(self) -> None:
        run = self.run
        target, output = run["target"], run["output"]
        self.next_slide(
            notes="The attention output next to the true group means: "
            f"largest error in this example {run.metrics['example_max_abs_error']:.4f}. "
            f"Held-out MSE {run.metrics['mse']:.2e}, against {run.metrics['sequence_mean_mse']:.4f} for predicting "
            f"each sequence's mean and {run.metrics['baseline_mse']:.4f} for the global mean."
        )
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
        self.play(Create(plot), FadeIn(legend), run_time=0.8)
        self.play(Create(truth_line), FadeIn(truth_dots), run_time=0.8)
        self.play(Create(output_line), FadeIn(output_dots), run_time=0.8)


# --- tf4: sinusoidal positional encoding ------------------------------------------------------------


class SinusoidalPositions(LectureSlide):
    """tf4: sin/cos waves of geometric wavelengths build PE; PE_i . PE_j depends only on the offset."""

    data = ("positional",)

    def construct(self) -> None:
        self.run = self.load("positional")
        self.waves()
        self.build_encoding()
        self.gram()
        self.diagonal()
        self.kernel()

    def waves(self) -> None:
        run = self.run
        pairs, lengths = list(run.params["wave_pairs"]), run["wavelengths"]
        self.next_slide(
            notes="Self-attention is permutation-invariant, so a Transformer adds a positional signal to every token. "
            "Dimension pair i holds sin and cos of position x w_i, with wavelengths growing geometrically from "
            f"{lengths[0]:.2f} to {lengths[-1]:.0f} positions over d_model = {run['pe'].shape[1]} dimensions."
        )
        self.heading = self.title("Sinusoidal positional encoding")
        length = len(run["positions"])
        self.panels = VGroup()
        self.panel_labels = VGroup()
        curves = VGroup()
        xs = run["wave_positions"]
        for index, pair in enumerate(pairs):
            last = index == len(pairs) - 1
            # The shared position numbers go under the bottom panel, clear of the waves.
            plot = Plot(
                (0, length - 1, 10),
                (-1, 1, 1),
                width=6.0,
                height=1.05,
                tick_size=TICK_SIZE,
                x_numbers=last,
                x_numbers_below=last,
            )
            self.panels.add(plot)
        self.panels.arrange(DOWN, buff=0.45).to_edge(LEFT, buff=0.7).shift(0.35 * DOWN)
        for index, (pair, plot) in enumerate(zip(pairs, self.panels)):
            label = theme.text(
                f"dims {2 * pair}, {2 * pair + 1}: wavelength {lengths[pair]:.1f}", theme.SMALL_SIZE, theme.muted()
            )
            label.next_to(plot.axes, UP, buff=0.08).align_to(plot.axes, LEFT).shift(0.3 * RIGHT)
            self.panel_labels.add(label)
            curves.add(plot.curve(xs, run["waves"][2 * index], theme.item_colour(0), stroke_width=3))
            curves.add(plot.curve(xs, run["waves"][2 * index + 1], theme.item_colour(1), stroke_width=3))
        legend = VGroup(
            theme.text("sin", theme.SMALL_SIZE, theme.item_colour(0)),
            theme.text("cos", theme.SMALL_SIZE, theme.item_colour(1)),
        ).arrange(RIGHT, buff=0.3)
        legend.next_to(self.panels[0].axes, UP, buff=0.08).align_to(self.panels[0].axes, RIGHT)
        self.legend = legend
        self.curves = curves
        self.play(FadeIn(self.panels), FadeIn(self.panel_labels), FadeIn(legend), run_time=0.6)
        self.play(Create(curves, lag_ratio=0.15), run_time=2.0)

    def build_encoding(self) -> None:
        run = self.run
        pe = run["pe"]
        self.next_slide(
            notes="Sweeping along the positions writes one column per position into PE "
            f"({pe.shape[0]} positions x {pe.shape[1]} dimensions, red positive, blue negative): "
            "the first dimensions flip every few positions, the last ones barely move "
            f"(dimension {pe.shape[1] - 2} only reaches {pe[-1, -2]:.4f} by position {pe.shape[0] - 1})."
        )
        self.encoding = Heatmap(
            pe.T,
            row_title="dimension",
            col_title="position",
            cell_size=0.07,
            vmin=-1.0,
            vmax=1.0,
            colormap=theme.diverging_colormap(),
            cell_stroke=0.0,
            dense=True,
        )
        self.encoding.to_edge(RIGHT, buff=0.5).shift(0.45 * DOWN)
        # Mark the rows of the drawn waves at the heatmap's left edge.
        marks = VGroup()
        for index, pair in enumerate(run.params["wave_pairs"]):
            for offset, colour in ((0, theme.item_colour(0)), (1, theme.item_colour(1))):
                cell = self.encoding.cell(2 * pair + offset, 0)
                marks.add(
                    Line(cell.get_left() + 0.22 * LEFT, cell.get_left() + 0.04 * LEFT, color=colour, stroke_width=3)
                )
        cells = self.encoding.cells
        mask = Rectangle(
            width=cells.width + 0.04,
            height=cells.height + 0.04,
            stroke_width=0,
            fill_color=theme.background(),
            fill_opacity=1,
        ).move_to(cells)
        # Cells start hidden under a background-coloured mask that the sweep pulls away, one column per position.
        furniture = VGroup(self.encoding.row_title, self.encoding.col_title, self.encoding.colourbar)
        self.add(cells, mask)
        self.play(FadeIn(furniture), FadeIn(marks), run_time=0.6)
        position = ValueTracker(0.0)
        length = pe.shape[0]
        right_edge = cells.get_right()[0] + 0.02
        column = cells.width / length

        def uncover(rect: Rectangle) -> None:
            shown = min(position.get_value() + 1, length) * column
            rect.stretch_to_fit_width(max(cells.width + 0.02 - shown, 1e-4))
            rect.move_to([right_edge - rect.width / 2, cells.get_center()[1], 0])

        mask.add_updater(uncover)
        top, bottom = self.panels[0].axes.get_top()[1], self.panels[-1].axes.get_bottom()[1]
        sweep = Line([0, top, 0], [0, bottom, 0], color=theme.highlight(), stroke_width=3)
        sweep.add_updater(lambda line: line.set_x(self.panels[0].axes.c2p(position.get_value(), 0)[0]))
        self.add(sweep)
        self.play(position.animate.set_value(length - 1), run_time=5, rate_func=linear)
        mask.clear_updaters()
        sweep.clear_updaters()
        self.remove(mask, cells, furniture)
        self.add(self.encoding)  # whole again, so it moves as one mobject
        self.play(FadeOut(sweep), run_time=0.3)
        self.marks = marks

    def gram(self) -> None:
        run = self.run
        gram = run["pe_gram"]
        self.next_slide(
            notes="Now the dot product of every pair of encodings, PE PE^T. "
            f"Its diagonal is {run.metrics['gram_diagonal']:.1f} = d_model/2 (sin^2 + cos^2 per pair), "
            "and it is constant along every diagonal: the largest spread along a diagonal is "
            f"{run.metrics['toeplitz_max_deviation']:.1e}, float64 rounding."
        )
        self.play(
            FadeOut(self.panels),
            FadeOut(self.panel_labels),
            FadeOut(self.curves),
            FadeOut(self.legend),
            FadeOut(self.marks),
            run_time=0.6,
        )
        self.play(self.encoding.animate.to_edge(LEFT, buff=0.5), run_time=0.8)
        self.gram_map = Heatmap(
            gram,
            row_title="position i",
            col_title="position j",
            cell_size=0.07,
            cell_stroke=0.0,
            dense=True,
        )
        self.gram_map.to_edge(RIGHT, buff=0.6).align_to(self.encoding.cells, DOWN)
        formula = MathTex(
            r"PE_i \cdot PE_j", font_size=theme.tex_size(theme.BODY_SIZE), color=theme.foreground()
        ).next_to(self.gram_map.cells, UP, buff=0.2)
        self.play(FadeIn(self.gram_map), FadeIn(formula), run_time=1.0)
        self.formula = formula

    def diagonal(self) -> None:
        run = self.run
        gram = run["pe_gram"]
        offset = max(1, gram.shape[0] // 6)
        values = np.diagonal(gram, offset)
        self.next_slide(
            notes=f"Walk along one diagonal, j = i + {offset}: "
            f"every cell holds {values[0]:.4f} (spread {np.ptp(values):.1e}). "
            "So PE_i . PE_j depends only on the offset |i - j|, never on where the pair sits."
        )
        line = _diagonal_line(self.gram_map, offset, theme.highlight())
        self.play(Create(line), run_time=0.8)
        walker = ValueTracker(0.0)
        box = SurroundingRectangle(self.gram_map.cell(0, offset), buff=0.03, color=theme.foreground(), stroke_width=3)
        box.add_updater(
            lambda b: b.move_to(
                self.gram_map.cell(int(round(walker.get_value())), int(round(walker.get_value())) + offset)
            )
        )
        index = Readout("$i =$", 0, 0).follow(lambda: int(round(walker.get_value())))
        product = Readout(rf"$PE_i \cdot PE_{{i+{offset}}} =$", float(values[0]), 4, theme.highlight())
        product.follow(lambda: float(values[int(round(walker.get_value()))]))
        readouts = VGroup(index, product).arrange(RIGHT, buff=0.5)
        readouts.next_to(self.gram_map.col_title, DOWN, buff=0.15).set_x(0)
        if readouts.get_bottom()[1] < -3.85:
            readouts.shift((-3.85 - readouts.get_bottom()[1]) * UP)
        self.play(FadeIn(box), FadeIn(readouts))
        self.play(walker.animate.set_value(len(values) - 1), run_time=4, rate_func=linear)
        box.clear_updaters()
        index.freeze()
        product.freeze()
        self.diagonal_group = VGroup(line, box, readouts)

    def kernel(self) -> None:
        run = self.run
        kernel, offsets = run["kernel"], run["offsets"]
        probe = min(10, len(kernel) - 1)  # a nearby offset to quote
        self.next_slide(
            notes="That one value per offset is the whole matrix: "
            f"PE_0 . PE_k falls from {kernel[0]:.1f} at k = 0 to {kernel[probe]:.2f} at k = {offsets[probe]}, "
            f"not monotonically; its smallest value is {run.metrics['kernel_min']:.2f} at "
            f"k = {run.metrics['kernel_min_offset']}. Nearby positions look alike, distant ones less so."
        )
        low, high, step = nice_range(min(0.0, float(kernel.min())), float(kernel.max()))
        plot = Plot(
            (0, offsets[-1], 10),
            (low, high, step),
            width=5.4,
            height=3.4,
            x_label="offset $k = j - i$",
            y_label=r"$PE_i \cdot PE_{i+k}$",
            tick_size=TICK_SIZE,
            x_numbers_below=low < 0,
        )
        plot.to_edge(LEFT, buff=0.7).align_to(self.gram_map.cells, DOWN).shift(0.3 * UP)
        curve = plot.curve(offsets, kernel, theme.highlight(), stroke_width=4)
        self.play(FadeOut(self.encoding), FadeOut(self.diagonal_group[1:]), run_time=0.6)
        self.play(Create(plot), run_time=0.8)
        self.play(Create(curve), run_time=1.5)


# --- tf10: rotary positional encoding ---------------------------------------------------------------


class RopeRotation(LectureSlide):
    """tf10: RoPE turns each dimension pair by position x frequency; scores depend only on m - n."""

    data = ("rope",)

    def construct(self) -> None:
        self.run = self.load("rope")
        self.circles()
        self.spin()
        self.both_positions()
        self.shift_both()
        self.score_matrix()
        self.relative_rows()

    # Angles: the unrotated pair angle plus the rotation at (fractional) position, interpolated from data.
    def _rotation(self, index: int, position: float) -> float:
        return float(np.interp(position, self.run["positions"], self.run["pair_angles"][index]))

    def circles(self) -> None:
        run = self.run
        pairs, freqs = run["pairs"], run["freqs"]
        second = min(1, len(freqs) - 1)  # pair 0 always turns 1 rad per position; quote the next one
        self.next_slide(
            notes="Instead of adding a position vector, "
            "RoPE rotates each pair of dimensions of q and k by position x frequency. "
            f"With d = {len(run['query'])}, pair i turns by {freqs[second]:.4f} rad per position for i = {second} "
            f"and only {freqs[-1]:.6f} for i = {len(freqs) - 1}: low pairs spin fast, high pairs slowly."
        )
        self.heading = self.title("Rotary positional encoding (RoPE)")
        self.query_position = ValueTracker(0.0)
        self.key_position = ValueTracker(0.0)
        speeds = ["fast", "medium", "slow", "slowest"]
        self.wheels = VGroup()
        titles = VGroup()
        for index, pair in enumerate(pairs):
            wheel = PhasorCircle(radius=1.25)
            self.wheels.add(wheel)
        self.wheels.arrange(RIGHT, buff=1.9).shift(0.15 * DOWN)
        colormap = theme.heatmap_colormap()
        positions = run["positions"]
        self.query_arrows, self.trails = [], VGroup()
        for index, (pair, wheel) in enumerate(zip(pairs, self.wheels)):
            title = (
                VGroup(
                    theme.text(
                        f"pair {pair} ({speeds[min(index, 3)] if len(pairs) > 1 else 'drawn'})", theme.LABEL_SIZE
                    ),
                    MathTex(
                        rf"\omega_{{{pair}}} = {freqs[pair]:.4f}",
                        font_size=theme.tex_size(theme.LABEL_SIZE),
                        color=theme.foreground(),
                    ),
                )
                .arrange(DOWN, buff=0.12)
                .next_to(wheel, UP, buff=0.25)
            )
            titles.add(title)
            q_pair = run["query_pairs"][index]
            q_angle, q_norm = float(np.arctan2(q_pair[1], q_pair[0])), float(np.hypot(*q_pair))
            k_pair = run["key_pairs"][index]
            k_norm = float(np.hypot(*k_pair))
            scale = max(q_norm, k_norm)
            trail_colours = [colour_for(p, positions[0], positions[-1], colormap) for p in positions]
            trail = wheel.trail(
                q_angle + run["pair_angles"][index],
                self.query_position.get_value,
                trail_colours,
                fraction=q_norm / scale,
                radius=0.05,
            )
            self.trails.add(trail)
            arrow = wheel.phasor(
                lambda i=index, a=q_angle: a + self._rotation(i, self.query_position.get_value()),
                theme.query_colour(),
                length=q_norm / scale,
            )
            self.query_arrows.append(arrow)
        self.add(*self.trails)  # the wheels are never added whole; their trails need the scene to run updaters
        self.wheel_titles = titles
        position_text = Readout("position $m =$", 0.0, 1, theme.query_colour(), theme.BODY_SIZE)
        position_text.next_to(self.wheels, DOWN, buff=0.55)
        position_text.follow(self.query_position.get_value)
        self.position_number = position_text.number
        self.position_text = position_text
        q_legend = theme.label(r"$q$ pair, rotated by $m\,\omega$", theme.LABEL_SIZE, theme.query_colour())
        self.play(FadeIn(titles), *[Create(wheel.ring) for wheel in self.wheels], run_time=0.8)
        self.play(*[FadeIn(arrow) for arrow in self.query_arrows], FadeIn(position_text), run_time=0.6)
        q_legend.to_edge(DOWN, buff=0.3)
        self.play(FadeIn(q_legend))
        self.q_legend = q_legend

    def spin(self) -> None:
        run = self.run
        last = float(run["positions"][-1])
        turns = run["pair_angles"][:, -1] / (2 * np.pi)
        described = ", ".join(f"pair {p}: {t:.2f} turns" for p, t in zip(run["pairs"], turns))
        self.next_slide(
            notes=f"Move the query from position 0 to {last:.0f}. Each pair turns by m x omega: {described}. "
            "The dots mark the integer positions."
        )
        self.backdrop(self.heading, self.wheel_titles, *[wheel.ring for wheel in self.wheels], self.q_legend)
        self.play(self.query_position.animate.set_value(last), run_time=7, rate_func=linear)

    def both_positions(self) -> None:
        run = self.run
        offset = int(run.params["offset"])
        self.next_slide(
            notes=f"Now the key too: q at position m = 0, k at n = {offset}. "
            f"The score is <R_m q, R_n k> = {run['sweep_scores'][0]:.4f}; "
            "each pair adds |q_i||k_i| cos(angle between them)."
        )
        for trail in self.trails:
            trail.clear_updaters()
        self.play(FadeOut(self.trails), self.query_position.animate.set_value(0.0), run_time=1.0)
        self.key_position.set_value(float(offset))
        key_arrows = []
        for index, wheel in enumerate(self.wheels):
            k_pair, q_pair = run["key_pairs"][index], run["query_pairs"][index]
            k_angle = float(np.arctan2(k_pair[1], k_pair[0]))
            scale = max(float(np.hypot(*q_pair)), float(np.hypot(*k_pair)))
            key_arrows.append(
                wheel.phasor(
                    lambda i=index, a=k_angle: a + self._rotation(i, self.key_position.get_value()),
                    theme.key_colour(),
                    length=float(np.hypot(*k_pair)) / scale,
                )
            )
        # The angle between q and k in each pair: it alone sets the pair's share of the score.
        self.angle_arcs = [
            wheel.angle_arc(query_arrow_angle, key_arrow_angle, theme.highlight())
            for wheel, query_arrow_angle, key_arrow_angle in zip(
                self.wheels,
                [lambda a=arrow: a.current_angle for arrow in self.query_arrows],
                [lambda a=arrow: a.current_angle for arrow in key_arrows],
            )
        ]
        key_text = Readout("key $n =$", float(offset), 1, theme.key_colour(), theme.BODY_SIZE)
        key_text.follow(self.key_position.get_value)
        self.readout_numbers = (self.position_number, key_text.number)
        score_text = Readout("score $=$", float(run["sweep_scores"][0]), 4, theme.highlight(), theme.BODY_SIZE)
        self.score_number = score_text.number
        readouts = VGroup(self.position_text, key_text, score_text)
        targets = (
            VGroup(self.position_text.copy(), key_text.copy(), score_text.copy())
            .arrange(RIGHT, buff=0.8)
            .next_to(self.wheels, DOWN, buff=0.55)
        )
        key_text.move_to(targets[1])
        score_text.move_to(targets[2])
        legend = (
            VGroup(
                theme.text("q pair at m", theme.LABEL_SIZE, theme.query_colour()),
                theme.text("k pair at n", theme.LABEL_SIZE, theme.key_colour()),
                theme.text("arc: the angle between them", theme.LABEL_SIZE, theme.highlight()),
            )
            .arrange(RIGHT, buff=0.6)
            .to_edge(DOWN, buff=0.3)
        )
        self.play(
            self.position_text.animate.move_to(targets[0]),
            *[FadeIn(arrow) for arrow in key_arrows],
            *[FadeIn(arc) for arc in self.angle_arcs],
            FadeIn(key_text),
            FadeIn(score_text),
            FadeOut(self.q_legend),
            FadeIn(legend),
            run_time=1.0,
        )
        self.key_arrows, self.readouts, self.legend = key_arrows, readouts, legend

    def shift_both(self) -> None:
        run = self.run
        shift, offset = int(run.params["shift"]), int(run.params["offset"])
        shifts, scores = run["sweep_shift"], run["sweep_scores"]
        self.next_slide(
            loop=True,
            notes=f"Shift both positions by the same amount, 0 to {shift}: "
            "every arrow turns, but q and k in a pair turn together, so the angle between them stays. "
            f"The score stays {scores[0]:.4f}: over the sweep it moves by at most "
            f"{run.metrics['sweep_max_deviation']:.1e}.",
        )
        shared = ValueTracker(0.0)
        self.backdrop(self.heading, self.wheel_titles, *[wheel.ring for wheel in self.wheels], self.legend)
        self.query_position.add_updater(lambda t: t.set_value(shared.get_value()))
        self.key_position.add_updater(lambda t: t.set_value(shared.get_value() + offset))
        self.score_number.add_updater(lambda n: n.set_value(float(np.interp(shared.get_value(), shifts, scores))))
        self.add(self.query_position, self.key_position)
        self.play(shared.animate.set_value(float(shift)), run_time=3.5, rate_func=smooth)
        self.play(shared.animate.set_value(0.0), run_time=3.5, rate_func=smooth)
        # Freeze every readout: a live one that re-renders (say 0.0 as -0.0) changes its glyph count mid-fade.
        for mobject in (self.query_position, self.key_position, self.score_number, *self.readout_numbers):
            mobject.clear_updaters()

    def score_matrix(self) -> None:
        run = self.run
        scores, offset = run["scores"], int(run.params["offset"])
        self.next_slide(
            notes="All query positions m against all key positions n: "
            "the score matrix is constant along each diagonal "
            f"(largest spread {run.metrics['diagonal_max_deviation']:.1e}). "
            f"The highlighted diagonal n - m = {offset} holds {scores[0, offset]:.4f} everywhere."
        )
        self.play(
            FadeOut(self.wheels), FadeOut(self.wheel_titles), FadeOut(self.readouts), FadeOut(self.legend), run_time=0.6
        )
        for arrow in [*self.query_arrows, *self.key_arrows, *self.angle_arcs]:
            arrow.clear_updaters()
        size = scores.shape[0]
        ticks = [str(p) if p % 8 == 0 else "" for p in range(size)]
        self.matrix = Heatmap(
            scores,
            row_labels=ticks,
            col_labels=ticks,
            row_title="query position $m$",
            col_title="key position $n$",
            cell_size=0.135,
            cell_stroke=0.0,
            fmt="{:.1f}",
            dense=True,
            # Signed scores on the signed ramp, zero at its neutral middle (as PE's values are drawn).
            vmin=-float(np.abs(scores).max()),
            vmax=float(np.abs(scores).max()),
            colormap=theme.diverging_colormap(),
        )
        self.matrix.to_edge(LEFT, buff=0.45).shift(0.4 * DOWN)
        line = _diagonal_line(self.matrix, offset, theme.highlight())
        tag = theme.label(f"$n - m = {offset}$", theme.LABEL_SIZE, theme.highlight()).next_to(
            self.matrix.cell(0, offset), UP, buff=0.12
        )
        self.play(FadeIn(self.matrix), run_time=0.8)
        self.play(Create(line), FadeIn(tag), run_time=0.8)

    def relative_rows(self) -> None:
        run = self.run
        offsets, row_at_0, row_at_shift = run["offsets"], run["row_at_0"], run["row_at_shift"]
        shift = int(run.params["shift"])
        self.next_slide(
            notes="The same q and k placed at different absolute positions: "
            f"the query at 0 and at {shift}, scored against keys at offsets 0 to {offsets[-1]}. "
            f"The two curves coincide (largest difference {run.metrics['row_max_difference']:.1e}); "
            f"e.g. offset 0 gives {row_at_0[0]:.4f} both times. RoPE scores depend only on the relative offset."
        )
        low, high = np.floor(min(row_at_0.min(), row_at_shift.min())), np.ceil(max(row_at_0.max(), row_at_shift.max()))
        plot = Plot(
            (0, offsets[-1], 4),
            (low, high, 2),
            width=5.3,
            height=2.9,
            x_label="relative offset $n - m$",
            y_label="score",
            tick_size=TICK_SIZE,
            x_numbers_below=True,
        )
        plot.to_edge(RIGHT, buff=0.45).align_to(self.matrix.cells, DOWN).shift(0.35 * UP)
        first = plot.curve(offsets, row_at_0, theme.query_colour(), stroke_width=9)
        # Both are the query's scores (one role, one colour); the shifted one is a thin dashed line over the
        # thick solid one, in the foreground colour so that it shows where the two coincide.
        second = DashedVMobject(plot.curve(offsets, row_at_shift, theme.foreground(), stroke_width=3.5), num_dashes=45)
        legend = (
            VGroup(
                theme.text("solid: query at position 0", theme.SMALL_SIZE, theme.query_colour()),
                theme.text(f"dashed: query at position {shift}", theme.SMALL_SIZE, theme.foreground()),
            )
            .arrange(DOWN, aligned_edge=LEFT, buff=0.1)
            .next_to(plot, UP, buff=0.15)
        )
        self.play(Create(plot), FadeIn(legend[0]), run_time=0.8)
        self.play(Create(first), run_time=1.2)
        self.play(FadeIn(legend[1]), Create(second), run_time=1.5)


# --- tf6: why attention is scaled by 1/sqrt(d) ------------------------------------------------------


class ScaledDotProduct(LectureSlide):
    """tf6: unscaled logits spread like sqrt(d) and the softmax collapses; 1/sqrt(d) keeps the entropy."""

    data = ("scaling",)

    def construct(self) -> None:
        self.run = self.load("scaling")
        self.dims = self.run["dims"]
        self.setup_views()
        self.grow_d()
        self.conclude()

    def setup_views(self) -> None:
        run = self.run
        dims = self.dims
        self.next_slide(
            notes="Dot products of d-dimensional random vectors have variance about d: "
            f"the logit standard deviation is {run['logit_std'][0]:.2f} at d = {dims[0]} and "
            f"{run['logit_std'][-1]:.2f} at d = {dims[-1]}. "
            f"One sample of {run['sample_logits'].shape[1]} keys, softmax with and without the 1/sqrt(d) scale."
        )
        self.heading = self.title("Why attention is scaled by 1/√d")
        exponents = np.log2(dims)
        self.plot = Plot(
            (float(exponents[0]), float(exponents[-1]), 1),
            (0, 1, 0.25),
            width=5.6,
            height=3.8,
            x_label="key / query dimension $d$",
            y_label=f"mean entropy, {run.params['n_samples']} samples",
            log_x=True,
            tick_size=TICK_SIZE,
        )
        self.plot.to_edge(LEFT, buff=0.6).shift(0.35 * DOWN)
        meaning = (
            theme.text("1 = uniform, 0 = one-hot", theme.SMALL_SIZE, theme.muted())
            .next_to(self.plot.axes, UP, buff=0.15)
            .align_to(self.plot.axes, LEFT)
        )

        keys = run["sample_logits"].shape[1]
        blank = [""] * keys
        chart_height = 1.9
        self.scaled_bars = Bars(
            run["sample_weights_scaled"][0],
            blank,
            max_value=1.0,
            height=chart_height,
            bar_width=0.2,
            spacing=0.07,
            colours=[theme.allowed_colour()] * keys,
            show_values=False,
        )
        self.unscaled_bars = Bars(
            run["sample_weights_unscaled"][0],
            blank,
            max_value=1.0,
            height=chart_height,
            bar_width=0.2,
            spacing=0.07,
            colours=[theme.error_colour()] * keys,
            show_values=False,
        )
        # Place by baselines: a bar may grow to the full chart height (weight 1) without touching the titles.
        right_x = 7.1 - 0.9 - self.scaled_bars.baseline.width / 2
        self.unscaled_bars.shift([right_x, -3.3, 0] - self.unscaled_bars.baseline.get_center())
        self.scaled_bars.shift([right_x, -3.3 + chart_height + 0.95, 0] - self.scaled_bars.baseline.get_center())
        charts = VGroup(self.scaled_bars, self.unscaled_bars)
        scaled_title = Readout(
            "one sample, scaled: entropy",
            float(run["sample_entropy_scaled"][0]),
            3,
            theme.allowed_colour(),
            theme.SMALL_SIZE,
        )
        unscaled_title = Readout(
            "one sample, unscaled: entropy",
            float(run["sample_entropy_unscaled"][0]),
            3,
            theme.error_colour(),
            theme.SMALL_SIZE,
        )
        self.scaled_entropy, self.unscaled_entropy = scaled_title.number, unscaled_title.number
        for title, chart in ((scaled_title, self.scaled_bars), (unscaled_title, self.unscaled_bars)):
            title.move_to(chart.baseline.get_center() + (chart_height + 0.25) * UP)
            title.keep_aligned()
        d_text = Readout("$d =$", int(dims[0]), 0, theme.foreground(), theme.BODY_SIZE)
        std_text = Readout("unscaled logit std", float(run["logit_std"][0]), 2, theme.muted(), theme.LABEL_SIZE)
        self.d_number, self.std_number = d_text.number, std_text.number
        header = VGroup(d_text, std_text).arrange(RIGHT, buff=0.6).next_to(scaled_title, UP, buff=0.3)
        d_text.keep_aligned()
        std_text.keep_aligned()
        self.play(Create(self.plot), FadeIn(meaning), run_time=0.8)
        self.play(FadeIn(charts), FadeIn(scaled_title), FadeIn(unscaled_title), FadeIn(header), run_time=0.8)

        self.d_tracker = ValueTracker(float(dims[0]))
        self.scaled_curve = self.plot.live_curve(dims, run["entropy_scaled"], self.d_tracker, theme.allowed_colour())
        self.unscaled_curve = self.plot.live_curve(dims, run["entropy_unscaled"], self.d_tracker, theme.error_colour())
        self.markers = VGroup()
        for values, colour in (
            (run["entropy_scaled"], theme.allowed_colour()),
            (run["entropy_unscaled"], theme.error_colour()),
        ):
            points = self.plot.to_screen(dims, values)
            self.markers.add(VGroup(*[Dot(point, radius=0.07, color=colour) for point in points]))
        self.add(self.scaled_curve, self.unscaled_curve)
        self.play(FadeIn(self.markers[0][0]), FadeIn(self.markers[1][0]), run_time=0.4)

    def grow_d(self) -> None:
        run, dims = self.run, self.dims
        self.next_slide(
            notes=f"Grow d from {dims[0]} to {dims[-1]}. "
            f"Unscaled, this sample's top weight climbs to {run['sample_weights_unscaled'][-1].max():.3f}: "
            f"the softmax is nearly one-hot and mean entropy falls to {run['entropy_unscaled'][-1]:.3f}. "
            f"Scaled, the top weight stays {run['sample_weights_scaled'][-1].max():.3f} and mean entropy "
            f"{run['entropy_scaled'][-1]:.3f} (over {run.params['n_samples']} samples per d)."
        )
        for index in range(1, len(dims)):
            # Readouts jump to the next measured d (no invented in-between values); bars and curves glide there.
            self.d_number.set_value(int(dims[index]))
            self.std_number.set_value(float(run["logit_std"][index]))
            self.scaled_entropy.set_value(float(run["sample_entropy_scaled"][index]))
            self.unscaled_entropy.set_value(float(run["sample_entropy_unscaled"][index]))
            self.play(
                self.d_tracker.animate.set_value(float(dims[index])),
                self.scaled_bars.morph(run["sample_weights_scaled"][index], readouts=False),
                self.unscaled_bars.morph(run["sample_weights_unscaled"][index], readouts=False),
                run_time=1.3,
            )
            self.add(self.markers[0][index], self.markers[1][index])
            self.wait(0.2)
        for curve in (self.scaled_curve, self.unscaled_curve):
            curve.clear_updaters()

    def conclude(self) -> None:
        run, dims = self.run, self.dims
        self.next_slide(
            notes="Without 1/sqrt(d) attention collapses to one-hot as d grows "
            f"(entropy {run['entropy_unscaled'][0]:.3f} at d = {dims[0]}, "
            f"{run['entropy_unscaled'][-1]:.3f} at d = {dims[-1]}), which kills the gradients. "
            f"With it the entropy never drops below {run.metrics['entropy_scaled_min']:.3f}."
        )
        # Each label sits clear of its own curve over its whole width,
        # at the right end where the two curves are far apart.
        labels = VGroup(
            _label_beside_curve(
                self.plot,
                dims,
                run["entropy_scaled"],
                theme.text("scaled by 1/√d", theme.LABEL_SIZE, theme.allowed_colour()),
                DOWN,
            ),
            _label_beside_curve(
                self.plot,
                dims,
                run["entropy_unscaled"],
                theme.text("unscaled", theme.LABEL_SIZE, theme.error_colour()),
                UP,
            ),
        )
        self.play(FadeIn(labels), run_time=0.6)
