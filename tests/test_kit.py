"""The kit: the layout check catches what it must, and kit mobjects draw what their data says (frame checks)."""

from __future__ import annotations

import numpy as np
import pytest
from manim import (
    DOWN,
    DR,
    LEFT,
    RIGHT,
    UL,
    UP,
    DecimalNumber,
    MathTex,
    Mobject,
    Rectangle,
    Scene,
    Square,
    Text,
    VGroup,
    config,
    tempconfig,
)

from seqanim.kit import layout, theme
from seqanim.kit.bars import Bars
from seqanim.kit.heatmap import Heatmap, colour_for


def test_clean_layout_passes() -> None:
    title = Text("title", font_size=40).to_edge(UP)
    body = Text("body text", font_size=28)
    assert layout.check([title, body, Square()], slide=1) == []


def test_outside_frame_is_caught() -> None:
    square = Square(side_length=1).move_to(config.frame_width / 2 * RIGHT)
    found = layout.check([square], slide=2)
    assert [v.rule for v in found] == ["outside frame"] and found[0].slide == 2


def test_texts_that_overlap_or_touch_are_caught_and_texts_a_space_apart_are_not() -> None:
    left = Text("left", font_size=28)
    overlapping = Text("right", font_size=28).move_to(left.get_center() + 0.2 * RIGHT)
    assert [v.rule for v in layout.check([left, overlapping], 1)] == ["texts overlap"]
    # 0.02 apart (1 px at 480p) read as one word; so does a label sitting on the number under it
    touching = Text("right", font_size=28).next_to(left, RIGHT, buff=0.02)
    assert [v.rule for v in layout.check([left, touching], 1)] == ["texts touch"]
    on_top = Text("2.0", font_size=28).next_to(left, DOWN, buff=0.01)
    assert [v.rule for v in layout.check([left, on_top], 1)] == ["texts touch"]
    apart = Text("right", font_size=28).next_to(left, RIGHT, buff=0.1)
    below = Text("2.0", font_size=28).next_to(left, DOWN, buff=0.1)
    diagonal = Text("x", font_size=28).next_to(left, DR, buff=0.01)  # corner to corner: they do not face
    for other in (apart, below, diagonal):
        assert layout.check([left, other], 1) == []


def test_a_text_near_the_frame_edge_is_caught_and_one_a_margin_inside_is_not() -> None:
    at_the_edge = Text("pos 0", font_size=28).to_edge(LEFT, buff=0.05)
    assert [v.rule for v in layout.check([at_the_edge], 1)] == ["text at the edge"]
    assert layout.check([Text("pos 0", font_size=28).to_edge(DOWN, buff=0.15)], 1) == []
    outside = Text("pos 0", font_size=28).to_edge(LEFT, buff=-0.3)  # the frame rule's, said once
    assert [v.rule for v in layout.check([outside], 1)] == ["outside frame"]
    assert layout.check([Square(side_length=1).to_edge(LEFT, buff=0.0)], 1) == []  # a shape may meet the edge


def test_small_text_is_caught_with_tex_measured_as_it_reads() -> None:
    assert [v.rule for v in layout.check([Text("tiny", font_size=12)], 1)] == ["text too small"]
    # The old minimum, 16, gave digits 10 px tall at 480p: now too small.
    assert [v.rule for v in layout.check([Text("0.40", font_size=16)], 1)] == ["text too small"]
    # A LaTeX number at 18 reads smaller than Pango text at 18 (under 8 px tall at 480p): too small.
    small_tex = DecimalNumber(0.4011, font_size=18)
    assert [v.rule for v in layout.check([small_tex], 1)] == ["text too small"]
    assert layout.check([DecimalNumber(0.4011, font_size=theme.tex_size(theme.SMALL_SIZE))], 1) == []
    assert layout.check([Text("0.40", font_size=theme.SMALL_SIZE)], 1) == []
    # A text shrunk after it was made counts at the size it now has.
    shrunk = Text("0.40", font_size=theme.SMALL_SIZE).scale(0.8)
    assert [v.rule for v in layout.check([shrunk], 1)] == ["text too small"]


def dark_rows(frame: np.ndarray) -> int:
    """Rows of the frame where any pixel differs from the background (the ink of one glyph)."""
    background = np.array(theme.background().to_rgb()) * 255
    ink = np.abs(frame - background).max(axis=2) > 60
    return int(ink.any(axis=1).sum())


@pytest.mark.parametrize("tex", [False, True])
def test_glyph_height_is_the_height_of_a_digit_on_the_rendered_frame(tex: bool) -> None:
    """glyph_px computes what the frame shows: a digit at the smallest size, rendered at 854x480."""
    size = theme.tex_size(theme.SMALL_SIZE) if tex else theme.SMALL_SIZE
    digit = MathTex("0", font_size=size) if tex else Text("0", font_size=size, font=theme.font())
    measured = dark_rows(render_frame(digit))
    assert layout.glyph_px(digit) == pytest.approx(measured, abs=1.5)
    assert measured >= theme.MIN_GLYPH_PX


def test_tex_scale_matches_glyph_heights() -> None:
    """TEX_SCALE is measured, not assumed: a digit in Tex at tex_size(s) is as tall as in Text at s."""
    tex = MathTex("0", font_size=theme.tex_size(28))
    text = Text("0", font_size=28)
    assert tex.height == pytest.approx(text.height, rel=0.1)


def test_text_nested_in_groups_is_found_once() -> None:
    label = Text("A", font_size=28)
    group = VGroup(VGroup(label), Square())
    overlapping = Text("B", font_size=28).move_to(label)
    assert len(layout.check([group, group, overlapping], 1)) == 1


def test_invisible_mobjects_are_ignored() -> None:
    hidden = Text("hidden", font_size=8).set_opacity(0).shift(20 * LEFT)
    assert layout.check([hidden], 1) == []


# --- frame checks: render a frame and read pixels back ------------------------------------------------------


def render_frame(*mobjects: object) -> np.ndarray:
    with tempconfig(
        {
            "quality": "low_quality",
            "write_to_movie": False,
            "disable_caching": True,
            "background_color": theme.background(),
            "verbosity": "ERROR",
        }
    ):
        scene = Scene()
        scene.add(*mobjects)
        scene.renderer.update_frame(scene)
        return np.array(scene.renderer.get_frame())[:, :, :3].astype(float)


def pixel_index(frame: np.ndarray, point: np.ndarray) -> tuple[int, int]:
    """The (column, row) of the pixel at `point`."""
    height, width = frame.shape[:2]
    column = int(round((point[0] / config.frame_width + 0.5) * (width - 1)))
    row = int(round((0.5 - point[1] / config.frame_height) * (height - 1)))
    return column, row


def pixel_at(frame: np.ndarray, point: np.ndarray) -> np.ndarray:
    column, row = pixel_index(frame, point)
    return frame[row, column]


def test_heatmap_cells_show_their_values() -> None:
    values = np.array([[0.0, 0.25], [0.75, 1.0]])
    heatmap = Heatmap(values, row_labels=["q0", "q1"], col_labels=["k0", "k1"], vmin=0, vmax=1, cell_size=1.0)
    frame = render_frame(heatmap)
    for row in range(2):
        for col in range(2):
            expected = np.array(colour_for(values[row, col], 0, 1, heatmap.colormap).to_rgb()) * 255
            assert np.abs(pixel_at(frame, heatmap.cell(row, col).get_center()) - expected).max() < 6


def test_heatmap_labels_each_group_once_where_rows_are_too_small_to_label() -> None:
    """Six tokens in two groups of three; a label is 0.25 units tall (23 px text)."""
    values = np.arange(36.0).reshape(6, 6)
    names = [f"t{i}" for i in range(6)]
    groups = [("first", [0, 1, 2]), ("second", [3, 4, 5])]
    roomy = Heatmap(values, row_labels=names, col_labels=names, row_groups=groups, col_groups=groups, cell_size=0.5)
    assert [label.original_text for label in roomy.row_labels] == names
    assert roomy.row_spans == [[0], [1], [2], [3], [4], [5]]
    packed = Heatmap(values, row_labels=names, col_labels=names, row_groups=groups, col_groups=groups, cell_size=0.2)
    assert [label.original_text for label in packed.row_labels] == ["first", "second"]
    assert packed.row_spans == packed.col_spans == [[0, 1, 2], [3, 4, 5]]
    # Each group's label beside the middle of its three rows (row 1's centre), under the middle of its columns.
    assert packed.row_labels[1].get_y() == pytest.approx(packed.cell(4, 0).get_y())
    assert packed.row_labels[1].get_right()[0] < packed.cells.get_left()[0]
    assert packed.col_labels[0].get_x() == pytest.approx(packed.cell(5, 1).get_x())
    assert packed.col_labels[0].get_top()[1] < packed.cells.get_bottom()[1]
    # The titles sit outside the group labels, and the peak is named by its group.
    assert packed.row_title.get_right()[0] < min(label.get_left()[0] for label in packed.row_labels)
    assert packed.col_title.get_top()[1] < min(label.get_bottom()[1] for label in packed.col_labels)
    assert "at query second, key second" in packed.describe()


def test_masked_cells_are_drawn_empty() -> None:
    values = np.array([[0.5, -np.inf]])
    heatmap = Heatmap(values, vmin=0, vmax=1, cell_size=1.0, colourbar=False)
    frame = render_frame(heatmap)
    background = np.array(theme.background().to_rgb()) * 255
    assert np.abs(pixel_at(frame, heatmap.cell(0, 1).get_center()) - background).max() < 6


def test_dense_heatmap_draws_what_the_cell_by_cell_one_draws() -> None:
    """The dense drawing (one shape per colour level) against one square per cell: the same colour at every
    cell centre and the same geometry, also after the heatmap is moved and scaled; a masked cell stays empty."""
    values = np.sin(np.arange(24 * 30).reshape(24, 30) / 7.0)
    values[3, 4] = -np.inf
    pair = [
        Heatmap(values, cell_size=0.12, vmin=-1, vmax=1, cell_stroke=0.0, dense=dense).scale(1.3).shift(0.7 * LEFT)
        for dense in (False, True)
    ]
    frames = [render_frame(heatmap) for heatmap in pair]
    rows, cols = values.shape
    centres = [pair[0].cell(row, col).get_center() for row in range(rows) for col in range(cols)]
    difference = np.array([np.abs(pixel_at(frames[0], point) - pixel_at(frames[1], point)).max() for point in centres])
    assert difference.max() <= 4  # 256 colour levels: at most about one step apart (edges differ only in anti-aliasing)
    assert len(pair[1].cells) < values.size / 2
    for row, col in ((0, 0), (11, 17), (23, 29)):
        assert np.allclose(pair[1].cell(row, col).get_center(), pair[0].cell(row, col).get_center())
    background = np.array(theme.background().to_rgb()) * 255
    assert np.abs(pixel_at(frames[1], pair[1].cell(3, 4).get_center()) - background).max() < 6
    with pytest.raises(ValueError, match="dense"):
        pair[1].animate_values(values)


def test_dense_heatmap_shows_no_seams_between_its_cells() -> None:
    """A checkerboard of two neighbouring colour levels, drawn dense: inside the matrix every pixel is a cell's
    colour. Where two runs meet, their edges' anti-aliasing once let the dark background through: a grid of
    darker lines over the whole matrix."""
    values = np.indices((40, 40)).sum(axis=0) % 2 * 0.01 + 0.5
    # Cells 4.2 px wide at 480p, as the Gram matrix's at 60 positions: the seams were up to 19 levels darker.
    heatmap = Heatmap(values, cell_size=0.07, vmin=0, vmax=1, cell_stroke=0.0, dense=True, colourbar=False)
    frame = render_frame(heatmap.cells)
    expected = np.array(colour_for(0.5, 0, 1, heatmap.colormap).to_rgb()) * 255
    (left, top), (right, bottom) = (pixel_index(frame, heatmap.cells.get_corner(corner)) for corner in (UL, DR))
    inside = frame[top + 2 : bottom - 1, left + 2 : right - 1]
    assert inside.size and np.abs(inside - expected).max() <= 6


def test_bars_scale_with_values_and_readouts_follow() -> None:
    bars = Bars([0.4011, 0.1978, 0.4011], ["A", "B", "C"], max_value=1.0, height=3.0)
    heights = [bar.height for bar in bars.bars]
    assert heights[0] == pytest.approx(3 * 0.4011, rel=1e-3) and heights[1] == pytest.approx(3 * 0.1978, rel=1e-3)
    bars.set_values([0.9, 0.05, 0.05])
    bars.readouts.update()
    assert bars.bars[0].height == pytest.approx(2.7, rel=1e-3)
    assert bars.readouts[0].get_value() == pytest.approx(0.9)
    assert bars.readouts[0].get_bottom()[1] > bars.bars[0].get_top()[1]
    frame = render_frame(bars)
    top_colour = pixel_at(frame, bars.bars[0].get_top() + 0.05 * DOWN)
    assert (
        np.abs(
            top_colour
            - np.array(theme.item_colour(0).to_rgb()) * 255 * 0.9
            - np.array(theme.background().to_rgb()) * 255 * 0.1
        ).max()
        < 12
    )


def test_data_mobjects_describe_what_they_show() -> None:
    from seqanim.kit.bars import Bars
    from seqanim.kit.describe import alt_text, readable_tex
    from seqanim.kit.matrix import MatrixTable

    values = np.array([[0.1, 0.7], [0.93, -np.inf]])
    heatmap = Heatmap(values, row_labels=["out 0", "out 1"], col_labels=["in 0", "in 1"], row_title="output",
                      col_title="input", colourbar=False)  # fmt: skip
    assert heatmap.describe() == (
        "heatmap, 2×2 (output rows × input columns), peak 0.93 at output out 1, input in 0; values from 0.10 to 0.93"
    )
    bars = Bars([0.25, 0.5], ["A", "B"])
    assert bars.describe() == "bar chart of 2 values: A 0.25, B 0.50; tallest B (0.50)"
    matrix = MatrixTable(values, row_title="query", col_title="key")
    assert matrix.describe() == "matrix, 2×2 (query × key), entries from 0.10 to 0.93, 1 masked (-inf)"
    # A slide's alt text: each described mobject once (its own labels are not read again), then other text.
    title = Text("Attention", font_size=30)
    alt = alt_text([title, VGroup(heatmap), bars])
    assert (
        alt.startswith("Heatmap, 2×2") and "bar chart of 2 values" in alt and alt.endswith("Text on screen: Attention")
    )
    assert "out 1;" not in alt
    assert readable_tex(r"A = \operatorname{softmax}\left(\frac{Q K^\top}{\sqrt{d_k}}\right)") == (
        "A = softmax ((Q Kᵀ)/(sqrt(d_k)) )"
    )


def test_roll_texts_replaces_changed_numbers_and_keeps_unchanged_ones() -> None:
    """A changed number rolls (no glyph is morphed); afterwards the group holds the new texts themselves."""
    from seqanim.kit.motion import RollTexts

    old = VGroup(*[Text(s, font_size=theme.SMALL_SIZE) for s in ("0.7071", "1.0000")]).arrange(RIGHT, buff=0.5)
    kept = old[1]
    new = VGroup(*[Text(s, font_size=theme.SMALL_SIZE).move_to(o) for s, o in zip(("0.3302", "1.0000"), old)])
    scene = Scene()
    scene.add(old)
    roll = RollTexts(old, new, run_time=0.2)
    assert len(roll.swaps) == 1 and roll.swaps[0][0] == 0  # only the changed entry rolls
    with tempconfig({"write_to_movie": False, "disable_caching": True, "verbosity": "ERROR", "dry_run": True}):
        scene.play(roll)
    assert [t.text for t in old] == ["0.3302", "1.0000"]
    assert old[1] is kept and old[0] is new[0]  # the new Text object, at its font size, not a morphed old one
    # On screen: the new number once, the old one gone (faded out), the unchanged one still there.
    assert sorted(layout.visible_texts(scene.mobjects)) == ["0.3302", "1.0000"]


def test_count_texts_counts_finite_numbers_and_rolls_infinities() -> None:
    """A softmax row counts (each frame one text per number, at the value in between); -inf rolls to 0; what the
    scene draws mid-play is one number per cell, never the old one under the new (the frames are listed once)."""
    from manim import Mobject

    from seqanim.kit.matrix import MatrixTable, number_format
    from seqanim.kit.motion import paced

    table = MatrixTable(np.array([[0.5, -np.inf], [0.25, 0.75]]), fmt=number_format(4, exact_zero=True))
    unchanged = table.entry(1, 0)
    count = table.count_entries(np.array([[1.0, 0.0], [0.25, 0.75]]), rows=[0], run_time=0.4)
    assert count.counting == [0] and count.rolling == [1]
    seen: list[list[str]] = []
    scene = Scene()
    probe = Mobject()
    scene.add(table)
    with tempconfig({"write_to_movie": False, "disable_caching": True, "verbosity": "ERROR", "dry_run": True}):
        scene.add(probe)
        probe.add_updater(lambda _: seen.append(sorted(layout.visible_texts(list(scene.moving_mobjects)))))
        scene.play(count)
    middle = [texts for texts in seen if any(t not in ("0.5000", "1.0000") and t[0].isdigit() for t in texts)]
    assert middle, "no frame showed a number between 0.5 and 1"
    for texts in seen:  # never two numbers in the first cell at once
        assert sum(1 for t in texts if t.startswith(("0.5", "0.6", "0.7", "0.8", "0.9", "1.0"))) <= 2  # + 0.7500
    assert [t.text for t in table.entries] == ["1.0000", "0", "0.2500", "0.7500"]
    assert table.entry(1, 0) is unchanged
    assert sorted(layout.visible_texts([table])) == ["0", "0.2500", "0.7500", "1.0000"]
    times = paced(3, 1.8, 0.6)
    assert times[0] == pytest.approx(1.8) and times[-1] == pytest.approx(0.6) and times[0] > times[1] > times[2]


def test_counting_numbers_keep_their_colour_until_halfway() -> None:
    """A counting number is drawn in its old colour, then in its target's (never black: a Text's own colour
    attribute can read black while its glyphs are light)."""
    from seqanim.kit.matrix import MatrixTable

    table = MatrixTable(np.array([[8.0222, 5.9889]]))
    count = table.count_entries(np.array([[27.7998, 23.7887]]), {(0, 0): theme.highlight(), (0, 1): theme.highlight()})
    count.begin()
    count.interpolate(0.3)
    glyph = table.entry(0, 0).family_members_with_points()[0]
    assert glyph.get_fill_color().to_hex() == theme.foreground().to_hex()
    count.interpolate(0.7)
    glyph = table.entry(0, 0).family_members_with_points()[0]
    assert glyph.get_fill_color().to_hex() == theme.highlight().to_hex()


def test_legible_counting_numbers_follow_the_cell_under_them() -> None:
    """Over a cell filling in the same play, a counting number takes the text colour legible on the cell as it
    is on that frame: light while the cell is still empty, dark once a bright fill shows under it."""
    from seqanim.kit.matrix import MatrixTable

    table = MatrixTable(np.array([[0.7071]]))
    count = table.count_entries(np.array([[1.0]]), legible=True)
    count.begin()
    table.cells[0].set_fill(theme.heatmap_colormap()[-1], opacity=0.0)
    count.interpolate(0.3)
    assert table.entry(0, 0).family_members_with_points()[0].get_fill_color().to_hex() == theme.foreground().to_hex()
    table.cells[0].set_fill(theme.heatmap_colormap()[-1], opacity=0.85)  # the bright end of the ramp
    count.interpolate(0.6)
    assert table.entry(0, 0).family_members_with_points()[0].get_fill_color().to_hex() == theme.background().to_hex()


def _play(scene: Scene, *animations: object) -> None:
    with tempconfig({"write_to_movie": False, "disable_caching": True, "verbosity": "ERROR", "dry_run": True}):
        scene.play(*animations)


def test_roll_texts_leaves_no_rolled_out_text_on_the_scene() -> None:
    """manim adds an AnimationGroup's own Group to the scene; RollTexts must not, or every rolled-out text
    would stay in the scene (drawn on every later frame) and the texts' parent would be split apart."""
    from seqanim.kit.motion import RollTexts, roll

    strip = VGroup(Square(), VGroup(*[Text(s, font_size=theme.SMALL_SIZE) for s in ("0.1", "0.2")]))
    caption = Text("before", font_size=theme.SMALL_SIZE).shift(2 * DOWN)
    scene = Scene()
    scene.add(strip, caption)
    old_numbers, numbers = list(strip[1]), strip[1]
    new_caption = Text("after", font_size=theme.SMALL_SIZE).shift(2 * DOWN)
    targets = [Text(s, font_size=theme.SMALL_SIZE).move_to(o) for s, o in zip(("0.3", "0.4"), numbers)]
    _play(scene, RollTexts(numbers, targets, run_time=0.2), roll(caption, new_caption, run_time=0.2))
    family = scene.get_mobject_family_members()
    assert scene.mobjects == [strip, new_caption]  # the strip whole, the new caption; no leaked Group, no old one
    assert not any(text in family for text in [*old_numbers, caption])
    assert [t.text for t in strip[1]] == ["0.3", "0.4"]


def test_travel_flies_each_glyph_onto_the_same_glyph_of_its_label() -> None:
    from seqanim.kit.motion import Travel

    token = Text("k3=v1", font_size=theme.SMALL_SIZE).shift(3 * LEFT)
    label = Text("k3\nv1", font_size=theme.SMALL_SIZE).shift(2 * RIGHT + DOWN)
    matrix = VGroup(Square(), label)
    scene = Scene()
    scene.add(token, matrix)
    travel = Travel(token, label, run_time=0.2)
    kinds = sorted(type(animation).__name__ for animation in travel.animations)
    assert kinds == ["FadeOut", "Transform", "Transform", "Transform", "Transform"]  # k, 3, v, 1 fly; "=" fades
    assert label.get_fill_opacity() == 0  # hidden until the glyphs land
    _play(scene, travel)
    assert scene.mobjects == [token, matrix]  # the flying copies are gone
    assert label.get_fill_opacity() == 1
    flyers = [animation.mobject for animation in travel.animations if type(animation).__name__ == "Transform"]
    source_glyphs = [token.submobjects[i] for i in (0, 1, 3, 4)]  # k 3 v 1 of "k3=v1"
    for flyer, glyph, source in zip(flyers, label.submobjects, source_glyphs):
        assert np.allclose(flyer.get_center(), glyph.get_center(), atol=1e-6)  # landed on its own glyph
        assert len(source.points) == len(glyph.points)  # the same glyph: moved, not morphed into another
    with pytest.raises(ValueError, match="one glyph per character"):
        Travel(token, VGroup(Square()))  # a shape, not a text


def test_cached_text_hands_out_independent_copies_without_svg_paths() -> None:
    from manim import RED
    from manim.mobject.svg.svg_mobject import VMobjectFromSVGPath

    first, second = theme.text("0.4242"), theme.text("0.4242")
    fresh = Text("0.4242", font=theme.font(), font_size=theme.LABEL_SIZE, color=theme.foreground())
    assert first is not second
    assert np.allclose(first.get_all_points(), fresh.get_all_points())
    first.set_color(RED).shift(UP)
    assert np.allclose(second.get_all_points(), fresh.get_all_points())
    assert second.get_color().to_hex() == fresh.get_color().to_hex()
    assert all(glyph.path_obj is None for glyph in second.get_family() if isinstance(glyph, VMobjectFromSVGPath))


def test_heatmap_with_tall_cells_draws_dense_as_cell_by_cell() -> None:
    """cell_height: cells cell_size wide and cell_height tall, in both drawings, at the same places."""
    values = np.cos(np.arange(12 * 20).reshape(12, 20) / 5.0)
    pair = [Heatmap(values, cell_size=0.3, cell_height=0.1, vmin=-1, vmax=1, cell_stroke=0, dense=d) for d in (0, 1)]
    assert np.isclose(pair[0].cells.height, 1.2) and np.isclose(pair[0].cells.width, 6.0)
    assert np.isclose(pair[1].cells.height, 1.2, atol=0.01) and np.isclose(pair[1].cells.width, 6.0, atol=0.02)
    frames = [render_frame(heatmap) for heatmap in pair]
    for row, col in ((0, 0), (5, 11), (11, 19)):
        centre = pair[0].cell(row, col).get_center()
        assert np.allclose(pair[1].cell(row, col).get_center(), centre, atol=1e-6)
        assert np.abs(pixel_at(frames[0], centre) - pixel_at(frames[1], centre)).max() <= 4


def test_angle_arc_keeps_its_size_while_both_phasors_turn() -> None:
    from seqanim.kit.rotation import PhasorCircle

    wheel = PhasorCircle(radius=1.0)
    turn = {"by": 0.0}
    arc = wheel.angle_arc(lambda: 0.3 + turn["by"], lambda: 1.1 + turn["by"], theme.highlight(), fraction=0.5)

    def angles() -> tuple[float, float]:
        start, end = arc.get_start() - wheel.centre, arc.get_end() - wheel.centre
        return float(np.arctan2(start[1], start[0])), float(np.arctan2(end[1], end[0]))

    assert np.allclose(angles(), (0.3, 1.1))
    for by in (0.7, 2.0, -1.3):
        turn["by"] = by
        arc.update()
        start, end = angles()
        assert np.isclose((end - start) % (2 * np.pi), 0.8)  # the angle between them holds
        assert np.isclose(np.angle(np.exp(1j * (start - 0.3 - by))), 0.0, atol=1e-9)  # and turns with them


def test_an_opaque_shape_drawn_over_a_text_is_caught_but_one_drawn_under_it_is_not() -> None:
    label = Text("s = 0.71", font_size=theme.BODY_SIZE)
    bar = Rectangle(width=0.4, height=2.0, fill_opacity=1.0).move_to(label.get_left())  # over its first glyph
    assert [v.rule for v in layout.check([label, bar], 1)] == ["text covered"]
    assert layout.check([bar, label], 1) == []  # drawn first: the text lies on top
    outline = Rectangle(width=0.4, height=2.0, fill_opacity=0.0).move_to(label.get_left())
    assert layout.check([label, outline], 1) == []  # a frame around a glyph hides nothing
    bar.set_z_index(-1)  # manim draws by z_index first: the bar goes under
    assert layout.check([label, bar], 1) == []


def test_a_line_through_a_text_is_caught_over_it_or_under_it_but_not_one_that_grazes_it_or_a_faint_one() -> None:
    from manim import DL, UR, DashedLine, Line

    label = Text("leaves at t = 8", font=theme.font(), font_size=theme.SMALL_SIZE)
    glyph = label[3]  # "v": the lines below are aimed at its box
    middle, low, high = glyph.get_center(), glyph.get_corner(DL), glyph.get_corner(UR)
    axis = Line(middle + UP, middle + DOWN)  # through its middle
    assert [v.rule for v in layout.check([label, axis], 1)] == ["line through text"]
    assert [v.rule for v in layout.check([axis, label], 1)] == ["line through text"]  # under it: still through it
    dashed = DashedLine(label.get_left() + LEFT, label.get_right() + RIGHT)  # along the text's middle
    assert [v.rule for v in layout.check([label, dashed], 1)] == ["line through text"]
    # Inside the letter's box but in its outer tenth: an underline grazing its foot, a shaft ending at its edge.
    graze = Line(
        [label.get_left()[0] - 1, low[1] + 0.1 * (high[1] - low[1]), 0],
        [label.get_right()[0] + 1, low[1] + 0.1 * (high[1] - low[1]), 0],
        stroke_width=1,
    )
    ends_at = Line(middle + UP, [middle[0], high[1] - 0.1 * (high[1] - low[1]), 0], stroke_width=1)  # from above
    faint = axis.copy().set_stroke(opacity=0.25)  # a grid line
    assert layout.check([label, graze, ends_at, faint], 1) == []
    # A thick line is as wide as it is drawn: its middle just outside the letter's middle, its width across it.
    thick = Line(
        [low[0] - 1, low[1] + 0.15 * (high[1] - low[1]), 0],
        [high[0] + 1, low[1] + 0.15 * (high[1] - low[1]), 0],
        stroke_width=8,
    )
    assert [v.rule for v in layout.check([label, thick], 1)] == ["line through text"]


def test_labelled_points_keep_their_labels_clear_of_each_other_and_of_the_dots() -> None:
    from seqanim.kit.vectors import VectorDiagram

    diagram = VectorDiagram((-0.5, 1.5, 0.5), (-0.5, 1.5, 0.5), width=5.0)
    colours = [theme.item_colour(i) for i in range(3)]
    # Keys a lecturer set close together: C's label up-right of its dot would run into B's.
    close = diagram.labelled_points(
        [[1.0, 0.0], [0.0, 1.0], [0.5, 1.0]], colours, ["A [1, 0]", "B [0, 1]", "C [0.5, 1]"]
    )
    assert layout.check([diagram, close], slide=1) == []
    labels, dots = [point[1] for point in close], [point[0] for point in close]

    def gap(a: Mobject, b: Mobject) -> float:
        return max(b.get_left()[0] - a.get_right()[0], a.get_left()[0] - b.get_right()[0],
                   b.get_bottom()[1] - a.get_top()[1], a.get_bottom()[1] - b.get_top()[1])  # fmt: skip

    def width(text: str) -> float:
        return Text(text, font=theme.font(), font_size=theme.LABEL_SIZE).width

    space = width("B C") - width("BC")  # closer than a space, two labels read as one: "B [0, 1]C [0.5, 1]"
    for index, label in enumerate(labels):
        for other in [*labels[:index], *labels[index + 1 :], *dots[:index], *dots[index + 1 :]]:
            assert gap(label, other) >= space, f"{label.text} is {gap(label, other):.3f} from {other}"
    # The notebook's keys, far apart: every label up-right of its dot, as `point` puts it.
    apart = diagram.labelled_points([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], colours, ["A", "B", "C"])
    for point in apart:
        assert point[1].get_left()[0] > point[0].get_right()[0] and point[1].get_bottom()[1] > point[0].get_top()[1]


def test_a_label_beside_a_point_takes_the_first_side_clear_of_lines_and_texts_else_the_least_crossed() -> None:
    from manim import DL, UL, UR, Dot

    dot, sides = Dot([0.0, 0.0, 0.0]), (UR, UL, DR, DL)
    label = Text("k_A", font=theme.font(), font_size=theme.LABEL_SIZE)
    above = (np.array([0.0, 0.2, 0.0]), np.array([2.0, 0.2, 0.0]))  # a ruler right of the dot, at the label's height
    assert layout.beside_clear(label, dot, sides, lines=[above])
    assert label.get_right()[0] < dot.get_left()[0] and label.get_bottom()[1] > dot.get_top()[1]  # up-left
    # Rulers across both sides above and below, and a text up-right: up-right has the most, up-left is the first
    # of the fewest.
    across = [(np.array([-2.0, y, 0.0]), np.array([2.0, y, 0.0])) for y in (0.2, -0.2)]
    taken = Text("k_B", font=theme.font(), font_size=theme.LABEL_SIZE).next_to(dot, UR, buff=0.1)
    assert not layout.beside_clear(label, dot, sides, [taken], across)
    assert label.get_right()[0] < dot.get_left()[0] and label.get_bottom()[1] > dot.get_top()[1]
    assert layout.conflicts(label, [taken], across) == 1
    # A text in the way counts as two lines: with a text up-left and one ruler up-right, up-right it is.
    ruler = [(np.array([0.0, 0.2, 0.0]), np.array([2.0, 0.2, 0.0]))]
    taken.next_to(dot, UL, buff=0.1)
    assert not layout.beside_clear(label, dot, (UL, UR), [taken], ruler)
    assert label.get_left()[0] > dot.get_right()[0]


def test_a_long_log_axis_keeps_its_labels_apart_and_one_labelled() -> None:
    """20 decades labelled one by one overlapped at the plot's height (HiddenStateDynamics with rhos 0.5-0.9); with
    decade_range every label stands clear of the next, and 1 = 10^0 keeps its tick. 5 decades keep one per decade."""
    from seqanim.kit.plots import Plot, decade_range

    for low, high, labels in ((-19.0, 0.0, 11), (-4.0, 1.0, 6)):
        y_range = decade_range(low, high)
        plot = Plot((0, 60, 10), y_range, width=4.9, height=3.9, log_y=True)
        numbers = sorted(plot.axes.y_axis.labels, key=lambda label: label.get_y())
        assert len(numbers) == labels
        assert all(lower.get_top()[1] < upper.get_bottom()[1] for lower, upper in zip(numbers, numbers[1:]))
        assert any(abs(label.get_y() - plot.axes.c2p(0, 1.0)[1]) < 1e-6 for label in numbers)


def test_labels_apart_vertically_stack_around_their_middle_and_a_label_with_room_stays() -> None:
    """Boxes 0.4 tall at heights 0, 0.1 and 2: the first two overlap and are stacked 0.5 apart (0.4 + a buff of
    0.1) around 0.05, their middle; the third has room and does not move; the check finds no overlap."""
    boxes = [Rectangle(width=1, height=0.4).move_to(y * UP) for y in (0.1, 0.0, 2.0)]  # not in height order
    layout.apart_vertically(boxes, buff=0.1)
    assert [round(box.get_center()[1], 6) for box in boxes] == [0.3, -0.2, 2.0]
    labels = [Text(f"ρ = {rho}", font_size=23).move_to(0.03 * i * UP) for i, rho in enumerate((0.95, 1.0, 1.05))]
    layout.apart_vertically(labels)
    assert layout.check(labels, 1) == []
    assert [label.get_center()[1] for label in labels] == sorted(label.get_center()[1] for label in labels)


def test_labels_clear_below_an_obstacle_keep_their_order_and_those_above_stay() -> None:
    """A title from 0.8 to 1.2 over boxes 0.4 tall at 2, 1 and 0.3 (apart): the one at 1 overlaps it and goes
    under it (top at 0.7 with a buff of 0.1), and pushes the one at 0.3 down to keep 0.1 between them; the one
    at 2 stays."""
    title = Rectangle(width=3, height=0.4).move_to(UP)
    boxes = [Rectangle(width=1, height=0.4).move_to(y * UP) for y in (2.0, 1.0, 0.3)]
    layout.clear_below(boxes, title, buff=0.1)
    assert [round(box.get_center()[1], 6) for box in boxes] == [2.0, 0.5, 0.0]
