"""PaddingMask (seed 003, cells 23-25): padding hides keys that do not exist, the causal mask hides the future;
the two permissions combine with AND and the softmax runs over what both allow. A row with no allowed key at
all is refused, not returned as NaN."""

from __future__ import annotations

import textwrap

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    MathTex,
    RoundedRectangle,
    SurroundingRectangle,
    VGroup,
)

from scenes.why_attention.shared import CAPTION_SIZE, WhyAttentionSlide, fmt_row, position_labels
from seqanim.contract import Artifact
from seqanim.kit import theme
from seqanim.kit.matrix import MatrixTable, number_format
from seqanim.kit.motion import roll
from seqanim.spoken import integer, listing, number

# --- the words -----------------------------------------------------------------------------------------


def padded_keys(art: Artifact) -> list[int]:
    real = art["is_real_key"]
    return [i for i in range(len(real)) if not real[i]]


def empty_rows(art: Artifact) -> list[int]:
    dead = art["all_masked_allowed"]
    return [r for r in range(dead.shape[0]) if not dead[r].any()]


def combine_notes(art: Artifact) -> str:
    real, combined = art["is_real_key"], art["padding_allowed"]
    positions = position_labels(len(real))
    return (
        "A padding mask hides nonexistent tokens, a causal mask hides future tokens. "
        f"Combine the two permissions with AND: is_real_key = {[bool(x) for x in real]}, "
        f"so key {', '.join(positions[i] for i in padded_keys(art))} is padding. "
        f"Allowed keys per query row: {'; '.join(str(int(row.sum())) for row in combined)}."
    )


def combine_said(art: Artifact) -> tuple[str, ...]:
    padded = listing([integer(i) for i in padded_keys(art)])
    per_row = listing([integer(int(row.sum())) for row in art["padding_allowed"]])
    return (
        "Start from the causal mask: which keys each query may see.",
        f"Next, which keys are real: key {padded} is only padding.",
        "Combine the two: a key is allowed only where both masks allow it.",
        f"The padded column switches off, and the rows now allow {per_row} keys.",
    )


def weights_notes(art: Artifact) -> str:
    weights, padded = art["padding_weights"], padded_keys(art)
    column = ", ".join(f"{w:g}" for w in weights[:, padded[0]]) if padded else "absent"
    return (
        "Softmax over the allowed keys only. "
        f"No query can retrieve the padded key: its column is exactly {column}. "
        f"Rows: {'; '.join(fmt_row(r) for r in weights)}; row sums {fmt_row(weights.sum(axis=-1))}. "
        "Padded query rows are normally excluded from the loss, not read as predictions. "
        "Practice 2: replace all keys by the same vector and every query weighs the keys equally, "
        f"{fmt_row(art['same_key_weights'][0])}; with this padding mask the padded key still gets zero: "
        f"{fmt_row(art['same_key_padded_weights'][0])}."
    )


def weights_said(art: Artifact) -> tuple[str, ...]:
    weights, padded = art["padding_weights"], padded_keys(art)
    largest = number(float(weights[:, padded[0]].max()), 2) if padded else "zero"
    return (
        "The allowed pattern moves aside, and the masked scores appear on its right.",
        "A softmax then runs over the allowed keys only, one row at a time.",
        f"No query can retrieve the padded key: its weight is exactly {largest} in every row.",
    )


def all_masked_notes(art: Artifact) -> str:
    positions = position_labels(len(art["is_real_key"]))
    return (
        f"If key {positions[0]} were padding too, query row {empty_rows(art)[0]} would have no allowed key: "
        "softmax would be 0/0 = NaN. Prevent that case rather than silently treating NaN as an answer; "
        f"our helper refuses it with: {art['all_masked_error']}"
    )


def all_masked_said(art: Artifact) -> tuple[str, ...]:
    rows = empty_rows(art)
    return (
        f"Suppose key {integer(0)} were padding as well.",
        f"Then {'row' if len(rows) == 1 else 'rows'} {listing([integer(r) for r in rows])} "
        "would have no allowed key at all.",
        "A plain softmax would divide zero by zero, and return not a number.",
        "So our helper refuses such a row with an error, instead of passing on an empty answer.",
    )


# --- the scene -------------------------------------------------------------------------------------------


class PaddingMask(WhyAttentionSlide):
    """Padding hides nonexistent keys, causal hides the future: combine them; an all-masked row is refused."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.positions = position_labels(len(self.art["is_real_key"]))
        self.combine()
        self.weights()
        self.all_masked()

    def combine(self) -> None:
        art = self.art
        self.next_slide(notes=combine_notes(art))
        causal_said, real_said, and_said, off_said = combine_said(art)
        heading = self.heading("Padding mask + causal mask")
        causal_t, amp, padding_t, eq, combined_t = self.permission_tables()
        notes = theme.text("rows = queries, columns = keys; 1 = allowed", theme.LABEL_SIZE, theme.muted()).next_to(
            VGroup(causal_t, amp, padding_t, eq, combined_t), DOWN, buff=0.5
        )
        with self.beat(causal_said):
            self.title(heading, along=[FadeIn(causal_t)], run_time=0.6)
            self.wait(0.9)
        with self.beat(real_said):
            self.play(FadeIn(amp), FadeIn(padding_t), run_time=0.6)
            self.wait(0.9)
        # Causal's cells travel to the result (moved, not morphed), then the padded key's column switches off.
        with self.beat(and_said):
            travelling = VGroup(causal_t.cells, causal_t.entries).copy()
            target = VGroup(combined_t.cells, combined_t.entries)
            self.play(FadeIn(eq), travelling.animate.move_to(target), run_time=1.0)
            self.remove(travelling)
            self.add(combined_t.cells, combined_t.entries)
            # Its frame comes once the cells have landed (they passed over where its row labels stand).
            frame = VGroup(combined_t.brackets, combined_t.row_labels, combined_t.col_labels, combined_t.col_title)
            self.play(FadeIn(frame), FadeIn(notes), run_time=0.5)
            self.remove(combined_t.cells, combined_t.entries, frame)
            self.add(combined_t)
            self.wait(0.5)
        padded = padded_keys(art)
        boxes = VGroup(*[padding_t.cell_box(0, i, theme.blocked_colour()) for i in padded])
        with self.beat(off_said):
            self.play(Create(boxes), run_time=0.5)
            self.play(
                combined_t.transform_entries(art["padding_allowed"].astype(float)),
                combined_t.fill_cells(**self.permission_fill(art["padding_allowed"])),
                *[Create(combined_t.column_box(i, theme.blocked_colour())) for i in padded],
                run_time=0.9,
            )
            self.wait(0.6)
        self.inputs = VGroup(causal_t, amp, padding_t, eq, notes, boxes)
        self.combined_t = combined_t

    def weights(self) -> None:
        art = self.art
        weights, padded, combined_t = art["padding_weights"], padded_keys(art), self.combined_t
        self.next_slide(notes=weights_notes(art))
        aside, softmax_said, zero = weights_said(art)
        with self.beat(aside):
            self.play(
                FadeOut(self.inputs),
                *[FadeOut(m) for m in self.mobjects if isinstance(m, SurroundingRectangle)],
                run_time=0.5,
            )
            self.play(combined_t.animate.to_edge(LEFT, buff=0.5), run_time=0.7)
            result, arrow, heading = self.masked_scores()
            self.play(GrowArrow(arrow), FadeIn(heading), FadeIn(result), run_time=1.0)
        softmax = MathTex(
            r"A = \operatorname{softmax}(S+M)", font_size=theme.BODY_SIZE + 10, color=theme.foreground()
        ).move_to(heading)  # heads the result: above the arrow it collided with the row labels
        running = result.row_box(0)
        # The masked scores S + M, normalised row by row into the weights (the first row slowly, then faster).
        with self.beat(softmax_said):
            self.play(roll(heading, softmax), Create(running), run_time=0.6)
            for animations, run_time in result.rows_in_turn(weights, art["padding_allowed"], running):
                self.play(*animations, run_time=run_time)
        sums = result.row_sums(weights.sum(axis=-1), size=theme.LABEL_SIZE)
        with self.beat(zero):
            self.play(
                FadeOut(running),
                FadeIn(sums),
                *[Create(result.column_box(i, theme.blocked_colour())) for i in padded],
                run_time=0.8,
            )
            if padded:
                self.say(self.padded_caption(padded[0]), colour=theme.caption_colour(), size=CAPTION_SIZE)
            self.wait(1.0)
        self.weights_view = VGroup(result, arrow, softmax, sums)

    def all_masked(self) -> None:
        art = self.art
        dead, table, empty = art["all_masked_allowed"], self.combined_t, empty_rows(art)
        self.next_slide(notes=all_masked_notes(art))
        suppose, no_key, nan_said, refused = all_masked_said(art)
        with self.beat(suppose):
            boxes = [m for m in self.mobjects if isinstance(m, SurroundingRectangle)]
            self.play(FadeOut(self.weights_view), *[FadeOut(b) for b in boxes], run_time=0.5)
            self.play(
                table.transform_entries(dead.astype(float)),
                table.fill_cells(**self.permission_fill(dead)),
                run_time=0.8,
            )
        with self.beat(no_key):
            for r in empty:
                self.play(Create(table.row_box(r, theme.error_colour())), run_time=0.5)
            self.wait(0.8)
        # In the matrix: what a naive softmax returns for that row, 0/0 = NaN in every cell (from the data).
        naive = art["all_masked_naive"]
        nan_colours = {(r, c): theme.error_colour() for r in empty for c in range(naive.shape[1])}
        nan_note = theme.label(
            f"naive softmax of row {', '.join(map(str, empty))}: $0/0$ = NaN", theme.SMALL_SIZE, theme.error_colour()
        ).next_to(table, DOWN, buff=0.3)
        nan_note.align_to(table, LEFT)
        with self.beat(nan_said):
            self.play(table.transform_entries(naive, nan_colours, rows=empty), FadeIn(nan_note), run_time=0.8)
            self.wait(1.0)
        error = self.error_panel().to_edge(RIGHT, buff=0.6).match_y(table.cells)
        arrow = Arrow(table.get_right(), error.get_left(), buff=0.2, color=theme.error_colour(), stroke_width=3)
        with self.beat(refused):
            self.play(GrowArrow(arrow), FadeIn(error, shift=0.2 * LEFT), run_time=1.0)
            self.say(
                "an all-masked row is refused, not returned as NaN", colour=theme.caption_colour(), size=CAPTION_SIZE
            )
            self.wait(1.0)

    # --- drawing ---------------------------------------------------------------------------------------

    @staticmethod
    def permission_fill(allowed: np.ndarray) -> dict:  # type: ignore[type-arg]
        """`fill_cells` arguments that tint allowed cells in the value role and leave blocked ones empty."""
        return dict(
            values=np.where(allowed, 1.0, -np.inf),
            vmin=0,
            vmax=1,
            colormap=[theme.value_colour()] * 2,
            opacity=0.45,
            recolour_entries=False,
        )

    def permission_tables(self) -> tuple[MatrixTable, MathTex, MatrixTable, MathTex, MatrixTable]:
        """causal ∧ key is real = allowed, in a row; the result starts as a copy of the causal permissions."""
        causal, real = self.art["causal_allowed"], self.art["is_real_key"]
        small = dict(
            fmt="{:.0f}",
            cell_width=0.95,  # "NaN" fits its cell with room to spare
            cell_height=0.72,
            entry_size=theme.BODY_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        columns = [str(i) for i in range(len(real))]
        causal_t = MatrixTable(
            causal.astype(float), row_labels=self.positions, col_labels=columns, col_title="causal", **small
        )
        padding_t = MatrixTable(real[None, :].astype(float), col_labels=columns, col_title="key is real", **small)
        combined_t = MatrixTable(
            causal.astype(float), row_labels=self.positions, col_labels=columns, col_title="allowed", **small
        )
        for table, values in ((causal_t, causal), (padding_t, real[None, :]), (combined_t, causal)):
            table.fill_cells(**self.permission_fill(values), animate=False)
        amp = MathTex(r"\wedge", font_size=theme.BODY_SIZE + 14, color=theme.foreground())
        eq = MathTex("=", font_size=theme.BODY_SIZE + 14, color=theme.foreground())
        VGroup(causal_t, amp, padding_t, eq, combined_t).arrange(RIGHT, buff=0.45).shift(0.5 * DOWN)
        padding_t.match_y(causal_t.cells).shift((causal_t.cells.get_y() - padding_t.cells.get_y()) * UP)
        return causal_t, amp, padding_t, eq, combined_t

    def masked_scores(self) -> tuple[MatrixTable, Arrow, MathTex]:
        """S + M right of the permissions, an arrow from them to it and its heading (not yet shown)."""
        combined_t = self.combined_t
        result = MatrixTable(
            self.art["padding_scores"],
            row_labels=self.positions,
            col_labels=self.positions,
            fmt=number_format(4, exact_zero=True),
            cell_width=1.4,
            cell_height=0.72,
            entry_size=theme.LABEL_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        result.to_edge(RIGHT, buff=2.3).match_y(combined_t.cells).shift(
            (combined_t.cells.get_y() - result.cells.get_y()) * UP
        )
        arrow = Arrow(combined_t.get_right(), result.get_left(), buff=0.25, color=theme.muted(), stroke_width=3)
        heading = MathTex(r"S + M", font_size=theme.BODY_SIZE + 10, color=theme.foreground()).next_to(
            result, UP, buff=0.2
        )
        return result, arrow, heading

    def padded_caption(self, padded: int) -> str:
        weight = self.art["padding_weights"][:, padded].max()
        return f"padded key {self.positions[padded]}: weight exactly {weight:g} in every row"

    def error_panel(self) -> VGroup:
        """The helper's error message, wrapped, in a panel."""
        message = f"DataError: {self.art['all_masked_error']}"
        wrapped = textwrap.wrap(message, 38, break_long_words=False, break_on_hyphens=False)
        lines = VGroup(*[theme.text(line, theme.LABEL_SIZE, theme.foreground()) for line in wrapped]).arrange(
            DOWN, aligned_edge=LEFT, buff=0.12
        )
        panel = RoundedRectangle(
            corner_radius=0.15,
            width=lines.width + 0.6,
            height=lines.height + 0.5,
            color=theme.error_colour(),
            stroke_width=3,
            fill_color=theme.background(),
            fill_opacity=1,
        )
        return VGroup(panel, lines.move_to(panel))
