"""seqanim: a lecture whose every figure is an animated scene drawn from real computation.

    lecture.toml -> precompute/ -> data/ -> scenes/ -> renders/ (mp4) -> slides/ (decks)

What a lecture's own files use, importable from here (`from seqanim import LectureSlide, mark`):

- an experiment (`precompute/NAME.py`): `Experiment`, `Params`, `Field`; `DataError` for bad data;
- a scene (`scenes/PART/SCENE.py`): `LectureSlide` (its base class: data, notes, beats of narration),
  `Beat`, `Artifact` (an experiment's arrays and metrics), `Part` (a part's title, order and scenes);
- its words: `spoken`, numbers and lists as a listener hears them (`mark`, `number`, `integer`, `count`,
  `listing`, `percent`, `sentence`);
- its pictures: `seqanim.kit` (theme, heatmap, bars, plots, vectors, readouts, motion).

The engine behind them, by stage of the pipeline: `config` and `declare` (lecture.toml and what modules
declare), `registry` (discovery), `graph` and `build` (plan, cache, publish), `cluster`, `task` and `worker`
(stages on Dask), `experiments`, `render` and `slide` (scenes), `voice`, `captions` and `narrate` (the
narrated cut), `decks/` (HTML, PDF, PPTX, video, transcript), `present`, and `cli` (the commands).

The names load on first use, so `import seqanim` stays cheap (a no-op build imports neither torch nor manim).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

PUBLIC = {  # name -> the module it comes from (seqanim.graph follows these as imports)
    "Experiment": "seqanim.declare",
    "Field": "seqanim.declare",
    "Params": "seqanim.declare",
    "Part": "seqanim.declare",
    "DataError": "seqanim.errors",
    "Artifact": "seqanim.contract",
    "LectureSlide": "seqanim.slide",
    "Beat": "seqanim.slide",
    "mark": "seqanim.spoken",
    "number": "seqanim.spoken",
    "integer": "seqanim.spoken",
    "count": "seqanim.spoken",
    "listing": "seqanim.spoken",
    "percent": "seqanim.spoken",
    "sentence": "seqanim.spoken",
}

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
]

if TYPE_CHECKING:
    from seqanim.contract import Artifact
    from seqanim.declare import Experiment, Field, Params, Part
    from seqanim.errors import DataError
    from seqanim.slide import Beat, LectureSlide
    from seqanim.spoken import count, integer, listing, mark, number, percent, sentence


def __getattr__(name: str) -> Any:
    """`seqanim.LectureSlide` and the other public names, imported from their module when first asked for."""
    if name not in PUBLIC:
        raise AttributeError(f"module 'seqanim' has no attribute {name!r}")
    value = getattr(import_module(PUBLIC[name]), name)
    globals()[name] = value
    return value
