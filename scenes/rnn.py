"""Part 1 of seed 000: recurrent networks. h_t decay, the pulse echo, the adding problem, the training
race, and inside the trained LSTM."""

from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    UR,
    AnimationGroup,
    Arrow,
    Circle,
    Create,
    DashedVMobject,
    DecimalNumber,
    Dot,
    DoubleArrow,
    FadeIn,
    FadeOut,
    Integer,
    LaggedStart,
    Line,
    ManimColor,
    MathTex,
    Tex,
    TransformFromCopy,
    UpdateFromFunc,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
    linear,
    smooth,
)

from seqanim.contract import Artifact
from seqanim.declare import Part
from seqanim.kit import theme
from seqanim.kit.formula import maths
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.plots import Plot
from seqanim.kit.stream import Stream
from seqanim.kit.vectors import VectorDiagram
from seqanim.slide import LectureSlide

PART = Part("Recurrent neural networks", order=1)


def rho_colour(rho: float) -> ManimColor:
    """A spectral radius on the ordered ramp, by log(rho): rho = 1 in the middle in every scene, so the same
    rho has the same colour in HiddenStateDynamics and EchoOfAPulse."""
    return theme.ordered_colour(0.5 + 0.5 * math.tanh(8 * math.log(rho)))


def _regime(rho: float) -> str:
    """What a spectral radius does to the signal, in the notebook's words."""
    if math.isclose(rho, 1.0):
        return "stable memory"
    return "forgetting" if rho < 1 else "exploding"


class HiddenStateDynamics(LectureSlide):
    """rnn2: ||h_t|| = rho^t; the spectral radius decides whether the signal forgets, holds or explodes."""

    data = ("linear_rnn",)

    def construct(self) -> None:
        run = self.load("linear_rnn")
        self.rhos, self.norms, self.first_two = run["rhos"], run["norms"], run["first_two"]
        self.angles = run["eigen_angles"]
        self.steps = self.norms.shape[1] - 1
        self.low, self.high = float(np.floor(np.log10(self.norms.min()))), float(np.ceil(np.log10(self.norms.max())))

        self.next_slide(
            notes="A linear RNN h_t = W h_(t-1) is just a dynamical system. "
            f"Take W = rho Q with Q a random orthogonal {len(self.angles)}x{len(self.angles)} matrix: "
            "every eigenvalue of W has modulus rho, and ||h_t|| = rho^t. "
            f"We iterate {self.steps} steps from a unit-norm h_0 for rho in {', '.join(f'{r:.2f}' for r in self.rhos)}."
        )
        self.set_stage()
        groups = [
            ("forgetting", [i for i, r in enumerate(self.rhos) if r < 1 and not math.isclose(r, 1.0)]),
            ("stable memory", [i for i, r in enumerate(self.rhos) if math.isclose(r, 1.0)]),
            ("exploding", [i for i, r in enumerate(self.rhos) if r > 1 and not math.isclose(r, 1.0)]),
        ]
        self.trail = VGroup()
        for regime, indices in groups:
            if not indices:
                continue
            finals = "; ".join(
                f"rho = {self.rhos[i]:.2f}: ||h_{self.steps}|| = {self.norms[i, -1]:.3g}" for i in indices
            )
            self.next_slide(
                notes=f"{regime.capitalize()}: eigenvalues {self.where(indices)} the unit circle. {finals}."
            )
            for index in indices:
                self.run_rho(index)
        self.next_slide(
            loop=True,
            notes=f"Sweep rho from {self.rhos.min():.2f} to {self.rhos.max():.2f}: "
            "the ring of eigenvalues breathes through the unit circle, and the curve of the nearest rho lights up. "
            "Inside the circle the signal dies, outside it explodes.",
        )
        self.sweep()
        self.next_slide(
            notes="The spectral radius rho = max|eig(W)| decides: "
            f"after {self.steps} steps the norm ranges from {self.norms[:, -1].min():.2g} to "
            f"{self.norms[:, -1].max():.3g}. "
            "Only rho = 1 keeps the signal; this is why plain RNNs forget or explode, "
            "and why gated cells were invented."
        )
        self.say(
            "the spectral radius ρ = max|eig(W)| decides: < 1 forgets, > 1 explodes", colour=theme.caption_colour()
        )

    def where(self, indices: list[int]) -> str:
        rho = self.rhos[indices[0]]
        return "on" if math.isclose(rho, 1.0) else ("inside" if rho < 1 else "outside")

    # --- the stage: plot of ||h_t||, eigenvalues of W, the state h_t ------------------------------------

    def set_stage(self) -> None:
        self.title("A linear RNN is a dynamical system")
        formula = maths(r"h_t = W\,h_{t-1},\quad W = \rho\,Q,\quad \|h_t\| = \rho^{\,t}\,\|h_0\|", theme.BODY_SIZE)
        formula.move_to(2.65 * UP)
        self.plot = Plot(
            (0, self.steps, 10),
            (self.low, self.high, 1),
            width=4.9,
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
        self.eigen = VectorDiagram((-1.3, 1.3, 0.5), (-1.3, 1.3, 0.5), width=2.7, grid=False).move_to([2.6, -0.25, 0])
        unit_circle = DashedVMobject(self.eigen.circle(1.0, theme.muted()), num_dashes=40)
        self.eigen_dots = VGroup(*[Dot(radius=0.035) for _ in self.angles])
        self.place_eigenvalues(self.eigen_dots)
        eigen_title = theme.text(f"{len(self.angles)} eigenvalues of W", theme.LABEL_SIZE).next_to(
            self.eigen, UP, buff=0.15
        )
        unit_label = theme.label(r"$|\lambda| = 1$", theme.SMALL_SIZE, theme.muted()).next_to(
            self.eigen, DOWN, buff=0.1
        )

        self.state = VectorDiagram((-1, 1, 0.5), (-1, 1, 0.5), width=2.7, grid=False).move_to([5.6, -0.25, 0])
        self.state.plane.background_lines.set_opacity(0)
        self.state.plane.axes.set_opacity(0.35)
        self.ring_radius = self.state.to_point((1, 0))[0] - self.state.to_point((0, 0))[0]
        rings = VGroup()
        ring_labels = VGroup()
        for decade in range(int(self.low) + 1, int(self.high) + 1, 4 if self.high - self.low > 6 else 2):
            ring = Circle(radius=self.radius_of(10.0**decade), color=theme.muted(), stroke_width=1.5 if decade else 2.5)
            ring.move_to(self.state.to_point((0, 0))).set_stroke(opacity=0.9 if decade == 0 else 0.45)
            rings.add(ring)
            label = theme.text(f"1e{decade}" if decade else "1", theme.SMALL_SIZE, theme.muted())
            ring_labels.add(label.next_to(ring.point_at_angle(np.pi / 3), UR, buff=0.02))
        state_title = theme.label("state $h_t$", theme.LABEL_SIZE).next_to(self.state, UP, buff=0.15)
        state_help = theme.label(r"$\|h_t\|$ on log rings", theme.SMALL_SIZE, theme.muted()).next_to(
            self.state, DOWN, buff=0.1
        )
        self.state_arrow = Arrow(ORIGIN, RIGHT, buff=0, stroke_width=5, max_tip_length_to_length_ratio=0.25)

        self.clock = ValueTracker(0.0)
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
        regimes = VGroup(
            *[theme.text(word, theme.LABEL_SIZE, theme.muted()) for word in ("forgets", "holds", "explodes")]
        )
        regimes.next_to(readout, RIGHT, buff=0.6)
        for word in regimes[1:]:
            word.move_to(regimes[0], aligned_edge=LEFT)
        readout.add(regimes)  # the group itself: its updater must be on screen to run

        def show_regime(group: VGroup) -> None:
            rho = self.rho.get_value()
            now = 1 if abs(rho - 1) < 0.01 else (0 if rho < 1 else 2)
            for index, word in enumerate(group):
                word.set_opacity(1 if index == now else 0)

        regimes.add_updater(show_regime)
        show_regime(regimes)
        readout.move_to([4.1, -2.5, 0])
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
        self.curve_labels: list[VMobject] = []

        self.play(Write(formula), run_time=1.0)
        self.play(Create(self.plot), Create(self.unit_line), run_time=1.0)
        self.play(
            Create(self.eigen),
            Create(unit_circle),
            FadeIn(eigen_title),
            FadeIn(unit_label),
            FadeIn(self.eigen_dots),
            Create(self.state),
            Create(rings),
            FadeIn(ring_labels),
            FadeIn(state_title),
            FadeIn(state_help),
            FadeIn(readout),
            run_time=1.2,
        )

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

    # --- beats -----------------------------------------------------------------------------------------

    def tip(self, index: int, step: int) -> np.ndarray:
        """Where h_step's arrow ends: direction of its first two coordinates, length ||h_step|| on log rings."""
        direction = self.first_two[index, step] / (np.linalg.norm(self.first_two[index, step]) or 1.0)
        return self.state.to_point((0, 0)) + self.radius_of(self.norms[index, step]) * np.array([*direction, 0.0])

    def run_rho(self, index: int) -> None:
        colour = rho_colour(float(self.rhos[index]))
        self.backdrop(*self.still, *self.curves, *self.curve_labels)
        self.play(self.set_rho(float(self.rhos[index])), FadeOut(self.trail), run_time=0.8)
        self.clock.set_value(0)
        curve = self.plot.live_curve(np.arange(self.steps + 1), self.norms[index], self.clock, colour)
        label = theme.text(f"ρ = {self.rhos[index]:.2f}", theme.SMALL_SIZE, colour)
        label.next_to(self.plot.axes.c2p(self.steps, self.norms[index, -1]), RIGHT, buff=0.1)
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
        self.play(self.clock.animate.set_value(self.steps), run_time=3.0, rate_func=linear)
        self.state_arrow.remove_updater(follow)
        curve.clear_updaters()
        self.play(FadeIn(label), run_time=0.3)
        self.curve_labels.append(label)

    def sweep(self) -> None:
        """The loop: rho breathes from its smallest to its largest value and back."""
        start = float(self.rhos.min())
        curves = VGroup(*self.curves)

        def spotlight(group: VGroup) -> None:
            nearest = int(np.argmin(np.abs(self.rhos - self.rho.get_value())))
            for index, curve in enumerate(group):
                curve.set_stroke(width=8 if index == nearest else 3, opacity=1 if index == nearest else 0.45)

        self.backdrop(*self.still, *self.curve_labels)
        self.play(self.set_rho(start), FadeOut(self.trail), FadeOut(self.state_arrow), run_time=0.5)
        curves.add_updater(spotlight)
        self.play(self.set_rho(float(self.rhos.max()), rate_func=smooth), run_time=3.0)
        self.play(self.set_rho(start, rate_func=smooth), run_time=3.0)
        curves.remove_updater(spotlight)
        self.play(*[curve.animate.set_stroke(width=4, opacity=1) for curve in self.curves], run_time=0.3)


class EchoOfAPulse(LectureSlide):
    """rnn2: one pulse through a 2-D rotation scaled by rho spirals in, circles, or spirals out."""

    data = ("linear_rnn",)

    def construct(self) -> None:
        run = self.load("linear_rnn")
        self.states, self.echo_rhos = run["echo_states"], run["echo_rhos"]
        self.angle = float(run["echo_angle"])
        self.steps = self.states.shape[1] - 1
        self.radii = np.linalg.norm(self.states, axis=-1)
        divisor = round(2 * math.pi / self.angle)

        self.next_slide(
            notes=f"A 2-D rotation by 2 pi/{divisor} scaled by rho makes the echo of one input pulse visible. "
            f"The pulse h_0 = (1, 0) enters once; after that the state only rotates and scales for {self.steps} steps."
        )
        self.title("The echo of a single pulse")
        formula = maths(
            rf"h_t = \rho\,R\!\left(\tfrac{{2\pi}}{{{divisor}}}\right) h_{{t-1}},\qquad h_0 = (1,\,0)", theme.BODY_SIZE
        )
        formula.move_to(2.7 * UP)
        self.play(Write(formula), run_time=1.0)
        self.build_columns()

        self.trackers = [ValueTracker(0.0) for _ in self.echo_rhos]
        for index, rho in enumerate(self.echo_rhos):
            self.next_slide(notes=self.echo_note(index))
            self.trace(index)
        self.next_slide(
            loop=True,
            notes="All three echoes again, side by side: same rotation, only the radius rho differs. "
            + "; ".join(self.final_phrase(i) for i in range(len(self.echo_rhos)))
            + ".",
        )
        for tracker in self.trackers:
            tracker.set_value(0)
        self.play(*[tracker.animate.set_value(self.steps) for tracker in self.trackers], run_time=4.0, rate_func=linear)
        self.next_slide(
            notes="Damped, sustained or growing: the radius rho alone decides. "
            f"After {self.steps} steps the echo has size "
            + ", ".join(f"{self.radii[i, -1]:.3g} (rho = {rho:g})" for i, rho in enumerate(self.echo_rhos))
            + "."
        )
        self.play(FadeOut(self.axis_note), run_time=0.3)  # the claim takes the bottom line
        self.say("only ρ = 1 keeps the echo: smaller forgets, larger explodes", colour=theme.caption_colour())

    def final_phrase(self, index: int) -> str:
        return f"rho = {self.echo_rhos[index]:g}: |h_{self.steps}| = {self.radii[index, -1]:.3g}"

    def echo_note(self, index: int) -> str:
        rho = self.echo_rhos[index]
        regime = _regime(rho)
        exit_note = ""
        if self.exit_step[index] is not None:
            exit_note = (
                f" It leaves the panel at t = {self.exit_step[index]} "
                f"(|h| = {self.radii[index, self.exit_step[index]]:.2f}){' and keeps growing' if rho > 1 else ''}."
            )
        return (
            f"rho = {rho:g}, {regime}: each turn multiplies the radius by "
            f"{rho ** round(2 * math.pi / self.angle):.3g}. "
            "Its radius |h_t|, traced below on a log scale shared by the three, reaches "
            f"|h_{self.steps}| = {self.radii[index, -1]:.3g}.{exit_note}"
        )

    def build_columns(self) -> None:
        limit = 2.0  # shared spiral scale, so the three radii compare directly
        self.columns, self.exit_step, self.paths = [], [], []
        xs = np.linspace(-4.5, 4.5, len(self.echo_rhos))
        low = int(np.floor(np.log10(self.radii.min())))
        high = int(np.ceil(np.log10(self.radii.max())))
        step = max(1, int(np.ceil((high - low) / 2)))  # three labelled decades at most: legible at 480p
        high = low + step * int(np.ceil((high - low) / step))
        animations = []
        for index, (rho, x) in enumerate(zip(self.echo_rhos, xs)):
            colour = rho_colour(rho)
            header = theme.text(f"ρ = {rho:g}: {_regime(rho)}", theme.LABEL_SIZE, colour).move_to([x, 2.0, 0])
            plane = VectorDiagram((-limit, limit, 1), (-limit, limit, 1), width=2.6).move_to([x, 0.45, 0])
            unit = DashedVMobject(plane.circle(1.0, theme.muted()), num_dashes=30)
            inside = np.flatnonzero(self.radii[index] > limit)
            exit_step = int(inside[0]) if inside.size else None
            self.exit_step.append(exit_step)
            # One log axis for all three: on a linear +-peak scale the exploding echo looked flatter than the
            # damped one; in decades, shrinking, holding and growing read as falling, flat and rising lines.
            trace = Plot(
                (0, self.steps, 20),
                (low, high, step),
                width=3.4,
                height=1.35,
                x_label="",
                y_label="",
                log_y=True,
            )
            trace.move_to([x + 0.25, -1.95, 0])
            unit_radius = trace.hline(1.0, dashed=False).set_stroke(opacity=0.4)
            self.columns.append((plane, trace, colour))
            animations += [FadeIn(header), Create(plane), Create(unit), Create(trace), Create(unit_radius)]
        axis_note = MathTex(
            r"\|h_t\|\ \text{against}\ t\ \text{(log scale)}",
            font_size=theme.tex_size(theme.SMALL_SIZE),
            color=theme.muted(),
        ).move_to([0, -3.2, 0])
        self.axis_note = axis_note
        self.play(*animations, FadeIn(axis_note), run_time=1.2)

    def trace(self, index: int) -> None:
        plane, trace, colour = self.columns[index]
        tracker = self.trackers[index]
        last_inside = self.exit_step[index] - 1 if self.exit_step[index] is not None else self.steps
        points = np.array([plane.to_point(p) for p in self.states[index, : last_inside + 1]])
        spiral = VMobject(stroke_color=colour, stroke_width=3)

        def grow(mobject: VMobject) -> None:
            now = min(tracker.get_value(), last_inside)
            count = int(now) + 1
            visible = points[:count]
            if count <= last_inside:
                visible = np.vstack(
                    [visible, points[count - 1] + (now - count + 1) * (points[count] - points[count - 1])]
                )
            if len(visible) == 1:
                visible = np.vstack([visible, visible])
            mobject.set_points_as_corners(visible)

        head = Dot(radius=0.07, color=colour)

        def move_head(dot: Dot) -> None:
            now = tracker.get_value()
            dot.set_opacity(1 if now <= last_inside else 0)
            step = min(int(now), last_inside)
            following = min(step + 1, last_inside)
            dot.move_to(points[step] + (min(now, last_inside) - step) * (points[following] - points[step]))

        grow(spiral)
        move_head(head)
        spiral.add_updater(grow)
        head.add_updater(move_head)
        curve = trace.live_curve(np.arange(self.steps + 1), self.radii[index], tracker, colour, stroke_width=3)
        self.add(spiral, head, curve)
        self.play(tracker.animate.set_value(self.steps), run_time=3.5, rate_func=linear)
        if self.exit_step[index] is not None:
            arrow_end = plane.to_point(self.states[index, last_inside] * 1.0)
            note = theme.text(f"leaves at t = {self.exit_step[index]}", theme.SMALL_SIZE, colour)
            note.next_to(plane, DOWN, buff=0.08)
            self.play(FadeIn(note), Create(Dot(arrow_end, radius=0.05, color=colour)), run_time=0.4)


class AddingProblem(LectureSlide):
    """rnn4: two channels, a stream of values and two markers; the target is the sum of the marked values."""

    data = ("adding",)

    def construct(self) -> None:
        run = self.load("adding")
        values, marks = run["example_values"], run["example_marks"]
        target = float(run["example_target"])
        baseline = float(run["baseline"])
        length = len(values)
        first, second = (int(i) for i in np.flatnonzero(marks > 0.5))
        gap = second - first

        self.next_slide(
            notes="The adding problem, Hochreiter and Schmidhuber's classic LSTM benchmark. "
            f"Each sequence has T = {length} steps and two input channels: "
            "a value in [0, 1) and a marker that is 1 at exactly two steps, one in each half."
        )
        self.title("A long-memory task: the adding problem")
        stream = Stream(
            values,
            marks,
            width=11.0,
            height=2.3,
            value_label="value",
            marker_label="marker",
            label_size=theme.SMALL_SIZE,
            tick_every=5,
        )
        stream.move_to(0.35 * UP).shift(0.45 * RIGHT)
        stream.hide()
        time_label = theme.text("time step", theme.SMALL_SIZE, theme.muted()).next_to(stream.ticks, DOWN, buff=0.1)
        self.play(
            Create(stream.baseline),
            FadeIn(stream.channel_labels),
            FadeIn(stream.ticks),
            FadeIn(time_label),
            run_time=0.8,
        )

        self.next_slide(
            notes=f"The network reads the two channels one step at a time, {length} steps in all. "
            f"Here is one example sequence (seed {run.params['example_seed']}); "
            f"its markers sit at t = {first} and t = {second}."
        )
        self.play(stream.appear(run_time_per_step=0.1))

        self.next_slide(
            notes=f"The two marked values are {values[first]:.2f} at t = {first} and {values[second]:.2f} at "
            f"t = {second}: {gap} steps apart."
        )
        labels = VGroup()
        for index in (first, second):
            label = theme.text(f"{values[index]:.2f}", theme.LABEL_SIZE, theme.highlight())
            labels.add(label.next_to(stream.top(index), UP, buff=0.15))
        gap_arrow = DoubleArrow(
            [stream.x_of(first), stream.get_top()[1] + 0.35, 0],
            [stream.x_of(second), stream.get_top()[1] + 0.35, 0],
            buff=0,
            color=theme.highlight(),
            stroke_width=3,
            tip_length=0.18,
        )
        gap_label = theme.text(f"{gap} steps apart", theme.SMALL_SIZE, theme.highlight()).next_to(
            gap_arrow, UP, buff=0.08
        )
        self.play(stream.light([first, second], theme.highlight()), FadeIn(labels, shift=0.1 * UP), run_time=1.0)
        self.play(Create(gap_arrow), FadeIn(gap_label), run_time=0.8)

        self.next_slide(
            notes="The target is the sum of the two marked values: "
            f"{values[first]:.2f} + {values[second]:.2f} = {target:.2f}."
        )
        equation = maths(
            rf"y = {values[first]:.2f} + {values[second]:.2f} = {target:.2f}", theme.BODY_SIZE, theme.highlight()
        )
        equation.move_to(2.1 * DOWN)
        parts = equation[0]
        self.play(TransformFromCopy(labels, parts), run_time=1.2)

        self.next_slide(
            notes=f"Why it is hard: at t = {first} the net sees {values[first]:.2f} but the answer is read only after "
            f"the last step, t = {length - 1}. "
            f"It must carry the first marked value across {length - 1 - first} steps of distracting values. "
            f"Predicting the mean sum, 1, already gives MSE 1/6 = {baseline:.3f}: that is the baseline to beat."
        )
        why = VGroup(
            theme.text(
                f"the net reads {values[first]:.2f} at t = {first} but answers only after t = {length - 1}:",
                theme.LABEL_SIZE,
            ),
            theme.text(f"it must carry that value across {length - 1 - first} steps;", theme.LABEL_SIZE),
            theme.text(f"baseline (predict the mean): MSE {baseline:.3f}", theme.LABEL_SIZE, theme.muted()),
        ).arrange(DOWN, buff=0.15)
        why.next_to(equation, DOWN, buff=0.3)
        self.play(FadeIn(why, shift=0.1 * UP), run_time=0.8)


class TrainingRace(LectureSlide):
    """rnn6: test MSE of vanilla RNN, LSTM and GRU while they train on the adding problem."""

    data = ("adding",)

    def construct(self) -> None:
        run = self.load("adding")
        self.kinds = [str(kind) for kind in run["kinds"]]
        self.iters, self.mse = run["curve_iters"], run["test_mse"]
        self.baseline = float(run["baseline"])
        self.finals = self.mse[:, -1]
        params = run.params  # the parameters that produced these curves

        self.next_slide(
            notes=f"One linear readout on three recurrent cells ({', '.join(self.kinds)}), "
            f"each with {params['hidden']} hidden units, trained {params['iters']} Adam steps (lr {params['lr']:g}, "
            f"batch {params['batch']}, gradient clip {params['clip']:g}) on T = {params['T']}. "
            f"The dashed line is the predict-the-mean baseline, MSE {self.baseline:.3f}."
        )
        self.title("Vanilla RNN vs LSTM vs GRU")
        self.build_plot()

        self.next_slide(
            notes=f"Test MSE on {params['test_size']} held-out sequences, every {params['eval_every']} steps. "
            + "; ".join(f"{kind} starts at {self.mse[i, 0]:.3f}" for i, kind in enumerate(self.kinds))
            + "."
        )
        self.race()

        self.next_slide(
            notes="Final held-out MSE: "
            + "; ".join(f"{kind} {self.finals[i]:.3g}" for i, kind in enumerate(self.kinds))
            + f" (baseline {self.baseline:.3f})."
        )
        self.label_finals()

        solved = [kind for kind, final in zip(self.kinds, self.finals) if final < self.baseline / 10]
        failed = [kind for kind in self.kinds if kind not in solved]
        self.next_slide(notes=self.verdict_note(solved, failed))
        self.verdict(solved, failed)

    def verdict_note(self, solved: list[str], failed: list[str]) -> str:
        threshold = self.baseline / 10
        parts = []
        if solved:
            finals = ", ".join(f"{self.finals[self.kinds.index(k)]:.3g}" for k in solved)
            parts.append(
                f"{' and '.join(solved)} fall{'s' if len(solved) == 1 else ''} far below the baseline ({finals}, "
                f"under {threshold:.4f}, a tenth of {self.baseline:.3f}): "
                "the gates carry the first value across the gap"
            )
        if failed:
            finals = [self.finals[self.kinds.index(k)] for k in failed]
            where = "near the baseline" if min(finals) > self.baseline / 2 else "above a tenth of the baseline"
            meaning = (
                "learned little more than the mean" if min(finals) > self.baseline / 2 else "did not solve the task"
            )
            parts.append(
                f"{' and '.join(failed)} stay{'s' if len(failed) == 1 else ''} {where} "
                f"({', '.join(f'{final:.3f}' for final in finals)}): {'it' if len(failed) == 1 else 'they'} {meaning}"
            )
        return "; ".join(parts) + "."

    def build_plot(self) -> None:
        low = float(np.floor(np.log10(self.mse.min())))
        high = float(np.ceil(np.log10(self.mse.max())))
        total = int(self.iters[-1])
        self.plot = Plot(
            (0, total, 100),
            (low, high, 1),
            width=8.4,
            height=4.7,
            x_label="training step",
            y_label="test MSE (log)",
            log_y=True,
            tick_size=theme.tex_size(theme.SMALL_SIZE),
        )
        self.plot.move_to([-1.3, -0.35, 0])
        baseline = self.plot.hline(self.baseline, theme.muted())
        self.baseline_label = theme.text(f"predict the mean: {self.baseline:.3f}", theme.SMALL_SIZE, theme.muted())
        self.baseline_label.next_to(self.plot.axes.c2p(total, self.baseline), UP, buff=0.08).align_to(baseline, RIGHT)
        self.play(Create(self.plot), run_time=1.0)
        self.play(Create(baseline), FadeIn(self.baseline_label), run_time=0.8)

    def race(self) -> None:
        self.step = ValueTracker(0.0)
        # The vanilla RNN is drawn last, on top: for its first few hundred steps it runs under LSTM and GRU.
        order = sorted(range(len(self.kinds)), key=lambda i: self.kinds[i] == "RNN")
        curves = VGroup(
            *[
                self.plot.live_curve(self.iters, self.mse[i], self.step, theme.model_colour(self.kinds[i]))
                for i in order
            ]
        )
        counter_label = Tex("step", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.muted())
        counter = Integer(0, font_size=theme.tex_size(theme.BODY_SIZE), color=theme.foreground())
        counter.add_updater(lambda m: m.set_value(int(self.step.get_value())))
        readout = VGroup(counter_label, counter).arrange(RIGHT, buff=0.2).move_to([5.2, 2.2, 0])
        self.legend = VGroup(*[theme.text(kind, theme.LABEL_SIZE, theme.model_colour(kind)) for kind in self.kinds])
        self.legend.arrange(DOWN, aligned_edge=LEFT, buff=0.2).next_to(readout, DOWN, buff=0.4).align_to(readout, LEFT)
        self.add(curves)
        self.play(FadeIn(readout), FadeIn(self.legend), run_time=0.5)
        self.play(self.step.animate.set_value(float(self.iters[-1])), run_time=6.0, rate_func=linear)
        for curve in curves:
            curve.clear_updaters()
        counter.clear_updaters()

    def label_finals(self) -> None:
        ends = [self.plot.axes.c2p(float(self.iters[-1]), float(final))[1] for final in self.finals]
        order = np.argsort(ends)
        placed: list[float] = []
        labels = VGroup()
        for index in order:
            y = max(ends[index], placed[-1] + 0.38) if placed else ends[index]
            placed.append(y)
            label = theme.text(
                f"{self.kinds[index]} {self.finals[index]:.3g}", theme.LABEL_SIZE, theme.model_colour(self.kinds[index])
            )
            label.move_to([self.plot.axes.get_right()[0] + 0.2 + label.width / 2, y, 0])
            labels.add(label)
        self.final_labels = labels
        self.play(FadeOut(self.legend), FadeIn(labels, shift=0.1 * LEFT), run_time=0.8)

    def verdict(self, solved: list[str], failed: list[str]) -> None:
        threshold = self.baseline / 10
        lines = VGroup()
        if solved:
            lines.add(
                theme.text(
                    f"✓ solved (MSE < {threshold:.4f}): {', '.join(solved)}", theme.LABEL_SIZE, theme.allowed_colour()
                )
            )
        if failed:
            lines.add(theme.text(f"✗ not solved: {', '.join(failed)}", theme.LABEL_SIZE, theme.error_colour()))
        lines.arrange(RIGHT, buff=0.6).to_edge(DOWN, buff=0.3)
        threshold_line = self.plot.hline(threshold, theme.muted())
        self.play(Create(threshold_line), FadeIn(lines), run_time=1.0)


class InsideTheLSTM(LectureSlide):
    """rnn8: the trained LSTM on one example: it writes at the markers and holds the sum in its cell."""

    data = ("lstm_inside",)

    def construct(self) -> None:
        run = self.load("lstm_inside")
        self.values, self.marks = run["values"], run["marks"]
        self.write, self.cell = run["write_norm"], run["cell_norm"]
        self.guess, self.running = run["running_guess"], run["true_running_sum"]
        self.target = float(run["target"])
        self.markers = [int(m) for m in run["markers"]]
        self.length = len(self.values)
        first, second = self.markers

        self.next_slide(
            notes=f"Open up the trained LSTM and run it on one sequence with markers at t = {first} and t = {second}: "
            f"{self.values[first]:.2f} + {self.values[second]:.2f}, target {self.target:.2f}. "
            "We replay the recurrence by hand to read the gates."
        )
        self.title("What the trained LSTM actually does")
        self.build_panels()

        self.cursor_time = ValueTracker(0.0)
        self.start_live()
        self.next_slide(
            notes=f"Before the first marker the write ||i * c~|| stays at or below {self.write[:first].max():.2f}, "
            f"then jumps to {self.write[first]:.2f} at t = {first}, the first marked step. "
            f"The guess fc(h_t) rises from {self.guess[first - 1]:.2f} to {self.guess[first]:.2f}."
        )
        self.walk_to(first, 2.0)

        between = self.cell[first + 1 : second]
        self.next_slide(
            notes=f"Between the markers the memory holds: ||c_t|| stays between {between.min():.2f} and "
            f"{between.max():.2f} from t = {first + 1} to t = {second - 1}, "
            f"while the guess drifts from {self.guess[first]:.2f} to {self.guess[second - 1]:.2f}; "
            f"the true running sum is {self.running[first]:.2f}."
        )
        self.walk_to(second - 1, 3.0)

        largest = (
            ", the largest of the sequence"
            if int(np.argmax(self.write)) == second
            else f" (the largest write, {self.write.max():.2f}, is at t = {int(np.argmax(self.write))})"
        )
        self.next_slide(
            notes=f"At the second marker the write spikes again to {self.write[second]:.2f}{largest}; "
            f"the guess jumps from {self.guess[second - 1]:.2f} to {self.guess[second]:.2f}."
        )
        self.walk_to(second, 1.0)

        self.next_slide(
            notes=f"After the last step the readout gives fc(h_{self.length - 1}) = {self.guess[-1]:.3f} against the "
            f"target {self.target:.3f}: error {abs(self.guess[-1] - self.target):.3f}. "
            "The LSTM writes at the markers and holds in between; "
            "it was trained only on the final step, so the running guess before it is not exact."
        )
        self.walk_to(self.length - 1, 1.5)
        self.finish()

        self.gate_changes = {name: self.change_at_markers(run[name]) for name, _ in self.GATES}
        at, elsewhere = self.gate_changes["input_gate"]
        self.next_slide(
            notes="Behind the curves, the gates of every hidden unit: rows are the "
            f"{run['input_gate'].shape[1]} hidden units, columns the {self.length} time steps, on the same time axis "
            "as the input. "
            + "; ".join(
                f"the {label} gate changes by {self.gate_changes[name][0]:.3f} per unit on average at the markers and "
                f"the step after, {self.gate_changes[name][1]:.3f} (median) at the other steps"
                for name, label in (("forget_gate", "forget"), ("input_gate", "input"), ("output_gate", "output"))
            )
            + f". The gates switch at the markers and hold in between: the input gate moves {at / elsewhere:.0f}x "
            "more there."
        )
        self.show_gates(run, at / elsewhere)

    GATES = (("forget_gate", r"forget $f_t$"), ("input_gate", r"input $i_t$"), ("output_gate", r"output $o_t$"))

    def change_at_markers(self, gate: np.ndarray) -> tuple[float, float]:
        """Mean |gate_t - gate_(t-1)| over units at the marked steps and the step after, and its median elsewhere."""
        change = np.abs(np.diff(gate, axis=0)).mean(axis=1)  # change[t - 1]: into step t
        switching = sorted({t for m in self.markers for t in (m, m + 1) if 1 <= t < self.length})
        others = [t for t in range(1, self.length) if t not in switching]
        return float(change[[t - 1 for t in switching]].mean()), float(np.median(change[[t - 1 for t in others]]))

    # --- layout -----------------------------------------------------------------------------------------

    def build_panels(self) -> None:
        length = self.length
        left, width = -4.9, 9.1
        self.stream = Stream(
            self.values, self.marks, width=width * length / (length - 1), height=0.9, tick_every=0, dot_radius=0.045
        )
        self.stream.move_to([left + width / 2, 2.3, 0])
        self.stream_label = theme.text("input", theme.LABEL_SIZE).next_to(self.stream, LEFT, buff=0.35)

        # Three panels on one time axis: what a step writes, what the cell holds (its own panel), the guess.
        write_top = float(np.ceil(self.write.max() * 2) / 2)
        cell_top = float(np.ceil(self.cell.max()))
        guess_top = float(np.ceil(max(self.guess.max(), self.running.max()) * 2) / 2)
        self.write_plot = Plot(
            (0, length - 1, 5), (0, write_top, write_top / 2), width=width, height=0.85, x_numbers=False
        )
        self.memory = Plot((0, length - 1, 5), (0, cell_top, cell_top / 2), width=width, height=0.85, x_numbers=False)
        self.readout = Plot(
            (0, length - 1, 5),
            (0, guess_top, guess_top / 2),
            width=width,
            height=0.85,
            x_label="time step $t$",
            label_size=theme.SMALL_SIZE,
        )
        for plot, y in ((self.write_plot, 0.8), (self.memory, -0.65), (self.readout, -2.1)):
            plot.shift([self.stream.x_of(0) - plot.axes.c2p(0, 0)[0], y - plot.axes.get_center()[1], 0])

        def legend(plot: Plot, *labels: VGroup) -> VGroup:
            group = VGroup(*labels).arrange(RIGHT, buff=0.4)
            return group.next_to(plot.axes, UP, buff=0.02).align_to(plot.axes, LEFT).shift(0.3 * RIGHT)

        self.legends = VGroup(
            legend(
                self.write_plot,
                theme.label(r"write $\|i_t \odot \tilde c_t\|$", theme.SMALL_SIZE, theme.value_colour()),
            ),
            legend(self.memory, theme.label(r"cell memory $\|c_t\|$", theme.SMALL_SIZE, theme.model_colour("LSTM"))),
            legend(
                self.readout,
                theme.label(r"guess $\mathrm{fc}(h_t)$", theme.SMALL_SIZE, theme.output_colour()),
                theme.text("true running sum", theme.SMALL_SIZE, theme.muted()),
            ),
        )

        self.marker_lines = VGroup()
        for marker in self.markers:
            x = self.stream.x_of(marker)
            self.marker_lines.add(
                DashedVMobject(
                    Line([x, self.readout.axes.get_bottom()[1], 0], [x, self.write_plot.axes.get_top()[1], 0]),
                    num_dashes=30,
                ).set_stroke(theme.highlight(), width=1.5, opacity=0.6)
            )
        target_line = self.readout.hline(self.target, theme.highlight())
        target_label = theme.text(f"target {self.target:.2f}", theme.SMALL_SIZE, theme.highlight())
        target_label.next_to(target_line, RIGHT, buff=0.1)
        self.target_label, self.target_line = target_label, target_line

        self.play(FadeIn(self.stream_label), Create(self.stream.baseline), run_time=0.6)
        self.play(self.stream.appear(run_time_per_step=0.03), run_time=1.2)
        self.play(self.stream.light(self.markers, theme.highlight()), run_time=0.5)
        self.play(
            Create(self.write_plot),
            Create(self.memory),
            Create(self.readout),
            FadeIn(self.legends),
            Create(self.marker_lines),
            Create(target_line),
            FadeIn(target_label),
            run_time=1.2,
        )

    def start_live(self) -> None:
        steps = np.arange(self.length)
        time = self.cursor_time
        self.live = VGroup(
            self.write_plot.series(steps, self.write, theme.value_colour(), tracker=time, stroke_width=3),
            self.memory.series(steps, self.cell, theme.model_colour("LSTM"), tracker=time, stroke_width=3),
            self.readout.series(steps, self.running, theme.muted(), tracker=time, step=True, stroke_width=2.5),
            self.readout.series(steps, self.guess, theme.output_colour(), tracker=time, stroke_width=3),
        )
        cursor = self.stream.cursor(
            time, theme.foreground(), extend_down=self.stream.get_bottom()[1] - self.readout.axes.get_bottom()[1]
        )
        cursor.set_stroke(opacity=0.7)
        stamp = VGroup(
            theme.text("t =", theme.LABEL_SIZE),
            Integer(0, font_size=theme.tex_size(theme.BODY_SIZE), color=theme.foreground()),
        ).arrange(RIGHT, buff=0.1)
        stamp.add_updater(lambda m: m[1].set_value(round(time.get_value())))
        stamp.move_to([5.9, 2.25, 0])
        self.add(self.live, cursor, stamp)
        self.cursor = cursor

    def show_gates(self, run: Artifact, ratio: float) -> None:
        """The T x H gate heatmaps: forget, input and output gate per time step (columns) and unit (rows)."""
        panels = VGroup(
            self.write_plot,
            self.memory,
            self.readout,
            self.legends,
            self.target_line,
            self.target_label,
            self.marker_lines,
        )
        self.play(FadeOut(panels), FadeOut(self.live), FadeOut(self.final), FadeOut(self.cursor), run_time=0.6)
        maps = VGroup()
        for (name, label), y in zip(self.GATES, (0.95, -0.4, -1.75)):
            values = run[name].T  # (hidden units, time steps)
            heatmap = Heatmap(
                values,
                cell_size=self.stream.step,
                cell_height=1.15 / values.shape[0],
                vmin=0.0,
                vmax=1.0,
                dense=True,
                cell_stroke=0,
                colourbar=name == "input_gate",
                titles=False,
            )
            heatmap.shift([self.stream.x_of(0) - heatmap.cell(0, 0).get_center()[0], y - heatmap.cells.get_y(), 0])
            name_label = theme.label(label, theme.SMALL_SIZE).next_to(heatmap.cells, LEFT, buff=0.2)
            maps.add(VGroup(heatmap, name_label))
        axis = theme.text(f"rows: {run[self.GATES[0][0]].shape[1]} hidden units", theme.SMALL_SIZE, theme.muted())
        axis.next_to(maps, DOWN, buff=0.15).align_to(maps[0][0].cells, LEFT)
        # The marked steps are the lit input boxes right above their columns.
        self.play(LaggedStart(*[FadeIn(m) for m in maps], lag_ratio=0.35), FadeIn(axis), run_time=1.6)
        self.say(
            f"the gates switch at the markers and hold in between (input gate: {ratio:.0f}× the change)",
            theme.caption_colour(),
        )
        self.wait(1.5)

    def walk_to(self, step: int, run_time: float) -> None:
        self.play(self.cursor_time.animate.set_value(float(step)), run_time=run_time, rate_func=linear)

    def finish(self) -> None:
        end = self.readout.axes.c2p(self.length - 1, self.guess[-1])
        final = theme.text(f"final guess {self.guess[-1]:.2f}", theme.SMALL_SIZE, theme.output_colour())
        final.next_to(self.target_label, DOWN, buff=0.12).align_to(self.target_label, LEFT)
        self.final = VGroup(final, Dot(end, radius=0.06, color=theme.output_colour()))
        self.play(FadeIn(final), Create(self.final[1]), run_time=0.6)
