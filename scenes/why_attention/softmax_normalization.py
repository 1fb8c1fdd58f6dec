"""SoftmaxNormalization (seed 003, cells 11-13): the score bars go through subtract-the-max, exponentiate and
divide-by-the-sum, the formula of each step beside them: a row of weights that sums to 1, with no key at 0."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    DecimalNumber,
    FadeIn,
    Indicate,
    MathTex,
    SurroundingRectangle,
    Text,
    VGroup,
    config,
)

from scenes.why_attention.shared import CAPTION_SIZE, WhyAttentionSlide, fmt_row, key_labels
from seqanim import Artifact, Beat, listing, mark, number, translated
from seqanim.kit import theme
from seqanim.kit.bars import Bars
from seqanim.kit.motion import roll

# --- the words -----------------------------------------------------------------------------------------


def _spoken(value: float) -> str:
    return number(float(value), 2)


@dataclass(frozen=True)
class Group:
    """Keys whose values are the same as said (to two places): that rounded value, and the keys by index and name."""

    value: float
    keys: tuple[int, ...]
    names: tuple[str, ...]


def by_value(labels: list[str], values: np.ndarray) -> list[Group]:
    """The values as said, each with the keys that have it, largest first: [Group(0.4, (0, 2), ("A", "C")), ...]."""
    groups: dict[float, list[int]] = {}
    for index in np.argsort(-values, kind="stable"):
        groups.setdefault(round(float(values[index]), 2) + 0.0, []).append(int(index))
    return [Group(value, tuple(keys), tuple(labels[key] for key in keys)) for value, keys in groups.items()]


@dataclass(frozen=True)
class Extreme:
    """The highest or the lowest score of the row: its value, the keys that have it (the first when lowest) by
    index and by name, and the weight softmax gives the first of them."""

    score: float
    keys: tuple[int, ...]
    names: tuple[str, ...]
    weight: float

    @property
    def weight_too_small_to_say(self) -> bool:
        """Positive, but zero when said to two places (a query far from this key: query = [20, 0])."""
        return round(self.weight, 2) == 0

    @property
    def shown_weight(self) -> str:
        """The weight to four places, or to two significant digits where four places would print 0.0000."""
        return f"{self.weight:.4f}" if round(self.weight, 4) != 0 else f"{self.weight:.1e}"


def highest(art: Artifact) -> Extreme:
    labels, scores, weights = key_labels(art), art["scores"][0], art["weights"][0]
    keys = tuple(i for i in range(len(scores)) if np.isclose(scores[i], scores.max()))
    return Extreme(float(scores.max()), keys, tuple(labels[i] for i in keys), float(weights[keys[0]]))


def lowest(art: Artifact) -> Extreme:
    labels, scores, weights = key_labels(art), art["scores"][0], art["weights"][0]
    key = int(np.argmin(scores))
    return Extreme(float(scores[key]), (key,), (labels[key],), float(weights[key]))


def start_notes(art: Artifact) -> str:
    return (
        f"Softmax turns the score row {fmt_row(art['scores'][0])} into weights in three steps: "
        "subtract the row maximum, exponentiate, divide by the row sum. "
        "Each query row must sum to 1 over the available keys."
    )


@translated
def start_said(art: Artifact) -> dict[str, str]:
    top = highest(art)
    return {
        "steps": "Softmax turns scores into weights, in three steps.",
        "bars": f"The bars are the scores; {mark('highest')}the highest, {_spoken(top.score)}, "
        f"belongs to {listing(list(top.names))}.",
    }


def shift_notes(art: Artifact) -> str:
    shifted = art["shifted"][0]
    return (
        f"Step 1, subtract the row maximum {highest(art).score:.4f}: the row becomes {fmt_row(shifted)}. "
        "Subtracting a shared constant changes no probability: "
        f"softmax of either row is {fmt_row(art['weights_from_shifted'][0])}. It only keeps exp from overflowing."
    )


@translated
def shift_said(art: Artifact) -> dict[str, str]:
    moves = [
        f"{mark(f'group {index}')}{listing(list(group.names))} to {_spoken(group.value)}"
        for index, group in enumerate(by_value(key_labels(art), art["shifted"][0]))
    ]
    return {
        "subtract": f"Step one: {mark('step')}subtract the largest score from every score.",
        "bars": f"The bars move down: {listing(moves)}.",
        "same": f"Shifting every score alike changes no weight; {mark('small')}it only keeps the exponentials small.",
    }


def exponentiate_notes(art: Artifact) -> str:
    exp, exp_sum = art["exp"][0], float(art["exp_sum"][0])
    return f"Step 2, exponentiate: {fmt_row(exp)}. Every entry is now positive; the row sum is {exp_sum:.4f}."


@translated
def exponentiate_said(art: Artifact) -> dict[str, str]:
    return {
        "step": f"Step two: {mark('step')}raise e to the power of each shifted score.",
        "bars": f"Every bar is now positive, and {mark('sum')}together they add up to {_spoken(art['exp_sum'][0])}.",
    }


def divide_notes(art: Artifact) -> str:
    weights, least = art["weights"][0], lowest(art)
    return (
        f"Step 3, divide by the sum {float(art['exp_sum'][0]):.4f}. "
        f"Checkpoint: the weights are approximately {fmt_row(weights)}, sum {weights.sum():.4f}. "
        f"{least.names[0]} still has positive weight {least.shown_weight} even though its score is "
        f"{least.score:.4f}, the lowest: softmax never gives exactly zero to an allowed key."
    )


@translated
def divide_said(art: Artifact) -> dict[str, str]:
    weights, least = art["weights"][0], lowest(art)
    shares = [
        f"{mark(f'group {index}')}{_spoken(group.value)} on {listing(list(group.names))}"
        for index, group in enumerate(by_value(key_labels(art), weights))
    ]
    tiny = ", too small to say in two decimals" if least.weight_too_small_to_say else ""
    return {
        "step": f"Step three: {mark('step')}divide every bar by that sum.",
        "bars": f"The weights: {listing(shares)}. {mark('sum')}Together they make {_spoken(weights.sum())}.",
        "never_zero": f"{least.names[0]} had the lowest score, {mark('yet')}yet keeps a positive weight{tiny}: "
        "softmax never gives exactly zero.",
    }


# --- the scene -------------------------------------------------------------------------------------------

# Room for the bars, in scene units: above the baseline for a weight of 1, below it for the shifted row.
ABOVE, BELOW = 2.6, 1.85
# Across the frame: the bars from the left edge, the formulas to the right edge, at least GAP between them.
EDGE, GAP = 0.6, 0.25
# A key's slot in the bar chart at the lecture's values (a bar of 0.95, 0.55 to the next), narrower where the
# formulas leave less room; READOUT_GAP keeps a bar's number apart from the next one's (`readout_room`).
SLOT, READOUT_GAP = 1.5, 0.1


def score_unit(scores: np.ndarray, shifted: np.ndarray) -> float:
    """Scene units per score: a weight's scale (a weight of 1 fills the room above), unless the scores or the
    shifted row need a smaller one to stay on screen (a query of [3, 0] scores 2.12)."""
    below = -min(float(scores.min()), float(shifted.min()), 0.0)
    return min(ABOVE / max(float(scores.max()), 1.0), BELOW / below if below > 0 else ABOVE)


def break_after_equals(line: MathTex) -> MathTex:
    """A step's formula on two or three lines: its row under the left side, its sum (if any) under the row's end."""
    if len(line) > 1:
        line[1].next_to(line[0], DOWN, buff=0.12, aligned_edge=LEFT)
    if len(line) > 2:
        line[2].next_to(line[1], DOWN, buff=0.12, aligned_edge=RIGHT)
    return line


class SoftmaxNormalization(WhyAttentionSlide):
    """Score bars through subtract-the-max, exponentiate, divide by the sum: a row of weights that sums to 1."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.start()
        self.shift()
        self.exponentiate()
        self.divide()

    def start(self) -> None:
        art = self.art
        self.next_slide(notes=start_notes(art))
        said = start_said(art)
        heading = self.heading("Softmax: scores become weights")
        self.steps = self.step_lines()  # made first: what they leave across the frame is the bars' width
        self.bars = self.score_bars(self.slot_beside(self.steps))
        self.bars_caption = theme.text("scores s", theme.LABEL_SIZE, theme.muted())
        self.bars_caption.next_to(self.bars.labels, DOWN, buff=0.2)
        with self.beat(said["steps"]) as beat:
            self.title(heading, along=[FadeIn(self.bars), FadeIn(self.bars_caption)], run_time=beat.remaining)
        with self.beat(said["bars"]) as beat:
            self.play(FadeIn(self.steps[0]), run_time=beat.until("highest"))
            self.play(*[self.indicate_key(i) for i in highest(art).keys], run_time=beat.remaining)

    def shift(self) -> None:
        art = self.art
        shifted = art["shifted"][0]
        self.next_slide(notes=shift_notes(art))
        said = shift_said(art)
        with self.beat(said["subtract"]) as beat:
            self.advance(1, "s \u2212 max s", beat)
        with self.beat(said["bars"]) as beat:
            self.play(self.bars.morph(shifted), run_time=beat.until("group 0"))
            self.indicate_groups(shifted, beat)
        with self.beat(said["same"]) as beat:
            self.play(FadeIn(self.steps[2], shift=0.2 * UP), run_time=beat.until("small"))
            # every shifted score is at most zero: its exponential is at most one
            self.play(Indicate(self.steps[1][1], color=theme.highlight(), scale_factor=1.05), run_time=beat.remaining)

    def exponentiate(self) -> None:
        art = self.art
        self.next_slide(notes=exponentiate_notes(art))
        said = exponentiate_said(art)
        with self.beat(said["step"]) as beat:
            self.advance(3, "exp(s \u2212 max s)", beat)
        with self.beat(said["bars"]) as beat:  # exponentials lie in (0, 1]: back to the weights' scale
            self.play(self.bars.morph(art["exp"][0], unit=ABOVE), run_time=beat.until("sum"))
            self.play(Indicate(self.steps[3][2], color=theme.highlight(), scale_factor=1.1), run_time=beat.remaining)

    def divide(self) -> None:
        art = self.art
        weights, least = art["weights"][0], lowest(art)  # the lowest-scoring key still keeps some weight
        self.next_slide(notes=divide_notes(art))
        said = divide_said(art)
        with self.beat(said["step"]) as beat:
            self.advance(4, "weights w", beat)
        with self.beat(said["bars"]) as beat:
            self.play(self.bars.morph(weights), run_time=beat.until("group 0"))
            self.indicate_groups(weights, beat, until="sum")
            self.play(Indicate(self.steps[4][2], color=theme.highlight(), scale_factor=1.1), run_time=beat.remaining)
        bars = self.bars
        key = least.keys[0]
        box = SurroundingRectangle(
            VGroup(bars.bars[key], bars.readouts[key], bars.labels[key]), buff=0.1, color=theme.highlight()
        )
        with self.beat(said["never_zero"]) as beat:
            self.play(Create(box), run_time=beat.until("yet"))
            self.say(self.lowest_caption(least), colour=theme.caption_colour(), size=CAPTION_SIZE,
                     run_time=beat.remaining)  # fmt: skip

    def lowest_caption(self, least: Extreme) -> str:
        return f"{least.names[0]}: score {least.score:.4f}, yet weight {least.shown_weight} > 0"

    # --- drawing ---------------------------------------------------------------------------------------

    def score_bars(self, slot: float) -> Bars:
        """The score row as bars, `slot` wide a key, on a scale that fits the scores and the shifted row
        (`score_unit`), left of the step formulas and clear of them. Their numbers with four decimals at the
        label size, or where a slot narrowed for more keys would not hold them, at the small size with as many
        decimals (four to two) as it holds."""
        scores, shifted = self.art["scores"][0], self.art["shifted"][0]
        label, small = theme.tex_size(theme.LABEL_SIZE), theme.tex_size(theme.SMALL_SIZE)
        fits = [
            (size, places)
            for size, places in ((label, 4), (small, 4), (small, 3))
            if slot >= self.readout_room(size, places)
        ]
        size, decimals = (fits or [(small, 2)])[0]
        share = slot / SLOT
        bars = Bars(
            scores,
            self.labels,
            max_value=ABOVE / score_unit(scores, shifted),
            height=ABOVE,
            colours=self.colours,
            min_value=float(min(shifted.min(), 0.0)),
            bar_width=0.95 * share,
            spacing=0.55 * share,
            value_size=size,
            decimals=decimals,
        )
        bars.to_edge(LEFT, buff=EDGE)
        bars.shift((-0.1 - bars.baseline.get_y()) * UP)  # room above for bars of 1, below for the shifted row
        return bars

    def step_lines(self) -> VGroup:
        """The formula of each step, at the right edge: on one line each, or broken after the "=" where on one
        line they would leave the bars less than their default slot a key."""
        art = self.art
        scores, shifted, exp, weights = art["scores"][0], art["shifted"][0], art["exp"][0], art["weights"][0]
        exp_sum = float(art["exp_sum"][0])

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
        broken = self.slot_beside(lines) < SLOT  # more keys: on one line the formulas would narrow the bars
        if broken:
            for line in lines:
                break_after_equals(line)
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.3 if broken else 0.42)  # twice the lines in the same height
        lines[2].shift(0.2 * UP + 0.3 * RIGHT)
        return lines.to_edge(RIGHT, buff=EDGE).shift(0.2 * DOWN)

    def slot_beside(self, steps: VGroup) -> float:
        """A key's slot in the bar chart left of `steps`: the default's, or the room the formulas leave."""
        room = config.frame_width - 2 * EDGE - GAP - steps.width
        return min(SLOT, room / len(self.labels))

    def readout_room(self, size: float, decimals: int) -> float:
        """The width a bar's number needs at `size` with `decimals`: the widest of the four rows the bars show, and
        a gap."""
        art = self.art
        rows = (art["scores"][0], art["shifted"][0], art["exp"][0], art["weights"][0])
        widest = max(
            DecimalNumber(value, num_decimal_places=decimals, font_size=size).width for row in rows for value in row
        )
        return widest + READOUT_GAP

    def advance(self, index: int, caption: str, beat: Beat) -> None:
        """Dim the steps done, reveal the next one and retitle the bars as the step is named; then point at its
        formula while the words say what it does."""
        steps = self.steps
        done = [steps[i] for i in range(index) if i != 2]
        new_caption: Text = theme.text(caption, theme.LABEL_SIZE, theme.muted()).move_to(self.bars_caption)
        self.play(
            *[line.animate.set_opacity(0.45) for line in done],
            FadeIn(steps[index], shift=0.2 * UP),
            roll(self.bars_caption, new_caption),
            run_time=beat.until("step"),
        )
        formula = steps[index][1] if len(steps[index]) > 1 else steps[index]
        self.play(Indicate(formula, color=theme.highlight(), scale_factor=1.05), run_time=beat.remaining)
        self.bars_caption = new_caption

    def indicate_key(self, index: int) -> Indicate:
        return Indicate(VGroup(self.bars.bars[index], self.bars.readouts[index]), color=theme.highlight())

    def indicate_groups(self, values: np.ndarray, beat: Beat, until: str | None = None) -> None:
        """The keys that share a value lit together as the words name them, group after group (`by_value`)."""
        groups = by_value(self.labels, values)
        for index, group in enumerate(groups):
            following = f"group {index + 1}" if index + 1 < len(groups) else until
            self.play(*[self.indicate_key(i) for i in group.keys],
                      run_time=beat.until(following) if following else beat.remaining)  # fmt: skip
