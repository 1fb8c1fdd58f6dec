"""Fingerprints of code: the project modules a stage's code imports, found by reading them (nothing is imported),
and each one's content hash. A stage's key covers them (seqanim.engine.graph), so editing a module reruns the
stages whose code imports it, and only those.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

import seqanim
from seqanim.files import digest
from seqanim.workspace import ENGINE, current

# Modules whose effect reaches a stage only through parameter values, which are hashed already.
NOT_CODE_INPUTS = {
    f"seqanim/{name}.py"
    for name in (
        "lecture/config", "lecture/registry", "lecture/declare", "lecture/variants", "errors", "engine/graph",
        "engine/code", "workspace", "cli",
        # the packages' own docstrings
        *(f"{package}/__init__" for package in ("lecture", "author", "engine", "publish", "present")),
    )
}  # fmt: skip


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _local_module_path(module: str) -> Path | None:
    parts = module.split(".")
    if parts[0] not in {"seqanim", "precompute", "scenes"}:
        return None
    base = ENGINE.parent if parts[0] == "seqanim" else current().root
    as_file = base.joinpath(*parts).with_suffix(".py")
    if as_file.exists():
        return as_file
    as_package = base.joinpath(*parts, "__init__.py")
    return as_package if as_package.exists() else None


# Import statements, found by their shape: a full parse of every module costs more than the rest of planning.
# A docstring line that looks like an import adds a dependency; only an `if TYPE_CHECKING:` block is skipped.
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#]+)", re.MULTILINE)


# Imports for type checkers only: they never run, so they feed no stage (seqanim/__init__.py names the whole
# public API this way, which would make every stage depend on every module it names).
_TYPE_CHECKING = re.compile(r"^if TYPE_CHECKING:\n(?:(?:[ \t]+.*)?\n)*", re.MULTILINE)


@cache
def _local_imports(path: Path) -> tuple[Path, ...]:
    """The project modules `path` imports directly. Cached: the experiments share most of their modules."""
    text = _TYPE_CHECKING.sub("", path.read_text())
    names: list[str] = []
    for module, imported in _FROM_IMPORT.findall(text):
        names.append(module)
        for alias in imported.strip("()").replace("\n", ",").split(","):
            if alias.split():
                name = alias.split()[0]
                names.append(f"{module}.{name}")
                if module == "seqanim" and name in seqanim.PUBLIC:  # `from seqanim import LectureSlide`
                    names.append(seqanim.PUBLIC[name])
    for imported in _IMPORT.findall(text):
        names += [alias.split()[0] for alias in imported.split(",") if alias.split()]
    found = {module: None for module in map(_local_module_path, names) if module is not None}
    return tuple(found)


@cache
def code_closure(path: Path) -> tuple[Path, ...]:
    """`path` and every project module it imports, transitively (read as text, nothing is imported)."""
    seen: dict[Path, None] = {}
    stack = [path]
    while stack:
        current = stack.pop()
        if current not in seen:
            seen[current] = None
            stack.extend(module for module in _local_imports(current) if module not in seen)
    return tuple(sorted(seen))


def forget_code() -> None:
    """Forget the cached import graph: the code on disk changed (`seqanim watch`)."""
    _local_imports.cache_clear()
    code_closure.cache_clear()


def code_label(module: Path) -> str:
    """`seqanim/engine/graph.py` for the engine, `precompute/adding.py` for the workspace's own modules."""
    if module.is_relative_to(ENGINE):
        return module.relative_to(ENGINE.parent).as_posix()
    return current().label(module)


def code_inputs(path: Path) -> dict[str, str]:
    """`code:LABEL` -> content hash, for `path` and every project module it imports: what a stage's key covers."""
    result = {}
    for module in code_closure(path):
        relative = code_label(module)
        if relative == "seqanim/__init__.py":  # its docstring maps the package; only its table of names is code
            result[f"code:{relative}"] = digest(seqanim.PUBLIC)[:16]
        elif relative not in NOT_CODE_INPUTS:
            result[f"code:{relative}"] = file_hash(module)
    return result
