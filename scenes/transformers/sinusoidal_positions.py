"""SinusoidalPositions, notebook cell tf4: sinusoidal positional encoding. Sine and cosine waves of
geometrically growing wavelengths build the encoding PE; the dot products PE_i . PE_j are constant along
every diagonal, so they depend only on the offset between two positions."""

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
    LaggedStart,
    Line,
    MathTex,
    Rectangle,
    SurroundingRectangle,
    ValueTracker,
    VGroup,
    linear,
)

from scenes.transformers.shared import TICK_SIZE, diagonal_line, significant
from seqanim import Artifact, LectureSlide, integer, mark, translated
from seqanim.kit import theme
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.layout import within_frame
from seqanim.kit.plots import Plot, nice_range
from seqanim.kit.readout import Readout

# --- the words ----------------------------------------------------------------------------------------


def _offset(run: Artifact) -> int:
    """The diagonal walked: a sixth of the way across the Gram matrix."""
    return max(1, run["pe_gram"].shape[0] // 6)


def _probe(run: Artifact) -> int:
    """A nearby offset to quote."""
    return min(10, len(run["kernel"]) - 1)


@dataclass(frozen=True)
class Encoding:
    """The facts of the sinusoidal encoding every beat's words say, read once from the run."""

    shortest: float  # the first pair's wavelength, in positions
    longest: float  # the last pair's
    positions: int
    dimensions: int
    reached: float  # the second to last dimension at the last position
    gram_diagonal: float  # every encoding's dot product with itself
    offset: int  # the diagonal walked (`_offset`)
    on_diagonal: float  # the dot product of two positions `offset` apart
    with_itself: float  # the kernel at offset zero
    kernel_min: float  # its smallest value
    kernel_min_offset: int  # and where


def encoding_facts(run: Artifact) -> Encoding:
    """What the encoding shows: its wavelengths, its last dimension, its Gram matrix and the kernel along it."""
    pe, offset = run["pe"], _offset(run)
    return Encoding(
        shortest=float(run["wavelengths"][0]),
        longest=float(run["wavelengths"][-1]),
        positions=pe.shape[0],
        dimensions=pe.shape[1],
        reached=float(pe[-1, -2]),
        gram_diagonal=float(run.metrics["gram_diagonal"]),
        offset=offset,
        on_diagonal=float(np.diagonal(run["pe_gram"], offset)[0]),
        with_itself=float(run["kernel"][0]),
        kernel_min=float(run.metrics["kernel_min"]),
        kernel_min_offset=int(run.metrics["kernel_min_offset"]),
    )


def waves_notes(run: Artifact) -> str:
    facts = encoding_facts(run)
    return (
        "Self-attention is permutation-invariant, so a Transformer adds a positional signal to every token. "
        "Dimension pair i holds sin and cos of position x w_i, with wavelengths growing geometrically from "
        f"{facts.shortest:.2f} to {facts.longest:.0f} positions over d_model = {facts.dimensions} dimensions."
    )


@translated
def waves_said(run: Artifact) -> dict[str, str]:
    facts = encoding_facts(run)
    return {
        "why": "Attention alone ignores word order, so every token gets a position signal added to it.",
        "sines": (
            f"Each pair of dimensions {mark('sine')}holds a sine and a cosine of the position, {mark('growing')}with "
            f"wavelengths growing from {significant(facts.shortest)} to {significant(facts.longest)} positions."
        ),
    }


def build_encoding_notes(run: Artifact) -> str:
    facts = encoding_facts(run)
    return (
        "Sweeping along the positions writes one column per position into PE "
        f"({facts.positions} positions x {facts.dimensions} dimensions, red positive, blue negative): "
        "the first dimensions flip every few positions, the last ones barely move "
        f"(dimension {facts.dimensions - 2} only reaches {facts.reached:.4f} by position {facts.positions - 1})."
    )


@translated
def build_encoding_said(run: Artifact) -> dict[str, str]:
    facts = encoding_facts(run)
    return {
        "grid": "Now the whole encoding, as a grid.",
        "sweep": (
            "Sweeping along, each position writes its column, red for positive and blue for negative. "
            "The first dimensions flip every few positions, while the last ones barely change."
        ),
        "last_dimension": (
            f"By position {integer(facts.positions - 1)}, {mark('dimension')}the second to last dimension has only "
            f"reached {significant(facts.reached)}."
        ),
    }


def gram_notes(run: Artifact) -> str:
    return (
        "Now the dot product of every pair of encodings, PE PE^T. "
        f"Its diagonal is {encoding_facts(run).gram_diagonal:.1f} = d_model/2 (sin^2 + cos^2 per pair), "
        "and it is constant along every diagonal: the largest spread along a diagonal is "
        f"{run.metrics['toeplitz_max_deviation']:.1e}, float64 rounding."
    )


@translated
def gram_said(run: Artifact) -> dict[str, str]:
    facts = encoding_facts(run)
    return {
        "compare": "Next, compare every position's encoding with every other one.",
        "grid": f"This grid holds {mark('dot')}the dot product of each pair of positions.",
        "constant": (
            f"On its main diagonal it is {significant(facts.gram_diagonal)}, {mark('half')}half of the "
            f"{integer(facts.dimensions)} dimensions, {mark('every')}and along every other diagonal it stays "
            "constant too."
        ),
    }


def diagonal_notes(run: Artifact) -> str:
    facts = encoding_facts(run)
    values = np.diagonal(run["pe_gram"], facts.offset)
    return (
        f"Walk along one diagonal, j = i + {facts.offset}: "
        f"every cell holds {facts.on_diagonal:.4f} (spread {np.ptp(values):.1e}). "
        "So PE_i . PE_j depends only on the offset |i - j|, never on where the pair sits."
    )


@translated
def diagonal_said(run: Artifact) -> dict[str, str]:
    facts = encoding_facts(run)
    return {
        "take": f"Take the diagonal of pairs {integer(facts.offset)} positions apart.",
        "boxed": f"A box marks one cell, {mark('value')}with its value below.",
        "walk": (
            f"Walking along, every cell holds the same {significant(facts.on_diagonal)}: the product depends only on "
            "how far apart two positions are, never on where they sit."
        ),
    }


def kernel_notes(run: Artifact) -> str:
    facts = encoding_facts(run)
    kernel, offsets = run["kernel"], run["offsets"]
    probe = _probe(run)
    return (
        "That one value per offset is the whole matrix: "
        f"PE_0 . PE_k falls from {facts.with_itself:.1f} at k = 0 to {kernel[probe]:.2f} at k = {offsets[probe]}, "
        f"not monotonically; its smallest value is {facts.kernel_min:.2f} at "
        f"k = {facts.kernel_min_offset}. Nearby positions look alike, distant ones less so."
    )


@translated
def kernel_said(run: Artifact) -> dict[str, str]:
    facts = encoding_facts(run)
    return {
        "one_value": "So a single value per offset describes the whole grid.",
        "falls": (
            f"It falls, with some wiggles, {mark('from')}from {significant(facts.with_itself)} for a position with "
            f"itself {mark('to')}to {significant(facts.kernel_min)} at {integer(facts.kernel_min_offset)} positions "
            "apart."
        ),
        "alike": f"Nearby positions look alike; {mark('distant')}distant ones, less so.",
    }


# --- the scene ----------------------------------------------------------------------------------------


def _tick_step(last: float) -> int:
    """A number every 10 positions, or every 20, 50, ... where more than 60 would crowd the axis."""
    return max(10, int(nice_range(0, last, 6)[2]))


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
        self.next_slide(notes=waves_notes(run))
        said = waves_said(run)
        length = len(run["positions"])
        self.panels = VGroup()
        self.panel_labels = VGroup()
        curves = VGroup()
        xs = run["wave_positions"]
        for index, pair in enumerate(pairs):
            last = index == len(pairs) - 1
            # The shared position numbers go under the bottom panel, clear of the waves.
            plot = Plot(
                (0, length - 1, _tick_step(length - 1)),
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
        with self.beat(said["why"]) as beat:
            self.title("Sinusoidal positional encoding", along=[FadeIn(self.panels)], run_time=beat.remaining)
        with self.beat(said["sines"]) as beat:  # the pairs named, their waves drawn, their wavelengths read in turn
            self.play(LaggedStart(*[FadeIn(label) for label in self.panel_labels], lag_ratio=0.3),
                      run_time=beat.until("sine"))  # fmt: skip
            self.play(Create(curves, lag_ratio=0.15), FadeIn(legend), run_time=beat.until("growing"))
            self.play(LaggedStart(*[Indicate(label, color=theme.highlight()) for label in self.panel_labels],
                                  lag_ratio=0.5), run_time=beat.remaining)  # fmt: skip

    def build_encoding(self) -> None:
        run = self.run
        pe = run["pe"]
        self.next_slide(notes=build_encoding_notes(run))
        said = build_encoding_said(run)
        self.encoding = Heatmap(
            pe.T,
            row_title="dimension",
            col_title="position",
            # 4.2 by 4.48 units at any positional.length and d_model (cells of 0.07 at 60 by 64)
            cell_size=4.2 / pe.shape[0],
            cell_height=4.48 / pe.shape[1],
            vmin=-1.0,
            vmax=1.0,
            colormap=theme.diverging_colormap(),
            cell_stroke=0.0,
            dense=True,
        )
        self.encoding.to_edge(RIGHT, buff=0.5).shift(0.45 * DOWN)
        # Mark the rows of the drawn waves at the heatmap's left edge, short of the rows' title beside it.
        marks = VGroup()
        for index, pair in enumerate(run.params["wave_pairs"]):
            for offset, colour in ((0, theme.item_colour(0)), (1, theme.item_colour(1))):
                cell = self.encoding.cell(2 * pair + offset, 0)
                marks.add(
                    Line(cell.get_left() + 0.12 * LEFT, cell.get_left() + 0.02 * LEFT, color=colour, stroke_width=3)
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
        with self.beat(said["grid"]) as beat:
            self.play(FadeIn(furniture), FadeIn(marks), run_time=beat.remaining)
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
        with self.beat(said["sweep"]) as beat:
            self.play(position.animate.set_value(length - 1), run_time=beat.remaining, rate_func=linear)
        mask.clear_updaters()
        sweep.clear_updaters()
        self.remove(mask, cells, furniture)
        self.add(self.encoding)  # whole again, so it moves as one mobject
        dims = pe.shape[1]
        row = VGroup(self.encoding.cell(dims - 2, 0), self.encoding.cell(dims - 2, length - 1))
        self.row_box = SurroundingRectangle(row, buff=0.04, color=theme.highlight(), stroke_width=3)
        with self.beat(said["last_dimension"]) as beat:  # the sweep's last position, then that dimension's row
            self.play(Indicate(sweep, color=theme.foreground(), scale_factor=1.0), run_time=beat.until("dimension"))
            self.play(FadeOut(sweep), Create(self.row_box), run_time=beat.remaining)
        self.marks = marks

    def gram(self) -> None:
        gram = self.run["pe_gram"]
        self.next_slide(notes=gram_notes(self.run))
        said = gram_said(self.run)
        with self.beat(said["compare"]) as beat:
            self.play(
                FadeOut(self.panels),
                FadeOut(self.panel_labels),
                FadeOut(self.curves),
                FadeOut(self.legend),
                FadeOut(self.marks),
                FadeOut(self.row_box),
                run_time=0.4,
            )
            self.play(self.encoding.animate.to_edge(LEFT, buff=0.5), run_time=beat.remaining)
        self.gram_map = Heatmap(
            gram,
            row_title="position i",
            col_title="position j",
            cell_size=4.2 / len(gram),
            cell_stroke=0.0,
            dense=True,
        )
        self.gram_map.to_edge(RIGHT, buff=0.6).align_to(self.encoding.cells, DOWN)
        formula = MathTex(
            r"PE_i \cdot PE_j", font_size=theme.tex_size(theme.BODY_SIZE), color=theme.foreground()
        ).next_to(self.gram_map.cells, UP, buff=0.2)
        with self.beat(said["grid"]) as beat:
            self.play(FadeIn(self.gram_map), run_time=beat.until("dot"))
            self.play(FadeIn(formula, shift=0.1 * DOWN), run_time=beat.remaining)
        # The main diagonal, then others at multiples of the offset walked next: each one constant.
        offset = _offset(self.run)
        main = diagonal_line(self.gram_map, 0, theme.foreground())
        others = VGroup(*[diagonal_line(self.gram_map, k * offset, theme.muted()) for k in (-2, -1, 1, 2)])
        with self.beat(said["constant"]) as beat:
            self.play(Create(main), run_time=beat.until("half"))
            self.play(Indicate(self.encoding.row_title, color=theme.highlight()), run_time=beat.until("every"))
            self.play(LaggedStart(*[Create(line) for line in others], lag_ratio=0.3), run_time=beat.remaining)
        self.formula, self.diagonals = formula, VGroup(main, others)

    def diagonal(self) -> None:
        gram = self.run["pe_gram"]
        offset = _offset(self.run)
        values = np.diagonal(gram, offset)
        self.next_slide(notes=diagonal_notes(self.run))
        said = diagonal_said(self.run)
        line = diagonal_line(self.gram_map, offset, theme.highlight())
        with self.beat(said["take"]) as beat:
            self.play(FadeOut(self.diagonals), run_time=0.4)
            self.play(Create(line), run_time=beat.remaining)
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
        # Under the Gram matrix they read: centred on the frame they ran on from the other map's column title.
        readouts.next_to(self.gram_map.col_title, DOWN, buff=0.15).set_x(self.gram_map.cells.get_x())
        within_frame(readouts, margin=0.15)
        with self.beat(said["boxed"]) as beat:
            self.play(Create(box), run_time=beat.until("value"))
            self.play(FadeIn(readouts, shift=0.1 * UP), run_time=beat.remaining)
        with self.beat(said["walk"]) as beat:
            self.play(walker.animate.set_value(len(values) - 1), run_time=beat.remaining, rate_func=linear)
        box.clear_updaters()
        index.freeze()
        product.freeze()
        self.diagonal_group = VGroup(line, box, readouts)

    def kernel(self) -> None:
        kernel, offsets = self.run["kernel"], self.run["offsets"]
        self.next_slide(notes=kernel_notes(self.run))
        said = kernel_said(self.run)
        low, high, step = nice_range(min(0.0, float(kernel.min())), float(kernel.max()))
        plot = Plot(
            (0, offsets[-1], _tick_step(offsets[-1])),
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
        lowest = int(self.run.metrics["kernel_min_offset"])
        itself, farthest = (
            Dot(plot.axes.c2p(offsets[k], kernel[k]), radius=0.07, color=theme.foreground()) for k in (0, lowest)
        )
        with self.beat(said["one_value"]) as beat:
            self.play(FadeOut(self.encoding), FadeOut(self.diagonal_group[1:]), run_time=0.4)
            self.play(Create(plot), run_time=beat.remaining)
        with self.beat(said["falls"]) as beat:  # the curve traced, then its two ends as they are read
            self.play(Create(curve), rate_func=linear, run_time=beat.until("from"))
            self.play(FadeIn(itself, scale=0.5), run_time=beat.until("to"))
            self.play(FadeIn(farthest, scale=0.5), run_time=beat.remaining)
        with self.beat(said["alike"]) as beat:
            self.play(Indicate(itself, color=theme.highlight(), scale_factor=1.6), run_time=beat.until("distant"))
            self.play(Indicate(farthest, color=theme.highlight(), scale_factor=1.6), run_time=beat.remaining)
