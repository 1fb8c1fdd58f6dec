"""SelfAttentionLookup, notebook cell tf2: self-attention is content-based lookup. A trained one-head layer
answers "which value has key k?" with a near one-hot attention row: the tokens, the attention matrix, the
query's row, that row as bars, and the value read off the matching item."""

from __future__ import annotations

from dataclasses import dataclass

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
    Indicate,
    LaggedStart,
    TransformFromCopy,
    VGroup,
)

from seqanim import Artifact, LectureSlide, count, integer, mark, percent, translated
from seqanim.kit import theme
from seqanim.kit.alignment import token_box
from seqanim.kit.bars import Bars
from seqanim.kit.heatmap import Heatmap, centred_lines
from seqanim.kit.layout import overlaps, within_frame
from seqanim.kit.motion import Travel

# --- the words ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lookup:
    """The facts of the lookup every beat's words say, read once from the run."""

    labels: tuple[str, ...]  # the tokens, the query last
    items: int  # item tokens before the query
    query_key: int
    diagonal: float  # the mean weight an item row keeps on itself
    match: int  # the item whose key matches the query's
    weight: float  # the query row's weight on it
    others: int  # the query row's other weights
    rest: float  # what they add up to
    stored: int  # the value stored in the matching item
    prediction: int
    answer: int
    test_size: int  # held-out lookups
    accuracy: float  # on them


def lookup_facts(run: Artifact) -> Lookup:
    """What the lookup shows: the tokens, the attention's diagonal, the query's row and the value it reads."""
    labels = tuple(str(label) for label in run["labels"])
    row, match = run["attention"][-1], int(run["match_index"])
    return Lookup(
        labels=labels,
        items=len(labels) - 1,
        query_key=int(run["query_key"]),
        diagonal=float(np.mean(np.diagonal(run["attention"])[:-1])),
        match=match,
        weight=float(row[match]),
        others=len(row) - 1,
        rest=1 - float(row[match]),
        stored=int(run["values"][match]),
        prediction=int(run["prediction"]),
        answer=int(run["answer"]),
        test_size=int(run.params["test_size"]),
        accuracy=float(run.metrics["accuracy"]),
    )


def tokens_notes(run: Artifact) -> str:
    facts = lookup_facts(run)
    return (
        "Every token emits a query, a key and a value. "
        f"Here {facts.items} item tokens each carry a key and a value, "
        f"and the last token carries only the query key k{facts.query_key}. "
        "One layer, one head, trained only to output the matching value; "
        f"it answers {facts.accuracy:.1%} of held-out lookups correctly."
    )


@translated
def tokens_said(run: Artifact) -> dict[str, str]:
    facts = lookup_facts(run)
    key = integer(facts.query_key)
    return {
        "opening": (
            f"Self-attention can act as a lookup. Here are {count(facts.items, 'item token')} {mark('query')}and one "
            "query."
        ),
        "kinds": f"Each item holds a key and a value; {mark('query')}the query holds only key {key}.",
        "task": f"One attention layer, one head, {mark('task')}must output the value stored under key {key}.",
    }


def matrix_notes(run: Artifact) -> str:
    return (
        "The full attention matrix: each row is the token doing the attending (the query), "
        "each column an attended token (the key). "
        f"Every item row keeps its weight on itself: on average {lookup_facts(run).diagonal:.3f} on the diagonal."
    )


@translated
def matrix_said(run: Artifact) -> dict[str, str]:
    return {
        "rows_and_columns": (
            f"Each row of this matrix is one token asking a question; {mark('column')}each column is a token it can "
            "look at."
        ),
        "diagonal": (
            f"Item rows keep their weight on themselves: {percent(lookup_facts(run).diagonal, 0)}, on average, sits "
            "on the diagonal."
        ),
    }


def query_row_notes(run: Artifact) -> str:
    facts = lookup_facts(run)
    return (
        f"The bottom row is the query '{facts.labels[-1]}'. "
        f"It puts {facts.weight:.3f} of its weight on item #{facts.match} ({facts.labels[facts.match]}), "
        "the one item whose key matches: a near one-hot row."
    )


@translated
def query_row_said(run: Artifact) -> str:
    return (
        f"The bottom row is the query. It puts {mark('weight')}{percent(lookup_facts(run).weight, 1)} of its weight "
        f"on {mark('match')}the one matching item."
    )


def bars_notes(run: Artifact) -> str:
    facts = lookup_facts(run)
    return (
        f"The query row on its own: one tall bar of {facts.weight:.3f} on the matching item; "
        f"the other {facts.others} weights add up to {facts.rest:.4f}."
    )


@translated
def bars_said(run: Artifact) -> dict[str, str]:
    facts = lookup_facts(run)
    return {
        "one_bar": f"As bars, the query's row is one tall bar on {mark('item')}the matching item.",
        "the_rest": (f"The other {integer(facts.others)} weights {mark('share')}share just {percent(facts.rest, 1)}."),
    }


def read_out_notes(run: Artifact) -> str:
    facts = lookup_facts(run)
    return (
        f"The value is read off the attended item: predicted v{facts.prediction}, true v{facts.answer}. "
        f"Over {facts.test_size} held-out lookups the accuracy is {facts.accuracy:.1%}, "
        f"and the query row puts {run.metrics['query_match_mass']:.3f} of its weight "
        "on the matching item on average."
    )


@translated
def read_out_said(run: Artifact) -> dict[str, str]:
    facts = lookup_facts(run)
    right = facts.prediction == facts.answer
    verdict = "the right answer" if right else f"wrong: the answer was value {integer(facts.answer)}"
    return {
        "read": f"So the layer reads the value stored in that item, {mark('value')}value {integer(facts.stored)}.",
        "verdict": (
            f"It predicts value {integer(facts.prediction)}, {verdict}. {mark('test')}On {integer(facts.test_size)} "
            f"new lookups it is right {percent(facts.accuracy, 1)} of the time."
        ),
    }


# --- the scene ----------------------------------------------------------------------------------------


# The most height the matrix's cells take (the default 7 tokens take 5.32): with its labels, it then reaches from
# FOOT, inside the frame's bottom edge, to the title.
MATRIX_HEIGHT, FOOT = 5.75, -3.85


class SelfAttentionLookup(LectureSlide):
    """tf2: a trained one-head layer answers "which value has key k?" with a near one-hot attention row."""

    data = ("lookup",)

    def construct(self) -> None:
        self.run = self.load("lookup")
        self.facts = lookup_facts(self.run)
        self.labels = list(self.facts.labels)
        self.match = self.facts.match
        self.attention = self.run["attention"]
        # The bars' slots are the default 7 tokens' (6 items and the query): more or fewer share the same width
        # (lookup.items), down to slots that still hold their labels at the smallest readable size.
        self.fit = max(7 / len(self.labels), 0.84)
        self.tokens()
        self.matrix()
        self.query_row()
        self.bars()
        self.read_out()

    def tokens(self) -> None:
        run, items = self.run, len(self.labels) - 1
        self.next_slide(notes=tokens_notes(run))
        said = tokens_said(run)
        heading = self.heading("Self-attention is content-based lookup")
        colours = [theme.key_colour()] * items + [theme.query_colour()]
        # Narrower item boxes, not smaller text, where more tokens share the frame's width; the query's box as wide
        # as its words ("query k3" filled a box of the items' width to its edges).
        query_width = theme.text(self.labels[-1], theme.SMALL_SIZE).width + 0.3
        width = min(1.35, (13.2 - 0.25 * items - query_width) / items)
        widths = [width] * items + [max(width, query_width)]
        self.token_row = VGroup(
            *[token_box(label, colour, width=w) for label, colour, w in zip(self.labels, colours, widths)]
        ).arrange(RIGHT, buff=0.25)
        self.token_row.next_to(heading, DOWN, buff=0.8)
        kinds = VGroup(
            theme.text("items: key + value", theme.LABEL_SIZE, theme.key_colour()).next_to(
                self.token_row[:items], DOWN, buff=0.3
            ),
            theme.text("query: key only", theme.LABEL_SIZE, theme.query_colour()).next_to(
                self.token_row[-1], DOWN, buff=0.3
            ),
        )
        within_frame(kinds[1])  # under the last token, but inside the frame
        task = theme.text(f"task: output the value stored under key k{int(run['query_key'])}", theme.BODY_SIZE)
        layer = theme.text(
            f"one self-attention layer, one head, width {run.params['d']}", theme.LABEL_SIZE, theme.muted()
        )
        VGroup(layer, task).arrange(DOWN, buff=0.35).next_to(kinds, DOWN, buff=0.9)
        item_tokens, query_token = self.token_row[:items], self.token_row[-1]
        with self.beat(said["opening"]) as beat:  # the items come with the title, then the query
            arriving = LaggedStart(*[FadeIn(token, shift=0.1 * DOWN) for token in item_tokens], lag_ratio=0.2)
            self.title(heading, along=[arriving], run_time=beat.until("query"))
            self.play(FadeIn(query_token, shift=0.1 * DOWN), run_time=beat.remaining)
        with self.beat(said["kinds"]) as beat:  # what the items hold, then what the query holds
            self.play(FadeIn(kinds[0]), LaggedStart(*[Indicate(token) for token in item_tokens], lag_ratio=0.2),
                      run_time=beat.until("query"))  # fmt: skip
            self.play(FadeIn(kinds[1]), Indicate(query_token), run_time=beat.remaining)
        with self.beat(said["task"]) as beat:
            self.play(FadeIn(layer), run_time=beat.until("task"))
            self.play(FadeIn(task, shift=0.2 * UP), run_time=beat.remaining)
        self.kinds = VGroup(kinds, layer, task)

    def matrix(self) -> None:
        self.next_slide(notes=matrix_notes(self.run))
        said = matrix_said(self.run)
        two_line = [label.replace("=", "\n").replace(" ", "\n") for label in self.labels]
        # The default 7 tokens' cells; more share the height under the title, with the decimals a cell holds
        # (none: colour only, the colour bar says what it means).
        cell = min(0.76, MATRIX_HEIGHT / len(self.labels))
        decimals = next((d for d in (2, 1) if theme.text(f"{1:.{d}f}", theme.SMALL_SIZE).width + 0.1 <= cell), None)
        self.heatmap = Heatmap(
            self.attention,
            row_labels=self.labels,
            col_labels=two_line,
            row_title="query",
            col_title="key",
            cell_size=cell,
            vmin=0.0,
            vmax=1.0,
            annotate=decimals is not None,
            fmt=f"{{:.{decimals}f}}",
            annotation_size=theme.SMALL_SIZE,
            annotate_from=0.5 / 10 ** (decimals or 0),  # a weight that rounds to 0 shows as colour only
        )
        self.heatmap.to_edge(LEFT, buff=0.3).shift(0.05 * DOWN)
        self.heatmap.shift(max(0.0, FOOT - self.heatmap.get_bottom()[1]) * UP)  # more tokens: it grows upwards
        query_label, before = self.heatmap.col_labels[-1], self.heatmap.col_labels[-2]
        if before.get_right()[0] + 0.1 > query_label.get_left()[0]:  # narrow cells: "query" reaches rightwards
            query_label.shift((before.get_right()[0] + 0.1 - query_label.get_left()[0]) * RIGHT)
        # Each token travels to become its row (as the query) and its column (as the key) of the matrix.
        travels = [
            Travel(token[1], label)
            for labels in (self.heatmap.row_labels, self.heatmap.col_labels)
            for token, label in zip(self.token_row, labels)
        ]
        to_rows, to_columns = travels[: len(self.labels)], travels[len(self.labels) :]
        # The tokens become the rows, then the columns, as each is named.
        with self.beat(said["rows_and_columns"]) as beat:
            self.play(FadeOut(self.kinds), *[FadeOut(token[0]) for token in self.token_row], run_time=0.4)
            self.play(FadeIn(self.heatmap), *to_rows, run_time=beat.until("column"))
            self.play(*[FadeOut(token[1]) for token in self.token_row], *to_columns, run_time=beat.remaining)
        items = range(len(self.labels) - 1)
        own = [self.weight_cell(i, i) for i in items]
        with self.beat(said["diagonal"]) as beat:  # each item row's weight on itself, down the diagonal
            self.play(LaggedStart(*[Indicate(cell) for cell in own], lag_ratio=0.5), run_time=beat.remaining)
        self.add(self.heatmap)  # manim took the lit cells out of it: one heatmap again

    def weight_cell(self, row: int, col: int) -> VGroup:
        """A cell of the attention matrix with its number."""
        return VGroup(self.heatmap.cell(row, col), self.heatmap.annotations[row * len(self.labels) + col])

    def query_row(self) -> None:
        self.next_slide(notes=query_row_notes(self.run))
        said = query_row_said(self.run)
        self.box = self.heatmap.row_box(len(self.labels) - 1, theme.query_colour())
        weight = self.weight_cell(len(self.labels) - 1, self.match)
        with self.beat(said) as beat:  # the row boxed, its one weight, then the item it falls on
            self.play(Create(self.box), run_time=beat.until("weight"))
            self.play(Indicate(weight), run_time=beat.until("match"))
            self.play(Indicate(self.heatmap.row_labels[self.match]), Indicate(self.heatmap.col_labels[self.match]),
                      run_time=beat.remaining)  # fmt: skip
        self.add(self.heatmap)  # manim took the lit cells out of it: one heatmap again

    def bars(self) -> None:
        row = self.attention[-1]
        self.next_slide(notes=bars_notes(self.run))
        said = bars_said(self.run)
        colours = [theme.query_colour() if j == self.match else theme.key_colour() for j in range(len(row))]
        # The default bars' slot (0.76 a token), narrower where more tokens leave less room beside the matrix.
        left = self.heatmap.get_right()[0] + 0.4
        slot = min(0.76 * self.fit, (6.9 - left) / len(row))
        short = [label.replace("=", "\n").replace(" ", "\n") for label in self.labels]
        self.chart = Bars(
            row,
            short,
            max_value=1.0,
            height=2.6,
            bar_width=0.5 / 0.76 * slot,
            spacing=0.26 / 0.76 * slot,
            colours=colours,
            decimals=3,
            label_size=theme.SMALL_SIZE,
            value_size=theme.tex_size(theme.SMALL_SIZE),
        )
        self.chart.next_to(self.heatmap, RIGHT, buff=0.4).align_to(self.heatmap.cells, DOWN).shift(0.3 * UP)
        for readout, weight in zip(self.chart.readouts, row):
            if weight < 0.01:  # only the weights that matter carry a number; the bars show the rest
                readout.set_opacity(0)
        query_label, before = self.chart.labels[-1], self.chart.labels[-2]
        if overlaps(query_label, before):  # narrow slots (many tokens): "query" reaches past its bar, rightwards
            query_label.shift((before.get_right()[0] + 0.1 - query_label.get_left()[0]) * RIGHT)
            within_frame(self.chart)
        axis = theme.text("attention weight of the query row", theme.LABEL_SIZE, theme.muted())
        if axis.width > self.chart.width:  # two lines over a narrow chart, clear of the colour bar
            axis = centred_lines(theme.text("attention weight\nof the query row", theme.LABEL_SIZE, theme.muted()))
        axis = within_frame(axis.next_to(self.chart, UP, buff=0.35))
        others = [j for j in range(len(row)) if j != self.match]
        rest = (
            theme.text(
                f"the other {self.facts.others}: {self.facts.rest:.4f} in all", theme.LABEL_SIZE, theme.key_colour()
            )
            .next_to(self.chart, DOWN, buff=0.35)
            .align_to(self.chart, LEFT)
        )
        with self.beat(said["one_bar"]) as beat:  # the row becomes bars, then the tall one is indicated as it is named
            self.play(
                TransformFromCopy(self.heatmap.row(len(row) - 1), self.chart.bars),
                FadeIn(self.chart.baseline),
                FadeIn(self.chart.labels),
                run_time=beat.until("item"),
            )
            self.play(Indicate(self.chart.bars[self.match], scale_factor=1.1), Indicate(self.chart.labels[self.match]),
                      run_time=beat.remaining)  # fmt: skip
        with self.beat(said["the_rest"]) as beat:  # the other items named in turn, then their total written
            self.play(FadeIn(self.chart.readouts), FadeIn(axis),
                      LaggedStart(*[Indicate(self.chart.labels[j]) for j in others], lag_ratio=0.3),
                      run_time=beat.until("share"))  # fmt: skip
            self.play(FadeIn(rest, shift=0.1 * UP), run_time=beat.remaining)
        self.chart_title, self.rest = axis, rest

    def read_out(self) -> None:
        run, facts = self.run, self.facts
        self.next_slide(notes=read_out_notes(run))
        said = read_out_said(run)
        verdict = "correct" if facts.prediction == facts.answer else "wrong"
        read = theme.text(
            f"read the value of {self.labels[self.match]}: v{facts.stored}",
            theme.LABEL_SIZE,
            theme.value_colour(),
        )
        mark, colour = ("✓", theme.allowed_colour()) if verdict == "correct" else ("✗", theme.error_colour())
        result = theme.text(
            f"{mark} predicted v{facts.prediction}, true v{facts.answer} ({verdict})", theme.LABEL_SIZE, colour
        )
        lines = VGroup(read, result).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        lines.next_to(self.chart, UP, buff=0.6).align_to(self.chart, LEFT)
        within_frame(lines)
        start = self.chart.readouts[self.match].get_top()
        arrow = Arrow(
            start, [start[0], lines.get_bottom()[1], 0], buff=0.08, color=theme.value_colour(), stroke_width=4
        )
        held_out = within_frame(
            theme.text(f"{facts.test_size} new lookups: {facts.accuracy:.1%} right", theme.LABEL_SIZE, colour).next_to(
                self.rest, DOWN, buff=0.2, aligned_edge=LEFT
            )
        )
        with self.beat(said["read"]) as beat:  # from the tall bar up to the value it reads
            self.play(FadeOut(self.chart_title), run_time=0.3)
            self.play(Create(arrow), run_time=beat.until("value"))
            self.play(FadeIn(read, shift=0.2 * UP), run_time=beat.remaining)
        with self.beat(said["verdict"]) as beat:  # the verdict, then the held-out accuracy under the chart
            self.play(FadeIn(result, shift=0.2 * UP), run_time=beat.until("test"))
            self.play(FadeIn(held_out, shift=0.2 * UP), run_time=beat.remaining)
