"""PaddingMask (seed 003, cells 23-25): padding hides keys that do not exist, the causal mask hides the future;
the two permissions combine with AND and the softmax runs over what both allow. A row with no allowed key at
all is refused, not returned as NaN."""

from __future__ import annotations

import textwrap
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
    GrowArrow,
    Indicate,
    LaggedStart,
    MathTex,
    RoundedRectangle,
    SurroundingRectangle,
    Text,
    VGroup,
    config,
)

from scenes.why_attention.shared import (
    CAPTION_SIZE,
    CELL_ROOM,
    WhyAttentionSlide,
    clear_right_of,
    column_names,
    fitting_numbers,
    fmt_row,
    item_share,
    position_labels,
    widest,
)
from seqanim import Artifact, integer, listing, mark, number, translated
from seqanim.kit import theme
from seqanim.kit.matrix import Formatter, MatrixTable, number_format
from seqanim.kit.motion import paced, roll

# --- the words -----------------------------------------------------------------------------------------


def padded_keys(art: Artifact) -> list[int]:
    real = art["is_real_key"]
    return [i for i in range(len(real)) if not real[i]]


def empty_rows(art: Artifact) -> list[int]:
    dead = art["all_masked_allowed"]
    return [r for r in range(dead.shape[0]) if not dead[r].any()]


@dataclass(frozen=True)
class Padding:
    """The padding mask's facts: the padded keys (the notebook pads one; a lecturer may pad none or several),
    how many keys each query row may see once both masks are combined, and the weights of the padded keys'
    columns (rows x padded keys)."""

    padded: tuple[int, ...]
    allowed_per_row: tuple[int, ...]
    columns: np.ndarray

    @property
    def largest(self) -> float | None:
        """The largest weight any padded key gets (None: no key is padded)."""
        return float(self.columns.max()) if self.padded else None


def padding(art: Artifact) -> Padding:
    padded = tuple(padded_keys(art))
    per_row = tuple(int(row.sum()) for row in art["padding_allowed"])
    return Padding(padded, per_row, art["padding_weights"][:, list(padded)])


def combine_notes(art: Artifact) -> str:
    real, mask = art["is_real_key"], padding(art)
    positions = position_labels(len(real))
    named = ", ".join(positions[i] for i in mask.padded)
    if not mask.padded:
        which = "so no key is padding: AND with it changes nothing"
    elif len(mask.padded) == 1:
        which = f"so key {named} is padding"
    else:
        which = f"so keys {named} are padding"
    return (
        "A padding mask hides nonexistent tokens, a causal mask hides future tokens. "
        f"Combine the two permissions with AND: is_real_key = {[bool(x) for x in real]}, {which}. "
        f"Allowed keys per query row: {'; '.join(str(n) for n in mask.allowed_per_row)}."
    )


@translated
def combine_said(art: Artifact) -> dict[str, str]:
    mask = padding(art)
    padded = listing([integer(i) for i in mask.padded])
    per_row = listing([integer(n) for n in mask.allowed_per_row])
    if not mask.padded:
        real = f"{mark('padded')}here every key is, and none is padding."
        off = f"No column switches off, so {mark('rows')}the rows still allow {per_row} keys."
    elif len(mask.padded) == 1:
        real = f"{mark('padded')}key {padded} is only padding."
        off = f"The padded column switches off, and {mark('rows')}the rows now allow {per_row} keys."
    else:
        real = f"{mark('padded')}keys {padded} are only padding."
        off = f"The padded columns switch off, and {mark('rows')}the rows now allow {per_row} keys."
    return {
        "causal": f"Start from the causal mask: {mark('rows')}which keys each query may see.",
        "real": f"Next, which keys are real: {real}",
        "and": f"Combine the two: a key is {mark('allowed')}allowed only where both masks allow it.",
        "off": off,
    }


def weights_notes(art: Artifact) -> str:
    weights, mask = art["padding_weights"], padding(art)
    positions = position_labels(len(art["is_real_key"]))
    columns = [", ".join(f"{w:g}" for w in column) for column in mask.columns.T]  # one per padded key
    if not mask.padded:
        retrieve, practice = "No key is padded here, so no column is forced to zero", "with no key padded the same"
    elif len(mask.padded) == 1:
        retrieve = f"No query can retrieve the padded key: its column is exactly {columns[0]}"
        practice = "with this padding mask the padded key still gets zero"
    else:
        each = "; ".join(f"{positions[i]}: {column}" for i, column in zip(mask.padded, columns))
        retrieve = f"No query can retrieve a padded key: their columns are exactly {each}"
        practice = "with this padding mask the padded keys still get zero"
    return (
        "Softmax over the allowed keys only. "
        f"{retrieve}. "
        f"Rows: {'; '.join(fmt_row(r) for r in weights)}; row sums {fmt_row(weights.sum(axis=-1))}. "
        "Padded query rows are normally excluded from the loss, not read as predictions. "
        "Practice 2: replace all keys by the same vector and every query weighs the keys equally, "
        f"{fmt_row(art['same_key_weights'][0])}; {practice}: "
        f"{fmt_row(art['same_key_padded_weights'][0])}."
    )


@translated
def weights_said(art: Artifact) -> dict[str, str]:
    mask = padding(art)
    if mask.largest is None:
        zero = f"No key is padded here, so {mark('weight')}no column is forced to zero."
    else:
        largest = number(mask.largest, 2)
        one = len(mask.padded) == 1
        which, weight = ("the padded key", "its weight is") if one else ("a padded key", "their weights are")
        zero = f"No query can retrieve {which}: {mark('weight')}{weight} exactly {largest} in every row."
    return {
        "aside": f"The allowed pattern moves aside, and {mark('scores')}the masked scores appear on its right.",
        "softmax": f"A softmax then runs over {mark('rows')}the allowed keys only, one row at a time.",
        "zero": zero,
    }


def all_masked_notes(art: Artifact) -> str:
    positions = position_labels(len(art["is_real_key"]))
    too = " too" if padding(art).padded else ""
    return (
        f"If key {positions[0]} were padding{too}, query row {empty_rows(art)[0]} would have no allowed key: "
        "softmax would be 0/0 = NaN. Prevent that case rather than silently treating NaN as an answer; "
        f"our helper refuses it with: {art['all_masked_error']}"
    )


@translated
def all_masked_said(art: Artifact) -> dict[str, str]:
    rows = empty_rows(art)
    return {
        "suppose": f"Suppose key {integer(0)} were padding{' as well' if padding(art).padded else ''}.",
        "no_key": f"Then {'row' if len(rows) == 1 else 'rows'} {listing([integer(r) for r in rows])} "
        "would have no allowed key at all.",
        "nan": f"A plain softmax would divide zero by zero, and {mark('nan')}return not a number.",
        "refused": f"So our helper refuses such a row with an error, {mark('instead')}instead of passing on an "
        "empty answer.",
    }


# --- the scene -------------------------------------------------------------------------------------------

# The default's three keys: permission cells this wide hold "NaN" at the body size, score cells four decimals.
PERMISSION_CELL, SCORE_CELL = 0.95, 1.4
# A permission cell's height at up to five rows (the picture's height at five fits the frame); more rows share it.
CELL_HEIGHT, TALLEST = 0.72, 5 * 0.72
# Room for an arrow from the allowed table to what it leads to (the default's: 1.35 to the error, 1.5 to S + M).
ARROW_ROOM = 1.2
# Where even that leaves no room: the gap between the allowed table and S + M, the arrow running above them.
TABLE_GAP = 0.5
# Room under the heading for a picture that stands as high as it can.
HEADING_GAP = 0.35


class PaddingMask(WhyAttentionSlide):
    """Padding hides nonexistent keys, causal hides the future: combine them; an all-masked row is refused."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.positions = position_labels(len(self.art["is_real_key"]))
        self.fit = item_share(len(self.positions))  # more keys (qkv_walkthrough.keys) share the default's width
        self.cell_height = min(CELL_HEIGHT, TALLEST / len(self.positions))  # more rows share the height of five
        self.combine()
        self.weights()
        self.all_masked()

    def combine(self) -> None:
        art = self.art
        self.next_slide(notes=combine_notes(art))
        said = combine_said(art)
        heading = self.heading("Padding mask + causal mask")
        causal_t, amp, padding_t, eq, combined_t = self.permission_tables(heading)
        notes = theme.text("rows = queries, columns = keys; 1 = allowed", theme.LABEL_SIZE, theme.muted()).next_to(
            VGroup(causal_t, amp, padding_t, eq, combined_t), DOWN, buff=0.5
        )
        with self.beat(said["causal"]) as beat:
            self.title(heading, along=[FadeIn(causal_t)], run_time=beat.until("rows"))
            self.play(self.rows_in_view(causal_t, art["causal_allowed"]), run_time=beat.remaining)
        padded = padded_keys(art)
        boxes = VGroup(*[padding_t.cell_box(0, i, theme.blocked_colour()) for i in padded])
        with self.beat(said["real"]) as beat:
            self.play(FadeIn(amp), FadeIn(padding_t), run_time=beat.until("padded"))
            self.play(Create(boxes), run_time=beat.remaining)
        # Causal's cells travel to the result (moved, not morphed), then its frame and the legend come.
        with self.beat(said["and"]) as beat:
            travelling = VGroup(causal_t.cells, causal_t.entries).copy()
            target = VGroup(combined_t.cells, combined_t.entries)
            self.play(FadeIn(eq), travelling.animate.move_to(target), run_time=beat.until("allowed"))
            self.remove(travelling)
            self.add(combined_t.cells, combined_t.entries)
            # Its frame comes once the cells have landed (they passed over where its row labels stand).
            frame = VGroup(combined_t.brackets, combined_t.row_labels, combined_t.col_labels, combined_t.col_title)
            self.play(FadeIn(frame), FadeIn(notes), run_time=beat.remaining)
            self.remove(combined_t.cells, combined_t.entries, frame)
            self.add(combined_t)
        # The padded key's column switches off, then each row's allowed keys are shown as they are counted.
        with self.beat(said["off"]) as beat:
            self.play(
                combined_t.transform_entries(art["padding_allowed"].astype(float)),
                combined_t.fill_cells(**self.permission_fill(art["padding_allowed"])),
                *[Create(combined_t.column_box(i, theme.blocked_colour())) for i in padded],
                run_time=beat.until("rows"),
            )
            self.play(self.rows_in_view(combined_t, art["padding_allowed"]), run_time=beat.remaining)
        self.inputs = VGroup(causal_t, amp, padding_t, eq, notes, boxes)
        self.combined_t = combined_t

    def weights(self) -> None:
        art = self.art
        weights, padded, combined_t = art["padding_weights"], padded_keys(art), self.combined_t
        self.next_slide(notes=weights_notes(art))
        said = weights_said(art)
        with self.beat(said["aside"]) as beat:
            self.play(
                FadeOut(self.inputs),
                *[FadeOut(m) for m in self.mobjects if isinstance(m, SurroundingRectangle)],
                run_time=0.4,
            )
            result, arrow, heading, edge = self.masked_scores()
            self.play(combined_t.animate.to_edge(LEFT, buff=edge), run_time=beat.until("scores"))
            self.play(GrowArrow(arrow), FadeIn(heading), FadeIn(result), run_time=beat.remaining)
        softmax = MathTex(
            r"A = \operatorname{softmax}(S+M)", font_size=theme.BODY_SIZE + 10, color=theme.foreground()
        ).move_to(heading)  # heads the result: above the arrow it collided with the row labels
        running = result.row_box(0)
        # The masked scores S + M, normalised row by row into the weights (the first row slowly, then faster),
        # the rows taking what is left of the words.
        with self.beat(said["softmax"]) as beat:
            self.play(roll(heading, softmax), Create(running), run_time=beat.until("rows"))
            rows = weights.shape[0]
            moves = 0.3 * (rows - 1)  # the running box's steps between rows
            scale = max(beat.remaining - moves, 0.5) / sum(paced(rows, 1.6, 0.7))
            steps = result.rows_in_turn(weights, art["padding_allowed"], running, first=1.6 * scale, last=0.7 * scale)
            for animations, run_time in steps:
                self.play(*animations, run_time=run_time)
        sums = self.row_sums(result, weights.sum(axis=-1))
        with self.beat(said["zero"]) as beat:
            self.play(
                FadeOut(running),
                FadeIn(sums),
                *[Create(result.column_box(i, theme.blocked_colour())) for i in padded],
                run_time=beat.until("weight"),
            )
            if padded:  # their weights, read in every row as the caption says it
                self.say(self.padded_caption(padded), colour=theme.caption_colour(), size=CAPTION_SIZE,
                         run_time=beat.remaining / 2)  # fmt: skip
                column = VGroup(*[result.column_entries(i) for i in padded])
                self.play(LaggedStart(*[Indicate(entry) for entry in column], lag_ratio=0.3), run_time=beat.remaining)
        self.weights_view = VGroup(result, arrow, softmax, sums)

    def all_masked(self) -> None:
        art = self.art
        dead, table, empty = art["all_masked_allowed"], self.combined_t, empty_rows(art)
        self.next_slide(notes=all_masked_notes(art))
        said = all_masked_said(art)
        with self.beat(said["suppose"]) as beat:
            leaving = [self.weights_view, *[m for m in self.mobjects if isinstance(m, SurroundingRectangle)]]
            if self._caption is not None:  # the padded key's caption goes with its weights
                leaving.append(self._caption)
                self._caption = None
            self.play(*[FadeOut(m) for m in leaving], run_time=0.4)
            self.play(
                table.transform_entries(dead.astype(float)),
                table.fill_cells(**self.permission_fill(dead)),
                run_time=beat.remaining,
            )
        with self.beat(said["no_key"]) as beat:
            self.play(
                LaggedStart(*[Create(table.row_box(r, theme.error_colour())) for r in empty], lag_ratio=0.5),
                run_time=beat.remaining,
            )
        # In the matrix: what a naive softmax returns for that row, 0/0 = NaN in every cell (from the data).
        naive = art["all_masked_naive"]
        nan_colours = {(r, c): theme.error_colour() for r in empty for c in range(naive.shape[1])}
        nan_note = theme.label(
            f"naive softmax of row {', '.join(map(str, empty))}: $0/0$ = NaN", theme.SMALL_SIZE, theme.error_colour()
        ).next_to(table, DOWN, buff=0.3)
        nan_note.align_to(table, LEFT)
        with self.beat(said["nan"]) as beat:
            self.play(FadeIn(nan_note, shift=0.1 * UP), run_time=beat.until("nan"))
            self.play(table.transform_entries(naive, nan_colours, rows=empty), run_time=beat.remaining)
        error = self.error_panel(config.frame_width / 2 - 0.6 - (table.get_right()[0] + ARROW_ROOM))
        error.to_edge(RIGHT, buff=0.6).match_y(table.cells)
        arrow = Arrow(table.get_right(), error.get_left(), buff=0.2, color=theme.error_colour(), stroke_width=3)
        with self.beat(said["refused"]) as beat:
            self.play(GrowArrow(arrow), FadeIn(error, shift=0.2 * LEFT), run_time=beat.until("instead"))
            self.say(
                "an all-masked row is refused, not returned as NaN",
                colour=theme.caption_colour(),
                size=CAPTION_SIZE,
                run_time=beat.remaining,
            )

    @staticmethod
    def rows_in_view(table: MatrixTable, allowed: np.ndarray) -> LaggedStart:
        """Row by row, the keys that row's query may see are indicated (its allowed entries)."""
        rows = [
            VGroup(*[table.entry(r, c) for c in range(allowed.shape[1]) if allowed[r, c]])
            for r in range(allowed.shape[0])
        ]
        return LaggedStart(*[Indicate(row, color=theme.highlight()) for row in rows if len(row)], lag_ratio=0.6)

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

    def permission_cell(self) -> tuple[float, float]:
        """(width, entry size) of a permission cell: more keys share the default's width, in cells that still
        hold "NaN" (the all-masked row, later) at the small size, written at the largest size whose "NaN" fits."""
        cell = max(PERMISSION_CELL * self.fit, widest(["NaN"], theme.SMALL_SIZE) + CELL_ROOM)
        larger = (theme.BODY_SIZE, theme.LABEL_SIZE)
        entry_size = next((size for size in larger if widest(["NaN"], size) + CELL_ROOM <= cell), theme.SMALL_SIZE)
        return cell, entry_size

    def permission_table(self, values: np.ndarray, width: float, columns: bool = True, **labels: object) -> MatrixTable:
        """`values` (1 = allowed) in cells of `width`, allowed cells tinted; `columns`: each key's index above."""
        _, entry_size = self.permission_cell()
        names = [str(i) for i in range(values.shape[-1])] if columns else None
        small = dict(fmt="{:.0f}", cell_height=self.cell_height, entry_size=entry_size, label_size=theme.LABEL_SIZE)
        shown = MatrixTable(values.astype(float), cell_width=width, col_labels=names, **small, **labels)
        return shown.fill_cells(**self.permission_fill(values), animate=False)

    def permission_tables(self, heading: Text) -> VGroup:
        """causal ∧ key is real = allowed; the result starts as a copy of the causal permissions.

        In a row where the key-is-real row's cells, narrowed to keep the row inside the frame, still hold a digit
        apart; else that row goes under the causal table, column by column, and the result stays right of it."""
        causal, real = self.art["causal_allowed"], self.art["is_real_key"]
        cell, entry_size = self.permission_cell()
        causal_t = self.permission_table(causal, cell, row_labels=self.positions, col_title="causal")
        combined_t = self.permission_table(causal, cell, row_labels=self.positions, col_title="allowed")
        amp = MathTex(r"\wedge", font_size=theme.BODY_SIZE + 14, color=theme.foreground())
        eq = MathTex("=", font_size=theme.BODY_SIZE + 14, color=theme.foreground())
        parts = (causal_t, amp, eq, combined_t)
        room = config.frame_width - 0.3 - sum(part.width for part in parts)  # 0.15 a side: "pos 0" clear of the edge
        padding_t = self.permission_table(real[None, :], cell, col_title="key is real")
        buff = min(0.45, max(0.3, (room - padding_t.width) / 4))
        over = padding_t.width + 4 * buff - room  # narrowing the key-is-real row's cells by this much fits the row
        narrowed = cell - max(0.0, over) / len(real)
        if narrowed < widest(["0", "1"], entry_size) + CELL_ROOM:
            padding_t = self.permission_table(real[None, :], cell, columns=False, col_title="key is real")
            self.stack(causal_t, amp, padding_t, eq, combined_t)
            # Taller than a row: its top goes as high as the heading leaves, for the legend under it.
            picture = VGroup(causal_t, amp, padding_t, eq, combined_t)
            return picture.shift((heading.get_bottom()[1] - HEADING_GAP - picture.get_top()[1]) * UP)
        if over > 0:
            padding_t = self.permission_table(real[None, :], narrowed, col_title="key is real")
        VGroup(causal_t, amp, padding_t, eq, combined_t).arrange(RIGHT, buff=buff)
        padding_t.match_y(causal_t.cells).shift((causal_t.cells.get_y() - padding_t.cells.get_y()) * UP)
        # Rows past the default's three grow the picture upwards: the all-masked row's note stays above the caption.
        taller = max(0.0, len(real) * self.cell_height - 3 * CELL_HEIGHT)
        return VGroup(causal_t, amp, padding_t, eq, combined_t).shift((0.5 - taller / 2) * DOWN)

    @staticmethod
    def stack(
        causal_t: MatrixTable, amp: MathTex, padding_t: MatrixTable, eq: MathTex, combined_t: MatrixTable
    ) -> None:
        """causal = allowed in a row, centred; the key-is-real row under the causal table's columns, ∧ left of it
        where the row labels stand."""
        VGroup(causal_t, eq, combined_t).arrange(RIGHT, buff=0.3)
        padding_t.next_to(causal_t, DOWN, buff=0.15)
        padding_t.shift((causal_t.cells.get_x() - padding_t.cells.get_x()) * RIGHT)
        amp.match_y(padding_t.cells).align_to(causal_t.row_labels, RIGHT)

    def score_cells(self) -> tuple[Formatter, list[str], float, float]:
        """(format, column names, cell width, entry size) of S + M. More keys share the default's width: the
        numbers keep the most decimals (up to 4, kept for the row sums), at the largest size, that a share of a cell
        holds, and columns are named by their position alone where "pos 0" would not fit it."""
        art, share = self.art, SCORE_CELL * self.fit
        numbers = [art["padding_scores"], art["padding_weights"]]
        self.decimals, size = fitting_numbers(numbers, share, [theme.LABEL_SIZE, theme.SMALL_SIZE])
        fmt = number_format(self.decimals, exact_zero=True)
        columns = column_names(len(self.positions), theme.LABEL_SIZE, share)
        cell = max(
            share,
            widest({fmt(value) for value in np.ravel(numbers)}, size) + CELL_ROOM,
            widest(columns, theme.LABEL_SIZE) + CELL_ROOM,
        )
        return fmt, columns, cell, size

    def masked_scores(self) -> tuple[MatrixTable, Arrow, MathTex, float]:
        """S + M right of the allowed table once it moves aside, an arrow from that to it and its heading (none
        shown yet), and the allowed table's margin from the frame's left edge once aside.

        Where the arrow would find no room, the rows go unnamed: they are the allowed table's, level with them.
        Where it still finds none, the allowed table goes nearer the edge, the row sums go bare under one "\u03a3"
        (`bare_sums`), and the arrow runs above the two tables, from the "allowed" title to S + M."""
        fmt, columns, cell, size = self.score_cells()
        self.bare_sums = False

        def placed(aside: MatrixTable, rows: list[str] | None, gap: float) -> MatrixTable:
            sums = widest([self.row_sum_text(1.0)], size) + 0.15  # the row sums, right of it later
            result = MatrixTable(self.art["padding_scores"], row_labels=rows, col_labels=columns, fmt=fmt,
                                 cell_width=cell, cell_height=self.cell_height, entry_size=size,
                                 label_size=theme.LABEL_SIZE)  # fmt: skip
            result.to_edge(RIGHT, buff=2.3).match_y(aside.cells).shift(
                (aside.cells.get_y() - result.cells.get_y()) * UP
            )
            return clear_right_of(result, aside, gap=gap, beyond=sums)

        aside, edge = self.combined_t.copy().to_edge(LEFT, buff=0.5), 0.5
        result = placed(aside, self.positions, ARROW_ROOM)
        if result.get_left()[0] < aside.get_right()[0] + ARROW_ROOM:
            result = placed(aside, None, ARROW_ROOM)
        if result.get_left()[0] >= aside.get_right()[0] + ARROW_ROOM:
            arrow = Arrow(aside.get_right(), result.get_left(), buff=0.25, color=theme.muted(), stroke_width=3)
        else:
            aside, edge, self.bare_sums = aside.to_edge(LEFT, buff=0.15), 0.15, True
            result = placed(aside, None, TABLE_GAP)
            title = aside.col_title
            end = np.array([result.get_left()[0], title.get_y(), 0.0])
            arrow = Arrow(title.get_right(), end, buff=0.2, color=theme.muted(), stroke_width=3)
        heading = MathTex(r"S + M", font_size=theme.BODY_SIZE + 10, color=theme.foreground()).next_to(
            result, UP, buff=0.2
        )
        return result, arrow, heading, edge

    def row_sum_text(self, total: float) -> str:
        """A row's sum as written right of its row: bare where one "\u03a3" heads them all (`bare_sums`)."""
        bare = f"{total:.{self.decimals}f}"
        return bare if self.bare_sums else f"\u03a3 = {bare}"

    def row_sums(self, result: MatrixTable, totals: np.ndarray) -> VGroup:
        """Each row's sum right of its row in `result`: "\u03a3 = 1.00", or the bare sums under one "\u03a3",
        level with the column names (`bare_sums`)."""
        if not self.bare_sums:
            return result.row_sums(totals, decimals=self.decimals, size=result.entry_size)
        bare = VGroup(
            *[
                theme.text(self.row_sum_text(total), result.entry_size, theme.foreground())
                .next_to(result.brackets, RIGHT, buff=0.15)
                .match_y(result.cell(row, 0))
                for row, total in enumerate(totals)
            ]
        )
        sigma = theme.text("\u03a3", theme.LABEL_SIZE, theme.foreground()).match_x(bare).match_y(result.col_labels)
        return VGroup(sigma, bare)

    def padded_caption(self, padded: list[int]) -> str:
        weight = self.art["padding_weights"][:, padded].max()
        keys = "key" if len(padded) == 1 else "keys"
        return f"padded {keys} {', '.join(self.positions[i] for i in padded)}: weight exactly {weight:g} in every row"

    def error_panel(self, room: float) -> VGroup:
        """The helper's error message in a panel, wrapped at 38 characters, or fewer where a wider allowed table
        leaves less `room` than that."""
        message = f"DataError: {self.art['all_masked_error']}"
        for chars in range(38, 19, -2):
            wrapped = textwrap.wrap(message, chars, break_long_words=False, break_on_hyphens=False)
            lines = VGroup(*[theme.text(line, theme.LABEL_SIZE, theme.foreground()) for line in wrapped]).arrange(
                DOWN, aligned_edge=LEFT, buff=0.12
            )
            if lines.width + 0.6 <= room:
                break
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
