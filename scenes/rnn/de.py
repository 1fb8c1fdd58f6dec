"""Deutsch: die Worte des Teils über rekurrente Netze, Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Zahlen kommen aus denselben Daten wie im Englischen."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from scenes.rnn.adding_problem import example
from scenes.rnn.adding_problem import markers as marked_steps
from scenes.rnn.echo_of_a_pulse import echo_facts
from scenes.rnn.hidden_state_dynamics import decade_span, flat_curve, radius_runs, sweep_facts
from scenes.rnn.inside_the_lstm import (
    answer_facts,
    first_marker_facts,
    gates_facts,
    holding_facts,
    opening_facts,
    second_marker_facts,
)
from scenes.rnn.shared import growth, regime, two_digits
from scenes.rnn.training_race import verdict
from seqanim import Artifact
from seqanim.author.german import anzahl, aufzaehlung, ganz, zahl


def _gerundet(value: float) -> str:
    """Eine positive Zahl auf zwei gültige Stellen, wie `shared.about` sie spricht: 17174 -> "17.000"."""
    if not math.isfinite(value) or value <= 0:
        return zahl(value, 2)
    rounded, decimals = two_digits(value)
    return zahl(rounded, decimals) if decimals > 0 else ganz(round(rounded))


def _mal(value: float) -> str:
    """Ein Faktor: "zwölfmal", "22-mal", "2,9-mal"."""
    text = _gerundet(value)
    return f"{text}mal" if text.isalpha() else f"{text}-mal"


@dataclass(frozen=True)
class Veraenderung:
    """Wie sich eine Länge verändert hat, als Verb und Rest: "ist" und "etwa 22-mal kürzer"."""

    verb: str
    rest: str


def _veraendert(ratio: float) -> Veraenderung:
    """Wie sich eine Länge über einen Lauf verändert hat, aus dem Verhältnis von Ende zu Anfang."""
    grown = growth(ratio)
    if grown.way == "kept":
        return Veraenderung("hat", "seine Länge behalten")
    return Veraenderung("ist", f"etwa {_mal(grown.factor)} {'kürzer' if grown.way == 'shrunk' else 'länger'}")


def _gross(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- HiddenStateDynamics ------------------------------------------------------------------------------------

WO = {
    "forgetting": "innerhalb des Einheitskreises",
    "stable memory": "auf dem Einheitskreis",
    "exploding": "außerhalb des Einheitskreises",
}
FOLGE = {
    "forgetting": "Das Netz vergisst.",
    "stable memory": "Das Gedächtnis hält.",
    "exploding": "Es explodiert.",
}

# Was der Ring der Eigenwerte tut, während ρ wächst, nach den Regimen von Anfang und Ende des Laufs.
DURCH = {
    ("forgetting", "exploding"): "wächst durch den Einheitskreis",
    ("forgetting", "stable memory"): "wächst bis an den Einheitskreis",
    ("forgetting", "forgetting"): "wächst, bleibt aber innerhalb des Einheitskreises",
    ("stable memory", "exploding"): "wächst vom Einheitskreis nach außen",
    ("stable memory", "stable memory"): "bleibt auf dem Einheitskreis",
    ("exploding", "exploding"): "wächst, bleibt aber außerhalb des Einheitskreises",
}


class HiddenStateDynamics:
    @staticmethod
    def stage_said(steps: int, size: int) -> dict[str, str]:
        return {
            "written": (
                "Ein lineares rekurrentes Netz multipliziert seinen Zustand in jedem Schritt mit derselben Matrix: "
                "einer Drehung, skaliert mit ρ."
            ),
            "plotted": f"Links die Länge des Zustands über {ganz(steps)} Zeitschritte, auf logarithmischer Skala.",
            "diagrams": (
                f"In der Mitte die {ganz(size)} Eigenwerte der Matrix, alle auf einem Kreis mit Radius ρ; "
                "rechts der Zustand als Pfeil."
            ),
        }

    @staticmethod
    def regime_said(name: str, rhos: np.ndarray, norms: np.ndarray, indices: list[int]) -> list[str]:
        steps = norms.shape[1] - 1
        said = []
        for place, run in enumerate(radius_runs(rhos, norms, indices)):
            rho, changed = zahl(run.rho, 2), _veraendert(run.ratio)
            if place == 0:
                said.append(
                    f"Bei ρ = {rho} liegt jeder Eigenwert {WO[name]}, "
                    f"und nach {ganz(steps)} Schritten {changed.verb} der Zustand {changed.rest}."
                )
            else:
                said.append(f"Bei ρ = {rho} {changed.verb} der Zustand {changed.rest}.")
        said[-1] += f" {FOLGE[name]}"
        return said

    @staticmethod
    def sweep_said(rhos: np.ndarray) -> dict[str, str]:
        facts = sweep_facts(rhos)
        lit = "Die Kurve des nächstgelegenen ρ leuchtet auf:"
        if facts.inside and facts.outside:
            shrinking = f"{lit} Außerhalb des Kreises explodiert das Signal, innerhalb stirbt es."
        elif facts.inside:
            shrinking = f"{lit} Kein Radius hier liegt außerhalb des Kreises; innerhalb stirbt das Signal."
        elif facts.outside:
            shrinking = f"{lit} Außerhalb des Kreises explodiert das Signal; kein Radius hier liegt innerhalb."
        else:
            shrinking = f"{lit} Jeder Radius hier liegt auf dem Kreis, und das Signal behält seine Länge."
        return {
            "growing": (
                f"Nun läuft ρ von {zahl(float(rhos.min()), 2)} bis {zahl(float(rhos.max()), 2)}, "
                f"und der Ring der Eigenwerte {DURCH[facts.start, facts.end]}."
            ),
            "shrinking": shrinking,
        }

    @staticmethod
    def verdict_said(rhos: np.ndarray, norms: np.ndarray) -> dict[str, str]:
        steps = norms.shape[1] - 1
        decades = anzahl(decade_span(norms), "Zehnerpotenz", "Zehnerpotenzen", one="eine")
        keiner = "" if flat_curve(rhos) is not None else ", und keiner der Radien hier ist genau eins"
        return {
            "claim": (
                "Der Spektralradius, der Betrag des größten Eigenwerts, entscheidet also, was mit dem Signal geschieht."
            ),
            "why": (
                f"Nach {ganz(steps)} Schritten umfassen die Längen etwa {decades}; "
                f"nur ein Radius von genau eins erhält das Signal{keiner}. "
                "Deshalb wurden Zellen mit Gates erfunden."
            ),
        }


# --- EchoOfAPulse -------------------------------------------------------------------------------------------

BEWEGUNG = {
    "forgetting": "spiralt nach innen und verblasst",
    "stable memory": "kreist ohne Ende",
    "exploding": "spiralt nach außen",
}
VERB = {"forgetting": "verblasst", "stable memory": "bleibt", "exploding": "wächst"}


class EchoOfAPulse:
    @staticmethod
    def opening_said(rhos: np.ndarray) -> dict[str, str]:
        values = aufzaehlung([f"ρ = {zahl(float(rho), 2)}" for rho in rhos])
        panels = _gross(anzahl(len(rhos), "Feld", "Felder"))
        shared = "jeweils die Länge des Zustands auf gemeinsamer" if len(rhos) > 1 else "die Länge des Zustands auf"
        return {
            "written": (
                "Ein Impuls tritt einmal in ein zweidimensionales Netz ein; "
                "jeder Schritt dreht den Zustand um einen festen Winkel und skaliert ihn mit ρ."
            ),
            "panels": f"{panels}, für {values}; darunter {shared} Log-Skala.",
        }

    @staticmethod
    def echo_said(rho: float, divisor: int, radii: np.ndarray) -> dict[str, Any]:
        facts = echo_facts(rho, divisor, radii)
        turn = f"jede volle Umdrehung aus {ganz(divisor)} Schritten"
        effect = f"multipliziert {turn} den Radius mit {_gerundet(facts.per_turn)}"
        if facts.name == "stable memory":
            effect = f"bringt {turn} den Radius auf eins zurück"
        changed = _veraendert(facts.ratio)
        traced = (
            f"Bei ρ = {zahl(rho, 2)} {effect}: Das Echo {BEWEGUNG[facts.name]}, "
            f"und nach {ganz(facts.steps)} Schritten {changed.verb} es {changed.rest}."
        )
        if facts.leaves is None:
            return {"traced": traced, "leaves": []}
        exit_beat = f"Es verlässt das Feld bei Schritt {facts.leaves}{' und wächst weiter' if rho > 1 else ''}."
        return {"traced": traced, "leaves": [exit_beat]}

    @staticmethod
    def replay_said(rhos: np.ndarray) -> str:
        verbs = aufzaehlung([VERB[regime(float(rho))] for rho in rhos], "oder")
        if len(rhos) == 1:
            return f"Noch einmal dieselbe Drehung: Das Echo {verbs}."
        return f"Nebeneinander dieselbe Drehung, nur ρ ist anders: Das Echo {verbs}."

    @staticmethod
    def verdict_said() -> str:
        return (
            "Allein ρ entscheidet also: Nur ein ρ von genau eins erhält das Echo; "
            "ein kleineres vergisst es, ein größeres explodiert."
        )


# --- AddingProblem ------------------------------------------------------------------------------------------


class AddingProblem:
    @staticmethod
    def task_said(length: int) -> str:
        return (
            f"Das Additionsproblem, ein klassischer Test für langes Gedächtnis: {ganz(length)} Schritte, "
            "jeder mit einem Wert zwischen 0 und 1 und einem Marker."
        )

    @staticmethod
    def stream_said(marks: np.ndarray) -> str:
        first, second = marked_steps(marks)
        return (
            "Das Netz liest die beiden Kanäle Schritt für Schritt. "
            f"Der Marker ist an genau zwei Schritten gesetzt: hier bei Schritt {first} und {second}."
        )

    @staticmethod
    def marked_said(values: np.ndarray, marks: np.ndarray) -> dict[str, str]:
        facts = example(values, marks)
        return {
            "lit": f"Die markierten Werte sind {zahl(facts.one, 2)} und {zahl(facts.other, 2)}.",
            "apart": f"Sie liegen {ganz(facts.apart)} Schritte auseinander.",
        }

    @staticmethod
    def target_said(values: np.ndarray, marks: np.ndarray, target: float) -> str:
        facts = example(values, marks)
        return (
            f"Der Zielwert ist ihre Summe: {zahl(facts.one, 2)} plus {zahl(facts.other, 2)} ergibt {zahl(target, 2)}."
        )

    @staticmethod
    def hard_said(values: np.ndarray, marks: np.ndarray, baseline: float) -> dict[str, str]:
        facts = example(values, marks)
        return {
            "carried": (
                f"Das Schwierige: Das Netz muss den ersten Wert über {ganz(facts.carried)} Schritte voller "
                "ablenkender Zahlen tragen, bevor es antwortet."
            ),
            "baseline": (
                "Wer stets die mittlere Summe rät, erreicht schon einen mittleren quadratischen Fehler von "
                f"{zahl(baseline, 2)}: Das ist die Baseline, die es zu schlagen gilt."
            ),
        }


# --- TrainingRace -------------------------------------------------------------------------------------------


def _die(kinds: list[str]) -> str:
    """Die Zellen mit Artikel: "das LSTM und das GRU"."""
    return aufzaehlung([f"das {kind}" for kind in kinds])


class TrainingRace:
    @staticmethod
    def setup_said(kinds: list[str], hidden: int, baseline: float) -> dict[str, str]:
        cells = anzahl(len(kinds), "rekurrente Zelle", "rekurrente Zellen", one="eine")
        return {
            "plotted": (
                f"{_gross(cells)}, {aufzaehlung(kinds)}, jede mit {ganz(hidden)} verborgenen Einheiten, "
                "trainieren nun auf dem Additionsproblem."
            ),
            "baseline": (
                f"Gestrichelt ist der Fehler, wenn wir stets den Mittelwert vorhersagen: {zahl(baseline, 2)}."
            ),
        }

    @staticmethod
    def race_said(kinds: list[str], mse: np.ndarray, baseline: float, params: dict) -> str:
        result = verdict(kinds, mse[:, -1], baseline)
        solved, failed = result.solved, result.failed
        said = (
            f"Hier der Testfehler jeder Zelle auf {ganz(params['test_size'])} ungesehenen Sequenzen, "
            f"über {ganz(params['iters'])} Trainingsschritte."
        )
        if (mse[:, 0] > baseline).all():
            cells = len(kinds)
            starters = "Es startet" if cells == 1 else "Beide starten" if cells == 2 else f"Alle {ganz(cells)} starten"
            said += f" {starters} über der Baseline."
        if solved:
            said += f" Dann {'fällt' if len(solved) == 1 else 'fallen'} {_die(solved)} steil ab"
            said += "." if not failed else ","
        if failed:
            where = "nahe der Baseline" if result.near else "über einem Zehntel der Baseline"
            one = len(failed) == 1
            if solved:
                said += f" während {_die(failed)} {where} {'bleibt' if one else 'bleiben'}."
            else:
                said += f" {_gross(_die(failed))} {'bleibt' if one else 'bleiben'} {where}."
        return said

    @staticmethod
    def finals_said(kinds: list[str], finals: np.ndarray, baseline: float) -> str:
        solved, ends = verdict(kinds, finals, baseline).solved, []
        for kind, final in zip(kinds, finals):
            if kind in solved:
                ends.append(f"das {kind} etwa {_mal(baseline / final)} unter der Baseline")
            else:
                ends.append(f"das {kind} bei {zahl(float(final), 2)}")
        return f"Endfehler: {aufzaehlung(ends)}."

    @staticmethod
    def verdict_said(kinds: list[str], finals: np.ndarray, baseline: float) -> dict[str, str]:
        result = verdict(kinds, finals, baseline)
        solved, failed = result.solved, result.failed
        one = len(solved) == 1
        claim = "Gelöst heißt unter einem Zehntel der Baseline: "
        if solved and not result.plain:
            claim += f"{_gross(_die(solved))} {'schafft' if one else 'schaffen'} das, "
            claim += f"{'seine' if one else 'ihre'} Gates tragen den ersten Wert hinüber."
        elif solved:  # ein einfaches RNN darunter: Es trägt den Wert ohne Gates
            claim += f"{_gross(_die(solved))} {'schafft' if one else 'schaffen'} das "
            carries = "trägt" if one else "tragen"
            if result.gated:
                gates = "seinen Gates" if len(result.gated) == 1 else "ihren Gates"
                claim += f"und {carries} den ersten Wert hinüber: {_die(result.gated)} mit {gates}, "
                claim += f"{_die(result.plain)} ohne."
            else:
                claim += f"und {carries} den ersten Wert ohne Gates hinüber."
        else:
            claim += "Keine der Zellen schafft das."
        if not failed:
            return {"claim": claim, "rest": "Jede Zelle löst die Aufgabe."}
        one = len(failed) == 1
        if result.near:
            meaning = f"{'Es hat' if one else 'Sie haben'} kaum mehr als den Mittelwert gelernt."
        else:
            meaning = f"{'Es ist' if one else 'Sie sind'} über einem Zehntel der Baseline geblieben."
        rest = f"{_gross(_die(failed))} {'schafft' if one else 'schaffen'} es nicht: {meaning}"
        return {"claim": claim, "rest": rest}


# --- InsideTheLSTM ------------------------------------------------------------------------------------------

# Wie sich die Schätzung in einem Schritt bewegt (inside_the_lstm.way, second_marker_facts).
SCHAETZUNG = {"jumps": "springt auf", "rises": "steigt auf", "falls": "fällt auf", "stays": "bleibt bei"}


class InsideTheLSTM:
    @staticmethod
    def opening_said(run: Artifact) -> dict[str, str]:
        facts = opening_facts(run)
        return {
            "sequence": "Nun blicken wir an einer Sequenz in das trainierte LSTM.",
            "marked": (
                f"Ihre Marker liegen bei den Schritten {facts.first} und {facts.second}, "
                f"auf den Werten {zahl(facts.one, 2)} und {zahl(facts.other, 2)}."
            ),
            "panels": (
                "Drei Felder folgen: was die Zelle schreibt, was ihr Gedächtnis hält, "
                f"und ihre Schätzung der Summe, gegenüber einem Zielwert von {zahl(facts.target, 2)}."
            ),
        }

    @staticmethod
    def first_marker_said(run: Artifact) -> str:
        facts = first_marker_facts(run)
        write = _gerundet(facts.write)
        schreibt = (
            f"springt die Schreibstärke auf {write}"
            if facts.jumps
            else f"ist die Schreibstärke {write}, nicht höher als zuvor"
        )
        return (
            f"Beim ersten Marker, Schritt {facts.step}, {schreibt}, "
            f"und die Schätzung {SCHAETZUNG[facts.guess_way]} {zahl(facts.guess, 2)}."
        )

    @staticmethod
    def holding_said(run: Artifact) -> str:
        facts = holding_facts(run)
        spanne = f"zwischen {_gerundet(facts.low)} und {_gerundet(facts.high)}"
        if facts.holds:
            gedaechtnis = f"bleibt das Gedächtnis stabil, {spanne}"
        else:
            gedaechtnis = f"hält das Gedächtnis nicht: Es liegt {spanne}, bis hinab auf den Stand vor dem ersten Marker"
        return (
            f"Zwischen den Markern {gedaechtnis}, während die Schätzung auf {zahl(facts.guess_to, 2)} driftet; "
            f"die wahre Summe bleibt {zahl(facts.true_sum, 2)}."
        )

    @staticmethod
    def second_marker_said(run: Artifact) -> str:
        facts = second_marker_facts(run)
        largest = ", so stark wie nie" if facts.largest_at == facts.step else ""
        erneut = " erneut" if first_marker_facts(run).jumps else ""
        schreibt = (
            f"schlägt die Schreibstärke{erneut} aus{largest}"
            if facts.spikes
            else "steigt die Schreibstärke nicht über ihren Stand zwischen den Markern"
        )
        return (
            f"Beim zweiten Marker {schreibt}, und die Schätzung {SCHAETZUNG[facts.guess_way]} {zahl(facts.guess, 2)}."
        )

    @staticmethod
    def answer_said(run: Artifact) -> dict[str, str]:
        facts = answer_facts(run)
        return {
            "reached": (
                f"Nach dem letzten Schritt ist die Schätzung {zahl(facts.guess, 2)}, "
                f"bei einem Zielwert von {zahl(facts.target, 2)}."
            ),
            "error": (
                f"Ein Fehler von {zahl(facts.error, 2)}. "
                "Trainiert nur auf die letzte Antwort, schätzt das Netz unterwegs grob."
            ),
        }

    @staticmethod
    def gates_said(run: Artifact) -> dict[str, str]:
        facts = gates_facts(run)
        return {
            "shown": (
                f"Hinter diesen Kurven stehen die Gates aller {ganz(facts.units)} verborgenen "
                "Einheiten: Forget-, Input- und Output-Gate, eine Zeile pro Einheit, eine Spalte pro Schritt."
            ),
            "switching": (
                "Sie schalten an den Markern und halten dazwischen: "
                f"Dort bewegt sich das Input-Gate etwa {_mal(facts.ratio)} stärker als anderswo."
                if facts.switches
                else "Sie schalten nicht an den Markern: Dort bewegt sich das Input-Gate nicht stärker als anderswo, "
                f"etwa {_mal(facts.ratio)} so stark."
            ),
        }
