"""The lecture's parameters: `lecture.toml`, validated before any work starts.

Each experiment's table is validated by the parameter model its module declares (`precompute/<name>.py`,
class `Parameters`); the engine's own tables (`[render]`, `[theme]`, `[decks]`, `[publish]`, `[build]`) by the models
below. Unknown keys, wrong types and out-of-range values fail with one line that names the key, the value
and what is allowed. `--set section.key=value` overrides go through the same validation.

Validating an experiment's table imports its module, and with it torch; the result is kept in
`.seqanim/params.json` under the module's bytes and the table's values, so an unchanged lecture.toml
costs nothing to load.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from seqanim.errors import ConfigError
from seqanim.files import atomic_write_text, digest
from seqanim.kit.style import DEFAULT_STYLE, HEX_OR_EMPTY
from seqanim.lecture import registry
from seqanim.lecture.declare import Params
from seqanim.lecture.languages import LANGUAGES
from seqanim.workspace import current as workspace

# Stage processes read the resolved parameters from the file this names, so `--set` reaches them.
CONFIG_ENV = "SEQANIM_CONFIG_JSON"
# `check` draws no frame: every scene's code runs, its words are spoken and its layout checked, in seconds.
QUALITIES = ("check", "preview", "low", "medium", "high", "4k")
CHECK = "check"
PARAMS_CACHE_ENTRIES = 256


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Render(Section):
    """rendering"""

    quality: Literal["check", "preview", "low", "medium", "high", "4k"] = Field(
        "low",
        description="check (no frames: code, words, layout) | preview (240p10: watch) | low (480p15) | medium (720p30) "
        "| high (1080p60) | 4k",
    )
    jobs: int = Field(0, ge=0, le=64, description="stages run at once, one process each; 0 = all cores")


class Theme(Section):
    """colours and type of every scene"""

    preset: Literal["dark", "light"] = Field(
        DEFAULT_STYLE.preset, description="dark | light (bright lecture halls); every colour role is checked on both"
    )
    background: str = Field(
        DEFAULT_STYLE.background, pattern=HEX_OR_EMPTY, description='frame background; "" = the preset\'s'
    )
    foreground: str = Field(
        DEFAULT_STYLE.foreground, pattern=HEX_OR_EMPTY, description='text and axes; "" = the preset\'s'
    )
    muted: str = Field(
        DEFAULT_STYLE.muted, pattern=HEX_OR_EMPTY, description='secondary text, grid, baselines; "" = the preset\'s'
    )
    font: str = Field(DEFAULT_STYLE.font, description="font of every Text")
    heatmap: Literal["viridis", "magma", "cividis"] = Field(
        DEFAULT_STYLE.heatmap, description="colour map of attention heatmaps: viridis | magma | cividis"
    )


class Deck(Section):
    title: str
    scenes: list[str] = Field(min_length=1)


class Decks(Section):
    """decks: one per module of scenes/ (its scenes in order) and `full`; add [decks.NAME] for your own"""

    full_title: str = Field("Sequence models: RNNs, attention, Transformers", description="title of the full deck")
    one_file: bool = Field(False, description="also export <deck>.standalone.html with every video embedded")
    handout_notes: bool = Field(True, description="print speaker notes under each still in the PDF handout")
    playback_rate: float = Field(
        1.0, ge=0.25, le=4.0,
        description="0.25..4: how fast the live decks (HTML, Qt) play the slides (1: at the pace of the narration)",
    )  # fmt: skip
    items: dict[str, Deck] = Field(default_factory=dict)  # [decks.NAME] tables: extra decks, title + scenes


class Build(Section):
    """the build"""

    cache_mb: int = Field(
        4000, ge=0, le=1_000_000, description="size limit of the content-addressed output cache (.seqanim/cache)"
    )
    scheduler: str = Field(
        "",
        description='a running Dask scheduler, e.g. "tcp://10.0.0.5:8786"; "" = a local cluster of [render] jobs',
    )
    scheduler_timeout: float = Field(
        10, gt=0, le=600, description="seconds to wait for that scheduler to answer before giving up"
    )
    cluster: Literal["local", "slurm", "pbs"] = Field(
        "local", description="local | slurm | pbs: Dask workers as batch jobs (dask-jobqueue, README: Many machines)"
    )
    batch_workers: int = Field(4, ge=1, le=1000, description="slurm/pbs: worker jobs to start, one stage each")
    batch_queue: str = Field("", description='slurm/pbs: the partition or queue ("" = the site\'s default)')
    batch_account: str = Field("", description='slurm/pbs: the account billed ("" = your default)')
    batch_memory: str = Field(
        "8GB", pattern=r"^\d+(\.\d+)?\s*[KMGT]i?B$", description="slurm/pbs: memory per worker job"
    )
    batch_walltime: str = Field(
        "02:00:00", pattern=r"^(\d+-)?\d{1,2}:\d{2}:\d{2}$", description="slurm/pbs: time limit per worker job"
    )

    @field_validator("scheduler")
    @classmethod
    def _an_address(cls, value: str) -> str:
        if value and not re.fullmatch(r"(tcp|tls|ws|wss|inproc)://\S+", value):
            raise ValueError('not a Dask scheduler address; write it as "tcp://HOST:8786", or "" for a local cluster')
        return value

    batch_setup: list[str] = Field(
        [], description='slurm/pbs: shell lines each job runs first, e.g. ["source ~/seqanim/.venv/bin/activate"]'
    )


class Publish(Section):
    """publishing: the narrated video (voice, pacing, loudness), its captions and the transcript"""

    voice: Literal["hibari", "espeak", "piper", "recorded", "none"] = Field(
        "hibari",
        description="hibari (offline, default) | espeak (offline) | piper (voice_model) | recorded (narration/) | none",
    )
    hibari_speed: float = Field(1.0, ge=0.5, le=2.0, description="0.5..2.0; hibari speaking rate (1.0: its own pace)")
    voice_model: str = Field("", description="piper: the voice's .onnx file (its .onnx.json beside it)")
    fallback_voice: Literal["hibari", "espeak", "piper", "none"] = Field(
        "espeak", description="recorded: the voice of a slide whose narration/ file is missing"
    )
    espeak_voice: str = Field(
        "en-us",
        pattern=r"^[a-z]{2,3}([-+][A-Za-z0-9]+)*$",
        description="espeak-ng voice (`espeak-ng --voices` lists them), e.g. en-us, en-gb, de",
    )
    words_per_minute: int = Field(
        165, ge=80, le=400, description="80..400; espeak speaking rate, and with voice none the reading rate"
    )
    gap_s: float = Field(
        0.1, ge=0.0, le=10.0, description="0..10 s of pause after each beat's words (a slide's, without beats)"
    )
    loudness_lufs: float = Field(
        -16.0, ge=-30.0, le=-9.0, description="-30..-9 LUFS integrated (BS.1770; -16: video platforms)"
    )
    true_peak_db: float = Field(-1.5, ge=-9.0, le=0.0, description="-9..0 dBTP, the narration's true-peak ceiling")
    languages: list[str] = Field(
        ["en"],
        min_length=1,
        description="captions and transcript: the scenes' own language first, then each translation (de.py)",
    )

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, value: list[str]) -> list[str]:
        for code in value:
            if code not in LANGUAGES:
                raise ValueError(f"unknown language code {code!r}; known codes: {', '.join(LANGUAGES)}")
        if len(set(value)) < len(value):
            raise ValueError("a language appears twice; name each once")
        return value

    caption_chars: int = Field(
        42, ge=20, le=80, description="20..80 characters per caption line (2 lines per cue at most)"
    )


class Variants(Section):
    """ "what if?" variants: values at hand on the slide, e.g. adding.T = [20, 40, 80] (see README: Present)"""

    # "section.key" -> its values, each validated as --set validates it; the default value joins them if absent.
    values: dict[str, list[Any]] = Field(default_factory=dict)


ENGINE_TABLES: dict[str, type[Section]] = {
    "render": Render, "theme": Theme, "decks": Decks, "publish": Publish, "build": Build, "variants": Variants,
}  # fmt: skip


class Lecture(BaseModel):
    """The validated parameters: each experiment's table as plain values, and the engine's tables."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    experiments: dict[str, dict[str, Any]]
    render: Render = Render()
    theme: Theme = Theme()
    decks: Decks = Decks()
    publish: Publish = Publish()
    build: Build = Build()
    variants: Variants = Variants()

    def section(self, name: str) -> dict[str, Any]:
        """A table's values, JSON-able (what stage keys hash)."""
        if name in ENGINE_TABLES:
            return getattr(self, name).model_dump(mode="json")
        registry.experiment(name)
        return dict(self.experiments[name])

    def params(self, name: str) -> Params:
        """An experiment's parameters as its own model (imports the experiment's module)."""
        return registry.declaration(name).params.model_validate(self.section(name))

    def __getattr__(self, name: str) -> Any:
        # lecture.adding.T reads like the file; only experiment tables get here (fields are found first)
        experiments = self.__dict__.get("experiments") or {}
        if name in experiments:
            return self.params(name)
        return super().__getattr__(name)  # type: ignore[misc]


# --- errors ----------------------------------------------------------------------------------------------


def _value_at(raw: Any, loc: tuple[Any, ...]) -> Any:
    value = raw
    for part in loc:
        try:
            value = value[part] if not isinstance(value, list) else value[int(part)]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return value


# Keys that were renamed: the line that fixes an old lecture.toml.
RENAMED = {"publish.language": 'languages = ["en"] (a list: the scenes\' language first, then translations)'}


def _format_error(error: ValidationError, raw: dict[str, Any], model: type[BaseModel], table: str) -> str:
    first = error.errors()[0]
    loc = [str(p) for p in first["loc"]]
    key = ".".join([table, *loc])
    kind = first["type"]
    value = _value_at(raw, first["loc"])
    ctx = first.get("ctx") or {}
    if kind == "extra_forbidden":
        if key in RENAMED:
            return f"'{key}' is now {RENAMED[key]}"
        allowed = sorted(model.model_fields) if len(loc) == 1 else []
        return f"unknown key '{key}' in [{table}]; allowed keys: {', '.join(allowed)}"
    bounds = [
        f"{symbol} {ctx[name]}"
        for name, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
        if name in ctx
    ]
    if bounds:
        return f"{key} = {value!r} is out of range: allowed {' and '.join(bounds)}"
    message = first["msg"].removeprefix("Value error, ")
    if not loc:
        return f"[{table}]: {message}"
    if value is not None and kind != "value_error":
        return f"{key} = {value!r}: {message}"
    return f"{key}: {message}"


# --- experiment tables, validated by their own models ------------------------------------------------------


def _params_cache() -> Path:
    return workspace().state_dir / "params.json"


def _validate_experiments(raw: dict[str, dict[str, Any]], source: str) -> dict[str, dict[str, Any]]:
    """Each experiment's table, validated by its model (and checked against the tables it reads)."""
    known = registry.experiments()
    try:
        cache = json.loads(_params_cache().read_text())
    except (OSError, ValueError):
        cache = {}
    # The precompute folder's bytes are in every key: a changed model or default is validated again.
    folder = registry.folder_key(workspace().precompute)
    keys = {name: digest([folder, name, raw[name], [raw[up] for up in registry.upstream(name)]]) for name in known}
    validated: dict[str, dict[str, Any]] = {name: cache[keys[name]] for name in known if keys[name] in cache}
    models: dict[str, Params] = {}

    def model(name: str) -> Params:
        if name not in models:
            params_type = registry.declaration(name).params
            try:
                models[name] = params_type.model_validate(raw[name])
            except ValidationError as error:
                raise ConfigError(f"{source}: {_format_error(error, raw[name], params_type, name)}") from None
        return models[name]

    for name in known:
        if name in validated:
            continue
        params = model(name)
        try:
            params.check_upstream(**{up: model(up) for up in registry.experiment(name).reads})
        except ValueError as error:
            raise ConfigError(f"{source}: [{name}]: {error}") from None
        validated[name] = params.model_dump(mode="json")
    if any(keys[name] not in cache for name in known):
        cache.update({keys[name]: validated[name] for name in known})
        atomic_write_text(_params_cache(), json.dumps(dict(list(cache.items())[-PARAMS_CACHE_ENTRIES:])))
    return validated


# --- loading -----------------------------------------------------------------------------------------------


def parse_override(text: str) -> tuple[list[str], Any]:
    """`section.key=value` -> (["section", "key"], value), the value parsed as TOML."""
    if "=" not in text or "." not in text.split("=", 1)[0]:
        raise ConfigError(f"--set {text!r} must look like section.key=value, e.g. --set adding.T=41")
    path, raw_value = text.split("=", 1)
    try:
        value = tomllib.loads(f"v = {raw_value}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw_value  # a bare word such as high: take it as a string
    return path.strip().split("."), value


def _apply(raw: dict[str, Any], path: list[str], value: Any) -> None:
    node = raw
    for part in path[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"--set {'.'.join(path)}: {part} is not a table")
    node[path[-1]] = value


def validate(raw: dict[str, Any], source: str = "lecture.toml") -> Lecture:
    """Raw tables (as read from TOML) -> Lecture. Raises ConfigError with one line."""
    known = registry.experiments()
    for name, value in raw.items():
        if name not in known and name not in ENGINE_TABLES:
            tables = ", ".join([*known, *ENGINE_TABLES])
            raise ConfigError(
                f"{source}: unknown table [{name}]; known tables: {tables} "
                f"(a new experiment needs precompute/{name}.py)"
            )
        if not isinstance(value, dict):
            raise ConfigError(f"{source}: {name} must be a table ([{name}]), not a value")
    engine: dict[str, Any] = {}
    for name, model in ENGINE_TABLES.items():
        table = dict(raw.get(name, {}))
        if name == "decks":  # [decks.NAME] tables are extra decks; other [decks] keys are options
            table = {k: v for k, v in table.items() if not isinstance(v, dict)} | {
                "items": {k: v for k, v in table.items() if isinstance(v, dict)}
            }
        if name == "variants":  # `adding.T = [...]` is TOML's dotted key: {"adding": {"T": [...]}}
            table = {"values": _variant_values(table, known, source)}
        try:
            engine[name] = model.model_validate(table)
        except ValidationError as error:
            raise ConfigError(f"{source}: {_format_error(error, table, model, name)}") from None
    tables = {name: dict(raw.get(name, {})) for name in known}
    experiments = _validate_experiments(tables, source)
    for key, values in engine["variants"].values.items():  # each value as `--set key=value` would be checked
        section, field = key.split(".")
        for value in values:
            _validate_experiments({**tables, section: {**tables[section], field: value}}, f"{source}: [variants]")
    return Lecture(experiments=experiments, **engine)


def _variant_values(table: dict[str, Any], known: Iterable[str], source: str) -> dict[str, list[Any]]:
    """[variants] as "section.key" -> values: an experiment's parameter, with a list of values."""
    values: dict[str, list[Any]] = {}
    for section, keys in table.items():
        if section not in known or not isinstance(keys, dict):
            raise ConfigError(
                f"{source}: [variants] {section}: name an experiment's parameter, e.g. adding.T = [20, 40, 80] "
                f"(experiments: {', '.join(known)})"
            )
        for key, listed in keys.items():
            if not isinstance(listed, list) or not listed:
                raise ConfigError(
                    f"{source}: [variants] {section}.{key} = {listed!r}: give a list of values, e.g. [20, 40]"
                )
            values[f"{section}.{key}"] = listed
    return values


def load(path: Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> Lecture:
    """Read, override and validate the parameters file. Raises ConfigError with one line."""
    path = Path(path) if path else workspace().config
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: parameters file not found; pass --config FILE or restore lecture.toml") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error}); fix the line it names") from None
    for text in overrides:
        keys, value = parse_override(text)
        _apply(raw, keys, value)
    return validate(raw, path.name)


def with_value(lecture: Lecture, key: str, value: Any) -> Lecture:
    """`lecture` with one experiment parameter (`section.field`) set to `value`, validated as --set would be."""
    section, field = key.split(".")
    tables = {**lecture.experiments, section: {**lecture.experiments[section], field: value}}
    return lecture.model_copy(update={"experiments": _validate_experiments(tables, "[variants]")})


def current() -> Lecture:
    """The parameters a stage process runs with: the CLI's resolved ones, else lecture.toml."""
    blob = os.environ.get(CONFIG_ENV)
    if blob:
        return Lecture.model_validate_json(Path(blob).read_text())
    return load()


def experiment_params(lecture: Lecture, name: str) -> dict[str, Any]:
    """The parameters an artifact is made from: its own table plus those of every experiment it reads."""
    params = lecture.section(name)
    for dep in registry.upstream(name):
        params[f"upstream.{dep}"] = lecture.section(dep)
    return params
