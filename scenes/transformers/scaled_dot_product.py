"""ScaledDotProduct, notebook cell tf6: why attention is scaled by 1/sqrt(d). Unscaled logits spread like
sqrt(d) and the softmax collapses to one-hot; scaled by 1/sqrt(d) its entropy stays. The mean entropy against d,
one sample's softmax weights with and without the scale, d growing from 2 to 512, and the conclusion."""

from __future__ import annotations

import math
from collections.abc import Callable
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
    Indicate,
    LaggedStart,
    MoveAlongPath,
    Text,
    ValueTracker,
    VGroup,
    VMobject,
    linear,
)

from scenes.transformers.shared import TICK_SIZE, significant
from seqanim import Artifact, LectureSlide, count, integer, mark, number, translated
from seqanim.kit import theme
from seqanim.kit.bars import Bars
from seqanim.kit.plots import Plot
from seqanim.kit.readout import Readout

# --- the words ----------------------------------------------------------------------------------------


def scaled_floor(run: Artifact) -> float:
    """The scaled entropy's minimum, rounded down to two decimals: a bound the narration can say truly."""
    return math.floor(run.metrics["entropy_scaled_min"] * 100) / 100


@dataclass(frozen=True)
class Scaling:
    """The facts of the scaling sweep every beat's words say, read once from the run."""

    keys: int  # the keys one query is scored against
    first_d: int  # the smallest dimension of the sweep
    last_d: int  # the largest
    first_spread: float  # the unscaled logits' standard deviation at the smallest d
    last_spread: float  # and at the largest
    top_unscaled: float  # the sample's largest unscaled softmax weight at the largest d
    first_entropy: float  # the unscaled softmax's mean entropy at the smallest d
    last_entropy: float  # and at the largest
    floor: float  # the scaled entropy never drops below this (`scaled_floor`)
    doubling: bool  # each d of the sweep is twice the one before
    falls: bool  # the unscaled mean entropy ends below where it starts
    one_hot: bool  # the unscaled softmax at the largest d is effectively on one key (`ONE_HOT_KEYS`)
    climbs: bool  # the sample's top unscaled weight ends above where it starts


# A softmax with (natural) entropy H spreads its weight like one over exp(H) equal keys; below 1.5 such keys
# it is nearer to one key than to two: one-hot, as the words say it. The run's entropy is normalised by
# log(keys), so exp(H) = keys ** entropy.
ONE_HOT_KEYS = 1.5


def scaling_facts(run: Artifact) -> Scaling:
    """What the sweep shows: the spread of the logits and the entropy of the softmax, from the smallest d to the
    largest."""
    dims, spread, entropy = run["dims"], run["logit_std"], run["entropy_unscaled"]
    return Scaling(
        keys=run["sample_logits"].shape[1],
        first_d=int(dims[0]),
        last_d=int(dims[-1]),
        first_spread=float(spread[0]),
        last_spread=float(spread[-1]),
        top_unscaled=float(run["sample_weights_unscaled"][-1].max()),
        first_entropy=float(entropy[0]),
        last_entropy=float(entropy[-1]),
        floor=scaled_floor(run),
        doubling=bool(np.all(dims[1:] == 2 * dims[:-1])),
        falls=bool(entropy[-1] < entropy[0]),
        one_hot=bool(run["sample_logits"].shape[1] ** float(entropy[-1]) < ONE_HOT_KEYS),
        climbs=bool(run["sample_weights_unscaled"][-1].max() > run["sample_weights_unscaled"][0].max()),
    )


def setup_views_notes(run: Artifact) -> str:
    facts = scaling_facts(run)
    return (
        "Dot products of d-dimensional random vectors have variance about d: "
        f"the logit standard deviation is {facts.first_spread:.2f} at d = {facts.first_d} and "
        f"{facts.last_spread:.2f} at d = {facts.last_d}. "
        f"One sample of {facts.keys} keys, softmax with and without the 1/sqrt(d) scale."
    )


@translated
def setup_views_said(run: Artifact) -> dict[str, str]:
    keys = scaling_facts(run).keys
    return {
        "question": f"Why are attention scores divided by the square root of {mark('d')}the dimension d?",
        "charts": (
            f"On the right, one query against {count(keys, 'key')}: {mark('scaled')}its softmax weights with the "
            f"scaling, and {mark('unscaled')}without."
        ),
        "entropy": (
            f"On the left, {mark('entropy')}the average entropy of the softmax: {mark('one')}one means spread evenly, "
            f"{mark('zero')}zero means all on one key."
        ),
    }


def grow_d_notes(run: Artifact) -> str:
    facts = scaling_facts(run)
    top = f"this sample's top weight {'climbs to' if facts.climbs else 'ends at'} {facts.top_unscaled:.3f}"
    entropy = f"mean entropy {'falls to' if facts.falls else 'ends at'} {facts.last_entropy:.3f}"
    unscaled = (
        f"{top}: the softmax is nearly one-hot and {entropy}" if facts.one_hot else f"{top} and {entropy}: not one-hot"
    )
    return (
        f"Grow d from {facts.first_d} to {facts.last_d}. "
        f"Unscaled, {unscaled}. "
        f"Scaled, the top weight stays {run['sample_weights_scaled'][-1].max():.3f} and mean entropy "
        f"{run['entropy_scaled'][-1]:.3f} (over {run.params['n_samples']} samples per d)."
    )


@translated
def grow_d_said(run: Artifact) -> dict[str, str]:
    facts = scaling_facts(run)
    return {
        "doubles": (
            f"Now the dimension {'doubles' if facts.doubling else 'grows'}, step by step. "
            "Without scaling, the scores spread wider and the softmax sharpens."
        ),
        "grows": (
            f"Their spread, {significant(facts.first_spread)} at {integer(facts.first_d)} dimensions, "
            f"{mark('grows')}grows like the square root of d, and the unscaled weights pile onto fewer and fewer keys."
        ),
        "one_key": (
            f"At {integer(facts.last_d)} dimensions {mark('spread')}the spread is {significant(facts.last_spread)}, "
            f"and {mark('key')}one key takes {significant(facts.top_unscaled)} of the unscaled weight."
        ),
    }


def conclude_notes(run: Artifact) -> str:
    facts = scaling_facts(run)
    entropy = (
        f"(entropy {facts.first_entropy:.3f} at d = {facts.first_d}, {facts.last_entropy:.3f} at d = {facts.last_d})"
    )
    if facts.one_hot:
        unscaled = f"Without 1/sqrt(d) attention collapses to one-hot as d grows {entropy}, which kills the gradients."
    elif facts.falls:
        unscaled = (
            f"Without 1/sqrt(d) attention sharpens as d grows {entropy}, but is not one-hot by d = {facts.last_d}."
        )
    else:
        unscaled = f"Without 1/sqrt(d) attention does not sharpen over these d {entropy}."
    return f"{unscaled} With it the entropy never drops below {run.metrics['entropy_scaled_min']:.3f}."


@translated
def conclude_said(run: Artifact) -> dict[str, str]:
    facts = scaling_facts(run)
    moves = "falls from" if facts.falls else "goes from"
    if facts.one_hot:
        verdict = f"attention {'turns' if facts.falls else 'is'} one-hot, and its gradients vanish"
    elif facts.falls:
        verdict = f"attention sharpens, but at {integer(facts.last_d)} dimensions it is not one-hot"
    else:
        verdict = "attention does not sharpen"
    return {
        "collapse": (
            f"Unscaled, {mark('falls')}the average entropy {moves} {significant(facts.first_entropy)} to "
            f"{significant(facts.last_entropy)}: {mark('hot')}{verdict}."
        ),
        "kept": f"Divided by root d, {mark('never')}the entropy never drops below {number(facts.floor, 2)}.",
    }


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
        said = setup_views_said(run)
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
        uniform = len("1=uniform,")  # the glyphs (no spaces) of the first half of the reading key
        meaning = (
            theme.text("1 = uniform, 0 = one-hot", theme.SMALL_SIZE, theme.muted())
            .next_to(self.plot.axes, UP, buff=0.15)
            .align_to(self.plot.axes, LEFT)
        )

        keys = run["sample_logits"].shape[1]
        blank = [""] * keys
        chart_height = 1.9
        share = 16 / keys  # the charts are as wide as at the default 16 keys, whatever scaling.n_keys is
        self.scaled_bars = Bars(
            run["sample_weights_scaled"][0],
            blank,
            max_value=1.0,
            height=chart_height,
            bar_width=0.2 * share,
            spacing=0.07 * share,
            colours=[theme.allowed_colour()] * keys,
            show_values=False,
        )
        self.unscaled_bars = Bars(
            run["sample_weights_unscaled"][0],
            blank,
            max_value=1.0,
            height=chart_height,
            bar_width=0.2 * share,
            spacing=0.07 * share,
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
        with self.beat(said["question"]) as beat:  # the plot's axes with the title, then d, named
            self.title("Why attention is scaled by 1/√d", along=[Create(self.plot)], run_time=beat.until("d"))
            self.play(FadeIn(header, shift=0.1 * DOWN), Indicate(self.plot.x_label), run_time=beat.remaining)
        with self.beat(said["charts"]) as beat:  # the query's weights over its keys: scaled, then unscaled
            self.play(FadeIn(self.scaled_bars.baseline), FadeIn(self.unscaled_bars.baseline),
                      run_time=beat.until("scaled"))  # fmt: skip
            self.play(LaggedStart(*[FadeIn(bar, shift=0.1 * UP) for bar in self.scaled_bars.bars], lag_ratio=0.1),
                      FadeIn(scaled_title), run_time=beat.until("unscaled"))  # fmt: skip
            self.play(LaggedStart(*[FadeIn(bar, shift=0.1 * UP) for bar in self.unscaled_bars.bars], lag_ratio=0.1),
                      FadeIn(unscaled_title), run_time=beat.remaining)  # fmt: skip
        self.add(charts)  # the charts' parts, all on screen now, as one

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
        with self.beat(said["entropy"]) as beat:  # the axis named, its two ends read, the first measurement placed
            self.play(Indicate(self.plot.y_label), run_time=beat.until("entropy"))
            self.play(FadeIn(meaning), FadeIn(self.markers[0][0]), FadeIn(self.markers[1][0]),
                      run_time=beat.until("one"))  # fmt: skip
            self.play(Indicate(meaning[:uniform]), run_time=beat.until("zero"))
            self.play(Indicate(meaning[uniform:]), run_time=beat.remaining)

    def grow_d(self) -> None:
        self.next_slide(notes=grow_d_notes(self.run))
        said = grow_d_said(self.run)
        # The doublings of d, shared out over the beats in order.
        first, second, third = np.array_split(np.arange(1, len(self.dims)), len(said))
        with self.beat(said["doubles"]) as beat:
            self.grow_over(first, lambda: beat.remaining)
        with self.beat(said["grows"]) as beat:  # the spread's readout, named, then d keeps doubling
            self.play(Indicate(self.std_number), run_time=beat.until("grows"))
            self.grow_over(second, lambda: beat.remaining)
        with self.beat(said["one_key"]) as beat:  # the last doublings, the spread read, the one key's bar
            self.grow_over(third, lambda: beat.until("spread"))
            self.play(Indicate(self.std_number), run_time=beat.until("key"))
            top = int(np.argmax(self.run["sample_weights_unscaled"][-1]))
            self.play(Indicate(self.unscaled_bars.bars[top], scale_factor=1.1), run_time=beat.remaining)
        for curve in (self.scaled_curve, self.unscaled_curve):
            curve.clear_updaters()

    def grow_over(self, indices: np.ndarray, left: Callable[[], float]) -> None:
        """The doublings of d at `indices`, sharing equally the seconds `left()` (a beat's time to its end or to
        a bookmark), so that the last ends on that word."""
        for done, index in enumerate(indices):
            self.grow_to(int(index), left() / (len(indices) - done))

    def grow_to(self, index: int, seconds: float) -> None:
        """One doubling of d: readouts jump to the next measured d (no invented in-between values); bars and
        curves glide there, in `seconds`."""
        run = self.run
        self.d_number.set_value(int(self.dims[index]))
        self.std_number.set_value(float(run["logit_std"][index]))
        self.scaled_entropy.set_value(float(run["sample_entropy_scaled"][index]))
        self.unscaled_entropy.set_value(float(run["sample_entropy_unscaled"][index]))
        self.play(
            self.d_tracker.animate.set_value(float(self.dims[index])),
            self.scaled_bars.morph(run["sample_weights_scaled"][index], readouts=False),
            self.unscaled_bars.morph(run["sample_weights_unscaled"][index], readouts=False),
            run_time=seconds,
        )
        self.add(self.markers[0][index], self.markers[1][index])

    def conclude(self) -> None:
        run, dims = self.run, self.dims
        self.next_slide(notes=conclude_notes(run))
        said = conclude_said(run)
        # Each label sits clear of its own curve over its whole width, at the right end, between the curves
        # where they lie far apart; where they do not (few dims, e.g. [2, 4]), the scaled one's goes above it.
        scaled, unscaled = (theme.text("scaled by 1/√d", theme.LABEL_SIZE, theme.allowed_colour()),
                            theme.text("unscaled", theme.LABEL_SIZE, theme.error_colour()))  # fmt: skip
        _label_beside_curve(self.plot, dims, run["entropy_unscaled"], unscaled, UP)
        _label_beside_curve(self.plot, dims, run["entropy_scaled"], scaled, DOWN)
        if scaled.get_bottom()[1] < unscaled.get_top()[1] + 0.1:
            _label_beside_curve(self.plot, dims, run["entropy_scaled"], scaled, UP)
        labels = VGroup(scaled, unscaled)
        falling, level = (
            VMobject().set_points_as_corners(self.plot.to_screen(dims, run[name]))
            for name in ("entropy_unscaled", "entropy_scaled")
        )
        rider = Dot(falling.get_start(), radius=0.1, color=theme.highlight())
        with self.beat(said["collapse"]) as beat:  # the unscaled curve named, ridden down from its first to last value
            self.play(FadeIn(labels[1]), run_time=beat.until("falls"))
            self.play(FadeIn(rider, scale=0.5), run_time=0.3)
            self.play(MoveAlongPath(rider, falling), rate_func=linear, run_time=beat.until("hot"))
            top = int(np.argmax(run["sample_weights_unscaled"][-1]))
            self.play(rider.animate.set_opacity(0), Indicate(self.unscaled_bars.bars[top], scale_factor=1.1),
                      run_time=beat.remaining)  # fmt: skip
        with self.beat(said["kept"]) as beat:  # the scaled curve named, then ridden along: it stays level
            rider.move_to(level.get_start())  # unseen: it reappears at the scaled curve's start
            self.play(FadeIn(labels[0]), rider.animate.set_opacity(1), run_time=beat.until("never"))
            self.play(MoveAlongPath(rider, level), rate_func=linear, run_time=beat.remaining)
