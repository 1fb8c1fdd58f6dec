"""WhatAttentionExplains (seed 003, cells 29-31, then 26-28): two interventions on weights x values = context.
Change one value (the weights stay, the output moves); remove a key (the rest renormalise). Then PyTorch's
scaled_dot_product_attention checks the arithmetic, and the scene ends on what an attention plot supports."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
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

from scenes.why_attention.shared import CAPTION_SIZE, WhyAttentionSlide, fmt_g, fmt_row, key_labels
from seqanim import Artifact, listing, mark, number, translated
from seqanim.kit import theme
from seqanim.kit.matrix import MatrixTable, number_format

# --- the words -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """The first intervention: the value of key `index` (`label`) becomes `value`; whether the weights stay exactly
    the same, and the context before and after."""

    index: int
    label: str
    value: np.ndarray
    same: bool
    before: np.ndarray
    after: np.ndarray


def change(art: Artifact) -> Change:
    index = int(np.flatnonzero(np.any(art["changed_V"] != art["V"], axis=1))[0])
    same = bool(np.array_equal(art["changed_weights"], art["weights"]))
    before, after = art["context"][0], art["changed_context"][0]
    return Change(index, key_labels(art)[index], art["changed_V"][index], same, before, after)


@dataclass(frozen=True)
class Removal:
    """The second intervention: the keys masked out and those kept (by index and by name), the weights (of every
    key) and the context after."""

    removed: tuple[int, ...]
    kept: tuple[int, ...]
    removed_names: tuple[str, ...]
    kept_names: tuple[str, ...]
    weights: np.ndarray
    context: np.ndarray


def removal(art: Artifact) -> Removal:
    allowed, weights = art["removed_allowed"], art["removed_weights"][0]
    removed = tuple(i for i in range(allowed.shape[1]) if not allowed[0, i])
    kept = tuple(i for i in range(len(weights)) if i not in removed)
    labels = key_labels(art)
    names = tuple(labels[i] for i in removed), tuple(labels[i] for i in kept)
    return Removal(removed, kept, *names, weights, art["removed_context"][0])


def _pair(values: np.ndarray, decimals: int = 0) -> str:
    return ", ".join(number(float(v), decimals) for v in values)


def within_bound(difference: float) -> float | None:
    """The smallest of a billionth, a millionth and a thousandth that a tiny difference lies within, or None."""
    return next((bound for bound in (1e-9, 1e-6, 1e-3) if difference < bound), None)


@dataclass(frozen=True)
class Parity:
    """PyTorch's attention against ours: the largest difference without and with the masks, the worse of the two,
    and the smallest of a billionth, a millionth and a thousandth it lies within (None: none of them)."""

    difference: float
    masked_difference: float
    worst: float
    bound: float | None


def parity_check(art: Artifact) -> Parity:
    difference, masked = art.metrics["sdpa_max_abs_diff"], art.metrics["sdpa_padding_max_abs_diff"]
    worst = max(difference, masked)
    return Parity(difference, masked, worst, within_bound(worst))


def _within(check: Parity) -> str:
    """The worst difference as a bound a listener can hold: "a millionth"."""
    if check.bound is None:
        return number(check.worst, 2)
    return {1e-9: "a billionth", 1e-6: "a millionth", 1e-3: "a thousandth"}[check.bound]


def layout_notes(art: Artifact) -> str:
    return (
        "Weights describe a computation; causal importance needs an intervention. "
        f"Hold Q and K fixed: weights {fmt_row(art['weights'][0])}, context {fmt_row(art['context'][0])}."
    )


@translated
def layout_said(art: Artifact) -> str:
    return (
        f"Weights {mark('values')}times values {mark('context')}give the context, "
        f"{mark('fixed')}with the query and the keys held fixed."
    )


def change_notes(art: Artifact) -> str:
    changed = change(art)
    return (
        f"Intervention 1: change only v_{changed.label} to {fmt_g(changed.value)}. "
        f"The weights stay {fmt_row(art['changed_weights'][0])} ({'identical' if changed.same else 'changed'}), "
        f"yet the context moves from {fmt_row(changed.before)} to {fmt_row(changed.after)}. "
        "Practice 3: a very large value can change the output greatly with no change to the attention weights."
    )


@translated
def change_said(art: Artifact) -> dict[str, str]:
    changed = change(art)
    return {
        "change": f"First intervention: change only {changed.label}'s value, {mark('to')}to {_pair(changed.value)}.",
        "weights": "The weights stay exactly the same." if changed.same else "The weights change too.",
        "context": f"Yet the context jumps from about {_pair(changed.before)} "
        f"{mark('to')}to about {_pair(changed.after)}.",
    }


def remove_notes(art: Artifact) -> str:
    removing = removal(art)
    return (
        f"Intervention 2: restore V and remove memory {', '.join(removing.removed_names)} by "
        f"masking it. Normalisation changes too: the remaining weights renormalise to "
        f"{fmt_row(removing.weights)} and the context becomes {fmt_row(removing.context)}. "
        "Removing an item is not the same as reading its weight off the plot."
    )


@translated
def remove_said(art: Artifact) -> dict[str, str]:
    removing = removal(art)
    kept = [number(float(removing.weights[i]), 2) for i in removing.kept]
    each = f"{kept[0]} each" if len(set(kept)) == 1 else listing(kept)
    return {
        "restore": f"Second intervention: first {mark('restore')}restore the original values.",
        "remove": f"Then remove item {listing(list(removing.removed_names))} {mark('mask')}by masking its key.",
        "renormalise": f"The remaining weights renormalise: {listing(list(removing.kept_names))} "
        f"{mark('now')}now get {each}.",
        "context": f"The context becomes {_pair(removing.context)}. "
        f"{mark('removing')}Removing an item is not the same as reading its weight off the plot.",
    }


def parity_notes(art: Artifact) -> str:
    check = parity_check(art)
    return (
        "Verify the same calculation with PyTorch: "
        "F.scaled_dot_product_attention(q, k, v, dropout_p=0.0) in float32 gives "
        f"{fmt_row(art['sdpa_context'][0])} against NumPy's {fmt_row(art['context'][0])}: "
        f"max abs difference {check.difference:.2e}. "
        "With the combined causal+padding Boolean mask (True = allowed in SDPA) "
        f"the difference is {check.masked_difference:.2e}. "
        "Other PyTorch APIs use other mask conventions: read the API you call. "
        "This is an implementation check, not evidence that attention learned language."
    )


@translated
def parity_said(art: Artifact) -> dict[str, str]:
    return {
        "check": f"Now an implementation check: {mark('same')}the same calculation in PyTorch.",
        "agrees": f"Its built-in attention agrees with ours {mark('within')}to within {_within(parity_check(art))}, "
        f"{mark('masks')}with and without the masks.",
        "not_evidence": f"That checks the code; {mark('evidence')}it is no evidence that attention learned language.",
    }


def closing_notes(art: Artifact) -> str:
    return (
        "State exactly what the heatmap supports: where the chosen computation routes information "
        f"(here weights {fmt_row(art['weights'][0])}). "
        "It does not prove why a real-world outcome occurred; "
        "causal claims need interventions like the two before the check."
    )


@translated
def closing_said(art: Artifact) -> dict[str, str]:
    return {
        "routing": f"So attention weights show routing: {mark('where')}where this computation sends information.",
        "causal": f"They are not causal importance: {mark('takes')}that takes an intervention, "
        "like changing a value or removing a key.",
    }


# --- the scene -------------------------------------------------------------------------------------------


# The product across the frame: on one line where it leaves MARGIN at either edge. The values' rows are the
# default's 0.75 tall up to 4 keys, shorter past that, VALUES_HEIGHT in all, to leave the weights room above them.
MARGIN, VALUES_HEIGHT = 0.3, 3.0


class WhatAttentionExplains(WhyAttentionSlide):
    """Interventions: change one value (weights fixed, output moves); remove a key (the rest renormalise).
    SDPA parity."""

    data = ("qkv_walkthrough",)

    def construct(self) -> None:
        self.layout()
        self.change_value()
        self.remove_key()
        self.parity()
        self.closing()  # the scene ends on its claim

    def layout(self) -> None:
        art = self.art
        self.next_slide(notes=layout_notes(art))
        said = layout_said(art)
        heading = self.heading("What an attention plot can explain")
        self.equation = self.product_tables()
        w_table, times, v_table, equals, c_table = self.equation
        with self.beat(said) as beat:  # each factor of the product appears as it is named
            self.title(heading, along=[FadeIn(w_table)], run_time=beat.until("values"))
            self.play(FadeIn(times), FadeIn(v_table), run_time=beat.until("context"))
            self.play(FadeIn(equals), FadeIn(c_table), run_time=beat.until("fixed"))
            self.play(Indicate(w_table.col_title, color=theme.highlight()), run_time=beat.remaining)
        self.add(self.equation)  # one group on screen (adding it takes its parts in), to fade out as one

    def change_value(self) -> None:
        art = self.art
        w_table, v_table, c_table = self.tables
        changed = change(art)
        index = changed.index
        self.next_slide(notes=change_notes(art))
        said = change_said(art)
        highlighted = {(index, c): theme.highlight() for c in range(art["V"].shape[1])}
        with self.beat(said["change"]) as beat:
            self.play(Create(v_table.row_box(index)), run_time=beat.until("to"))
            self.play(v_table.transform_entries(art["changed_V"], highlighted), run_time=beat.remaining)
        verdict = theme.text(
            "unchanged" if changed.same else "changed", theme.LABEL_SIZE, theme.value_colour()
        ).next_to(w_table, DOWN, buff=0.3)
        with self.beat(said["weights"]) as beat:
            self.play(Create(w_table.row_box(0, theme.value_colour())), FadeIn(verdict), run_time=beat.remaining)
        both = {(0, 0): theme.highlight(), (0, 1): theme.highlight()}
        with self.beat(said["context"]) as beat:
            self.play(Indicate(c_table.row_entries(0), color=theme.highlight()), run_time=beat.until("to"))
            self.play(c_table.count_entries(art["changed_context"], both), run_time=0.6 * beat.remaining)
            self.say(self.change_caption(), colour=theme.caption_colour(), size=CAPTION_SIZE, run_time=beat.remaining)
        self.intervention_marks = VGroup(verdict, *[m for m in self.mobjects if isinstance(m, SurroundingRectangle)])

    def remove_key(self) -> None:
        art = self.art
        w_table, v_table, c_table = self.tables
        removing = removal(art)
        removed = removing.removed
        self.next_slide(notes=remove_notes(art))
        said = remove_said(art)
        with self.beat(said["restore"]) as beat:
            self.play(FadeOut(self.intervention_marks), FadeOut(self._caption), run_time=beat.until("restore"))
            self._caption = None  # the first intervention's verdict goes with it
            self.play(v_table.transform_entries(art["V"]), c_table.count_entries(art["context"]),
                      run_time=beat.remaining)  # fmt: skip
        crosses = VGroup(
            *[v_table.row_box(i, theme.blocked_colour()) for i in removed],
            *[w_table.cell_box(0, i, theme.blocked_colour()) for i in removed],
        )
        with self.beat(said["remove"]) as beat:
            self.play(Create(crosses[: len(removed)]), run_time=beat.until("mask"))
            dimmed = [v_table.row_entries(i).animate.set_opacity(0.3) for i in removed]
            self.play(Create(crosses[len(removed) :]), *dimmed, run_time=beat.remaining)
        self.add(crosses)  # one group on screen (adding it takes its parts in), to fade out as one
        self.marks = crosses
        kept = {(0, i): theme.highlight() for i in removing.kept}
        kept_entries = VGroup(*[w_table.entry(0, i) for i in removing.kept])
        with self.beat(said["renormalise"]) as beat:
            self.play(w_table.count_entries(art["removed_weights"], kept), run_time=beat.until("now"))
            self.play(Indicate(kept_entries, color=theme.highlight()), run_time=beat.remaining)
        both = {(0, 0): theme.highlight(), (0, 1): theme.highlight()}
        with self.beat(said["context"]) as beat:
            self.play(c_table.count_entries(art["removed_context"], both), run_time=beat.until("removing"))
            self.say(self.remove_caption(), colour=theme.caption_colour(), size=CAPTION_SIZE, run_time=beat.remaining)

    def parity(self) -> None:
        art = self.art
        self.next_slide(notes=parity_notes(art))
        said = parity_said(art)
        header, rows = self.parity_table()
        with self.beat(said["check"]) as beat:
            self.play(FadeOut(self.equation), FadeOut(self.marks), FadeOut(self._caption), run_time=beat.until("same"))
            self._caption = None
            self.play(FadeIn(header, shift=0.2 * DOWN), run_time=beat.remaining)
        numpy_torch, differences = rows[:2], rows[2:]
        with self.beat(said["agrees"]) as beat:  # the two contexts, then how far apart they are, then with the masks
            self.play(LaggedStart(*[FadeIn(r, shift=0.2 * UP) for r in numpy_torch], lag_ratio=0.4),
                      run_time=beat.until("within"))  # fmt: skip
            self.play(FadeIn(differences[0], shift=0.2 * UP), run_time=beat.until("masks"))
            self.play(FadeIn(differences[1], shift=0.2 * UP), run_time=beat.remaining)
        with self.beat(said["not_evidence"]) as beat:
            self.play(
                Indicate(differences, color=theme.highlight(), scale_factor=1.05), run_time=beat.until("evidence")
            )
            self.say(
                "an implementation check, not evidence that attention learned language",
                colour=theme.muted(),
                size=CAPTION_SIZE,
                run_time=beat.remaining,
            )
        self.check = VGroup(header, rows)

    def closing(self) -> None:
        art = self.art
        self.next_slide(notes=closing_notes(art))
        said = closing_said(art)
        # The claim the scene ends on, large, in the middle of the frame: nothing else stays on screen.
        first = theme.text("Attention weights show routing:", theme.BODY_SIZE + 8, theme.foreground(), weight="BOLD")
        second = theme.text("where this computation sends information.", theme.BODY_SIZE + 2, theme.foreground())
        third = theme.text("They are not causal importance:", theme.BODY_SIZE + 8, theme.highlight(), weight="BOLD")
        fourth = theme.text(
            "that takes an intervention (change a value, remove a key).", theme.BODY_SIZE + 2, theme.foreground()
        )
        VGroup(first, second, third, fourth).arrange(DOWN, buff=0.32).shift(0.2 * DOWN)
        VGroup(third, fourth).shift(0.3 * DOWN)
        with self.beat(said["routing"]) as beat:
            self.play(FadeOut(self.check), FadeOut(self._caption), run_time=0.4)
            self._caption = None
            self.play(FadeIn(first, shift=0.2 * UP), run_time=beat.until("where"))
            self.play(Write(second), run_time=beat.remaining)
        with self.beat(said["causal"]) as beat:
            self.play(FadeIn(third, shift=0.2 * UP), run_time=beat.until("takes"))
            self.play(Write(fourth), run_time=beat.remaining)

    # --- drawing ---------------------------------------------------------------------------------------

    def product_tables(self) -> VGroup:
        """weights × values = context, three tables in a row, their cells on one line (sets self.tables); where
        the row would leave the frame (more keys: a weight each), it breaks before the ×, the weights over the rest."""
        art = self.art
        w_table = MatrixTable(
            art["weights"],
            row_labels=["w"],
            col_labels=self.labels,
            col_label_colours=self.colours,
            col_title="weights (fixed Q, K)",
            fmt=number_format(4, exact_zero=True),
            cell_width=1.35,
            cell_height=0.75,
            entry_size=theme.LABEL_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        v_table = MatrixTable(
            art["V"],
            row_labels=self.labels,
            row_label_colours=self.colours,
            col_title="values V",
            fmt="{:g}",
            cell_width=0.95,
            cell_height=min(0.75, VALUES_HEIGHT / len(self.labels)),
            entry_size=theme.LABEL_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        v_table.col_title.set_color(theme.value_colour())
        c_table = MatrixTable(
            art["context"],
            col_title="context c",
            cell_width=1.7,  # room for a context of 27.7998 beside 23.7887
            cell_height=0.75,
            entry_size=theme.LABEL_SIZE,
            label_size=theme.LABEL_SIZE,
        )
        c_table.col_title.set_color(theme.highlight())
        times = MathTex(r"\times", font_size=theme.BODY_SIZE + 8, color=theme.foreground())
        equals = MathTex("=", font_size=theme.BODY_SIZE + 8, color=theme.foreground())
        layout = VGroup(w_table, times, v_table, equals, c_table).arrange(RIGHT, buff=0.35).shift(0.3 * DOWN)
        broken = layout.width > config.frame_width - 2 * MARGIN
        level = layout[1:] if broken else layout  # what stands on the line of the values' middle
        for side in level:
            side_y = side.cells.get_y() if isinstance(side, MatrixTable) else side.get_y()
            side.shift((v_table.cells.get_y() - side_y) * UP)
        if broken:  # the weights over the rest, room between them for the verdict under the weights
            VGroup(w_table, level).arrange(DOWN, buff=0.8).move_to(0.1 * DOWN)
        self.tables = (w_table, v_table, c_table)
        return layout

    def change_caption(self) -> str:
        changed = change(self.art)
        return f"same weights, context {fmt_row(changed.before)} \u2192 {fmt_row(changed.after)}"

    def remove_caption(self) -> str:
        removing = removal(self.art)
        names = ", ".join(removing.removed_names)
        return f"remove {names}: the rest renormalise to {fmt_row([removing.weights[i] for i in removing.kept])}"

    def parity_table(self) -> tuple[VGroup, VGroup]:
        """A header and a two-column table: names right-aligned, values left-aligned, one row per line."""
        art = self.art
        check = parity_check(art)
        header = theme.text(
            "NumPy vs torch.nn.functional.scaled_dot_product_attention", theme.BODY_SIZE, theme.foreground()
        ).shift(2.1 * UP)
        pairs = (
            ("NumPy (float64)", fmt_row(art["context"][0]), theme.foreground()),
            ("SDPA (float32)", fmt_row(art["sdpa_context"][0]), theme.foreground()),
            ("max |difference|", f"{check.difference:.2e}", theme.value_colour()),
            ("with causal+padding mask", f"{check.masked_difference:.2e}", theme.value_colour()),
        )
        rows = VGroup(
            *[
                VGroup(theme.text(name, theme.LABEL_SIZE, theme.muted()), theme.text(value, theme.BODY_SIZE, colour))
                for name, value, colour in pairs
            ]
        )
        VGroup(*[pair[0] for pair in rows], *[pair[1] for pair in rows]).arrange_in_grid(
            rows=len(rows), cols=2, buff=(0.5, 0.35), col_alignments="rl", flow_order="dr"
        )
        rows.next_to(header, DOWN, buff=0.6)
        return header, rows
