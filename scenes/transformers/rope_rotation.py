"""RopeRotation, notebook cell tf10: rotary positional encoding. RoPE turns each dimension pair of q and k by
position x frequency; the wheels of three pairs, the query spinning, q and k together, both shifted at once,
the score matrix constant along its diagonals, and one query's scores at two absolute positions."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    MathTex,
    ValueTracker,
    VGroup,
    linear,
    smooth,
)

from scenes.transformers.shared import TICK_SIZE, diagonal_line, significant, significant_rounded
from seqanim import Artifact, LectureSlide, count, integer, mark, translated
from seqanim.kit import theme
from seqanim.kit.heatmap import Heatmap, colour_for
from seqanim.kit.layout import conflicts
from seqanim.kit.plots import Plot
from seqanim.kit.readout import Readout
from seqanim.kit.rotation import PhasorCircle

# --- the words ----------------------------------------------------------------------------------------


# The speed words of the wheels' titles, by how many distinct speeds the drawn pairs have (fastest first).
SPEEDS = {1: ("drawn",), 2: ("fast", "slow"), 3: ("fast", "medium", "slow"), 4: ("fast", "medium", "slow", "slowest")}


@dataclass(frozen=True)
class Rotary:
    """The facts of the rotary example every beat's words say, read once from the run."""

    pairs: tuple[int, ...]  # the dimension pairs drawn, in the lecturer's order
    speeds: tuple[str, ...]  # each drawn pair's speed word (`SPEEDS`), ranked by its frequency
    fastest: int  # the drawn pair that turns fastest
    fastest_wheel: int  # its place among the drawn pairs (`pairs`), where its wheel is drawn
    slowest: int  # and slowest (the same pair when only one speed is drawn)
    step: float  # the angle the fastest turns per position, in radians
    far_less: bool  # the slowest drawn pair turns under a tenth as fast: an order of magnitude less
    last: int  # the last position the query spins to
    turns: tuple[float, ...]  # the turns each pair drawn makes by then
    fastest_turns: float  # the turns of the fastest pair by then
    slowest_turns: float  # and of the slowest
    offset: int  # the key's position when the query is at zero
    shift: int  # how far both are shifted together
    score: float  # the score of query and key `offset` apart, however far shifted
    diagonal_score: float  # the score matrix along that diagonal


def rotary_facts(run: Artifact) -> Rotary:
    """What the rotary example shows: the pairs' speeds, the query's spin, and the score that depends only on the
    offset."""
    pairs, offset = tuple(int(pair) for pair in run["pairs"]), int(run.params["offset"])
    freqs = [float(run["freqs"][pair]) for pair in pairs]
    turns = tuple(float(turns) for turns in run["pair_angles"][:, -1] / (2 * np.pi))
    fastest, slowest = int(np.argmax(freqs)), int(np.argmin(freqs))
    distinct = sorted(set(freqs), reverse=True)  # a pair drawn twice has one speed
    return Rotary(
        pairs=pairs,
        speeds=tuple(SPEEDS[len(distinct)][distinct.index(freq)] for freq in freqs),
        fastest=pairs[fastest],
        fastest_wheel=fastest,
        slowest=pairs[slowest],
        step=freqs[fastest],
        far_less=freqs[slowest] < freqs[fastest] / 10,
        last=int(run["positions"][-1]),
        turns=turns,
        fastest_turns=turns[fastest],
        slowest_turns=turns[slowest],
        offset=offset,
        shift=int(run.params["shift"]),
        score=float(run["sweep_scores"][0]),
        diagonal_score=float(run["scores"][0, offset]),
    )


def _turns_heard(turns: float, only: bool) -> str:
    """How far a pair turns, as heard: 'makes two point eight turns', 'turns only zero point four of a turn'; the
    case is read from the number as said."""
    rounded, fewer = significant_rounded(turns).value, "only " if only else ""
    if rounded < 1:
        return f"turns {fewer}{significant(turns)} of a turn"
    if rounded == 1:
        return f"makes {fewer}one turn"
    return f"makes {fewer}{significant(turns)} turns"


def circles_notes(run: Artifact) -> str:
    freqs = run["freqs"]
    second = min(1, len(freqs) - 1)  # pair 0 always turns 1 rad per position; quote the next one
    speeds = f"pair i turns by {freqs[second]:.4f} rad per position for i = {second}"
    if second < len(freqs) - 1:
        speeds += f" and only {freqs[-1]:.6f} for i = {len(freqs) - 1}"
    return (
        "Instead of adding a position vector, "
        "RoPE rotates each pair of dimensions of q and k by position x frequency. "
        f"With d = {len(run['query'])}, {speeds}: low pairs spin fast, high pairs slowly."
    )


@translated
def circles_said(run: Artifact) -> dict[str, str]:
    facts = rotary_facts(run)
    radians = "radian" if significant_rounded(facts.step).value == 1 else "radians"
    less = "far less" if facts.far_less else "less"
    each = "each " if len(facts.pairs) > 1 else ""
    return {
        "clock": (
            f"Rotary encoding marks position another way: it turns {mark('pairs')}pairs of dimensions, "
            "like clock hands."
        ),
        "arrows": (
            f"{count(len(facts.pairs), 'pair').capitalize()} of the query's dimensions, {mark('arrow')}{each}an arrow, "
            f"{mark('zero')}at position zero."
        ),
        "legend": (
            f"Each position step turns a pair by its own angle: {mark('fastest')}{significant(facts.step)} "
            f"{radians} for pair {integer(facts.fastest)}, {mark('higher')}{less} for higher pairs."
        ),
    }


def spin_notes(run: Artifact) -> str:
    facts = rotary_facts(run)
    described = ", ".join(f"pair {p}: {t:.2f} turns" for p, t in zip(facts.pairs, facts.turns))
    return (
        f"Move the query from position 0 to {facts.last}. Each pair turns by m x omega: {described}. "
        "The dots mark the integer positions."
    )


@translated
def spin_said(run: Artifact) -> str:
    facts = rotary_facts(run)
    spin = (
        f"As the query moves from position zero to {integer(facts.last)}, pair {integer(facts.fastest)} "
        f"{_turns_heard(facts.fastest_turns, only=False)}"
    )
    if facts.slowest == facts.fastest:  # one speed drawn: no slower pair to compare
        return spin + "."
    return spin + f", while pair {integer(facts.slowest)} {_turns_heard(facts.slowest_turns, only=True)}."


def both_positions_notes(run: Artifact) -> str:
    facts = rotary_facts(run)
    return (
        f"Now the key too: q at position m = 0, k at n = {facts.offset}. "
        f"The score is <R_m q, R_n k> = {facts.score:.4f}; "
        "each pair adds |q_i||k_i| cos(angle between them)."
    )


@translated
def both_positions_said(run: Artifact) -> dict[str, str]:
    facts = rotary_facts(run)
    return {
        "back_to_zero": "The query goes back to position zero.",
        "key_joins": (
            f"A key joins it at position {integer(facts.offset)}. {mark('arc')}Each arc shows the angle between query "
            "and key in one pair."
        ),
        "score": (
            f"The score adds up, pair by pair, the two lengths times the cosine of that angle; "
            f"{mark('here')}here it is {significant(facts.score)}."
        ),
    }


def shift_both_notes(run: Artifact) -> str:
    facts = rotary_facts(run)
    return (
        f"Shift both positions by the same amount, 0 to {facts.shift}: "
        "every arrow turns, but q and k in a pair turn together, so the angle between them stays. "
        f"The score stays {facts.score:.4f}: over the sweep it moves by at most "
        f"{run.metrics['sweep_max_deviation']:.1e}."
    )


@translated
def shift_both_said(run: Artifact) -> dict[str, str]:
    facts = rotary_facts(run)
    return {
        "shifting": (
            f"Now shift both positions together, by up to {integer(facts.shift)}: every arrow turns, but query and "
            "key turn as one."
        ),
        "steady": f"The angles never change, so the score stays at {significant(facts.score)}.",
    }


def score_matrix_notes(run: Artifact) -> str:
    facts = rotary_facts(run)
    return (
        "All query positions m against all key positions n: "
        "the score matrix is constant along each diagonal "
        f"(largest spread {run.metrics['diagonal_max_deviation']:.1e}). "
        f"The highlighted diagonal n - m = {facts.offset} holds {facts.diagonal_score:.4f} everywhere."
    )


@translated
def score_matrix_said(run: Artifact) -> dict[str, str]:
    facts = rotary_facts(run)
    return {
        "every_pair": (
            f"Here is the score of every {mark('query')}query position against every {mark('key')}key position."
        ),
        "constant": (
            f"Each diagonal is constant: {mark('with')}with the key "
            f"{count(facts.offset, 'position')} after the query, {mark('always')}the score is always "
            f"{significant(facts.diagonal_score)}."
        ),
    }


def relative_rows_notes(run: Artifact) -> str:
    offsets, row_at_0 = run["offsets"], run["row_at_0"]
    return (
        "The same q and k placed at different absolute positions: "
        f"the query at 0 and at {rotary_facts(run).shift}, scored against keys at offsets 0 to {offsets[-1]}. "
        f"The two curves coincide (largest difference {run.metrics['row_max_difference']:.1e}); "
        f"e.g. offset 0 gives {row_at_0[0]:.4f} both times. RoPE scores depend only on the relative offset."
    )


@translated
def relative_rows_said(run: Artifact) -> dict[str, str]:
    return {
        "at_zero": f"This curve scores a query at position zero {mark('keys')}against keys further and further ahead.",
        "at_shift": (
            f"Move the query to position {integer(rotary_facts(run).shift)} and {mark('dashed')}its dashed curve lies "
            f"exactly on top: {mark('relative')}rotary scores depend only on the relative offset."
        ),
    }


# --- the scene ----------------------------------------------------------------------------------------


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
        self.next_slide(notes=circles_notes(run))
        said = circles_said(run)
        self.query_position = ValueTracker(0.0)
        self.key_position = ValueTracker(0.0)
        facts = rotary_facts(run)
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
                    theme.text(f"pair {pair} ({facts.speeds[index]})", theme.LABEL_SIZE),
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
        with self.beat(said["clock"]) as beat:
            rings = [Create(wheel.ring) for wheel in self.wheels]
            self.header = self.title("Rotary positional encoding (RoPE)", along=rings, run_time=beat.until("pairs"))
            self.play(LaggedStart(*[FadeIn(title, shift=0.1 * DOWN) for title in titles], lag_ratio=0.3),
                      run_time=beat.remaining)  # fmt: skip
        with self.beat(said["arrows"]) as beat:
            self.play(Indicate(VGroup(*[title[0] for title in titles]), color=theme.query_colour()),
                      run_time=beat.until("arrow"))  # fmt: skip
            self.play(LaggedStart(*[FadeIn(arrow) for arrow in self.query_arrows], lag_ratio=0.3),
                      run_time=beat.until("zero"))  # fmt: skip
            self.play(FadeIn(position_text), run_time=beat.remaining)
        q_legend.to_edge(DOWN, buff=0.3)
        # One position step, 0 to 1: each arrow turns by its own frequency, then the frequencies are read, the
        # fastest first (wherever the lecturer drew it), then the others.
        fastest = facts.fastest_wheel
        omegas = [title[1] for title in titles]
        others = [Indicate(omega, color=theme.highlight()) for index, omega in enumerate(omegas) if index != fastest]
        with self.beat(said["legend"]) as beat:
            self.play(self.query_position.animate.set_value(1.0), FadeIn(q_legend), run_time=beat.until("fastest"))
            self.play(Indicate(omegas[fastest], color=theme.highlight()), run_time=beat.until("higher"))
            if others:  # one pair drawn: the beat holds its picture to the end of the words
                self.play(LaggedStart(*others, lag_ratio=0.3), run_time=beat.remaining)
        self.q_legend = q_legend

    def spin(self) -> None:
        last = float(self.run["positions"][-1])
        self.next_slide(notes=spin_notes(self.run))
        said = spin_said(self.run)
        self.backdrop(self.header, self.wheel_titles, *[wheel.ring for wheel in self.wheels], self.q_legend)
        with self.beat(said) as beat:  # on from the step just taken, at the pace of the words
            self.play(self.query_position.animate.set_value(last), run_time=beat.remaining, rate_func=linear)

    def both_positions(self) -> None:
        run = self.run
        offset = int(run.params["offset"])
        self.next_slide(notes=both_positions_notes(run))
        said = both_positions_said(run)
        for trail in self.trails:
            trail.clear_updaters()
        with self.beat(said["back_to_zero"]) as beat:
            self.play(FadeOut(self.trails), self.query_position.animate.set_value(0.0), run_time=beat.remaining)
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
        with self.beat(said["key_joins"]) as beat:
            self.play(
                self.position_text.animate.move_to(targets[0]),
                *[FadeIn(arrow) for arrow in key_arrows],
                FadeIn(key_text),
                FadeOut(self.q_legend),
                FadeIn(legend[:2]),
                run_time=beat.until("arc"),
            )
            self.play(*[Create(arc) for arc in self.angle_arcs], FadeIn(legend[2]), run_time=beat.remaining)
        # Pair by pair: each wheel's share of the score (its lengths and its angle), then the sum.
        with self.beat(said["score"]) as beat:
            self.play(LaggedStart(*[Indicate(wheel.ring, color=theme.highlight(), scale_factor=1.05)
                                    for wheel in self.wheels], lag_ratio=0.5), run_time=beat.until("here"))  # fmt: skip
            self.play(FadeIn(score_text, shift=0.1 * UP), run_time=beat.remaining)
        self.key_arrows, self.readouts, self.legend = key_arrows, readouts, legend

    def shift_both(self) -> None:
        run = self.run
        shift, offset = int(run.params["shift"]), int(run.params["offset"])
        shifts, scores = run["sweep_shift"], run["sweep_scores"]
        self.next_slide(loop=True, notes=shift_both_notes(run))
        said = shift_both_said(run)
        shared = ValueTracker(0.0)
        self.backdrop(self.header, self.wheel_titles, *[wheel.ring for wheel in self.wheels], self.legend)
        self.query_position.add_updater(lambda t: t.set_value(shared.get_value()))
        self.key_position.add_updater(lambda t: t.set_value(shared.get_value() + offset))
        self.score_number.add_updater(lambda n: n.set_value(float(np.interp(shared.get_value(), shifts, scores))))
        self.add(self.query_position, self.key_position)
        with self.beat(said["shifting"]) as beat:
            self.play(shared.animate.set_value(float(shift)), run_time=beat.remaining, rate_func=smooth)
        with self.beat(said["steady"]) as beat:  # back to the start, the loop's first frame, the score steady all along
            self.play(shared.animate.set_value(0.0), run_time=beat.remaining, rate_func=smooth)
        # Freeze every readout: a live one that re-renders (say 0.0 as -0.0) changes its glyph count mid-fade.
        for mobject in (self.query_position, self.key_position, self.score_number, *self.readout_numbers):
            mobject.clear_updaters()

    def score_matrix(self) -> None:
        scores, offset = self.run["scores"], int(self.run.params["offset"])
        self.next_slide(notes=score_matrix_notes(self.run))
        said = score_matrix_said(self.run)
        size = scores.shape[0]
        # 4.32 units square whatever rope.length is (32 positions: cells of 0.135), a position number every 8 of 32.
        every = 8 * max(1, size // 32)
        ticks = [str(p) if p % every == 0 else "" for p in range(size)]
        self.matrix = Heatmap(
            scores,
            row_labels=ticks,
            col_labels=ticks,
            row_title="query position $m$",
            col_title="key position $n$",
            cell_size=0.135 * 32 / size,
            cell_stroke=0.0,
            fmt="{:.1f}",
            dense=True,
            # Signed scores on the signed ramp, zero at its neutral middle (as PE's values are drawn).
            vmin=-float(np.abs(scores).max()),
            vmax=float(np.abs(scores).max()),
            colormap=theme.diverging_colormap(),
        )
        self.matrix.to_edge(LEFT, buff=0.45).shift(0.4 * DOWN)
        line = diagonal_line(self.matrix, offset, theme.highlight())
        tag = theme.label(f"$n - m = {offset}$", theme.LABEL_SIZE, theme.highlight()).next_to(
            self.matrix.cell(0, offset), UP, buff=0.12
        )
        if conflicts(tag, [*self.matrix.row_labels, self.matrix.row_title]):  # small cells: over the row labels
            tag.align_to(self.matrix.cells, LEFT)
        value = theme.label(f"every cell $= {scores[0, offset]:.4f}$", theme.LABEL_SIZE, theme.highlight())
        value.next_to(tag, RIGHT, buff=0.3)
        with self.beat(said["every_pair"]) as beat:
            self.play(
                FadeOut(self.wheels),
                FadeOut(self.wheel_titles),
                FadeOut(self.readouts),
                FadeOut(self.legend),
                run_time=0.4,
            )
            for arrow in [*self.query_arrows, *self.key_arrows, *self.angle_arcs]:
                arrow.clear_updaters()
            self.play(FadeIn(self.matrix), run_time=beat.until("query"))
            self.play(Indicate(self.matrix.row_title, color=theme.query_colour()), run_time=beat.until("key"))
            self.play(Indicate(self.matrix.col_title, color=theme.key_colour()), run_time=beat.remaining)
        with self.beat(said["constant"]) as beat:  # the diagonal traced as it is named, its offset, then its value
            self.play(Create(line), rate_func=linear, run_time=beat.until("with"))
            self.play(FadeIn(tag, shift=0.1 * DOWN), run_time=beat.until("always"))
            self.play(FadeIn(value, shift=0.1 * LEFT), run_time=beat.remaining)

    def relative_rows(self) -> None:
        run = self.run
        offsets, row_at_0, row_at_shift = run["offsets"], run["row_at_0"], run["row_at_shift"]
        shift = int(run.params["shift"])
        self.next_slide(notes=relative_rows_notes(run))
        said = relative_rows_said(run)
        low, high = np.floor(min(row_at_0.min(), row_at_shift.min())), np.ceil(max(row_at_0.max(), row_at_shift.max()))
        plot = Plot(
            (0, offsets[-1], 4 * math.ceil(offsets[-1] / 32)),  # at most 8 numbers on the offset axis
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
        with self.beat(said["at_zero"]) as beat:
            self.play(Create(plot), FadeIn(legend[0]), run_time=beat.until("keys"))
            self.play(Create(first), rate_func=linear, run_time=beat.remaining)  # offset by offset, as said
        with self.beat(said["at_shift"]) as beat:
            self.play(FadeIn(legend[1]), run_time=beat.until("dashed"))
            self.play(Create(second), rate_func=linear, run_time=beat.until("relative"))
            self.play(Indicate(plot.x_label, color=theme.highlight()), run_time=beat.remaining)
