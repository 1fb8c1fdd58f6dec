"""ScaledDotProduct, notebook cell tf6: why attention is scaled by 1/sqrt(d). Unscaled logits spread like
sqrt(d) and the softmax collapses to one-hot; scaled by 1/sqrt(d) its entropy stays. The mean entropy against d,
one sample's softmax weights with and without the scale, d growing from 2 to 512, and the conclusion."""

from __future__ import annotations

import math

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Create, Dot, FadeIn, Text, ValueTracker, VGroup

from scenes.transformers.shared import TICK_SIZE, significant
from seqanim.contract import Artifact
from seqanim.kit import theme
from seqanim.kit.bars import Bars
from seqanim.kit.plots import Plot
from seqanim.kit.readout import Readout
from seqanim.slide import LectureSlide
from seqanim.spoken import count, integer, number

# --- the words ----------------------------------------------------------------------------------------


def setup_views_notes(run: Artifact) -> str:
    dims = run["dims"]
    return (
        "Dot products of d-dimensional random vectors have variance about d: "
        f"the logit standard deviation is {run['logit_std'][0]:.2f} at d = {dims[0]} and "
        f"{run['logit_std'][-1]:.2f} at d = {dims[-1]}. "
        f"One sample of {run['sample_logits'].shape[1]} keys, softmax with and without the 1/sqrt(d) scale."
    )


def setup_views_said(run: Artifact) -> tuple[str, str, str]:
    keys = run["sample_logits"].shape[1]
    return (
        "Why are attention scores divided by the square root of the dimension d?",
        f"On the right, one query against {count(keys, 'key')}: its softmax weights with the scaling, and without.",
        "On the left, the average entropy of the softmax: one means spread evenly, zero means all on one key.",
    )


def grow_d_notes(run: Artifact) -> str:
    dims = run["dims"]
    return (
        f"Grow d from {dims[0]} to {dims[-1]}. "
        f"Unscaled, this sample's top weight climbs to {run['sample_weights_unscaled'][-1].max():.3f}: "
        f"the softmax is nearly one-hot and mean entropy falls to {run['entropy_unscaled'][-1]:.3f}. "
        f"Scaled, the top weight stays {run['sample_weights_scaled'][-1].max():.3f} and mean entropy "
        f"{run['entropy_scaled'][-1]:.3f} (over {run.params['n_samples']} samples per d)."
    )


def grow_d_said(run: Artifact) -> tuple[str, str, str]:
    dims, spread = run["dims"], run["logit_std"]
    return (
        "Now the dimension doubles, step by step. Without scaling, the scores spread wider and the softmax sharpens.",
        f"Their spread, {significant(spread[0])} at {integer(int(dims[0]))} dimensions, grows like the square root "
        "of d, and the unscaled weights pile onto fewer and fewer keys.",
        f"At {integer(int(dims[-1]))} dimensions the spread is {significant(spread[-1])}, and one key takes "
        f"{significant(run['sample_weights_unscaled'][-1].max())} of the unscaled weight.",
    )


def conclude_notes(run: Artifact) -> str:
    dims = run["dims"]
    return (
        "Without 1/sqrt(d) attention collapses to one-hot as d grows "
        f"(entropy {run['entropy_unscaled'][0]:.3f} at d = {dims[0]}, "
        f"{run['entropy_unscaled'][-1]:.3f} at d = {dims[-1]}), which kills the gradients. "
        f"With it the entropy never drops below {run.metrics['entropy_scaled_min']:.3f}."
    )


def scaled_floor(run: Artifact) -> float:
    """The scaled entropy's minimum, rounded down to two decimals: a bound the narration can say truly."""
    return math.floor(run.metrics["entropy_scaled_min"] * 100) / 100


def conclude_said(run: Artifact) -> tuple[str, str]:
    entropy = run["entropy_unscaled"]
    return (
        f"Unscaled, the average entropy falls from {significant(entropy[0])} to {significant(entropy[-1])}: "
        "attention turns one-hot, and its gradients vanish.",
        f"Divided by the square root of d, the entropy never drops below {number(scaled_floor(run), 2)}.",
    )


# --- the scene ----------------------------------------------------------------------------------------


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
        self.next_slide(notes=setup_views_notes(run))
        question, charts_said, entropy_said = setup_views_said(run)
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
        with self.beat(question):
            self.title("Why attention is scaled by 1/√d")
            self.play(Create(self.plot), FadeIn(meaning), run_time=0.8)
            self.wait(0.5)
        with self.beat(charts_said):
            self.play(FadeIn(charts), FadeIn(scaled_title), FadeIn(unscaled_title), FadeIn(header), run_time=0.8)
            self.wait(1.0)

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
        with self.beat(entropy_said):
            self.play(FadeIn(self.markers[0][0]), FadeIn(self.markers[1][0]), run_time=0.4)
            self.wait(1.8)

    def grow_d(self) -> None:
        self.next_slide(notes=grow_d_notes(self.run))
        said = grow_d_said(self.run)
        # The doublings of d, shared out over the beats in order.
        stages = np.array_split(np.arange(1, len(self.dims)), len(said))
        for words, indices in zip(said, stages):
            with self.beat(words):
                for index in indices:
                    self.grow_to(int(index))
        for curve in (self.scaled_curve, self.unscaled_curve):
            curve.clear_updaters()

    def grow_to(self, index: int) -> None:
        """One doubling of d: readouts jump to the next measured d (no invented in-between values); bars and
        curves glide there."""
        run = self.run
        self.d_number.set_value(int(self.dims[index]))
        self.std_number.set_value(float(run["logit_std"][index]))
        self.scaled_entropy.set_value(float(run["sample_entropy_scaled"][index]))
        self.unscaled_entropy.set_value(float(run["sample_entropy_unscaled"][index]))
        self.play(
            self.d_tracker.animate.set_value(float(self.dims[index])),
            self.scaled_bars.morph(run["sample_weights_scaled"][index], readouts=False),
            self.unscaled_bars.morph(run["sample_weights_unscaled"][index], readouts=False),
            run_time=1.3,
        )
        self.add(self.markers[0][index], self.markers[1][index])
        self.wait(0.2)

    def conclude(self) -> None:
        run, dims = self.run, self.dims
        self.next_slide(notes=conclude_notes(run))
        collapse, kept = conclude_said(run)
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
        with self.beat(collapse):
            self.play(FadeIn(labels), run_time=0.6)
            self.wait(2.0)
        with self.beat(kept):
            self.wait(1.8)
