"""QueryAndTemperature (seed 003, cells 17-19 and practice 1): the memory stays and the query turns, the weight
heatmap filling row by row; then the query stays and the softmax temperature turns on a dial, the bars
sharpening and softening with it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Circumscribe,
    Create,
    DecimalNumber,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    MathTex,
    NumberLine,
    Text,
    Transform,
    ValueTracker,
    VGroup,
    Write,
    config,
    smooth,
)

from scenes.why_attention.shared import (
    CAPTION_SIZE,
    WhyAttentionSlide,
    fmt_g,
    fmt_row,
    item_share,
    key_labels,
    widest,
)
from seqanim import Artifact, count, listing, mark, number, sentence, translated
from seqanim.kit import theme
from seqanim.kit.bars import Bars
from seqanim.kit.heatmap import Heatmap
from seqanim.kit.motion import roll
from seqanim.kit.vectors import VectorDiagram

# --- the words -----------------------------------------------------------------------------------------


def _spoken(value: float) -> str:
    return number(float(value), 2)


def _vector(values: np.ndarray) -> str:
    return ", ".join(_spoken(v) for v in values)


@dataclass(frozen=True)
class Share:
    """Keys whose weights sound the same (to two places): that weight, and the keys by index and by name."""

    weight: float
    keys: tuple[int, ...]
    names: tuple[str, ...]


def shares(labels: list[str], weights: np.ndarray) -> list[Share]:
    """The weights as heard, each with the keys that have it, largest first."""
    groups: dict[str, list[int]] = {}
    for index in np.argsort(-weights, kind="stable"):
        groups.setdefault(_spoken(weights[index]), []).append(int(index))
    return [Share(float(weights[keys[0]]), tuple(keys), tuple(labels[key] for key in keys)) for keys in groups.values()]


def _weigh(names: tuple[str, ...]) -> str:
    return "weighs" if len(names) == 1 else "weigh"


def _weighs(labels: list[str], weights: np.ndarray) -> list[str]:
    """One clause per share of the weights, largest first: "A and C weigh zero point four"."""
    return [f"{listing(kept.names)} {_weigh(kept.names)} {_spoken(kept.weight)}" for kept in shares(labels, weights)]


def _then(parts: list[str]) -> str:
    """Clauses that each hold an "and" of their own, joined so they stay apart: "A and C weigh x, and B y"."""
    return ", and ".join(parts) if len(parts) == 2 else listing(parts)


def _queries(art: Artifact) -> str:
    return count(len(art["queries"]), "query", "queries")


def ranking(art: Artifact, index: int) -> tuple[tuple[str, ...], ...]:
    """Query `index`'s ranking of the keys: the keys of each weight as heard, largest first."""
    return tuple(share.names for share in shares(key_labels(art), art["query_weights"][index]))


def rankings(art: Artifact) -> int:
    """How many different rankings the queries give."""
    return len({ranking(art, index) for index in range(len(art["queries"]))})


def standard(t: float) -> bool:
    """Whether `t` is the temperature of standard scaled dot-product attention."""
    return bool(np.isclose(t, 1.0))


def start_temperature(art: Artifact) -> int:
    """The index of the walkthrough's own temperature among the swept ones (the first when it is not one)."""
    temps, base = art["temperatures"], float(art["temperature"])
    return int(np.argmin(np.abs(temps - base))) if np.any(np.isclose(temps, base)) else 0


def temperature_stops(art: Artifact) -> list[int]:
    """The temperatures the dial stops at: the others from low to high, then back to the start."""
    start = start_temperature(art)
    return [int(i) for i in np.argsort(art["temperatures"]) if i != start] + [start]


def first_query_notes(art: Artifact) -> str:
    queries, query_weights, query_contexts = art["queries"], art["query_weights"], art["query_contexts"]
    return (
        f"Change only the query; the memory stays fixed. Predict the ranking before each step. "
        f"q = {fmt_g(queries[0])}: weights {fmt_row(query_weights[0])}, context {fmt_row(query_contexts[0])}."
    )


@translated
def first_query_said(art: Artifact) -> dict[str, str]:
    heard = _weighs(key_labels(art), art["query_weights"][0])
    return {
        "fixed": "Now the memory stays fixed, and only the query changes.",
        "table": f"The query arrow, and {mark('table')}a table with one row of weights for each of {_queries(art)}.",
        "weights": f"For the query {_vector(art['queries'][0])}, {mark('weights')}{_then(heard)}.",
    }


def query_notes(art: Artifact, index: int) -> str:
    labels, queries, query_weights = key_labels(art), art["queries"], art["query_weights"]
    least = ranking(art, index)[-1]
    if queries[index][0] < 0:
        pairs = ", ".join(f"{label}: {w:.4f}" for label, w in zip(labels, query_weights[index]))
        tail = (
            " Checkpoint: a query with negative first coordinate "
            "reduces the weights of keys with positive first coordinate "
            f"({pairs}). "
            "Retrieval depends on the query, not on one universal ranking."
        )
    elif ranking(art, index) != ranking(art, index - 1):
        tail = f" The ranking changes with the query: {' and '.join(least)} now {_weigh(least)} least."
    else:
        tail = " The ranking stays that of the query before."
    return (
        f"q = {fmt_g(queries[index])}: weights {fmt_row(query_weights[index])}, "
        f"context {fmt_row(art['query_contexts'][index])}." + tail
    )


@translated
def query_said(art: Artifact, index: int) -> dict[str, str]:
    """The query turns, its row fills; after the last query (only), a "lesson" beat on the three rows."""
    heard = _weighs(key_labels(art), art["query_weights"][index])
    said = {
        "turns": f"The query turns to {_vector(art['queries'][index])}.",
        "weights": sentence(f"now {_then(heard)}."),
    }
    if index == len(art["queries"]) - 1:
        shown = lesson(art)
        said["lesson"] = f"One memory, {_queries(art)}, {shown.rankings}: {mark('depends')}{shown.meaning}."
    return said


@dataclass(frozen=True)
class Lesson:
    """What the queries' rows show together: how many rankings ("three rankings"), and what that means."""

    rankings: str
    meaning: str


def lesson(art: Artifact) -> Lesson:
    if rankings(art) == 1:
        return Lesson("one ranking", "these queries happen to agree")
    return Lesson(count(rankings(art), "ranking"), "retrieval depends on the query")


def temperature_notes(art: Artifact) -> str:
    temps, weights_at, start = art["temperatures"], art["temperature_weights"], start_temperature(art)
    others = " and ".join(f"T = {t:g}" for t in temps if not np.isclose(t, temps[start]))
    return (
        "Temperature divides the scores before the softmax: A = softmax(S / T). "
        f"Keep Q, K, V fixed (q = {fmt_g(art['Q'][0])}). "
        f"At T = {temps[start]:g} the weights are {fmt_row(weights_at[start])}. "
        f"Practice 1: predict the sharpness at {others} before you watch."
    )


@translated
def temperature_said(art: Artifact) -> dict[str, str]:
    start = art["temperatures"][start_temperature(art)]
    return {
        "change": "Next, keep the query and change only the temperature.",
        "dial": "The scores are divided by a temperature before the softmax; "
        f"{mark('dial')}the dial starts at {_spoken(start)}.",
    }


@dataclass(frozen=True)
class Move:
    """Keys of one weight at a stop of the dial, and whether that weight rose from the start's."""

    share: Share
    rises: bool


@dataclass(frozen=True)
class Sweep:
    """The dial's whole range: its two ends and their weights; at the low end, the key that keeps least (and
    how little) and the keys of the largest weight, which take the rest."""

    low: float
    high: float
    low_weights: np.ndarray
    high_weights: np.ndarray
    least: int
    least_weight: float
    top: tuple[int, ...]


@dataclass(frozen=True)
class Stop:
    """One stop of the temperature dial: its temperature and weights; `start` when it is the walkthrough's own
    temperature (the dial sweeps its whole range there), `sharper` when it is below it; the weights' moves from
    the start's, largest weight first."""

    t: float
    weights: np.ndarray
    start: bool
    sharper: bool
    moves: tuple[Move, ...]


def sweep(art: Artifact) -> Sweep:
    temps, weights = art["sweep_temperatures"], art["sweep_weights"]
    low = weights[0]
    top = tuple(i for i in range(len(low)) if np.isclose(low[i], low.max()))
    return Sweep(float(temps[0]), float(temps[-1]), low, weights[-1], int(np.argmin(low)), float(low.min()), top)


def stop_facts(art: Artifact, stop: int) -> Stop:
    temps, weights_at, start = art["temperatures"], art["temperature_weights"], start_temperature(art)
    moves = tuple(
        Move(share, bool(weights_at[stop][share.keys[0]] > weights_at[start][share.keys[0]]))
        for share in shares(key_labels(art), weights_at[stop])
    )
    return Stop(float(temps[stop]), weights_at[stop], stop == start, bool(temps[stop] < temps[start]), moves)


def stop_notes(art: Artifact, stop: int) -> str:
    at = stop_facts(art, stop)
    if at.start:
        dial = sweep(art)
        return (
            f"Sweep the whole dial, T = {dial.low:g} to {dial.high:g}: the weights run from "
            f"{fmt_row(dial.low_weights)} (sharp: the top scores share almost everything) to "
            f"{fmt_row(dial.high_weights)} (soft: toward uniform). "
            f"Back to T = {at.t:g}"
            + (": standard scaled dot-product attention uses temperature 1; " if standard(at.t) else "; ")
            + f"weights {fmt_row(at.weights)}."
        )
    start = f"{art['temperatures'][start_temperature(art)]:g}"
    if at.sharper:
        effect = f"Temperature below {start} sharpens the distribution: the larger scores take more weight."
    else:
        effect = f"Temperature above {start} softens it: the weights move toward uniform."
    return f"T = {at.t:g}: weights {fmt_row(at.weights)}. " + effect


@translated
def stop_said(art: Artifact, stop: int) -> dict[str, str]:
    """The starting stop sweeps the whole dial ("up", "down", "back"); any other stop is a "turn" and its "moves"."""
    labels, at = key_labels(art), stop_facts(art, stop)
    if at.start:
        dial = sweep(art)
        top = [labels[i] for i in dial.top]
        return {
            "up": f"Sweep the whole dial: {mark('up')}up at {_spoken(dial.high)}, the weights become nearly uniform.",
            "down": f"Down at {_spoken(dial.low)}, {mark('least')}{labels[dial.least]} keeps only "
            f"{_spoken(dial.least_weight)}; {mark('top')}{listing(top)} take the rest.",
            "back": f"Back at {_spoken(at.t)}: {mark('standard')}"
            + ("the temperature of standard attention." if standard(at.t) else "where the dial started."),
        }
    turn = (
        f"Down to {_spoken(at.t)}: a lower temperature sharpens the weights."
        if at.sharper
        else f"Up to {_spoken(at.t)}: a higher temperature softens them toward uniform."
    )
    moves = []
    for group, move in enumerate(at.moves):
        names = move.share.names
        verb = "rises" if move.rises else "falls"
        verb = verb if len(names) == 1 else verb[:-1]
        named = f"{mark(f'group{group}')}{listing(names)}" if group else listing(names)  # a beat opens on a word
        moves.append(f"{named} {verb} to {_spoken(move.share.weight)}")
    return {"turn": turn, "moves": sentence("; ".join(moves) + ".")}


# --- the scene -------------------------------------------------------------------------------------------


class QueryAndTemperature(WhyAttentionSlide):
    """The memory stays, the query turns: the weight heatmap fills row by row. Then the temperature sweeps."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.first_query()
        for index in range(1, len(self.art["queries"])):
            self.next_query(index)
        self.temperature()
        for stop in temperature_stops(self.art):
            self.temperature_stop(stop)

    def first_query(self) -> None:
        art = self.art
        self.next_slide(notes=first_query_notes(art))
        said = first_query_said(art)
        self.heading_text = self.heading("Change only the query")
        self.query_plane()
        self.weight_table()
        with self.beat(said["fixed"]) as beat:
            self.title(self.heading_text, along=[Create(self.diagram), FadeIn(self.points)], run_time=beat.remaining)
        with self.beat(said["table"]) as beat:
            self.play(GrowArrow(self.arrow), FadeIn(self.query_label), run_time=beat.until("table"))
            self.play(FadeIn(self.heatmap), run_time=beat.remaining)
        with self.beat(said["weights"]) as beat:  # this query, named, then its row of weights as they are read
            self.play(Indicate(self.query_label), Indicate(self.heatmap.row_labels[0]), run_time=beat.until("weights"))
            self.fill_row(0, beat.remaining)

    def next_query(self, index: int) -> None:
        art = self.art
        self.next_slide(notes=query_notes(art, index))
        said = query_said(art, index)
        with self.beat(said["turns"]) as beat:
            self.turn_query(index, beat.remaining)
        with self.beat(said["weights"]) as beat:
            self.fill_row(index, beat.remaining)
        if "lesson" in said:  # only after the last query
            self.arrow.clear_updaters()
            rows = self.heatmap.shape[0]
            with self.beat(said["lesson"]) as beat:  # the rows, one per query, each with its own ranking
                self.play(
                    LaggedStart(*[Indicate(self.heatmap.row_labels[r]) for r in range(rows)], lag_ratio=0.5),
                    run_time=beat.until("depends"),
                )
                self.say(
                    f"one memory, {lesson(art).rankings}: {lesson(art).meaning}",
                    colour=theme.caption_colour(),
                    size=CAPTION_SIZE,
                    run_time=beat.remaining,
                )

    def temperature(self) -> None:
        art = self.art
        self.next_slide(notes=temperature_notes(art))
        said = temperature_said(art)
        start = start_temperature(art)
        self.log_t = ValueTracker(float(np.log(art["temperatures"][start])))
        self.temperature_bars()
        self.temperature_dial()
        self.into_temperature(said["change"], said["dial"])
        self.bars.add_updater(lambda m: m.set_values(self.weights_now()))

    def temperature_stop(self, stop: int) -> None:
        art = self.art
        at = stop_facts(art, stop)
        t = at.t
        self.next_slide(notes=stop_notes(art, stop))
        if at.start:  # the dial's whole range, where the bars change most, before settling at T = 1
            said = stop_said(art, stop)
            dial = sweep(art)
            with self.beat(said["up"]) as beat:
                self.say(self.sweep_caption(), colour=theme.muted(), size=CAPTION_SIZE, run_time=beat.until("up"))
                self.turn_dial(dial.high, beat.remaining)
            with self.beat(
                said["down"]
            ) as beat:  # the dial goes down; then the bar that keeps least, and those that win
                self.turn_dial(dial.low, beat.until("least"))
                self.play(self.circle_bars([dial.least]), run_time=beat.until("top"))
                self.play(self.circle_bars(list(dial.top)), run_time=beat.remaining)
            with self.beat(said["back"]) as beat:
                self.turn_dial(t, beat.until("standard"))
                self.say(f"T = {t:g}: " + ("standard attention" if standard(t) else "where it started"),
                         colour=theme.foreground(), size=CAPTION_SIZE, run_time=beat.remaining)  # fmt: skip
            self.bars.clear_updaters()
            return
        said = stop_said(art, stop)
        with self.beat(said["turn"]) as beat:  # the previous stop's caption goes as the dial leaves it
            leaving = [] if self._caption is None else [FadeOut(self._caption)]
            self._caption = None
            self.turn_dial(t, beat.remaining, *leaving)
        # Each bar circled as its new weight is said (keys of equal weight together), the weights in the caption.
        groups = [list(move.share.keys) for move in at.moves]
        with self.beat(said["moves"]) as beat:
            self.say(self.stop_caption(stop), colour=theme.caption_colour(), size=CAPTION_SIZE,
                     run_time=beat.until("group1") / 2 if len(groups) > 1 else beat.remaining / 2)  # fmt: skip
            for following, group in enumerate(groups, start=1):
                until = beat.until(f"group{following}") if following < len(groups) else beat.remaining
                self.play(self.circle_bars(group), run_time=until)

    # --- the query -------------------------------------------------------------------------------------

    def query_plane(self) -> None:
        """The keys as points and the query as an arrow that turns with two trackers (angle and length)."""
        queries, K = self.art["queries"], self.art["K"]
        # Half a unit past the farthest key or query, at least the notebook's 1.5 (a key at -2 lay off the plane).
        span = max(1.5, float(np.ceil(2 * np.abs(np.vstack([K, queries])).max())) / 2 + 0.5)
        self.diagram = (
            VectorDiagram((-span, span, 0.5), (-span, span, 0.5), width=4.8).to_edge(LEFT, buff=0.8).shift(0.45 * DOWN)
        )
        self.points = self.diagram.labelled_points(K, self.colours, self.labels).set_z_index(2)
        self.angle = ValueTracker(float(np.arctan2(queries[0][1], queries[0][0])))
        self.length = ValueTracker(float(np.linalg.norm(queries[0])))
        self.arrow = self.diagram.arrow(queries[0], theme.query_colour())
        self.arrow.add_updater(lambda m: m.become(self.diagram.arrow(self.query_now(), theme.query_colour())))
        self.row_labels = [f"q = {fmt_g(q)}" for q in queries]
        self.query_label = theme.text(self.row_labels[0], theme.LABEL_SIZE, theme.query_colour()).next_to(
            self.diagram, UP, buff=0.15
        )

    def query_now(self) -> np.ndarray:
        angle = self.angle.get_value()
        return self.length.get_value() * np.array([np.cos(angle), np.sin(angle)])

    @staticmethod
    def decimals_within(width: float, size: float, tex: bool = False) -> int:
        """4 decimals where a weight of them fits `width` with room beside it, else 2 (as the weights are said)."""
        needed = MathTex("0.0000", font_size=size).width if tex else widest(["0.0000"], size)
        return 4 if needed + 0.15 <= width else 2

    def weight_table(self) -> None:
        """The weight heatmap, one row per query, blank until each row fills. More keys share the room beside the
        key plane: its columns narrow (at five keys it had reached over the plane), its text keeps its size."""
        self.heatmap = self.weight_heatmap(1.35)
        room = config.frame_width / 2 - 0.5 - (VGroup(self.diagram, self.points).get_right()[0] + 0.4)
        if self.heatmap.width > room:
            labels_width = self.heatmap.width - self.heatmap.cells.width
            self.heatmap = self.weight_heatmap((room - labels_width) / len(self.labels))
        self.heatmap.blank().to_edge(RIGHT, buff=0.5).shift(0.45 * DOWN)
        # animate_values re-adds the cells on top; keep the numbers above them
        self.heatmap.annotations.set_z_index(1)

    def weight_heatmap(self, column: float) -> Heatmap:
        heatmap = Heatmap(
            self.art["query_weights"],
            row_labels=self.row_labels,
            col_labels=self.labels,
            vmin=0.0,
            vmax=1.0,
            annotate=True,
            fmt=f"{{:.{self.decimals_within(column, theme.SMALL_SIZE)}f}}",
            annotation_size=theme.SMALL_SIZE,
            cell_size=column,
            cell_height=1.35,
            label_size=theme.SMALL_SIZE,
            col_labels_on_top=True,
        )
        for label, colour in zip(heatmap.col_labels, self.colours):
            label.set_color(colour)
        return heatmap

    def turn_query(self, index: int, run_time: float) -> None:
        query = self.art["queries"][index]
        new_label = theme.text(self.row_labels[index], theme.LABEL_SIZE, theme.query_colour()).move_to(self.query_label)
        self.play(
            self.angle.animate.set_value(float(np.arctan2(query[1], query[0]))),
            self.length.animate.set_value(float(np.linalg.norm(query))),
            roll(self.query_label, new_label),
            run_time=run_time,
        )
        self.query_label = new_label

    def fill_row(self, row: int, run_time: float) -> None:
        weights, heatmap = self.art["query_weights"], self.heatmap
        cols = weights.shape[1]
        labels = [heatmap.annotations[row * cols + c] for c in range(cols)]
        self.play(
            heatmap.animate_values(weights, rows=[row]),
            *[label.animate.set_opacity(1) for label in labels],
            run_time=run_time,
        )

    # --- the temperature -------------------------------------------------------------------------------

    def weights_now(self) -> np.ndarray:
        """The weights at the dial's temperature: the precomputed sweep interpolated in log T (a geometric
        grid)."""
        sweep_t, sweep_w = self.art["sweep_temperatures"], self.art["sweep_weights"]
        log_t = self.log_t.get_value()
        return np.array([np.interp(log_t, np.log(sweep_t), sweep_w[:, k]) for k in range(sweep_w.shape[1])])

    def temperature_bars(self) -> None:
        """The bars of the weights, sized for the lecture's three items, in the same width for more keys (at five
        they had reached over the dial): narrower, their readouts at 2 decimals where 4 would touch the next
        bar's."""
        sweep_w, share = self.art["sweep_weights"], item_share(len(self.labels))
        readout_size = theme.tex_size(theme.LABEL_SIZE)
        self.bars = Bars(
            self.weights_now(),
            self.labels,
            max_value=float(np.ceil(sweep_w.max() * 10) / 10),
            height=4.0,
            colours=self.colours,
            bar_width=1.0 * share,
            spacing=0.6 * share,
            decimals=self.decimals_within(1.6 * share, readout_size, tex=True),
            value_size=readout_size,
        )
        self.bars.to_edge(LEFT, buff=1.4)
        self.bars.shift((-2.1 - self.bars.baseline.get_y()) * UP)  # tall bars down to just above the caption

    def temperature_dial(self) -> None:
        """The formula, and under it a log-scale dial of T with its knob and readout."""
        temps, sweep_t = self.art["temperatures"], self.art["sweep_temperatures"]
        start = start_temperature(self.art)
        self.equation = MathTex(
            r"A = \operatorname{softmax}\!\left(\frac{S}{T}\right)",
            font_size=theme.BODY_SIZE + 10,
            color=theme.foreground(),
        )
        self.equation.to_edge(RIGHT, buff=1.2).shift(1.6 * UP)
        dial = NumberLine(
            x_range=[np.log2(sweep_t[0]), np.log2(sweep_t[-1]), 1],
            length=5.0,
            color=theme.muted(),
            include_numbers=False,
        )
        dial.next_to(self.equation, DOWN, buff=1.3)
        ticks = VGroup(
            *[
                theme.text(f"{2.0**x:g}", theme.SMALL_SIZE, theme.muted()).next_to(dial.n2p(x), DOWN, buff=0.2)
                for x in np.arange(np.ceil(np.log2(sweep_t[0])), np.floor(np.log2(sweep_t[-1])) + 1)
            ]
        )
        marks = VGroup(*[Dot(dial.n2p(np.log2(t)), radius=0.06, color=theme.foreground()) for t in temps])
        dial_title = theme.text("temperature T (log scale)", theme.LABEL_SIZE, theme.muted()).next_to(
            ticks, DOWN, buff=0.2
        )
        knob = Dot(radius=0.13, color=theme.highlight()).add_updater(
            lambda m: m.move_to(dial.n2p(self.log_t.get_value() / np.log(2)))
        )
        readout = VGroup(
            MathTex("T =", font_size=theme.BODY_SIZE + 6, color=theme.highlight()),
            DecimalNumber(temps[start], num_decimal_places=2, font_size=theme.BODY_SIZE + 6, color=theme.highlight()),
        ).arrange(RIGHT, buff=0.15)
        readout.next_to(dial, UP, buff=0.4)
        readout[1].add_updater(lambda m: m.set_value(float(np.exp(self.log_t.get_value()))))
        self.dial = VGroup(dial, ticks, marks, dial_title, knob, readout)

    def into_temperature(self, change: str, dial: str) -> None:
        """The layouts ease into each other: the heatmap row of this very query (its weights at T = 1) turns
        into the bars while the rest of the first layout fades; then the dial comes in."""
        art, bars = self.art, self.bars
        temps, start = art["temperatures"], start_temperature(art)
        source = next((r for r, q in enumerate(art["queries"]) if np.allclose(q, art["Q"][0])), None)
        new_heading: Text = theme.text("Then change only the temperature", theme.TITLE_SIZE, weight="BOLD")
        new_heading.move_to(self.heading_text)
        previous = VGroup(self.diagram, self.points, self.arrow, self.query_label)
        leaving = [
            FadeOut(previous, shift=0.4 * LEFT),
            FadeOut(self.heatmap),
            roll(self.heading_text, new_heading, distance=0.6),
        ]
        if self._caption is not None:
            leaving.append(FadeOut(self._caption))
            self._caption = None
        if source is not None and np.isclose(temps[start], float(art["temperature"])):
            ghosts = VGroup(*[cell.copy() for cell in self.heatmap.row(source)])
            self.add(ghosts)
            with self.beat(change) as beat:
                self.play(
                    *leaving, *[Transform(g, bar.copy()) for g, bar in zip(ghosts, bars.bars)], run_time=beat.remaining
                )
            self.remove(ghosts)
            self.add(bars.bars)
            rest = VGroup(bars.baseline, bars.labels, bars.readouts)
            with self.beat(dial) as beat:  # the formula as it is said, then the dial
                self.play(FadeIn(rest), Write(self.equation), run_time=beat.until("dial"))
                self.play(FadeIn(self.dial, shift=0.2 * LEFT), run_time=beat.remaining)
            self.remove(bars.bars, rest)
            self.add(bars)  # one chart again, whole
        else:  # no heatmap row holds these weights: the first layout leaves, then the second comes
            with self.beat(change) as beat:
                self.play(*leaving, FadeIn(bars), run_time=beat.remaining)
            with self.beat(dial) as beat:
                self.play(Write(self.equation), run_time=beat.until("dial"))
                self.play(FadeIn(self.dial), run_time=beat.remaining)

    def turn_dial(self, t: float, run_time: float, *along: Animation) -> None:
        self.play(self.log_t.animate.set_value(float(np.log(t))), *along, run_time=run_time, rate_func=smooth)

    def circle_bars(self, indices: list[int]) -> AnimationGroup:
        """Circle these bars with their readouts (the bars themselves follow the dial and are not moved)."""
        return AnimationGroup(
            *[
                Circumscribe(VGroup(self.bars.bars[i], self.bars.readouts[i]), color=theme.highlight(), buff=0.08)
                for i in indices
            ]
        )

    def sweep_caption(self) -> str:
        dial = sweep(self.art)
        return f"the whole dial, T = {dial.low:g} to {dial.high:g}: from sharp to nearly uniform"

    def stop_caption(self, stop: int) -> str:
        at = stop_facts(self.art, stop)
        return f"T = {at.t:g} {'sharpens' if at.sharper else 'softens'}: {fmt_row(at.weights)}"
