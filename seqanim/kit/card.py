"""`TitleCard`: a deck's title or part divider, drawn in the theme: kicker, heading with an accent line,
agenda rows and a footer."""

from __future__ import annotations

from collections.abc import Sequence

from manim import DOWN, LEFT, RIGHT, Dot, Line, Text, VGroup, config

from seqanim.kit import theme

HEADING_SIZE = 48  # a card's heading is the one text bigger than a scene title
ROW_PITCH = 0.46  # manim units between agenda rows


class TitleCard(VGroup):
    """The card's parts in reading order; `accent` is the line under the heading (animate it with Create)."""

    def __init__(self, kicker: str, heading: str, items: Sequence[str] = (), footer: str = "") -> None:
        super().__init__()
        width = config.frame_width - 1.2
        font = theme.font()
        title = Text(heading, font=font, font_size=HEADING_SIZE, color=theme.foreground(), weight="BOLD")
        if title.width > width:
            title.scale_to_fit_width(width)
        parts: list[VGroup | Text | Line] = []
        if kicker:
            parts.append(Text(kicker, font=font, font_size=theme.BODY_SIZE, color=theme.highlight()))
        parts.append(title)
        self.accent = Line(title.get_left(), title.get_right(), color=theme.highlight(), stroke_width=4)
        parts.append(self.accent)
        if items:
            # A fixed pitch per row: arranging by bounding boxes would space rows with descenders wider.
            rows = VGroup()
            for i, item in enumerate(items):
                dot = Dot([0, -ROW_PITCH * i, 0], radius=0.07, color=theme.item_colour(i))
                label = Text(item, font=font, font_size=theme.LABEL_SIZE, color=theme.foreground())
                label.next_to(dot, RIGHT, buff=0.25)
                rows.add(VGroup(dot, label))
            if rows.height > 3.6:
                rows.scale_to_fit_height(3.6)
            parts.append(rows)
        body = VGroup(*parts).arrange(DOWN, buff=0.35)
        if items and body[-1].width < title.width:
            body[-1].align_to(title, LEFT)  # a short agenda reads as a list under the heading
        body.move_to([0, 0.3, 0])
        if body.height > config.frame_height - 1.6:
            body.scale_to_fit_height(config.frame_height - 1.6).move_to([0, 0.3, 0])
        self.add(*parts)
        if footer:
            self.add(Text(footer, font=font, font_size=theme.SMALL_SIZE, color=theme.muted()).to_edge(DOWN, buff=0.35))
