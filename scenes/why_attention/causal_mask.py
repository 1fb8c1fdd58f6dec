"""CausalMask (seed 003, cells 20-22): self-scores of the keys' positions (three in the notebook); the causal mask
slides over them (the future becomes minus infinity) before the softmax, and each row renormalises over its past.
Then the wrong order, softmax first and mask after, whose rows no longer sum to 1."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    MathTex,
    Transform,
    VGroup,
    Write,
)

from scenes.why_attention.shared import (
    CAPTION_SIZE,
    CELL_ROOM,
    WhyAttentionSlide,
    clear_right_of,
    column_names,
    fitting_numbers,
    fmt_g,
    fmt_row,
    item_share,
    position_labels,
    widest,
)
from seqanim import Artifact, count, listing, mark, number, translated
from seqanim.kit import theme
from seqanim.kit.formula import WEIGHTS, formula
from seqanim.kit.matrix import Formatter, MatrixTable, number_format
from seqanim.kit.motion import paced, roll

# --- the words -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Causal:
    """The causal mask's facts: how many cells it blocks, the first row of weights after the masked softmax and its
    sum, and the row sums short of one when the future is zeroed after the softmax instead."""

    blocked: int
    first_row: np.ndarray
    first_sum: float
    short_sums: tuple[float, ...]


def causal(art: Artifact) -> Causal:
    weights, wrong = art["causal_weights"], art["softmax_then_mask_sums"]
    short = tuple(float(s) for s in wrong if not np.isclose(s, 1.0))
    return Causal(int((~art["causal_allowed"]).sum()), weights[0], float(weights.sum(axis=-1)[0]), short)


def scores_notes(art: Artifact) -> str:
    K, self_scores = art["K"], art["self_scores"]
    positions = "is position 0" if len(K) == 1 else f"are positions 0..{len(K) - 1}"
    return (
        f"Self-attention derives Q, K and V from one sequence; here the {count(len(K), 'vector')} "
        f"{', '.join(fmt_g(k) for k in K)} {positions}, so S = X X^T / sqrt(d_k) is square: "
        f"rows are receiving queries, columns are source keys. Row 0 reads {fmt_row(self_scores[0])}. "
        "Practice 5: cross-attention would take Q from one stream and K, V from another."
    )


@translated
def scores_said(art: Artifact) -> str:
    return (
        f"In self-attention, {count(len(art['K']), 'position')} of one sequence score each other: "
        f"{mark('rows')}each row asks, {mark('columns')}each column answers."
    )


def mask_notes(art: Artifact) -> str:
    return (
        "Position t may access positions <= t, including itself. "
        "The mask M is 0 where allowed and -inf for the future; it is added to S before the softmax. "
        f"Row 0 becomes {fmt_row(art['causal_scores'][0])}."
    )


@translated
def mask_said(art: Artifact) -> dict[str, str]:
    blocked = causal(art).blocked
    return {
        "mask": f"The causal mask: {mark('zero')}zero where a position may look, {mark('future')}minus infinity "
        "for its future.",
        "slide": f"Its {count(blocked, 'blocked cell')} {mark('slide')}slide onto the scores.",
        "added": f"Adding the mask {mark('turns')}turns every future score into minus infinity.",
    }


def softmax_notes(art: Artifact) -> str:
    causal_weights = art["causal_weights"]
    return (
        "Now the softmax, row by row over the allowed keys: "
        "exp(-inf) = 0, so the future gets exactly zero weight and each row renormalises. "
        f"Checkpoint: the first row must be {fmt_g(causal_weights[0])}. "
        f"Rows: {'; '.join(fmt_row(r) for r in causal_weights)}; row sums {fmt_row(causal_weights.sum(axis=-1))}."
    )


@translated
def softmax_said(art: Artifact) -> dict[str, str]:
    mask = causal(art)
    first = ", ".join(number(float(w), 2) for w in mask.first_row)
    return {
        "row_by_row": f"Now the softmax runs {mark('rows')}row by row, over {mark('allowed')}the allowed keys only.",
        "zero": "Minus infinity becomes exactly zero: the future gets no weight, and the past shares it.",
        "sums": f"Every row sums to {number(mask.first_sum, 2)}.",
        "first_row": f"The first row {mark('row')}is {first}: {mark('itself')}position zero sees only itself.",
    }


def contrast_notes(art: Artifact) -> str:
    return (
        "The wrong order: softmax over every key first, then zero the future. The rows no longer sum to 1: "
        f"row sums {fmt_row(art['softmax_then_mask_sums'])}. "
        "Mask BEFORE the softmax, and keep rows = queries, columns = keys."
    )


@translated
def contrast_said(art: Artifact) -> dict[str, str]:
    short = [number(s, 1) for s in causal(art).short_sums]
    named = [f"{mark(f'short{index}')}{said}" for index, said in enumerate(short)]  # each sum as it is read
    return {
        "wrong": f"The wrong order: softmax over every key first, {mark('zero')}then zero the future.",
        "sums": f"Now rows sum to only {listing(named)}.",
        "rule": "So the mask must come before the softmax.",
    }


# --- the scene -------------------------------------------------------------------------------------------

# The default's three positions: cells this wide hold four decimals and a "pos 0" each.
DEFAULT_CELL = 1.24


class CausalMask(WhyAttentionSlide):
    """Self-scores, the causal mask slides over them (future -> -inf) before the softmax; rows renormalise."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.positions = position_labels(len(self.art["K"]))
        self.fit_cells()
        self.self_scores()
        self.mask()
        self.softmax()
        self.contrast()

    def fit_cells(self) -> None:
        """More positions (qkv_walkthrough.keys) share the default three's width: the numbers keep the most
        decimals (up to 4) that a share of a cell holds, and the columns are named by their position alone where
        "pos 0" would not fit it (as rows = queries, columns = keys say which is which)."""
        art = self.art
        self.share = DEFAULT_CELL * item_share(len(self.positions))
        numbers = [art["self_scores"], art["causal_weights"], art["softmax_then_mask"]]
        self.decimals, _ = fitting_numbers(numbers, self.share, [theme.SMALL_SIZE])
        self.columns = column_names(len(self.positions), theme.SMALL_SIZE, self.share)

    def cell_width(self, values: np.ndarray, fmt: Formatter) -> float:
        """The share of a cell, wider where a number of `values` in `fmt`, or a column's label, would not fit it."""
        texts = [fmt(value) for value in np.ravel(values)] + self.columns
        return max(self.share, widest(texts, theme.SMALL_SIZE) + CELL_ROOM)

    def self_scores(self) -> None:
        art = self.art
        self.next_slide(notes=scores_notes(art))
        said = scores_said(art)
        heading = self.heading("Causal mask: no peeking ahead")
        equation = formula(WEIGHTS, size=theme.BODY_SIZE + 6).next_to(heading, DOWN, buff=0.25)
        scores_fmt, weights_fmt = number_format(self.decimals), number_format(self.decimals, exact_zero=True)
        self.scores = MatrixTable(
            art["self_scores"],
            row_labels=self.positions,
            col_labels=self.columns,
            row_title="query (rows)",
            col_title="key (columns)",
            fmt=scores_fmt,
            cell_width=max(  # one width from the scores to the weights they become
                self.cell_width(art["self_scores"], scores_fmt), self.cell_width(art["causal_weights"], weights_fmt)
            ),
            cell_height=0.6,
            entry_size=theme.SMALL_SIZE,
        )
        self.scores.to_edge(LEFT, buff=0.35).shift(0.4 * DOWN)
        self.s_label = MathTex("S", font_size=theme.BODY_SIZE + 6, color=theme.foreground()).next_to(
            self.scores, DOWN, buff=0.2
        )
        scores = self.scores
        with self.beat(said) as beat:
            self.title(heading, along=[Write(equation), FadeIn(scores), FadeIn(self.s_label)],
                       run_time=beat.until("rows"))  # fmt: skip
            self.play(Indicate(VGroup(scores.row_title, scores.row_labels), color=theme.query_colour()),
                      run_time=beat.until("columns"))  # fmt: skip
            self.play(Indicate(VGroup(scores.col_title, scores.col_labels), color=theme.key_colour()),
                      run_time=beat.remaining)  # fmt: skip

    def mask(self) -> None:
        art = self.art
        self.next_slide(notes=mask_notes(art))
        said = mask_said(art)
        self.mask_table, m_label, self.tiles = self.mask_parts()
        allowed = art["causal_allowed"]
        zeros = VGroup(*[self.mask_table.entry(r, c) for r, c in zip(*np.nonzero(allowed))])
        with self.beat(said["mask"]) as beat:
            self.play(FadeIn(self.mask_table), FadeIn(m_label), run_time=beat.until("zero"))
            self.play(Indicate(zeros, color=theme.highlight()), run_time=beat.until("future"))
            self.play(FadeIn(self.tiles), run_time=beat.remaining)
        self.m_label = m_label
        with self.beat(said["slide"]) as beat:
            self.play(Indicate(self.tiles, color=theme.highlight(), scale_factor=1.05), run_time=beat.until("slide"))
            # Each tile lands on its cell of S (M's cells are narrower where more positions crowd the frame).
            blocked = zip(*np.nonzero(~allowed))
            landing = VGroup(
                *[
                    tile.copy().replace(self.scores.cell(r, c), stretch=True)
                    for tile, (r, c) in zip(self.tiles, blocked)
                ]
            )
            self.play(Transform(self.tiles, landing), run_time=beat.remaining)
        new_label = MathTex("S + M", font_size=theme.BODY_SIZE + 6, color=theme.foreground()).move_to(self.s_label)
        with self.beat(said["added"]) as beat:
            self.play(roll(self.s_label, new_label), run_time=beat.until("turns"))
            self.s_label = new_label
            self.play(self.scores.transform_entries(art["causal_scores"]),
                      self.tiles.animate.set_fill(theme.muted(), opacity=0.2), run_time=beat.remaining)  # fmt: skip

    def softmax(self) -> None:
        art = self.art
        causal_weights, scores = art["causal_weights"], self.scores
        self.next_slide(notes=softmax_notes(art))
        said = softmax_said(art)
        scores.fmt = number_format(self.decimals, exact_zero=True)  # masked weights are exactly 0
        a_label = MathTex("A", font_size=theme.BODY_SIZE + 6, color=theme.foreground()).move_to(self.s_label)
        running = scores.row_box(0)
        allowed = art["causal_allowed"]
        with self.beat(said["row_by_row"]) as beat:
            self.play(FadeOut(self.mask_table), FadeOut(self.m_label), run_time=0.4)
            self.play(roll(self.s_label, a_label), FadeOut(self.tiles), run_time=beat.until("rows"))
            self.play(Create(running), run_time=beat.until("allowed"))
            self.play(Indicate(VGroup(*[scores.entry(r, c) for r, c in zip(*np.nonzero(allowed))]),
                               color=theme.highlight()), run_time=beat.remaining)  # fmt: skip
        self.s_label = a_label
        # The softmax runs one query row at a time, the first slowly, then faster: each allowed score counts
        # to its weight as its cells fill, a masked -inf rolls to an exact 0. The rows share the sentence.
        with self.beat(said["zero"]) as beat:
            steps = scores.rows_in_turn(causal_weights, allowed, running, first=1.8)
            planned = sum(paced(len(allowed), 1.8, 0.7)) + 0.3 * (len(allowed) - 1)  # rows_in_turn's own times
            scale = beat.remaining / planned
            for animations, run_time in steps:
                self.play(*animations, run_time=run_time * scale)
        sums = scores.row_sums(causal_weights.sum(axis=-1), decimals=self.decimals)
        with self.beat(said["sums"]) as beat:
            self.play(LaggedStart(*[FadeIn(s, shift=0.1 * LEFT) for s in sums], lag_ratio=0.4),
                      run_time=beat.remaining)  # fmt: skip
        # The running box goes back to the first row: its weights are the checkpoint.
        with self.beat(said["first_row"]) as beat:
            self.play(running.animate.move_to(scores.row_box(0)), run_time=beat.until("row"))
            self.play(Indicate(scores.row_entries(0), color=theme.highlight()), run_time=beat.until("itself"))
            self.say(self.first_row_caption(), colour=theme.caption_colour(), size=CAPTION_SIZE,
                     run_time=beat.remaining)  # fmt: skip
        self.correct, self.correct_sums = VGroup(scores, self.s_label, sums, running), sums

    def contrast(self) -> None:
        art = self.art
        self.next_slide(notes=contrast_notes(art))
        said = contrast_said(art)
        table, sums = self.wrong_table()
        future = VGroup(*[table.entry(r, c) for r, c in zip(*np.nonzero(~art["causal_allowed"]))])
        # Where the wrong weights would cover the right ones' sums (all 1, as said), those make way for them; where
        # they would cover the right weights themselves (more positions than the frame holds twice), all of the
        # right ones make way first, and the wrong ones take the middle of the frame.
        crowded = table.brackets.get_left()[0] < self.correct_sums.get_right()[0] + 0.1
        covered = table.brackets.get_left()[0] < self.scores.brackets.get_right()[0] + 0.1
        if covered:
            VGroup(table, sums).set_x(0)
        making_way = [FadeOut(self.correct_sums)] if crowded and not covered else []
        with self.beat(said["wrong"]) as beat:
            if covered:  # before the wrong ones come: faded through each other, neither reads
                self.play(FadeOut(self.correct), run_time=0.4)
            self.play(FadeIn(table, shift=0.3 * LEFT), *making_way, run_time=beat.until("zero"))
            self.play(Indicate(future, color=theme.error_colour()), run_time=beat.remaining)
        wrong_sums = art["softmax_then_mask_sums"]
        bad = [sums[r] for r in range(len(wrong_sums)) if not np.isclose(wrong_sums[r], 1.0)]
        with self.beat(said["sums"]) as beat:  # the sums appear, then each short one is marked as it is read
            self.play(LaggedStart(*[FadeIn(s) for s in sums], lag_ratio=0.3), run_time=beat.until("short0"))
            for index, total in enumerate(bad):
                following = f"short{index + 1}"
                span = beat.until(following) if index + 1 < len(bad) else beat.remaining
                self.play(Indicate(total, color=theme.error_colour()), run_time=span)
        with self.beat(said["rule"]) as beat:
            self.say(
                "mask before softmax: otherwise rows no longer sum to 1",
                colour=theme.caption_colour(),
                size=CAPTION_SIZE,
                run_time=beat.remaining,
            )

    # --- drawing ---------------------------------------------------------------------------------------

    def mask_parts(self) -> tuple[MatrixTable, MathTex, VGroup]:
        """The mask M (0 allowed, -inf blocked) right of S, its label, and a tile over each blocked cell."""
        allowed, count_ = self.art["causal_allowed"], len(self.art["K"])
        values = np.where(allowed, 0.0, -np.inf)
        mask = MatrixTable(
            values,
            row_labels=self.positions,
            col_labels=self.columns,
            fmt=number_format(0),
            cell_width=self.cell_width(values, number_format(0)),
            cell_height=0.6,
            entry_size=theme.SMALL_SIZE,
        )
        scores = self.scores
        mask.to_edge(RIGHT, buff=0.9).match_y(scores.cells).shift((scores.cells.get_y() - mask.cells.get_y()) * UP)
        clear_right_of(mask, scores, gap=0.5, margin=0.3)
        m_label = (
            MathTex("M", font_size=theme.BODY_SIZE + 6, color=theme.foreground())
            .next_to(mask, DOWN, buff=0.2)
            .match_y(self.s_label)
        )
        tiles = VGroup(
            *[
                mask.cell(r, c).copy().set_fill(theme.highlight(), opacity=0.35)
                for r in range(count_)
                for c in range(count_)
                if not allowed[r, c]
            ]
        )
        return mask, m_label, tiles

    def first_row_caption(self) -> str:
        return f"first row = {fmt_g(self.art['causal_weights'][0])}: position 0 sees only itself"

    def wrong_table(self) -> tuple[MatrixTable, VGroup]:
        """Softmax over every key, then the future zeroed: the weights and their row sums (not yet shown)."""
        art = self.art
        wrong, wrong_sums = art["softmax_then_mask"], art["softmax_then_mask_sums"]
        fmt = number_format(self.decimals, exact_zero=True)
        table = MatrixTable(
            wrong,
            col_labels=self.columns,
            col_title="✗ softmax, then mask (wrong)",
            fmt=fmt,
            cell_width=self.cell_width(wrong, fmt),
            cell_height=0.6,
            entry_size=theme.SMALL_SIZE,
        )
        table.col_title.set_color(theme.error_colour())
        table.fill_cells(np.where(art["causal_allowed"], wrong, -np.inf), animate=False)
        table.shift((self.correct[0].cells.get_y() - table.cells.get_y()) * UP)
        sums = table.row_sums(
            wrong_sums,
            [theme.foreground() if np.isclose(s, 1.0) else theme.error_colour() for s in wrong_sums],
            decimals=self.decimals,
        )
        VGroup(table, sums).to_edge(RIGHT, buff=0.3)
        return table, sums
