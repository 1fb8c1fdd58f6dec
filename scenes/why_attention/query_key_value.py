"""QueryKeyValue (seed 003, cells 5-7): Q asks, K addresses, V stores. The keys are points in a plane and the
query an arrow; each key's shadow on the query is its score, and keys A and C score the same."""

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
    GrowArrow,
    Indicate,
    LaggedStart,
    MathTex,
    SurroundingRectangle,
    VGroup,
)

from scenes.why_attention.shared import CAPTION_SIZE, WhyAttentionSlide, exact_decimals, fmt_g, key_labels
from seqanim import Artifact, count, listing, mark, number, sentence, translated
from seqanim.kit import layout, theme
from seqanim.kit.matrix import MatrixTable, number_format
from seqanim.kit.vectors import VectorDiagram

# --- the words -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Memory:
    """The hand-designed memory: each item's label, key and value, and the query that reads it."""

    labels: list[str]
    query: np.ndarray
    keys: np.ndarray
    values: np.ndarray


def memory_facts(art: Artifact) -> Memory:
    return Memory(key_labels(art), art["Q"][0], art["K"], art["V"])


@dataclass(frozen=True)
class Scores:
    """Each key's score (its dot product with the query) and the keys that share the highest: the notebook's
    keys give A and C the same score, though they differ; other keys may give one key the highest alone."""

    labels: list[str]
    scores: list[float]
    best: list[str]

    @property
    def tied(self) -> bool:
        return len(self.best) > 1

    @property
    def highest(self) -> float:
        return max(self.scores)


def score_facts(art: Artifact) -> Scores:
    labels, raw = key_labels(art), [float(s) for s in art["raw_scores"][0]]
    return Scores(labels, raw, [label for label, s in zip(labels, raw) if np.isclose(s, max(raw))])


def _vector(values: np.ndarray) -> str:
    """A small hand-designed vector as heard: "one, zero"."""
    return ", ".join(number(float(v), 2) for v in values)


def query_notes(art: Artifact) -> str:
    memory, Q = memory_facts(art), art["Q"]
    return (
        f"Start with a query and an addressable memory. Q asks what to retrieve: q = {fmt_g(memory.query)}. "
        "K describes how each memory item matches: "
        f"{', '.join(f'k_{label} = {fmt_g(k)}' for label, k in zip(memory.labels, memory.keys))}. "
        f"Shapes: Q {Q.shape}, K {memory.keys.shape}, V {memory.values.shape}. "
        "Hand-designed teaching vectors, not learned embeddings. "
        "Attention answers the fixed-context bottleneck: "
        "instead of one final encoder state, every output query retrieves from all earlier states."
    )


@translated
def query_said(art: Artifact) -> dict[str, str]:
    memory = memory_facts(art)
    named = listing([f"{mark(label)}{label}" for label in memory.labels])
    return {
        "memory": "Attention lets an output look back at every stored item.",
        "keys": f"The memory holds {count(len(memory.labels), 'item')}, {named}, each at its key: "
        f"{mark('address')}its address.",
        "query": f"The query arrow, {mark('vector')}{_vector(memory.query)}, says what we want to find.",
    }


def values_notes(art: Artifact) -> str:
    memory = memory_facts(art)
    pairs = ", ".join(
        f"{label}: k = {fmt_g(k)} -> v = {fmt_g(v)}" for label, k, v in zip(memory.labels, memory.keys, memory.values)
    )
    return (
        "V holds the information to combine, one value row per key row: "
        f"{pairs}. "
        "A key is an address; its associated value need not equal the key. "
        "Keep key rows paired with their value rows."
    )


@translated
def values_said(art: Artifact) -> dict[str, str]:
    memory = memory_facts(art)
    first = memory.labels[0]
    return {
        "tables": f"Beside it, the keys and {mark('values')}their values: what each item stores.",
        "pairs": "Each key row stays paired with its own value row.",
        "address": f"Item {first}'s key is {_vector(memory.keys[0])}; "
        f"{mark('value')}its value is {_vector(memory.values[0])}. {mark('address')}A key is only an address.",
    }


def scores_notes(art: Artifact) -> str:
    facts = score_facts(art)
    if facts.tied:
        checkpoint = (
            f"Checkpoint: {' and '.join(facts.best)} have the same dot product with this query "
            f"({' = '.join(f'{facts.highest:g}' for _ in facts.best)}), although their keys differ. "
        )
    else:
        checkpoint = f"Checkpoint: {facts.best[0]} has the highest dot product with this query ({facts.highest:g}). "
    return (
        "Project each key onto the query: q.k = "
        f"{', '.join(f'{label}: {s:g}' for label, s in zip(facts.labels, facts.scores))}. "
        f"{checkpoint}"
        "Practice 4: additive attention attaches to an LSTM encoder-decoder the same way: "
        "a decoder query scores all encoder states; no need to remove recurrence."
    )


@translated
def scores_said(art: Artifact) -> dict[str, str]:
    facts = score_facts(art)
    first, *others = zip(facts.labels, facts.scores)
    rest = [f"{mark(label)}{label} scores {number(s, 2)}" for label, s in others]
    if facts.tied:
        same = f"{listing(facts.best)} score {mark('same')}the same, {mark('differ')}though their keys differ."
    else:
        same = f"{facts.best[0]} scores {mark('same')}the highest: {mark('differ')}its shadow is the longest."
    return {
        "line": "Now drop each key onto the line of the query.",
        "first": f"Key {first[0]}'s {mark('shadow')}shadow has length {number(first[1], 2)}: "
        f"that is {mark('score')}q dot k, its score.",
        "rest": sentence(listing(rest)) + ".",
        "same": same,
    }


def same_caption(art: Artifact) -> str:
    """What the screen says of the highest score."""
    facts = score_facts(art)
    if facts.tied:
        return f"{' and '.join(facts.best)} score the same with this query: q\u00b7k = {facts.highest:g}"
    return f"{facts.best[0]} scores highest with this query: q\u00b7k = {facts.highest:g}"


def shadow_offset(index: int) -> float:
    """How far below q's line key `index`'s shadow lies: the shadows stack beside it like rulers."""
    return 0.16 + 0.13 * index


# --- the scene -------------------------------------------------------------------------------------------


class QueryKeyValue(WhyAttentionSlide):
    """Q asks, K addresses, V stores. Keys are points, the query an arrow; A and C score the same (with the
    notebook's keys)."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.query_and_keys()
        self.values()
        self.scores()

    def query_and_keys(self) -> None:
        art, memory = self.art, memory_facts(self.art)
        self.next_slide(notes=query_notes(art))
        said = query_said(art)
        heading = self.heading("Query, keys and values")
        self.diagram, points, arrow = self.key_plane(memory.query, memory.keys)
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
        art, memory = self.art, memory_facts(self.art)
        self.next_slide(notes=values_notes(art))
        said = values_said(art)
        self.tables = self.memory_tables(memory.keys, memory.values).to_edge(RIGHT, buff=0.45).shift(0.35 * UP)
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
        art, memory, facts = self.art, memory_facts(self.art), score_facts(self.art)
        query, keys = memory.query, memory.keys
        self.next_slide(notes=scores_notes(art))
        said = scores_said(art)
        readouts = self.score_readouts(facts.scores)
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
        best = [readouts[self.labels.index(label)] for label in facts.best]
        with self.beat(said["same"]) as beat:
            self.play(*[Indicate(readout, color=theme.highlight(), scale_factor=1.15) for readout in best],
                      run_time=beat.until("differ"))  # fmt: skip
            self.say(same_caption(art), colour=theme.caption_colour(), size=CAPTION_SIZE, run_time=beat.remaining)

    def key_plane(self, query: np.ndarray, keys: np.ndarray) -> tuple[VectorDiagram, VGroup, VGroup]:
        coords = np.vstack([keys, query[None]])
        span = max(1.5, float(np.abs(coords).max()) + 0.5)
        low = min(-0.5, float(np.floor(coords.min() * 2)) / 2 - 0.5)  # a key or query below 0 (qkv_walkthrough.keys)
        diagram = VectorDiagram((low, span, 0.5), (low, span, 0.5), width=5.0)
        diagram.to_edge(LEFT, buff=0.9).shift(0.25 * DOWN)
        axes_labels = VGroup(
            theme.text("key dim 1", theme.SMALL_SIZE, theme.muted()).next_to(diagram, DOWN, buff=0.08),
            theme.text("key dim 2", theme.SMALL_SIZE, theme.muted())
            .rotate(np.pi / 2)
            .next_to(diagram, LEFT, buff=0.08),
        )
        diagram.add(axes_labels)
        # The keys' shadows, drawn later as thick rulers under q's line, keep off the labels.
        shadows = [diagram.projection(k, query, colour, offset=shadow_offset(i))[1] for i, (k, colour) in
                   enumerate(zip(keys, self.colours))]  # fmt: skip
        lines = [(shadow.get_start(), shadow.get_end()) for shadow in shadows]
        labels = [f"{label} {fmt_g(k)}" for label, k in zip(self.labels, keys)]
        points = diagram.labelled_points(keys, self.colours, labels, lines)
        if points.get_left()[0] < diagram.plane.get_left()[0]:  # a key's label reaches past the plane's left edge
            axes_labels[1].next_to(VGroup(diagram.plane, points), LEFT, buff=0.08)
            VGroup(diagram, points).shift(max(0.0, -6.9 - axes_labels[1].get_left()[0]) * RIGHT)
        arrow = diagram.arrow(query, theme.query_colour())
        # Above the arrow's middle: below it is where the keys' shadows on q will stack. Over a key's label (a long
        # query, qkv_walkthrough.query = [3, 0]), under its tip instead, past the shadows.
        label = theme.text(f"q = {fmt_g(query)}", theme.LABEL_SIZE, theme.query_colour()).next_to(arrow, UP, buff=0.12)
        if any(layout.overlaps(label, point[1]) for point in points):
            label.next_to(arrow.get_end(), DOWN, buff=0.12).align_to(arrow.get_end(), RIGHT)
        return diagram, points, VGroup(arrow, label)

    def memory_tables(self, K: np.ndarray, V: np.ndarray) -> VGroup:
        key_decimals, value_decimals = exact_decimals(K), exact_decimals(V)  # wider cells for decimals
        keys = MatrixTable(
            K, row_labels=self.labels, row_label_colours=self.colours, col_title="key k",
            fmt=number_format(key_decimals), cell_width=0.6 + 0.3 * key_decimals,
        )  # fmt: skip
        values = MatrixTable(
            V, col_title="value v", fmt=number_format(value_decimals), cell_width=0.75 + 0.3 * value_decimals
        )
        for table, colour in ((keys, theme.key_colour()), (values, theme.value_colour())):
            table.col_title.set_color(colour)
        values.next_to(keys, RIGHT, buff=0.35).align_to(keys.cells, DOWN)
        values.shift((keys.cells.get_y() - values.cells.get_y()) * UP)
        return VGroup(keys, values)

    def score_readouts(self, scores: list[float]) -> VGroup:
        """One "q·k_X = s" per key, stacked under the tables, not yet shown: in columns side by side where one
        column would reach the closing caption (five keys' ran into it)."""
        readouts = VGroup(
            *[
                MathTex(rf"q \cdot k_{{{label}}} = {score:g}", font_size=theme.BODY_SIZE + 8, color=colour)
                for score, colour, label in zip(scores, self.colours, self.labels)
            ]
        )
        buff, top = 0.2, self.tables.get_bottom()[1] - 0.45
        floor = self.caption(same_caption(self.art), size=CAPTION_SIZE).get_top()[1] + 0.15
        rows = max(1, int((top - floor + buff) // (max(r.height for r in readouts) + buff)))
        columns = [VGroup(*readouts[start : start + rows]) for start in range(0, len(readouts), rows)]
        columns[0].arrange(DOWN, aligned_edge=LEFT, buff=buff).next_to(self.tables, DOWN, buff=0.45).align_to(
            self.tables, LEFT
        ).shift(0.5 * RIGHT)
        for before, column in zip(columns, columns[1:]):
            column.arrange(DOWN, aligned_edge=LEFT, buff=buff).next_to(before, RIGHT, buff=0.5).align_to(before, UP)
        layout.within_frame(readouts)
        return readouts

    def project(
        self, index: int, key: np.ndarray, query: np.ndarray, readout: MathTex, drop: float, cast: float, read: float
    ) -> None:
        """Key `index` casts its shadow on q's direction: the drop to the line (`drop` seconds), the shadow along it
        (`cast`), whose length times |q| is the score, which then appears beside the tables (`read`). Shadows stack
        beside the line like rulers, so equal scores show as equal lengths."""
        colour = self.colours[index]
        line, shadow, foot = self.diagram.projection(key, query, colour, offset=shadow_offset(index))
        self.play(Create(line), FadeIn(foot, scale=0.5), run_time=drop)
        self.play(Create(shadow), run_time=cast)
        self.play(FadeIn(readout, target_position=shadow.get_end()), run_time=read)
