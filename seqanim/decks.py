"""Decks: the rendered scenes turned into what a lecturer opens.

For a deck (a `[decks.<name>]` table, or `full`) and a quality this writes
- `slides/<q>/<deck>.html` + `slides/<q>/<deck>_assets/`: reveal.js, carried from node_modules (no CDN,
  no network), with every slide's video and speaker notes (press S for the speaker view);
- `slides/<q>/<deck>.standalone.html` (when `[decks] one_file`): one file with everything embedded;
- `slides/<q>/<deck>.pdf`: a handout, one page per slide: the slide's last frame, its title and notes;
- `slides/<q>/<deck>.pptx`: one PowerPoint slide per deck slide, each with its movie and notes;
- `renders/<q>/<deck>.mp4` + `renders/<q>/<deck>.png`: the scenes joined, one chapter per scene, and the
  deck's thumbnail (its title card).

Each deck opens with a title card; a deck that spans several parts of the lecture (`full`) gets a
divider card before each part. Cards are rendered by `seqanim.kit.cards`. Every output is written
under a temporary name in its own folder and renamed into place.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from seqanim.config import ROOT, Lecture
from seqanim.contract import atomic_output, atomic_write_bytes
from seqanim.errors import SeqanimError, StageFailed, ToolMissingError
from seqanim.kit.cards import Card, card_files, card_json, ensure_cards
from seqanim.registry import deck_scenes

SLIDES = ROOT / "slides"
RENDERS = ROOT / "renders"
REVEAL_PACKAGE = ROOT / "node_modules" / "reveal.js"
FORMATS = ("html", "pdf", "pptx", "video")
FULL_TITLE = "The whole lecture"  # title of `full` when lecture.toml does not define it


# --- what a deck is made of -------------------------------------------------------------------------


@dataclass(frozen=True)
class DeckEntry:
    """One presentation in the deck's order: a card or a scene."""

    kind: Literal["title", "divider", "scene"]
    name: str  # the scene name, or the card id
    slide_file: Path  # manim-slides JSON
    present_name: str  # the name `manim-slides present --folder slides/<q>` knows it by
    label: str  # what the handout prints above its slides


@dataclass(frozen=True)
class DeckPlan:
    deck: str
    title: str
    quality: str
    entries: tuple[DeckEntry, ...]
    cards: tuple[Card, ...]


def deck_title(lecture: Lecture, deck: str) -> str:
    decks = lecture.deck_list()
    return decks[deck].title if deck in decks else FULL_TITLE


def deck_parts(lecture: Lecture, deck: str) -> list[tuple[str | None, list[str]]]:
    """The deck's scenes grouped by lecture part, in deck order.

    A part is another deck whose scenes are a proper subset of this deck's (for `full`: rnn,
    recurrent-attention, transformers, why-attention). A deck whose scenes all lie in one part (or in
    none) is one group with part None: it gets a title card and no dividers.
    """
    scenes = deck_scenes(lecture, deck)
    own = set(scenes)
    parts = [name for name, item in lecture.deck_list().items() if name != deck and set(item.scenes) < own]

    def part_of(scene: str) -> str | None:
        return next((name for name in parts if scene in lecture.deck_list()[name].scenes), None)

    groups: list[tuple[str | None, list[str]]] = []
    for scene in scenes:
        part = part_of(scene)
        if groups and (part is None or part == groups[-1][0]):
            groups[-1][1].append(scene)
        else:
            groups.append((part, [scene]))
    if len({part for part, _ in groups if part is not None}) < 2:
        return [(None, scenes)]
    return groups


def humanise(scene: str) -> str:
    """`InsideTheLSTM` -> `Inside the LSTM`."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+|\d+", scene)
    return " ".join([words[0], *[w if w.isupper() and len(w) > 1 else w.lower() for w in words[1:]]]) if words else scene


def _report(scene: str, quality: str) -> dict[str, Any]:
    path = RENDERS / quality / f"{scene}.report.json"
    slides = SLIDES / quality / f"{scene}.json"
    if not path.exists() or not slides.exists():
        raise StageFailed(
            f"scene {scene} has no {quality} render ({path.relative_to(ROOT)} or {slides.relative_to(ROOT)} is missing); "
            f"run `seqanim build --quality {quality}` first"
        )
    return json.loads(path.read_text())


def _summary(reports: list[dict[str, Any]]) -> tuple[int, float]:
    return sum(r["slides"] for r in reports), sum(r["duration"] for r in reports)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _length(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def deck_plan(lecture: Lecture, deck: str, quality: str) -> DeckPlan:
    """Cards and scenes in order, with the cards' text and notes formatted from the render reports."""
    title = deck_title(lecture, deck)
    groups = deck_parts(lecture, deck)
    scenes = [scene for _, group in groups for scene in group]
    reports = {scene: _report(scene, quality) for scene in scenes}
    slides, seconds = _summary(list(reports.values()))
    multi = groups[0][0] is not None
    slug = re.sub(r"[^A-Za-z0-9_-]", "_", deck)
    cards: list[Card] = []
    if multi:
        items = tuple(
            f"{k}  {deck_title(lecture, part or '')} ({_count(len(group), 'scene')})"
            for k, (part, group) in enumerate(groups, start=1)
        )
        notes = (
            f"{title}: {len(groups)} parts, {len(scenes)} scenes, {slides} slides, {_length(seconds)} of animation. "
            + " ".join(f"Part {k}: {deck_title(lecture, part or '')} ({_count(len(group), 'scene')})." for k, (part, group) in enumerate(groups, start=1))
        )
    else:
        items = tuple(humanise(scene) for scene in scenes)
        notes = (
            f"{title}: {_count(len(scenes), 'scene')}, {slides} slides, {_length(seconds)} of animation. "
            f"In order: {', '.join(humanise(s) for s in scenes)}."
        )
    footer = f"{_count(len(scenes), 'scene')} · {slides} slides · {_length(seconds)} of animation"
    title_card = Card(id=f"{slug}-title", kicker="Sequence models, animated", heading=title, items=items, footer=footer, notes=notes)
    cards.append(title_card)
    entries = [_card_entry(title_card, "title", quality, title)]
    for k, (part, group) in enumerate(groups, start=1):
        if multi:
            part_title = deck_title(lecture, part or "")
            part_slides, part_seconds = _summary([reports[s] for s in group])
            divider = Card(
                id=f"{slug}-part-{k}-{part}",
                kicker=f"Part {k} of {len(groups)}",
                heading=part_title,
                items=tuple(humanise(s) for s in group),
                footer=f"{_count(len(group), 'scene')} · {part_slides} slides · {_length(part_seconds)} of animation",
                notes=(
                    f"Part {k} of {len(groups)}: {part_title}. {_count(len(group), 'scene')}, {part_slides} slides, "
                    f"{_length(part_seconds)} of animation: {', '.join(humanise(s) for s in group)}."
                ),
            )
            cards.append(divider)
            entries.append(_card_entry(divider, "divider", quality, f"Part {k}: {part_title}"))
        for scene in group:
            entries.append(DeckEntry("scene", scene, SLIDES / quality / f"{scene}.json", scene, humanise(scene)))
    return DeckPlan(deck, title, quality, tuple(entries), tuple(cards))


def _card_entry(card: Card, kind: Literal["title", "divider"], quality: str, label: str) -> DeckEntry:
    return DeckEntry(kind, card.id, card_json(card.id, quality), f"cards/{card.id}", label)


def load_presentations(plan: DeckPlan) -> list[Any]:
    from manim_slides.config import PresentationConfig

    return [PresentationConfig.from_file(entry.slide_file) for entry in plan.entries]


def prepare(lecture: Lecture, deck: str, quality: str) -> tuple[DeckPlan, list[Any]]:
    """The deck's plan, with its cards rendered and every slide file loaded."""
    plan = deck_plan(lecture, deck, quality)
    ensure_cards(plan.cards, lecture, quality)
    return plan, load_presentations(plan)


# --- outputs --------------------------------------------------------------------------------------------


def deck_outputs(lecture: Lecture, deck: str, quality: str) -> dict[str, Path]:
    """Every file and folder `export_deck(lecture, deck, quality)` writes, with its default formats.

    `standalone` is listed when `[decks] one_file` is on; `card:<id>` / `card-files:<id>` are the rendered
    title/divider cards (shared by re-exports, reused while unchanged).
    """
    deck_scenes(lecture, deck)  # an unknown deck fails here, with the list of known ones
    folder = SLIDES / quality
    outputs = {
        "html": folder / f"{deck}.html",
        "html_assets": folder / f"{deck}_assets",
        "pdf": folder / f"{deck}.pdf",
        "pptx": folder / f"{deck}.pptx",
        "video": RENDERS / quality / f"{deck}.mp4",
        "thumbnail": RENDERS / quality / f"{deck}.png",
    }
    if lecture.decks.one_file:
        outputs["standalone"] = folder / f"{deck}.standalone.html"
    slug = re.sub(r"[^A-Za-z0-9_-]", "_", deck)
    card_ids = [f"{slug}-title"]
    groups = deck_parts(lecture, deck)
    if groups[0][0] is not None:
        card_ids += [f"{slug}-part-{k}-{part}" for k, (part, _) in enumerate(groups, start=1)]
    for card_id in card_ids:
        outputs[f"card:{card_id}"] = card_json(card_id, quality)
        outputs[f"card-files:{card_id}"] = card_files(card_id, quality)
    return outputs


def export_deck(
    lecture: Lecture,
    deck: str,
    quality: str,
    *,
    formats: Sequence[str] = FORMATS,
    one_file: bool | None = None,
) -> dict[str, Path]:
    """Export `deck` at `quality` in `formats`; return {format: path} of what was written.

    `one_file` (default `[decks] one_file`) adds `standalone`: one HTML file with reveal.js and every video
    embedded. The `video` format also writes the deck's `thumbnail`.
    """
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise SeqanimError(f"unknown deck format(s) {', '.join(unknown)}; known: {', '.join(FORMATS)}")
    one_file = lecture.decks.one_file if one_file is None else one_file
    plan, presentations = prepare(lecture, deck, quality)
    written: dict[str, Path] = {}
    if "html" in formats:
        written.update(export_html(plan, presentations, lecture, one_file=one_file))
    if "pdf" in formats:
        written["pdf"] = export_pdf(plan, presentations, notes=lecture.decks.handout_notes)
    if "pptx" in formats:
        written["pptx"] = export_pptx(plan, presentations)
    if "video" in formats:
        written.update(export_video(plan, presentations))
    return written


def timed_export(lecture: Lecture, deck: str, quality: str, *, one_file: bool = True) -> dict[str, float]:
    """Seconds each format takes (cards rendered first, timed as `cards`). For benchmarks and the report."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    plan, presentations = prepare(lecture, deck, quality)
    timings["cards"] = time.perf_counter() - started
    steps = {
        "html": lambda: export_html(plan, presentations, lecture, one_file=False),
        "standalone": lambda: export_html(plan, presentations, lecture, one_file=True, linked=False),
        "pdf": lambda: export_pdf(plan, presentations, notes=lecture.decks.handout_notes),
        "pptx": lambda: export_pptx(plan, presentations),
        "video": lambda: export_video(plan, presentations),
    }
    for name, step in steps.items():
        if name == "standalone" and not one_file:
            continue
        started = time.perf_counter()
        step()
        timings[name] = time.perf_counter() - started
    return timings


# --- HTML (reveal.js) -----------------------------------------------------------------------------------


def _reveal_dist() -> Path:
    dist = REVEAL_PACKAGE / "dist"
    if not (dist / "reveal.js").exists():
        raise ToolMissingError(f"reveal.js is missing ({dist.relative_to(ROOT)}); run `npm ci` (or `make setup`) in {ROOT}")
    return dist


def reveal_version() -> str:
    _reveal_dist()
    return json.loads((REVEAL_PACKAGE / "package.json").read_text())["version"]


def _template() -> str:
    """manim-slides' reveal.js template with three changes: notes are escaped plain text (not markdown,
    which would eat the underscores of h_t), every background video is muted (the videos are silent; a
    muted video may autoplay), and the markdown and highlight assets it then no longer needs are dropped."""
    from manim_slides.convert import RevealJS

    text = RevealJS(presentation_configs=[]).load_template()
    edits = [
        ('<aside class="notes" data-markdown>{{ slide_config.notes }}</aside>', '<aside class="notes">{{ slide_config.notes | e }}</aside>'),
        ("<title>{{ title }}</title>", "<title>{{ title | e }}</title>"),
        ('<link rel="stylesheet" href="{{ cdn_url }}/dist/plugin/highlight/zenburn.css">', ""),
        ('<script src="{{ cdn_url }}/dist/plugin/markdown.js"></script>', ""),
        ("plugins: [ RevealMarkdown, RevealNotes ],", "plugins: [ RevealNotes ],"),
    ]
    for old, new in edits:
        if text.count(old) != 1:
            raise StageFailed(f"manim-slides' revealjs.html changed (no single {old!r}); update seqanim/decks.py::_template")
        text = text.replace(old, new)
    muted, count = re.subn(r"\{% if loop\.index == 1 and outer_loop\.index == 1 %\}\s*data-background-video-muted\s*\{% endif %\}", "data-background-video-muted", text)
    if count != 1:
        raise StageFailed("manim-slides' revealjs.html changed (muted first video); update seqanim/decks.py::_template")
    return muted


def _local_refs(html: str) -> list[str]:
    """Every URL the page would load: src/href attributes, background videos/images, CSS @import/url()."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    refs: list[str] = []
    for tag in soup.find_all(True):
        for attribute in ("src", "href", "data-background-video", "data-background-image", "data-background-iframe", "poster"):
            value = tag.get(attribute)
            if isinstance(value, str):
                refs.append(value)
    for style in soup.find_all("style"):
        refs += _css_refs(style.get_text())
    return refs


def _css_refs(css: str) -> list[str]:
    refs = re.findall(r"@import\s+(?:url\()?['\"]?([^'\")\s;]+)", css)
    refs += [ref for ref in re.findall(r"url\(\s*['\"]?([^'\")]+)", css) if not ref.startswith("data:")]
    return refs


def _check_offline(html: str, css_files: Sequence[Path] = ()) -> None:
    """Fail when the page or its stylesheets would fetch anything from the network."""
    refs = _local_refs(html) + [ref for css in css_files for ref in _css_refs(css.read_text(errors="replace"))]
    remote = [ref for ref in refs if re.match(r"^(https?:)?//", ref.strip(), re.IGNORECASE)]
    if remote:
        raise StageFailed(f"the HTML deck would load {remote[0]} from the network; every asset must be local")


def _publish_mode(*paths: Path) -> None:
    """Temporary files are created 0600; a published deck must be readable by a web server or a colleague."""
    umask = os.umask(0)
    os.umask(umask)
    for path in paths:
        os.chmod(path, 0o666 & ~umask)


def _link_or_copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)  # the same bytes; a re-render replaces the source file, never edits it
    except OSError:
        shutil.copyfile(source, target)


def _swap_dir(staged: Path, final: Path) -> None:
    trash = final.with_name(f".{final.name}.old-{os.getpid()}")
    if final.exists():
        os.replace(final, trash)
    os.replace(staged, final)
    shutil.rmtree(trash, ignore_errors=True)


def _converter_options(plan: DeckPlan, presentations: list[Any]) -> dict[str, Any]:
    return {
        "title": plan.title,
        "reveal_version": reveal_version(),
        "background_color": str(presentations[0].background_color.as_hex()),
        "slide_number": "c/t",
        "show_slide_number": "speaker",  # the lecturer sees where they are; the audience sees the video
        "hash": "true",  # reloading the page stays on the slide
    }


def export_html(plan: DeckPlan, presentations: list[Any], lecture: Lecture, *, one_file: bool, linked: bool = True) -> dict[str, Path]:
    """Write `<deck>.html` + `<deck>_assets/` (when `linked`) and, when `one_file`, `<deck>.standalone.html`."""
    from manim_slides.convert import RevealJS

    dist = _reveal_dist()
    folder = SLIDES / plan.quality
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    stage = Path(tempfile.mkdtemp(prefix=f".stage-{plan.deck}-", dir=folder))
    try:
        template = stage / "template.html"
        template.write_text(_template())
        options = _converter_options(plan, presentations)
        if linked:
            assets_name = f"{plan.deck}_assets"
            assets = stage / assets_name
            # manim-slides names copies `s<i>_<file>` when there are several presentations; linking them in
            # first makes its copy step a no-op (it skips files that exist).
            digits = len(str(len(presentations) - 1))
            for i, presentation in enumerate(presentations):
                prefix = f"s{i:0{digits}d}_" if len(presentations) > 1 else ""
                for slide in presentation.slides:
                    _link_or_copy(slide.file, assets / f"{prefix}{slide.file.name}")
            cdn = f"{assets_name}/reveal.js"
            html_path = stage / f"{plan.deck}.html"
            RevealJS(presentation_configs=presentations, template=template, cdn_url=cdn, **options).convert_to(html_path)
            html = html_path.read_text()
            refs = _local_refs(html)
            css_files: list[Path] = []
            for ref in refs:
                if ref.startswith(cdn + "/"):
                    source = dist.parent / ref.removeprefix(cdn + "/")
                    if not source.is_file():
                        raise StageFailed(f"the HTML deck needs {source.relative_to(ROOT)}, which reveal.js {reveal_version()} lacks")
                    target = stage / ref
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, target)
                    if target.suffix == ".css":
                        css_files.append(target)
            _check_offline(html, css_files)
            used = {Path(ref).name for ref in refs if ref.startswith(assets_name + "/") and not ref.startswith(cdn)}
            for video in assets.glob("*.mp4"):
                if video.name not in used:
                    video.unlink()  # a link made for a name the converter did not use
            missing = [ref for ref in refs if not ref.startswith(("data:", "#")) and not (stage / ref).exists()]
            if missing:
                raise StageFailed(f"the HTML deck refers to {missing[0]}, which was not written")
            # Assets first, then the page that points at them.
            _publish_mode(html_path)
            _swap_dir(assets, folder / assets_name)
            os.replace(html_path, folder / f"{plan.deck}.html")
            written["html"] = folder / f"{plan.deck}.html"
        if one_file:
            path = folder / f"{plan.deck}.standalone.html"
            staged = stage / path.name
            RevealJS(presentation_configs=presentations, template=template, cdn_url="REVEAL", one_file=True, **options).convert_to(staged)
            html = _inline_reveal(staged.read_text(), "REVEAL", dist)
            _check_offline(html)
            atomic_write_bytes(path, html.encode())
            _publish_mode(path)
            written["standalone"] = path
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return written


def _inline_reveal(html: str, cdn: str, dist: Path) -> str:
    """Replace the reveal.js <link>/<script> references with their content."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for link in soup.find_all("link", href=True):
        href = str(link["href"])
        if href.startswith(cdn + "/"):
            style = soup.new_tag("style")
            style.string = (dist.parent / href.removeprefix(cdn + "/")).read_text()
            link.replace_with(style)
    for script in soup.find_all("script", src=True):
        src = str(script["src"])
        if src.startswith(cdn + "/"):
            inline = soup.new_tag("script")
            # A literal </script> inside the code would end the element early.
            inline.string = (dist.parent / src.removeprefix(cdn + "/")).read_text().replace("</script", "<\\/script")
            script.replace_with(inline)
    text = str(soup)
    if cdn + "/" in text:
        raise StageFailed("the standalone HTML still refers to a reveal.js file; update seqanim/decks.py::_inline_reveal")
    return text


# --- PDF handout ----------------------------------------------------------------------------------------


def last_frame(video: Path) -> Any:
    """The last frame of a video as an RGB array (seeks near the end instead of decoding everything)."""
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        if container.duration and container.duration > 2_000_000:
            container.seek(container.duration - 1_000_000, backward=True, any_frame=False)
        frame = None
        for frame in container.decode(stream):
            pass
        if frame is None:
            raise StageFailed(f"{video} has no video frames; render it again")
        return frame.to_ndarray(format="rgb24")


def export_pdf(plan: DeckPlan, presentations: list[Any], *, notes: bool) -> Path:
    """One A4-landscape page per slide: the slide's last frame, what it is, and (with `notes`) its notes."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    path = SLIDES / plan.quality / f"{plan.deck}.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    pages = [(entry, k, presentation, slide) for entry, presentation in zip(plan.entries, presentations) for k, slide in enumerate(presentation.slides, start=1)]
    width, height = 11.69, 8.27
    with atomic_output(path) as tmp:
        metadata = {"Title": plan.title, "Creator": "seqanim", "CreationDate": None}
        with PdfPages(tmp, metadata=metadata) as pdf:
            for number, (entry, k, presentation, slide) in enumerate(pages, start=1):
                figure = plt.figure(figsize=(width, height))
                figure.text(0.04, 0.955, plan.title, fontsize=10, color="#555555", va="top", parse_math=False)
                figure.text(0.96, 0.955, f"{number} / {len(pages)}", fontsize=10, color="#555555", va="top", ha="right")
                caption = entry.label if len(presentation.slides) == 1 else f"{entry.label}, slide {k} of {len(presentation.slides)}"
                figure.text(0.04, 0.92, caption, fontsize=15, weight="bold", va="top", parse_math=False)
                image = last_frame(slide.file)
                aspect = image.shape[0] / image.shape[1]
                image_width = 0.92 if not notes else 0.72
                image_height = image_width * width * aspect / height
                left, top = (1 - image_width) / 2, 0.86
                axes = figure.add_axes((left, top - image_height, image_width, image_height))
                axes.imshow(image, interpolation="none")  # embedded at its own resolution
                axes.set_axis_off()
                if notes and slide.notes:
                    # About 100 characters of 11 pt text fit under the still; notes start at its left edge.
                    wrapped = "\n".join(textwrap.fill(line, 100, break_on_hyphens=False, break_long_words=False) for line in slide.notes.splitlines() if line.strip())
                    figure.text(left, top - image_height - 0.04, wrapped, fontsize=11, va="top", parse_math=False, linespacing=1.5)
                pdf.savefig(figure)
                plt.close(figure)
    return path


# --- PowerPoint -----------------------------------------------------------------------------------------


def export_pptx(plan: DeckPlan, presentations: list[Any]) -> Path:
    """manim-slides' PowerPoint converter: one slide per deck slide with its movie (autoplay) and notes."""
    from manim_slides.convert import PowerPoint

    path = SLIDES / plan.quality / f"{plan.deck}.pptx"
    path.parent.mkdir(parents=True, exist_ok=True)
    width, height = presentations[0].resolution
    with atomic_output(path, suffix=".tmp.pptx") as tmp:
        PowerPoint(presentation_configs=presentations, width=width, height=height).convert_to(tmp)
    return path


# --- published video ------------------------------------------------------------------------------------


def _duration_ms(video: Path) -> int:
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        if stream.duration is not None and stream.time_base is not None:
            return round(float(stream.duration * stream.time_base) * 1000)
        return round((container.duration or 0) / 1000)


def _ffmeta(text: str) -> str:
    return re.sub(r"([=;#\\\n])", r"\\\1", text)


def export_video(plan: DeckPlan, presentations: list[Any]) -> dict[str, Path]:
    """`renders/<q>/<deck>.mp4`: the scene videos joined (no re-encode), one chapter per scene; and the
    deck's thumbnail `renders/<q>/<deck>.png` (the title card's last frame)."""
    if shutil.which("ffmpeg") is None:
        raise ToolMissingError("ffmpeg is missing; run `make setup` to install it")
    from PIL import Image

    folder = RENDERS / plan.quality
    folder.mkdir(parents=True, exist_ok=True)
    scenes = [entry.name for entry in plan.entries if entry.kind == "scene"]
    videos = [folder / f"{scene}.mp4" for scene in scenes]
    for video in videos:
        if not video.exists():
            raise StageFailed(f"{video.relative_to(ROOT)} is missing; run `seqanim build --quality {plan.quality}` first")
    path = folder / f"{plan.deck}.mp4"
    with tempfile.TemporaryDirectory(prefix=f".{plan.deck}-video-", dir=folder) as tmp:
        listing = Path(tmp) / "inputs.txt"
        listing.write_text("".join(f"file '{str(video).replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'\n" for video in videos))
        lines, start = [";FFMETADATA1", f"title={_ffmeta(plan.title)}"], 0
        for scene, video in zip(scenes, videos):
            end = start + _duration_ms(video)
            lines += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={start}", f"END={end}", f"title={_ffmeta(scene)}"]
            start = end
        metadata = Path(tmp) / "chapters.txt"
        metadata.write_text("\n".join(lines) + "\n")
        staged = Path(tmp) / f"{plan.deck}.mp4"
        command = [
            "ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
            "-f", "concat", "-safe", "0", "-i", str(listing), "-i", str(metadata),
            "-map", "0", "-map_metadata", "1", "-map_chapters", "1", "-c", "copy", "-movflags", "+faststart",
            str(staged),
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise StageFailed(f"ffmpeg could not join the {plan.deck} deck: {(result.stderr.strip().splitlines() or ['?'])[-1]}")
        os.replace(staged, path)  # the temporary folder lies in renders/<q>/: a same-filesystem rename
    thumbnail = folder / f"{plan.deck}.png"
    buffer = io.BytesIO()
    Image.fromarray(last_frame(presentations[0].slides[-1].file)).save(buffer, format="PNG")
    atomic_write_bytes(thumbnail, buffer.getvalue())
    _publish_mode(thumbnail)
    return {"video": path, "thumbnail": thumbnail}
