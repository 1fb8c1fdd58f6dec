"""The kinds of stage, each declared once: what feeds one (the stages it reads, the parameters, code and files
its key covers) and what it makes, how its process runs it, and the command that rebuilds one on request.

An experiment runs precompute/ into data/ (`experiments`), a scene renders data/ into its video, slide files and
report (`render`), a narration makes a scene's narrated cut (`seqanim.publish.narrate`) and a deck exports the
decks (`seqanim.decks`). seqanim.engine.graph plans them into one graph; seqanim.engine.worker runs one.

Nothing heavy is imported here: a no-op build reads what feeds each stage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from seqanim.engine.code import code_inputs, code_label, file_hash
from seqanim.errors import ConfigError, SeqanimError
from seqanim.files import digest
from seqanim.lecture import registry
from seqanim.lecture.config import Lecture, experiment_params
from seqanim.lecture.languages import LANGUAGES
from seqanim.workspace import ENGINE, current


class Planner(Protocol):
    """What a kind's `feeds` asks of the planner (seqanim.engine.graph.Planner): the parameters, the quality, and
    the id of each stage it reads, planned first."""

    lecture: Lecture
    quality: str

    def add(self, kind: str, name: str) -> str: ...


@dataclass
class Feeds:
    """What one stage is made from, and what it makes."""

    deps: list[str]  # the stages it reads
    inputs: dict[str, str]  # what else feeds it -> its fingerprint
    params: dict[str, Any]  # its parameter values, kept so a reason can name the changed key
    outputs: list[Path]
    data_hash: str | None = None  # experiments: the parameters' hash their sidecar must carry


# --- experiment: precompute/NAME.py -> data/NAME.npz, .json and its extra outputs ---------------------------


def _experiment_feeds(planner: Planner, name: str) -> Feeds:
    spec, params, data = registry.experiment(name), planner.lecture.section(name), current().data
    inputs = {
        f"params:{name}": digest(params),
        **code_inputs(spec.source),
        **code_inputs(ENGINE / "stages" / "experiments.py"),
    }
    outputs = [data / f"{name}.npz", data / f"{name}.json", *[data / extra for extra in spec.extra_outputs]]
    deps = [planner.add("experiment", dep) for dep in spec.reads]
    return Feeds(deps, inputs, {name: params}, outputs, digest(experiment_params(planner.lecture, name)))


def _experiment(name: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    from seqanim.stages.experiments import run_experiment

    return run_experiment(name, lecture)


# --- scene: its data -> renders/Q/SCENE.mp4, .png, .report.json, slides/Q/SCENE.json and its slide files ------

# What a render's timing depends on: the voice, its speed and the pause after each beat (not loudness, language
# or captions, which only the narrated cut uses).
SPEECH_KEYS = ("voice", "hibari_speed", "voice_model", "fallback_voice", "espeak_voice", "words_per_minute", "gap_s")


def _scene_feeds(planner: Planner, name: str) -> Feeds:
    from seqanim.stages.render import outputs

    spec, lecture = registry.scene(name), planner.lecture
    publish = lecture.section("publish")
    inputs = {
        "quality": planner.quality,
        "params:theme": digest(lecture.section("theme")),
        "params:speech": digest({key: publish[key] for key in SPEECH_KEYS}),  # every beat lasts as long as its words
        **code_inputs(spec.source),
        **code_inputs(ENGINE / "stages" / "render.py"),
        **_voice_inputs(lecture, name),
        **_translation_inputs(spec),
    }
    deps = [planner.add("experiment", artifact) for artifact in spec.data]
    params = {"theme": lecture.section("theme")}
    return Feeds(deps, inputs, params, list(outputs(name, planner.quality).values()))


def _translation_inputs(spec: registry.SceneSpec) -> dict[str, str]:
    """The scene's beats in other languages: the part's file of each (de.py) and what it imports, but not the
    part's other scenes, which a translation file imports for their helpers: a change to one scene renders
    that scene again, not its neighbours (unless the scene itself imports them). Every language's file, not
    only `[publish] languages`: the render writes them all, and choosing which to publish renders nothing."""
    inputs: dict[str, str] = {}
    own = code_inputs(spec.source)
    neighbours = {
        f"code:{code_label(registry.scene(other).source)}"
        for other in registry.parts()[spec.part].scenes
        if registry.scene(other).source != spec.source
    }
    for code in LANGUAGES:
        words = spec.source.parent / f"{code}.py"
        if words.exists():
            read = code_inputs(words).items()
            inputs |= {key: value for key, value in read if key in own or key not in neighbours}
    return inputs


def _voice_inputs(lecture: Lecture, name: str) -> dict[str, str]:
    """The lecturer's recordings of the scene and the Piper voice model, when a voice uses them."""
    from seqanim.publish.narrate import recorded_inputs

    inputs = {}
    voices = (lecture.publish.voice, lecture.publish.fallback_voice)
    if "recorded" in voices:
        inputs |= recorded_inputs(name)
    if "piper" in voices:
        inputs["voice_model"] = _voice_model_hash(lecture)
    return inputs


def _voice_model_hash(lecture: Lecture) -> str:
    """The Piper voice model's content hash; a missing model fails the plan (nothing runs, nothing is lost)."""
    from seqanim.publish.voice import check_voice, model_path

    try:
        check_voice(lecture.publish.model_copy(update={"voice": "piper"}))
    except SeqanimError as error:  # the voice check's one line, as a parameter error
        raise ConfigError(f"lecture.toml: {error}") from None
    return file_hash(model_path(lecture.publish))


def _scene(name: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    from seqanim.stages.render import render_scene

    report = render_scene(name, quality, quiet=True)
    return {k: report[k] for k in ("duration", "render_seconds", "slides")}


# --- narration: a scene's render and its speech -> renders/Q/SCENE.narrated.mp4, captions, transcript --------


def _narration_feeds(planner: Planner, name: str) -> Feeds:
    from seqanim.publish.narrate import outputs

    lecture, publish = planner.lecture, planner.lecture.section("publish")
    inputs = {
        "quality": planner.quality,
        "params:publish": digest(publish),
        **code_inputs(ENGINE / "publish" / "narrate.py"),
        **_voice_inputs(lecture, name),
    }
    outs = list(outputs(name, planner.quality, lecture.publish.languages).values())
    return Feeds([planner.add("scene", name)], inputs, {"publish": publish}, outs)


def _narration(name: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    from seqanim.publish.narrate import narrate_scene

    timing = narrate_scene(name, quality, lecture)
    return {k: timing[k] for k in ("duration", "animation", "synthesised", "warnings")}


# --- deck: its scenes and their narrated cuts -> slides/Q/DECK.html, .pdf, .pptx, the joined video -----------


def _deck_feeds(planner: Planner, name: str) -> Feeds:
    from seqanim.decks import deck_outputs
    from seqanim.decks.plan import deck_definition

    lecture = planner.lecture
    definition = deck_definition(lecture, name)
    deps = [planner.add("scene", scene) for scene in definition["scenes"]]
    deps += [planner.add("narration", scene) for scene in dict.fromkeys(definition["scenes"])]
    options = {k: v for k, v in lecture.section("decks").items() if k not in ("items", "full_title")}
    params = {"deck": definition, "decks": options, "publish": lecture.section("publish")}
    inputs = {
        "quality": planner.quality,
        "params:theme": digest(lecture.section("theme")),
        f"params:deck.{name}": digest(params),
        **code_inputs(ENGINE / "decks" / "__init__.py"),
    }
    lock = current().reveal.parent.parent / "package-lock.json"
    if lock.exists():
        inputs["reveal.js"] = file_hash(lock)
    return Feeds(deps, inputs, params, list(deck_outputs(lecture, name, planner.quality).values()))


def _deck(name: str, quality: str, lecture: Lecture) -> dict[str, Any]:
    from seqanim.decks import export_deck

    return {k: str(v) for k, v in export_deck(lecture, name, quality).items()}


@dataclass(frozen=True)
class Kind:
    feeds: Callable[[Planner, str], Feeds]  # (planner, name): what feeds one, planning the stages it reads
    run: Callable[[str, str, Lecture], dict[str, Any]]  # (name, quality, lecture) -> the stage's result line
    rebuild: str  # the command that rebuilds one, after `seqanim`
    drawn: bool = True  # made at a quality, which its id names (`scene:low:AddingProblem`); data is not


KINDS = {
    "experiment": Kind(_experiment_feeds, _experiment, "precompute", drawn=False),
    "scene": Kind(_scene_feeds, _scene, "render"),
    "narration": Kind(_narration_feeds, _narration, "render --narrated"),
    "deck": Kind(_deck_feeds, _deck, "slides"),
}
