"""`Heatmap`: the one attention/score matrix mobject of the lecture.

Rows are queries and columns are keys, and the axis titles say so. One colour scale (vmin..vmax) is
shared by the cells and the colourbar; values can be annotated in the cells. Cells are built once and
recoloured in place, so animating a row costs no new text.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    ManimColor,
    Rectangle,
    SurroundingRectangle,
    VGroup,
    VMobject,
    interpolate_color,
)

from seqanim.kit import theme
from seqanim.kit.describe import label_text, number, peak


def colour_for(value: float, vmin: float, vmax: float, colormap: Sequence[ManimColor]) -> ManimColor:
    """The colour of `value` on a piecewise-linear ramp; NaN or -inf (masked) is drawn as the background."""
    if not np.isfinite(value):
        return theme.background()
    span = (vmax - vmin) or 1.0
    position = float(np.clip((value - vmin) / span, 0.0, 1.0)) * (len(colormap) - 1)
    low = int(np.floor(position))
    high = min(low + 1, len(colormap) - 1)
    return interpolate_color(colormap[low], colormap[high], position - low)


def centred_lines(label: VMobject) -> VMobject:
    """Centre each line of a multi-line Text under the widest (Pango sets them left-aligned), so a two-line
    label ("query" over "k0") sits centred on its column instead of leaning into its neighbour."""
    lines = getattr(label, "original_text", "").split("\n")
    if len(lines) < 2:
        return label
    centre, start = label.get_x(), 0
    for line in lines:
        count = len("".join(line.split()))
        if count:
            VGroup(*label.submobjects[start : start + count]).set_x(centre)
        start += count
    return label


class Colourbar(VGroup):
    """A vertical colour ramp with its min and max (and optional middle) labelled."""

    def __init__(
        self,
        vmin: float,
        vmax: float,
        colormap: Sequence[ManimColor],
        height: float,
        *,
        fmt: str = "{:.2g}",
        label_size: float = theme.SMALL_SIZE,
    ) -> None:
        super().__init__()
        steps = 24
        strip = VGroup(
            *[
                Rectangle(
                    width=0.18,
                    height=height / steps,
                    stroke_width=0,
                    fill_opacity=1,
                    fill_color=colour_for(vmin + (vmax - vmin) * (i + 0.5) / steps, vmin, vmax, colormap),
                )
                for i in range(steps)
            ]
        ).arrange(UP, buff=0)
        labels = VGroup(
            theme.text(fmt.format(vmin), label_size).next_to(strip, RIGHT, buff=0.08).align_to(strip, DOWN),
            theme.text(fmt.format(vmax), label_size).next_to(strip, RIGHT, buff=0.08).align_to(strip, UP),
        )
        self.strip, self.labels = strip, labels
        self.add(strip, labels)


class Heatmap(VGroup):
    """A matrix of coloured cells with labelled rows (queries) and columns (keys).

    values: (rows, cols). Non-finite entries (masked, -inf) are drawn empty. `cell_stroke=0` drops the cell
    outlines, for dense matrices whose cells are only a few pixels wide.

    `row_groups` and `col_groups` name blocks of rows and of columns, as (name, indices) pairs: where the cells
    are too small for a label a row (or a column) to be read, each block is labelled once instead, beside the
    middle of its rows (under its columns). `row_spans[k]` and `col_spans[k]` are the indices label k names.

    `dense=True` is for big matrices that are shown, moved and faded but not recoloured cell by cell (the
    positional-encoding and Gram matrices, thousands of cells): cells are drawn as one filled shape per
    colour level (256 levels, runs of equal level merged), so a frame draws ~256 shapes instead of one per
    cell. `cell(i, j)`, `row(i)` and `column(j)` still give each cell's geometry.
    """

    DENSE_LEVELS = 256

    def __init__(
        self,
        values: np.ndarray,
        *,
        row_labels: Sequence[str] | None = None,
        col_labels: Sequence[str] | None = None,
        row_groups: Sequence[tuple[str, Sequence[int]]] | None = None,
        col_groups: Sequence[tuple[str, Sequence[int]]] | None = None,
        row_title: str = "query",
        col_title: str = "key",
        cell_size: float = 0.5,
        vmin: float | None = None,
        vmax: float | None = None,
        colormap: Sequence[ManimColor] | None = None,
        annotate: bool = False,
        fmt: str = "{:.2f}",
        label_size: float = theme.SMALL_SIZE,
        annotation_size: float | None = None,
        annotate_from: float | None = None,
        colourbar: bool = True,
        col_labels_on_top: bool = False,
        cell_stroke: float = 1.0,
        dense: bool = False,
        cell_height: float | None = None,
        titles: bool = True,
    ) -> None:
        super().__init__()
        self.values = np.array(values, dtype=float)
        rows, cols = self.values.shape
        finite = self.values[np.isfinite(self.values)]
        self.vmin = float(vmin if vmin is not None else (finite.min() if finite.size else 0.0))
        self.vmax = float(vmax if vmax is not None else (finite.max() if finite.size else 1.0))
        self.colormap = list(colormap or theme.heatmap_colormap())
        self.fmt = fmt
        self.cell_size = cell_size
        # Cells are cell_size wide and cell_height tall (square by default): a time x unit matrix can share a
        # plot's time axis while its many rows fit a short panel.
        self.cell_height = cell_height or cell_size
        self.dense = dense
        if dense and annotate:
            raise ValueError("a dense Heatmap cannot annotate its cells; use dense=False")

        self.cells = VGroup() if dense else self._grid(rows, cols, cell_stroke)
        if dense:
            self._draw_dense(self.values)
        self.add(self.cells)
        self.annotations = VGroup()
        if annotate:
            self._annotate(annotation_size or min(theme.SMALL_SIZE, cell_size * 36), annotate_from)
        if not dense:
            self.recolour(self.values)
        self._label_rows(row_labels, row_groups, label_size)
        self._label_columns(col_labels, col_groups, label_size, col_labels_on_top)
        self._title(row_title, col_title, label_size, col_labels_on_top)
        if titles:  # off when a figure labels several heatmaps at once
            self.add(self.row_title, self.col_title)
        self.colourbar = self._colourbar(label_size) if colourbar else None

    def _title(self, row_title: str, col_title: str, size: float, on_top: bool) -> None:
        """The axis titles, past the labels: "query (rows)" up the left, "key (columns)" below (or above)."""
        self.row_title = theme.label(f"{row_title} (rows)", size, theme.muted()).rotate(np.pi / 2)
        self.row_title.next_to(self.row_labels if len(self.row_labels) else self.cells, LEFT, buff=0.15)
        self.col_title = theme.label(f"{col_title} (columns)", size, theme.muted())
        self.col_title.next_to(
            self.col_labels if len(self.col_labels) else self.cells, UP if on_top else DOWN, buff=0.12
        )

    def _colourbar(self, label_size: float) -> Colourbar:
        bar = Colourbar(self.vmin, self.vmax, self.colormap, height=min(self.cells.height, 3.0), label_size=label_size)
        self.add(bar.next_to(self.cells, RIGHT, buff=0.25))
        return bar

    def _grid(self, rows: int, cols: int, stroke: float) -> VGroup:
        """One rectangle a cell, coloured later by `recolour`."""
        cells = [
            Rectangle(
                width=self.cell_size,
                height=self.cell_height,
                stroke_width=stroke,
                stroke_color=theme.background(),
                fill_opacity=1,
            )
            for _ in range(rows * cols)
        ]
        return VGroup(*cells).arrange_in_grid(rows=rows, cols=cols, buff=0)

    def _annotate(self, size: float, annotate_from: float | None) -> None:
        """A number on each cell; only the cells that matter show theirs (|value| >= annotate_from)."""
        for index, cell in enumerate(self.cells):
            label = theme.text(self._format(self.values.flat[index]), size).move_to(cell)
            if annotate_from is not None and not abs(self.values.flat[index]) >= annotate_from:
                label.set_opacity(0)
            self.annotations.add(label)
        self.annotations.set_z_index(1)  # AnimationGroup leaves cells on top otherwise
        self.add(self.annotations)

    # A label a row is read when the rows are 1.2 labels tall; labels a column when each is at most 1.1 columns
    # wide (centred, their ink is narrower than their box). Smaller cells get a label per group, if given.
    ROW_ROOM, COLUMN_ROOM = 1.2, 1.1

    def _label_rows(
        self, names: Sequence[str] | None, groups: Sequence[tuple[str, Sequence[int]]] | None, size: float
    ) -> None:
        """Each row's label on its left; or, where they would not be read, each group's beside its rows."""
        labels = [theme.text(str(name), size) for name in names or []]
        spans = [[i] for i in range(len(labels))]
        if groups and labels and max(label.height for label in labels) * self.ROW_ROOM > self.cell_height:
            labels = [theme.text(name, size) for name, _ in groups]
            spans = [list(rows) for _, rows in groups]
        for label, rows in zip(labels, spans):
            label.next_to(VGroup(*[self.cell(i, 0) for i in rows]), LEFT, buff=0.12)
        self.row_labels, self.row_spans = VGroup(*labels), spans
        if labels:
            self.add(self.row_labels)

    def _label_columns(
        self,
        names: Sequence[str] | None,
        groups: Sequence[tuple[str, Sequence[int]]] | None,
        size: float,
        on_top: bool,
    ) -> None:
        """Each column's label below it (or above); or, where they would not be read, each group's."""
        labels = [centred_lines(theme.text(str(name), size)) for name in names or []]
        spans = [[j] for j in range(len(labels))]
        if groups and labels and max(label.width for label in labels) > self.COLUMN_ROOM * self.cell_size:
            labels = [theme.text(name, size) for name, _ in groups]
            spans = [list(columns) for _, columns in groups]
        edge = 0 if on_top else self.shape[0] - 1
        for label, columns in zip(labels, spans):
            label.next_to(VGroup(*[self.cell(edge, j) for j in columns]), UP if on_top else DOWN, buff=0.1)
        self.col_labels, self.col_spans = VGroup(*labels), spans
        if labels:
            self.add(self.col_labels)

    # --- access -------------------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape  # type: ignore[return-value]

    def cell(self, row: int, col: int) -> Rectangle:
        if self.dense:  # geometry only: a rectangle where the cell is drawn now
            return self._span(row, row, col, col)
        return self.cells[row * self.shape[1] + col]

    def row(self, row: int) -> VGroup:
        if self.dense:
            return VGroup(self._span(row, row, 0, self.shape[1] - 1))
        cols = self.shape[1]
        return VGroup(*self.cells[row * cols : (row + 1) * cols])

    def column(self, col: int) -> VGroup:
        if self.dense:
            return VGroup(self._span(0, self.shape[0] - 1, col, col))
        rows, cols = self.shape
        return VGroup(*[self.cells[r * cols + col] for r in range(rows)])

    # --- dense drawing ----------------------------------------------------------------------------------

    def _span(self, top: int, bottom: int, left: int, right: int) -> Rectangle:
        """A rectangle over the cells top..bottom x left..right, where the cells are drawn now (after any move or
        scaling of the heatmap). Measured from the cells' points with numpy in one pass: manim's `width` and
        `get_corner` walk them in Python, which for a 96 x 96 matrix took 30 s of a check."""
        points = self.cells.get_all_points()
        low, high = points.min(axis=0), points.max(axis=0)
        width, height = (high[0] - low[0]) / self.shape[1], (high[1] - low[1]) / self.shape[0]
        rectangle = Rectangle(width=(right - left + 1) * width, height=(bottom - top + 1) * height)
        corner = np.array([low[0], high[1], 0.0])
        return rectangle.move_to(
            corner + np.array([(left + right + 1) / 2 * width, -(top + bottom + 1) / 2 * height, 0.0])
        )

    def _draw_dense(self, values: np.ndarray) -> None:
        """One filled VMobject per colour level; each horizontal run of equal level is one rectangle in it."""
        rows, cols = values.shape
        size, tall, levels = self.cell_size, self.cell_height, self.DENSE_LEVELS
        span = (self.vmax - self.vmin) or 1.0
        level = np.where(
            np.isfinite(values), np.rint(np.clip((values - self.vmin) / span, 0, 1) * (levels - 1)), -1
        ).astype(int)
        origin = np.array([-cols * size / 2, rows * tall / 2, 0.0])  # top-left corner, grid centred on ORIGIN
        shapes: dict[int, VMobject] = {}
        for row in range(rows):
            start = 0
            for col in range(1, cols + 1):
                if col < cols and level[row, col] == level[row, start]:
                    continue
                key = int(level[row, start])
                if key not in shapes:
                    colour = (
                        theme.background()
                        if key < 0
                        else colour_for(self.vmin + span * key / (levels - 1), self.vmin, self.vmax, self.colormap)
                    )
                    # Outlined in their own colour: where two runs meet, each edge's anti-aliasing let the
                    # background through, a dark grid over the whole matrix (overlapping the runs did not help).
                    shapes[key] = VMobject(fill_color=colour, fill_opacity=1, stroke_color=colour, stroke_width=1.5)
                width = (col - start) * size
                left = origin + np.array([start * size, -row * tall, 0.0])
                corners = [left, left + [width, 0, 0], left + [width, -tall, 0], left + [0, -tall, 0], left]
                shapes[key].start_new_path(corners[0])
                shapes[key].add_points_as_corners(corners[1:])
                start = col
        centre = self.cells.get_center() if len(self.cells) else None
        self.cells.submobjects = [shapes[key] for key in sorted(shapes)]
        if centre is not None:
            self.cells.move_to(centre)

    def row_box(self, row: int, colour: ManimColor | None = None) -> SurroundingRectangle:
        return SurroundingRectangle(self.row(row), buff=0.03, color=colour or theme.highlight(), stroke_width=4)

    # --- colouring ------------------------------------------------------------------------------------

    def _format(self, value: float) -> str:
        if np.isneginf(value):
            return "-inf"
        if not np.isfinite(value):
            return ""
        return self.fmt.format(value)

    def _text_colour(self, value: float) -> ManimColor:
        # Dark text on the bright end of the ramp, light text on the dark end (whichever contrasts more).
        if not np.isfinite(value):
            return theme.muted()
        return theme.text_on(colour_for(value, self.vmin, self.vmax, self.colormap))

    def describe(self) -> str:
        """Alt text from the values: size, axes and where the peak is (seqanim.kit.describe)."""
        rows, cols = self.values.shape
        row_title = label_text(self.row_title).removesuffix("(rows)").strip()
        col_title = label_text(self.col_title).removesuffix("(columns)").strip()
        text = f"heatmap, {rows}×{cols} ({row_title} rows × {col_title} columns)"
        top = peak(self.values)
        if top is not None:
            i, j = top
            row = next((label_text(label) for label, span in zip(self.row_labels, self.row_spans) if i in span), str(i))
            col = next((label_text(label) for label, span in zip(self.col_labels, self.col_spans) if j in span), str(j))
            text += f", peak {number(self.values[i, j])} at {row_title} {row}, {col_title} {col}"
            finite = self.values[np.isfinite(self.values)]
            text += f"; values from {number(finite.min())} to {number(finite.max())}"
        return text

    def recolour(self, values: np.ndarray, rows: Sequence[int] | None = None) -> "Heatmap":
        """Set cell colours (and annotation colours) from `values`, in place; no animation."""
        values = np.asarray(values, dtype=float)
        if self.dense:
            if rows is not None:
                values = np.where(np.isin(np.arange(self.shape[0]), list(rows))[:, None], values, self.values)
            self.values = values.copy()
            self._draw_dense(values)
            return self
        cols = self.shape[1]
        for index, cell in enumerate(self.cells):
            if rows is not None and index // cols not in rows:
                continue
            value = values.flat[index]
            cell.set_fill(colour_for(value, self.vmin, self.vmax, self.colormap), opacity=1)
            if len(self.annotations):
                self.annotations[index].set_color(self._text_colour(value))
        return self

    def animate_values(self, values: np.ndarray, rows: Sequence[int] | None = None) -> Animation:
        """Animate cells to new values. Annotations keep their text."""
        if self.dense:
            raise ValueError("a dense Heatmap is not animated cell by cell; use recolour() or dense=False")
        target = np.asarray(values, dtype=float)
        cols = self.shape[1]
        animations = []
        for index, cell in enumerate(self.cells):
            if rows is not None and index // cols not in rows:
                continue
            animations.append(
                cell.animate.set_fill(colour_for(target.flat[index], self.vmin, self.vmax, self.colormap), opacity=1)
            )
        for row in range(self.shape[0]) if rows is None else rows:
            self.values[row] = target[row]
        return AnimationGroup(*animations, group=self)  # else manim adds a Group of the cells, splitting the map

    def blank(self) -> "Heatmap":
        """Paint every cell as empty (to be filled row by row)."""
        if self.dense:
            raise ValueError("a dense Heatmap cannot be blanked cell by cell; use dense=False")
        for cell in self.cells:
            cell.set_fill(theme.background(), opacity=1).set_stroke(theme.muted(), width=1)
        for label in self.annotations:
            label.set_opacity(0)
        return self
