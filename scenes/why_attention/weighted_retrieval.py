"""WeightedRetrieval (seed 003, cells 14-16): C = AV. Every value arrow is scaled by its weight and the pieces
add up tip to tail into the context; no argmax picks one value."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from manim import (
    DL,
    DOWN,
    DR,
    LEFT,
    RIGHT,
    UL,
    UP,
    UR,
    AnimationGroup,
    Create,
    FadeIn,
    GrowArrow,
    Indicate,
    LaggedStart,
    ManimColor,
    MathTex,
    Mobject,
    VGroup,
    Write,
)

from scenes.why_attention.shared import CAPTION_SIZE, WhyAttentionSlide, fmt_g, fmt_row, key_labels
from seqanim import Artifact, Beat, count, listing, mark, number, translated
from seqanim.kit import layout, theme
from seqanim.kit.formula import CONTEXT, formula
from seqanim.kit.vectors import VectorDiagram

# --- the words -----------------------------------------------------------------------------------------


def values_notes(art: Artifact) -> str:
    V, weights, labels = art["V"], art["weights"][0], key_labels(art)
    return (
        f"The output is weights @ V. The weights {fmt_row(weights)} scale the values "
        f"{', '.join(f'v_{label} = {fmt_g(v)}' for label, v in zip(labels, V))}; "
        "each output coordinate combines the same weights with that coordinate of every value."
    )


@translated
def values_said(art: Artifact) -> dict[str, str]:
    return {
        "sum": "The output of attention is a weighted sum of the values.",
        "arrows": f"The {count(len(art['V']), 'value')} appear as faint arrows in their own plane.",
    }


@dataclass(frozen=True)
class Link:
    """One value in the chain: its label, its weight and w_i v_i; `starts` when it is the first that adds."""

    label: str
    weight: float
    contribution: np.ndarray
    adds: bool
    starts: bool


def chain_links(art: Artifact) -> list[Link]:
    """Each value's link of the chain, in order: the first value that adds anything starts it."""
    links: list[Link] = []
    started = False
    for label, weight, contribution in zip(key_labels(art), art["weights"][0], art["contributions"]):
        adds = bool(np.linalg.norm(contribution) >= 1e-9)
        links.append(Link(label, float(weight), contribution, adds, starts=adds and not started))
        started = started or adds
    return links


@dataclass(frozen=True)
class Contributors:
    """Which values' pieces reach the context (the notebook's: all) and which add nothing (w_i v_i = 0: a zero
    value, or a weight too small to move it), by name."""

    adding: tuple[str, ...]
    silent: tuple[str, ...]


def contributors(art: Artifact) -> Contributors:
    links = chain_links(art)
    return Contributors(
        tuple(link.label for link in links if link.adds), tuple(link.label for link in links if not link.adds)
    )


def chain_notes(art: Artifact) -> str:
    pieces = "; ".join(f"w_{link.label} v_{link.label} = {fmt_row(link.contribution)}" for link in chain_links(art))
    silent = contributors(art).silent
    verb = "adds" if len(silent) == 1 else "add"
    every = (
        "every value contributes"
        if not silent
        else f"every value is weighed, though w_i v_i is zero for {', '.join(silent)}, which {verb} nothing"
    )
    return (
        f"Each value shrinks to w_i v_i and joins the chain tip to tail: {pieces}. "
        f"There is no argmax selection: {every}."
    )


@translated
def chain_said(art: Artifact) -> list[str]:
    """One beat per value, in order."""
    said: list[str] = []
    for link in chain_links(art):
        if not link.adds:
            said.append(f"{link.label}'s weight times its value adds nothing.")
        elif link.starts:
            shrinks = f"{link.label}'s value shrinks to {number(link.weight, 2)} of its length"
            said.append(f"{shrinks} {mark('join')}and starts the chain.")
        else:
            said.append(f"{link.label}'s value, scaled by {number(link.weight, 2)}, {mark('join')}joins tip to tail.")
    return said


@dataclass(frozen=True)
class Coordinate:
    """Where one coordinate of the context comes from: the values that add to it, and what each adds."""

    labels: tuple[str, ...]
    values: tuple[float, ...]


def coordinate_sources(art: Artifact, axis: int) -> Coordinate:
    """The values whose piece moves the context along `axis`."""
    used = [(label, float(c[axis])) for label, c in zip(key_labels(art), art["contributions"]) if abs(c[axis]) > 1e-9]
    return Coordinate(tuple(label for label, _ in used), tuple(value for _, value in used))


def context_notes(art: Artifact) -> str:
    first, second = coordinate_sources(art, 0), coordinate_sources(art, 1)

    def sources(coordinate: Coordinate) -> str:
        added = " + ".join(f"{value:.4f}" for value in coordinate.values)
        return f"{' and '.join(coordinate.labels)} ({added})"

    return (
        f"Checkpoint: the context is approximately {fmt_row(art['context'][0])}. "
        f"Coordinate 1 comes from {sources(first)}; coordinate 2 from {sources(second)}."
    )


@translated
def context_said(art: Artifact) -> dict[str, str]:
    context, who = art["context"][0], contributors(art)
    if not who.silent:
        every = f"No single value is picked: {mark('every')}every value contributes to the context."
    elif not who.adding:
        every = f"Every piece here is zero, {mark('every')}so the context is zero too."
    elif len(who.adding) == 1:
        every = f"No value is picked whole: {mark('every')}only {who.adding[0]}'s, scaled by its weight, remains."
    else:
        every = f"No single value is picked: {mark('every')}every value but {listing(list(who.silent))} contributes."
    return {
        "ends": f"The chain ends at the context, {mark('about')}about {number(float(context[0]), 1)} across "
        f"and {number(float(context[1]), 1)} up.",
        "every": every,
    }


def every_caption(art: Artifact) -> str:
    """What the screen says of the values that reach the context."""
    who = contributors(art)
    if not who.silent:
        return "no argmax: every value contributes to the context"
    if not who.adding:
        return "every weighted value is zero: so is the context"
    if len(who.adding) == 1:
        return f"no argmax: only {who.adding[0]}'s value, scaled by its weight, reaches the context"
    return f"no argmax: every value but {', '.join(who.silent)} contributes to the context"


def arrow_head(start: np.ndarray, end: np.ndarray, length: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """The last `length` of the arrow from `start` to `end`, where its head is drawn."""
    return end - length * (end - start) / max(float(np.linalg.norm(end - start)), 1e-9), end


# --- the scene -------------------------------------------------------------------------------------------


class WeightedRetrieval(WhyAttentionSlide):
    """C = AV: every value is scaled by its weight and the pieces add up tip to tail. No argmax."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.values()
        self.chain()
        self.context()

    def values(self) -> None:
        art = self.art
        self.next_slide(notes=values_notes(art))
        said = values_said(art)
        heading = self.heading("Retrieve: a weighted sum of values")
        self.equation = formula(CONTEXT, size=theme.BODY_SIZE + 8).to_edge(LEFT, buff=0.9).shift(1.9 * UP)
        self.diagram = self.value_plane(art["V"])
        self.value_names = self.value_labels()
        self.value_arrows = VGroup(
            *[self.diagram.arrow(v, c, stroke_width=3).set_opacity(0.35) for v, c in zip(art["V"], self.colours)]
        )
        with self.beat(said["sum"]) as beat:
            self.title(heading, along=[Write(self.equation), Create(self.diagram)], run_time=beat.remaining)
        with self.beat(said["arrows"]) as beat:
            self.play(
                LaggedStart(*[GrowArrow(a) for a in self.value_arrows], lag_ratio=0.3),
                FadeIn(self.value_names),
                run_time=beat.remaining,
            )

    def chain(self) -> None:
        art = self.art
        self.next_slide(notes=chain_notes(art))
        self.lines, self.total = self.sum_lines()
        self.tip, self.pieces = np.zeros(2), VGroup()
        for index, said in enumerate(chain_said(art)):
            with self.beat(said) as beat:
                self.add_piece(index, beat)

    def context(self) -> None:
        art = self.art
        self.next_slide(notes=context_notes(art))
        said = context_said(art)
        context = art["context"][0]
        result = self.diagram.arrow(context, theme.highlight(), stroke_width=7)
        result_label = self.context_label(result)
        self.pieces.set_z_index(2)  # the chain stays on top of the sum it builds
        with self.beat(said["ends"]) as beat:
            self.play(GrowArrow(result), run_time=beat.until("about"))
            self.play(FadeIn(self.total, shift=0.2 * RIGHT), FadeIn(result_label), run_time=beat.remaining)
        with self.beat(said["every"]) as beat:
            self.say(
                every_caption(self.art), colour=theme.caption_colour(), size=CAPTION_SIZE, run_time=beat.until("every")
            )
            self.play(  # each value's piece of the chain and its line of the sum, in turn
                LaggedStart(
                    *[
                        AnimationGroup(Indicate(piece, color=colour), Indicate(line, color=colour))
                        for piece, line, colour in self.contributing()
                    ],
                    lag_ratio=0.5,
                ),
                run_time=beat.remaining,
            )

    def contributing(self) -> list[tuple[Mobject, MathTex, ManimColor]]:
        """Each value that adds to the context: its piece of the chain, its line of the sum and its colour."""
        pieces = iter(self.pieces)
        return [
            (next(pieces), line, colour)
            for link, line, colour in zip(chain_links(self.art), self.lines, self.colours)
            if link.adds
        ]

    # --- drawing ---------------------------------------------------------------------------------------

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

    def value_labels(self) -> VGroup:
        """v_X beside each value's tip: above it (right of a value that lies low), or else on the first side clear
        of every arrow the slides draw, of the axes (v_A right of its tip lay on the axis) and of the labels before
        it (five values' v_D lay under the chain's tip)."""
        lines, placed = [*self.arrow_lines(), *self.diagram.axis_lines()], VGroup()
        for v, colour, name in zip(self.art["V"], self.colours, self.labels):
            label, tip = theme.text(f"v_{name}", theme.LABEL_SIZE, colour), self.diagram.to_point(v)
            sides = [UP, RIGHT] if v[1] >= v[0] else [RIGHT, UP]
            layout.beside_clear(label, tip, [*sides, LEFT, DOWN, UL, UR, DR, DL], placed, lines, buffs=(0.1, 0.4))
            placed.add(label)
        return placed

    def context_label(self, result: Mobject) -> Mobject:
        """c = [..] beside the context's tip, inside the plane's right edge: above it, or else on the first side clear
        of the value labels, the arrows' heads and the axes; where none is (with q = [0.5, 1.5] and five values it
        lay on v_E), "c" alone, its value read in the sum beside the plane."""

        def beside(text: str, side: np.ndarray) -> Mobject:
            label = theme.text(text, theme.LABEL_SIZE, theme.highlight()).next_to(result.get_end(), side, buff=0.2)
            return label.shift(min(0.0, self.diagram.get_right()[0] - label.get_right()[0]) * RIGHT)

        lines = [*(arrow_head(*line) for line in self.arrow_lines()), *self.diagram.axis_lines()]
        context = f"c = {fmt_row(self.art['context'][0])}"
        labels = (beside(text, side) for text, side in itertools.product((context, "c"), (UP, DOWN, UL, DL, UR, DR)))
        clear = (label for label in labels if not layout.conflicts(label, self.value_names, lines))
        return next(clear, beside(context, UP))

    def arrow_lines(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Where each arrow of the slides runs, start and end in the frame: the values, the chain's pieces and the
        context."""
        origin, tip = self.diagram.to_point((0, 0)), np.zeros(2)
        lines = [(origin, self.diagram.to_point(v)) for v in self.art["V"]]
        for contribution in self.art["contributions"]:
            lines.append((self.diagram.to_point(tip), self.diagram.to_point(tip + contribution)))
            tip = tip + contribution
        return [*lines, (origin, self.diagram.to_point(self.art["context"][0]))]

    def sum_lines(self) -> tuple[VGroup, MathTex]:
        """w_X v_X = w × v = [..] per value, and their sum c, under the formula (not yet shown)."""
        V, weights, contributions, context = (
            self.art["V"],
            self.art["weights"][0],
            self.art["contributions"],
            self.art["context"][0],
        )
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

        def stack(buff: float) -> None:
            VGroup(*lines, total).arrange(DOWN, aligned_edge=LEFT, buff=buff).next_to(
                self.equation, DOWN, buff=0.5
            ).align_to(self.equation, LEFT)
            total.shift(0.15 * DOWN)

        stack(0.32)
        # Six values' sum reached the closing caption: the gaps between the lines close up, the text keeps its size.
        floor = self.caption(every_caption(self.art), size=CAPTION_SIZE).get_top()[1] + 0.1
        if total.get_bottom()[1] < floor:
            stack(max(0.1, 0.32 - (floor - total.get_bottom()[1]) / len(lines)))
        return lines, total

    def add_piece(self, index: int, beat: Beat) -> None:
        """Value `index` shrinks to w_i v_i beside its line of the sum as its weight is said, then joins the chain
        tip to tail."""
        contribution, colour = self.art["contributions"][index], self.colours[index]
        if np.linalg.norm(contribution) < 1e-9:
            self.play(FadeIn(self.lines[index]), run_time=beat.remaining)
            return
        piece = self.value_arrows[index].copy().set_opacity(1)
        self.play(
            FadeIn(self.lines[index], shift=0.2 * RIGHT),
            piece.animate.become(self.diagram.arrow(contribution, colour, stroke_width=5)),
            run_time=beat.until("join"),
        )
        tip = self.tip
        self.play(
            piece.animate.become(self.diagram.arrow(tip + contribution, colour, start=tip, stroke_width=5)),
            run_time=beat.remaining,
        )
        self.pieces.add(piece)
        self.tip = tip + contribution
