"""Deutsch: die Worte des Teils "Rekurrente Attention", Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Was beide Szenen teilen (`shared.py`), steht auf oberster Ebene. Zahlen
und Fälle liest jede Funktion aus den Tatsachen ihres Beats, die die Szene einmal berechnet (`step_facts`,
`rest_facts`, ...), wie das Englische."""

from __future__ import annotations

import numpy as np

from scenes.recurrent_attention.reverse_alignment import _almost_all, explain_facts, mirror_facts
from scenes.recurrent_attention.reverse_alignment import rest_facts as reverse_rest_facts
from scenes.recurrent_attention.reverse_alignment import step_facts as reverse_step_facts
from scenes.recurrent_attention.shared import reads_both_ways, wrong_steps
from scenes.recurrent_attention.sort_alignment import ORDINALS, contrast_facts, other_inputs_facts, summary_facts
from scenes.recurrent_attention.sort_alignment import rest_facts as sort_rest_facts
from scenes.recurrent_attention.sort_alignment import step_facts as sort_step_facts
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
            "encoder": (
                f"Ein rekurrenter Encoder liest {anzahl(length, 'Symbol', 'Symbole')}, "
                f"{'in beide Richtungen' if reads_both_ways(run) else 'von links nach rechts'}."
            ),
            "decoder": "Ein Decoder soll sie rückwärts schreiben; die Matrix zeigt, wohin er schaut.",
        }

    @staticmethod
    def step_said(run: Artifact, step: int) -> dict[str, str]:
        facts = reverse_step_facts(run, step)
        seen, wrote = ganz(facts.seen), ganz(facts.wrote)
        if step == 0:
            scores = "Schritt null: Ein winziges Netz gibt jedem Quellsymbol einen Score, gemessen am Decoder-Zustand."
            share = "fast alles" if _almost_all(facts.weight) else prozent(facts.weight, 0)
            weights = f"Softmax macht aus Scores Gewichte: {share} auf Symbol {seen}"
        else:
            scores = f"Schritt {ganz(step)}: neuer Decoder-Zustand, also neue Scores."
            weights = f"{_anteil_liegt(facts.weight)} auf Symbol {seen}"
        if facts.on_mirror:
            weights += ", dem jetzt fälligen Symbol."
        elif facts.late:
            weights += ", einen Schritt zuvor geschrieben." if facts.written else ", schon einen Schritt zuvor fällig."
        else:
            weights += f", nicht auf {ganz(facts.due)}, das jetzt fällig ist."
        landing = f"Heraus kommt {wrote}, "
        if facts.wrote != facts.wanted:
            landing += f"fällig war aber {ganz(facts.wanted)}."
        elif facts.on_mirror:
            landing += "das Symbol, auf das er schaut."
        elif facts.where == facts.mirror + 1:
            landing += "direkt links von seinem Blickpunkt."
        else:
            landing += "und das ist richtig."
        return {"scores": scores, "weights": weights, "landing": landing}

    @staticmethod
    def rest_said(run: Artifact) -> dict[str, str]:
        facts = reverse_rest_facts(run)
        first = (
            f"Die übrigen {anzahl(facts.others, 'Schritt', 'Schritte')} laufen schneller. "
            f"Achten wir auf die helle Zelle: Sie {WALK[facts.walk]}."
        )
        if facts.wrong:
            second = (
                "Die Zeilen abwärts: Die Ausgabe ist die Eingabe rückwärts, "
                f"doch {mistakes_said(run['prediction'], run['target'])}."
            )
        else:
            second = (
                "Die Zeilen abwärts: Die Ausgabe ist die Eingabe rückwärts, "
                f"alle {anzahl(facts.length, 'Symbol', 'Symbole')} am richtigen Platz."
            )
        return {"faster": first, "result": second}

    @staticmethod
    def mirror_said(run: Artifact) -> dict[str, str]:
        facts = mirror_facts(run)
        on_mirror, late = prozent(facts.mirror_mass, 0), prozent(facts.late_mass, 0)
        first = "Gestrichelte Felder markieren das Spiegelbild: wohin jeder Schritt laut Notebook schauen soll."
        if facts.looks_late:
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
        facts = explain_facts(run)
        if facts.looks_late and facts.both_ways:
            reason = (
                "Warum zu spät? Die Vorwärtshälfte jedes Encoder-Zustands kennt noch das Symbol davor, "
                "das jetzt fällige."
            )
        elif facts.looks_late:
            reason = "Warum zu spät? Jeder Encoder-Zustand kennt noch das Symbol davor, das jetzt fällige."
        else:
            reason = (
                "Auf Testdaten liegt die Spitze öfter auf dem Spiegelbild als einen Schritt später: "
                "die Antidiagonale des Notebooks."
            )
        overall = f"Insgesamt kommen {prozent(facts.accuracy, 0)} der Testsymbole richtig heraus."
        fed = f"Mit eigenen Ausgaben gefüttert, schafft das Modell noch {prozent(facts.greedy_accuracy, 0)}."
        if facts.greedy_wrong:
            fed += f" An diesem Beispiel: {mistakes_said(run['greedy_prediction'], run['target'])}."
        if facts.aligned:
            fed += " Attention hat eine Ausrichtung gelernt."
        else:
            fed += (
                f" Ihre Attention hat sich nicht festgelegt: Nur {prozent(facts.on_position, 0)} der Testspitzen "
                "liegen auf dem Spiegelbild oder einen Schritt später."
            )
        return {"why": reason, "overall": overall, "fed": fed}


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
            "decoder": (
                f"Sein Encoder liest sie {'in beide Richtungen' if reads_both_ways(run) else 'von links nach rechts'};"
                " jeder Schritt muss den nächstkleinsten finden."
            ),
        }

    @staticmethod
    def step_said(run: Artifact, step: int) -> dict[str, str]:
        facts = sort_step_facts(run, step)
        value = ganz(facts.value)
        if step == 0:
            scores = (
                f"Schritt null sucht den kleinsten Wert, {value}; dasselbe kleine Netz gibt jedem Wert einen Score."
            )
        else:
            scores = f"Schritt {ganz(step)} sucht den {SortAlignment._smallest_said(step)}n Wert, {value}."
        share = prozent(facts.weight, 0)
        weights = (
            f"Nach der Softmax liegen {share} des Gewichts auf diesem Wert."
            if step == 0
            else f"{share} des Gewichts liegen auf diesem Wert."
        )
        landing = f"Der Decoder schreibt {ganz(facts.wrote)}"
        if facts.wrote == facts.value:
            landing += ", wie es sein soll."
        else:
            landing += f"; das ist falsch, fällig war {value}."
        return {"scores": scores, "weights": weights, "landing": landing}

    @staticmethod
    def rest_said(run: Artifact) -> dict[str, str]:
        facts = sort_rest_facts(run)
        first = "Die übrigen Schritte laufen schneller; die helle Zelle springt dorthin, wo der nächste Wert steht."
        second = "Sie folgt Werten, nicht Positionen"
        if facts.misses:
            second += f"; nur {SortAlignment._steps_said(facts.misses, facts.length)} liegt die Spitze daneben."
        else:
            second += "."
        if facts.wrong:
            second += f" Die Ausgabe geht schief: {mistakes_said(run['prediction'], run['target'])}."
        else:
            second += f" Die Ausgabe ist sortiert, alle {anzahl(facts.length, 'Wert', 'Werte')} am richtigen Platz."
        return {"faster": first, "result": second}

    @staticmethod
    def contrast_said(run: Artifact, reverse: Artifact) -> dict[str, str]:
        facts = contrast_facts(run, reverse)
        return {
            "moves": "Jetzt nebeneinander: Die Sortier-Matrix rückt nach rechts.",
            "staircase": (
                "Links die Umkehrung: dieselbe Treppe für jede Eingabe."
                if facts.positional
                else "Links die Umkehrung: ihre Spitzen, Schritt für Schritt."
            ),
            "decides": (
                (
                    f"Dort entscheidet die Position, in {prozent(facts.position_decides, 0)} der Testschritte; "
                    if facts.positional
                    else f"Dort liegt die Spitze nur in {prozent(facts.position_decides, 0)} der Testschritte auf "
                    "einer festen Position; "
                )
                + (
                    "hier entscheidet der Inhalt. "
                    if facts.by_content
                    else f"hier entscheidet der Inhalt nur in {prozent(facts.content_decides, 0)}. "
                )
                + "Gleiches Modell, andere Aufgabe, andere Ausrichtung."
            ),
        }

    @staticmethod
    def other_inputs_said(run: Artifact) -> list[str]:
        facts = other_inputs_facts(run)
        correct, total = facts.correct, facts.total
        said = []
        for index, shown in enumerate(facts.inputs):
            if index == 0:
                beat = "Eine neue Eingabe, nie im Training gesehen: Die hellen Zellen wandern mit ihren Werten."
            elif index == 1:
                beat = "Noch eine Eingabe, eine neue Permutation; die Umkehrung links bliebe völlig gleich."
            else:
                beat = "Und noch eine."
            if shown.wrong:
                beat += f" Hier patzt das Modell: {mistakes_said(shown.prediction, shown.target)}."
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
        facts = summary_facts(run, reverse)
        on_target = prozent(facts.target_mass, 0)
        if facts.softer:
            softer = f"Im Mittel landen nur {on_target} des Gewichts auf dem richtigen Wert: "
            softer += "weicher als bei der Umkehrung."
        else:
            softer = f"Im Mittel landen {on_target} des Gewichts auf dem richtigen Wert, "
            softer += "so viel wie bei der Umkehrung."
        return {
            "dashed": "Die Umkehrung verblasst; gestrichelte Felder zeigen, wohin jeder Schritt schauen soll.",
            "content": (
                "Attention richtet sich nach dem Inhalt aus: In "
                f"{prozent(facts.on_target, 0)} der Testschritte liegt die Spitze "
                "auf dem richtigen Wert."
                if facts.by_content
                else "Attention richtet sich nur teilweise nach dem Inhalt: Nur in "
                f"{prozent(facts.on_target, 0)} der Testschritte liegt die Spitze auf dem richtigen Wert."
            ),
            "answers": softer,
        }
