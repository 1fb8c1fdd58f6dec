"""`LectureSlide`: the manim-slides `Slide` every scene derives from.

It brings the theme, typed access to `data/`, speaker notes and a narration on every slide, the alt text
of every slide (written by the data mobjects on screen) and the layout check at the end of every slide.
Every slide ends on a frame of its final state (manim writes an animation's frames up to, not including,
its end), and that state is kept as a picture to check the rendered slide against (`final_frames`).
A scene subclass declares which artifacts it reads in `data`, and its `construct` reads like the lecture:
`self.next_slide(notes=...)`, then the slide's beats, each a sentence for the listener and the animations it
accompanies (manim-voiceover's model):

    self.next_slide(notes=matrix_notes(run))
    with self.beat(matrix_said(run)):
        self.play(FadeIn(heatmap))

A slide's narration is its beats' words in order; each beat's place in the slide is kept (`beats`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from manim import DOWN, UP, Animation, FadeIn, Mobject, Text, config
from manim_slides import Slide

from seqanim import contract
from seqanim.config import Lecture, current, experiment_params
from seqanim.errors import SeqanimError
from seqanim.kit import layout, theme
from seqanim.kit.describe import alt_text
from seqanim.kit.lean import drop_svg_paths


@dataclass
class Beat:
    """One beat of a slide: what the listener hears, and the animations it accompanies (manim-slides' animation
    numbers, the slide's first being 0: the beat runs from animation `first` up to, not including, `last`)."""

    said: str
    first: int
    last: int = 0
    # Where on screen the beat's animations left their mobjects: (left, top, right, bottom) as shares of the
    # frame, or None when nothing it animated stays. The published cut's camera leans toward it.
    focus: tuple[float, float, float, float] | None = None


def _animated(animation: Animation) -> list[Mobject]:
    """The mobjects an animation moves: a group's are its animations' (its own group leaves out what they
    introduce, such as FadeIn and Create)."""
    if hasattr(animation, "animations"):
        return [mobject for inner in animation.animations for mobject in _animated(inner)]
    return [animation.mobject]


class LectureSlide(Slide):
    """Base class of every lecture scene."""

    # Artifacts in data/ this scene reads; the build graph re-renders the scene when any of them changes.
    data: ClassVar[tuple[str, ...]] = ()
    # Loop slides must not be first or last in reveal.js; they also skip reversal.
    skip_reversing = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.lecture: Lecture = current()
        theme.configure(**self.lecture.theme.model_dump())
        drop_svg_paths()  # text copies fast: every animation copies what it moves (seqanim.kit.lean)
        config.background_color = theme.background()
        super().__init__(*args, **kwargs)
        self.notes: list[str] = []
        # What the published video says and captions, per slide: its beats' words (or a slide's `narration=`;
        # the notes where a slide has neither).
        self.narrations: list[str] = []
        self.beats: list[list[Beat]] = []  # per slide
        self._in_beat = False
        self._beat_mobjects: list[Mobject] = []
        # Per slide, the alt text of its last frame: described data mobjects on screen, or the slide's `alt=`.
        self.alts: list[str] = []
        self._alt_override: list[str | None] = []
        self.layout_violations: list[layout.Violation] = []
        self.screen_texts: list[list[str]] = []  # per slide, what is readable at its end (for tests)
        # Per slide, a picture of its final state, drawn from the mobjects; render.py compares it with the
        # last frame of the slide's video, the one a deck pauses on.
        self.final_frames: list[np.ndarray] = []
        # manim writes an animation's frames at t < run_time: without a frame after it, a slide's video would
        # end (and a deck pause) before its last animation has finished. One held frame (1.5 frame periods:
        # manim rounds a still's frame count down) ends every slide on its final state; a loop has no pause.
        self.wait_time_between_slides = 1.5 / config.frame_rate
        self.wait_between_looping_slides = False
        self._slide_index = 0
        self._artifacts: dict[str, contract.Artifact] = {}
        self._caption: Text | None = None

    # --- data ------------------------------------------------------------------------------------

    def load(self, name: str) -> contract.Artifact:
        """Load one artifact, checked against the parameters in force (a stale file is an error)."""
        if name not in self.data:
            raise RuntimeError(f"{type(self).__name__} reads '{name}' but does not list it in `data`")
        if name not in self._artifacts:
            self._artifacts[name] = contract.load(name, params=experiment_params(self.lecture, name))
        return self._artifacts[name]

    # --- slides ----------------------------------------------------------------------------------

    def next_slide(  # type: ignore[override]
        self, *args: Any, notes: str = "", narration: str | None = None, alt: str | None = None, **kwargs: Any
    ) -> None:
        """Close the slide on screen (checking its layout) and open the next one with its speaker notes.

        `narration`: what the published video says (voice, captions, transcript) when the notes are written
        for the lecturer; by default the notes. `alt`: the slide's alt text, when the described mobjects on
        screen do not say what it shows."""
        if self._current_animation > self._start_animation:
            self._check_layout()
        if not notes.strip():
            raise ValueError(f"{type(self).__name__}: every slide needs speaker notes")
        spoken = notes if narration is None else narration
        if not spoken.strip():
            raise SeqanimError(
                f"{type(self).__name__} slide {len(self.notes) + 1}: the narration formats to an empty string; "
                "pass narration=... with the text to say, or leave it out to say the notes"
            )
        self.notes.append(notes.strip())
        self.narrations.append(" ".join(spoken.split()))
        self.beats.append([])
        self._alt_override.append(alt.strip() if alt and alt.strip() else None)
        super().next_slide(*args, notes=notes.strip(), **kwargs)

    @contextmanager
    def beat(self, said: str) -> Iterator[Beat]:
        """A beat of the slide: `said` is heard while the animations inside the `with` block run.

        The slide's narration becomes its beats' words in order, in place of the notes or a `narration=`."""
        if not self.beats:
            raise RuntimeError(f"{type(self).__name__}: a beat before the first next_slide(notes=...)")
        if not said.strip():
            raise SeqanimError(
                f"{type(self).__name__} slide {len(self.notes)}: a beat's words format to an empty string; "
                "give every beat something to say"
            )
        where = f"{type(self).__name__} slide {len(self.notes)}"
        if self._in_beat:
            raise SeqanimError(f"{where}: a beat inside a beat; end the first `with self.beat(...)` block first")
        beat = Beat(" ".join(said.split()), self._current_animation - self._start_animation)
        if not self.beats[-1]:  # the slide's first beat: its words replace the notes as the narration
            self.narrations[-1] = ""
        slides, self._in_beat, self._beat_mobjects = len(self.beats), True, []
        try:
            yield beat
        finally:
            self._in_beat = False
        if len(self.beats) != slides:
            raise SeqanimError(f"{where}: a beat holds a next_slide(...); a beat belongs to one slide")
        beat.last = self._current_animation - self._start_animation
        beat.focus = self._focus(self._beat_mobjects)
        self.beats[-1].append(beat)
        self.narrations[-1] = " ".join(filter(None, [self.narrations[-1], beat.said]))

    def play(self, *args: Any, **kwargs: Any) -> None:
        super().play(*args, **kwargs)
        if self._in_beat:  # manim keeps the animations it just played (Wait included) in self.animations
            self._beat_mobjects += [mobject for animation in self.animations for mobject in _animated(animation)]

    def _focus(self, mobjects: list[Mobject]) -> tuple[float, float, float, float] | None:
        """The box around those of `mobjects` still on screen, as shares of the frame (left, top, right, bottom)."""
        on_screen = set(self.get_mobject_family_members())
        points = [
            member.points for mobject in mobjects for member in mobject.get_family()
            if member in on_screen and len(member.points)
        ]  # fmt: skip
        if not points:
            return None
        xy = np.concatenate(points)[:, :2]
        width, height = config.frame_width, config.frame_height
        left, right = (xy[:, 0].min() + width / 2) / width, (xy[:, 0].max() + width / 2) / width
        top, bottom = (height / 2 - xy[:, 1].max()) / height, (height / 2 - xy[:, 1].min()) / height
        return tuple(round(float(np.clip(v, 0.0, 1.0)), 4) for v in (left, top, right, bottom))  # type: ignore[return-value]

    def tear_down(self) -> None:
        # manim-slides holds a frame when a slide closes (wait_time_between_slides); the last one closes here.
        if (
            self._current_animation > self._start_animation
            and not self._base_slide_config.loop
            and self.wait_time_between_slides > 0
        ):
            self.wait(self.wait_time_between_slides)
        if self._current_animation == self._start_animation and len(self.notes) > len(self.alts):
            # manim-slides drops a slide with no animation: its notes would land on no slide
            raise SeqanimError(
                f"{type(self).__name__} slide {len(self.notes)}: next_slide(...) with nothing played after it; "
                "animate something on it or remove it"
            )
        self._check_layout()
        super().tear_down()

    def _check_layout(self) -> None:
        self._slide_index += 1
        on_screen = list(self.mobjects)
        self.layout_violations += layout.check(on_screen, self._slide_index)
        self.screen_texts.append(layout.visible_texts(on_screen))
        self.final_frames.append(self._draw_final_state())
        index = len(self.alts)
        override = self._alt_override[index] if index < len(self._alt_override) else None
        self.alts.append(override or alt_text(on_screen))

    def _draw_final_state(self) -> np.ndarray:
        """The frame of what is on screen now, drawn afresh (not from the renderer's cached still part)."""
        renderer = self.renderer
        static_image, renderer.static_image = renderer.static_image, None
        try:
            renderer.update_frame(self)
            return np.array(renderer.get_frame())
        finally:
            renderer.static_image = static_image

    # --- shared furniture --------------------------------------------------------------------------

    @staticmethod
    def heading(text: str) -> Text:
        """The scene's title placed at the top, not yet shown (to place the first objects under it)."""
        return theme.text(text, theme.TITLE_SIZE, weight="BOLD").to_edge(UP, buff=0.35)

    def title(
        self, text: str | Text, *, animate: bool = True, along: Sequence[Animation] = (), run_time: float = 0.3
    ) -> Text:
        """The scene's title (a string, or a `heading` already made), top left, in the theme's title style.

        `along`: the scene's first animations, played with the title so it never stands alone (a scene
        opens with at most half a second of its title alone; with `along`, none)."""
        heading = self.heading(text) if isinstance(text, str) else text
        if animate:
            self.play(FadeIn(heading, shift=0.2 * DOWN), *along, run_time=run_time)
        else:
            self.add(heading)
        return heading

    def caption(self, text: str, *, size: int = theme.BODY_SIZE, colour: Any = None) -> Text:
        """A line of body text at the bottom of the frame."""
        line = theme.text(text, size, colour)
        if line.width > config.frame_width - 0.8:
            line.scale_to_fit_width(config.frame_width - 0.8)
        return line.to_edge(DOWN, buff=0.35)

    def say(self, text: str, colour: Any = None, size: int = theme.LABEL_SIZE) -> Text:
        """Replace the bottom caption with `text` (the running commentary of a scene)."""
        line = self.caption(text, size=size, colour=colour)
        self.swap(self._caption, line)
        self._caption = line
        return line

    def backdrop(self, *mobjects: Mobject) -> None:
        """Draw these (those on screen) first, under everything else, for the animations to come.

        During an animation manim draws the mobjects below the first moving one once, and redraws every
        mobject above it on every frame. Mobjects that stay still while others move (a heatmap, formulas,
        the caption) belong at the back; they must not cover anything drawn later."""
        shown = [mobject for mobject in mobjects if mobject is not None and mobject in self.mobjects]
        if shown:
            self.bring_to_back(*shown)

    def swap(self, old: Mobject | None, new: Mobject, run_time: float = 0.5) -> Mobject:
        """Replace a caption or readout in place."""
        from manim import FadeOut

        animations = [FadeIn(new)]
        if old is not None:
            if old in self.mobjects:  # on top while it fades: what lies under it is drawn once, not per frame
                self.bring_to_front(old)
            animations.insert(0, FadeOut(old))
        self.play(*animations, run_time=run_time)
        return new
