"""Deutsch: die Worte des Teils "Rekurrente Attention", Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Was beide Szenen teilen (`shared.py`), steht auf oberster Ebene. Zahlen
kommen aus denselben Daten wie im Englischen."""

from __future__ import annotations

import numpy as np

from scenes.recurrent_attention.reverse_alignment import DETAILED as REVERSE_DETAILED
from scenes.recurrent_attention.reverse_alignment import _almost_all, _late_steps, _looks_late, _mirror, _walk
from scenes.recurrent_attention.shared import wrong_steps
from scenes.recurrent_attention.sort_alignment import ORDINALS, _misses, _more, _reverse_mass
from seqanim import Artifact
from seqanim.author.german import anzahl, aufzaehlung, ganz, prozent

# --- geteilt -----------------------------------------------------------------------------------------


def mistakes_said(prediction: np.ndarray, target: np.ndarray) -> str:
    """Die falschen Schritte: 'Schritt fünf schreibt sieben statt neun'."""
    return aufzaehlung(
        [
            f"Schritt {ganz(t)} schreibt {ganz(int(prediction[t]))} statt {ganz(int(target[t]))}"
            for t in wrong_steps(prediction, target)
        ]
    )


# --- Umkehren ----------------------------------------------------------------------------------------

# Wie die Spitzen wandern: dieselbe Tatsache wie `_walk`, auf Deutsch.
WALK = {
    "walks from right to left": "wandert von rechts nach links",
    "walks from left to right": "wandert von links nach rechts",
    "jumps around": "springt hin und her",
}


def _anteil_liegt(weight: float) -> str:
    """Ein Gewicht als Anteil: '98 % des Gewichts liegen', oder 'Fast das ganze Gewicht liegt' (wie `_share`)."""
    return "Fast das ganze Gewicht liegt" if _almost_all(weight) else f"{prozent(weight, 0)} des Gewichts liegen"


class ReverseAlignment:
    @staticmethod
    def stage_said(run: Artifact) -> dict[str, str]:
        length = len(run["source"])
        return {
            "encoder": f"Ein rekurrenter Encoder liest {anzahl(length, 'Symbol', 'Symbole')}, von links nach rechts.",
            "decoder": "Ein Decoder soll sie rückwärts schreiben; die Matrix zeigt, wohin er schaut.",
        }

    @staticmethod
    def step_said(run: Artifact, step: int) -> dict[str, str]:
        source, target, prediction = run["source"], run["target"], run["prediction"]
        where, weight = int(run["attention_argmax"][step]), float(run["attention"][step].max())
        mirror, seen, wrote = int(_mirror(run)[step]), ganz(int(source[where])), ganz(int(prediction[step]))
        if step == 0:
            scores = "Schritt null: Ein winziges Netz gibt jedem Quellsymbol einen Score, gemessen am Decoder-Zustand."
            share = "fast alles" if _almost_all(weight) else prozent(weight, 0)
            weights = f"Softmax macht aus Scores Gewichte: {share} auf Symbol {seen}"
        else:
            scores = f"Schritt {ganz(step)}: neuer Decoder-Zustand, also neue Scores."
            weights = f"{_anteil_liegt(weight)} auf Symbol {seen}"
        if where == mirror:
            weights += ", dem jetzt fälligen Symbol."
        elif step in _late_steps(run):
            written = int(prediction[step - 1]) == int(source[where])
            weights += ", einen Schritt zuvor geschrieben." if written else ", schon einen Schritt zuvor fällig."
        else:
            weights += f", nicht auf {ganz(int(source[mirror]))}, das jetzt fällig ist."
        landing = f"Heraus kommt {wrote}, "
        if int(prediction[step]) != int(target[step]):
            landing += f"fällig war aber {ganz(int(target[step]))}."
        elif where == mirror:
            landing += "das Symbol, auf das er schaut."
        elif where == mirror + 1:
            landing += "direkt links von seinem Blickpunkt."
        else:
            landing += "und das ist richtig."
        return {"scores": scores, "weights": weights, "landing": landing}

    @staticmethod
    def rest_said(run: Artifact) -> dict[str, str]:
        length, prediction, target = len(run["source"]), run["prediction"], run["target"]
        others = max(length - REVERSE_DETAILED, 0)
        first = (
            f"Die übrigen {anzahl(others, 'Schritt', 'Schritte')} laufen schneller. "
            f"Achten wir auf die helle Zelle: Sie {WALK[_walk(run['attention_argmax'])]}."
        )
        if wrong_steps(prediction, target):
            second = (
                f"Die Zeilen abwärts: Die Ausgabe ist die Eingabe rückwärts, doch {mistakes_said(prediction, target)}."
            )
        else:
            second = (
                "Die Zeilen abwärts: Die Ausgabe ist die Eingabe rückwärts, "
                f"alle {anzahl(length, 'Symbol', 'Symbole')} am richtigen Platz."
            )
        return {"faster": first, "result": second}

    @staticmethod
    def mirror_said(run: Artifact) -> dict[str, str]:
        metrics = run.metrics
        on_mirror, late = prozent(metrics["example_mirror_mass"], 0), prozent(metrics["example_shifted_mass"], 0)
        first = "Gestrichelte Felder markieren das Spiegelbild: wohin jeder Schritt laut Notebook schauen soll."
        if _looks_late(run):
            second = (
                f"Dort liegen nur {on_mirror} des Gewichts; {late} liegen ein Feld weiter rechts: "
                "einen Schritt zu spät, auch auf Testsequenzen."
            )
        else:
            second = (
                f"{on_mirror} des Gewichts liegen dort, {late} ein Feld weiter rechts; "
                "auf Testsequenzen gewinnt das Spiegelbild."
            )
        return {"dashed": first, "weights": second}

    @staticmethod
    def explain_said(run: Artifact) -> dict[str, str]:
        metrics, greedy, target = run.metrics, run["greedy_prediction"], run["target"]
        if _looks_late(run):
            reason = "Warum zu spät? Jeder Encoder-Zustand kennt noch das Symbol davor, das jetzt fällige."
        else:
            reason = (
                "Auf Testdaten liegt die Spitze öfter auf dem Spiegelbild als einen Schritt später: "
                "die Antidiagonale des Notebooks."
            )
        overall = f"Insgesamt kommen {prozent(metrics['token_accuracy'], 0)} der Testsymbole richtig heraus."
        fed = f"Mit eigenen Ausgaben gefüttert, schafft das Modell noch {prozent(metrics['greedy_token_accuracy'], 0)}."
        if wrong_steps(greedy, target):
            fed += f" An diesem Beispiel: {mistakes_said(greedy, target)}."
        return {"why": reason, "overall": overall, "fed": fed + " Attention hat eine Ausrichtung gelernt."}


# --- Sortieren ---------------------------------------------------------------------------------------

ORDINALE = (
    "erst zweit dritt viert fünft sechst siebt acht neunt zehnt elft zwölft dreizehnt vierzehnt fünfzehnt "
    "sechzehnt siebzehnt achtzehnt neunzehnt zwanzigst"
).split()


class SortAlignment:
    @staticmethod
    def _smallest_said(rank: int) -> str:
        """'kleinste', 'zweitkleinste', ... ('nächstkleinste' nach dem zwanzigsten)."""
        if rank == 0:
            return "kleinste"
        return f"{ORDINALE[rank]}kleinste" if rank < len(ORDINALS) else "nächstkleinste"

    @staticmethod
    def _steps_said(steps: list[int], length: int) -> str:
        """'im letzten Schritt', 'in Schritt zwei', 'in den Schritten zwei und fünf'."""
        if steps == [length - 1]:
            return "im letzten Schritt"
        named = aufzaehlung([ganz(t) for t in steps])
        return f"in Schritt {named}" if len(steps) == 1 else f"in den Schritten {named}"

    @staticmethod
    def stage_said(run: Artifact) -> dict[str, str]:
        return {
            "encoder": f"Jetzt lernt dieselbe Art Netz, {anzahl(len(run['source']), 'Wert', 'Werte')} zu sortieren.",
            "decoder": "Sein Encoder liest sie in beide Richtungen; jeder Schritt muss den nächstkleinsten finden.",
        }

    @staticmethod
    def step_said(run: Artifact, step: int) -> dict[str, str]:
        where, value = int(run["sorted_position"][step]), ganz(int(run["target"][step]))
        weight, wrote = float(run["attention"][step, where]), int(run["prediction"][step])
        if step == 0:
            scores = (
                f"Schritt null sucht den kleinsten Wert, {value}; dasselbe kleine Netz gibt jedem Wert einen Score."
            )
        else:
            scores = f"Schritt {ganz(step)} sucht den {SortAlignment._smallest_said(step)}n Wert, {value}."
        share = prozent(weight, 0)
        weights = (
            f"Nach der Softmax liegen {share} des Gewichts auf diesem Wert."
            if step == 0
            else f"{share} des Gewichts liegen auf diesem Wert."
        )
        landing = f"Der Decoder schreibt {ganz(wrote)}"
        if wrote == int(run["target"][step]):
            landing += ", wie es sein soll."
        else:
            landing += f"; das ist falsch, fällig war {value}."
        return {"scores": scores, "weights": weights, "landing": landing}

    @staticmethod
    def rest_said(run: Artifact) -> dict[str, str]:
        length, misses = len(run["source"]), _misses(run)
        prediction, target = run["prediction"], run["target"]
        first = "Die übrigen Schritte laufen schneller; die helle Zelle springt dorthin, wo der nächste Wert steht."
        second = "Sie folgt Werten, nicht Positionen"
        if misses:
            second += f"; nur {SortAlignment._steps_said(misses, length)} liegt die Spitze daneben."
        else:
            second += "."
        if wrong_steps(prediction, target):
            second += f" Die Ausgabe geht schief: {mistakes_said(prediction, target)}."
        else:
            second += f" Die Ausgabe ist sortiert, alle {anzahl(length, 'Wert', 'Werte')} am richtigen Platz."
        return {"faster": first, "result": second}

    @staticmethod
    def contrast_said(run: Artifact, reverse: Artifact) -> dict[str, str]:
        return {
            "moves": "Jetzt nebeneinander: Die Sortier-Matrix rückt nach rechts.",
            "staircase": "Links die Umkehrung: dieselbe Treppe für jede Eingabe.",
            "decides": (
                f"Dort entscheidet die Position, in {prozent(reverse.metrics['held_out_argmax_on_shifted'], 0)} "
                "der Testschritte; hier entscheidet der Inhalt. "
                "Gleiches Modell, andere Aufgabe, andere Ausrichtung."
            ),
        }

    @staticmethod
    def other_inputs_said(run: Artifact) -> list[str]:
        more = _more(run)
        correct, total = int(run.metrics["more_correct"]), len(more)
        said = []
        for index, (source, _, prediction) in enumerate(more):
            if index == 0:
                beat = "Eine neue Eingabe, nie im Training gesehen: Die hellen Zellen wandern mit ihren Werten."
            elif index == 1:
                beat = "Noch eine Eingabe, eine neue Permutation; die Umkehrung links bliebe völlig gleich."
            else:
                beat = "Und noch eine."
            target = np.sort(source)
            if wrong_steps(prediction, target):
                beat += f" Hier patzt das Modell: {mistakes_said(prediction, target)}."
            if index == total - 1:
                beat += (
                    f" Alle {ganz(total)} kommen sortiert heraus."
                    if correct == total
                    else f" {ganz(correct).capitalize()} von {ganz(total)} kommen sortiert heraus."
                )
            said.append(beat)
        return said

    @staticmethod
    def summary_said(run: Artifact, reverse: Artifact) -> dict[str, str]:
        metrics = run.metrics
        on_target = prozent(metrics["held_out_target_mass"], 0)
        if metrics["held_out_target_mass"] < _reverse_mass(reverse):
            softer = f"Im Mittel landen nur {on_target} des Gewichts auf dem richtigen Wert: "
            softer += "weicher als bei der Umkehrung."
        else:
            softer = f"Im Mittel landen {on_target} des Gewichts auf dem richtigen Wert, "
            softer += "so viel wie bei der Umkehrung."
        return {
            "dashed": "Die Umkehrung verblasst; gestrichelte Felder zeigen, wohin jeder Schritt schauen soll.",
            "content": (
                "Attention richtet sich nach dem Inhalt aus: In "
                f"{prozent(metrics['held_out_argmax_on_target'], 0)} der Testschritte liegt die Spitze "
                "auf dem richtigen Wert."
            ),
            "answers": softer,
        }
