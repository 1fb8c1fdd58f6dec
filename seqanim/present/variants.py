"""What if? variants (`[variants]` of lecture.toml): a few values of a parameter, kept at hand on the slide.

Each value is a parameter set of its own, built in a workspace of its own, `.seqanim/variants/<key>=<value>/`:
the project's code and lecture.toml linked in, and the build cache shared, so a value removed and added again
is restored, not rebuilt. There `seqanim render --set key=value` builds what the parameter feeds: its
experiments and the scenes that read them, at the lecture's quality; no narration and no decks. The default
decks and the published video stay the defaults.

`slides/<q>/<deck>.variants.html` is a deck with a selector, made for each deck that shows a scene a variant
changes: on such a slide `[` and `]` switch to the previous or next value, a label says which one is showing,
and the video, the speaker notes (the speaker view follows) and the captions are the variant's own. The choice
holds on the scene's following slides.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from html import escape
from pathlib import Path
from subprocess import PIPE
from typing import Any

from seqanim.errors import SeqanimError
from seqanim.files import atomic_write_text, link_or_copy, replace_dir
from seqanim.lecture import registry
from seqanim.lecture.config import Lecture
from seqanim.workspace import REPOSITORY, WORKSPACE_ENV, current

# What a variant's workspace takes from the project, by symlink: the lecturer's files, and what stages read.
LINKED = ("lecture.toml", "precompute", "scenes", "narration", "node_modules")


@dataclass(frozen=True)
class Variant:
    """One value of a varied parameter, and the scenes it changes."""

    key: str  # "adding.T"
    value: Any
    default: bool  # the lecture's own value: its outputs are the lecture's
    scenes: tuple[str, ...]

    @property
    def label(self) -> str:
        """What the slide shows: "T = 40"."""
        return f"{self.key.split('.')[-1]} = {_toml(self.value)}"

    @property
    def setting(self) -> str:
        """The `--set` that makes it."""
        return f"{self.key}={_toml(self.value)}"

    @property
    def root(self) -> Path:
        slug = re.sub(r"[^\w.=-]+", "_", self.setting.replace(" ", ""))
        return current().state_dir / "variants" / slug


def _toml(value: Any) -> str:
    return json.dumps(value)  # JSON's numbers, strings, booleans and lists read the same in TOML


def scenes_fed_by(experiment: str) -> tuple[str, ...]:
    """The scenes that read `experiment`'s data, or data made from it."""
    fed = {name for name in registry.experiments() if name == experiment or experiment in registry.upstream(name)}
    return tuple(name for name, spec in registry.scenes().items() if fed & set(spec.data))


def declared(lecture: Lecture) -> list[Variant]:
    """Every variant, per key in the cycle order `[` and `]` follow: its values, the default among them (in
    order when they are numbers, else first)."""
    found: list[Variant] = []
    for key, values in lecture.variants.values.items():
        section, field = key.split(".")
        default = lecture.section(section)[field]
        cycle = list(dict.fromkeys(json.dumps(v) for v in values))
        if json.dumps(default) not in cycle:
            cycle.append(json.dumps(default))
            if all(isinstance(json.loads(v), (int, float)) for v in cycle):
                cycle.sort(key=lambda v: json.loads(v))
            else:
                cycle.insert(0, cycle.pop())
        scenes = scenes_fed_by(section)
        found += [Variant(key, json.loads(v), json.loads(v) == default, scenes) for v in cycle]
    return found


def named(lecture: Lecture, setting: str) -> Variant:
    """The declared variant `key=value` names (as `--set` spells it), or one line listing the declared ones."""
    from seqanim.lecture.config import parse_override

    keys, value = parse_override(setting)
    for variant in declared(lecture):
        if variant.key == ".".join(keys) and variant.value == value:
            return variant
    listed = ", ".join(variant.setting for variant in declared(lecture)) or "none: add a [variants] table"
    raise SeqanimError(f"--variant {setting} is not a declared variant; declared in lecture.toml: {listed}")


def _prepare(variant: Variant) -> Path:
    """The variant's workspace: the project's files linked in, the cache shared."""
    workspace = current()
    root = variant.root
    (root / ".seqanim").mkdir(parents=True, exist_ok=True)
    for name in LINKED:
        source, link = workspace.root / name, root / name
        if source.exists() and not link.is_symlink():
            link.symlink_to(source)
    cache = root / ".seqanim" / "cache"
    if not cache.is_symlink():
        shutil.rmtree(cache, ignore_errors=True)
        workspace.cache.mkdir(parents=True, exist_ok=True)
        cache.symlink_to(workspace.cache)
    return root


def build(
    lecture: Lecture,
    quality: str,
    lecture_args: tuple[str, ...],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    dry_run: bool = False,
) -> None:
    """Build every variant that is not the default, side by side, then the decks with a selector.

    `lecture_args`: the build's own --config and --set. Each variant is a `seqanim render` of its own; they
    share the `jobs` cores (or all send their stages to `scheduler`). Raises SeqanimError with the first
    failing variant's line."""
    variants = declared(lecture)
    if not variants:  # nothing declared (any more): no workspaces and no selector decks; the cache keeps them
        if not dry_run:
            shutil.rmtree(current().state_dir / "variants", ignore_errors=True)
            _remove_pages(quality, keep=set())
        return
    extra = [variant for variant in variants if not variant.default]
    share = ["--scheduler", scheduler] if scheduler else ["-j", str(max(1, jobs // max(1, len(extra))))]
    running = []
    for variant in extra:
        root = _prepare(variant)
        command = [sys.executable, "-m", "seqanim.cli", "render", *variant.scenes, "--quality", quality, *share]
        command += [*lecture_args, "--set", variant.setting, *(["--dry-run"] if dry_run else [])]
        path = os.pathsep.join(filter(None, (str(root), str(REPOSITORY), os.environ.get("PYTHONPATH"))))
        env = {**os.environ, WORKSPACE_ENV: str(root), "PYTHONPATH": path}
        running.append((variant, subprocess.Popen(command, cwd=root, env=env, stdout=PIPE, stderr=PIPE, text=True)))
    failed = None
    for variant, process in running:
        stdout, stderr = process.communicate()
        # --dry-run's lines go to stdout; the build's summary ("ran 2, restored 0 from cache") to stderr.
        lines = [line for line in (stdout if dry_run else stderr).splitlines() if line.strip()]
        if process.returncode != 0:
            errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
            reason = errors[0].removeprefix("error: ") if errors else (stderr.strip().splitlines() or ["?"])[-1]
            failed = failed or SeqanimError(f"variant {variant.setting}: {reason}")
            continue
        for line in lines if dry_run else lines[-1:]:
            print(f"variant {variant.setting}: {line}")
    if failed is not None:
        raise failed
    if dry_run:
        return
    folder, wanted = current().state_dir / "variants", {variant.root for variant in extra}
    for stale in folder.iterdir() if folder.exists() else []:  # a value no longer declared: its outputs stay cached
        if stale not in wanted:
            shutil.rmtree(stale, ignore_errors=True)
    from seqanim.decks.plan import deck_names

    written = set()
    for deck in deck_names(lecture):
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
    narrations = report.get("narrations") or report["notes"]
    beats_of = report.get("beats") or [[] for _ in slides]
    first, *others = languages
    found = []
    for slide, notes, said, beats in zip(slides, report["notes"], narrations, beats_of):
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
