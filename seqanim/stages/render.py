"""Render one scene in this process: video, slide files, thumbnail and a report, each written atomically.

At the `check` quality nothing is drawn but the last frame: manim skips every animation to its end state (as
`manim -s` does), so the scene's code runs, its words are timed (no audio made), its layout is checked at the end
of every slide, and the report says where every beat would run, in a fraction of a render's time; its
thumbnail and report are its only outputs.

The build renders each scene as a stage of its own (`seqanim.engine.worker scene NAME`, in a process of its own:
manim's configuration is global). Everything is rendered into a staging folder first and moved into
`renders/<q>/` and `slides/<q>/` only when the scene has finished; the report says what the checks found
(layout, paused frames) and where each beat runs. `python -m seqanim.stages.render SCENE` renders one by hand.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import click

from seqanim.errors import SeqanimError, StageFailed, ToolMissingError
from seqanim.files import FULL, atomic_output, atomic_write_text, disk_full, naming_a_full_disk, replace_dir
from seqanim.lecture.config import CHECK
from seqanim.lecture.registry import scene as scene_spec
from seqanim.publish.frames import differing_share, frame_count, last_frame, video_seconds
from seqanim.workspace import current

# manim's settings per quality. `preview` (240p10) renders every scene's real code, layout check included,
# for the test suite and `seqanim watch`: about a third of low's pixels and two thirds of its frames.
MANIM_QUALITY: dict[str, dict[str, Any]] = {
    CHECK: {"quality": "low_quality", "pixel_width": 426, "pixel_height": 240, "frame_rate": 10},
    "preview": {"quality": "low_quality", "pixel_width": 426, "pixel_height": 240, "frame_rate": 10},
    "low": {"quality": "low_quality"},
    "medium": {"quality": "medium_quality"},
    "high": {"quality": "high_quality"},
    "4k": {"quality": "fourk_quality"},
}


def outputs(scene: str, quality: str) -> dict[str, Path]:
    """Every file a scene's render produces."""
    renders, slides = current().renders(quality), current().slides(quality)
    drawn = {"thumbnail": renders / f"{scene}.png", "report": renders / f"{scene}.report.json"}
    if quality == CHECK:
        return drawn
    return {
        "video": renders / f"{scene}.mp4",
        **drawn,
        "slides": slides / f"{scene}.json",
        "files": slides / "files" / scene,
    }


def check_tools() -> None:
    """Fail early, with the fix, when a system tool the scenes need is missing."""
    if shutil.which("latex") is None or shutil.which("dvisvgm") is None:
        raise ToolMissingError(
            "LaTeX is missing (latex/dvisvgm not on PATH); run `make setup` to install texlive and dvisvgm"
        )
    if shutil.which("ffmpeg") is None:
        raise ToolMissingError("ffmpeg is missing; run `make setup` to install it")
    try:
        import cairo  # noqa: F401
        import manimpango  # noqa: F401
    except ImportError as error:
        raise ToolMissingError(f"Cairo/Pango bindings are missing ({error}); run `make setup`") from None


def render_scene(name: str, quality: str, *, quiet: bool = False) -> dict[str, Any]:
    """Render `name` at `quality` and publish its outputs. Returns the report."""
    scene_spec(name)  # an unknown scene fails here, before any work
    check_tools()
    workspace = current()
    stage = workspace.staging / f"{name}-{quality}-{os.getpid()}"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    try:
        return _render_in(stage, name, quality, quiet=quiet)
    finally:  # a failed render (a full disk too) leaves nothing in staging
        shutil.rmtree(stage, ignore_errors=True)


def _render_in(stage: Path, name: str, quality: str, *, quiet: bool) -> dict[str, Any]:
    """render_scene's work, in the staging folder `stage`: manim runs, the report is written from what it did,
    and the outputs are published (at the check quality: the report and the thumbnail only)."""
    media_cache = current().media / quality / name
    media = _media_copies(stage / "media", media_cache)
    scene, frame, report = _run_manim(stage, media, name, quality, quiet=quiet)
    out = outputs(name, quality)
    if quality == CHECK:
        report |= _checked(scene, report["fps"])
    else:
        report |= _rendered(scene, stage, name, quality, report["fps"])
        _publish_slides(stage / "slides", name, quality)
        with atomic_output(out["video"]) as video:
            shutil.copyfile(scene.renderer.file_writer.movie_file_path, video)
    from PIL import Image

    with atomic_output(out["thumbnail"], suffix=".tmp.png") as thumbnail:
        Image.fromarray(frame).convert("RGB").save(thumbnail)
    atomic_write_text(out["report"], json.dumps(report, indent=2) + "\n")
    _share_media(media, media_cache)
    return report


def _media_copies(media: Path, media_cache: Path) -> Path:
    """The render's own copy of manim's caches, in `media`.

    manim's own caches are reused: its LaTeX and text SVGs by every scene at every quality (manim names them
    by their content), its partial movies by later renders of the scene at that quality. A killed render
    could leave a half-written .dvi or .mp4 that manim would trust later, so each render works on copies,
    and its files join the caches only when it has finished. The copies are hard links, but for the text
    SVGs: manim rewrites a Text's SVG in place each time it builds it (PangoUtils.remove_last_M), which
    through a link would empty the shared file for a moment (a parallel render then fails to parse it) or
    for good (a render killed as it writes)."""
    shared = current().media
    for folder, copy in SHARED_MEDIA.items():
        if (shared / folder).is_dir():
            (media / folder).mkdir(parents=True)
            with naming_a_full_disk(media / folder):  # a file by hand: copytree would bundle the error up
                for path in (shared / folder).iterdir():
                    copy(path, media / folder / path.name)
    if media_cache.exists():
        ignore = shutil.ignore_patterns(*SHARED_MEDIA)  # an older cache's own copies: the shared folders serve
        shutil.copytree(media_cache, media, copy_function=os.link, ignore=ignore, dirs_exist_ok=True)
    return media


def _run_manim(stage: Path, media: Path, name: str, quality: str, *, quiet: bool) -> tuple[Any, Any, dict[str, Any]]:
    """Run the scene's code: the scene, its last frame, and the report's first fields (what was said, shown
    and noted). A scene that raises becomes one line, its traceback in its log."""
    from manim import Scene, config, tempconfig

    settings = {
        **MANIM_QUALITY[quality],
        "media_dir": str(media),
        "output_file": name,
        "progress_bar": "none" if quiet else "display",
        "verbosity": "WARNING",
        "write_to_movie": quality != CHECK,
        "format": "mp4",
        # manim's partial-movie cache hashes every play call (a JSON dump of all mobjects on screen). At low
        # quality that hashing costs more than drawing: ReverseAlignment takes 38.5 s with the cache and
        # 17.9 s without, so even a full cache hit loses. At higher qualities drawing dominates and a scene
        # re-rendered for a module-mate's edit reuses its unchanged animations.
        "disable_caching": quality in ("preview", "low"),
    }
    started = time.perf_counter()
    with tempconfig(settings):
        module = importlib.import_module(f"scenes.{scene_spec(name).module}")
        scene = getattr(module, name)(output_folder=stage / "slides", skip_animations=quality == CHECK)
        try:
            if quality == CHECK:  # manim's render alone: manim-slides would join slide videos there are none of
                Scene.render(scene)
            else:
                scene.render()
        except SeqanimError:
            raise
        except Exception as error:  # noqa: BLE001 - any scene bug becomes one line; its traceback goes to the stage's log
            if getattr(error, "errno", None) in FULL:  # partial movies, LaTeX files: the stage names the full disk
                raise
            _fail_if_the_disk_is_full(stage)
            raise StageFailed(f"scene {name} raised {type(error).__name__}: {error}") from error
        frame = scene._draw_final_state() if quality == CHECK else scene.renderer.get_frame()
        report = {
            "scene": name,
            "quality": quality,
            "resolution": [config.pixel_width, config.pixel_height],
            "fps": config.frame_rate,
            "render_seconds": round(time.perf_counter() - started, 2),
            "notes": scene.notes,
            "narrations": scene.narrations,  # what the published video says and captions, per slide
            "alts": scene.alts,  # alt text of each slide's last frame, written from the data on screen
            "screen_texts": scene.screen_texts,
        }
    return scene, frame, report


def _checked(scene: Any, fps: float) -> dict[str, Any]:
    """The rest of a check's report, from the frames each skipped animation would have drawn."""
    scene._add_last_slide()  # as manim-slides closes the last slide when it saves
    return {
        "duration": round(sum(scene.animation_frames) / fps, 4),  # what the video would last
        "slides": len(scene._slides),
        "loops": [index for index, slide in enumerate(scene._slides) if slide.loop],
        "beats": beat_times(scene, fps, scene.animation_frames, [slide.start_animation for slide in scene._slides]),
        "layout_violations": [str(v) for v in scene.layout_violations],
    }


def _rendered(scene: Any, stage: Path, name: str, quality: str, fps: float) -> dict[str, Any]:
    """The rest of a render's report, from its video and slide videos; rewrites manim-slides' JSON in `stage`
    to name its videos from slides/."""
    # manim-slides stores paths relative to the slides folder's parent; make them relative to slides/.
    slides_path = stage / "slides" / f"{name}.json"
    slides_json = json.loads(slides_path.read_text())
    for slide in slides_json["slides"]:
        for key in ("file", "rev_file"):
            slide[key] = f"{quality}/files/{name}/{Path(slide[key]).name}"
    slides_path.write_text(json.dumps(slides_json, indent=2))
    paused = paused_frame_shares(stage / "slides" / "files" / name, slides_json["slides"], scene.final_frames)
    paused_violations = [
        f"slide {index}: paused frame: {share:.2%} of its pixels differ from the slide's final state"
        for index, share in enumerate(paused, start=1)
        if share is not None and share > PAUSED_FRAME_TOLERANCE
    ]
    # The movies manim-slides joins, in its numbering of animations (a skipped animation has none). Counted
    # from each movie: a render from manim's cache skips the drawing but not the movie.
    frames = [frame_count(path) for path in scene._partial_movie_files]
    return {
        "duration": video_seconds(Path(scene.renderer.file_writer.movie_file_path)),
        "slides": len(slides_json["slides"]),
        "loops": [index for index, slide in enumerate(slides_json["slides"]) if slide.get("loop")],
        # per slide: each beat's words, and where its animations run
        "beats": beat_times(scene, fps, frames, [slide.start_animation for slide in scene._slides]),
        "layout_violations": [str(v) for v in scene.layout_violations] + paused_violations,
        "paused_frame_shares": paused,  # per slide: share of pixels off its final state (None: a loop)
    }


def _publish_slides(staged: Path, name: str, quality: str) -> None:
    """New slide files join the old ones (manim-slides names them by content hash), the JSON switches to them,
    and only then do files the JSON no longer names go. A presenter never sees a dangling path."""
    out = outputs(name, quality)
    out["files"].mkdir(parents=True, exist_ok=True)
    for video in (staged / "files" / name).iterdir():
        os.replace(video, out["files"] / video.name)
    text = (staged / f"{name}.json").read_text()
    atomic_write_text(out["slides"], text)
    named = {Path(slide[key]).name for slide in json.loads(text)["slides"] for key in ("file", "rev_file")}
    for video in out["files"].iterdir():
        if video.name not in named:
            video.unlink()


def _share_media(media: Path, media_cache: Path) -> None:
    """A finished render's LaTeX and text SVGs join the shared folders; the rest of its media is kept."""
    for folder in SHARED_MEDIA:
        _share(media / folder, current().media / folder)
    replace_dir(media, media_cache)


# manim's folders of LaTeX and text SVGs (its tex_dir and text_dir inside media_dir), named by their content,
# and how a render takes its copy of each (see _render_in).
SHARED_MEDIA = {"Tex": os.link, "texts": shutil.copyfile}


def _share(finished: Path, shared: Path) -> None:
    """Link a finished render's new files into the shared folder (a link appears whole, and of two renders
    adding the same file the second finds it there), then drop the render's folder."""
    if not finished.is_dir():
        return
    shared.mkdir(parents=True, exist_ok=True)
    for path in finished.iterdir():
        if path.is_file() and not (shared / path.name).exists():
            try:
                os.link(path, shared / path.name)
            except FileExistsError:
                pass
    shutil.rmtree(finished)


# A slide's paused frame may differ from its final state in this share of its pixels. Measured at low quality
# on all 20 scenes: 0 on every finished slide; 0.11 % to 0.34 % on slides whose last animation had not finished
# (SoftmaxNormalization's counting bars, ReverseAlignment's growing rows).
PAUSED_FRAME_TOLERANCE = 0.0002


def beat_times(scene: Any, fps: float, frames: list[int], starts: list[int]) -> list[list[dict[str, Any]]]:
    """Per slide, its beats: their words, the seconds of the slide's video in which they run (their hold
    included), and their speech: how long it lasts and when each word starts and ends, from the beat's start.
    `frames`: each animation's frames, in manim-slides' numbering; `starts`: each slide's first animation."""
    if len(starts) != len(scene.beats):
        raise StageFailed(f"{len(starts)} slide videos but {len(scene.beats)} slides opened with notes")
    timed = []
    for start, beats in zip(starts, scene.beats):
        timed.append(
            [
                {
                    "said": beat.said,
                    "start": round(sum(frames[start : start + beat.first]) / fps, 4),
                    "end": round(sum(frames[start : start + beat.last]) / fps, 4),
                    "speech": round(beat.speech.seconds, 4),
                    "timing": beat.speech.timing,
                    "words": [list(word) for word in beat.speech.words],
                    "marks": beat.marks,
                    # Seconds of its words over a picture standing still (its waits, and its hold after its
                    # animations until the words end): what to give an animation.
                    "still_seconds": round(beat.still_frames / fps, 3),
                    "translations": beat.translations,
                }
                for beat in beats
            ]
        )
    return timed


def paused_frame_shares(files: Path, slides: list[dict[str, Any]], final_frames: list[Any]) -> list[float | None]:
    """Per slide, the share of pixels in which the last frame of its video (what a deck shows while paused)
    differs from the picture of its final state drawn at the slide's end. A looping slide never pauses: None."""
    if len(slides) != len(final_frames):
        raise StageFailed(f"{len(slides)} slide videos but {len(final_frames)} slide ends were drawn")
    return [
        None if slide.get("loop") else differing_share(last_frame(files / Path(slide["file"]).name), expected)
        for slide, expected in zip(slides, final_frames)
    ]


# Less free space than this after a failed render, and the disk is the likely cause: a tool that ran out of
# it (dvisvgm, ffmpeg) may exit 0 with a truncated file, and manim then fails on parsing it (found by
# bench/faults.py with 48 KB free: "ParseError: no element found").
NEARLY_FULL = 4 * 1024 * 1024


def _fail_if_the_disk_is_full(stage: Path) -> None:
    if shutil.disk_usage(stage).free < NEARLY_FULL:
        raise disk_full(OSError(errno.ENOSPC, "No space left on device"), stage) from None


@click.command()
@click.argument("scene")
@click.option("--quality", type=click.Choice(list(MANIM_QUALITY)), default="low")
@click.option("--quiet", is_flag=True)
def main(scene: str, quality: str, quiet: bool) -> None:
    """Render one SCENE in this process, outside the build (benches and tests time a render alone this way)."""
    try:
        report = render_scene(scene, quality, quiet=quiet)
    except SeqanimError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(error.exit_code)
    click.echo(json.dumps({k: report[k] for k in ("scene", "duration", "render_seconds", "slides")}))


if __name__ == "__main__":
    main()
