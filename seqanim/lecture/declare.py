"""What a lecture module declares about itself, in Python.

An experiment, `precompute/<name>.py`:

    class Parameters(Params):            # its table in lecture.toml: defaults, ranges, one-line docs, once
        T: int = Field(40, ge=4, le=400, description="sequence length")

    EXPERIMENT = Experiment(Parameters, reads=("adding",), extra_outputs=("adding_lstm.pt",), seconds=13)

    def run(params: Parameters, **upstream: Params) -> tuple[arrays, metrics]: ...

A lecture part is one deck: a folder `scenes/<part>/` with one file per scene (a subclass of
`seqanim.author.slide.LectureSlide` with `data = ("experiment", ...)`, its words beside it), whose `__init__.py` says
the part's title, place and scene order without importing the scenes:

    PART = Part("Recurrent neural networks", order=1, scenes=("echo_of_a_pulse", "hidden_state_dynamics"))

(A part may also be one module, `scenes/<part>.py`, whose scenes play in the order it defines them.)

This module imports only pydantic: the engine reads declarations without importing torch or manim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Experiment", "Field", "Params", "Part"]


class Params(BaseModel):
    """One experiment's table of lecture.toml. Unknown keys are refused; every field has a description,
    which becomes its comment in lecture.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def check_upstream(self, **upstream: Params) -> None:
        """Checks that need the parameters of the experiments this one reads; raise ValueError with the fix."""


@dataclass(frozen=True)
class Experiment:
    params: type[Params]
    reads: tuple[str, ...] = ()  # experiments whose data/ this one reads; their parameters reach `run`
    extra_outputs: tuple[str, ...] = ()  # files besides data/<name>.npz and .json, e.g. a state dict
    seconds: float = 0.1  # a cold build's guess of its run time on one core, so the longest starts first

    def __post_init__(self) -> None:
        if not (isinstance(self.params, type) and issubclass(self.params, Params)):
            raise TypeError("Experiment(params=...) takes a subclass of seqanim.lecture.declare.Params")
        if self.seconds < 0:
            raise ValueError("Experiment(seconds=...) must be >= 0")


@dataclass(frozen=True)
class Part:
    title: str  # the deck's title card and the divider in the full deck
    order: int  # position in the full deck
    # A part that is a folder, scenes/<part>/: its scene files in the order they play (their module names, e.g.
    # "echo_of_a_pulse" for scenes/rnn/echo_of_a_pulse.py). A part that is one module plays in file order.
    scenes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, "order": self.order}
