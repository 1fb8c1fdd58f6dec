"""Deutsch: die Worte des Teils über Transformer, Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Zahlen kommen aus denselben Daten wie im Englischen."""

from __future__ import annotations

import numpy as np

from scenes.transformers.attention_pooling import _groups, _keys, times_smaller
from scenes.transformers.scaled_dot_product import scaled_floor
from scenes.transformers.self_attention_lookup import _labels, _match
from scenes.transformers.shared import significant_rounded
from scenes.transformers.sinusoidal_positions import _offset
from seqanim import Artifact
from seqanim.author.german import anzahl, ganz, prozent, zahl


def _signifikant(value: float) -> str:
    """Auf zwei geltende Ziffern, wie das Englische sie spricht: 0.008315 -> "0,0083", 47117.2 -> "47.000"."""
    return zahl(*significant_rounded(value))


def _gross(text: str) -> str:
    """Der erste Buchstabe groß, der Rest unverändert ("zehn Token" -> "Zehn Token")."""
    return text[:1].upper() + text[1:]


class SelfAttentionLookup:
    @staticmethod
    def tokens_said(run: Artifact) -> dict[str, str]:
        items, key = len(_labels(run)) - 1, ganz(int(run["query_key"]))
        return {
            "opening": (
                f"Self-Attention kann nachschlagen. Hier sind {anzahl(items, 'Eintrags-Token')} und eine Query."
            ),
            "kinds": f"Jeder Eintrag hat einen Key und einen Value; die Query hat nur Key {key}.",
            "task": f"Eine Attention-Schicht mit einem Head soll den Value unter Key {key} ausgeben.",
        }

    @staticmethod
    def matrix_said(run: Artifact) -> dict[str, str]:
        diagonal = float(np.mean(np.diagonal(run["attention"])[:-1]))
        return {
            "rows_and_columns": (
                "Jede Zeile dieser Matrix ist ein Token, das eine Frage stellt; jede Spalte ein Token, "
                "auf das es schauen kann."
            ),
            "diagonal": (
                f"Die Zeilen der Einträge behalten ihr Gewicht bei sich: Im Mittel liegen {prozent(diagonal, 0)} "
                "auf der Diagonale."
            ),
        }

    @staticmethod
    def query_row_said(run: Artifact) -> str:
        weight = float(run["attention"][-1, _match(run)])
        return (
            f"Die unterste Zeile ist die Query. Sie legt {prozent(weight, 1)} ihres Gewichts auf den einen "
            "passenden Eintrag."
        )

    @staticmethod
    def bars_said(run: Artifact) -> dict[str, str]:
        row, match = run["attention"][-1], _match(run)
        return {
            "one_bar": "Als Balken ist die Query-Zeile ein hoher Balken auf dem passenden Eintrag.",
            "the_rest": (
                f"Die übrigen {ganz(len(row) - 1)} Gewichte teilen sich nur {prozent(1 - float(row[match]), 1)}."
            ),
        }

    @staticmethod
    def read_out_said(run: Artifact) -> dict[str, str]:
        prediction, answer = int(run["prediction"]), int(run["answer"])
        stored = int(run["values"][_match(run)])
        verdict = "die richtige Antwort" if prediction == answer else f"falsch: Richtig wäre Value {ganz(answer)}"
        return {
            "read": f"Die Schicht liest also den Value in diesem Eintrag: Value {ganz(stored)}.",
            "verdict": (
                f"Sie sagt Value {ganz(prediction)} voraus, {verdict}. Bei {ganz(int(run.params['test_size']))} "
                f"neuen Abfragen liegt sie in {prozent(run.metrics['accuracy'], 1)} der Fälle richtig."
            ),
        }


class AttentionPooling:
    @staticmethod
    def tokens_said(run: Artifact) -> dict[str, str]:
        keys = _keys(run)
        return {
            "opening": (
                f"Attention kann auch mitteln. {_gross(anzahl(len(keys), 'Token'))} tragen je einen Key, "
                "als Farbe gezeigt, und einen Value."
            ),
            "task": (
                "Jedes Token soll den mittleren Value seiner Key-Gruppe ausgeben; für Key "
                f"{ganz(int(keys[0]))} ist das {_signifikant(run['target'][0])}."
            ),
        }

    @staticmethod
    def matrix_said(run: Artifact) -> dict[str, str]:
        return {
            "rows_and_columns": (
                "In der trainierten Attention-Matrix ist jede Zeile ein Token, das schaut; "
                "jede Spalte ein Token, das es sieht."
            ),
            "within": (
                f"Vom Gewicht jeder Zeile bleiben {prozent(run.metrics['example_within_group_mass'], 1)} "
                "in ihrer eigenen Key-Gruppe."
            ),
        }

    @staticmethod
    def blocks_said(run: Artifact) -> dict[str, str]:
        attention, keys = run["attention"], _keys(run)
        group = max(_groups(keys), key=len)  # die größte Gruppe zeigt die gleichmäßige Verteilung am besten
        share = float(attention[group[0], group].mean())
        return {
            "blocks_shown": "Jede Key-Gruppe bildet einen quadratischen Block aus Gewicht.",
            "even_spread": (
                f"Im Block ist das Gewicht gleichmäßig verteilt: In einer Gruppe von {ganz(len(group))} bekommt "
                f"jedes Token {_signifikant(share)}. Ein weiches Group-by."
            ),
        }

    @staticmethod
    def outputs_said(run: Artifact) -> dict[str, str]:
        positions = anzahl(len(run["target"]), "Position", "Positionen", one="einer")
        return {
            "truth": f"Dieser Plot zeigt den wahren Gruppenmittelwert an jeder der {positions}.",
            "output": (
                "Die Attention-Ausgabe, gestrichelt, liegt genau darauf: Ihr größter Fehler ist "
                f"{_signifikant(run.metrics['example_max_abs_error'])}."
            ),
            "held_out": (
                f"Auf neuen Sequenzen ist ihr quadratischer Fehler rund {ganz(times_smaller(run))}-mal kleiner, "
                "als wenn wir den Mittelwert jeder Sequenz raten."
            ),
        }


class SinusoidalPositions:
    @staticmethod
    def waves_said(run: Artifact) -> dict[str, str]:
        lengths = run["wavelengths"]
        return {
            "why": "Attention allein ignoriert die Wortfolge, also bekommt jedes Token ein Positionssignal addiert.",
            "sines": (
                "Jedes Dimensionspaar enthält einen Sinus und einen Kosinus der Position, mit Wellenlängen, "
                f"die von {_signifikant(lengths[0])} bis {_signifikant(lengths[-1])} Positionen wachsen."
            ),
        }

    @staticmethod
    def build_encoding_said(run: Artifact) -> dict[str, str]:
        pe = run["pe"]
        return {
            "grid": "Jetzt die ganze Kodierung als Raster.",
            "sweep": (
                "Im Durchlauf schreibt jede Position ihre Spalte, rot für positiv, blau für negativ. "
                "Die ersten Dimensionen wechseln alle paar Positionen das Vorzeichen, die letzten ändern sich kaum."
            ),
            "last_dimension": (
                f"Bis Position {ganz(pe.shape[0] - 1)} erreicht die vorletzte Dimension nur {_signifikant(pe[-1, -2])}."
            ),
        }

    @staticmethod
    def gram_said(run: Artifact) -> dict[str, str]:
        return {
            "compare": "Als Nächstes vergleichen wir die Kodierung jeder Position mit jeder anderen.",
            "grid": "Dieses Raster enthält das Skalarprodukt jedes Positionspaars.",
            "constant": (
                f"Auf der Hauptdiagonale ist es {_signifikant(run.metrics['gram_diagonal'])}, die Hälfte der "
                f"{ganz(run['pe'].shape[1])} Dimensionen, und auch entlang jeder anderen Diagonale bleibt es "
                "konstant."
            ),
        }

    @staticmethod
    def diagonal_said(run: Artifact) -> dict[str, str]:
        offset = _offset(run)
        values = np.diagonal(run["pe_gram"], offset)
        apart = anzahl(offset, "Position", "Positionen", one="einer")
        return {
            "take": f"Nehmen wir die Diagonale der Paare im Abstand von {apart}.",
            "boxed": "Ein Kasten markiert eine Zelle, darunter steht ihr Wert.",
            "walk": (
                f"Entlang der Diagonale hat jede Zelle denselben Wert, {_signifikant(values[0])}: Das Produkt hängt "
                "nur vom Abstand zweier Positionen ab, nie von ihrer Lage."
            ),
        }

    @staticmethod
    def kernel_said(run: Artifact) -> dict[str, str]:
        return {
            "one_value": "Ein einziger Wert pro Abstand beschreibt also das ganze Raster.",
            "falls": (
                f"Er fällt, mit einigen Schwankungen, von {_signifikant(run['kernel'][0])} für eine Position mit "
                f"sich selbst auf {_signifikant(run.metrics['kernel_min'])} bei "
                f"{ganz(int(run.metrics['kernel_min_offset']))} Positionen Abstand."
            ),
            "alike": "Nahe Positionen ähneln sich; entfernte weniger.",
        }


class RopeRotation:
    @staticmethod
    def circles_said(run: Artifact) -> dict[str, str]:
        pairs, freqs = run["pairs"], run["freqs"]
        fastest = int(pairs[0])
        return {
            "clock": "Die Rotary-Kodierung markiert Positionen anders: Sie dreht Dimensionspaare wie Uhrzeiger.",
            "arrows": (
                f"{_gross(anzahl(len(pairs), 'Paar', 'Paare'))} der Query-Dimensionen, jedes ein Pfeil, "
                "bei Position null."
            ),
            "legend": (
                "Jeder Positionsschritt dreht ein Paar um seinen eigenen Winkel: "
                f"{_signifikant(freqs[fastest])} Radiant für Paar {ganz(fastest)}, weit weniger für höhere Paare."
            ),
        }

    @staticmethod
    def spin_said(run: Artifact) -> str:
        pairs, last = run["pairs"], int(run["positions"][-1])
        turns = run["pair_angles"][:, -1] / (2 * np.pi)
        return (
            f"Während die Query von Position null bis {ganz(last)} läuft, macht Paar {ganz(int(pairs[0]))} "
            f"{_signifikant(turns[0])} Umdrehungen, Paar {ganz(int(pairs[-1]))} dagegen nur "
            f"{_signifikant(turns[-1])} Umdrehungen."
        )

    @staticmethod
    def both_positions_said(run: Artifact) -> dict[str, str]:
        offset = int(run.params["offset"])
        return {
            "back_to_zero": "Die Query kehrt zu Position null zurück.",
            "key_joins": (
                f"Ein Key kommt an Position {ganz(offset)} dazu. Jeder Bogen zeigt den Winkel zwischen Query und "
                "Key in einem Paar."
            ),
            "score": (
                "Der Score summiert Paar für Paar die beiden Längen mal den Kosinus dieses Winkels; "
                f"hier ist er {_signifikant(run['sweep_scores'][0])}."
            ),
        }

    @staticmethod
    def shift_both_said(run: Artifact) -> dict[str, str]:
        shift = int(run.params["shift"])
        return {
            "shifting": (
                f"Jetzt verschieben wir beide Positionen gemeinsam, um bis zu {ganz(shift)}: Jeder Pfeil dreht "
                "sich, aber Query und Key drehen sich gemeinsam."
            ),
            "steady": (
                f"Die Winkel ändern sich nie, also bleibt der Score bei {_signifikant(run['sweep_scores'][0])}."
            ),
        }

    @staticmethod
    def score_matrix_said(run: Artifact) -> dict[str, str]:
        scores, offset = run["scores"], int(run.params["offset"])
        return {
            "every_pair": "Hier der Score jeder Query-Position gegen jede Key-Position.",
            "constant": (
                "Jede Diagonale ist konstant: Liegt der Key "
                f"{anzahl(offset, 'Position', 'Positionen', one='eine')} hinter der Query, ist der Score immer "
                f"{_signifikant(scores[0, offset])}."
            ),
        }

    @staticmethod
    def relative_rows_said(run: Artifact) -> dict[str, str]:
        shift = int(run.params["shift"])
        return {
            "at_zero": "Diese Kurve zeigt die Scores einer Query an Position null gegen immer weiter entfernte Keys.",
            "at_shift": (
                f"Setzen wir die Query auf Position {ganz(shift)}, liegt ihre gestrichelte Kurve genau darauf: "
                "Rotary-Scores hängen nur vom relativen Abstand ab."
            ),
        }


class ScaledDotProduct:
    @staticmethod
    def setup_views_said(run: Artifact) -> dict[str, str]:
        keys = run["sample_logits"].shape[1]
        return {
            "question": "Warum teilen wir Attention-Scores durch die Wurzel der Dimension d?",
            "charts": (
                f"Rechts eine Query gegen {anzahl(keys, 'Key', 'Keys')}: ihre Softmax-Gewichte mit Skalierung und ohne."
            ),
            "entropy": (
                "Links die mittlere Entropie der Softmax: Eins heißt gleichmäßig verteilt, null heißt alles auf "
                "einem Key."
            ),
        }

    @staticmethod
    def grow_d_said(run: Artifact) -> dict[str, str]:
        dims, spread = run["dims"], run["logit_std"]
        return {
            "doubles": (
                "Jetzt verdoppelt sich die Dimension, Schritt für Schritt. "
                "Ohne Skalierung streuen die Scores breiter, und die Softmax wird schärfer."
            ),
            "grows": (
                f"Ihre Streuung, {_signifikant(spread[0])} bei {ganz(int(dims[0]))} Dimensionen, wächst wie die "
                "Wurzel aus d, und die unskalierten Gewichte häufen sich auf immer weniger Keys."
            ),
            "one_key": (
                f"Bei {ganz(int(dims[-1]))} Dimensionen beträgt die Streuung {_signifikant(spread[-1])}, und ein "
                f"Key erhält {_signifikant(run['sample_weights_unscaled'][-1].max())} des unskalierten Gewichts."
            ),
        }

    @staticmethod
    def conclude_said(run: Artifact) -> dict[str, str]:
        entropy = run["entropy_unscaled"]
        return {
            "collapse": (
                f"Unskaliert fällt die mittlere Entropie von {_signifikant(entropy[0])} auf "
                f"{_signifikant(entropy[-1])}: Die Attention wird one-hot, und ihre Gradienten verschwinden."
            ),
            "kept": f"Geteilt durch Wurzel d fällt die Entropie nie unter {zahl(scaled_floor(run), 2)}.",
        }
