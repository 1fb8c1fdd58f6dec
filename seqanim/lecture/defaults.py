"""lecture.toml written from the parameter models, so a default and its comment live in one place.

`seqanim config --defaults` prints the whole file with every default; `seqanim config --check` (and a
test) checks that lecture.toml names every key of every table with the model's comment. The values are
the lecturer's: only their validity is checked, by `seqanim.lecture.config`.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from seqanim.lecture import registry
from seqanim.lecture.config import ENGINE_TABLES

HEADER = """\
# seqanim lecture parameters. Every number on screen is computed from these.
# Change a value, run `make` (or `seqanim build`) again: only the stages that depend on it rerun.
# Try one change without editing this file: `seqanim build --dry-run --set adding.T=41`.
# Defaults reproduce the seed notebooks (../shared/seeds). Each table's defaults, ranges and comments live in
# its experiment's module (precompute/<table>.py, class Parameters); `seqanim config --defaults` prints this file.
"""
COMMENT_COLUMN = 44


def toml_value(value: Any) -> str:
    """A JSON-able value in TOML: JSON's numbers, strings, booleans and arrays are TOML's too."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return f"{value:.1f}"
    return json.dumps(value, ensure_ascii=False)


def _line(key: str, value: Any, comment: str) -> str:
    assignment = f"{key} = {toml_value(value)}"
    return f"{assignment:<{COMMENT_COLUMN - 1}} # {comment}" if comment else assignment


def _fields(model: type[BaseModel]) -> dict[str, tuple[Any, str]]:
    """key -> (default, comment), in the model's order; fields without a description are not in the file."""
    defaults = model().model_dump(mode="json")
    return {
        key: (defaults[key], field.description or "") for key, field in model.model_fields.items() if field.description
    }


def lecture_order() -> list[str]:
    """Experiments in the order the full deck first shows them, then any no scene reads."""
    order: list[str] = []
    for part in registry.parts().values():
        for scene in part.scenes:
            for name in [
                *[up for data in registry.scene(scene).data for up in registry.upstream(data)],
                *registry.scene(scene).data,
            ]:
                if name not in order:
                    order.append(name)
    return order + [name for name in registry.experiments() if name not in order]


def tables() -> dict[str, tuple[str, dict[str, tuple[Any, str]]]]:
    """Table name -> (heading, key -> (default, comment)), in file order."""
    result = {}
    for name in lecture_order():
        result[name] = (registry.experiment(name).title, _fields(registry.declaration(name).params))
    for name, model in ENGINE_TABLES.items():
        result[name] = ((model.__doc__ or name).strip().splitlines()[0], _fields(model))
    return result


def table(name: str) -> str:
    """One table of lecture.toml with its defaults: heading comment, [name], a commented line per key."""
    heading, fields = tables()[name]
    lines = [f"# --- {heading}", f"[{name}]"]
    lines += [_line(key, default, comment) for key, (default, comment) in fields.items()]
    return "\n".join(lines) + "\n"


def render() -> str:
    """The full lecture.toml with every default."""
    return "\n".join([HEADER, *(table(name) for name in tables())])


def _comment(line: str) -> str:
    """The comment of a `key = value  # comment` line: after the first # that is not inside the value."""
    for position, character in enumerate(line):
        if character == "#":
            try:
                tomllib.loads(line[:position])
            except tomllib.TOMLDecodeError:
                continue
            return line[position + 1 :].strip()
    return ""


def problems(path: Path) -> list[str]:
    """What the file lacks or says differently from the models (keys and comments, not values)."""
    text = path.read_text()
    raw = tomllib.loads(text)
    comments: dict[tuple[str, str], str] = {}
    table = ""
    for line in text.splitlines():
        header = re.match(r"^\s*\[([^\]]+)\]", line)
        if header:
            table = header.group(1).strip()
            continue
        key = re.match(r"^\s*([A-Za-z_][\w-]*)\s*=", line)
        if key:
            comments[(table, key.group(1))] = _comment(line)
    found = []
    for name, (_, fields) in tables().items():
        present = raw.get(name, {})
        for key, (_, comment) in fields.items():
            if key not in present:
                found.append(f"[{name}] {key} is missing (its default: `seqanim config --defaults`)")
            elif comments.get((name, key)) != comment:
                found.append(f"[{name}] {key}: the comment should read '# {comment}'")
    return found
