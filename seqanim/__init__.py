"""seqanim: a lecture whose every figure is an animated scene drawn from real computation.

    lecture.toml -> precompute/ -> data/ -> scenes/ -> renders/ (mp4) -> slides/ (decks)

What a lecture's own files use, importable from here (`from seqanim import LectureSlide, mark`):

- an experiment (`precompute/NAME.py`): `Experiment`, `Params`, `Field`; `DataError` for bad data;
- a scene (`scenes/PART/SCENE.py`): `LectureSlide` (its base class: data, notes, beats of narration),
  `Beat`, `Artifact` (an experiment's arrays and metrics), `Part` (a part's title, order and scenes);
- its words: `spoken`, numbers and lists as a listener hears them (`mark`, `number`, `integer`, `count`,
  `listing`, `percent`, `sentence`), and `translated`, which lets each language write a beat again;
- its pictures: `seqanim.kit` (theme, heatmap, bars, plots, vectors, readouts, motion).

The engine behind them, one package per role, in the order of the pipeline:

    lecture/   lecture.toml and its defaults, what modules declare, the registry, the data contract
    author/    the slide base class (beats, bookmarks, notes, layout check) and the spoken forms
    kit/       pictures only: mobjects, theme, motion, the layout check (imports nothing else here)
    engine/    the plan and its cache (graph, code), running it on Dask (build, cluster, task, worker)
    workspace.py, files.py, errors.py   where everything lives, atomic writes, the one-line error
    stages/    each kind of stage declared once: what feeds it and what it makes, how it runs (an experiment's
               run: experiments; a scene's render: render), the command that rebuilds one
    publish/   the voices and their word timings, captions, a scene's narrated cut
    decks/     the title cards and the HTML, PDF, PPTX, transcript and video of a deck
    present/   the Qt presenter and the "what if?" variants
    cli.py     the commands, over the above

The names load on first use, so `import seqanim` stays cheap (a no-op build imports neither torch nor manim).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

PUBLIC = {  # name -> the module it comes from (seqanim.engine.graph follows these as imports)
    "Experiment": "seqanim.lecture.declare",
    "Field": "seqanim.lecture.declare",
    "Params": "seqanim.lecture.declare",
    "Part": "seqanim.lecture.declare",
    "DataError": "seqanim.errors",
    "Artifact": "seqanim.lecture.contract",
    "LectureSlide": "seqanim.author.slide",
    "Beat": "seqanim.author.slide",
    "mark": "seqanim.author.spoken",
    "number": "seqanim.author.spoken",
    "integer": "seqanim.author.spoken",
    "count": "seqanim.author.spoken",
    "listing": "seqanim.author.spoken",
    "percent": "seqanim.author.spoken",
    "sentence": "seqanim.author.spoken",
    "translated": "seqanim.author.translate",
    "spoken": "seqanim.author.spoken",  # the module itself: `spoken.number(...)`
}
MODULES = {"spoken"}

__all__ = [
    "Artifact",
    "Beat",
    "DataError",
    "Experiment",
    "Field",
    "LectureSlide",
    "Params",
    "Part",
    "count",
    "integer",
    "listing",
    "mark",
    "number",
    "percent",
    "sentence",
    "spoken",
    "translated",
]

if TYPE_CHECKING:
    from seqanim.author import spoken
    from seqanim.author.slide import Beat, LectureSlide
    from seqanim.author.spoken import count, integer, listing, mark, number, percent, sentence
    from seqanim.author.translate import translated
    from seqanim.errors import DataError
    from seqanim.lecture.contract import Artifact
    from seqanim.lecture.declare import Experiment, Field, Params, Part


def __getattr__(name: str) -> Any:
    """`seqanim.LectureSlide` and the other public names, imported from their module when first asked for."""
    if name not in PUBLIC:
        raise AttributeError(f"module 'seqanim' has no attribute {name!r}")
    module = import_module(PUBLIC[name])
    value = module if name in MODULES else getattr(module, name)
    globals()[name] = value
    return value
