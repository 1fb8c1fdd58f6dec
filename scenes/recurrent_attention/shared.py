"""What the scenes of recurrent attention share: the build-up of an alignment (encoder tokens on top, the
decoder state below, additive scores, then softmax weights, then a row of the alignment matrix), and the
formatting of symbol sequences and of the decoder's mistakes for notes and narration."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    LEFT,
    RIGHT,
    Create,
    FadeIn,
    FadeOut,
    LaggedStart,
    MathTex,
    ReplacementTransform,
    RoundedRectangle,
    VGroup,
    Write,
)

from seqanim.contract import Artifact
from seqanim.kit import theme
from seqanim.kit.alignment import ScoreStrip, TokenRow, WeightedFan, label_above
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.motion import RollTexts, roll
from seqanim.slide import LectureSlide
from seqanim.spoken import integer, listing

# --- words ---------------------------------------------------------------------------------------


def symbols(values: Sequence[int] | np.ndarray) -> str:
    """A sequence as the notes write it: '3 4 0 5'."""
    return " ".join(map(str, values))


def wrong_steps(prediction: np.ndarray, target: np.ndarray) -> list[int]:
    """The decoder steps whose output is not the target's symbol."""
    return [t for t in range(len(target)) if int(prediction[t]) != int(target[t])]


def mistakes_noted(prediction: np.ndarray, target: np.ndarray) -> str:
    """The notes' account of the wrong steps: 'step 5 emits 7 where the target is 9; step 6 ...'."""
    return "; ".join(
        f"step {t} emits {int(prediction[t])} where the target is {int(target[t])}"
        for t in wrong_steps(prediction, target)
    )


def mistakes_said(prediction: np.ndarray, target: np.ndarray) -> str:
    """The wrong steps as heard: 'at step five it writes seven instead of nine'."""
    return listing(
        [
            f"at step {integer(t)} it writes {integer(int(prediction[t]))} instead of {integer(int(target[t]))}"
            for t in wrong_steps(prediction, target)
        ]
    )


# --- the build-up ----------------------------------------------------------------------------------


class AlignmentBuildUp(LectureSlide):
    """The shared build-up: encoder tokens on top, the decoder state below, scores -> weights -> heatmap row.

    One decoder step runs in four phases, each a method, so that a slide can give each its own beat:
    `point` (the decoder moves to step t), `score` (the additive scores), `weigh` (the softmax weights, in
    the strip and the fan) and `land` (the weights become row t of the alignment matrix)."""

    PANEL_LEFT = -6.75  # left edge of the mechanism panel; the heatmap sits right of x = 0
    SPACING = 0.72  # one token per column: a two-decimal weight fits under its token at the smallest size
    STRIP_CELL = 0.64

    def build_stage(self, run: Artifact, cell_size: float, col_title: str, encoder_text: str) -> None:
        """Create (without showing) every mobject of the build-up."""
        source, prediction = run["source"], run["prediction"]
        attention, energies = run["attention"], run["energies"]
        self.source, self.prediction, self.attention, self.energies = source, prediction, attention, energies
        length = len(source)

        self.encoder = TokenRow([str(s) for s in source], spacing=self.SPACING, colour=theme.key_colour())
        self.encoder.move_to([0, 2.05, 0]).align_to([self.PANEL_LEFT, 0, 0], LEFT)
        panel_centre = self.encoder.get_center()[0]
        self.encoder_label = label_above(self.encoder, encoder_text).align_to(self.encoder, LEFT)

        self.node = RoundedRectangle(
            corner_radius=0.12,
            width=3.1,
            height=0.56,
            stroke_color=theme.query_colour(),
            fill_color=theme.query_colour(),
            fill_opacity=0.2,
        )
        self.node.move_to([panel_centre, 0.1, 0])
        self.node_text = self.state_label(0)
        self.emitted = VGroup()  # "emits 2", next to the decoder state once it has spoken
        self.fan = WeightedFan(
            self.node.get_top(), [self.encoder.bottom(j) for j in range(length)], colour=theme.highlight()
        )

        limit = float(np.abs(energies).max())
        self.energy_strip = ScoreStrip(
            length,
            vmin=-limit,
            vmax=limit,
            colormap=theme.diverging_colormap(),
            spacing=self.SPACING,
            cell_size=self.STRIP_CELL,
            fmt="{:.1f}",
        )
        self.energy_strip.move_to([panel_centre, -1.45, 0]).blank()
        # Weights under 0.05 show as colour only: the row reads as its peaks, not as a row of small numbers.
        self.weight_strip = ScoreStrip(
            length, vmin=0.0, vmax=1.0, spacing=self.SPACING, cell_size=self.STRIP_CELL, fmt="{:.2f}", hide_below=0.05
        )
        self.weight_strip.move_to([panel_centre, -2.7, 0]).blank()
        self.energy_label = MathTex(
            r"e_{t,j}", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.foreground()
        ).next_to(self.energy_strip, LEFT, buff=0.1)
        self.weight_label = MathTex(
            r"\alpha_{t,j}", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.foreground()
        ).next_to(self.weight_strip, LEFT, buff=0.1)
        self.score_formula = MathTex(
            r"e_{t,j} = v^\top \tanh(W_k\, h_j + W_q\, s_t)",
            font_size=theme.tex_size(theme.LABEL_SIZE),
            color=theme.foreground(),
        )
        self.score_formula.move_to([panel_centre, -0.68, 0])
        self.softmax_formula = MathTex(
            r"\alpha_{t,j} = \mathrm{softmax}_j\,(e_{t,j})",
            font_size=theme.tex_size(theme.LABEL_SIZE),
            color=theme.foreground(),
        )
        self.softmax_formula.move_to([panel_centre, -2.07, 0])

        self.heatmap = Heatmap(
            attention,
            row_labels=[str(p) for p in prediction],
            col_labels=[str(s) for s in source],
            row_title="query: decoder output",
            col_title=f"key: {col_title}",
            cell_size=cell_size,
            vmin=0.0,
            vmax=1.0,
            col_labels_on_top=True,
        )
        self.heatmap.shift(np.array([3.9, -0.5, 0]) - self.heatmap.cells.get_center())
        self.heatmap.blank()
        self.heatmap.row_labels.set_opacity(0)
        self.heatmap.row_labels.set_z_index(1)  # lit one by one: drawn last, so the matrix under them stays still
        self.row_box = self.heatmap.row_box(0, theme.query_colour())

    def state_label(self, step: int) -> VGroup:
        """ "decoder state s_t" with a real subscript, centred in the decoder node."""
        words = theme.text("decoder state", theme.SMALL_SIZE)
        symbol = MathTex(rf"s_{{{step}}}", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.foreground())
        return VGroup(words, symbol).arrange(RIGHT, buff=0.12).move_to(self.node)

    def show_encoder(self) -> None:
        self.play(LaggedStart(FadeIn(self.encoder), FadeIn(self.encoder_label), lag_ratio=0.3), run_time=0.9)

    def show_decoder(self) -> None:
        self.play(FadeIn(self.heatmap), FadeIn(self.node), FadeIn(self.node_text), Create(self.fan), run_time=1.0)

    @staticmethod
    def pace(detailed: bool) -> float:
        return 1.0 if detailed else 0.45

    def decode_step(self, step: int, detailed: bool, introduce: bool = False) -> None:
        """One decoder step: scores, softmax weights (fan + strip), then the row lands in the heatmap."""
        self.point(step, detailed)
        self.score(step, detailed, introduce)
        self.weigh(step, detailed, introduce)
        self.land(step, detailed)

    def point(self, step: int, detailed: bool) -> None:
        """The decoder moves on to step `step`: its state's label and the row box of the matrix."""
        # What stays still during a step is drawn once per animation, not on every frame.
        self.backdrop(
            self._caption,
            self.score_formula,
            self.softmax_formula,
            self.energy_label,
            self.weight_label,
            self.node,
            self.heatmap,
            self.encoder_label,
            self.encoder,
        )
        box = self.heatmap.row_box(step, theme.query_colour())
        fades = [self.emitted.animate.set_opacity(0.35)] if len(self.emitted) else []
        self.play(
            RollTexts(self.node_text, self.state_label(step)),
            ReplacementTransform(self.row_box, box),
            *fades,
            run_time=0.4 * self.pace(detailed),
        )
        self.row_box = box

    def score(self, step: int, detailed: bool, introduce: bool = False) -> None:
        """The additive scores of step `step` fill the score strip (after its formula, the first time)."""
        if introduce:
            self.play(Write(self.score_formula), FadeIn(self.energy_strip), run_time=1.2)
        self.play(*self.energy_strip.animate_values(self.energies[step]), run_time=0.9 * self.pace(detailed))
        self.energy_strip.settle()

    def weigh(self, step: int, detailed: bool, introduce: bool = False) -> None:
        """The softmax weights of step `step`: the weight strip and the fan's lines."""
        if introduce:
            self.play(Write(self.softmax_formula), FadeIn(self.weight_strip), run_time=1.0)
        weights = self.attention[step]
        self.play(
            *self.weight_strip.animate_values(weights),
            self.fan.animate_weights(weights),
            run_time=0.9 * self.pace(detailed),
        )
        self.weight_strip.settle()
        if detailed:
            self.wait(0.4)

    def land(self, step: int, detailed: bool) -> None:
        """Write the weights into row `step` of the alignment matrix: the strip's cells fly into place."""
        weights = self.attention[step]
        ghost = self.weight_strip.cells.copy()
        landing = VGroup(*[cell.copy() for cell in self.heatmap.row(step)])
        for cell, weight in zip(landing, weights):
            cell.set_fill(self.weight_strip.colour(float(weight)), opacity=1)
        emitted = theme.text(f"emits {self.prediction[step]}", theme.LABEL_SIZE, theme.query_colour()).next_to(
            self.node, RIGHT, buff=0.25
        )
        label = self.heatmap.row_labels[step]
        self.play(
            ReplacementTransform(ghost, landing),
            label.animate.set_opacity(1).set_color(theme.query_colour()),
            roll(self.emitted, emitted) if len(self.emitted) else FadeIn(emitted),
            run_time=0.9 * self.pace(detailed),
        )
        self.emitted = emitted
        self.heatmap.recolour(self.attention, rows=[step])
        self.remove(landing)
        if step > 0:
            self.heatmap.row_labels[step - 1].set_color(theme.foreground())

    def finish_decoding(self) -> None:
        """After the last step: the row box goes, the last "emits" fades."""
        self.remove(self.row_box)
        self.play(FadeOut(self.emitted), run_time=0.3)

    def clear_mechanism(self) -> None:
        """Fade out the left panel (tokens, decoder, strips, formulas), keeping the heatmap."""
        self.heatmap.row_labels.set_color(theme.foreground())
        self.backdrop(self.heatmap)  # it stays: drawn once while the panel fades
        parts = [
            self.encoder,
            self.encoder_label,
            self.node,
            self.node_text,
            self.emitted,
            self.fan,
            self.energy_strip,
            self.weight_strip,
            self.energy_label,
            self.weight_label,
            self.score_formula,
            self.softmax_formula,
            self.row_box,
        ]
        self.play(*[FadeOut(part) for part in parts], run_time=0.7)
