"""`MatrixTable`: a numeric matrix in MathTex brackets with labelled rows (queries) and columns (keys).

Entries are built once; `entry_targets` makes the texts of new values for a Transform, so a matrix
that changes (scores -> masked scores -> weights) costs one set of texts per step, never per frame.
Every cell has a background square that can be coloured on the heatmap ramp (`fill_cells`) or boxed
(`cell_box`, `row_box`, `column_box`) to point at what the narration is about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
from manim import (
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    ManimColor,
    MathTex,
    Rectangle,
    SurroundingRectangle,
    Text,
    VGroup,
    interpolate_color,
)

from seqanim.kit import theme
from seqanim.kit.describe import label_text, number
from seqanim.kit.heatmap import colour_for
from seqanim.kit.motion import CountTexts, RollTexts, paced

Formatter = Callable[[float], str]


def number_format(decimals: int = 4, *, exact_zero: bool = False) -> Formatter:
    """Fixed decimals; -inf as the minus-infinity sign; exact zeros as a bare "0" when asked (masked weights)."""

    def fmt(value: float) -> str:
        value = float(value)
        if np.isneginf(value):
            return "\u2212\u221e"
        if np.isposinf(value):
            return "\u221e"
        if np.isnan(value):
            return "NaN"
        if exact_zero and value == 0.0:
            return "0"
        text = f"{value:.{decimals}f}"
        return text.replace("-", "\u2212")  # a real minus sign, as MathTex would set it

    return fmt


def brackets(height: float, colour: ManimColor | None = None) -> tuple[VGroup, VGroup]:
    """A left and right square bracket of `height`, set by LaTeX (as manim's Matrix does) then stretched."""
    rows = max(1, int(height / 0.5977) + 1)  # 0.5977 = height of one LaTeX array row
    body = r"\begin{array}{c}" + r"\quad \\" * rows + r"\end{array}"
    left = MathTex(r"\left[" + body + r"\right.", color=colour or theme.foreground())
    right = MathTex(r"\left." + body + r"\right]", color=colour or theme.foreground())
    pair = VGroup(left, right)
    pair.stretch_to_fit_height(height)
    for bracket in pair:
        bracket.is_decoration = True  # drawn by LaTeX but not text: the layout check's size rule skips it
    return left, right


class MatrixTable(VGroup):
    """`values` (rows, cols) as text entries in brackets; rows are queries, columns are keys.

    fmt: a formatter per value (see `number_format`) or a format string such as "{:.2f}".
    entry_colours: one colour per column (e.g. key colours) or None for the foreground.
    """

    def __init__(
        self,
        values: np.ndarray,
        *,
        row_labels: Sequence[str] | None = None,
        col_labels: Sequence[str] | None = None,
        row_title: str | None = None,
        col_title: str | None = None,
        fmt: Formatter | str = number_format(4),
        entry_size: float = theme.SMALL_SIZE,
        label_size: float = theme.SMALL_SIZE,
        cell_width: float | None = None,
        cell_height: float = 0.48,
        show_brackets: bool = True,
        entry_colours: Sequence[ManimColor] | None = None,
        row_label_colours: Sequence[ManimColor] | None = None,
        col_label_colours: Sequence[ManimColor] | None = None,
    ) -> None:
        super().__init__()
        self.values = np.array(values, dtype=float)
        if self.values.ndim == 1:
            self.values = self.values[None, :]
        rows, cols = self.values.shape
        self.fmt: Formatter = (
            fmt
            if callable(fmt)
            else (
                lambda value, pattern=fmt: number_format()(value) if not np.isfinite(value) else pattern.format(value)
            )
        )
        self.entry_size = entry_size
        self.entry_colours = list(entry_colours) if entry_colours is not None else None

        texts = [self._entry(self.values[r, c], c) for r in range(rows) for c in range(cols)]
        width = cell_width or max(text.width for text in texts) + 0.3
        self.cell_width, self.cell_height = width, cell_height
        self.cells = VGroup(
            *[Rectangle(width=width, height=cell_height, stroke_width=0, fill_opacity=0) for _ in range(rows * cols)]
        ).arrange_in_grid(rows=rows, cols=cols, buff=0)
        self.entries = VGroup(*[text.move_to(cell) for text, cell in zip(texts, self.cells)])
        self.add(self.cells, self.entries)

        self.brackets = VGroup()
        if show_brackets:
            left, right = brackets(self.cells.height + 0.12)
            self.brackets.add(left.next_to(self.cells, LEFT, buff=0.04), right.next_to(self.cells, RIGHT, buff=0.04))
            self.add(self.brackets)
        frame = self.brackets if show_brackets else self.cells

        self._label(frame, row_labels, col_labels, label_size, row_label_colours, col_label_colours)
        self._title(frame, row_title, col_title, label_size)

    def _title(self, frame: VGroup, row_title: str | None, col_title: str | None, label_size: float) -> None:
        """The rows' title, turned, left of their labels; the columns' above theirs."""
        self.row_title: Text | None = None
        if row_title:
            anchor = self.row_labels if len(self.row_labels) else frame
            self.row_title = (
                theme.label(row_title, label_size, theme.muted()).rotate(np.pi / 2).next_to(anchor, LEFT, buff=0.12)
            )
            self.add(self.row_title)
        self.col_title: Text | None = None
        if col_title:
            anchor = self.col_labels if len(self.col_labels) else frame
            self.col_title = theme.label(col_title, label_size, theme.muted()).next_to(anchor, UP, buff=0.1)
            self.col_title.set_x(self.cells.get_x())
            self.add(self.col_title)

    def _label(
        self,
        frame: VGroup,
        row_labels: Sequence[str] | None,
        col_labels: Sequence[str] | None,
        size: float,
        row_colours: Sequence[ManimColor] | None,
        col_colours: Sequence[ManimColor] | None,
    ) -> None:
        """Each row's label left of `frame` (the brackets, or the cells), each column's above it."""
        self.row_labels = VGroup()
        if row_labels is not None:
            for r, label in enumerate(row_labels):
                colour = row_colours[r] if row_colours is not None else theme.foreground()
                text = theme.text(str(label), size, colour)
                text.move_to(self.cell(r, 0)).align_to(frame, LEFT).shift((text.width + 0.12) * LEFT)
                self.row_labels.add(text)
            self.add(self.row_labels)
        self.col_labels = VGroup()
        if col_labels is not None:
            for c, label in enumerate(col_labels):
                colour = col_colours[c] if col_colours is not None else theme.foreground()
                text = theme.text(str(label), size, colour).next_to(frame, UP, buff=0.1)
                text.set_x(self.cell(0, c).get_x())
                self.col_labels.add(text)
            self.add(self.col_labels)

    def describe(self) -> str:
        """Alt text from the values: shape, titles and range."""
        rows, cols = self.values.shape
        titles = " × ".join(t for t in (label_text(self.row_title), label_text(self.col_title)) if t)
        finite = self.values[np.isfinite(self.values)]
        text = f"matrix, {rows}×{cols}" + (f" ({titles})" if titles else "")
        if finite.size:
            text += f", entries from {number(finite.min())} to {number(finite.max())}"
        if finite.size < self.values.size:
            text += f", {self.values.size - finite.size} masked (-inf)"
        return text

    # --- access -------------------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape  # type: ignore[return-value]

    def _index(self, row: int, col: int) -> int:
        return row * self.shape[1] + col

    def cell(self, row: int, col: int) -> Rectangle:
        return self.cells[self._index(row, col)]

    def entry(self, row: int, col: int) -> Text:
        return self.entries[self._index(row, col)]

    def row_entries(self, row: int) -> VGroup:
        return VGroup(*[self.entry(row, c) for c in range(self.shape[1])])

    def column_entries(self, col: int) -> VGroup:
        return VGroup(*[self.entry(r, col) for r in range(self.shape[0])])

    def cell_box(self, row: int, col: int, colour: ManimColor | None = None) -> SurroundingRectangle:
        return SurroundingRectangle(self.cell(row, col), buff=0.0, color=colour or theme.highlight(), stroke_width=3)

    def row_box(self, row: int, colour: ManimColor | None = None) -> SurroundingRectangle:
        cells = VGroup(*[self.cell(row, c) for c in range(self.shape[1])])
        return SurroundingRectangle(cells, buff=0.0, color=colour or theme.highlight(), stroke_width=3)

    def column_box(self, col: int, colour: ManimColor | None = None) -> SurroundingRectangle:
        cells = VGroup(*[self.cell(r, col) for r in range(self.shape[0])])
        return SurroundingRectangle(cells, buff=0.0, color=colour or theme.highlight(), stroke_width=3)

    def row_sums(
        self,
        sums: Sequence[float],
        colours: ManimColor | Sequence[ManimColor] | None = None,
        *,
        decimals: int = 4,
        size: float = theme.SMALL_SIZE,
    ) -> VGroup:
        """One "\u03a3 = s" label right of the brackets per row (e.g. a weight row's sum); one colour or one per row."""
        if colours is None or isinstance(colours, (ManimColor, str)):
            colours = [colours or theme.foreground()] * self.shape[0]
        frame = self.brackets if len(self.brackets) else self.cells
        return VGroup(
            *[
                theme.text(f"\u03a3 = {float(total):.{decimals}f}", size, colour)
                .next_to(frame, RIGHT, buff=0.15)
                .match_y(self.cell(row, 0))
                for row, (total, colour) in enumerate(zip(sums, colours))
            ]
        )

    # --- changing values ----------------------------------------------------------------------------

    def _entry(self, value: float, col: int, colour: ManimColor | None = None) -> Text:
        if colour is None:
            colour = self.entry_colours[col] if self.entry_colours is not None else theme.foreground()
        # Above the cells: an animated cell fill is re-added on top by manim's AnimationGroup, z keeps text visible.
        return theme.text(self.fmt(value), self.entry_size, colour).set_z_index(1)

    def entry_target(self, row: int, col: int, value: float, colour: ManimColor | None = None) -> Text:
        """A new text for one entry, in place over its cell (Transform the old entry into it)."""
        return self._entry(value, col, colour).move_to(self.cell(row, col))

    def entry_targets(
        self,
        values: np.ndarray,
        colours: dict[tuple[int, int], ManimColor] | None = None,
        rows: Sequence[int] | None = None,
    ) -> VGroup:
        """New texts for the entries of `rows` (all by default; the others keep their own text objects), for
        `transform_entries`; records the new values."""
        values = np.array(values, dtype=float).reshape(self.shape)
        colours = colours or {}
        changing = set(range(self.shape[0]) if rows is None else rows)
        group = VGroup(
            *[
                self.entry_target(r, c, values[r, c], colours.get((r, c))) if r in changing else self.entry(r, c)
                for r in range(self.shape[0])
                for c in range(self.shape[1])
            ]
        )
        recorded = np.array(self.values, dtype=float).reshape(self.shape).copy()
        recorded[sorted(changing)] = values[sorted(changing)]
        self.values = recorded
        return group

    def transform_entries(
        self,
        values: np.ndarray,
        colours: dict[tuple[int, int], ManimColor] | None = None,
        rows: Sequence[int] | None = None,
        **kwargs,
    ) -> RollTexts:  # type: ignore[no-untyped-def]
        """Roll each entry of `rows` (default all) whose text changes into the text of `values`; no glyph morphs.
        Row by row (`rows=[r]`) a matrix changes the way it is computed, e.g. a softmax one query at a time."""
        return RollTexts(self.entries, self.entry_targets(values, colours, rows), **kwargs)

    def count_entries(
        self,
        values: np.ndarray,
        colours: dict[tuple[int, int], ManimColor] | None = None,
        rows: Sequence[int] | None = None,
        legible: bool = False,
        **kwargs,
    ) -> CountTexts:  # type: ignore[no-untyped-def]
        """Count each entry of `rows` (default all) from its value to its value in `values`, on the table's
        own formatter and type: masked scores to weights row by row, each number running to its result.
        Entries from or to -inf / NaN roll (there is nothing to count through). `legible`: while the cells
        fill in the same play, each counting number takes the text colour legible on its cell as it is now."""
        starts = np.array(self.values, dtype=float).reshape(-1).copy()
        targets = self.entry_targets(values, colours, rows)
        ends = np.array(self.values, dtype=float).reshape(-1)
        cols = self.shape[1]

        def make(index: int, value: float) -> Text:
            return self._entry(value, index % cols)

        def on_cell(index: int) -> ManimColor:
            cell = self.cells[index]
            seen = interpolate_color(theme.background(), cell.get_fill_color(), float(cell.get_fill_opacity()))
            return theme.text_on(seen)

        return CountTexts(self.entries, targets, starts, ends, make, colour_of=on_cell if legible else None, **kwargs)

    def rows_in_turn(
        self,
        values: np.ndarray,
        allowed: np.ndarray,
        box: SurroundingRectangle | None = None,
        first: float = 1.6,
        last: float = 0.7,
    ) -> Iterator[tuple[list[Animation], float]]:
        """The rows of `values` (e.g. softmax weights) arriving one after another, the way a softmax computes
        them: for each row, (animations, run time) to play, the first row slowly, then faster. Each entry
        counts to its value as its cell fills (cells not `allowed` stay empty); `box` (a `row_box`) moves to
        the row first. Lazy: each step is built when the previous one has played."""
        rows = self.shape[0]
        for row, run_time in enumerate(paced(rows, first, last)):
            fill = np.where(allowed & (np.arange(rows)[:, None] <= row), values, -np.inf)
            if box is not None and row > 0:
                yield [box.animate.move_to(self.row_box(row))], 0.3
            yield (
                [  # the cells first: each frame the counting numbers read the fill just set
                    self.fill_cells(fill, recolour_entries=False),
                    self.count_entries(values, self.text_colours(fill), rows=[row], legible=True),
                ],
                run_time,
            )

    def text_colours(
        self,
        values: np.ndarray,
        vmin: float = 0.0,
        vmax: float = 1.0,
        colormap: Sequence[ManimColor] | None = None,
        opacity: float = 0.85,
    ) -> dict[tuple[int, int], ManimColor]:
        """Entry colours that stay legible on `fill_cells(values)`: dark on the bright end of the ramp."""
        values = np.array(values, dtype=float).reshape(self.shape)
        ramp = list(colormap or theme.heatmap_colormap())
        colours = {}
        for (row, col), value in np.ndenumerate(values):
            if not np.isfinite(value):
                colours[(row, col)] = theme.foreground()
                continue
            # The cell as seen: its fill over the background at `opacity`.
            fill = interpolate_color(theme.background(), colour_for(value, vmin, vmax, ramp), opacity)
            colours[(row, col)] = theme.text_on(fill)
        return colours

    def fill_cells(
        self,
        values: np.ndarray,
        vmin: float = 0.0,
        vmax: float = 1.0,
        colormap: Sequence[ManimColor] | None = None,
        opacity: float = 0.85,
        animate: bool = True,
        recolour_entries: bool = True,
    ) -> AnimationGroup | "MatrixTable":
        """Colour the cell backgrounds on the heatmap ramp; masked (non-finite) cells stay empty.

        Entries on bright cells turn dark so they stay legible. When the entries change in the same
        `play`, pass `recolour_entries=False` and give `transform_entries` the `text_colours` instead.
        """
        values = np.array(values, dtype=float).reshape(self.shape)
        colormap = list(colormap or theme.heatmap_colormap())
        text_colours = self.text_colours(values, vmin, vmax, colormap, opacity)
        animations = []
        for index, (cell, entry) in enumerate(zip(self.cells, self.entries)):
            value = values.flat[index]
            finite = bool(np.isfinite(value))
            fill = colour_for(value, vmin, vmax, colormap)
            text_colour = text_colours[divmod(index, self.shape[1])]
            if animate:
                animations.append(cell.animate.set_fill(fill, opacity=opacity if finite else 0))
                if recolour_entries:
                    animations.append(entry.animate.set_color(text_colour))
            else:
                cell.set_fill(fill, opacity=opacity if finite else 0)
                if recolour_entries:
                    entry.set_color(text_colour)
        return AnimationGroup(*animations) if animate else self
