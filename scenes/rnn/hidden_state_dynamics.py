"""HiddenStateDynamics (notebook cell rnn2): a linear RNN h_t = W h_(t-1) with W = rho Q iterated from a unit
state. Its length ||h_t|| = rho^t on a log plot, the ring of W's eigenvalues and the state h_t as an arrow on
log rings: the spectral radius decides whether the signal forgets, holds or explodes."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    DR,
    LEFT,
    RIGHT,
    UL,
    UP,
    UR,
    AnimationGroup,
    Arrow,
    Circle,
    Circumscribe,
    Create,
    DashedVMobject,
    DecimalNumber,
    Dot,
    DoubleArrow,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromCenter,
    Indicate,
    Integer,
    ManimColor,
    MathTex,
    ShowPassingFlash,
    UpdateFromFunc,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
    linear,
    smooth,
    squish_rate_func,
)

from scenes.rnn.shared import change, regime, rho_colour
from seqanim import Beat, LectureSlide, spoken, translated
from seqanim.kit import layout, theme
from seqanim.kit.formula import maths
from seqanim.kit.plots import Plot, decade_range
from seqanim.kit.vectors import VectorDiagram

# --- the words: notes for the lecturer, narration for the listener (one string per beat) --------------------

REGIMES = ("forgetting", "stable memory", "exploding")
WHERE = {"forgetting": "inside", "stable memory": "on", "exploding": "outside"}
OUTCOME = {"forgetting": "The network forgets.", "stable memory": "The memory holds.", "exploding": "It explodes."}


def regimes(rhos: np.ndarray) -> list[tuple[str, list[int]]]:
    """The regimes the spectral radii fall in, in order (forgetting, stable, exploding), each with its rhos."""
    groups = [(name, [i for i, rho in enumerate(rhos) if regime(float(rho)) == name]) for name in REGIMES]
    return [(name, indices) for name, indices in groups if indices]


@dataclass(frozen=True)
class Radius:
    """One spectral radius's run: rho, the state's final length, and the ratio of its end to its start."""

    rho: float
    final: float
    ratio: float


def radius_runs(rhos: np.ndarray, norms: np.ndarray, indices: list[int]) -> list[Radius]:
    """The runs of the spectral radii `indices`: what the notes, the narration and the German quote."""
    return [Radius(float(rhos[i]), float(norms[i, -1]), float(norms[i, -1] / norms[i, 0])) for i in indices]


def stage_notes(rhos: np.ndarray, steps: int, size: int) -> str:
    return (
        "A linear RNN h_t = W h_(t-1) is just a dynamical system. "
        f"Take W = rho Q with Q a random orthogonal {size}x{size} matrix: "
        "every eigenvalue of W has modulus rho, and ||h_t|| = rho^t. "
        f"We iterate {steps} steps from a unit-norm h_0 for rho in {', '.join(f'{r:.2f}' for r in rhos)}."
    )


@translated
def stage_said(steps: int, size: int) -> dict[str, str]:
    """While the recurrence is written, then its matrix; while the plot of the state's length is drawn and its
    log scale named; while the eigenvalues appear, their circle, then the state and its arrow."""
    return {
        "written": (
            "A linear recurrent network multiplies its state by the same matrix at every step: "
            f"{spoken.mark('matrix')}a rotation, scaled by rho."
        ),
        "plotted": (
            f"On the left, the length of the state over {spoken.integer(steps)} steps, "
            f"{spoken.mark('log')}on a log scale."
        ),
        "diagrams": (
            f"In the middle, the matrix's {spoken.integer(size)} eigenvalues, {spoken.mark('circle')}all on a circle "
            f"of radius rho; {spoken.mark('right')}on the right, the state {spoken.mark('arrow')}as an arrow."
        ),
    }


def regime_notes(name: str, rhos: np.ndarray, norms: np.ndarray, indices: list[int]) -> str:
    steps = norms.shape[1] - 1
    finals = "; ".join(
        f"rho = {run.rho:.2f}: ||h_{steps}|| = {run.final:.3g}" for run in radius_runs(rhos, norms, indices)
    )
    return f"{name.capitalize()}: eigenvalues {WHERE[name]} the unit circle. {finals}."


@translated
def regime_said(name: str, rhos: np.ndarray, norms: np.ndarray, indices: list[int]) -> list[str]:
    """One beat per spectral radius of the regime: while rho is set (and, on the regime's first, while its
    eigenvalues are compared with the unit circle), while the state's length is traced ('trace'), while the
    regime's word is marked ('outcome', on its last)."""
    steps = norms.shape[1] - 1
    said = []
    for place, run in enumerate(radius_runs(rhos, norms, indices)):
        rho, grown = spoken.number(run.rho, 2), change(run.ratio)
        if place == 0:
            said.append(
                f"With rho at {rho}, {spoken.mark('ring')}every eigenvalue lies {WHERE[name]} the unit circle, "
                f"and {spoken.mark('trace')}after {spoken.integer(steps)} steps the state {grown}."
            )
        else:
            said.append(f"At rho {rho}, {spoken.mark('trace')}the state {grown}.")
    said[-1] += f" {spoken.mark('outcome')}{OUTCOME[name]}"
    return said


@dataclass(frozen=True)
class Sweep:
    """Where the sweep runs against the unit circle: the regimes of its smallest and largest rho (the ring
    passes through the circle only from inside to outside), and whether any rho lies inside or outside it."""

    start: str
    end: str
    inside: bool
    outside: bool


def sweep_facts(rhos: np.ndarray) -> Sweep:
    """The sweep's facts: what the notes, the narration and the German quote."""
    names = {regime(float(rho)) for rho in rhos}
    start, end = regime(float(rhos.min())), regime(float(rhos.max()))
    return Sweep(start, end, "forgetting" in names, "exploding" in names)


# What the ring of eigenvalues does as rho grows, by the regimes of the sweep's start and end.
PASSAGE = {
    ("forgetting", "exploding"): "grows through the unit circle",
    ("forgetting", "stable memory"): "grows up to the unit circle",
    ("forgetting", "forgetting"): "grows but stays inside the unit circle",
    ("stable memory", "exploding"): "grows out from the unit circle",
    ("stable memory", "stable memory"): "stays on the unit circle",
    ("exploding", "exploding"): "grows but stays outside the unit circle",
}


def sweep_notes(rhos: np.ndarray) -> str:
    facts = sweep_facts(rhos)
    sides = []
    if facts.inside:
        sides.append("Inside the circle the signal dies")
    if facts.outside:
        sides.append(f"{'outside' if sides else 'Outside'} it explodes")
    return (
        f"Sweep rho from {rhos.min():.2f} to {rhos.max():.2f}: "
        f"the ring of eigenvalues {PASSAGE[facts.start, facts.end].replace('grows', 'breathes', 1)}, "
        "and the curve of the nearest rho lights up." + (f" {', '.join(sides)}." if sides else "")
    )


@translated
def sweep_said(rhos: np.ndarray) -> dict[str, str]:
    """While rho grows from its smallest to its largest value; then while it shrinks back to the unit circle
    and on to its smallest ('inside')."""
    facts = sweep_facts(rhos)
    lit = "The curve of the nearest rho lights up:"
    if facts.inside and facts.outside:
        shrinking = f"{lit} outside the circle the signal explodes, {spoken.mark('inside')}inside it dies."
    elif facts.inside:
        shrinking = f"{lit} no radius here lies outside the circle; {spoken.mark('inside')}inside it, the signal dies."
    elif facts.outside:
        shrinking = (
            f"{lit} outside the circle the signal explodes; {spoken.mark('inside')}no radius here lies inside it."
        )
    else:
        shrinking = (
            f"{lit} every radius here lies on the circle, {spoken.mark('inside')}and the signal keeps its length."
        )
    return {
        "growing": (
            f"Now rho sweeps from {spoken.number(float(rhos.min()), 2)} up to {spoken.number(float(rhos.max()), 2)}, "
            f"and the ring of eigenvalues {PASSAGE[facts.start, facts.end]}."
        ),
        "shrinking": shrinking,
    }


def verdict_notes(norms: np.ndarray) -> str:
    steps, finals = norms.shape[1] - 1, norms[:, -1]
    return (
        "The spectral radius rho = max|eig(W)| decides: "
        f"after {steps} steps the norm ranges from {finals.min():.2g} to {finals.max():.3g}. "
        "Only rho = 1 keeps the signal; this is why plain RNNs forget or explode, "
        "and why gated cells were invented."
    )


def flat_curve(rhos: np.ndarray) -> int | None:
    """The curve that keeps the signal: the one of a rho of exactly one, or None when no rho is one."""
    stable = [index for index, rho in enumerate(rhos) if regime(float(rho)) == "stable memory"]
    return stable[0] if stable else None


@translated
def verdict_said(rhos: np.ndarray, norms: np.ndarray) -> dict[str, str]:
    """While rho is marked, then the eigenvalues ('largest'), then the closing claim appears ('decides'); while
    the span of the final lengths is measured, the one flat curve is traced ('only'; with no rho of one, the
    line a flat curve would follow), the last claim appears ('why')."""
    steps, decades = norms.shape[1] - 1, spoken.count(decade_span(norms), "power")
    none = "" if flat_curve(rhos) is not None else ", and no radius here is exactly one"
    return {
        "claim": (
            f"So the spectral radius, {spoken.mark('largest')}the size of the largest eigenvalue, "
            f"{spoken.mark('decides')}decides what happens to the signal."
        ),
        "why": (
            f"After {spoken.integer(steps)} steps the lengths span about {decades} of ten; "
            f"{spoken.mark('only')}only a radius of exactly one keeps the signal{none}. "
            f"{spoken.mark('why')}That is why gated cells were invented."
        ),
    }


def decade_span(norms: np.ndarray) -> int:
    """How many powers of ten the final lengths span."""
    finals = norms[:, -1]
    return round(math.log10(finals.max() / finals.min()))


# --- the scene ----------------------------------------------------------------------------------------------


class HiddenStateDynamics(LectureSlide):
    """rnn2: ||h_t|| = rho^t; the spectral radius decides whether the signal forgets, holds or explodes."""

    data = ("linear_rnn",)

    def construct(self) -> None:
        run = self.load("linear_rnn")
        self.rhos, self.norms, self.first_two = run["rhos"], run["norms"], run["first_two"]
        self.angles = run["eigen_angles"]
        self.steps = self.norms.shape[1] - 1
        # radii of 0.5 to 0.9 span 19 decades in 60 steps: a tick every 2
        self.low, self.high, self.decades = decade_range(
            float(np.floor(np.log10(self.norms.min()))), float(np.ceil(np.log10(self.norms.max())))
        )
        self.stage()
        for name, indices in regimes(self.rhos):
            self.regime(name, indices)
        self.sweep()
        self.verdict()

    # --- the slides -------------------------------------------------------------------------------------

    def stage(self) -> None:
        self.next_slide(notes=stage_notes(self.rhos, self.steps, len(self.angles)))
        said = stage_said(self.steps, len(self.angles))
        formula, eigenvalues, state = self.build_stage()
        recurrence, matrix, length = formula
        with self.beat(said["written"]) as beat:
            self.title("A linear RNN is a dynamical system", along=[Write(recurrence)], run_time=beat.until("matrix"))
            self.play(Write(matrix), run_time=beat.remaining)
        with self.beat(said["plotted"]) as beat:
            self.play(Create(self.plot), Write(length), run_time=beat.until("log"))
            self.play(Indicate(self.plot.y_label), Create(self.unit_line), run_time=beat.remaining)
        with self.beat(said["diagrams"]) as beat:
            self.play(
                Create(self.eigen), FadeIn(eigenvalues[0]), FadeIn(self.eigen_dots), run_time=beat.until("circle")
            )
            self.play(Create(eigenvalues[1]), FadeIn(eigenvalues[2], self.readout_group), run_time=beat.until("right"))
            self.play(Create(self.state), Create(state[0]), FadeIn(state[1:]), run_time=beat.until("arrow"))
            self.state_arrow.set_color(rho_colour(float(self.rhos[0])))
            self.play(GrowArrow(self.state_arrow), run_time=beat.remaining)
        self.trail = VGroup()

    def regime(self, name: str, indices: list[int]) -> None:
        self.next_slide(notes=regime_notes(name, self.rhos, self.norms, indices))
        word = self.regime_words[REGIMES.index(name)]
        for index, said in zip(indices, regime_said(name, self.rhos, self.norms, indices)):
            with self.beat(said) as beat:
                self.run_rho(index, beat, word)

    def sweep(self) -> None:
        """The loop: rho breathes from its smallest to its largest value and back."""
        self.next_slide(loop=True, notes=sweep_notes(self.rhos))
        said = sweep_said(self.rhos)
        start = float(self.rhos.min())
        self.backdrop(*self.still, *self.curve_labels)
        with self.beat(said["growing"]) as beat:
            self.play(self.set_rho(start), FadeOut(self.trail), FadeOut(self.state_arrow), run_time=0.5)
            self.spotlight = VGroup(*self.curves).add_updater(self.light_nearest)
            self.play(self.set_rho(float(self.rhos.max()), rate_func=smooth), run_time=beat.remaining)
        with self.beat(said["shrinking"]) as beat:  # outside the circle, then inside it
            self.play(self.set_rho(1.0, rate_func=smooth), run_time=beat.until("inside"))
            self.play(self.set_rho(start, rate_func=smooth), run_time=beat.remaining)
        self.spotlight.remove_updater(self.light_nearest)

    def light_nearest(self, curves: VGroup) -> None:
        """The curve of the rho nearest the one on screen is drawn bold, the others faint."""
        nearest = int(np.argmin(np.abs(self.rhos - self.rho.get_value())))
        for index, curve in enumerate(curves):
            curve.set_stroke(width=8 if index == nearest else 3, opacity=1 if index == nearest else 0.45)

    def verdict(self) -> None:
        self.next_slide(notes=verdict_notes(self.norms))
        said = verdict_said(self.rhos, self.norms)
        with self.beat(said["claim"]) as beat:
            self.play(
                *[curve.animate.set_stroke(width=4, opacity=1) for curve in self.curves],
                Circumscribe(self.readout_group[0], color=theme.highlight()),
                run_time=beat.until("largest"),
            )
            self.play(self.light_ring(), run_time=beat.until("decides"))
            self.say(
                "the spectral radius ρ = max|eig(W)| decides: < 1 forgets, > 1 explodes",
                colour=theme.caption_colour(),
                run_time=beat.remaining,
            )
        span = self.final_span()
        with self.beat(said["why"]) as beat:
            self.play(GrowFromCenter(span[0]), FadeIn(span[1]), run_time=beat.until("only"))
            self.show_the_flat_curve(beat.until("why"))
            self.say("only ρ = 1 keeps the signal: the reason for gated cells", colour=theme.caption_colour(),
                     run_time=beat.remaining)  # fmt: skip

    def final_span(self) -> VGroup:
        """A double arrow over the spread of the final lengths, just before the last step, and its decades in
        an empty corner on the left: above the curves, which all start at 1, or below them when 1 is the top
        of the axis (every radius below one)."""
        finals = self.norms[:, -1]
        low, high = (self.plot.axes.c2p(self.steps - 4, value) for value in (finals.min(), finals.max()))
        arrow = DoubleArrow(low, high, buff=0, stroke_width=3, color=theme.highlight(), tip_length=0.15)
        label = theme.text(f"{decade_span(self.norms)} powers of ten", theme.SMALL_SIZE,
                           theme.highlight())  # fmt: skip
        corner = self.plot.axes.c2p(0, 10**self.high)  # the top of the y axis, right of its numbers
        label.next_to(corner, DR, buff=0.12)
        if label.get_bottom()[1] < self.plot.axes.c2p(0, 1.0)[1]:  # it would lie on the curves' start
            label.next_to(self.plot.axes.c2p(0, 10**self.low), UR, buff=0.12)
        return VGroup(arrow, label)

    def show_the_flat_curve(self, run_time: float) -> None:
        """The other curves fade; a flash runs along the one of rho = 1. Without one, the flash runs along the
        line of length one, where such a curve would lie, and no curve is singled out."""
        flat = flat_curve(self.rhos)
        if flat is None:
            line = self.unit_line.copy().set_stroke(theme.highlight(), width=8)
            self.play(ShowPassingFlash(line, time_width=0.5), run_time=run_time)
            return
        others = [
            mobject for i, pair in enumerate(zip(self.curves, self.curve_labels)) if i != flat for mobject in pair
        ]
        flash = self.curves[flat].copy().set_stroke(theme.highlight(), width=8)
        self.play(
            *[mobject.animate.set_opacity(0.35) for mobject in others],
            ShowPassingFlash(flash, time_width=0.5),
            Indicate(self.curve_labels[flat]),
            run_time=run_time,
        )

    # --- the stage: plot of ||h_t||, eigenvalues of W, the state h_t ------------------------------------

    def build_stage(self) -> tuple[MathTex, VGroup, VGroup]:
        """The formula in its three parts; the plot and its unit line, the diagrams, the rho readout (on self);
        the eigenvalues' title, unit circle and its label; the state's rings, their labels, title and help."""
        formula = MathTex(
            r"h_t = W\,h_{t-1},",
            r"\quad W = \rho\,Q,",
            r"\quad \|h_t\| = \rho^{\,t}\,\|h_0\|",
            font_size=theme.tex_size(theme.BODY_SIZE),
            color=theme.foreground(),
        )
        formula.move_to(2.65 * UP)
        self.plot = Plot(
            (0, self.steps, 10),
            (self.low, self.high, self.decades),
            width=4.7,  # with the end labels right of it, 0.1 short of the eigenvalues' axis
            height=3.9,
            x_label="time step $t$",
            y_label=r"$\|h_t\|$ (log scale)",
            log_y=True,
            tick_size=theme.tex_size(theme.SMALL_SIZE),
        )
        self.plot.to_edge(LEFT, buff=0.4)
        self.plot.shift((-3.05 - self.plot.get_bottom()[1]) * UP)  # clear of the closing caption
        self.curves: list[VMobject] = []
        self.unit_line = self.plot.hline(1.0)

        self.rho = ValueTracker(float(self.rhos[0]))
        reach = max(1.3, 1.1 * float(self.rhos.max()))  # the largest ring inside the plane, beside the unit circle
        # Its axis begins 0.1 right of the end labels' reach ("ρ = 0.95" ran 0.09 into it with the plot 0.2 wider
        # and this 0.1 further left).
        self.eigen = VectorDiagram((-reach, reach, 0.5), (-reach, reach, 0.5), width=2.7, grid=False).move_to(
            [2.7, -0.25, 0]
        )
        unit_circle = DashedVMobject(self.eigen.circle(1.0, theme.muted()), num_dashes=40)
        self.eigen_dots = VGroup(*[Dot(radius=0.035) for _ in self.angles])
        self.place_eigenvalues(self.eigen_dots)
        eigen_title = theme.text(f"{len(self.angles)} eigenvalues of W", theme.LABEL_SIZE).next_to(
            self.eigen, UP, buff=0.15
        )
        self.eigen_title = eigen_title
        unit_label = theme.label(r"$|\lambda| = 1$", theme.SMALL_SIZE, theme.muted()).next_to(
            self.eigen, DOWN, buff=0.1
        )
        self.state = VectorDiagram((-1, 1, 0.5), (-1, 1, 0.5), width=2.7, grid=False).move_to([5.6, -0.25, 0])
        self.state.plane.background_lines.set_opacity(0)
        self.state.plane.axes.set_opacity(0.35)
        self.ring_radius = self.state.to_point((1, 0))[0] - self.state.to_point((0, 0))[0]
        rings, ring_labels = self.log_rings()
        self.ring_labels = ring_labels
        state_title = theme.label("state $h_t$", theme.LABEL_SIZE).next_to(self.state, UP, buff=0.15)
        state_help = theme.label(r"$\|h_t\|$ on log rings", theme.SMALL_SIZE, theme.muted()).next_to(
            self.state, DOWN, buff=0.1
        )
        self.state_arrow = Arrow(
            self.state.to_point((0, 0)), self.tip(0, 0), buff=0, stroke_width=5, max_tip_length_to_length_ratio=0.25
        )
        self.clock = ValueTracker(0.0)
        self.readout_group = self.readout()
        # Still from here on: drawn once per animation, under the curves, dots and readouts that move.
        self.still = [
            formula,
            self.plot,
            self.unit_line,
            self.eigen,
            unit_circle,
            eigen_title,
            unit_label,
            self.state,
            rings,
            ring_labels,
            state_title,
            state_help,
        ]
        self.curve_labels: list[VMobject] = []  # the end labels of the runs so far
        self.end_labels = self.place_end_labels()
        return (
            formula,
            VGroup(eigen_title, unit_circle, unit_label),
            VGroup(rings, ring_labels, state_title, state_help),
        )

    def place_end_labels(self) -> list[VMobject]:
        """'ρ = 0.95' beside the end of each radius's curve, in its colour. Ends closer than a label's height
        (radii near one, on an axis of many decades) have their labels moved apart; those that would lie on the
        eigenvalues' title beside the plot, and those below them, go under the title in their order (inside the
        plot, beside an end, other curves ran through a label)."""
        labels, ends = [], [self.plot.axes.c2p(self.steps, norm) for norm in self.norms[:, -1]]
        for rho, end in zip(self.rhos, ends):
            label = theme.text(f"ρ = {rho:.2f}", theme.SMALL_SIZE, rho_colour(float(rho)))
            labels.append(label.next_to(end, RIGHT, buff=0.1))
        layout.apart_vertically(labels)
        if any(layout.overlaps(label, self.eigen_title) for label in labels):  # under it, in their order
            layout.clear_below(labels, self.eigen_title)
        return labels

    def log_rings(self) -> tuple[VGroup, VGroup]:
        """A ring per shown decade of ||h_t||, each labelled on the side the arrow does not end on: the
        label would otherwise lie under the arrow's tip at the end of a run (every run ends pointing the
        same way; the runs differ only in length). A ring whose label another ring would run through, or another
        label come near (the innermost, near the centre, where the next ring leaves no room for it), stays
        unlabelled: the rings step by the same number of decades, and the labels further out name the step."""
        ends = self.first_two[:, -1] / np.maximum(np.linalg.norm(self.first_two[:, -1], axis=1, keepdims=True), 1e-12)
        # Upper right or upper left (under the rings sits their caption): the farther from every arrow's end.
        sides = ((np.pi / 3, UR), (2 * np.pi / 3, UL))
        angle, side = max(sides, key=lambda side: float(np.min(1 - ends @ [np.cos(side[0]), np.sin(side[0])])))
        rings, labels = VGroup(), VGroup()
        span = self.high - self.low
        decades = range(int(self.low) + 1, int(self.high) + 1, 4 if span > 6 else 2)
        if len(decades) > 4:  # radii from 0.5 to 1.5 (linear_rnn.rhos): 29 decades, rings too close to label
            every = 4 * int(np.ceil(span / 16))
            decades = [decade for decade in range(int(self.low) + 1, int(self.high) + 1) if decade % every == 0]
        for decade in decades:
            ring = Circle(radius=self.radius_of(10.0**decade), color=theme.muted(), stroke_width=1.5 if decade else 2.5)
            rings.add(ring.move_to(self.state.to_point((0, 0))).set_stroke(opacity=0.9 if decade == 0 else 0.45))
        for decade, ring in zip(decades, rings):
            label = theme.text(f"1e{decade}" if decade else "1", theme.SMALL_SIZE, theme.muted())
            arcs = [piece for other in rings if other is not ring for piece in layout.segments(other)]
            if layout.beside_clear(label, ring.point_at_angle(angle), [side], labels, arcs, buffs=(0.02,)):
                labels.add(label)
        return rings, labels

    def readout(self) -> VGroup:
        """rho and t as numbers, and the regime's word: forgets, holds or explodes."""
        rho_label = maths(r"\rho =", theme.BODY_SIZE)
        rho_value = DecimalNumber(
            self.rho.get_value(),
            num_decimal_places=2,
            font_size=theme.tex_size(theme.BODY_SIZE),
            color=theme.foreground(),
        )
        # The numbers are rebuilt (LaTeX glyphs copied) only when what they show changes, not on every frame.
        rho_value.add_updater(lambda m: self.show_rho(m))
        t_label = maths("t =", theme.BODY_SIZE)
        t_value = Integer(0, font_size=theme.tex_size(theme.BODY_SIZE), color=theme.foreground())
        t_value.add_updater(
            lambda m: m.set_value(int(self.clock.get_value())) if m.get_value() != int(self.clock.get_value()) else m
        )
        readout = VGroup(
            VGroup(rho_label, rho_value).arrange(RIGHT, buff=0.15), VGroup(t_label, t_value).arrange(RIGHT, buff=0.15)
        )
        readout.arrange(RIGHT, buff=0.7)
        words = VGroup(
            *[theme.text(word, theme.LABEL_SIZE, theme.muted()) for word in ("forgets", "holds", "explodes")]
        )
        words.next_to(readout, RIGHT, buff=0.6)
        for word in words[1:]:
            word.move_to(words[0], aligned_edge=LEFT)
        self.regime_words = words
        readout.add(words)  # the group itself: its updater must be on screen to run

        def show_regime(group: VGroup) -> None:
            rho = self.rho.get_value()
            now = 1 if abs(rho - 1) < 0.01 else (0 if rho < 1 else 2)
            for index, word in enumerate(group):
                word.set_opacity(1 if index == now else 0)

        words.add_updater(show_regime)
        show_regime(words)
        return readout.move_to([4.1, -2.5, 0])

    def radius_of(self, norm: float) -> float:
        """Screen radius of a norm on the log rings: 10^low at the centre, 10^high at the rim."""
        fraction = (np.log10(max(norm, 10**self.low)) - self.low) / (self.high - self.low)
        return float(fraction * self.ring_radius)

    def show_rho(self, number: DecimalNumber) -> DecimalNumber:
        rho = self.rho.get_value()
        if getattr(number, "shown_rho", None) == round(rho, 2):
            return number
        number.shown_rho = round(rho, 2)
        return number.set_value(rho).set_color(self.colour_of_rho(rho))

    def colour_of_rho(self, rho: float) -> ManimColor:
        return rho_colour(float(self.rhos[int(np.argmin(np.abs(self.rhos - rho)))]))

    def set_rho(self, rho: float, **kwargs: object) -> AnimationGroup:
        """Move rho, and the ring of eigenvalues with it (the dots move only while rho does: while they
        stand still they are drawn once per animation, not on every frame)."""
        return AnimationGroup(
            self.rho.animate(**kwargs).set_value(rho),
            # a closure: bound methods would deep-copy the scene
            UpdateFromFunc(self.eigen_dots, lambda dots: self.place_eigenvalues(dots)),
            group=self.eigen_dots,  # on screen already: manim adds no Group of tracker and dots to the scene
        )

    def place_eigenvalues(self, dots: VGroup) -> None:
        rho = self.rho.get_value()
        if getattr(dots, "placed_at", None) == rho:
            return  # rho unchanged: nothing to move (most frames)
        dots.placed_at = rho
        # The plane maps (x, y) to the screen affinely: place all the dots at once, recolour only on a change.
        centre = self.eigen.to_point((0, 0))
        right, up = self.eigen.to_point((1, 0)) - centre, self.eigen.to_point((0, 1)) - centre
        targets = centre + rho * (np.cos(self.angles)[:, None] * right + np.sin(self.angles)[:, None] * up)
        for dot, target in zip(dots, targets):
            dot.shift(target - dot.get_center())
        colour = self.colour_of_rho(rho)
        if getattr(dots, "coloured", None) != colour.to_hex():
            dots.coloured = colour.to_hex()
            dots.set_color(colour)

    # --- one run: h_t traced for one rho ------------------------------------------------------------------

    def light_ring(self) -> Indicate:
        """The ring of eigenvalues lit, at its own radius: it is said to lie inside, on or outside the unit
        circle while it is lit (an Indicate that grew it would show one inside as on the circle)."""
        return Indicate(self.eigen_dots, scale_factor=1.0, color=theme.highlight())

    def tip(self, index: int, step: int) -> np.ndarray:
        """Where h_step's arrow ends: direction of its first two coordinates, length ||h_step|| on log rings."""
        direction = self.first_two[index, step] / (np.linalg.norm(self.first_two[index, step]) or 1.0)
        return self.state.to_point((0, 0)) + self.radius_of(self.norms[index, step]) * np.array([*direction, 0.0])

    def run_rho(self, index: int, beat: Beat, word: VMobject) -> None:
        """Set rho while it is said (the ring of eigenvalues follows it, compared with the unit circle if the
        words name it: 'ring'); trace h_t and its length while the words run to the end of the run ('trace');
        mark the regime's word ('outcome') if the beat says it."""
        colour = rho_colour(float(self.rhos[index]))
        self.backdrop(*self.still, *self.curves, *self.curve_labels)
        rho = Circumscribe(self.readout_group[0], color=theme.highlight())
        if "ring" in beat.marks:
            self.play(self.set_rho(float(self.rhos[index])), FadeOut(self.trail), rho, run_time=beat.until("ring"))
            self.play(self.light_ring(), run_time=beat.until("trace"))
        else:
            self.play(self.set_rho(float(self.rhos[index])), FadeOut(self.trail), rho, run_time=beat.until("trace"))
        self.clock.set_value(0)
        curve = self.plot.live_curve(np.arange(self.steps + 1), self.norms[index], self.clock, colour)
        label = self.end_labels[index]
        tips = [self.tip(index, step) for step in range(self.steps + 1)]
        self.trail = VGroup(*[Dot(point, radius=0.03, color=colour).set_opacity(0) for point in tips])
        self.state_arrow.set_color(colour).put_start_and_end_on(self.state.to_point((0, 0)), tips[0])

        shown = [-1]  # the last step drawn; the trail changes only when the step does

        def follow(arrow: Arrow) -> None:
            step = int(self.clock.get_value())
            if step == shown[0]:
                return
            shown[0] = step
            arrow.put_start_and_end_on(self.state.to_point((0, 0)), tips[step] + 1e-3 * RIGHT)
            for past, dot in enumerate(self.trail):
                dot.set_opacity(0.6 if past <= step else 0)

        self.state_arrow.add_updater(follow)
        self.curves.append(curve)
        self.add(curve, self.trail, self.state_arrow)
        self.bring_to_front(self.ring_labels, self.state_arrow)  # a trail dot never hides a ring's label
        traced = beat.until("outcome") if "outcome" in beat.marks else beat.remaining
        self.play(
            self.clock.animate(rate_func=linear).set_value(self.steps),
            FadeIn(label, rate_func=squish_rate_func(smooth, 0.85, 1.0)),  # at the run's end, as its change is said
            run_time=traced,
        )
        self.state_arrow.remove_updater(follow)
        curve.clear_updaters()
        self.curve_labels.append(label)
        if "outcome" in beat.marks:
            self.play(Circumscribe(word, color=theme.highlight()), run_time=beat.remaining)
