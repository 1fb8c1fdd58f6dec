"""ScaledScores (seed 003, cells 8-10): each q.k_i computed in view, entry by entry, and divided by sqrt(d_k):
the score row S fills one key at a time; another query of the walkthrough shows that scores can be negative."""

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
    SurroundingRectangle,
    VGroup,
    Write,
    config,
)

from scenes.why_attention.shared import (
    CAPTION_SIZE,
    WhyAttentionSlide,
    exact_decimals,
    fmt_g,
    fmt_row,
    key_labels,
    widest,
)
from seqanim import Artifact, integer, listing, mark, number, translated
from seqanim.kit import theme
from seqanim.kit.formula import SCORES, formula
from seqanim.kit.matrix import MatrixTable, number_format
from seqanim.kit.motion import roll

# --- the words -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Negative:
    """A query with a negative scaled score, its scores and the keys scored below zero; `own` when it is the
    scene's query itself (its row already shows the negative scores), else another query of the walkthrough."""

    query: np.ndarray
    scores: np.ndarray
    labels: list[str]
    own: bool


def negative_scores(art: Artifact) -> Negative | None:
    """The scene's query if it scores a key below zero, else the first query of the walkthrough that does
    (None: no query does)."""
    labels = key_labels(art)
    candidates = [(art["Q"][0], art["scores"][0], True)]
    candidates += [(query, scores, False) for query, scores in zip(art["queries"], art["query_scores"])]
    for query, scores, own in candidates:
        if scores.min() < 0:
            return Negative(query, scores, [label for label, s in zip(labels, scores) if s < 0], own)
    return None


@dataclass(frozen=True)
class KeyScore:
    """Key `index` (`label`) against the query: their entries (multiplied pair by pair), the raw dot product and
    the score, the dot product over sqrt(d_k)."""

    index: int
    label: str
    query: np.ndarray
    key: np.ndarray
    raw: float
    score: float
    d_k: int


def key_score(art: Artifact, index: int) -> KeyScore:
    raw, score = float(art["raw_scores"][0, index]), float(art["scores"][0, index])
    return KeyScore(index, key_labels(art)[index], art["Q"][0], art["K"][index], raw, score, int(art["d_k"]))


def exact_format(value: float) -> str:
    """An entry of a hand-designed vector with the fewest decimals that print it as it is (up to 2), as the
    working's formulas print it: "1", "0.5", "-1" (with a real minus sign, as the kit's tables print it)."""
    return number_format(exact_decimals(np.array([value])))(value)


def _root(d_k: int) -> str:
    return f"the square root of {integer(d_k)}"


def operands_notes(art: Artifact) -> str:
    Q, K, d_k = art["Q"], art["K"], int(art["d_k"])
    return (
        "For each query compute its dot product with every key, then divide by "
        f"sqrt(d_k) = sqrt({d_k}) = {np.sqrt(d_k):.4f}. "
        "This controls the score scale as the key dimension grows (unit-variance coordinates); "
        "it does not normalise vector lengths. "
        f"Q is {Q.shape[0]}x{Q.shape[1]}, K^T is {K.shape[1]}x{K.shape[0]}: "
        "S has one row per query, one column per key."
    )


@translated
def operands_said(art: Artifact) -> dict[str, str]:
    d_k = int(art["d_k"])
    return {
        "formula": f"Each score is q dot k, {mark('root')}divided by the square root of the key size, {integer(d_k)}.",
        "tables": f"The query, {mark('keys')}the keys as columns, and {mark('row')}an empty row for the scores.",
    }


def _key_notes(art: Artifact, index: int) -> str:
    at = key_score(art, index)
    products = " + ".join(f"{q:g}*{k:g}" for q, k in zip(at.query, at.key))
    return (
        f"Key {at.label}: q.k_{at.label} = {products} = {at.raw:g}; "
        f"scaled: {at.raw:g} / sqrt({at.d_k}) = {at.score:.4f}."
    )


def first_key_notes(art: Artifact) -> str:
    return _key_notes(art, 0)


@translated
def first_key_said(art: Artifact) -> dict[str, str]:
    first = key_score(art, 0)
    return {
        "beside": f"The query stands beside key {first.label}.",
        "dot": f"Multiply entry by entry and add: {number(float(first.raw), 2)}.",
        "scaled": f"Divided by {_root(first.d_k)}: {number(float(first.score), 2)}.",
        "stored": f"That score fills {first.label}'s cell.",
    }


def other_keys_notes(art: Artifact) -> str:
    labels, scores = key_labels(art), art["scores"][0]
    rest = ", ".join(f"{name}: {s:.4f}" for name, s in zip(labels[2:], scores[2:]))
    return _key_notes(art, 1) + f" The same for the rest: {rest}."


@translated
def other_keys_said(art: Artifact) -> list[str]:
    """One sentence per key after the first, in order."""
    keys = [key_score(art, index) for index in range(1, len(key_labels(art)))]
    return [
        f"Key {at.label}: {mark('products')}the products add up to {number(float(at.raw), 2)}, "
        f"{mark('score')}a score of {number(float(at.score), 2)}."
        for at in keys
    ]


def summary_notes(art: Artifact) -> str:
    scores, raw = art["scores"][0], art["raw_scores"][0]
    negative = negative_scores(art)
    if negative is None:
        example = ""
    elif negative.own:
        example = f": this query already scores {', '.join(negative.labels)} below zero"
    else:
        example = f": with q = {fmt_g(negative.query)} they are {fmt_row(negative.scores)}"
    return (
        f"Checkpoint: the scaled score row is approximately {fmt_row(scores)}. "
        f"Raw dot products {fmt_g(raw)}. "
        f"Scores are not yet probabilities and may be negative{example}."
    )


@translated
def summary_said(art: Artifact) -> dict[str, str]:
    negative = negative_scores(art)
    if negative is None:
        closing = f"These are scores, not yet probabilities: {mark('query')}a softmax will turn them into weights."
    elif negative.own:
        verb = "is" if len(negative.labels) == 1 else "are"
        closing = (
            f"These are scores, not probabilities: {mark('query')}{listing(negative.labels)} {verb} already negative."
        )
    else:
        query = ", ".join(number(float(v), 2) for v in negative.query)
        closing = f"These are scores, not probabilities: {mark('query')}the query {query} gets negative ones."
    return {
        "row": f"The whole row: {mark('each')}each dot product over {_root(int(art['d_k']))}.",
        "closing": closing,
    }


def closing_caption(art: Artifact) -> str:
    """What the screen says of the scores' sign: this query's own, another query's, or none negative."""
    negative = negative_scores(art)
    if negative is None:
        return "scores, not yet probabilities: a softmax turns them into weights"
    if negative.own:
        return "scores, not yet probabilities: some are already negative"
    return "scores, not yet probabilities: another query gives negative ones"


# --- the scene -------------------------------------------------------------------------------------------


class ScaledScores(WhyAttentionSlide):
    """Each q.k_i computed in view and divided by sqrt(d_k): the score row, entry by entry."""

    data = ("qkv_walkthrough",)
    DOT_GAP = 0.35  # the space between q's entry and a key's, for the multiplication dot (in cell heights)

    def construct(self) -> None:
        self.operands()
        self.first_key()
        self.other_keys()
        self.summary()

    def operands(self) -> None:
        art = self.art
        self.next_slide(notes=operands_notes(art))
        said = operands_said(art)
        heading = self.heading("Scaled scores")
        equation = formula(SCORES, size=theme.BODY_SIZE + 6).next_to(heading, DOWN, buff=0.3)
        product, scale = equation[:4], equation[4:]  # S = Q K^T, then / sqrt(d_k)
        with self.beat(said["formula"]) as beat:
            self.title(heading, along=[Write(product)], run_time=beat.until("root"))
            self.play(Write(scale), run_time=beat.remaining)
        operands = self.operand_tables(equation)
        self.row = self.score_row(operands)
        self.fit_width(operands)
        with self.beat(said["tables"]) as beat:
            self.play(FadeIn(self.query), run_time=beat.until("keys"))
            self.play(FadeIn(self.keys_t), run_time=beat.until("row"))
            self.play(FadeIn(self.row), run_time=beat.remaining)
        # q, stood up as a column, slides over K^T: at each column its entries meet the key's, and the score
        # appears as it passes.
        self.slider = self.query.row_entries(0).copy().set_color(theme.query_colour())

    def first_key(self) -> None:
        self.next_slide(notes=first_key_notes(self.art))
        said = first_key_said(self.art)
        with self.beat(said["beside"]) as beat:
            self.bring_query(0, beat.remaining)
        with self.beat(said["dot"]) as beat:
            self.write_dot(beat.remaining)
        with self.beat(said["scaled"]) as beat:
            self.write_scaled(beat.remaining)
        with self.beat(said["stored"]) as beat:
            self.store_score(0, 0.7 * beat.remaining)
            self.play(FadeOut(self.column), run_time=beat.remaining)

    def other_keys(self) -> None:
        """Each key in one sentence: q moves beside it, the products are written as they are said, and the score
        is divided and stored as it is said."""
        self.next_slide(notes=other_keys_notes(self.art))
        for index, said in enumerate(other_keys_said(self.art), start=1):
            with self.beat(said) as beat:
                self.bring_query(index, beat.until("products"))
                self.write_dot(beat.until("score"))
                self.write_scaled(0.4 * beat.remaining)
                self.store_score(index, 0.6 * beat.remaining)
                self.play(FadeOut(self.column), run_time=beat.remaining)

    def summary(self) -> None:
        art = self.art
        self.next_slide(notes=summary_notes(art))
        said = summary_said(art)
        summary = self.summary_formula().move_to(self.work)
        box = SurroundingRectangle(self.row.entries, buff=0.12, color=theme.highlight())
        with self.beat(said["row"]) as beat:
            self.play(Create(box), FadeOut(self.slider), run_time=beat.until("each"))
            self.play(roll(self.work, summary), run_time=beat.remaining)
        # The caption's claim is shown, not asserted: the row's own negative scores are pointed at, or (the
        # notebook's: this query's are all >= 0) another query of the walkthrough shows negative ones.
        negative = negative_scores(art)
        with self.beat(said["closing"]) as beat:
            if negative is not None and negative.own:
                self.say(closing_caption(art), size=CAPTION_SIZE, run_time=beat.until("query"))
                below = [self.row.entries[self.labels.index(label)] for label in negative.labels]
                self.play(*[Indicate(entry, color=theme.highlight()) for entry in below], run_time=beat.remaining)
            elif negative is not None:
                self.say(closing_caption(art), size=CAPTION_SIZE, run_time=beat.until("query"))
                line = self.negative_line(negative)
                if self.stacked:  # no room under the working above the caption: the line takes its place
                    self.play(FadeOut(summary), FadeIn(line.move_to(summary), shift=0.2 * UP), run_time=beat.remaining)
                else:
                    line.next_to(summary, DOWN, buff=0.45)
                    self.play(FadeIn(line, shift=0.2 * UP), run_time=beat.remaining)
            else:
                self.say(closing_caption(art), size=CAPTION_SIZE, run_time=beat.remaining)

    # --- drawing ---------------------------------------------------------------------------------------

    def operand_tables(self, equation: MathTex) -> VGroup:
        """Q and K^T side by side under the formula (K^T's wide columns leave room for q beside each key)."""
        Q, K = self.art["Q"], self.art["K"]
        big = dict(entry_size=theme.BODY_SIZE, label_size=theme.LABEL_SIZE, cell_height=0.62)
        # One format for both (q's entries move into K^T's cells), each entry exact as the formulas print it:
        # one key of 0.5 does not widen every cell to "1.0" (five such keys left the frame). Cells as wide as
        # their entries need: a K^T cell holds q's entry, the dot and the key's entry; the notebook's narrow
        # entries fit left of the key's, centred; wider ones need the key's moved right in its cell.
        fmt = exact_format
        q_width, k_width = (max(theme.text(fmt(v), theme.BODY_SIZE).width for v in a.ravel()) for a in (Q, K))
        gap = self.DOT_GAP * big["cell_height"]
        self.keys_right = 2 * (k_width / 2 + gap + q_width) + 0.1 > 1.25
        self.query = MatrixTable(
            Q,
            row_labels=["q"],
            row_label_colours=[theme.query_colour()],
            col_title="Q",
            fmt=fmt,
            cell_width=max(0.7, q_width + 0.3),
            **big,
        )
        self.keys_t = MatrixTable(
            K.T,
            col_labels=self.labels,
            col_label_colours=self.colours,
            col_title=r"$K^\top$ (columns = keys)",
            fmt=fmt,
            cell_width=q_width + gap + k_width + 0.3 if self.keys_right else 1.25,
            **big,
        )
        if self.keys_right:
            for entry, cell in zip(self.keys_t.entries, self.keys_t.cells):
                entry.align_to(cell, RIGHT).shift(0.1 * LEFT)
        self.query.col_title.set_color(theme.query_colour())
        self.keys_t.col_title.set_color(theme.key_colour())
        return (
            VGroup(self.query, self.keys_t)
            .arrange(RIGHT, buff=0.6, aligned_edge=DOWN)
            .next_to(equation, DOWN, buff=0.45)
            .to_edge(LEFT, buff=0.5)
        )

    def fit_width(self, operands: VGroup) -> None:
        """Wide entries (decimals, minus signs) or many keys: the score row goes under K^T when it would leave
        the frame on the right, and the working moves down under it."""
        self.work_y = -1.55
        self.stacked = self.row.get_right()[0] > config.frame_width / 2 - 0.2
        if self.stacked:
            self.row.next_to(self.keys_t, DOWN, buff=0.2).align_to(operands, LEFT)
            self.work_y = self.row.get_bottom()[1] - 0.45

    def score_row(self, operands: VGroup) -> MatrixTable:
        """The row of S, empty, right of the operands."""
        big = dict(entry_size=theme.BODY_SIZE, label_size=theme.LABEL_SIZE, cell_height=0.62)
        fmt = number_format(4)
        longest = widest([fmt(s) for s in self.art["scores"][0]], theme.BODY_SIZE)
        row = MatrixTable(
            np.full((1, len(self.labels)), np.nan),
            row_labels=["q"],
            row_label_colours=[theme.query_colour()],
            col_labels=self.labels,
            col_label_colours=self.colours,
            col_title="S (scaled scores)",
            cell_width=max(1.6, longest + 0.3),  # wider for a minus sign or a score of 10 or more
            **big,
        )
        row.entries.set_opacity(0)
        row.next_to(operands, RIGHT, buff=0.7).align_to(self.keys_t.cells, DOWN)
        return row

    def bring_query(self, index: int, run_time: float) -> None:
        """q's column moves beside key column `index` (boxed), the multiplication dots between the pairs; the
        previous key's working fades as it goes."""
        keys_t, size = self.keys_t, theme.BODY_SIZE + 12
        query = self.art["Q"][0]
        # q's i-th entry sits left of the key's i-th entry, in the left part of the wide cell (clear of the
        # key's by a gap for the dot, where the key's stands right in its cell).
        places = [
            keys_t.entry(r, index).get_left() + (self.DOT_GAP * keys_t.cell_height + mine.width / 2) * LEFT
            if self.keys_right
            else keys_t.cell(r, index).get_center() + 0.36 * keys_t.cell_width * LEFT
            for r, mine in enumerate(self.slider[: len(query)])
        ]
        # A multiplication dot between each pair, so "1 1" reads as 1 times 1.
        times = VGroup(
            *[
                MathTex(r"\cdot", font_size=size, color=theme.muted()).move_to(
                    (place + keys_t.cell(r, index).get_center()) / 2
                )
                for r, place in enumerate(places)
            ]
        )
        self.column = VGroup(keys_t.column_box(index, self.colours[index]), times)
        if index == 0:  # q leaves its row and stands up beside the first key column
            moves = [entry.animate.move_to(place) for entry, place in zip(self.slider, places)]
            self.add(self.slider)
            self.play(LaggedStart(*moves, lag_ratio=0.15), Create(self.column), run_time=run_time)
        else:
            self.play(
                FadeOut(self.work),
                *[entry.animate.move_to(place) for entry, place in zip(self.slider, places)],
                Create(self.column),
                run_time=run_time,
            )
        self.entry_index = index

    def write_dot(self, run_time: float) -> None:
        """q·k_X = q1·k1 + q2·k2 = raw, written under the tables."""
        index = self.entry_index
        at = key_score(self.art, index)
        terms = " + ".join(rf"{q:g}\cdot{k:g}" for q, k in zip(at.query, at.key))
        label = rf"q\cdot k_{{{at.label}}}"
        dot = MathTex(label, "=", terms, "=", f"{at.raw:g}", font_size=theme.BODY_SIZE + 12, color=theme.foreground())
        dot[0].set_color(self.colours[index])
        self.scaled = self.scaled_formula(index)
        VGroup(dot, self.scaled).arrange(RIGHT, buff=0.8).move_to(self.work_y * UP)
        self.play(Write(dot), run_time=run_time)
        self.work = VGroup(dot, self.scaled)

    def scaled_formula(self, index: int) -> MathTex:
        at = key_score(self.art, index)
        fraction = rf"\frac{{{at.raw:g}}}{{\sqrt{{{at.d_k}}}}}"
        scaled = MathTex(fraction, "=", f"{at.score:.4f}", font_size=theme.BODY_SIZE + 12, color=theme.foreground())
        scaled[2].set_color(self.colours[index])
        return scaled

    def write_scaled(self, run_time: float) -> None:
        self.play(Write(self.scaled), run_time=run_time)

    def store_score(self, index: int, run_time: float) -> None:
        """The computed number travels into its cell of S (moved, not morphed), where the table's entry takes
        over (the column box goes after)."""
        target = self.row.entry_target(0, index, float(self.art["scores"][0, index]), self.colours[index])
        travelling = self.scaled[2].copy()
        self.play(travelling.animate.scale_to_fit_height(target.height).move_to(target), run_time=run_time)
        self.row.entries[index].become(target)
        self.remove(travelling)
        self.add(self.row)

    def summary_formula(self) -> MathTex:
        """S = 1/sqrt(d) [raw] = [scores], the scores highlighted."""
        raw, scores, d_k = self.art["raw_scores"][0], self.art["scores"][0], int(self.art["d_k"])
        summary = MathTex(
            r"S = \frac{1}{\sqrt{" + f"{d_k}" + "}}",
            rf"\left[{', '.join(f'{r:g}' for r in raw)}\right]",
            "=",
            rf"\left[{', '.join(f'{s:.4f}' for s in scores)}\right]",
            font_size=theme.BODY_SIZE + 12,
            color=theme.foreground(),
        )
        summary[3].set_color(theme.highlight())
        # Six keys' scores ran past both edges at this size: narrowed to the frame, never below the label size.
        room = config.frame_width - 0.8
        if summary.width > room:
            summary.scale(max(room / summary.width, theme.tex_size(theme.LABEL_SIZE) / summary.font_size))
        return summary

    @staticmethod
    def negative_line(negative: Negative) -> MathTex:
        entries = ", ".join(f"{v:.4f}" for v in negative.scores)
        return MathTex(
            rf"q = {fmt_g(negative.query)}:\quad S = \left[{entries}\right]",
            font_size=theme.tex_size(theme.LABEL_SIZE),
            color=theme.muted(),
        )
