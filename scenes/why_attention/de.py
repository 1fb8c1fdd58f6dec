"""Deutsch: die Worte des Teils "Why attention, and how it works", Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Zahlen kommen aus denselben Daten wie im Englischen."""

from __future__ import annotations

import numpy as np

from scenes.why_attention.causal_mask import causal
from scenes.why_attention.padding_mask import empty_rows, padding
from scenes.why_attention.query_and_temperature import (
    rankings,
    shares,
    standard,
    start_temperature,
    stop_facts,
    sweep,
)
from scenes.why_attention.query_key_value import memory_facts, score_facts
from scenes.why_attention.scaled_scores import key_score, negative_scores
from scenes.why_attention.shared import key_labels
from scenes.why_attention.softmax_normalization import by_value, highest, lowest
from scenes.why_attention.weighted_retrieval import chain_links, contributors
from scenes.why_attention.what_attention_explains import change, parity_check, removal
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
        memory = memory_facts(art)
        return {
            "memory": "Attention lässt eine Ausgabe auf jedes gespeicherte Element zurückblicken.",
            "keys": f"Der Speicher enthält {anzahl(len(memory.labels), 'Element', 'Elemente')}, "
            f"{aufzaehlung(memory.labels)}, jedes an seinem Key: seiner Adresse.",
            "query": f"Der Query-Pfeil, {_vektor(memory.query)}, sagt, was wir suchen.",
        }

    @staticmethod
    def values_said(art: Artifact) -> dict[str, str]:
        memory = memory_facts(art)
        return {
            "tables": "Daneben die Keys und ihre Values: was jedes Element speichert.",
            "pairs": "Jede Key-Zeile bleibt mit ihrer eigenen Value-Zeile gepaart.",
            "address": f"Der Key von {memory.labels[0]} ist {_vektor(memory.keys[0])}, "
            f"sein Value {_vektor(memory.values[0])}. Ein Key ist nur eine Adresse.",
        }

    @staticmethod
    def scores_said(art: Artifact) -> dict[str, str]:
        facts = score_facts(art)
        first, *others = zip(facts.labels, facts.scores)
        if facts.tied:
            same = f"{aufzaehlung(facts.best)} haben denselben Score, obwohl ihre Keys verschieden sind."
        else:
            same = f"{facts.best[0]} erzielt den höchsten Score: Sein Schatten ist der längste."
        return {
            "line": "Nun fällen wir von jedem Key das Lot auf die Gerade der Query.",
            "first": f"Der Schatten von Key {first[0]} hat die Länge {zahl(first[1], 2)}: Das ist q·k, sein Score.",
            "rest": f"{aufzaehlung([f'{label} erzielt {zahl(s, 2)}' for label, s in others])}.",
            "same": same,
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
        first = key_score(art, 0)
        return {
            "beside": f"Die Query steht neben Key {first.label}.",
            "dot": f"Wir multiplizieren eintragsweise und addieren: {zahl(float(first.raw), 2)}.",
            "scaled": f"Geteilt durch {_wurzel(first.d_k)}: {zahl(float(first.score), 2)}.",
            "stored": f"Dieser Score füllt die Zelle von {first.label}.",
        }

    @staticmethod
    def other_keys_said(art: Artifact) -> list[str]:
        keys = [key_score(art, index) for index in range(1, len(key_labels(art)))]
        return [
            f"Key {at.label}: Die Produkte ergeben {zahl(float(at.raw), 2)}, der Score ist {zahl(float(at.score), 2)}."
            for at in keys
        ]

    @staticmethod
    def summary_said(art: Artifact) -> dict[str, str]:
        negative = negative_scores(art)
        if negative is None:
            closing = "Das sind Scores, noch keine Wahrscheinlichkeiten: Softmax macht daraus Gewichte."
        elif negative.own:
            verb = "ist" if len(negative.labels) == 1 else "sind"
            closing = (
                f"Das sind Scores, keine Wahrscheinlichkeiten: {aufzaehlung(negative.labels)} {verb} schon negativ."
            )
        else:
            query = _vektor(negative.query)
            closing = f"Das sind Scores, keine Wahrscheinlichkeiten: Die Query {query} erhält negative Scores."
        return {
            "row": f"Die ganze Zeile: jedes Skalarprodukt durch {_wurzel(int(art['d_k']))}.",
            "closing": closing,
        }


class SoftmaxNormalization:
    @staticmethod
    def start_said(art: Artifact) -> dict[str, str]:
        top = highest(art)
        return {
            "steps": "Softmax macht aus Scores Gewichte, in drei Schritten.",
            "bars": f"Die Balken sind die Scores; der höchste, {zahl(top.score)}, gehört zu "
            f"{aufzaehlung(list(top.names))}.",
        }

    @staticmethod
    def shift_said(art: Artifact) -> dict[str, str]:
        groups = by_value(key_labels(art), art["shifted"][0])
        moves = [f"{aufzaehlung(list(group.names))} auf {zahl(group.value)}" for group in groups]
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
        weights, least = art["weights"][0], lowest(art)
        shares = [
            f"{'je ' if len(group.names) > 1 else ''}{zahl(group.value)} auf {aufzaehlung(list(group.names))}"
            for group in by_value(key_labels(art), weights)
        ]
        return {
            "step": "Schritt drei: Wir teilen jeden Balken durch diese Summe.",
            "bars": f"Die Gewichte: {aufzaehlung(shares)}. Zusammen ergeben sie {zahl(float(weights.sum()))}.",
            "never_zero": f"{least.names[0]} hatte den niedrigsten Score, behält aber ein positives Gewicht"
            f"{', zu klein für zwei Nachkommastellen' if least.weight_too_small_to_say else ''}: "
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
        said: list[str] = []
        for link in chain_links(art):
            if not link.adds:
                said.append(f"Bei {link.label} trägt Gewicht mal Value nichts bei.")
            elif link.starts:
                said.append(f"Der Value von {link.label} schrumpft auf {zahl(link.weight, 2)} seiner Länge "
                            "und beginnt die Kette.")  # fmt: skip
            else:
                said.append(
                    f"Der Value von {link.label}, mit {zahl(link.weight, 2)} skaliert, "
                    "setzt an der Spitze der Kette an."
                )
        return said

    @staticmethod
    def context_said(art: Artifact) -> dict[str, str]:
        context, who = art["context"][0], contributors(art)
        if not who.silent:
            every = "Kein einzelner Value wird ausgewählt: Jeder Value trägt zum Kontext bei."
        elif not who.adding:
            every = "Jeder Beitrag ist hier null, also ist es auch der Kontext."
        elif len(who.adding) == 1:
            every = (
                f"Kein Value wird ganz ausgewählt: Nur der von {who.adding[0]}, mit seinem Gewicht skaliert, bleibt."
            )
        else:
            every = (
                f"Kein einzelner Value wird ausgewählt: Jeder Value außer {aufzaehlung(list(who.silent))} "
                "trägt zum Kontext bei."
            )
        return {
            "ends": f"Die Kette endet beim Kontext, etwa {zahl(float(context[0]), 1)} nach rechts "
            f"und {zahl(float(context[1]), 1)} nach oben.",
            "every": every,
        }


def _gewichte(labels: list[str], weights: np.ndarray) -> str:
    """Die Gewichte nach Gruppen gleichen (gerundeten) Werts, größte zuerst; die erste Gruppe mit vorangestelltem
    Verb: "wiegen A und C je 0,4, und B wiegt 0,2"."""
    clauses = []
    for group, heard in enumerate(shares(labels, weights)):
        value, names = zahl(heard.weight), list(heard.names)
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
            queries = anzahl(len(art["queries"]), "Query", "Queries", one="eine")
            n = rankings(art)
            meaning = (
                "Was abgerufen wird, hängt von der Query ab" if n > 1 else "Diese Queries sind sich zufällig einig"
            )
            said["lesson"] = f"Ein Speicher, {queries}, {anzahl(n, 'Rangfolge', 'Rangfolgen', one='eine')}: {meaning}."
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
        labels, at = key_labels(art), stop_facts(art, stop)
        if at.start:
            dial = sweep(art)
            top = [labels[i] for i in dial.top]
            return {
                "up": f"Einmal über den ganzen Regler: Oben, bei {zahl(dial.high)}, werden die Gewichte fast gleich.",
                "down": f"Unten, bei {zahl(dial.low)}, behält {labels[dial.least]} nur {zahl(dial.least_weight)}; "
                f"{aufzaehlung(top)} {'nimmt' if len(top) == 1 else 'teilen sich'} den Rest.",
                "back": f"Zurück bei {zahl(at.t)}: "
                + ("die Temperatur der Standard-Attention." if standard(at.t) else "wo der Regler begann."),
            }
        turn = (
            f"Runter auf {zahl(at.t)}: Eine niedrigere Temperatur macht die Gewichte schärfer."
            if at.sharper
            else f"Hoch auf {zahl(at.t)}: Eine höhere Temperatur gleicht sie einander an."
        )
        moves = []
        for move in at.moves:
            names = list(move.share.names)
            verb = ("steigt" if move.rises else "fällt") if len(names) == 1 else ("steigen" if move.rises else "fallen")
            moves.append(f"{aufzaehlung(names)} {verb} auf {zahl(move.share.weight)}")
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
        cells = anzahl(causal(art).blocked, "gesperrte Zelle", "gesperrten Zellen", one="eine")
        return {
            "mask": "Die kausale Maske: 0, wo eine Position hinsehen darf, minus unendlich für ihre Zukunft.",
            "slide": f"Die Maske legt ihre {cells} auf die Scores.",
            "added": "Addieren wir die Maske, wird jeder künftige Score zu minus unendlich.",
        }

    @staticmethod
    def softmax_said(art: Artifact) -> dict[str, str]:
        mask = causal(art)
        return {
            "row_by_row": "Nun läuft die Softmax Zeile für Zeile, nur über die erlaubten Keys.",
            "zero": "Minus unendlich wird exakt 0: Die Zukunft erhält kein Gewicht, die Vergangenheit teilt es sich.",
            "sums": f"Jede Zeile summiert sich zu {zahl(mask.first_sum)}.",
            "first_row": f"Die erste Zeile ist {_vektor(mask.first_row)}: Position 0 sieht nur sich selbst.",
        }

    @staticmethod
    def contrast_said(art: Artifact) -> dict[str, str]:
        short = [zahl(s, 1) for s in causal(art).short_sums]
        return {
            "wrong": "Die falsche Reihenfolge: erst Softmax über alle Keys, dann die Zukunft auf 0 setzen.",
            "sums": f"Nun ergeben die Zeilen in Summe nur noch {aufzaehlung(short)}.",
            "rule": "Also muss die Maske vor der Softmax kommen.",
        }


class PaddingMask:
    @staticmethod
    def combine_said(art: Artifact) -> dict[str, str]:
        mask = padding(art)
        padded = aufzaehlung([zahl(i, 0) for i in mask.padded])
        per_row = aufzaehlung([zahl(n, 0) for n in mask.allowed_per_row])
        if not mask.padded:
            real = "Hier sind alle echt, keiner ist Padding."
            off = f"Keine Spalte fällt weg, also erlauben die Zeilen weiter {per_row} Keys."
        elif len(mask.padded) == 1:
            real = f"Key {padded} ist nur Padding."
            off = f"Die Padding-Spalte fällt weg, und die Zeilen erlauben nun {per_row} Keys."
        else:
            real = f"Die Keys {padded} sind nur Padding."
            off = f"Die Padding-Spalten fallen weg, und die Zeilen erlauben nun {per_row} Keys."
        return {
            "causal": "Wir beginnen mit der kausalen Maske: welche Keys jede Query sehen darf.",
            "real": f"Dann, welche Keys echt sind: {real}",
            "and": "Wir verbinden beide: Ein Key ist nur erlaubt, wo beide Masken ihn erlauben.",
            "off": off,
        }

    @staticmethod
    def weights_said(art: Artifact) -> dict[str, str]:
        mask = padding(art)
        if mask.largest is None:
            zero = "Kein Key ist hier Padding, also wird keine Spalte auf null gesetzt."
        elif len(mask.padded) == 1:
            zero = (
                f"Keine Query kann den Padding-Key abrufen: Sein Gewicht ist in jeder Zeile exakt {zahl(mask.largest)}."
            )
        else:
            zero = (
                f"Keine Query kann einen Padding-Key abrufen: Ihre Gewichte sind in jeder Zeile exakt "
                f"{zahl(mask.largest)}."
            )
        return {
            "aside": "Das erlaubte Muster rückt beiseite; rechts erscheinen die maskierten Scores.",
            "softmax": "Dann läuft eine Softmax nur über die erlaubten Keys, Zeile für Zeile.",
            "zero": zero,
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
            "suppose": f"Angenommen, Key {zahl(0, 0)} wäre {'ebenfalls ' if padding(art).padded else ''}Padding.",
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
        changed = change(art)
        return {
            "change": f"Erster Eingriff: Wir ändern nur den Value von {changed.label}, "
            f"auf {_vektor(changed.value, 0)}.",
            "weights": "Die Gewichte bleiben exakt gleich." if changed.same else "Auch die Gewichte ändern sich.",
            "context": f"Doch der Kontext springt von etwa {_vektor(changed.before, 0)} "
            f"auf etwa {_vektor(changed.after, 0)}.",
        }

    @staticmethod
    def remove_said(art: Artifact) -> dict[str, str]:
        removing = removal(art)
        kept = [zahl(float(removing.weights[i])) for i in removing.kept]
        each = f"je {kept[0]}" if len(set(kept)) == 1 else aufzaehlung(kept)
        return {
            "restore": "Zweiter Eingriff: Zuerst stellen wir die ursprünglichen Values wieder her.",
            "remove": f"Dann entfernen wir Eintrag {aufzaehlung(list(removing.removed_names))}, indem wir "
            "seinen Key maskieren.",
            "renormalise": f"Die übrigen Gewichte normieren sich neu: {aufzaehlung(list(removing.kept_names))} "
            f"erhalten jetzt {each}.",
            "context": f"Der Kontext wird {_vektor(removing.context, 0)}. "
            "Einen Eintrag entfernen ist etwas anderes, als sein Gewicht im Plot abzulesen.",
        }

    @staticmethod
    def parity_said(art: Artifact) -> dict[str, str]:
        check = parity_check(art)
        within = (
            zahl(check.worst)
            if check.bound is None
            else {
                1e-9: "ein Milliardstel",
                1e-6: "ein Millionstel",
                1e-3: "ein Tausendstel",
            }[check.bound]
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
