"""What if? variants on the slide (`[variants]` of lecture.toml; seqanim.lecture.variants declares them and the
build makes each value's scenes in its own folder, `.seqanim/variants/<key>=<value>/`).

`slides/<q>/<deck>.variants.html` is a deck with a selector, made for each deck that shows a scene a variant
changes: on such a slide `[` and `]` switch to the previous or next value, a label says which one is showing,
and the video, the speaker notes (the speaker view follows) and the captions are the variant's own. The choice
holds on the scene's following slides. The default decks and the published video stay the defaults.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from html import escape
from pathlib import Path
from typing import Any

from seqanim.errors import SeqanimError
from seqanim.files import atomic_write_text, link_or_copy, replace_dir
from seqanim.lecture.config import Lecture
from seqanim.lecture.variants import Variant, declared
from seqanim.workspace import current


def write_decks(lecture: Lecture, quality: str) -> None:
    """After a build: the selector decks of the decks that show a variant, and no folder or page of a value or
    deck that no longer has one (a value's outputs stay in the cache)."""
    from seqanim.decks.plan import deck_names

    variants = declared(lecture)
    folder, wanted = current().variants, {variant.root for variant in variants if not variant.default}
    for stale in folder.iterdir() if folder.exists() else []:
        if stale not in wanted:
            shutil.rmtree(stale, ignore_errors=True)
    if folder.exists() and not wanted:
        shutil.rmtree(folder, ignore_errors=True)
    written = set()
    for deck in deck_names(lecture) if variants else []:
        page = write_deck(lecture, deck, quality, variants)
        if page is not None:
            written.add(deck)
            print(f"variants: {current().label(page)}")
    _remove_pages(quality, keep=written)


def _remove_pages(quality: str, keep: set[str]) -> None:
    """The selector decks of decks that no longer show a variant (a lecture without [variants] has none)."""
    folder = current().slides(quality)
    for page in folder.glob("*.variants.html") if folder.exists() else []:
        deck = page.name.removesuffix(".variants.html")
        if deck not in keep:
            page.unlink(missing_ok=True)
            shutil.rmtree(folder / f"{deck}_variants", ignore_errors=True)


def write_deck(lecture: Lecture, deck: str, quality: str, variants: list[Variant]) -> Path | None:
    """`<deck>.variants.html` beside the built `<deck>.html`, when the deck shows a scene a variant changes."""
    from seqanim.decks.html import SLIDE_TAG
    from seqanim.decks.plan import deck_plan

    folder = current().slides(quality)
    base = folder / f"{deck}.html"
    plan = deck_plan(lecture, deck, quality)
    changed = {entry.name for entry in plan.entries if entry.kind == "scene"} & {
        scene for variant in variants for scene in variant.scenes
    }
    if not changed or not base.exists():
        return None
    html = base.read_text()
    tags = list(SLIDE_TAG.finditer(html))
    assets_name = f"{deck}_variants"
    staged = Path(tempfile.mkdtemp(prefix=f".stage-{deck}-variants-", dir=folder))
    try:
        slides: dict[int, dict[str, Any]] = {}
        scenes: dict[str, dict[str, Any]] = {}
        index = 0
        for entry in plan.entries:
            count = len(json.loads(entry.slide_file.read_text())["slides"])
            if entry.name in changed:
                mine = [variant for variant in variants if entry.name in variant.scenes]
                labels = [variant.label if len(lecture.variants.values) == 1 else variant.setting for variant in mine]
                scenes[entry.name] = {"labels": labels, "default": next(i for i, v in enumerate(mine) if v.default)}
                languages = lecture.publish.languages
                options = [_options(v, entry.name, quality, staged, assets_name, languages) for v in mine]
                for number in range(count):
                    tag = tags[index + number].group(0)
                    video = re.search(r'data-background-video="([^"]+)"', tag)
                    slides[index + number] = {
                        "scene": entry.name,
                        "options": [
                            option[number] if option else {"video": video.group(1) if video else ""}
                            for option in options
                        ],
                    }
            index += count
        if index != len(tags):
            raise SeqanimError(f"{current().label(base)} has {len(tags)} slides, its plan {index}; build it again")
        script = SELECTOR.replace("DATA", json.dumps({"slides": slides, "scenes": scenes}))
        closing = html.rfind("</body>")
        page = html[:closing] + script + html[closing:]
        page = page.replace("<title>", "<title>What if? ", 1)
        replace_dir(staged, folder / assets_name)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    target = folder / f"{deck}.variants.html"
    atomic_write_text(target, page)
    return target


def _options(
    variant: Variant, scene: str, quality: str, staged: Path, assets_name: str, languages: list[str]
) -> list[dict[str, Any]]:
    """Per slide of `scene` in the variant: its video (linked into the deck's variant assets), notes and
    captions in each language (its beats' words, untimed). Empty for the default (the deck's own slides are
    the default's)."""
    if variant.default:
        return []
    root = variant.root
    slides = json.loads((root / "slides" / quality / f"{scene}.json").read_text())["slides"]
    report = json.loads((root / "renders" / quality / f"{scene}.report.json").read_text())
    first, *others = languages
    found = []
    for slide, notes, said, beats in zip(slides, report["notes"], report["narrations"], report["beats"]):
        translated = {code: [beat["translations"].get(code) for beat in beats] for code in others}
        captions = {first: said} | {code: " ".join(texts) for code, texts in translated.items() if texts and all(texts)}
        source = root / "slides" / slide["file"]
        name = f"{root.name}/{source.name}"
        link_or_copy(source, staged / name)
        found.append(
            {
                "video": f"{assets_name}/{name}",
                "notes": f"{notes}\n\n[What if? {variant.setting}]",
                "captions": {code: escape(text, quote=False) for code, text in captions.items()},
            }
        )
    return found


# The selector: `[` / `]` step through the values of the scene on screen; the label names the value.
SELECTOR = """
<style>
  .seqanim-variant { position: fixed; bottom: 14px; left: 16px; z-index: 30; display: none;
    font: 600 20px/1.3 system-ui, sans-serif; color: #f5f5f5; background: rgba(0, 0, 0, 0.72);
    padding: 6px 12px; border-radius: 6px; }
  .seqanim-variant small { font-weight: 400; opacity: 0.8; }
</style>
<script>
(() => {
  const data = DATA;
  const chosen = {};  // scene -> the index of its value on screen
  const kept = new WeakMap();  // slide -> its own caption attributes
  const badge = document.createElement("div");
  badge.className = "seqanim-variant";
  badge.setAttribute("aria-live", "polite");
  document.body.appendChild(badge);

  function apply() {
    const h = Reveal.getIndices().h;
    const entry = data.slides[h];
    if (!entry) { badge.style.display = "none"; return; }
    const scene = data.scenes[entry.scene];
    const index = chosen[entry.scene] ?? scene.default;
    const option = entry.options[index];
    const slide = Reveal.getCurrentSlide();
    if (!kept.has(slide)) {  // the default's own words, kept to come back to
      const aside = slide.querySelector("aside.notes");
      slide.dataset.defaultNotes = aside ? aside.textContent : "";
      const own = [...slide.attributes].filter(a => /^data-(captions|cues)/.test(a.name));
      kept.set(slide, own.map(a => [a.name, a.value]));
    }
    if (slide.getAttribute("data-background-video") !== option.video) {
      slide.setAttribute("data-background-video", option.video);
      const video = Reveal.getSlideBackground(h).querySelector("video");
      if (video) { video.src = option.video; video.play().catch(() => {}); }
    }
    const aside = slide.querySelector("aside.notes");
    if (aside) aside.textContent = option.notes ?? slide.dataset.defaultNotes;
    // A variant's captions are its words in each language, untimed (its cues are the default's timing).
    const first = (document.body.dataset.languages || "en").split(" ")[0].split("=")[0];
    for (const [name, value] of kept.get(slide) || []) {
      const code = name.split("-")[2] || first;
      const words = option.captions && (option.captions[code] ?? option.captions[first]);
      slide.setAttribute(name, !option.captions ? value : name.startsWith("data-cues") ? "[]" : words);
    }
    const value = document.createElement("span");
    value.className = "value";
    value.textContent = scene.labels[index];
    const where = document.createElement("small");
    where.textContent = ` ${index + 1} of ${scene.labels.length} · [ ]`;
    badge.replaceChildren(value, where);
    badge.style.display = "block";
  }

  function step(delta) {
    const entry = data.slides[Reveal.getIndices().h];
    if (!entry) return;
    const scene = data.scenes[entry.scene];
    const index = chosen[entry.scene] ?? scene.default;
    chosen[entry.scene] = (index + delta + scene.labels.length) % scene.labels.length;
    apply();
    Reveal.togglePause(true);  // the speaker view reads the notes again on these two events
    Reveal.togglePause(false);
  }

  Reveal.on("ready", apply);
  Reveal.on("slidechanged", apply);
  Reveal.addKeyBinding({ keyCode: 221, key: "]", description: "Next variant" }, () => step(1));
  Reveal.addKeyBinding({ keyCode: 219, key: "[", description: "Previous variant" }, () => step(-1));
  if (Reveal.isReady()) apply();
})();
</script>
"""
