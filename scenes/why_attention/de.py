"""Deutsch: die Worte des Teils "Why attention, and how it works", Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Zahlen kommen aus denselben Daten wie im Englischen."""

from __future__ import annotations

import numpy as np

from scenes.why_attention.padding_mask import empty_rows, padded_keys
from scenes.why_attention.query_and_temperature import _shares, start_temperature
from scenes.why_attention.query_key_value import _same_as_best
from scenes.why_attention.scaled_scores import negative_scores
from scenes.why_attention.shared import key_labels
from scenes.why_attention.softmax_normalization import _by_value
from scenes.why_attention.what_attention_explains import changed_index, removed_keys, within_bound
from seqanim import Artifact
from seqanim.author.german import anzahl, aufzaehlung, ganz, zahl


def _vektor(values: np.ndarray, decimals: int = 2) -> str:
    """(1; 0): ein Vektor, die Einträge durch Semikolon getrennt (das Komma ist das Dezimalzeichen)."""
    return "(" + "; ".join(zahl(float(v), decimals) for v in values) + ")"


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


def _gewichte(labels: list[str], weights: np.ndarray) -> str:
    """Die Gewichte nach Gruppen gleichen (gerundeten) Werts, größte zuerst; die erste Gruppe mit vorangestelltem
    Verb: "wiegen A und C je 0,4, und B wiegt 0,2"."""
    clauses = []
    for group, (_, names) in enumerate(_shares(labels, weights)):
        value = zahl(weights[labels.index(names[0])])
        verb = "wiegt" if len(names) == 1 else "wiegen"
        share = value if len(names) == 1 else f"je {value}"
        who = aufzaehlung(names)
        clauses.append(f"{verb} {who} {share}" if group == 0 else f"{who} {verb} {share}")
    return ", und ".join(clauses) if len(clauses) == 2 else aufzaehlung(clauses)


class QueryAndTemperature:
    @staticmethod
    def first_query_said(art: Artifact) -> dict[str, str]:
        queries = anzahl(len(art["queries"]), "Query", "Queries", one="eine")
        return {
            "fixed": "Jetzt bleibt der Speicher fest, und nur die Query ändert sich.",
            "table": f"Der Query-Pfeil und eine Tabelle mit je einer Zeile Gewichte für {queries}.",
            "weights": f"Für die Query {_vektor(art['queries'][0])} "
            f"{_gewichte(key_labels(art), art['query_weights'][0])}.",
        }

    @staticmethod
    def query_said(art: Artifact, index: int) -> dict[str, str]:
        said = {
            "turns": f"Die Query dreht sich zu {_vektor(art['queries'][index])}.",
            "weights": f"Jetzt {_gewichte(key_labels(art), art['query_weights'][index])}.",
        }
        if index == len(art["queries"]) - 1:
            n = len(art["queries"])
            queries = anzahl(n, "Query", "Queries", one="eine")
            rankings = anzahl(n, "Rangfolge", "Rangfolgen", one="eine")
            said["lesson"] = f"Ein Speicher, {queries}, {rankings}: Was abgerufen wird, hängt von der Query ab."
        return said

    @staticmethod
    def temperature_said(art: Artifact) -> dict[str, str]:
        start = art["temperatures"][start_temperature(art)]
        return {
            "change": "Nun behalten wir die Query und ändern nur die Temperatur.",
            "dial": f"Die Scores werden vor der Softmax durch eine Temperatur geteilt; der Regler steht zuerst auf "
            f"{zahl(start)}.",
        }

    @staticmethod
    def stop_said(art: Artifact, stop: int) -> dict[str, str]:
        labels, temps, start = (
            key_labels(art),
            art["temperatures"],
            start_temperature(art),
        )
        weights_at, t = art["temperature_weights"], temps[stop]
        if stop == start:
            sweep_t, low = art["sweep_temperatures"], art["sweep_weights"][0]
            top = [labels[i] for i in range(len(low)) if np.isclose(low[i], low.max())]
            least = labels[int(np.argmin(low))]
            return {
                "up": f"Einmal über den ganzen Regler: Oben, bei {zahl(sweep_t[-1])}, werden die Gewichte fast gleich.",
                "down": f"Unten, bei {zahl(sweep_t[0])}, behält {least} nur {zahl(low.min())}; "
                f"{aufzaehlung(top)} {'nimmt' if len(top) == 1 else 'teilen sich'} den Rest.",
                "back": f"Zurück bei {zahl(t)}: die Temperatur der Standard-Attention.",
            }
        turn = (
            f"Runter auf {zahl(t)}: Eine niedrigere Temperatur macht die Gewichte schärfer."
            if t < temps[start]
            else f"Hoch auf {zahl(t)}: Eine höhere Temperatur gleicht sie einander an."
        )
        moves = []
        for _, names in _shares(labels, weights_at[stop]):
            key = labels.index(names[0])
            rises = weights_at[stop][key] > weights_at[start][key]
            verb = ("steigt" if rises else "fällt") if len(names) == 1 else ("steigen" if rises else "fallen")
            moves.append(f"{aufzaehlung(names)} {verb} auf {zahl(weights_at[stop][key])}")
        return {"turn": turn, "moves": "; ".join(moves) + "."}


class CausalMask:
    @staticmethod
    def scores_said(art: Artifact) -> str:
        positions = anzahl(len(art["K"]), "Position", "Positionen", one="eine")
        return (
            f"In der Self-Attention bewerten sich {positions} einer Sequenz gegenseitig: "
            "Jede Zeile fragt, jede Spalte antwortet."
        )

    @staticmethod
    def mask_said(art: Artifact) -> dict[str, str]:
        blocked = int((~art["causal_allowed"]).sum())
        cells = anzahl(blocked, "gesperrte Zelle", "gesperrten Zellen", one="eine")
        return {
            "mask": "Die kausale Maske: 0, wo eine Position hinsehen darf, minus unendlich für ihre Zukunft.",
            "slide": f"Die Maske legt ihre {cells} auf die Scores.",
            "added": "Addieren wir die Maske, wird jeder künftige Score zu minus unendlich.",
        }

    @staticmethod
    def softmax_said(art: Artifact) -> dict[str, str]:
        return {
            "row_by_row": "Nun läuft die Softmax Zeile für Zeile, nur über die erlaubten Keys.",
            "zero": "Minus unendlich wird exakt 0: Die Zukunft erhält kein Gewicht, die Vergangenheit teilt es sich.",
            "sums": f"Jede Zeile summiert sich zu {zahl(float(art['causal_weights'].sum(axis=-1)[0]))}.",
            "first_row": f"Die erste Zeile ist {_vektor(art['causal_weights'][0])}: Position 0 sieht nur sich selbst.",
        }

    @staticmethod
    def contrast_said(art: Artifact) -> dict[str, str]:
        short = [zahl(float(s), 1) for s in art["softmax_then_mask_sums"] if not np.isclose(s, 1.0)]
        return {
            "wrong": "Die falsche Reihenfolge: erst Softmax über alle Keys, dann die Zukunft auf 0 setzen.",
            "sums": f"Nun ergeben die Zeilen in Summe nur noch {aufzaehlung(short)}.",
            "rule": "Also muss die Maske vor der Softmax kommen.",
        }


class PaddingMask:
    @staticmethod
    def combine_said(art: Artifact) -> dict[str, str]:
        padded = aufzaehlung([zahl(i, 0) for i in padded_keys(art)])
        per_row = aufzaehlung([zahl(int(row.sum()), 0) for row in art["padding_allowed"]])
        return {
            "causal": "Wir beginnen mit der kausalen Maske: welche Keys jede Query sehen darf.",
            "real": f"Dann, welche Keys echt sind: Key {padded} ist nur Padding.",
            "and": "Wir verbinden beide: Ein Key ist nur erlaubt, wo beide Masken ihn erlauben.",
            "off": f"Die Padding-Spalte fällt weg, und die Zeilen erlauben nun {per_row} Keys.",
        }

    @staticmethod
    def weights_said(art: Artifact) -> dict[str, str]:
        weights, padded = art["padding_weights"], padded_keys(art)
        largest = zahl(float(weights[:, padded[0]].max())) if padded else "0"
        return {
            "aside": "Das erlaubte Muster rückt beiseite; rechts erscheinen die maskierten Scores.",
            "softmax": "Dann läuft eine Softmax nur über die erlaubten Keys, Zeile für Zeile.",
            "zero": f"Keine Query kann den Padding-Key abrufen: Sein Gewicht ist in jeder Zeile exakt {largest}.",
        }

    @staticmethod
    def all_masked_said(art: Artifact) -> dict[str, str]:
        rows = empty_rows(art)
        which = (
            f"hätte Zeile {zahl(rows[0], 0)}"
            if len(rows) == 1
            else f"hätten Zeilen {aufzaehlung([zahl(r, 0) for r in rows])}"
        )
        return {
            "suppose": f"Angenommen, Key {zahl(0, 0)} wäre ebenfalls Padding.",
            "no_key": f"Dann {which} überhaupt keinen erlaubten Key.",
            "nan": "Eine einfache Softmax würde 0 durch 0 teilen und NaN liefern, also keine Zahl.",
            "refused": "Daher meldet unsere Funktion einen Fehler, statt ein leeres Ergebnis zu liefern.",
        }


class WhatAttentionExplains:
    @staticmethod
    def layout_said(art: Artifact) -> str:
        return "Gewichte mal Values ergeben den Kontext, wobei Query und Keys fest bleiben."

    @staticmethod
    def change_said(art: Artifact) -> dict[str, str]:
        index = changed_index(art)
        same = bool(np.array_equal(art["changed_weights"], art["weights"]))
        return {
            "change": f"Erster Eingriff: Wir ändern nur den Value von {key_labels(art)[index]}, "
            f"auf {_vektor(art['changed_V'][index], 0)}.",
            "weights": "Die Gewichte bleiben exakt gleich." if same else "Auch die Gewichte ändern sich.",
            "context": f"Doch der Kontext springt von etwa {_vektor(art['context'][0], 0)} "
            f"auf etwa {_vektor(art['changed_context'][0], 0)}.",
        }

    @staticmethod
    def remove_said(art: Artifact) -> dict[str, str]:
        labels, removed, weights = (
            key_labels(art),
            removed_keys(art),
            art["removed_weights"][0],
        )
        kept = [i for i in range(len(weights)) if i not in removed]
        shares = sorted({zahl(float(weights[i])) for i in kept})
        each = f"je {shares[0]}" if len(shares) == 1 else aufzaehlung([zahl(float(weights[i])) for i in kept])
        return {
            "restore": "Zweiter Eingriff: Zuerst stellen wir die ursprünglichen Values wieder her.",
            "remove": f"Dann entfernen wir Eintrag {aufzaehlung([labels[i] for i in removed])}, indem wir seinen Key "
            "maskieren.",
            "renormalise": f"Die übrigen Gewichte normieren sich neu: {aufzaehlung([labels[i] for i in kept])} "
            f"erhalten jetzt {each}.",
            "context": f"Der Kontext wird {_vektor(art['removed_context'][0], 0)}. "
            "Einen Eintrag entfernen ist etwas anderes, als sein Gewicht im Plot abzulesen.",
        }

    @staticmethod
    def parity_said(art: Artifact) -> dict[str, str]:
        worst = max(art.metrics["sdpa_max_abs_diff"], art.metrics["sdpa_padding_max_abs_diff"])
        bound = within_bound(worst)
        within = (
            zahl(worst)
            if bound is None
            else {
                1e-9: "ein Milliardstel",
                1e-6: "ein Millionstel",
                1e-3: "ein Tausendstel",
            }[bound]
        )
        return {
            "check": "Nun eine Probe der Implementierung: dieselbe Rechnung in PyTorch.",
            "agrees": f"Sie stimmt mit unserer bis auf {within} überein, mit und ohne Masken.",
            "not_evidence": "Das prüft den Code; ein Beleg, dass Attention Sprache gelernt hat, ist es nicht.",
        }

    @staticmethod
    def closing_said(art: Artifact) -> dict[str, str]:
        return {
            "routing": "Attention-Gewichte zeigen also das Routing: wohin diese Rechnung Information schickt.",
            "causal": "Kausale Wichtigkeit zeigen sie nicht: Das erfordert einen Eingriff, etwa einen Value "
            "ändern oder einen Key entfernen.",
        }
