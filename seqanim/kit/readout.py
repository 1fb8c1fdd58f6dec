"""`Readout`: a label followed by a number that counts (a DecimalNumber), kept left-aligned after its label.

Label and number are both set by LaTeX, so the digits of a readout match its words and symbols (one type
family per readout): the label is LaTeX text, with maths between dollars ("position $m =$").

A changing value counts in place, `readout.follow(lambda: tracker.get_value())`, instead of one text
cross-fading into another.
"""

from __future__ import annotations

from collections.abc import Callable

from manim import RIGHT, DecimalNumber, ManimColor, Tex, VGroup

from seqanim.kit import theme


class Readout(VGroup):
    """`label` then `number`; the number stays right after the label while its width changes."""

    def __init__(
        self, label: str, value: float, decimals: int, colour: ManimColor | None = None, size: float = theme.LABEL_SIZE
    ) -> None:
        super().__init__()
        self.label = Tex(label, font_size=theme.tex_size(size), color=colour or theme.foreground())
        self.number = DecimalNumber(
            value, num_decimal_places=decimals, font_size=theme.tex_size(size), color=colour or theme.foreground()
        )
        self.gap = self._gap_after(label)
        self.number.next_to(self.label, RIGHT, buff=self.gap)
        self.add(self.label, self.number)

    def _gap_after(self, label: str) -> float:
        """After an "=", the space TeX put before it, so that "m = 17.4" is spaced evenly (a fixed gap read
        "m =17.4"); after words, a word space."""
        glyphs = self.label.family_members_with_points()
        if label.rstrip().endswith("=$") and len(glyphs) >= 2:
            return max(0.05, float(glyphs[-1].get_left()[0] - glyphs[-2].get_right()[0]))
        return 0.12

    def follow(self, value_of: Callable[[], float]) -> Readout:
        """Show `value_of()` on every frame; the number's glyphs are rebuilt only when its digits change."""
        decimals = self.number.num_decimal_places

        def update(number: DecimalNumber) -> None:
            value = value_of()
            if round(value, decimals) != round(number.get_value(), decimals):
                number.set_value(value)

        self.number.add_updater(update)
        return self.keep_aligned()

    def keep_aligned(self) -> Readout:
        """DecimalNumbers re-centre when their width changes: keep this one right after its label."""
        self.number.add_updater(lambda number: number.next_to(self.label, RIGHT, buff=self.gap))
        return self

    def freeze(self) -> Readout:
        """Stop following: the number keeps its last value (before fading a readout out, or reusing it)."""
        self.number.clear_updaters()
        return self
