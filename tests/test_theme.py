"""The colour language: roles, not palette indices, and every text role legible on both presets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from seqanim.kit.style import PRESETS, TEXT_ROLES, Style, contrast

SCENES = Path(__file__).resolve().parent.parent / "scenes"
WCAG_SMALL_TEXT = 4.5
# A hex colour, a palette index, or one of manim's named colours: scenes must name a role instead.
NOT_A_ROLE = re.compile(r"#[0-9a-fA-F]{6}\b|theme\.colour\(|palette\[|\b(RED|BLUE|GREEN|YELLOW|ORANGE|PURPLE|TEAL)\b")


def test_wcag_contrast_matches_the_standard_examples() -> None:
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic "just fails" grey
    assert contrast("#0173b2", "#0f1117") < WCAG_SMALL_TEXT  # the blue on the dark background


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_text_role_reads_on_its_background(preset: str) -> None:
    style = Style(preset=preset)
    background = style.role("background")
    colours = {role: style.role(role) for role in TEXT_ROLES}
    colours |= {f"model {kind}": colour for kind, colour in style.look.models.items()}
    colours |= {f"item {i}": colour for i, colour in enumerate(style.look.items)}
    low = {name: round(contrast(c, background), 2) for name, c in colours.items() if contrast(c, background) < 4.5}
    assert low == {}, f"{preset}: below {WCAG_SMALL_TEXT}:1 on {background}: {low}"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_ordered_ramp_reads_as_text_and_grows_in_contrast(preset: str) -> None:
    import matplotlib

    style = Style(preset=preset)
    name, low, high = style.look.ordered
    ramp = matplotlib.colormaps[name]
    samples = [ramp(low + (high - low) * i / 10)[:3] for i in range(11)]
    hexes = ["#" + "".join(f"{round(255 * c):02x}" for c in rgb) for rgb in samples]
    ratios = [contrast(h, style.role("background")) for h in hexes]
    assert min(ratios) >= WCAG_SMALL_TEXT, ratios
    assert ratios == sorted(ratios), "the ramp must be ordered: contrast grows with the value"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_roles_that_sit_side_by_side_are_distinct(preset: str) -> None:
    roles = PRESETS[preset].roles
    for group in (("query", "key", "value", "output"), ("error", "allowed", "highlight"), ("caption", "highlight")):
        colours = [roles[r] for r in group]
        assert len(set(colours)) == len(colours), group


def test_scenes_ask_for_roles_never_a_palette_index_or_a_hex_colour() -> None:
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(SCENES.glob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if NOT_A_ROLE.search(line)
    ]
    assert found == []


def test_the_grep_would_catch_a_palette_index() -> None:
    """The pattern above is not vacuous: it flags the forms the scenes used before the roles."""
    assert NOT_A_ROLE.search("label = theme.text('x', 22, theme.colour(3))")
    assert NOT_A_ROLE.search('colour = "#d55e00"')
    assert NOT_A_ROLE.search("Dot(color=RED)")
    assert not NOT_A_ROLE.search("theme.query_colour()")


def test_the_light_preset_is_a_lecture_toml_choice_and_the_kit_draws_with_it() -> None:
    from seqanim.errors import ConfigError
    from seqanim.kit import theme
    from seqanim.lecture.config import validate

    lecture = validate({"theme": {"preset": "light"}})
    try:
        theme.configure(**lecture.theme.model_dump())
        assert theme.background().to_hex().lower() == PRESETS["light"].background
        assert theme.query_colour().to_hex().lower() == PRESETS["light"].roles["query"]
        # A heatmap digit on the bright end of the ramp turns dark on either preset.
        assert theme.text_on(theme.heatmap_colormap()[-1]) == theme.foreground()  # light preset: dark text
        theme.configure(**validate({"theme": {"background": "#202020"}}).theme.model_dump())
        assert theme.background().to_hex().lower() == "#202020"  # an override wins over the preset
        assert theme.text_on(theme.heatmap_colormap()[-1]) == theme.background()
    finally:
        theme.configure()
    with pytest.raises(ConfigError, match="preset"):
        validate({"theme": {"preset": "sepia"}})
