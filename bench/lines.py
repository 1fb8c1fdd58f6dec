"""The codebase's size, as issue #35 measures it, and the engine's map checked against the code.

Prints the lines (`wc -l`, and code alone: no docstring, comment or blank line) of the build core, of
`seqanim/` without `kit/`, of `scenes/` and `precompute/`; the functions of `seqanim/` over 60 lines; and,
for each concept of the engine's map (the table "The engine's code, concept by concept" in docs/engine.md),
the places it lives and their lines. Every top-level name of the build core must be on the map, and every
name on the map in the code: `--check` prints only what is not, and exits 1 if anything is
(tests/test_authoring.py runs it).

    .venv/bin/python bench/lines.py [--check]
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE_DOC = ROOT / "docs" / "engine.md"
MAP_TITLE = "## The engine's code, concept by concept"
# The build core as #35 names it: plan, cache, run, files, stage kinds.
CORE = [
    *sorted((ROOT / "seqanim" / "engine").glob("*.py")),
    ROOT / "seqanim" / "files.py",
    ROOT / "seqanim" / "workspace.py",
    ROOT / "seqanim" / "stages" / "__init__.py",
]
GOALS = {"build core": 1000, "seqanim/ without kit/": 5000}  # the issue's, in lines of `wc -l`
LONG_FUNCTION = 60
# Where a full disk is found or passed on (the one line itself is files.disk_full's).
FULL_DISK = re.compile(r"\b(FULL|NEARLY_FULL|disk_full|DiskFull|naming_a_full_disk|tool_wrote_to_a_full_disk)\b")


def code_lines(source: str) -> int:
    """Lines holding code: not blank, not a comment, not a docstring."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped:
            lines.update(line for line in range(token.start[0], token.end[0] + 1) if line not in docstrings)
    return len(lines)


def size(paths: list[Path]) -> tuple[int, int]:
    texts = [path.read_text() for path in paths]
    return sum(len(text.splitlines()) for text in texts), sum(code_lines(text) for text in texts)


def top_level(path: Path) -> dict[str, int]:
    """Each top-level function, class and constant of a module, with its lines."""
    names: dict[str, int] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node.end_lineno - node.lineno + 1
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    names[target.id] = node.end_lineno - node.lineno + 1
    return names


def engine_map() -> list[tuple[str, dict[str, list[str]]]]:
    """The map's rows: a concept, and per module (relative to seqanim/) the names it lives in."""
    text = ENGINE_DOC.read_text()
    if MAP_TITLE not in text:
        sys.exit(f"docs/engine.md has no section {MAP_TITLE!r}")
    rows = []
    for line in text.split(MAP_TITLE, 1)[1].split("\n## ", 1)[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not line.startswith("|") or cells[0] in ("concept", "---"):
            continue
        places: dict[str, list[str]] = {}
        for part in cells[1].split(";"):
            module, _, names = part.partition(":")
            places[module.strip().strip("`")] = re.findall(r"`([\w.]+)`", names)
        rows.append((cells[0], places))
    return rows


def full_disk_places() -> dict[str, int]:
    """Per module of seqanim/ but files.py, its lines (not imports) that find or pass on a full disk."""
    places = {}
    for path in sorted((ROOT / "seqanim").rglob("*.py")):
        text = path.read_text()
        found = [
            line
            for line in text.splitlines()
            if (match := FULL_DISK.search(line))
            and not line.lstrip().startswith(("from ", "import "))
            and (match[1] != "FULL" or re.search(r"from seqanim.files import .*\bFULL\b", text))  # not a deck's name
        ]
        if found and path != ROOT / "seqanim" / "files.py":
            places[path.relative_to(ROOT / "seqanim").as_posix()] = len(found)
    return places


def long_functions() -> list[str]:
    found = []
    for path in sorted((ROOT / "seqanim").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > LONG_FUNCTION:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the map against the code")
    check = parser.parse_args().check

    names = {path.relative_to(ROOT / "seqanim").as_posix(): top_level(path) for path in CORE}
    problems, rows = [], []
    mapped: set[tuple[str, str]] = set()
    for concept, places in engine_map():
        lines, modules = 0, []
        for module, listed in places.items():
            modules.append(module)
            for name in listed:
                if name not in names.get(module, {}):
                    problems.append(f"docs/engine.md names {module}: {name}, which the code does not have")
                    continue
                mapped.add((module, name))
                lines += names[module][name]
        rows.append((concept, lines, modules))
    for module, defined in names.items():
        problems += [
            f"{module}: {name} is on no row of the engine's map" for name in defined if (module, name) not in mapped
        ]
    for problem in problems:
        print(problem)
    if check:
        sys.exit(1 if problems else 0)

    print(f"the engine's map ({len(rows)} concepts; lines of their functions, classes and constants):")
    for concept, lines, modules in rows:
        print(f"  {lines:4}  {concept}  [{', '.join(modules)}]")
    print(f"  {sum(lines for _, lines, _ in rows):4}  in all (the rest: module docstrings and imports)")
    spread = [concept for concept, _, modules in rows if len(modules) > 1]
    print(f"concepts in more than one module: {len(spread)}" + (f" ({'; '.join(spread)})" if spread else ""))
    places = full_disk_places()
    print(
        f"a full disk found or passed on: {sum(places.values())} lines in {len(places)} modules besides files.py "
        f"({', '.join(f'{module} {count}' for module, count in places.items())})"
    )
    long = long_functions()
    print(f"functions of seqanim/ over {LONG_FUNCTION} lines: {len(long)}" + "".join(f"\n  {f}" for f in long))
    print()
    without_kit = [p for p in (ROOT / "seqanim").rglob("*.py") if "kit" not in p.relative_to(ROOT / "seqanim").parts]
    print(f"{'lines (wc -l / code alone)':42} {'wc -l':>7} {'code':>7} {'goal':>7}")
    for label, paths in (
        ("build core", CORE),
        ("seqanim/ without kit/", without_kit),
        ("seqanim/kit/", list((ROOT / "seqanim" / "kit").rglob("*.py"))),
        ("scenes/", list((ROOT / "scenes").rglob("*.py"))),
        ("precompute/", list((ROOT / "precompute").rglob("*.py"))),
    ):
        total, code = size(paths)
        goal = GOALS.get(label)
        print(f"{label:42} {total:7,} {code:7,} {f'{goal:,}' if goal else '':>7}".rstrip())
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
