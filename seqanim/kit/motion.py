"""Changing numbers and labels without morphing glyphs.

A `Transform` from "0.7071" to "1.0000" bends every glyph into another and is unreadable while it plays.
Here a changed text rolls instead: the old one slides out upwards and fades while the new one rises into
its place, so at every frame each glyph on screen is a real glyph. Unchanged texts stay still, a text
whose colour alone changes is recoloured in place. (A value that changes continuously counts instead:
`seqanim.kit.readout.Readout` wraps a `DecimalNumber`; a number inside a table counts with `CountTexts`,
which re-sets only the few texts that change, in the table's own type.)

`paced` gives the run times of a repeated step that starts slowly, for the eye to follow, and then speeds
up (a softmax row by row: the first row at reading speed, the rest faster).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from manim import UP, Animation, AnimationGroup, FadeIn, FadeOut, ManimColor, Mobject, Transform, VGroup


def _string(mobject: Mobject) -> str | None:
    return getattr(mobject, "text", None) or getattr(mobject, "tex_string", None)


def _ink(mobject: Mobject) -> ManimColor:
    """The colour a text is drawn in: its glyphs' fill (a Text's own colour attribute can read black)."""
    glyphs = mobject.family_members_with_points()
    return glyphs[0].get_fill_color() if glyphs else mobject.get_color()


def _colour(mobject: Mobject) -> str | None:
    colour = _ink(mobject)
    return colour.to_hex() if colour is not None else None


def _same_colour(a: Mobject, b: Mobject) -> bool:
    return _colour(a) == _colour(b)


class RollTexts(AnimationGroup):
    """Roll each text of `group` whose string differs from its counterpart in `targets`; afterwards `group`
    holds the targets themselves (so later code, the layout check and font sizes see the new texts). A text
    whose string is unchanged is kept and only slides (or recolours) to where its counterpart sits."""

    def __init__(self, group: VGroup, targets: Sequence[Mobject], distance: float = 0.22, **kwargs) -> None:  # type: ignore[no-untyped-def]
        if len(group) != len(targets):
            raise ValueError(f"RollTexts: {len(group)} texts but {len(targets)} targets")
        self.texts = group
        self.swaps: list[tuple[int, Mobject]] = []
        animations = []
        for index, (old, new) in enumerate(zip(group, targets)):
            if _string(old) == _string(new):  # the same words: they stay, sliding to their new place if it moved
                moved = not np.allclose(old.get_center(), new.get_center(), atol=1e-3)
                recoloured = not _same_colour(old, new)
                if moved or recoloured:
                    target = old.animate.move_to(new.get_center())
                    animations.append(target.set_color(_ink(new)) if recoloured else target)
                continue
            shift = distance * UP
            animations.append(old.animate.shift(shift).set_opacity(0))
            animations.append(FadeIn(new, shift=shift))
            self.swaps.append((index, new))
        if not animations:  # nothing changes: an empty roll still takes its run_time
            animations.append(group.animate.shift(0 * UP))
        # group=: without it manim wraps the old texts in a new Group and adds that to the scene, which splits
        # the texts' parent apart and keeps every rolled-out text there, drawn on every later frame.
        super().__init__(*animations, group=group, **kwargs)

    def clean_up_from_scene(self, scene) -> None:  # type: ignore[no-untyped-def]
        super().clean_up_from_scene(scene)
        shown = [m for m in scene.mobjects if self.texts in m.get_family()]
        for index, new in self.swaps:
            self.texts.submobjects[index] = new
            if shown and new in scene.mobjects:  # FadeIn added it at the top level; it now lives inside `group`
                scene.mobjects.remove(new)


class _Roll(AnimationGroup):
    """`roll`: afterwards the faded-out text leaves the scene (if it stood there on its own)."""

    def __init__(self, old: Mobject, new: Mobject, distance: float, **kwargs) -> None:  # type: ignore[no-untyped-def]
        shift = distance * UP
        self.old = old
        # The new text starts rising once the old one is mostly gone: at once, two headings in one place read
        # as one smudge for a moment. The whole roll keeps its run time.
        kwargs.setdefault("run_time", 1.0)
        super().__init__(
            old.animate.shift(shift).set_opacity(0), FadeIn(new, shift=shift), group=old, lag_ratio=0.7, **kwargs
        )

    def clean_up_from_scene(self, scene) -> None:  # type: ignore[no-untyped-def]
        super().clean_up_from_scene(scene)
        if self.old in scene.mobjects:  # invisible now; drawing it on every later frame costs time
            scene.mobjects.remove(self.old)


def roll(old: Mobject, new: Mobject, distance: float = 0.22, **kwargs) -> AnimationGroup:  # type: ignore[no-untyped-def]
    """Roll one text (a caption, a "q = [1, 0]" label) into another; `old` is faded out (and taken off the
    scene if it stood there on its own): use `new` from now on."""
    return _Roll(old, new, distance, **kwargs)


class CountTexts(Animation):
    """Count each text of `group` from `starts[i]` to `ends[i]`: on every frame the text is re-set by
    `make(i, value)` at the value in between (only the texts that change, so a row of a matrix costs a few
    texts a frame), its colour turning to its target's halfway, or `colour_of(i)` on every frame (the colour
    legible on a cell filling underneath). A text from or to a non-finite value (-inf, NaN) has
    nothing to count through and rolls instead; an unchanged text stays. Afterwards `group` holds `targets`
    themselves, like `RollTexts`."""

    def __init__(  # type: ignore[no-untyped-def]
        self,
        group: VGroup,
        targets: Sequence[Mobject],
        starts: Sequence[float],
        ends: Sequence[float],
        make: Callable[[int, float], Mobject],
        distance: float = 0.22,
        colour_of: Callable[[int], ManimColor] | None = None,
        **kwargs,
    ) -> None:
        if not len(group) == len(targets) == len(starts) == len(ends):
            raise ValueError(
                f"CountTexts: {len(group)} texts, {len(targets)} targets, {len(starts)}/{len(ends)} values"
            )
        self.olds = list(group.submobjects)
        self.targets = list(targets)
        self.starts, self.ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
        self.make, self.distance, self.colour_of = make, distance, colour_of
        self.counting: list[int] = []
        self.rolling: list[int] = []
        for index, (old, new) in enumerate(zip(self.olds, self.targets)):
            if _string(old) == _string(new) and _same_colour(old, new):
                continue
            finite = np.isfinite(self.starts[index]) and np.isfinite(self.ends[index])
            (self.counting if finite else self.rolling).append(index)
        self.old_colours = {i: _ink(self.olds[i]) for i in self.counting}
        self.centres = {i: new.get_center().copy() for i, new in enumerate(self.targets)}
        self.old_centres = {i: old.get_center().copy() for i, old in enumerate(self.olds)}
        super().__init__(group, **kwargs)

    def interpolate_mobject(self, alpha: float) -> None:
        group = self.mobject
        for index in self.counting:
            # The scene lists what it draws when the play begins (after the first interpolation) and keeps
            # drawing those: at alpha 0 the old text itself stands, afterwards it is hidden, not only unhooked.
            if alpha <= 0.0:
                group.submobjects[index] = self.olds[index].set_fill(opacity=1)
                continue
            self.olds[index].set_fill(opacity=0)
            if alpha >= 1.0:
                group.submobjects[index] = self.targets[index]
                continue
            value = self.starts[index] + alpha * (self.ends[index] - self.starts[index])
            # A number over a cell that is filling takes the colour legible on that cell as it is now; else
            # the colour switches halfway (an in-between grey would be dark on dark, then light on light).
            if self.colour_of is not None:
                colour = self.colour_of(index)
            else:
                colour = self.old_colours[index] if alpha < 0.5 else _ink(self.targets[index])
            group.submobjects[index] = self.make(index, value).set_color(colour).move_to(self.centres[index])
        shift = self.distance * UP
        for index in self.rolling:
            old, new = self.olds[index], self.targets[index]
            old.move_to(self.old_centres[index] + alpha * shift).set_fill(opacity=1.0 - alpha)
            new.move_to(self.centres[index] - (1.0 - alpha) * shift).set_fill(opacity=alpha)
            group.submobjects[index] = new if alpha >= 1.0 else VGroup(old, new)

    def create_starting_mobject(self) -> Mobject:
        return Mobject()  # nothing interpolates from a copy: every frame is set from the values


def paced(count: int, first: float, last: float) -> list[float]:
    """Run times of `count` repetitions going from `first` to `last` seconds geometrically (slowly, then fast)."""
    if count <= 1:
        return [first] * count
    return [float(first * (last / first) ** (i / (count - 1))) for i in range(count)]


class Travel(AnimationGroup):
    """Copies of `source`'s glyphs fly onto the same glyphs of `target` (a token becoming a matrix label):
    each glyph keeps its shape and only moves and scales, so no glyph is morphed into another. Glyphs are
    matched in reading order by character ("k3=v1" onto "k3\\nv1": k, 3, v, 1 fly; "=" fades where it was);
    target glyphs without a source (none, usually) fade in. `target` is drawn once the copies have landed."""

    def __init__(self, source: Mobject, target: Mobject, **kwargs) -> None:  # type: ignore[no-untyped-def]
        source_chars = [c for c in _string(source) or "" if not c.isspace()]
        target_chars = [c for c in _string(target) or "" if not c.isspace()]
        if len(source_chars) != len(source.submobjects) or len(target_chars) != len(target.submobjects):
            raise ValueError(f"Travel: {_string(source)!r} or {_string(target)!r} is not one glyph per character")
        self.target = target.set_opacity(0)
        flights, next_source = [], 0
        self.moving = VGroup()  # the flying and fading copies: drawn while the animation plays, then removed
        self.arrivals = VGroup()  # target glyphs with no source glyph, faded in

        def fade(glyph: Mobject) -> None:
            leaving = glyph.copy()
            self.moving.add(leaving)
            flights.append(FadeOut(leaving))

        for glyph, char in zip(target.submobjects, target_chars):
            match = next((i for i in range(next_source, len(source_chars)) if source_chars[i] == char), None)
            landing = glyph.copy().set_opacity(1)
            if match is None:
                self.arrivals.add(landing)
                flights.append(FadeIn(landing))
                continue
            for skipped in source.submobjects[next_source:match]:  # glyphs the target does not have
                fade(skipped)
            flyer = source.submobjects[match].copy()
            self.moving.add(flyer)
            flights.append(Transform(flyer, landing))
            next_source = match + 1
        for skipped in source.submobjects[next_source:]:
            fade(skipped)
        super().__init__(*flights, group=self.moving, **kwargs)

    def clean_up_from_scene(self, scene) -> None:  # type: ignore[no-untyped-def]
        super().clean_up_from_scene(scene)
        for mobject in (self.moving, *self.moving, *self.arrivals):
            if mobject in scene.mobjects:
                scene.mobjects.remove(mobject)
        self.target.set_opacity(1)
