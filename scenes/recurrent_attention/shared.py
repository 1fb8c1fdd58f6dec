"""What the scenes of recurrent attention share: the build-up of an alignment (encoder tokens on top, the
decoder state below, additive scores, then softmax weights, then a row of the alignment matrix), and the
formatting of symbol sequences and of the decoder's mistakes for notes and narration."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    Animation,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    MathTex,
    ReplacementTransform,
    RoundedRectangle,
    VGroup,
    Write,
)

from seqanim import Artifact, Beat, LectureSlide, integer, listing, translated
from seqanim.kit import theme
from seqanim.kit.alignment import ScoreStrip, TokenRow, WeightedFan, label_above
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.motion import RollTexts, roll

# --- words ---------------------------------------------------------------------------------------


def symbols(values: Sequence[int] | np.ndarray) -> str:
    """A sequence as the notes write it: '3 4 0 5'."""
    return " ".join(map(str, values))


# A rule the peaks follow in most held-out steps, more than half, is said to decide: "position decides there",
# "attention has learned an alignment".
MOST = 0.5


def reads_both_ways(run: Artifact) -> bool:
    """Whether the run's encoder reads its input both ways (its `bidirectional` parameter), as it was trained."""
    return bool(run.params["bidirectional"])


def wrong_steps(prediction: np.ndarray, target: np.ndarray) -> list[int]:
    """The decoder steps whose output is not the target's symbol."""
    return [t for t in range(len(target)) if int(prediction[t]) != int(target[t])]


def mistakes_noted(prediction: np.ndarray, target: np.ndarray) -> str:
    """The notes' account of the wrong steps: 'step 5 emits 7 where the target is 9; step 6 ...'."""
    return "; ".join(
        f"step {t} emits {int(prediction[t])} where the target is {int(target[t])}"
        for t in wrong_steps(prediction, target)
    )


@translated
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

    One decoder step runs in four phases, each a method taking its run time, so that a slide can give each its
    own beat (or the part of a beat up to a bookmark): `point` (the decoder moves to step t), `score` (the
    additive scores), `weigh` (the softmax weights, in the strip and the fan) and `land` (the weights become row
    t of the alignment matrix)."""

    PANEL_LEFT = -6.75  # left edge of the mechanism panel; the heatmap sits right of x = 0
    SPACING = 0.72  # one token per column: a two-decimal weight fits under its token at the smallest size
    STRIP_CELL = 0.64

    def build_stage(self, run: Artifact, side: float, col_title: str, encoder_text: str) -> None:
        """Create (without showing) every mobject of the build-up; the alignment matrix `side` units square at any
        sequence length, so that its titles clear each other."""
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
        for formula in (self.score_formula, self.softmax_formula):  # under a short sequence: from the panel's edge
            if formula.get_left()[0] < self.PANEL_LEFT:
                formula.align_to([self.PANEL_LEFT, 0, 0], LEFT)

        # Right of the mechanism panel, with room for its row labels and title (0.9) and for its colour bar (the
        # cells end by 6.35): smaller where a long sequence widens the panel (3.56 units at a length of 12; much
        # smaller, and its rotated row title would reach the column title above).
        panel_right = self.PANEL_LEFT + length * self.SPACING
        matrix_side = min(side, 6.35 - (panel_right + 0.9))
        matrix_x = max(3.9, panel_right + 0.9 + matrix_side / 2)
        self.heatmap = Heatmap(
            attention,
            row_labels=[str(p) for p in prediction],
            col_labels=[str(s) for s in source],
            row_title="query: decoder output",
            col_title=f"key: {col_title}",
            cell_size=matrix_side / length,
            vmin=0.0,
            vmax=1.0,
            col_labels_on_top=True,
        )
        self.heatmap.shift(np.array([matrix_x, -0.5, 0]) - self.heatmap.cells.get_center())
        self.heatmap.blank()
        self.heatmap.row_labels.set_opacity(0)
        self.heatmap.row_labels.set_z_index(1)  # lit one by one: drawn last, so the matrix under them stays still
        self.row_box = self.heatmap.row_box(0, theme.query_colour())

    def state_label(self, step: int) -> VGroup:
        """ "decoder state s_t" with a real subscript, centred in the decoder node."""
        words = theme.text("decoder state", theme.SMALL_SIZE)
        symbol = MathTex(rf"s_{{{step}}}", font_size=theme.tex_size(theme.LABEL_SIZE), color=theme.foreground())
        return VGroup(words, symbol).arrange(RIGHT, buff=0.12).move_to(self.node)

    def encoder_reads(self) -> Animation:
        """The encoder's tokens appear left to right, as it reads them."""
        tokens = [FadeIn(self.encoder.token(j), shift=0.1 * DOWN) for j in range(len(self.encoder))]
        return LaggedStart(*tokens, lag_ratio=0.5)

    def show_decoder(self, run_time: float) -> None:
        """The decoder state below the tokens, its fan of lines up to them."""
        self.play(FadeIn(self.node), FadeIn(self.node_text), Create(self.fan), run_time=run_time)

    def show_matrix(self, run_time: float) -> None:
        """The alignment matrix, empty, on the right."""
        self.play(FadeIn(self.heatmap), run_time=run_time)

    def decode_step(self, step: int, run_time: float) -> None:
        """One decoder step in `run_time` seconds: scores, softmax weights (fan + strip), then the row lands."""
        self.point(step, 0.15 * run_time)
        self.score(step, 0.3 * run_time)
        self.weigh(step, 0.3 * run_time)
        self.land(step, 0.25 * run_time)

    def decode(self, steps: list[int], beat: Beat, until: str | None = None) -> None:
        """Decoder steps `steps`, sharing the beat's time up to bookmark `until` (or its end) equally."""
        for index, step in enumerate(steps):
            left = beat.until(until) if until else beat.remaining
            self.decode_step(step, left / (len(steps) - index))

    def point(self, step: int, run_time: float, *along: Animation) -> None:
        """The decoder moves on to step `step`: its state's label and the row box of the matrix (with `along`)."""
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
            *along,
            run_time=run_time,
        )
        self.row_box = box

    def recaption(self, text: str, colour: object = None) -> list[Animation]:
        """The bottom caption turning into `text`, to play with the animation it comments (`say` plays alone)."""
        line = self.caption(text, size=theme.LABEL_SIZE, colour=colour)
        fades = [*self.drop_caption(), FadeIn(line)]
        self._caption = line
        return fades

    def drop_caption(self) -> list[Animation]:
        """The previous step's caption fading out (none if there is none on screen)."""
        caption, self._caption = self._caption, None
        return [FadeOut(caption)] if caption is not None and caption in self.mobjects else []

    def introduce_scores(self, run_time: float) -> None:
        """The additive score's formula is written, its empty strip under it."""
        self.play(Write(self.score_formula), FadeIn(self.energy_strip), run_time=run_time)

    def score(self, step: int, run_time: float, *along: Animation) -> None:
        """The additive scores of step `step` fill the score strip (with `along`)."""
        self.play(*self.energy_strip.animate_values(self.energies[step]), *along, run_time=run_time)

    def introduce_weights(self, run_time: float) -> None:
        """The softmax's formula is written, its empty strip under it."""
        self.play(Write(self.softmax_formula), FadeIn(self.weight_strip), run_time=run_time)

    def weigh(self, step: int, run_time: float) -> None:
        """The softmax weights of step `step`: the weight strip and the fan's lines."""
        weights = self.attention[step]
        self.play(*self.weight_strip.animate_values(weights), self.fan.animate_weights(weights), run_time=run_time)

    # Indicate each mobject on screen itself: an animation of a group made for it (a token's box and symbol,
    # an AnimationGroup's Group) puts that group on top of the scene, over what should cover it.

    def indicate_token(self, index: int, colour: object) -> list[Animation]:
        """Point at encoder token `index`: its box and its symbol."""
        return [Indicate(part, color=colour) for part in (self.encoder.boxes[index], self.encoder.labels[index])]

    def peak(self, step: int) -> list[Animation]:
        """Point at step `step`'s largest weight in the strip, and at the token it falls on."""
        where = int(np.argmax(self.attention[step]))
        cell, number = self.weight_strip.cells[where], self.weight_strip.numbers[where]
        strip = [Indicate(part, color=theme.highlight()) for part in (cell, number)]
        return [*strip, *self.indicate_token(where, theme.highlight())]

    def land(self, step: int, run_time: float) -> None:
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
            run_time=run_time,
        )
        self.emitted = emitted
        self.heatmap.recolour(self.attention, rows=[step])
        self.remove(landing)
        if step > 0:
            self.heatmap.row_labels[step - 1].set_color(theme.foreground())

    def read_rows(self, rows: Sequence[int], run_time: float) -> None:
        """After the last step (the row box and the last "emits" go): the outputs `rows` are pointed at, top
        to bottom, as they are read."""
        self.remove(self.row_box)
        self.heatmap.row_labels.set_color(theme.foreground())
        labels = self.heatmap.row_labels
        read = [Indicate(labels[row], color=theme.query_colour()) for row in rows]
        self.play(FadeOut(self.emitted), LaggedStart(*read, lag_ratio=0.3, group=labels), run_time=run_time)

    def clear_mechanism(self, run_time: float = 0.5) -> None:
        """Fade out the left panel (tokens, decoder, strips, formulas) and the caption, keeping the heatmap."""
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
        # What has something on screen (the encoder is there as the tokens it faded in as, not as one group).
        shown = set(self.get_mobject_family_members())
        fades = [FadeOut(part) for part in parts if shown & set(part.get_family())]
        self.play(*fades, *self.drop_caption(), run_time=run_time)
