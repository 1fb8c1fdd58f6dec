"""EchoOfAPulse (notebook cell rnn2): one pulse h_0 = (1, 0) through a 2-D rotation by 2 pi/n scaled by rho,
for one to four values of rho side by side. The echo spirals in, circles or spirals out, and its radius |h_t| is
traced under each panel on one shared log scale."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from manim import (
    DOWN,
    UP,
    Circumscribe,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    Indicate,
    MathTex,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
    linear,
)

from scenes.rnn.shared import about, change, regime, rho_colour
from seqanim import Beat, LectureSlide, mark, spoken, translated
from seqanim.kit import theme
from seqanim.kit.formula import formula as parts_formula
from seqanim.kit.formula import part
from seqanim.kit.plots import Plot
from seqanim.kit.vectors import VectorDiagram

LIMIT = 2.0  # the spirals' shared scale, so the three radii compare directly


def exit_step(radii: np.ndarray) -> int | None:
    """The first step at which the echo lies beyond the panel's edge, or None when it stays inside."""
    outside = np.flatnonzero(radii > LIMIT)
    return int(outside[0]) if outside.size else None


@dataclass(frozen=True)
class Echo:
    """One echo's run: its regime, its steps, what a full turn multiplies its radius by, its final radius and the
    ratio of its end to its start; the step it leaves its panel at and its radius there (None if it stays)."""

    name: str
    steps: int
    per_turn: float
    final: float
    ratio: float
    leaves: int | None
    exit_radius: float | None


def echo_facts(rho: float, divisor: int, radii: np.ndarray) -> Echo:
    """The echo's facts: what the notes, the narration and the German quote."""
    leaves = exit_step(radii)
    exit_radius = None if leaves is None else float(radii[leaves])
    final, ratio = float(radii[-1]), float(radii[-1] / radii[0])
    return Echo(regime(rho), len(radii) - 1, rho**divisor, final, ratio, leaves, exit_radius)


# --- the words: notes for the lecturer, narration for the listener (one string per beat) --------------------

MOTION = {"forgetting": "spirals in and fades", "stable memory": "circles without end", "exploding": "spirals out"}
REGIMES = ("stable memory", "forgetting", "exploding")  # in the order the verdict names them
VERB = {"forgetting": "fades", "stable memory": "holds", "exploding": "grows"}


def opening_notes(divisor: int, steps: int) -> str:
    return (
        f"A 2-D rotation by 2 pi/{divisor} scaled by rho makes the echo of one input pulse visible. "
        f"The pulse h_0 = (1, 0) enters once; after that the state only rotates and scales for {steps} steps."
    )


@translated
def opening_said(rhos: np.ndarray) -> dict[str, str]:
    """While the formula is written, then while the panels appear, one per rho."""
    values = spoken.listing([f"{mark(f'panel{i}')}{spoken.number(float(rho), 2)}" for i, rho in enumerate(rhos)])
    return {
        "written": (
            f"One pulse {mark('pulse')}enters a two-dimensional network, once; "
            f"then each step {mark('turns')}turns the state by a fixed angle and {mark('scales')}scales it by rho."
        ),
        "panels": (
            f"{spoken.sentence(spoken.count(len(rhos), 'panel'))}, for rho of {values}; "
            f"{mark('under')}under {'each' if len(rhos) > 1 else 'it'}, the length of the state on a "
            f"{'shared ' if len(rhos) > 1 else ''}log scale."
        ),
    }


def echo_notes(rho: float, divisor: int, radii: np.ndarray, panels: int) -> str:
    facts = echo_facts(rho, divisor, radii)
    exit_note = ""
    if facts.leaves is not None:
        exit_note = f" It leaves the panel at t = {facts.leaves} (|h| = {facts.exit_radius:.2f})"
        exit_note += f"{' and keeps growing' if rho > 1 else ''}."
    return (
        f"rho = {rho:g}, {facts.name}: each turn multiplies the radius by {facts.per_turn:.3g}. "
        f"Its radius |h_t|, traced below on a log scale{shared(panels)}, reaches "
        f"|h_{facts.steps}| = {facts.final:.3g}.{exit_note}"
    )


def shared(panels: int) -> str:
    """Which panels the log scale is shared by, in the notes: " shared by the three", or nothing for one."""
    if panels == 1:
        return ""
    return f" shared by {'both' if panels == 2 else f'the {spoken.integer(panels)}'}"


@translated
def echo_said(rho: float, divisor: int, radii: np.ndarray) -> dict[str, Any]:
    """While the echo is traced ('traced', a str); then, if it leaves its panel, while the exit is marked
    ('leaves', a list of one beat, or empty when the echo stays inside)."""
    facts = echo_facts(rho, divisor, radii)
    turn = f"every full turn of {spoken.integer(divisor)} steps"
    effect = f"multiplies its radius by {about(facts.per_turn)}"
    if facts.name == "stable memory":
        effect = "brings it back to radius one"
    traced = (
        f"With rho at {spoken.number(rho, 2)}, {mark('turn')}{turn} {effect}: "
        f"{mark('echo')}the echo {MOTION[facts.name]}, "
        f"and after {spoken.integer(facts.steps)} steps it {change(facts.ratio)}."
    )
    if facts.leaves is None:
        return {"traced": traced, "leaves": []}
    exit_beat = f"It leaves the panel at step {spoken.integer(facts.leaves)}{', and keeps growing' if rho > 1 else ''}."
    return {"traced": traced, "leaves": [exit_beat]}


def replay_notes(rhos: np.ndarray, radii: np.ndarray) -> str:
    steps = radii.shape[1] - 1
    finals = "; ".join(f"rho = {rho:g}: |h_{steps}| = {radius:.3g}" for rho, radius in zip(rhos, radii[:, -1]))
    if len(rhos) == 1:
        return f"The echo again: same rotation. {finals}."
    echoes = "Both echoes" if len(rhos) == 2 else f"All {spoken.integer(len(rhos))} echoes"
    return f"{echoes} again, side by side: same rotation, only the radius rho differs. {finals}."


@translated
def replay_said(rhos: np.ndarray) -> str:
    """While the echoes are traced again, together."""
    verbs = spoken.listing([VERB[regime(float(rho))] for rho in rhos], "or")
    if len(rhos) == 1:
        return f"Once more, the same rotation: the echo {verbs}."
    return f"Side by side, the same rotation with only rho changed: the echo {verbs}."


def verdict_notes(rhos: np.ndarray, radii: np.ndarray) -> str:
    steps = radii.shape[1] - 1
    sizes = ", ".join(f"{radius:.3g} (rho = {rho:g})" for rho, radius in zip(rhos, radii[:, -1]))
    return f"Damped, sustained or growing: the radius rho alone decides. After {steps} steps the echo has size {sizes}."


@translated
def verdict_said() -> str:
    """While the closing claim replaces the axis note and each regime's panel is pointed at as it is named."""
    return (
        f"So rho alone decides: only a rho of exactly {mark('stable memory')}one keeps the echo; "
        f"{mark('forgetting')}smaller forgets it, {mark('exploding')}larger explodes."
    )


# --- the scene ----------------------------------------------------------------------------------------------


class EchoOfAPulse(LectureSlide):
    """rnn2: one pulse through a 2-D rotation scaled by rho spirals in, circles, or spirals out."""

    data = ("linear_rnn",)

    def construct(self) -> None:
        run = self.load("linear_rnn")
        self.states, self.echo_rhos = run["echo_states"], run["echo_rhos"]
        self.angle = float(run["echo_angle"])
        self.steps = self.states.shape[1] - 1
        self.radii = np.linalg.norm(self.states, axis=-1)
        self.divisor = round(2 * math.pi / self.angle)
        self.opening()
        for index in range(len(self.echo_rhos)):
            self.echo(index)
        self.replay()
        self.verdict()

    # --- the slides -------------------------------------------------------------------------------------

    def opening(self) -> None:
        self.next_slide(notes=opening_notes(self.divisor, self.steps))
        said = opening_said(self.echo_rhos)
        # the pulse, the turn and the scale are separate parts, each written as the words name it
        pulse, turn, scale = r"h_0 = (1,\,0)", rf"R\!\left(\tfrac{{2\pi}}{{{self.divisor}}}\right)", r"\rho\,"
        formula = parts_formula(("h_t =", scale, turn, r"h_{t-1},\qquad", pulse), theme.tex_size(theme.BODY_SIZE), {})
        formula.move_to(2.5 * UP)  # below the title band, so it reads as the scene opening with the title
        recurrence = VGroup(part(formula, "h_t ="), part(formula, turn), part(formula, r"h_{t-1},\qquad"))
        with self.beat(said["written"]) as beat:
            self.title("The echo of a single pulse", along=[Write(part(formula, pulse))], run_time=beat.until("turns"))
            self.play(Write(recurrence), run_time=beat.until("scales"))
            self.play(Write(part(formula, scale)), run_time=beat.remaining)
        panel_parts, traces = self.build_columns()
        with self.beat(said["panels"]) as beat:  # each panel as its rho is said, then the traces under them
            for index, animations in enumerate(panel_parts):
                following = f"panel{index + 1}" if index + 1 < len(panel_parts) else "under"
                self.play(*animations, run_time=beat.until(following))
            self.play(*traces, run_time=beat.remaining)
        self.trackers = [ValueTracker(0.0) for _ in self.echo_rhos]

    def echo(self, index: int) -> None:
        rho = float(self.echo_rhos[index])
        self.next_slide(notes=echo_notes(rho, self.divisor, self.radii[index], len(self.echo_rhos)))
        words = echo_said(rho, self.divisor, self.radii[index])
        with self.beat(words["traced"]) as beat:
            self.play(Circumscribe(self.headers[index], color=rho_colour(rho)), run_time=beat.until("turn"))
            self.trace(index, beat)
        for said in words["leaves"]:
            with self.beat(said) as beat:
                self.mark_exit(index, beat.remaining)

    def replay(self) -> None:
        self.next_slide(loop=True, notes=replay_notes(self.echo_rhos, self.radii))
        together = replay_said(self.echo_rhos)
        for tracker in self.trackers:
            tracker.set_value(0)
        with self.beat(together) as beat:
            self.play(
                *[tracker.animate.set_value(self.steps) for tracker in self.trackers],
                run_time=beat.remaining,
                rate_func=linear,
            )

    def verdict(self) -> None:
        self.next_slide(notes=verdict_notes(self.echo_rhos, self.radii))
        claim = verdict_said()
        named = [name for name in REGIMES if name in self.headers_by_regime]  # in the order the words name them
        with self.beat(claim) as beat:
            self.play(FadeOut(self.axis_note), run_time=0.3)  # the claim takes the bottom line
            self.say("only ρ = 1 keeps the echo: smaller forgets, larger explodes", colour=theme.caption_colour(),
                     run_time=beat.until(named[0]))  # fmt: skip
            for index, name in enumerate(named):  # each regime's panel header as the words name it
                span = beat.until(named[index + 1]) if index + 1 < len(named) else beat.remaining
                self.play(Indicate(self.headers_by_regime[name], color=theme.highlight()), run_time=span)

    # --- drawing ------------------------------------------------------------------------------------------

    def build_columns(self) -> tuple[list[list], list]:
        """One column per rho: its header, its spiral's plane and the log trace of its radius; the animations
        that bring in each column's panel, and those that bring in the traces under them."""
        self.columns, self.headers = [], []
        xs = np.linspace(-4.5, 4.5, len(self.echo_rhos))
        low = int(np.floor(np.log10(self.radii.min())))
        high = int(np.ceil(np.log10(self.radii.max())))
        step = max(1, int(np.ceil((high - low) / 2)))  # three labelled decades at most: legible at 480p
        high = low + step * int(np.ceil((high - low) / step))
        panels, traces = [], []
        for rho, x in zip(self.echo_rhos, xs):
            colour = rho_colour(rho)
            header = theme.text(f"ρ = {rho:g}: {regime(rho)}", theme.LABEL_SIZE, colour).move_to([x, 2.0, 0])
            plane = VectorDiagram((-LIMIT, LIMIT, 1), (-LIMIT, LIMIT, 1), width=2.6).move_to([x, 0.45, 0])
            unit = DashedVMobject(plane.circle(1.0, theme.muted()), num_dashes=30)
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
            trace.move_to([x + 0.25, -2.15, 0])  # under the room a note of where the echo leaves takes
            unit_radius = trace.hline(1.0, dashed=False).set_stroke(opacity=0.4)
            self.columns.append((plane, trace, colour))
            self.headers.append(header)
            panels.append([FadeIn(header), Create(plane), Create(unit)])
            traces += [Create(trace), Create(unit_radius)]
        self.axis_note = MathTex(
            r"\|h_t\|\ \text{against}\ t\ \text{(log scale)}",
            font_size=theme.tex_size(theme.SMALL_SIZE),
            color=theme.muted(),
        )
        self.axis_note.next_to(VGroup(*(trace for _, trace, _ in self.columns)), DOWN, buff=0.12).set_x(0)
        self.headers_by_regime = {regime(float(rho)): header for rho, header in zip(self.echo_rhos, self.headers)}
        return panels, [*traces, FadeIn(self.axis_note)]

    def last_inside(self, index: int) -> int:
        leaves = exit_step(self.radii[index])
        return leaves - 1 if leaves is not None else self.steps

    def trace(self, index: int, beat: Beat) -> None:
        """The echo spirals in its plane while its radius is traced below: its first full turn until the words
        reach "the echo", the remaining steps until they end."""
        plane, trace, colour = self.columns[index]
        tracker = self.trackers[index]
        last_inside = self.last_inside(index)
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
        self.play(
            tracker.animate.set_value(min(self.divisor, self.steps)), run_time=beat.until("echo"), rate_func=linear
        )
        self.play(tracker.animate.set_value(self.steps), run_time=beat.remaining, rate_func=linear)

    def mark_exit(self, index: int, run_time: float) -> None:
        """Where the echo left its panel: a dot at its last point inside, and the step it left at, under the panel
        (above its trace)."""
        plane, _, colour = self.columns[index]
        arrow_end = plane.to_point(self.states[index, self.last_inside(index)] * 1.0)
        note = theme.text(f"leaves at t = {exit_step(self.radii[index])}", theme.SMALL_SIZE, colour)
        note.next_to(plane, DOWN, buff=0.08)
        self.play(FadeIn(note), Create(Dot(arrow_end, radius=0.05, color=colour)), run_time=run_time)
