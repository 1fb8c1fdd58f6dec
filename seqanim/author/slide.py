"""`LectureSlide`: the manim-slides `Slide` every scene derives from.

It brings the theme, typed access to `data/`, speaker notes and a narration on every slide, the alt text
of every slide (written by the data mobjects on screen) and the layout check at the end of every slide.
Every slide ends on a frame of its final state (manim writes an animation's frames up to, not including,
its end), and that state is kept as a picture to check the rendered slide against (`final_frames`).
A scene subclass declares which artifacts it reads in `data`, and its `construct` reads like the lecture:
`self.next_slide(notes=...)`, then the slide's beats, each a sentence for the listener and the animations that
show it, timed by its speech (manim-voiceover's model). The words are spoken first (`seqanim.publish.voice`, cached),
so the beat knows how long they last and when each word falls; its animations take their run times from them,
and a bookmark starts an animation on its word:

    self.next_slide(notes=matrix_notes(run))
    with self.beat(f"Each row is a query; {mark('sum')}its weights sum to one.") as beat:
        self.play(FadeIn(heatmap), run_time=beat.until("sum"))
        self.play(Indicate(row_sums), run_time=beat.remaining)

On leaving the `with` block the picture holds for what is left of the words, then `[publish] gap_s`: the
video is rendered at the pace of its speech, and the published cut lays each beat's audio where the beat starts.
A slide's narration is its beats' words in order; each beat's place in the slide is kept (`beats`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from manim import DOWN, UP, Animation, AnimationGroup, FadeIn, Mobject, Text, Wait, config, rate_functions
from manim.constants import RendererType
from manim.renderer.cairo_renderer import CairoRenderer
from manim_slides import Slide

from seqanim.author.encoder import SteadyFileWriter
from seqanim.author.spoken import bookmarks
from seqanim.author.translate import translation
from seqanim.errors import SeqanimError
from seqanim.kit import layout, theme
from seqanim.kit.describe import alt_text
from seqanim.kit.lean import drop_svg_paths
from seqanim.kit.redraw import RedrawWhatMoves
from seqanim.lecture import contract
from seqanim.lecture.config import Lecture, current, experiment_params
from seqanim.lecture.languages import LANGUAGES
from seqanim.publish import voice


@dataclass(frozen=True)
class Speech:
    """A beat's words as heard: how long they last and when each written word starts and ends (seconds from the
    beat's start); `timing` says where the times come from (the voice's model, an estimate, or reading time)."""

    seconds: float
    words: tuple[voice.Word, ...]
    timing: str
    source: str


def reading_speech(text: str, words_per_minute: int) -> Speech:
    """Words nobody speaks (`voice = "none"`): the reading time, spread over the words by their characters."""
    written = text.split()
    seconds = len(written) * 60.0 / words_per_minute
    return Speech(seconds, tuple(voice.spread(written, 0.0, seconds)), "reading", "reading time")


@dataclass
class Beat:
    """One beat of a slide: what the listener hears, timed, and the animations it accompanies (manim-slides'
    animation numbers, the slide's first being 0: the beat runs from animation `first` up to, not including,
    `last`). Inside its `with` block it tells the animations their run times, counted in the frames manim
    writes, so that they end on the frame where the words end (manim-voiceover's tracker):

    - `duration`: from the beat's start to the end of its words;
    - `remaining`: from now to the end of its words;
    - `until(mark)`: from now to the word its bookmark stands before."""

    said: str
    first: int
    speech: Speech
    marks: dict[str, int]
    fps: float
    start_frame: int
    clock: Any = field(repr=False)  # the scene: its `frames_written`
    last: int = 0
    still_frames: int = 0  # frames of waits and holds inside the beat: a picture standing still under the words
    # The beat's words in each other language whose part file writes them (seqanim.author.translate): every
    # one, so that choosing the languages to publish (`[publish] languages`) renders nothing again.
    translations: dict[str, str] = field(default_factory=dict)

    def _frame_of(self, seconds: float) -> int:
        return self.start_frame + math.ceil(seconds * self.fps - 1e-6)

    @property
    def end_frame(self) -> int:
        return self._frame_of(self.speech.seconds)

    def mark_frame(self, mark: str) -> int:
        if mark not in self.marks:
            known = ", ".join(self.marks) or "none"
            raise SeqanimError(f"the beat {self.said[:50]!r} has no bookmark {mark!r} (it has: {known})")
        index = self.marks[mark]
        seconds = self.speech.words[index][1] if index < len(self.speech.words) else self.speech.seconds
        return self.start_frame + round(seconds * self.fps)  # the nearest frame to the word (the end: never early)

    def _run_time(self, frames: int) -> float:
        # manim draws an animation of run time t in ceil(t * fps) frames: n - 0.5 frame periods make n.
        return (max(frames, 1) - 0.5) / self.fps

    @property
    def duration(self) -> float:
        return self._run_time(self.end_frame - self.start_frame)

    @property
    def remaining(self) -> float:
        return self._run_time(self.end_frame - self.clock.frames_written)

    def until(self, mark: str) -> float:
        return self._run_time(self.mark_frame(mark) - self.clock.frames_written)


class CheckRenderer(CairoRenderer):
    """manim's renderer for the `check` quality, which draws no frame while the scene plays: manim's own draws
    the still part of every play and the picture of every wait even when it skips them (an eighth of a check's
    time). A slide's last frame, the check's thumbnail, is drawn by `LectureSlide._draw_final_state`."""

    def update_frame(self, *args: Any, **kwargs: Any) -> None:
        pass


class LectureSlide(RedrawWhatMoves, Slide):
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
        if config.renderer == RendererType.CAIRO and kwargs.get("renderer") is None:  # the same frames, the same video
            kwargs["renderer"] = (CheckRenderer if kwargs.get("skip_animations") else CairoRenderer)(
                file_writer_class=SteadyFileWriter,
                camera_class=kwargs.get("camera_class"),
                skip_animations=kwargs.get("skip_animations", False),
            )
        super().__init__(*args, **kwargs)
        self.notes: list[str] = []
        # What the published video says and captions, per slide: its beats' words (or a slide's `narration=`;
        # the notes where a slide has neither).
        self.narrations: list[str] = []
        self.beats: list[list[Beat]] = []  # per slide
        self._in_beat = False
        self._beat: Beat | None = None  # the beat being played, until its words and its pause have ended
        self.frames_written = 0  # every frame manim has written so far, counted as manim counts them
        self.animation_frames: list[int] = []  # per animation (manim-slides' numbering), the frames it wrote
        # Per slide, the alt text of its last frame: described data mobjects on screen, or the slide's `alt=`.
        self.alts: list[str] = []
        self._alt_override: list[str | None] = []
        self.layout_violations: list[layout.Violation] = []
        self.screen_texts: list[list[str]] = []  # per slide, what is readable at its end (for tests)
        # Per slide, a picture of its final state, drawn from the mobjects; render.py compares it with the
        # last frame of the slide's video, the one a deck pauses on (none at the `check` quality: no video).
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
        """A beat of the slide: `said` (with its bookmarks) is heard while the animations inside the `with`
        block run; on leaving it the picture holds until its words have ended, then `[publish] gap_s`.

        The slide's narration becomes its beats' words in order, in place of the notes or a `narration=`."""
        if not self.beats:
            raise RuntimeError(f"{type(self).__name__}: a beat before the first next_slide(notes=...)")
        where = f"{type(self).__name__} slide {len(self.notes)}"
        try:
            text, marks = bookmarks(said)
        except ValueError as error:
            raise SeqanimError(f"{where}: {error}") from None
        if not text:
            raise SeqanimError(f"{where}: a beat's words format to an empty string; give every beat something to say")
        if self._in_beat:
            raise SeqanimError(f"{where}: a beat inside a beat; end the first `with self.beat(...)` block first")
        speech = self.speech(text, len(self.notes), len(self.beats[-1]) + 1)
        beat = Beat(
            text, self._current_animation - self._start_animation, speech, marks, config.frame_rate,
            self.frames_written, self,
        )  # fmt: skip
        for code in [code for code in LANGUAGES if code != self.lecture.publish.languages[0]]:
            if (words := translation(said, type(self), code)) is not None:
                beat.translations[code] = words
        if not self.beats[-1]:  # the slide's first beat: its words replace the notes as the narration
            self.narrations[-1] = ""
        slides, self._in_beat, self._beat = len(self.beats), True, beat
        try:
            yield beat
        finally:
            self._in_beat = False
        if len(self.beats) != slides:
            raise SeqanimError(f"{where}: a beat holds a next_slide(...); a beat belongs to one slide")
        self.hold(beat.end_frame - self.frames_written)  # what is left of the words: still, counted
        self._beat = None
        gap = math.ceil(self.lecture.publish.gap_s * config.frame_rate - 1e-6)
        self.hold(max(beat.end_frame, self.frames_written) + gap - self.frames_written)
        beat.last = self._current_animation - self._start_animation
        self.beats[-1].append(beat)
        self.narrations[-1] = " ".join(filter(None, [self.narrations[-1], beat.said]))

    def speech(self, text: str, slide: int, beat: int) -> Speech:
        """The words of beat `beat` of slide `slide` as the published video says them: the lecturer's recording
        of the beat, else the voice's clip (made once, cached), else their reading time."""
        publish = self.lecture.publish
        # A check draws nothing and says nothing: the words are timed, no audio is made.
        clip = voice.slide_clip(type(self).__name__, slide, text, publish, beat=beat, audio=not self.skip_animations)
        if clip is None:
            return reading_speech(text, publish.words_per_minute)
        return Speech(clip.seconds, voice.written_words(text, clip.words), clip.timing, clip.source)

    def hold(self, frames: int) -> None:
        """Hold the picture for `frames` frames (none when not positive)."""
        if frames <= 0:
            return
        # manim writes a still (nothing updating) for int(t * fps) frames and a moving wait for ceil(t * fps).
        moving = bool(self.always_update_mobjects or self.updaters) or any(
            mobject.has_time_based_updater() for mobject in self.get_mobject_family_members()
        )  # manim's own test (Scene.should_update_mobjects) of whether a wait is a still
        self.wait((frames - 0.5 if moving else frames + 0.5) / config.frame_rate)

    def play(self, *args: Any, **kwargs: Any) -> None:
        super().play(*args, **kwargs)
        if self.skip_animations:  # as manim ends a drawn play: the updaters once more, with every end state set
            self.update_mobjects(0)
        # The frames manim just wrote for it: a still for int(t * fps), anything else for ceil(t * fps) (its
        # times are arange(0, t, 1 / fps)); a cached animation's movie has the frames it had when drawn.
        step = 1 / config.frame_rate
        if self.is_current_animation_frozen_frame():
            frames = int(self.duration / step)
        else:
            frames = len(np.arange(0, self.duration, step))
        self.frames_written += frames
        self.animation_frames.append(frames)
        if self._beat is not None and len(self.animations) == 1 and isinstance(self.animations[0], Wait):
            self._beat.still_frames += frames

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
        if not self.skip_animations:  # the `check` quality draws no frame to compare it with
            self.final_frames.append(self._draw_final_state())
        index = len(self.alts)
        override = self._alt_override[index] if index < len(self._alt_override) else None
        self.alts.append(override or alt_text(on_screen))

    def _draw_final_state(self) -> np.ndarray:
        """The frame of what is on screen now, drawn afresh (not from the renderer's cached still part)."""
        renderer = self.renderer
        static_image, renderer.static_image = renderer.static_image, None
        try:
            CairoRenderer.update_frame(renderer, self)
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
        if animate:  # the title comes in at once; what comes with it takes the whole run time
            for animation in along:  # fast at first, so it shows beside the title at once, then settling
                animation.set_run_time(run_time)  # as its words end (an even pace over a long sentence
                animation.set_rate_func(rate_functions.ease_out_cubic)  # left the title alone for a second)
            self.play(AnimationGroup(FadeIn(heading, shift=0.2 * DOWN, run_time=min(run_time, 0.6)), *along))
        else:
            self.add(heading)
        return heading

    def caption(self, text: str, *, size: int = theme.BODY_SIZE, colour: Any = None) -> Text:
        """A line of body text at the bottom of the frame."""
        line = theme.text(text, size, colour)
        if line.width > config.frame_width - 0.8:
            line.scale_to_fit_width(config.frame_width - 0.8)
        return line.to_edge(DOWN, buff=0.35)

    def say(self, text: str, colour: Any = None, size: int = theme.LABEL_SIZE, run_time: float = 0.5) -> Text:
        """Replace the bottom caption with `text` (the running commentary of a scene). Over a sentence (more
        than a second) the line is written as the words go, readable as it comes, not faded in over the whole
        sentence; the old one fades out first."""
        line = self.caption(text, size=size, colour=colour)
        if run_time <= 1.0:
            self.swap(self._caption, line, run_time=run_time)
        else:
            from manim import FadeOut, Succession, Write

            old = self._caption if self._caption in self.mobjects else None
            fade = min(0.4, 0.2 * run_time)
            written = Write(line, run_time=run_time - fade if old is not None else run_time)
            self.play(Succession(FadeOut(old, run_time=fade), written) if old is not None else written)
        self._caption = line
        return line

    def backdrop(self, *mobjects: Mobject) -> None:
        """Draw these (those on screen) first, under everything else, for the animations to come.

        During an animation the mobjects below the first moving one are drawn once, and a still mobject above
        a moving one is redrawn in every frame where their boxes meet (seqanim.kit.redraw). Mobjects that stay
        still while others move over them (a heatmap under a row box, formulas, the caption) belong at the
        back; they must not cover anything drawn later."""
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
