"""The lecture's parameters: `lecture.toml`, validated by pydantic before any work starts.

Every table is one model. Unknown keys, wrong types and out-of-range values fail with one line that
names the key, the value and what is allowed. `--set section.key=value` overrides go through the same
validation.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from seqanim.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = ROOT / "lecture.toml"
# The render worker and scenes read the resolved parameters from here, so `--set` reaches them.
CONFIG_ENV = "SEQANIM_CONFIG_JSON"


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- seed 000: recurrent networks -------------------------------------------------------------


class LinearRnn(Section):
    size: int = Field(200, ge=2, le=4096)
    steps: int = Field(60, ge=2, le=1000)
    rhos: list[float] = Field(default_factory=lambda: [0.85, 0.95, 1.0, 1.05, 1.15], min_length=1, max_length=8)
    echo_rhos: list[float] = Field(default_factory=lambda: [0.9, 1.0, 1.1], min_length=1, max_length=4)
    echo_angle_divisor: int = Field(11, ge=3, le=100)
    seed: int = Field(0, ge=0)

    @field_validator("rhos", "echo_rhos")
    @classmethod
    def _positive(cls, values: list[float]) -> list[float]:
        for rho in values:
            if not 0 < rho <= 3:
                raise ValueError(f"spectral radius {rho} is outside (0, 3]")
        return values


class Adding(Section):
    T: int = Field(40, ge=4, le=400)
    hidden: int = Field(64, ge=2, le=512)
    iters: int = Field(600, ge=1, le=20000)
    batch: int = Field(128, ge=1, le=4096)
    lr: float = Field(5e-3, gt=0, le=1)
    clip: float = Field(1.0, gt=0, le=100)
    eval_every: int = Field(20, ge=1, le=1000)
    seed: int = Field(0, ge=0)
    test_size: int = Field(512, ge=16, le=100000)
    test_seed: int = Field(999, ge=0)
    example_seed: int = Field(3, ge=0)
    kinds: list[Literal["RNN", "LSTM", "GRU"]] = Field(default_factory=lambda: ["RNN", "LSTM", "GRU"], min_length=1)

    @model_validator(mode="after")
    def _lstm_trained(self) -> "Adding":
        if "LSTM" not in self.kinds:
            raise ValueError("kinds must include LSTM: lstm_inside opens the trained LSTM")
        if self.test_seed == self.seed:
            raise ValueError("test_seed must differ from seed: metrics are measured on held-out data")
        return self


class LstmInside(Section):
    example_seed: int = Field(4, ge=0)
    markers: list[int] = Field(default_factory=lambda: [7, 27], min_length=2, max_length=2)

    @field_validator("markers")
    @classmethod
    def _ordered(cls, markers: list[int]) -> list[int]:
        # The scene compares the write before, at and between the markers, so each needs a step around it.
        if markers[0] < 1 or markers[1] - markers[0] < 2:
            raise ValueError(f"markers {markers} must be two time steps >= 1, at least 2 apart")
        return markers


class Seq2Seq(Section):
    vocab: int = Field(12, ge=4, le=64)
    length: int = Field(10, ge=3, le=32)
    hidden: int = Field(64, ge=4, le=512)
    embed: int = Field(32, ge=2, le=512)
    attn: int = Field(64, ge=2, le=512)
    iters: int = Field(900, ge=1, le=20000)
    batch: int = Field(64, ge=1, le=4096)
    lr: float = Field(3e-3, gt=0, le=1)
    seed: int = Field(1, ge=0)
    example_seed: int = Field(7, ge=0)
    test_size: int = Field(512, ge=16, le=100000)
    test_seed: int = Field(4242, ge=0)
    bidirectional: bool = False

    @model_validator(mode="after")
    def _fits(self) -> "Seq2Seq":
        if self.length > self.vocab:
            raise ValueError(f"length {self.length} exceeds vocab {self.vocab}: the example uses distinct symbols")
        if self.test_seed == self.seed:
            raise ValueError("test_seed must differ from seed: metrics are measured on held-out data")
        return self


class Lookup(Section):
    n_keys: int = Field(8, ge=2, le=64)
    n_values: int = Field(8, ge=2, le=64)
    items: int = Field(6, ge=2, le=32)
    d: int = Field(64, ge=4, le=512)
    iters: int = Field(700, ge=1, le=20000)
    batch: int = Field(128, ge=1, le=4096)
    lr: float = Field(3e-3, gt=0, le=1)
    seed: int = Field(2, ge=0)
    example_seed: int = Field(5, ge=0)
    test_size: int = Field(2048, ge=16, le=100000)
    test_seed: int = Field(4243, ge=0)

    @model_validator(mode="after")
    def _fits(self) -> "Lookup":
        if self.items > self.n_keys:
            raise ValueError(f"items {self.items} exceeds n_keys {self.n_keys}: item keys are distinct")
        if self.test_seed == self.seed:
            raise ValueError("test_seed must differ from seed: metrics are measured on held-out data")
        return self


class GroupBy(Section):
    n_keys: int = Field(4, ge=1, le=32)
    length: int = Field(10, ge=2, le=64)
    d: int = Field(48, ge=4, le=512)
    iters: int = Field(1200, ge=1, le=20000)
    batch: int = Field(128, ge=1, le=4096)
    lr: float = Field(3e-3, gt=0, le=1)
    seed: int = Field(2, ge=0)
    example_seed: int = Field(8, ge=0)
    test_size: int = Field(2048, ge=16, le=100000)
    test_seed: int = Field(4244, ge=0)

    @model_validator(mode="after")
    def _held_out(self) -> "GroupBy":
        if self.test_seed == self.seed:
            raise ValueError("test_seed must differ from seed: metrics are measured on held-out data")
        return self


class Positional(Section):
    d_model: int = Field(64, ge=2, le=1024)
    length: int = Field(60, ge=12, le=1024)
    base: float = Field(10000.0, gt=1)
    wave_pairs: list[int] = Field(default_factory=lambda: [0, 4, 12], min_length=1, max_length=4)
    wave_samples: int = Field(8, ge=1, le=64)

    @field_validator("d_model")
    @classmethod
    def _even(cls, d_model: int) -> int:
        if d_model % 2:
            raise ValueError(f"d_model {d_model} must be even (sin/cos pairs)")
        return d_model

    @model_validator(mode="after")
    def _pairs_fit(self) -> "Positional":
        if any(not 0 <= p < self.d_model // 2 for p in self.wave_pairs):
            raise ValueError(f"wave_pairs {self.wave_pairs} must lie in [0, {self.d_model // 2 - 1}]")
        return self


class Rope(Section):
    d: int = Field(32, ge=4, le=1024)
    length: int = Field(32, ge=4, le=512)
    base: float = Field(10000.0, gt=1)
    seed: int = Field(0, ge=0)
    pairs: list[int] = Field(default_factory=lambda: [1, 4, 10], min_length=1, max_length=4)
    shift: int = Field(8, ge=1)
    offset: int = Field(3, ge=0)
    sweep_steps: int = Field(160, ge=2, le=10000)

    @model_validator(mode="after")
    def _fits(self) -> "Rope":
        if self.d % 2:
            raise ValueError(f"d {self.d} must be even (dimension pairs)")
        if any(not 0 <= p < self.d // 2 for p in self.pairs):
            raise ValueError(f"pairs {self.pairs} must lie in [0, {self.d // 2 - 1}]")
        if self.shift >= self.length:
            raise ValueError(f"shift {self.shift} must be below length {self.length}")
        if self.offset + self.shift >= self.length:
            raise ValueError(f"offset {self.offset} + shift {self.shift} must stay below length {self.length}")
        return self


class Scaling(Section):
    dims: list[int] = Field(default_factory=lambda: [2, 4, 8, 16, 32, 64, 128, 256, 512], min_length=2)
    n_keys: int = Field(16, ge=2, le=1024)
    n_samples: int = Field(4000, ge=10, le=100000)
    seed: int = Field(0, ge=0)
    sample_index: int = Field(0, ge=0)

    @field_validator("dims")
    @classmethod
    def _increasing(cls, dims: list[int]) -> list[int]:
        if any(d < 1 for d in dims) or dims != sorted(set(dims)):
            raise ValueError(f"dims {dims} must be increasing positive integers")
        return dims

    @model_validator(mode="after")
    def _sample_fits(self) -> "Scaling":
        if self.sample_index >= self.n_samples:
            raise ValueError(f"sample_index {self.sample_index} must be below n_samples {self.n_samples}")
        return self


# --- seed 003: why attention -------------------------------------------------------------------


class QkvWalkthrough(Section):
    query: list[float] = Field(default_factory=lambda: [1.0, 0.0], min_length=1)
    keys: list[list[float]] = Field(default_factory=lambda: [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], min_length=1)
    values: list[list[float]] = Field(default_factory=lambda: [[10.0, 0.0], [0.0, 10.0], [10.0, 10.0]], min_length=1)
    labels: list[str] = Field(default_factory=lambda: ["A", "B", "C"])
    queries: list[list[float]] = Field(default_factory=lambda: [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], min_length=1)
    temperature: float = Field(1.0, gt=0, le=100)
    temperatures: list[float] = Field(default_factory=lambda: [0.5, 1.0, 2.0], min_length=1)
    sweep: list[float] = Field(default_factory=lambda: [0.25, 4.0], min_length=2, max_length=2)
    sweep_steps: int = Field(61, ge=2, le=2001)
    is_real_key: list[bool] = Field(default_factory=lambda: [True, True, False])
    changed_index: int = Field(1, ge=0)
    changed_value: list[float] = Field(default_factory=lambda: [100.0, 100.0])
    removed_index: int = Field(1, ge=0)
    seed: int = Field(2026, ge=0)

    @model_validator(mode="after")
    def _shapes(self) -> "QkvWalkthrough":
        n, d_k = len(self.keys), len(self.query)
        if any(len(k) != d_k for k in self.keys) or any(len(q) != d_k for q in self.queries):
            raise ValueError(f"every key and query needs {d_k} coordinates, like query")
        if len(self.values) != n or len(self.labels) != n or len(self.is_real_key) != n:
            raise ValueError(f"values, labels and is_real_key need one entry per key ({n})")
        if any(t <= 0 for t in self.temperatures):
            raise ValueError(f"temperatures {self.temperatures} must all be > 0")
        if not 0 < self.sweep[0] < self.sweep[1]:
            raise ValueError(f"sweep {self.sweep} must be two increasing temperatures > 0")
        if any(not self.sweep[0] <= t <= self.sweep[1] for t in [*self.temperatures, self.temperature]):
            raise ValueError(f"temperatures {self.temperatures} and temperature {self.temperature} must lie inside sweep {self.sweep}")
        if not self.changed_index < n or not self.removed_index < n:
            raise ValueError(f"changed_index and removed_index must be below the number of keys ({n})")
        if not self.is_real_key[0]:
            raise ValueError("is_real_key[0] must be true: the first query row would have no allowed key")
        if len(self.changed_value) != len(self.values[0]):
            raise ValueError("changed_value needs as many coordinates as a value row")
        return self


# --- rendering, theme, decks, build ----------------------------------------------------------


class Render(Section):
    quality: Literal["low", "medium", "high", "4k"] = "low"
    jobs: int = Field(0, ge=0, le=64)  # 0 = all cores


HEX = r"^#[0-9a-fA-F]{6}$"


class Theme(Section):
    background: str = Field("#0f1117", pattern=HEX)
    foreground: str = Field("#e8e8ea", pattern=HEX)
    muted: str = Field("#8a8f98", pattern=HEX)
    # Okabe-Ito: the colourblind-safe palette seaborn's "colorblind" is built on.
    palette: list[str] = Field(
        default_factory=lambda: ["#0173b2", "#de8f05", "#029e73", "#d55e00", "#cc78bc", "#ca9161", "#fbafe4", "#56b4e9"],
        min_length=6,
    )
    font: str = "DejaVu Sans"
    heatmap: Literal["viridis", "magma", "cividis"] = "viridis"

    @field_validator("palette")
    @classmethod
    def _hex(cls, palette: list[str]) -> list[str]:
        import re

        for colour in palette:
            if not re.match(HEX, colour):
                raise ValueError(f"palette colour {colour!r} is not #rrggbb")
        return palette


DEFAULT_DECKS: dict[str, list[str]] = {
    "rnn": ["HiddenStateDynamics", "EchoOfAPulse", "AddingProblem", "TrainingRace", "InsideTheLSTM"],
    "recurrent-attention": ["ReverseAlignment", "SortAlignment"],
    "transformers": [
        "SelfAttentionLookup",
        "AttentionPooling",
        "SinusoidalPositions",
        "RopeRotation",
        "ScaledDotProduct",
    ],
    "why-attention": [
        "QueryKeyValue",
        "ScaledScores",
        "SoftmaxNormalization",
        "WeightedRetrieval",
        "QueryAndTemperature",
        "CausalMask",
        "PaddingMask",
        "WhatAttentionExplains",
    ],
}


class Deck(Section):
    title: str
    scenes: list[str] = Field(min_length=1)


class Decks(Section):
    one_file: bool = False  # also write <deck>.standalone.html with every video embedded
    handout_notes: bool = True
    items: dict[str, Deck] = Field(default_factory=dict)


class Build(Section):
    cache_mb: int = Field(4000, ge=0, le=1_000_000)


class Lecture(Section):
    linear_rnn: LinearRnn = LinearRnn()
    adding: Adding = Adding()
    lstm_inside: LstmInside = LstmInside()
    seq2seq_reverse: Seq2Seq = Seq2Seq()
    seq2seq_sort: Seq2Seq = Seq2Seq(length=8, iters=1500, lr=2e-3, example_seed=3, bidirectional=True, test_seed=4245)
    lookup: Lookup = Lookup()
    groupby: GroupBy = GroupBy()
    positional: Positional = Positional()
    rope: Rope = Rope()
    scaling: Scaling = Scaling()
    qkv_walkthrough: QkvWalkthrough = QkvWalkthrough()
    render: Render = Render()
    theme: Theme = Theme()
    decks: Decks = Decks()
    build: Build = Build()

    @model_validator(mode="after")
    def _cross_checks(self) -> "Lecture":
        if self.lstm_inside.markers[1] >= self.adding.T:
            raise ValueError(f"lstm_inside.markers {self.lstm_inside.markers} must lie below adding.T = {self.adding.T}")
        return self

    def section(self, name: str) -> dict[str, Any]:
        return getattr(self, name).model_dump(mode="json")

    def deck_list(self) -> dict[str, Deck]:
        return self.decks.items


# --- loading ---------------------------------------------------------------------------------


def _format_error(error: ValidationError, raw: dict[str, Any]) -> str:
    first = error.errors()[0]
    loc = [str(p) for p in first["loc"]]
    key = ".".join(loc) or "parameters"
    kind = first["type"]
    value: Any = raw
    for part in first["loc"]:
        try:
            value = value[part] if not isinstance(value, list) else value[int(part)]
        except (KeyError, IndexError, TypeError, ValueError):
            value = None
            break
    ctx = first.get("ctx") or {}
    if kind == "extra_forbidden":
        section = loc[0] if len(loc) > 1 else "the top level"
        allowed = _allowed_keys(loc[:-1])
        return f"unknown key '{key}' in {section}; allowed keys: {', '.join(allowed)}"
    bounds = []
    for name, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
        if name in ctx:
            bounds.append(f"{symbol} {ctx[name]}")
    if bounds:
        return f"{key} = {value!r} is out of range: allowed {' and '.join(bounds)}"
    message = first["msg"].removeprefix("Value error, ")
    if not loc:
        return message
    if value is not None and kind != "value_error":
        return f"{key} = {value!r}: {message}"
    return f"{key}: {message}"


def _allowed_keys(loc: list[str]) -> list[str]:
    model: type[BaseModel] = Lecture
    for part in loc:
        field = model.model_fields.get(part)
        if field is None or not isinstance(field.annotation, type) or not issubclass(field.annotation, BaseModel):
            return []
        model = field.annotation
    return sorted(model.model_fields)


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


def _normalise(raw: dict[str, Any]) -> dict[str, Any]:
    """[decks.<name>] tables become Decks.items; other [decks] keys stay options."""
    raw = dict(raw)
    decks = dict(raw.get("decks", {}))
    items = {k: v for k, v in decks.items() if isinstance(v, dict)}
    options = {k: v for k, v in decks.items() if not isinstance(v, dict)}
    if not items:
        items = {name: {"title": name.replace("-", " ").title(), "scenes": scenes} for name, scenes in DEFAULT_DECKS.items()}
    raw["decks"] = {**options, "items": items}
    return raw


def load(path: Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> Lecture:
    """Read, override and validate the parameters file. Raises ConfigError with one line."""
    path = Path(path) if path else DEFAULT_CONFIG
    try:
        raw = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: parameters file not found; pass --config FILE or restore lecture.toml") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error}); fix the line it names") from None
    for text in overrides:
        keys, value = parse_override(text)
        _apply(raw, keys, value)
    raw = _normalise(raw)
    try:
        return Lecture.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(f"{path.name}: {_format_error(error, raw)}") from None


def current() -> Lecture:
    """The parameters a scene or worker process runs with: the CLI's resolved ones, else lecture.toml."""
    blob = os.environ.get(CONFIG_ENV)
    if blob:
        return Lecture.model_validate_json(Path(blob).read_text())
    return load()


def digest(value: Any) -> str:
    """A stable content hash of any JSON-able value."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
