"""QueryKeyValue (seed 003, cells 5-7): Q asks, K addresses, V stores. The keys are points in a plane and the
query an arrow; each key's shadow on the query is its score, and keys A and C score the same."""

from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    MathTex,
    SurroundingRectangle,
    VGroup,
)

from scenes.why_attention.shared import CAPTION_SIZE, WhyAttentionSlide, fmt_g, key_labels
from seqanim import Artifact, count, listing, mark, number, sentence, translated
from seqanim.kit import theme
from seqanim.kit.matrix import MatrixTable, number_format
from seqanim.kit.vectors import VectorDiagram

# --- the words -----------------------------------------------------------------------------------------


def _vector(values: np.ndarray) -> str:
    """A small hand-designed vector as heard: "one, zero"."""
    return ", ".join(number(float(v), 2) for v in values)


def _same_as_best(raw: np.ndarray) -> list[int]:
    return [i for i in range(len(raw)) if np.isclose(raw[i], raw.max())]


def query_notes(art: Artifact) -> str:
    Q, K, V, labels = art["Q"], art["K"], art["V"], key_labels(art)
    return (
        f"Start with a query and an addressable memory. Q asks what to retrieve: q = {fmt_g(Q[0])}. "
        "K describes how each memory item matches: "
        f"{', '.join(f'k_{label} = {fmt_g(k)}' for label, k in zip(labels, K))}. "
        f"Shapes: Q {Q.shape}, K {K.shape}, V {V.shape}. Hand-designed teaching vectors, not learned embeddings. "
        "Attention answers the fixed-context bottleneck: "
        "instead of one final encoder state, every output query retrieves from all earlier states."
    )


@translated
def query_said(art: Artifact) -> dict[str, str]:
    labels, query = key_labels(art), art["Q"][0]
    named = listing([f"{mark(label)}{label}" for label in labels])
    return {
        "memory": "Attention lets an output look back at every stored item.",
        "keys": f"The memory holds {count(len(labels), 'item')}, {named}, each at its key: "
        f"{mark('address')}its address.",
        "query": f"The query arrow, {mark('vector')}{_vector(query)}, says what we want to find.",
    }


def values_notes(art: Artifact) -> str:
    K, V, labels = art["K"], art["V"], key_labels(art)
    pairs = ", ".join(f"{label}: k = {fmt_g(k)} -> v = {fmt_g(v)}" for label, k, v in zip(labels, K, V))
    return (
        "V holds the information to combine, one value row per key row: "
        f"{pairs}. "
        "A key is an address; its associated value need not equal the key. "
        "Keep key rows paired with their value rows."
    )


@translated
def values_said(art: Artifact) -> dict[str, str]:
    K, V, labels = art["K"], art["V"], key_labels(art)
    return {
        "tables": f"Beside it, the keys and {mark('values')}their values: what each item stores.",
        "pairs": "Each key row stays paired with its own value row.",
        "address": f"Item {labels[0]}'s key is {_vector(K[0])}; {mark('value')}its value is {_vector(V[0])}. "
        f"{mark('address')}A key is only an address.",
    }


def scores_notes(art: Artifact) -> str:
    raw, labels = art["raw_scores"][0], key_labels(art)
    return (
        "Project each key onto the query: q.k = "
        f"{', '.join(f'{label}: {s:g}' for label, s in zip(labels, raw))}. "
        f"Checkpoint: A and C have the same dot product with this query ({raw[0]:g} = {raw[2]:g}), "
        "although their keys differ. "
        "Practice 4: additive attention attaches to an LSTM encoder-decoder the same way: "
        "a decoder query scores all encoder states; no need to remove recurrence."
    )


@translated
def scores_said(art: Artifact) -> dict[str, str]:
    raw, labels = art["raw_scores"][0], key_labels(art)
    rest = [f"{label} scores {number(float(s), 2)}" for label, s in zip(labels[1:], raw[1:])]
    same = [labels[i] for i in _same_as_best(raw)]
    return {
        "line": "Now drop each key onto the line of the query.",
        "first": f"Key {labels[0]}'s {mark('shadow')}shadow has length {number(float(raw[0]), 2)}: "
        f"that is {mark('score')}q dot k, its score.",
        "rest": sentence(listing([f"{mark(label)}{said}" for label, said in zip(labels[1:], rest)])) + ".",
        "same": f"{listing(same)} score {mark('same')}the same, {mark('differ')}though their keys differ.",
    }


# --- the scene -------------------------------------------------------------------------------------------


class QueryKeyValue(WhyAttentionSlide):
    """Q asks, K addresses, V stores. Keys are points, the query an arrow; A and C score the same."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.query_and_keys()
        self.values()
        self.scores()

    def query_and_keys(self) -> None:
        art = self.art
        self.next_slide(notes=query_notes(art))
        said = query_said(art)
        heading = self.heading("Query, keys and values")
        self.diagram, points, arrow = self.key_plane(art["Q"][0], art["K"])
        points.set_z_index(2)  # the query arrow ends on key A: keep the keys on top
        stored = LaggedStart(*[FadeIn(point[0], scale=0.5) for point in points], lag_ratio=0.3)
        with self.beat(said["memory"]) as beat:  # the key plane and every stored item (its dot) come with the title
            self.title(heading, along=[Create(self.diagram), stored], run_time=beat.remaining)
        with self.beat(said["keys"]) as beat:
            for label, point in zip(self.labels, points):  # each item is labelled as it is named
                self.play(FadeIn(point[1], shift=0.1 * DOWN), Indicate(point[0], color=theme.highlight()),
                          run_time=beat.until(label))  # fmt: skip
            self.play(*[Indicate(point, color=theme.highlight()) for point in points], run_time=beat.remaining)
        with self.beat(said["query"]) as beat:
            self.play(GrowArrow(arrow[0]), run_time=beat.until("vector"))
            self.play(FadeIn(arrow[1], shift=0.1 * UP), run_time=beat.remaining)

    def values(self) -> None:
        art = self.art
        self.next_slide(notes=values_notes(art))
        said = values_said(art)
        self.tables = self.memory_tables(art["K"], art["V"]).to_edge(RIGHT, buff=0.45).shift(0.35 * UP)
        keys, values = self.tables
        with self.beat(said["tables"]) as beat:
            self.play(FadeIn(keys, shift=0.2 * LEFT), run_time=beat.until("values"))
            self.play(FadeIn(values, shift=0.2 * LEFT), run_time=beat.remaining)
        self.row_boxes = VGroup(
            *[
                SurroundingRectangle(
                    VGroup(keys.row_entries(i), values.row_entries(i)), buff=0.06, color=c, stroke_width=2
                )
                for i, c in enumerate(self.colours)
            ]
        )
        with self.beat(said["pairs"]) as beat:
            self.play(LaggedStart(*[Create(b) for b in self.row_boxes], lag_ratio=0.4), run_time=beat.remaining)
        with self.beat(said["address"]) as beat:
            self.play(Indicate(keys.row_entries(0), color=theme.highlight()), run_time=beat.until("value"))
            self.play(Indicate(values.row_entries(0), color=theme.highlight()), run_time=beat.until("address"))
            self.say("a key is an address; its value need not equal the key", colour=theme.muted(), size=CAPTION_SIZE,
                     run_time=beat.remaining)  # fmt: skip

    def scores(self) -> None:
        art = self.art
        query, keys, raw = art["Q"][0], art["K"], art["raw_scores"][0]
        self.next_slide(notes=scores_notes(art))
        said = scores_said(art)
        readouts = self.score_readouts(raw)
        with self.beat(said["line"]) as beat:
            self.play(FadeOut(self.row_boxes), run_time=0.4)
            self.play(Create(self.diagram.direction_line(query, theme.query_colour())), run_time=beat.remaining)
        with self.beat(said["first"]) as beat:
            self.project(0, keys[0], query, readouts[0], beat.until("shadow"), beat.until("score"), beat.remaining)
        with self.beat(said["rest"]) as beat:
            for index in range(1, len(keys)):  # each key's shadow falls as its score is said
                following = self.labels[index + 1] if index + 1 < len(keys) else None
                span = beat.until(following) if following else beat.remaining
                self.project(index, keys[index], query, readouts[index], 0.35 * span, 0.3 * span, 0.35 * span)
        best = _same_as_best(raw)
        with self.beat(said["same"]) as beat:
            self.play(*[Indicate(readouts[i], color=theme.highlight(), scale_factor=1.15) for i in best],
                      run_time=beat.until("differ"))  # fmt: skip
            self.say(self.same_caption(raw), colour=theme.caption_colour(), size=CAPTION_SIZE, run_time=beat.remaining)

    def same_caption(self, raw: np.ndarray) -> str:
        same = " and ".join(self.labels[i] for i in _same_as_best(raw))
        return f"{same} score the same with this query: q\u00b7k = {raw.max():g}"

    def key_plane(self, query: np.ndarray, keys: np.ndarray) -> tuple[VectorDiagram, VGroup, VGroup]:
        span = max(1.5, float(np.abs(np.vstack([keys, query[None]])).max()) + 0.5)
        diagram = VectorDiagram((-0.5, span, 0.5), (-0.5, span, 0.5), width=5.0)
        diagram.to_edge(LEFT, buff=0.9).shift(0.25 * DOWN)
        axes_labels = VGroup(
            theme.text("key dim 1", theme.SMALL_SIZE, theme.muted()).next_to(diagram, DOWN, buff=0.08),
            theme.text("key dim 2", theme.SMALL_SIZE, theme.muted())
            .rotate(np.pi / 2)
            .next_to(diagram, LEFT, buff=0.08),
        )
        diagram.add(axes_labels)
        points = VGroup(
            *[diagram.point(k, c, f"{label} {fmt_g(k)}") for k, c, label in zip(keys, self.colours, self.labels)]
        )
        arrow = diagram.arrow(query, theme.query_colour())
        # Above the arrow's middle: below it is where the keys' shadows on q will stack.
        label = theme.text(f"q = {fmt_g(query)}", theme.LABEL_SIZE, theme.query_colour()).next_to(arrow, UP, buff=0.12)
        return diagram, points, VGroup(arrow, label)

    def memory_tables(self, K: np.ndarray, V: np.ndarray) -> VGroup:
        short = number_format(0)
        keys = MatrixTable(
            K, row_labels=self.labels, row_label_colours=self.colours, col_title="key k", fmt=short, cell_width=0.6
        )
        values = MatrixTable(V, col_title="value v", fmt=short, cell_width=0.75)
        for table, colour in ((keys, theme.key_colour()), (values, theme.value_colour())):
            table.col_title.set_color(colour)
        values.next_to(keys, RIGHT, buff=0.35).align_to(keys.cells, DOWN)
        values.shift((keys.cells.get_y() - values.cells.get_y()) * UP)
        return VGroup(keys, values)

    def score_readouts(self, raw: np.ndarray) -> VGroup:
        """One "q·k_X = s" per key, stacked under the tables, not yet shown."""
        readouts = VGroup(
            *[
                MathTex(rf"q \cdot k_{{{label}}} = {score:g}", font_size=theme.BODY_SIZE + 8, color=colour)
                for score, colour, label in zip(raw, self.colours, self.labels)
            ]
        )
        readouts.arrange(DOWN, aligned_edge=LEFT, buff=0.2).next_to(self.tables, DOWN, buff=0.45).align_to(
            self.tables, LEFT
        ).shift(0.5 * RIGHT)
        return readouts

    def project(
        self, index: int, key: np.ndarray, query: np.ndarray, readout: MathTex, drop: float, cast: float, read: float
    ) -> None:
        """Key `index` casts its shadow on q's direction: the drop to the line (`drop` seconds), the shadow along it
        (`cast`), whose length times |q| is the score, which then appears beside the tables (`read`). Shadows stack
        beside the line like rulers, so equal scores show as equal lengths."""
        colour = self.colours[index]
        line, shadow, foot = self.diagram.projection(key, query, colour, offset=0.16 + 0.13 * index)
        self.play(Create(line), FadeIn(foot, scale=0.5), run_time=drop)
        self.play(Create(shadow), run_time=cast)
        self.play(FadeIn(readout, target_position=shadow.get_end()), run_time=read)
