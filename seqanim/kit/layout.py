"""The layout check every scene passes at the end of every slide.

Six rules, each with a small tolerance: every visible mobject lies inside the frame, and every text
TEXT_MARGIN inside it; no two texts overlap or touch (TEXT_GAP between them where they face each other);
nothing opaque is drawn over a text's glyphs, and no line runs through them; and no text is smaller than a
readable size at 854x480: a digit of it at least MIN_GLYPH_PX tall.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from manim import (
    DL,
    UP,
    UR,
    DecimalNumber,
    ImageMobject,
    Integer,
    MarkupText,
    MathTex,
    Mobject,
    Paragraph,
    SingleStringMathTex,
    Tex,
    Text,
    ValueTracker,
    VMobject,
    config,
)
from manim.utils.family import extract_mobject_family_members

from seqanim.kit import theme
from seqanim.kit.theme import MIN_GLYPH_PX

TEXT_TYPES = (Text, MarkupText, Paragraph, MathTex, Tex, SingleStringMathTex, DecimalNumber, Integer)
FRAME_TOLERANCE = 0.05  # manim units; 0.05 is 3 px at 480p
OVERLAP_TOLERANCE = 0.02
# A text nearer the edge than 6 px at 480p looks cut off, and a player or projector that crops a little cuts it.
TEXT_MARGIN = 0.1
# Texts nearer each other than 3 px at 480p read as one ("2.0" under a panel's label, a caption on an axis title).
TEXT_GAP = 0.05
# A glyph is covered when a shape drawn after it, this opaque or more, hides this share of its box.
COVER_OPACITY = 0.5
COVER_SHARE = 0.25
# A line crosses a glyph where it enters the glyph's box without this share of its width and height on each side.
CROSS_EDGE = 0.2
STROKE_UNIT = 0.01  # frame units of a stroke width of 1, as manim's camera draws it
GLYPH_TOLERANCE_PX = 0.2
TARGET_HEIGHT_PX = 480  # the check holds for the smallest published video, 854x480


@dataclass(frozen=True)
class Violation:
    slide: int
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"slide {self.slide}: {self.rule}: {self.detail}"


def _visible(mobject: Mobject) -> bool:
    family = mobject.get_family()
    for member in family:
        if member.has_points() and (_opacity(member) > 0.01):
            return True
    return False


def _opacity(mobject: Mobject) -> float:
    if isinstance(mobject, ValueTracker) or not isinstance(mobject, VMobject):
        return 1.0 if isinstance(mobject, ImageMobject) else 0.0
    fill = float(mobject.get_fill_opacity())
    stroke = float(mobject.get_stroke_opacity()) if mobject.get_stroke_width() > 0 else 0.0
    return max(fill, stroke)


def _box(mobject: Mobject) -> tuple[np.ndarray, np.ndarray]:
    points = [m.points for m in mobject.get_family() if m.has_points() and _opacity(m) > 0.01]
    allpoints = np.concatenate(points)[:, :2] if points else np.zeros((1, 2))
    return allpoints.min(axis=0), allpoints.max(axis=0)


def _texts(mobjects: list[Mobject]) -> list[Mobject]:
    """Text-like mobjects, outermost first; a text's own glyphs are not texts of their own."""
    found: list[Mobject] = []

    def walk(mobject: Mobject) -> None:
        if getattr(mobject, "is_decoration", False):  # e.g. a matrix bracket set by LaTeX
            return
        if isinstance(mobject, TEXT_TYPES):
            if _visible(mobject):
                found.append(mobject)
            return
        for child in mobject.submobjects:
            walk(child)

    for mobject in mobjects:
        walk(mobject)
    unique = {id(text): text for text in found}  # a text reachable through two groups counts once
    return list(unique.values())


def _describe(mobject: Mobject) -> str:
    text = getattr(mobject, "text", None) or getattr(mobject, "tex_string", None)
    if text is None and isinstance(mobject, DecimalNumber):
        text = f"{mobject.get_value():g}"
    name = type(mobject).__name__
    return f"{name}({str(text)[:30]!r})" if text is not None else name


TEX_TYPES = (MathTex, Tex, SingleStringMathTex, DecimalNumber, Integer)


def visible_texts(mobjects: list[Mobject]) -> list[str]:
    """What the audience can read right now: the string of every visible text-like mobject."""
    result = []
    for text in _texts(mobjects):
        if isinstance(text, DecimalNumber):
            result.append(f"{text.get_value():.{text.num_decimal_places}f}")
        else:
            result.append(str(getattr(text, "text", None) or getattr(text, "tex_string", "")))
    return result


@lru_cache(maxsize=8)
def _digit_height_per_unit(tex: bool, font: str) -> float:
    """Frame units of height per font unit of a digit "0", measured on a reference mobject at size 100."""
    reference = MathTex("0", font_size=100) if tex else Text("0", font=font, font_size=100)
    return float(reference.height) / 100


def glyph_px(mobject: Mobject) -> float | None:
    """How tall a digit of this text stands at 854x480, in pixels: its font size (which follows every scale)
    times a digit's measured height per font unit, in frame units, times 480 / frame height."""
    size = getattr(mobject, "font_size", None)
    if size is None:
        return None
    per_unit = _digit_height_per_unit(isinstance(mobject, TEX_TYPES), theme.font())
    return float(size) * per_unit * TARGET_HEIGHT_PX / config.frame_height


def check(mobjects: list[Mobject], slide: int) -> list[Violation]:
    """Return the violations of the rules for the mobjects on screen now."""
    violations: list[Violation] = []
    half_w = config.frame_width / 2 + FRAME_TOLERANCE
    half_h = config.frame_height / 2 + FRAME_TOLERANCE
    for mobject in mobjects:
        if getattr(mobject, "is_background", False) or not _visible(mobject):
            continue
        low, high = _box(mobject)
        if low[0] < -half_w or high[0] > half_w or low[1] < -half_h or high[1] > half_h:
            violations.append(
                Violation(
                    slide,
                    "outside frame",
                    f"{_describe(mobject)} spans x {low[0]:.2f}..{high[0]:.2f}, y {low[1]:.2f}..{high[1]:.2f}",
                )
            )
    texts = _texts(mobjects)
    boxes = [_box(text) for text in texts]
    violations += _at_the_edge(texts, boxes, slide)
    for text in texts:
        height = glyph_px(text)
        if height is not None and height < MIN_GLYPH_PX - GLYPH_TOLERANCE_PX:
            violations.append(
                Violation(
                    slide,
                    "text too small",
                    f"{_describe(text)} stands {height:.1f} px tall at 854x480 < {MIN_GLYPH_PX:g} px",
                )
            )
    violations += _covered(mobjects, texts, slide)
    violations += _crossed(mobjects, texts, slide)
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if _boxes_overlap(boxes[i], boxes[j]):
                rule = "texts overlap"
            elif _boxes_touch(boxes[i], boxes[j]):
                rule = "texts touch"
            else:
                continue
            violations.append(Violation(slide, rule, f"{_describe(texts[i])} and {_describe(texts[j])}"))
    return violations


def _at_the_edge(texts: list[Mobject], boxes: list[tuple[np.ndarray, np.ndarray]], slide: int) -> list[Violation]:
    """Texts inside the frame (a text outside it is the frame rule's) but nearer its edge than TEXT_MARGIN."""
    half = np.array([config.frame_width / 2, config.frame_height / 2])
    found = []
    for text, (low, high) in zip(texts, boxes):
        room = min((low[:2] + half).min(), (half - high[:2]).min())
        if -FRAME_TOLERANCE <= room < TEXT_MARGIN:
            found.append(Violation(slide, "text at the edge", f"{_describe(text)} is {room:.2f} from the frame's edge"))
    return found


def overlaps(a: Mobject, b: Mobject) -> bool:
    """Whether what is visible of `a` and of `b` overlaps as `check` counts texts overlapping: a scene that
    places a label away from others asks this."""
    return _boxes_overlap(_box(a), _box(b))


def crosses(mobject: Mobject, start: np.ndarray, end: np.ndarray, margin: float = 0.08) -> bool:
    """Whether the line from `start` to `end` runs through `mobject`'s box, widened by `margin`."""
    low, high = mobject.get_corner(DL)[:2] - margin, mobject.get_corner(UR)[:2] + margin
    points = np.linspace(start[:2], end[:2], max(2, int(np.linalg.norm(end[:2] - start[:2]) / 0.02)))
    return bool(np.any(np.all((points >= low) & (points <= high), axis=1)))


def conflicts(
    mobject: Mobject,
    others: Iterable[Mobject] = (),
    lines: Iterable[tuple[np.ndarray, np.ndarray]] = (),
    gap: float = TEXT_GAP,
) -> int:
    """How many of `others` (those visible) come within `gap` of `mobject`, each counted twice, and how many of
    `lines` (start and end in the frame) run through it: 0 where it is clear of them all."""
    box, boxes = _box(mobject), [_box(other) for other in others if _visible(other)]
    near = sum(bool(np.all(np.minimum(box[1], b[1]) - np.maximum(box[0], b[0]) > -gap)) for b in boxes)
    return 2 * near + sum(crosses(mobject, *line) for line in lines)


def beside_clear(
    mobject: Mobject,
    anchor: Mobject | np.ndarray,
    sides: Sequence[np.ndarray],
    others: Iterable[Mobject] = (),
    lines: Iterable[tuple[np.ndarray, np.ndarray]] = (),
    *,
    buffs: Sequence[float] = (0.1,),
    gap: float = TEXT_GAP,
) -> bool:
    """`mobject` next to `anchor` on the first side (each buff in turn, nearest first) where it has no `conflicts`
    with `others` (`gap` apart) and `lines`: a label beside a point that parameters may set near others. Where
    every side has some, on the first with the fewest. Returns whether it found a clear side."""
    others, lines = list(others), list(lines)
    fewest = (np.inf, buffs[0], sides[0])
    for buff, side in itertools.product(buffs, sides):
        count = conflicts(mobject.next_to(anchor, side, buff=buff), others, lines, gap)
        if count == 0:
            return True
        if count < fewest[0]:
            fewest = (count, buff, side)
    mobject.next_to(anchor, fewest[2], buff=fewest[1])
    return False


def within_frame(mobject: Mobject, margin: float = 0.2) -> Mobject:
    """`mobject` moved the least distance that brings it `margin` inside the frame's edges (a label placed
    beside something near an edge, at values that widen the picture). Returns it, moved."""
    low, high = _box(mobject)
    half = np.array([config.frame_width / 2 - margin, config.frame_height / 2 - margin])
    shift = np.maximum(-half - low, 0.0) + np.minimum(half - high, 0.0)
    return mobject.shift([*shift, 0.0])


def apart_vertically(mobjects: list[Mobject], buff: float = 0.08) -> list[Mobject]:
    """`mobjects` (labels beside the ends of curves, say) moved up or down the least that leaves `buff` between
    each and the next, in the order of their heights: labels that would overlap are stacked around the middle
    of where they were, and a label with room stays where it is. Returns them, moved."""
    order = sorted(mobjects, key=lambda mobject: mobject.get_center()[1])
    heights = [mobject.height + buff for mobject in order]
    # Runs of labels stacked as one: each run centred on its members' mean; runs merged while they overlap.
    runs: list[list[int]] = []
    centres: list[float] = []
    for index, mobject in enumerate(order):
        runs.append([index])
        centres.append(mobject.get_center()[1])
        while len(runs) > 1:
            below, above = runs[-2], runs[-1]
            top = centres[-2] + sum(heights[i] for i in below) / 2
            bottom = centres[-1] - sum(heights[i] for i in above) / 2
            if bottom >= top:
                break
            merged = below + above  # none has moved yet: the mean of where they were
            runs[-2:], centres[-2:] = [merged], [float(np.mean([order[i].get_center()[1] for i in merged]))]
    for run, centre in zip(runs, centres):
        y = centre - sum(heights[i] for i in run) / 2
        for i in run:
            order[i].set_y(y + heights[i] / 2)
            y += heights[i]
    return mobjects


def clear_below(mobjects: list[Mobject], obstacle: Mobject, buff: float = 0.08) -> list[Mobject]:
    """`mobjects`, apart already (`apart_vertically`): the highest that overlaps `obstacle` and all below it
    moved down the least that leaves `buff` under `obstacle` and between each and the next, in their order;
    those above stay. Returns them, moved."""
    ceiling, pushing = obstacle.get_bottom()[1] - buff, False
    for mobject in sorted(mobjects, key=lambda m: -m.get_center()[1]):
        pushing = pushing or overlaps(mobject, obstacle)
        if pushing:
            mobject.shift(min(0.0, ceiling - mobject.get_top()[1]) * UP)
            ceiling = mobject.get_bottom()[1] - buff
    return mobjects


def _boxes_touch(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    """Side by side or one over the other, with less than TEXT_GAP between (or overlapping within tolerance)."""
    overlap = np.minimum(a[1], b[1]) - np.maximum(a[0], b[0])  # < 0: a gap
    return bool(overlap.max() > 0 and overlap.min() > -TEXT_GAP)


def _boxes_overlap(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    overlap = np.minimum(a[1], b[1]) - np.maximum(a[0], b[0])
    return bool(overlap[0] > OVERLAP_TOLERANCE and overlap[1] > OVERLAP_TOLERANCE)


def _covered(mobjects: list[Mobject], texts: list[Mobject], slide: int) -> list[Violation]:
    """One violation per text that a shape drawn after it hides in part: a bar over a formula's letter, a
    box over a label. Boxes are compared (a shape's box is its extent), glyph by glyph, in manim's drawing
    order (the camera's: families in order, then by z_index)."""
    order = extract_mobject_family_members(mobjects, use_z_index=True, only_those_with_points=True)  # as Camera
    position = {id(member): index for index, member in enumerate(order)}
    owner: dict[int, Mobject] = {}
    for text in texts:
        for member in text.get_family():
            owner[id(member)] = text
    top_level = {id(member): mobject for mobject in mobjects for member in mobject.get_family()}
    covers = [
        member
        for member in order
        if id(member) not in owner
        and not getattr(top_level.get(id(member)), "is_background", False)
        and isinstance(member, VMobject)
        and float(member.get_fill_opacity()) >= COVER_OPACITY
    ]
    glyphs = [member for member in order if id(member) in owner and _opacity(member) > 0.01]
    if not covers or not glyphs:
        return []
    cover_boxes = np.array([np.concatenate(_leaf_box(member)) for member in covers])  # (M, 4): x0 y0 x1 y1
    cover_at = np.array([position[id(member)] for member in covers])
    found: dict[int, Violation] = {}
    for glyph in glyphs:
        low, high = _leaf_box(glyph)
        area = float(np.prod(np.maximum(high - low, 1e-6)))
        width = np.minimum(high[0], cover_boxes[:, 2]) - np.maximum(low[0], cover_boxes[:, 0])
        height = np.minimum(high[1], cover_boxes[:, 3]) - np.maximum(low[1], cover_boxes[:, 1])
        hidden = np.clip(width, 0, None) * np.clip(height, 0, None) / area
        over = np.flatnonzero((hidden > COVER_SHARE) & (cover_at > position[id(glyph)]))
        text = owner[id(glyph)]
        if over.size and id(text) not in found:
            cover = top_level.get(id(covers[over[0]]), covers[over[0]])
            found[id(text)] = Violation(slide, "text covered", f"{_describe(cover)} is drawn over {_describe(text)}")
    return list(found.values())


def _crossed(mobjects: list[Mobject], texts: list[Mobject], slide: int) -> list[Violation]:
    """One violation per text that a line runs through, drawn over it or under it (its letters do not hide it):
    an axis, an arrow's shaft, a curve or a marker line across a label. A line crosses a glyph where its path
    enters the middle of the glyph's box (its outer CROSS_EDGE on each side left out, so that a line that grazes a
    letter or ends beside it does not count). Faint lines (a grid) and filled shapes (the cover rule's) are left
    out."""
    members = extract_mobject_family_members(mobjects, only_those_with_points=True)
    owner = {id(member): text for text in texts for member in text.get_family()}
    top_level = {id(member): mobject for mobject in mobjects for member in mobject.get_family()}
    glyphs = [member for member in members if id(member) in owner and _opacity(member) > 0.01]
    if not glyphs:
        return []
    inner = np.array([np.concatenate(_inner_box(glyph)) for glyph in glyphs])  # (G, 4): x0 y0 x1 y1
    found: dict[int, Violation] = {}
    for member in members:
        if (
            id(member) in owner
            or not isinstance(member, VMobject)
            or getattr(top_level.get(id(member)), "is_background", False)
            or member.get_stroke_width() <= 0
            or float(member.get_stroke_opacity()) < COVER_OPACITY
            or float(member.get_fill_opacity()) >= COVER_OPACITY  # a filled shape: its outline is its edge
        ):
            continue
        half = member.get_stroke_width() * STROKE_UNIT / 2  # the line's half width: it paints that far either side
        low, high = _leaf_box(member)  # the curves' control points: their box holds the path
        low, high = low - half, high + half
        near = np.flatnonzero(
            (inner[:, 0] < high[0]) & (inner[:, 2] > low[0]) & (inner[:, 1] < high[1]) & (inner[:, 3] > low[1])
        )
        paths = _paths(member) if near.size else []
        path = np.concatenate(paths) if paths else np.zeros((0, 2))
        for index in near:
            x0, y0, x1, y1 = inner[index] + [-half, -half, half, half]
            inside = (path[:, 0] > x0) & (path[:, 0] < x1) & (path[:, 1] > y0) & (path[:, 1] < y1)
            text = owner[id(glyphs[index])]
            if inside.any() and id(text) not in found:
                group = top_level.get(id(member), member)
                line = _describe(member) + (f" of a {_describe(group)}" if group is not member else "")
                found[id(text)] = Violation(slide, "line through text", f"{line} runs through {_describe(text)}")
    return list(found.values())


def _inner_box(glyph: Mobject) -> tuple[np.ndarray, np.ndarray]:
    low, high = _leaf_box(glyph)
    edge = CROSS_EDGE * (high - low)
    return low + edge, high - edge


def segments(stroke: VMobject, step: float = 0.05) -> list[tuple[np.ndarray, np.ndarray]]:
    """A stroke's path (a ring, a curve) as straight pieces at most `step` long: lines a label keeps off
    (`conflicts`, `beside_clear`)."""
    return [(a, b) for points in _paths(stroke, step) for a, b in zip(points, points[1:])]


def _paths(stroke: VMobject, step: float = 0.01) -> list[np.ndarray]:
    """Points along each of a stroke's subpaths, at most `step` apart (its Bézier curves sampled, each piece
    evened out); a curve with a point at infinity (a log plot of 0) is left out."""
    t = np.linspace(0.0, 1.0, 9)[:, None]
    weights = np.concatenate([(1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3], axis=1)  # (9, 4)
    paths = []
    for subpath in stroke.get_subpaths():
        curves = np.asarray(subpath)[: len(subpath) // 4 * 4, :2].reshape(-1, 4, 2)
        curves = curves[np.isfinite(curves).all(axis=(1, 2))]
        if not len(curves):
            continue
        samples = np.einsum("tk,ckd->ctd", weights, curves).reshape(-1, 2)
        pieces = samples[1:] - samples[:-1]
        counts = np.maximum(1, np.ceil(np.linalg.norm(pieces, axis=1) / step)).astype(int)
        piece = np.repeat(np.arange(len(pieces)), counts)
        along = (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + 1) / counts[piece]
        paths.append(np.concatenate([samples[:1], samples[piece] + along[:, None] * pieces[piece]]))
    return paths


def _leaf_box(mobject: Mobject) -> tuple[np.ndarray, np.ndarray]:
    points = mobject.points[:, :2]
    return points.min(axis=0), points.max(axis=0)
