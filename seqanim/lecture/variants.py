"""What if? variants (`[variants]` of lecture.toml): a few values of one experiment's parameter, each a parameter
set of its own. The build plans a value's stages beside the lecture's (seqanim.engine.graph): the experiments
the value changes and the scenes that read them, with outputs in the value's own folder
(`.seqanim/variants/<key>=<value>/`); no narration and no decks. seqanim.present.variants puts them on the slide.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from seqanim.errors import SeqanimError
from seqanim.lecture import registry
from seqanim.lecture.config import Lecture, parse_override, with_value
from seqanim.workspace import current


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
        """As `--set` spells it: "adding.T=40"."""
        return f"{self.key}={_toml(self.value)}"

    @property
    def root(self) -> Path:
        """Where its outputs lie: data/, renders/ and slides/ as in the lecture's own folder."""
        slug = re.sub(r"[^\w.=-]+", "_", self.setting)
        if slug != self.setting:  # a string or a list: a digest keeps apart two values spelled alike
            slug += "-" + hashlib.sha256(self.setting.encode()).hexdigest()[:8]
        return current().variants / slug

    def lecture(self, lecture: Lecture) -> Lecture:
        """The lecture's parameters with this value."""
        return with_value(lecture, self.key, self.value)


def _toml(value: Any) -> str:
    return json.dumps(value)  # JSON's numbers, strings, booleans and lists read the same in TOML


def scenes_fed_by(experiment: str) -> tuple[str, ...]:
    """The scenes that read `experiment`'s data, or data made from it."""
    fed = {name for name in registry.experiments() if name == experiment or experiment in registry.upstream(name)}
    return tuple(name for name, spec in registry.scenes().items() if fed & set(spec.data))


def declared(lecture: Lecture) -> list[Variant]:
    """Every variant, per key in the cycle order `[` and `]` follow: its values, the default among them (in
    order when they are numbers, else first). Values are taken as validated: 30 and 30.0 of an integer are one."""
    found: list[Variant] = []
    for key, values in lecture.variants.values.items():
        section, field = key.split(".")
        default = lecture.section(section)[field]
        cycle = list(dict.fromkeys(json.dumps(with_value(lecture, key, v).section(section)[field]) for v in values))
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
    keys, value = parse_override(setting)
    for variant in declared(lecture):
        if variant.key == ".".join(keys) and variant.value == value:
            return variant
    listed = ", ".join(variant.setting for variant in declared(lecture)) or "none: add a [variants] table"
    raise SeqanimError(f"--variant {setting} is not a declared variant; declared in lecture.toml: {listed}")
