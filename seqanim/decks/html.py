"""The offline HTML deck: reveal.js from node_modules, every slide's video, the speaker notes, and each
slide's captions (C toggles them, cue by cue with the slide's video, as the published video shows them; the
speaker view shows them whole) and narrated duration (reveal.js `data-timing`, the speaker view's pacing
timer)."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from seqanim.decks.plan import DeckPlan
from seqanim.errors import StageFailed, ToolMissingError
from seqanim.files import atomic_write_bytes, link_or_copy, publish_mode, replace_dir
from seqanim.lecture.config import Lecture
from seqanim.lecture.languages import LANGUAGES
from seqanim.workspace import current


def _reveal_dist() -> Path:
    dist = current().reveal / "dist"
    if not (dist / "reveal.js").exists():
        raise ToolMissingError(f"reveal.js is missing ({dist}); run `npm ci` (or `make setup`) beside package.json")
    return dist


def reveal_version() -> str:
    _reveal_dist()
    return json.loads((current().reveal / "package.json").read_text())["version"]


def _template() -> str:
    """manim-slides' reveal.js template with three changes: notes are escaped plain text (not markdown,
    which would eat the underscores of h_t), every background video is muted (the videos are silent; a
    muted video may autoplay), and the markdown and highlight assets it then no longer needs are dropped."""
    from manim_slides.convert import RevealJS

    text = RevealJS(presentation_configs=[]).load_template()
    edits = [
        (
            '<aside class="notes" data-markdown>{{ slide_config.notes }}</aside>',
            '<aside class="notes">{{ slide_config.notes | e }}</aside>',
        ),
        ("<title>{{ title }}</title>", "<title>{{ title | e }}</title>"),
        ('<link rel="stylesheet" href="{{ cdn_url }}/dist/plugin/highlight/zenburn.css">', ""),
        ('<script src="{{ cdn_url }}/dist/plugin/markdown.js"></script>', ""),
        ("plugins: [ RevealMarkdown, RevealNotes ],", "plugins: [ RevealNotes ],"),
    ]
    for old, new in edits:
        if text.count(old) != 1:
            raise StageFailed(
                f"manim-slides' revealjs.html changed (no single {old!r}); update seqanim/decks/html.py::_template"
            )
        text = text.replace(old, new)
    muted, count = re.subn(
        r"\{% if loop\.index == 1 and outer_loop\.index == 1 %\}\s*data-background-video-muted\s*\{% endif %\}",
        "data-background-video-muted",
        text,
    )
    if count != 1:
        raise StageFailed(
            "manim-slides' revealjs.html changed (muted first video); update seqanim/decks/html.py::_template"
        )
    return muted


URL_ATTRIBUTES = ("src", "href", "data-background-video", "data-background-image", "data-background-iframe", "poster")


def _local_refs(html: str) -> list[str]:
    """Every URL the page would load: src/href attributes, background videos/images, CSS @import/url()."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    refs: list[str] = []
    for tag in soup.find_all(True):
        for attribute in URL_ATTRIBUTES:
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


CAPTIONS = """
<style>
#seqanim-captions { position: fixed; left: 50%; bottom: 1.5vh; transform: translateX(-50%); max-width: 80vw;
  padding: .4em .8em; background: rgba(0, 0, 0, .82); color: #fff; font: 2.6vh/1.45 "DejaVu Sans", sans-serif;
  border-radius: .3em; z-index: 40; text-align: center; white-space: pre-line; }
#seqanim-captions[hidden], #seqanim-captions:empty { display: none; }
/* With the captions on, the slide's picture leaves the bottom of the screen to them, as the published video
   does: no caption covers what a scene draws there (an axis label, a readout). */
body.seqanim-captioned .reveal .backgrounds { height: @PICTURE@%; }
body.seqanim-captioned .reveal-viewport, body.seqanim-captioned { background: @BAND@; }
body.seqanim-captioned .reveal .slide-background-content video { object-fit: contain !important;
  object-position: 50% 0 !important; }
</style>
<div id="seqanim-captions" role="region" aria-label="Captions" aria-live="polite" hidden></div>
<script>
(function () {
  // C turns the captions on, then through each language of the deck (data-languages: code=name), then off:
  // on a scene's slide, the published video's cue at the slide video's time (data-cues: start, end and lines,
  // in seconds of the slide's video; data-cues-de in German); on a card, its notes.
  const box = document.getElementById("seqanim-captions");
  const languages = (document.body.dataset.languages || "en=English").split(" ").map(pair => pair.split("="));
  let language = -1, slide = null, timed = "", cues = [];  // -1: off
  const suffix = () => language > 0 ? "-" + languages[language][0] : "";
  const show = () => {
    slide = Reveal.getCurrentSlide();
    if (!slide) return;
    const now = slide.getAttribute("data-cues" + suffix()) || "[]";  // a "what if?" variant may change it
    if (now !== timed) { timed = now; cues = JSON.parse(now); }
    const video = slide.slideBackgroundContentElement?.querySelector("video");
    if (!cues.length || !video) { box.textContent = slide.getAttribute("data-captions" + suffix()) || ""; return; }
    const cue = cues.find(([start, end]) => start <= video.currentTime && video.currentTime < end);
    const text = cue ? cue[2] : "";
    if (box.textContent !== text) box.textContent = text;
  };
  const follow = () => { if (!box.hidden) show(); requestAnimationFrame(follow); };
  // The slides are rendered at the pace of their narration; the lecturer presents at [decks] playback_rate.
  const rate = +(document.body.dataset.playbackRate || 1);
  const pace = () => document.querySelectorAll(".slide-background video").forEach(v => {
    v.defaultPlaybackRate = rate; v.playbackRate = rate;
  });
  Reveal.on("slidechanged", pace);
  Reveal.on("ready", pace);
  document.addEventListener("play", pace, true);
  Reveal.addKeyBinding({ keyCode: 67, key: "C", description: "Captions: on, each language, off" }, () => {
    language = language + 1 < languages.length ? language + 1 : -1;
    box.hidden = language < 0;
    if (language >= 0) {
      box.lang = languages[language][0];
      box.setAttribute("aria-label", "Captions (" + languages[language][1] + ")");
    }
    document.body.classList.toggle("seqanim-captioned", !box.hidden);
    show();
  });
  Reveal.on("slidechanged", show);
  Reveal.on("ready", show);
  requestAnimationFrame(follow);
})();
</script>
"""


# A slide's captions per language: its words, how long it is narrated, its timed cues.
Caption = tuple[dict[str, str], int, dict[str, list[tuple[float, float, str]]]]


def slide_captions(plan: DeckPlan, presentations: list[Any], lecture: Lecture) -> list[Caption]:
    """(captions, narrated seconds, timed cues) of every deck slide in order, the captions and cues per
    language: a scene slide's narration, its interval in the narrated cut, and the cut's caption cues in it (in
    seconds of the slide's video, which is that interval of the cut; none on a looping slide or one held past
    its video); a card's notes at their reading time, untimed."""
    from seqanim.decks.cards import CARD_SECONDS
    from seqanim.decks.video import narration_timing
    from seqanim.publish.narrate import reading_seconds

    result: list[Caption] = []
    first, *others = lecture.publish.languages
    cards = {card.id: card for card in plan.cards}
    for entry, presentation in zip(plan.entries, presentations):
        if entry.kind == "scene":
            timing = narration_timing(entry.name, plan.quality)
            if len(timing["slides"]) != len(presentation.slides):
                raise StageFailed(f"{entry.name}: its narration is older than its slides; run `seqanim build`")
            for r in timing["slides"]:
                # A looping slide's video repeats, and a slide held past its video (its words outlast it) ends
                # before its last cues: those show their whole narration instead.
                timed = not r["loop"] and r["held_seconds"] <= 0
                translated = timing.get("translated_cues", {})
                if any(code not in translated for code in others):
                    raise StageFailed(f"{entry.name}: its narration lacks {', '.join(others)}; run `seqanim build`")
                all_cues = {first: timing["cues"], **{code: translated[code] for code in others}}
                cues = {
                    code: [
                        (round(start - r["start"], 3), round(min(end, r["end"]) - r["start"], 3), "\n".join(lines))
                        for start, end, lines in found
                        if timed and r["start"] - 1e-3 <= start < r["end"]
                    ]
                    for code, found in all_cues.items()
                }
                texts = {
                    first: r["narration"],
                    **{code: r["translations"].get(code, r["narration"]) for code in others},
                }
                result.append((texts, max(1, round(r["end"] - r["start"])), cues))
        else:
            notes = cards[entry.name].notes
            seconds = max(CARD_SECONDS, reading_seconds(notes, lecture.publish.words_per_minute))
            languages = lecture.publish.languages
            result += [({code: notes for code in languages}, max(1, round(seconds)), {})] * len(presentation.slides)
    return result


SLIDE_TAG = re.compile(r"<section\b(?=[^>]*data-background-(?:video|image)=)[^>]*>")


def add_captions(html: str, captions: list[Caption], lecture: Lecture) -> str:
    """Each slide's `data-captions`, `data-cues` and `data-timing`, its captions in its speaker notes, the C key
    (the captions in a band of the lecture's background below the picture, as in the published video), and the
    rate the slides' videos play at (`[decks] playback_rate`).

    Edited as text, not re-serialised through a parser: the one-file deck carries scripts and base64 videos
    that a parser's round trip breaks (the page then never finishes loading)."""
    from html import escape, unescape

    slides = list(SLIDE_TAG.finditer(html))
    if len(slides) != len(captions):
        raise StageFailed(
            f"the HTML deck has {len(slides)} slides but {len(captions)} captions; update seqanim/decks/html.py"
        )
    first = lecture.publish.languages[0]
    pieces, at = [], 0
    for index, (match, (texts, seconds, cues)) in enumerate(zip(slides, captions)):
        end = slides[index + 1].start() if index + 1 < len(slides) else len(html)
        tag = match.group(0)
        pieces.append(html[at : match.start()])
        attributes = ""
        for code, words in texts.items():
            suffix = "" if code == first else f"-{code}"
            timed = escape(json.dumps(cues.get(code, []), ensure_ascii=False))
            attributes += f' data-captions{suffix}="{escape(words)}" data-cues{suffix}="{timed}"'
        pieces.append(f'{tag[:-1]}{attributes} data-timing="{seconds}">')
        text = texts[first]
        body = html[match.end() : end]
        aside = body.find("</aside>")
        if aside >= 0:
            said = " ".join(unescape(re.sub(r"<[^>]+>", " ", body[:aside])).split())
            extra = "Captions: the notes above" if said == " ".join(text.split()) else f"Captions: {text}"
            body = body[:aside] + escape(f"\n\n[{extra} · narrated {seconds} s]", quote=False) + body[aside:]
        pieces.append(body)
        at = end
    page = "".join(pieces) if slides else html
    languages = " ".join(f"{code}={LANGUAGES[code].name}" for code in lecture.publish.languages)
    page = page.replace(
        "<body>", f'<body data-playback-rate="{lecture.decks.playback_rate:g}" data-languages="{languages}">', 1
    )
    closing = page.rfind("</body>")
    if closing < 0:
        raise StageFailed("the HTML deck has no </body>; update seqanim/decks/html.py::add_captions")
    from seqanim.publish.narrate import CAPTION_BAND, background_hex

    captions = CAPTIONS.replace("@PICTURE@", f"{100 * (1 - CAPTION_BAND):g}")
    captions = captions.replace("@BAND@", "#" + background_hex(lecture).removeprefix("0x"))
    return page[:closing] + captions + page[closing:]


def _converter_options(plan: DeckPlan, presentations: list[Any], captions: list[Caption]) -> dict[str, Any]:
    return {
        # The speaker view shows its pacing timer only when the config has a default timing (reveal.js notes
        # plugin, getTimings); every slide then brings its own `data-timing`. (Set at initialisation: a later
        # Reveal.configure re-syncs the slides, which the one-file deck's base64-video observer answers by
        # re-syncing again, and the page never finishes loading.)
        "default_timing": round(sum(seconds for _, seconds, _ in captions) / max(1, len(captions))),
        "title": plan.title,
        "reveal_version": reveal_version(),
        "background_color": str(presentations[0].background_color.as_hex()),
        "slide_number": "c/t",
        "show_slide_number": "speaker",  # the lecturer sees where they are; the audience sees the video
        "hash": "true",  # reloading the page stays on the slide
    }


def export_html(
    plan: DeckPlan, presentations: list[Any], lecture: Lecture, *, one_file: bool, linked: bool = True
) -> dict[str, Path]:
    """Write `<deck>.html` + `<deck>_assets/` (when `linked`) and, when `one_file`, `<deck>.standalone.html`."""
    from manim_slides.convert import RevealJS

    _reveal_dist()  # a missing reveal.js fails first, naming the fix
    folder = current().slides(plan.quality)
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    captions = slide_captions(plan, presentations, lecture)
    stage = Path(tempfile.mkdtemp(prefix=f".stage-{plan.deck}-", dir=folder))
    try:
        template = stage / "template.html"
        template.write_text(_template())
        options = _converter_options(plan, presentations, captions)
        if linked:
            written["html"] = _linked(plan, presentations, lecture, captions, stage, template, options)
        if one_file:
            path = folder / f"{plan.deck}.standalone.html"
            staged = stage / path.name
            RevealJS(
                presentation_configs=presentations, template=template, cdn_url="REVEAL", one_file=True, **options
            ).convert_to(staged)
            html = _inline_reveal(add_captions(staged.read_text(), captions, lecture), "REVEAL", _reveal_dist())
            _check_offline(html)
            atomic_write_bytes(path, html.encode())
            written["standalone"] = path
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return written


def _linked(
    plan: DeckPlan, presentations: list[Any], lecture: Lecture, captions: list[Any], stage: Path, template: Path,
    options: dict[str, Any],
) -> Path:  # fmt: skip
    """`<deck>.html` and its `<deck>_assets/` (the slide videos and the reveal.js files it names), made in
    `stage`, checked to work offline and moved in: the assets first, then the page that points at them."""
    from manim_slides.convert import RevealJS

    folder = current().slides(plan.quality)
    assets_name = f"{plan.deck}_assets"
    assets = stage / assets_name
    # manim-slides names copies `s<i>_<file>` when there are several presentations; linking them in
    # first makes its copy step a no-op (it skips files that exist).
    digits = len(str(len(presentations) - 1))
    for i, presentation in enumerate(presentations):
        prefix = f"s{i:0{digits}d}_" if len(presentations) > 1 else ""
        for slide in presentation.slides:
            link_or_copy(slide.file, assets / f"{prefix}{slide.file.name}")
    cdn = f"{assets_name}/reveal.js"
    html_path = stage / f"{plan.deck}.html"
    RevealJS(presentation_configs=presentations, template=template, cdn_url=cdn, **options).convert_to(html_path)
    html = add_captions(html_path.read_text(), captions, lecture)
    html_path.write_text(html)
    refs = _local_refs(html)
    css_files: list[Path] = []
    dist = _reveal_dist()
    for ref in refs:
        if ref.startswith(cdn + "/"):
            source = dist.parent / ref.removeprefix(cdn + "/")
            if not source.is_file():
                raise StageFailed(f"the HTML deck needs {source}, which reveal.js {reveal_version()} lacks")
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
    publish_mode(html_path)
    replace_dir(assets, folder / assets_name)
    os.replace(html_path, folder / f"{plan.deck}.html")
    return folder / f"{plan.deck}.html"


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
        raise StageFailed(
            "the standalone HTML still refers to a reveal.js file; update seqanim/decks/html.py::_inline_reveal"
        )
    return text
