"""Deutsch: die Worte des Teils "Why attention, and how it works", Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Zahlen kommen aus denselben Daten wie im Englischen."""

from __future__ import annotations

import numpy as np

from scenes.why_attention.query_key_value import _same_as_best
from scenes.why_attention.scaled_scores import negative_scores
from scenes.why_attention.shared import key_labels
from scenes.why_attention.softmax_normalization import _by_value
from seqanim import Artifact
from seqanim.author.german import anzahl, aufzaehlung, ganz, zahl


def _vektor(values: np.ndarray) -> str:
    """Ein kleiner Vektor, wie eine deutsche Untertitelzeile ihn schreibt: "(1; 0)" (Semikolon neben dem
    Dezimalkomma)."""
    return "(" + "; ".join(zahl(float(v), 2) for v in values) + ")"


def _wurzel(d_k: int) -> str:
    return f"die Wurzel aus {ganz(d_k)}"


class QueryKeyValue:
    @staticmethod
    def query_said(art: Artifact) -> dict[str, str]:
        labels, query = key_labels(art), art["Q"][0]
        return {
            "memory": "Attention lässt eine Ausgabe auf jedes gespeicherte Element zurückblicken.",
            "keys": f"Der Speicher enthält {anzahl(len(labels), 'Element', 'Elemente')}, {aufzaehlung(labels)}, "
            "jedes an seinem Key: seiner Adresse.",
            "query": f"Der Query-Pfeil, {_vektor(query)}, sagt, was wir suchen.",
        }

    @staticmethod
    def values_said(art: Artifact) -> dict[str, str]:
        K, V, labels = art["K"], art["V"], key_labels(art)
        return {
            "tables": "Daneben die Keys und ihre Values: was jedes Element speichert.",
            "pairs": "Jede Key-Zeile bleibt mit ihrer eigenen Value-Zeile gepaart.",
            "address": f"Der Key von {labels[0]} ist {_vektor(K[0])}, sein Value {_vektor(V[0])}. "
            "Ein Key ist nur eine Adresse.",
        }

    @staticmethod
    def scores_said(art: Artifact) -> dict[str, str]:
        raw, labels = art["raw_scores"][0], key_labels(art)
        rest = [f"{label} erzielt {zahl(float(s), 2)}" for label, s in zip(labels[1:], raw[1:])]
        same = [labels[i] for i in _same_as_best(raw)]
        return {
            "line": "Nun fällen wir von jedem Key das Lot auf die Gerade der Query.",
            "first": f"Der Schatten von Key {labels[0]} hat die Länge {zahl(float(raw[0]), 2)}: "
            "Das ist q·k, sein Score.",
            "rest": f"{aufzaehlung(rest)}.",
            "same": f"{aufzaehlung(same)} haben denselben Score, obwohl ihre Keys verschieden sind.",
        }


class ScaledScores:
    @staticmethod
    def operands_said(art: Artifact) -> dict[str, str]:
        d_k = int(art["d_k"])
        return {
            "formula": f"Jeder Score ist q·k, geteilt durch die Wurzel der Key-Dimension, {ganz(d_k)}.",
            "tables": "Die Query, die Keys als Spalten und eine leere Zeile für die Scores.",
        }

    @staticmethod
    def first_key_said(art: Artifact) -> dict[str, str]:
        label, raw, score = (
            key_labels(art)[0],
            art["raw_scores"][0, 0],
            art["scores"][0, 0],
        )
        return {
            "beside": f"Die Query steht neben Key {label}.",
            "dot": f"Wir multiplizieren eintragsweise und addieren: {zahl(float(raw), 2)}.",
            "scaled": f"Geteilt durch {_wurzel(int(art['d_k']))}: {zahl(float(score), 2)}.",
            "stored": f"Dieser Score füllt die Zelle von {label}.",
        }

    @staticmethod
    def other_keys_said(art: Artifact) -> list[str]:
        labels, raw, scores = key_labels(art), art["raw_scores"][0], art["scores"][0]
        return [
            f"Key {labels[i]}: Die Produkte ergeben {zahl(float(raw[i]), 2)}, "
            f"der Score ist {zahl(float(scores[i]), 2)}."
            for i in range(1, len(labels))
        ]

    @staticmethod
    def summary_said(art: Artifact) -> dict[str, str]:
        negative = negative_scores(art)
        if negative is None:
            closing = "Das sind Scores, noch keine Wahrscheinlichkeiten: Softmax macht daraus Gewichte."
        else:
            query = _vektor(negative[0])
            closing = f"Das sind Scores, keine Wahrscheinlichkeiten: Die Query {query} erhält negative Scores."
        return {
            "row": f"Die ganze Zeile: jedes Skalarprodukt durch {_wurzel(int(art['d_k']))}.",
            "closing": closing,
        }


class SoftmaxNormalization:
    @staticmethod
    def start_said(art: Artifact) -> dict[str, str]:
        labels, scores = key_labels(art), art["scores"][0]
        top = [labels[i] for i in range(len(scores)) if np.isclose(scores[i], scores.max())]
        return {
            "steps": "Softmax macht aus Scores Gewichte, in drei Schritten.",
            "bars": f"Die Balken sind die Scores; der höchste, {zahl(scores.max())}, gehört zu {aufzaehlung(top)}.",
        }

    @staticmethod
    def shift_said(art: Artifact) -> dict[str, str]:
        groups = _by_value(key_labels(art), art["shifted"][0])
        moves = [f"{aufzaehlung(names)} auf {zahl(value)}" for value, names in groups]
        return {
            "subtract": "Schritt eins: Wir ziehen den größten Score von jedem Score ab.",
            "bars": f"Die Balken sinken: {aufzaehlung(moves)}.",
            "same": "Alle gleich zu verschieben ändert kein Gewicht; es hält nur die Exponentiale klein.",
        }

    @staticmethod
    def exponentiate_said(art: Artifact) -> dict[str, str]:
        return {
            "step": "Schritt zwei: Wir bilden e hoch jeden verschobenen Score.",
            "bars": f"Jeder Balken ist jetzt positiv, und zusammen ergeben sie {zahl(float(art['exp_sum'][0]))}.",
        }

    @staticmethod
    def divide_said(art: Artifact) -> dict[str, str]:
        labels, scores, weights = key_labels(art), art["scores"][0], art["weights"][0]
        groups = _by_value(labels, weights)
        shares = [f"{'je ' if len(names) > 1 else ''}{zahl(value)} auf {aufzaehlung(names)}" for value, names in groups]
        lowest = labels[int(np.argmin(scores))]
        return {
            "step": "Schritt drei: Wir teilen jeden Balken durch diese Summe.",
            "bars": f"Die Gewichte: {aufzaehlung(shares)}. Zusammen ergeben sie {zahl(float(weights.sum()))}.",
            "never_zero": f"{lowest} hatte den niedrigsten Score, behält aber ein positives Gewicht: "
            "Softmax vergibt nie genau null.",
        }


class WeightedRetrieval:
    @staticmethod
    def values_said(art: Artifact) -> dict[str, str]:
        return {
            "sum": "Die Ausgabe der Attention ist eine gewichtete Summe der Values.",
            "arrows": f"Die {anzahl(len(art['V']), 'Value', 'Values')} erscheinen als blasse Pfeile "
            "in ihrer eigenen Ebene.",
        }

    @staticmethod
    def chain_said(art: Artifact) -> list[str]:
        """Ein Beat je Value, in Reihenfolge."""
        weights, contributions, labels = (
            art["weights"][0],
            art["contributions"],
            key_labels(art),
        )
        said: list[str] = []
        started = False
        for label, weight, contribution in zip(labels, weights, contributions):
            if np.linalg.norm(contribution) < 1e-9:
                said.append(f"Bei {label} trägt Gewicht mal Value nichts bei.")
            elif not started:
                said.append(f"Der Value von {label} schrumpft auf {zahl(float(weight), 2)} seiner Länge "
                            "und beginnt die Kette.")  # fmt: skip
                started = True
            else:
                said.append(
                    f"Der Value von {label}, mit {zahl(float(weight), 2)} skaliert, setzt an der Spitze der Kette an."
                )
        return said

    @staticmethod
    def context_said(art: Artifact) -> dict[str, str]:
        context = art["context"][0]
        return {
            "ends": f"Die Kette endet beim Kontext, etwa {zahl(float(context[0]), 1)} nach rechts "
            f"und {zahl(float(context[1]), 1)} nach oben.",
            "every": "Kein einzelner Value wird ausgewählt: Jeder Value trägt zum Kontext bei.",
        }
