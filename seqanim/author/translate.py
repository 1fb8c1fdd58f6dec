"""A scene's words in the lecture's other languages, beat by beat (3Blue1Brown's model: the picture and the
voice stay, the captions and the transcript come in the listener's language).

A scene writes its words in `*_said` functions of its data, decorated with `@translated`:

    @translated
    def start_said(art: Artifact) -> dict[str, str]:
        return {"steps": "Softmax turns scores into weights, in three steps.", ...}

Each language's words for the part live in one file beside its scenes, `scenes/<part>/<code>.py` (`de.py`;
`scenes/de.py` for the parts written as one file): per scene a class
named after it, holding a function of the same name, arguments and beat names; a function the part's scenes
share (from `shared.py`) is written at the file's top level:

    class SoftmaxNormalization:
        @staticmethod
        def start_said(art: Artifact) -> dict[str, str]:
            return {"steps": "Softmax macht aus Scores Gewichte, in drei Schritten.", ...}

The words a decorated function returns know where they come from (`Said`), so the beat that says them asks
each language for the same beat of the same call: numbers come from the same data, and a changed parameter
changes every language's words. A beat without a translation keeps its English words (and is listed).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from seqanim.author.spoken import BOOKMARK
from seqanim.errors import SeqanimError
from seqanim.lecture.languages import LANGUAGES

P = ParamSpec("P")
W = TypeVar("W")


@dataclass(frozen=True)
class Origin:
    """Where a beat's words come from: the `*_said` function, its arguments, and the beat's place in what it
    returned (a name, a step's index, both, or nothing for a function of one beat)."""

    module: str
    function: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    place: tuple[str | int, ...]


class Said(str):
    """A beat's words, with their `origin`."""

    origin: Origin


def translated(words: Callable[P, W]) -> Callable[P, W]:
    """Mark a scene's `*_said` function as one whose beats each language writes again (see the module)."""

    @functools.wraps(words)
    def with_origin(*args: P.args, **kwargs: P.kwargs) -> W:
        def tag(value: Any, place: tuple[str | int, ...]) -> Any:
            if isinstance(value, str):
                said = Said(value)
                said.origin = Origin(words.__module__, words.__name__, args, kwargs, place)
                return said
            if isinstance(value, dict):
                return {name: tag(item, (*place, name)) for name, item in value.items()}
            if isinstance(value, list):
                return [tag(item, (*place, index)) for index, item in enumerate(value)]
            raise TypeError(f"{words.__name__} returns a {type(value).__name__}; return a str, a dict or a list")

        return tag(words(*args, **kwargs), ())

    with_origin.translated = True  # type: ignore[attr-defined]
    return with_origin


def language_file(scene_module: str, code: str) -> Any | None:
    """The part's words in `code` (`scenes.rnn.de` for `scenes.rnn.echo_of_a_pulse`), or None."""
    module = f"{scene_module.rpartition('.')[0]}.{code}"
    if importlib.util.find_spec(module) is None:
        return None
    return importlib.import_module(module)


def written_words(module: str, function: str, scene: type, code: str) -> Callable[..., Any] | None:
    """Language `code`'s version of the words function `function` of `module` (a scene's module or its part's
    shared.py), as `scene` says them: the method of the scene's class in the part's file, else the file's
    function of that name (words the part's scenes share); None where the file does not write it."""
    written = language_file(module, code)
    if written is None:
        return None
    return getattr(getattr(written, scene.__name__, None), function, None) or getattr(written, function, None)


def translation(said: str, scene: type, code: str) -> str | None:
    """The words of the beat `said` of `scene` in language `code`, bookmarks dropped; None where that language
    has no words for it (the beat was not written with `@translated`, or its file, function or beat is missing)."""
    origin = getattr(said, "origin", None)
    if origin is None or code not in LANGUAGES:
        return None
    words = written_words(origin.module, origin.function, scene, code)
    if words is None:
        return None
    where = f"{words.__module__.replace('.', '/')}.py: {scene.__name__}.{origin.function}"
    try:
        value: Any = words(*origin.args, **origin.kwargs)
    except Exception as error:  # noqa: BLE001 - a translation is the lecturer's code: say which one broke
        raise SeqanimError(f"{where} fails ({type(error).__name__}: {error}); fix it there") from None
    for step in origin.place:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    if not isinstance(value, str):
        raise SeqanimError(f"{where} gives a {type(value).__name__} for the beat {origin.place}; give it the words")
    # spaces collapsed, a no-break space kept ("98,7\u00a0%" stays on one caption line)
    return re.sub(r"[ \t\r\n]+", " ", BOOKMARK.sub(" ", value)).strip() or None


def untranslated(scene: type, code: str) -> list[str]:
    """The `@translated` functions in a scene's module (its own, and those it imports from the part's shared.py)
    that the `code` file beside each does not write (a beat missing inside a written function shows when the
    scene runs: the narration lists it)."""
    module = importlib.import_module(scene.__module__)
    return [
        name
        for name, value in vars(module).items()
        if getattr(value, "translated", False) and written_words(value.__module__, name, scene, code) is None
    ]
