"""Deutsch: die Worte des Teils "Why attention, and how it works", Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Zahlen kommen aus denselben Daten wie im Englischen."""

from __future__ import annotations

import numpy as np

from scenes.why_attention.shared import key_labels
from scenes.why_attention.softmax_normalization import _by_value
from seqanim import Artifact
from seqanim.author.german import aufzaehlung, zahl


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
