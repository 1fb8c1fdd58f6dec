"""Deutsch: die Worte des Teils über Transformer, Beat für Beat (seqanim.author.translate).

Je Szene eine Klasse mit ihrem Namen; darin je `*_said`-Funktion der Szene eine gleichnamige, mit denselben
Argumenten und denselben Beat-Namen. Die Zahlen liest jede aus denselben Fakten wie das Englische
(`lookup_facts`, `pooling_facts`, `encoding_facts`, `rotary_facts`, `scaling_facts` der Szenen)."""

from __future__ import annotations

from scenes.transformers.attention_pooling import Pooling, pooling_facts
from scenes.transformers.rope_rotation import rotary_facts
from scenes.transformers.scaled_dot_product import scaling_facts
from scenes.transformers.self_attention_lookup import lookup_facts
from scenes.transformers.shared import significant_rounded
from scenes.transformers.sinusoidal_positions import encoding_facts
from seqanim import Artifact
from seqanim.author.german import anzahl, ganz, prozent, zahl


def _signifikant(value: float) -> str:
    """Auf zwei geltende Ziffern, wie das Englische sie spricht: 0.008315 -> "0,0083", 47117.2 -> "47.000"."""
    rounded = significant_rounded(value)
    return zahl(rounded.value, rounded.decimals)


def _umdrehungen(turns: float) -> str:
    """Umdrehungen, wie das Englische sie spricht: "2,8 Umdrehungen", "eine Umdrehung", "0,016 Umdrehungen"."""
    if significant_rounded(turns).value == 1:
        return "eine Umdrehung"
    return f"{_signifikant(turns)} Umdrehungen"


def _gross(text: str) -> str:
    """Der erste Buchstabe groß, der Rest unverändert ("zehn Token" -> "Zehn Token")."""
    return text[:1].upper() + text[1:]


class SelfAttentionLookup:
    @staticmethod
    def tokens_said(run: Artifact) -> dict[str, str]:
        facts = lookup_facts(run)
        key = ganz(facts.query_key)
        return {
            "opening": (
                f"Self-Attention kann nachschlagen. Hier sind {anzahl(facts.items, 'Eintrags-Token')} und eine Query."
            ),
            "kinds": f"Jeder Eintrag hat einen Key und einen Value; die Query hat nur Key {key}.",
            "task": f"Eine Attention-Schicht mit einem Head soll den Value unter Key {key} ausgeben.",
        }

    @staticmethod
    def matrix_said(run: Artifact) -> dict[str, str]:
        return {
            "rows_and_columns": (
                "Jede Zeile dieser Matrix ist ein Token, das eine Frage stellt; jede Spalte ein Token, "
                "auf das es schauen kann."
            ),
            "diagonal": (
                "Die Zeilen der Einträge behalten ihr Gewicht bei sich: Im Mittel liegen "
                f"{prozent(lookup_facts(run).diagonal, 0)} auf der Diagonale."
            ),
        }

    @staticmethod
    def query_row_said(run: Artifact) -> str:
        return (
            f"Die unterste Zeile ist die Query. Sie legt {prozent(lookup_facts(run).weight, 1)} ihres Gewichts auf "
            "den einen passenden Eintrag."
        )

    @staticmethod
    def bars_said(run: Artifact) -> dict[str, str]:
        facts = lookup_facts(run)
        return {
            "one_bar": "Als Balken ist die Query-Zeile ein hoher Balken auf dem passenden Eintrag.",
            "the_rest": f"Die übrigen {ganz(facts.others)} Gewichte teilen sich nur {prozent(facts.rest, 1)}.",
        }

    @staticmethod
    def read_out_said(run: Artifact) -> dict[str, str]:
        facts = lookup_facts(run)
        right = facts.prediction == facts.answer
        verdict = "die richtige Antwort" if right else f"falsch: Richtig wäre Value {ganz(facts.answer)}"
        return {
            "read": f"Die Schicht liest also den Value in diesem Eintrag: Value {ganz(facts.stored)}.",
            "verdict": (
                f"Sie sagt Value {ganz(facts.prediction)} voraus, {verdict}. Bei {ganz(facts.test_size)} "
                f"neuen Abfragen liegt sie in {prozent(facts.accuracy, 1)} der Fälle richtig."
            ),
        }


class AttentionPooling:
    @staticmethod
    def tokens_said(run: Artifact) -> dict[str, str]:
        facts = pooling_facts(run)
        return {
            "opening": (
                f"Attention kann auch mitteln. {_gross(anzahl(facts.tokens, 'Token'))} tragen je einen Key, "
                "als Farbe gezeigt, und einen Value."
            ),
            "task": (
                "Jedes Token soll den mittleren Value seiner Key-Gruppe ausgeben; für Key "
                f"{ganz(facts.first_key)} ist das {_signifikant(facts.first_mean)}."
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
                f"Vom Gewicht jeder Zeile bleiben {prozent(pooling_facts(run).within, 1)} in ihrer eigenen Key-Gruppe."
            ),
        }

    @staticmethod
    def blocks_said(run: Artifact) -> dict[str, str]:
        facts = pooling_facts(run)
        return {
            "blocks_shown": "Jede Key-Gruppe bildet einen quadratischen Block aus Gewicht.",
            "even_spread": (
                f"Im Block ist das Gewicht gleichmäßig verteilt: In einer Gruppe von {ganz(facts.group_size)} "
                f"bekommt jedes Token {_signifikant(facts.share)}. Ein weiches Group-by."
            ),
        }

    @staticmethod
    def outputs_said(run: Artifact) -> dict[str, str]:
        facts = pooling_facts(run)
        positions = anzahl(facts.positions, "Position", "Positionen", one="einer")
        return {
            "truth": f"Dieser Plot zeigt den wahren Gruppenmittelwert an jeder der {positions}.",
            "output": (
                "Die Attention-Ausgabe, gestrichelt, liegt genau darauf: Ihr größter Fehler ist "
                f"{_signifikant(facts.max_error)}."
            ),
            "held_out": AttentionPooling._held_out_compared(facts),
        }

    @staticmethod
    def _held_out_compared(facts: Pooling) -> str:
        """Der quadratische Fehler auf neuen Sequenzen gegen das Raten des Sequenzmittelwerts (wie das Englische)."""
        if facts.guess_exact:
            return (
                "Auf neuen Sequenzen ist nichts besser, als den Mittelwert jeder Sequenz zu raten: "
                "Dieses Raten ist hier schon exakt."
            )
        if facts.attention_exact:
            return (
                "Auf neuen Sequenzen ist ihr quadratischer Fehler nur Rundung, anders als beim Raten des "
                "Mittelwerts jeder Sequenz."
            )
        if facts.compared == "smaller":
            compared = f"rund {_signifikant(facts.times_smaller)}-mal kleiner, als wenn"
        elif facts.compared == "same":
            compared = "etwa so groß, wie wenn"
        else:
            compared = f"rund {_signifikant(1 / facts.times_smaller)}-mal größer, als wenn"
        return f"Auf neuen Sequenzen ist ihr quadratischer Fehler {compared} wir den Mittelwert jeder Sequenz raten."


class SinusoidalPositions:
    @staticmethod
    def waves_said(run: Artifact) -> dict[str, str]:
        facts = encoding_facts(run)
        return {
            "why": "Attention allein ignoriert die Wortfolge, also bekommt jedes Token ein Positionssignal addiert.",
            "sines": (
                "Jedes Dimensionspaar enthält einen Sinus und einen Kosinus der Position, mit Wellenlängen, "
                f"die von {_signifikant(facts.shortest)} bis {_signifikant(facts.longest)} Positionen wachsen."
            ),
        }

    @staticmethod
    def build_encoding_said(run: Artifact) -> dict[str, str]:
        facts = encoding_facts(run)
        return {
            "grid": "Jetzt die ganze Kodierung als Raster.",
            "sweep": (
                "Im Durchlauf schreibt jede Position ihre Spalte, rot für positiv, blau für negativ. "
                "Die ersten Dimensionen wechseln alle paar Positionen das Vorzeichen, die letzten ändern sich kaum."
            ),
            "last_dimension": (
                f"Bis Position {ganz(facts.positions - 1)} erreicht die vorletzte Dimension nur "
                f"{_signifikant(facts.reached)}."
            ),
        }

    @staticmethod
    def gram_said(run: Artifact) -> dict[str, str]:
        facts = encoding_facts(run)
        return {
            "compare": "Als Nächstes vergleichen wir die Kodierung jeder Position mit jeder anderen.",
            "grid": "Dieses Raster enthält das Skalarprodukt jedes Positionspaars.",
            "constant": (
                f"Auf der Hauptdiagonale ist es {_signifikant(facts.gram_diagonal)}, die Hälfte der "
                f"{ganz(facts.dimensions)} Dimensionen, und auch entlang jeder anderen Diagonale bleibt es "
                "konstant."
            ),
        }

    @staticmethod
    def diagonal_said(run: Artifact) -> dict[str, str]:
        facts = encoding_facts(run)
        apart = anzahl(facts.offset, "Position", "Positionen", one="einer")
        return {
            "take": f"Nehmen wir die Diagonale der Paare im Abstand von {apart}.",
            "boxed": "Ein Kasten markiert eine Zelle, darunter steht ihr Wert.",
            "walk": (
                f"Entlang der Diagonale hat jede Zelle denselben Wert, {_signifikant(facts.on_diagonal)}: Das "
                "Produkt hängt nur vom Abstand zweier Positionen ab, nie von ihrer Lage."
            ),
        }

    @staticmethod
    def kernel_said(run: Artifact) -> dict[str, str]:
        facts = encoding_facts(run)
        return {
            "one_value": "Ein einziger Wert pro Abstand beschreibt also das ganze Raster.",
            "falls": (
                f"Er fällt, mit einigen Schwankungen, von {_signifikant(facts.with_itself)} für eine Position mit "
                f"sich selbst auf {_signifikant(facts.kernel_min)} bei {ganz(facts.kernel_min_offset)} Positionen "
                "Abstand."
            ),
            "alike": "Nahe Positionen ähneln sich; entfernte weniger.",
        }


class RopeRotation:
    @staticmethod
    def circles_said(run: Artifact) -> dict[str, str]:
        facts = rotary_facts(run)
        return {
            "clock": "Die Rotary-Kodierung markiert Positionen anders: Sie dreht Dimensionspaare wie Uhrzeiger.",
            "arrows": (
                f"{_gross(anzahl(len(facts.pairs), 'Paar', 'Paare'))} der Query-Dimensionen, "
                f"{'jedes ' if len(facts.pairs) > 1 else ''}ein Pfeil, "
                "bei Position null."
            ),
            "legend": (
                "Jeder Positionsschritt dreht ein Paar um seinen eigenen Winkel: "
                f"{_signifikant(facts.step)} Radiant für Paar {ganz(facts.fastest)}, "
                f"{'weit ' if facts.far_less else ''}weniger für höhere Paare."
            ),
        }

    @staticmethod
    def spin_said(run: Artifact) -> str:
        facts = rotary_facts(run)
        spin = (
            f"Während die Query von Position null bis {ganz(facts.last)} läuft, macht Paar {ganz(facts.fastest)} "
            f"{_umdrehungen(facts.fastest_turns)}"
        )
        if facts.slowest == facts.fastest:  # nur eine Geschwindigkeit gezeichnet
            return spin + "."
        return spin + f", Paar {ganz(facts.slowest)} dagegen nur {_umdrehungen(facts.slowest_turns)}."

    @staticmethod
    def both_positions_said(run: Artifact) -> dict[str, str]:
        facts = rotary_facts(run)
        return {
            "back_to_zero": "Die Query kehrt zu Position null zurück.",
            "key_joins": (
                f"Ein Key kommt an Position {ganz(facts.offset)} dazu. Jeder Bogen zeigt den Winkel zwischen Query "
                "und Key in einem Paar."
            ),
            "score": (
                "Der Score summiert Paar für Paar die beiden Längen mal den Kosinus dieses Winkels; "
                f"hier ist er {_signifikant(facts.score)}."
            ),
        }

    @staticmethod
    def shift_both_said(run: Artifact) -> dict[str, str]:
        facts = rotary_facts(run)
        return {
            "shifting": (
                f"Jetzt verschieben wir beide Positionen gemeinsam, um bis zu {ganz(facts.shift)}: Jeder Pfeil dreht "
                "sich, aber Query und Key drehen sich gemeinsam."
            ),
            "steady": f"Die Winkel ändern sich nie, also bleibt der Score bei {_signifikant(facts.score)}.",
        }

    @staticmethod
    def score_matrix_said(run: Artifact) -> dict[str, str]:
        facts = rotary_facts(run)
        return {
            "every_pair": "Hier der Score jeder Query-Position gegen jede Key-Position.",
            "constant": (
                "Jede Diagonale ist konstant: Liegt der Key "
                f"{anzahl(facts.offset, 'Position', 'Positionen', one='eine')} hinter der Query, ist der Score immer "
                f"{_signifikant(facts.diagonal_score)}."
            ),
        }

    @staticmethod
    def relative_rows_said(run: Artifact) -> dict[str, str]:
        return {
            "at_zero": "Diese Kurve zeigt die Scores einer Query an Position null gegen immer weiter entfernte Keys.",
            "at_shift": (
                f"Setzen wir die Query auf Position {ganz(rotary_facts(run).shift)}, liegt ihre gestrichelte Kurve "
                "genau darauf: Rotary-Scores hängen nur vom relativen Abstand ab."
            ),
        }


class ScaledDotProduct:
    @staticmethod
    def setup_views_said(run: Artifact) -> dict[str, str]:
        keys = scaling_facts(run).keys
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
        facts = scaling_facts(run)
        return {
            "doubles": (
                f"Jetzt {'verdoppelt sich' if facts.doubling else 'wächst'} die Dimension, Schritt für Schritt. "
                "Ohne Skalierung streuen die Scores breiter, und die Softmax wird schärfer."
            ),
            "grows": (
                f"Ihre Streuung, {_signifikant(facts.first_spread)} bei {ganz(facts.first_d)} Dimensionen, wächst "
                "wie die Wurzel aus d, und die unskalierten Gewichte häufen sich auf immer weniger Keys."
            ),
            "one_key": (
                f"Bei {ganz(facts.last_d)} Dimensionen beträgt die Streuung {_signifikant(facts.last_spread)}, und "
                f"ein Key erhält {_signifikant(facts.top_unscaled)} des unskalierten Gewichts."
            ),
        }

    @staticmethod
    def conclude_said(run: Artifact) -> dict[str, str]:
        facts = scaling_facts(run)
        if facts.one_hot:
            verdict = f"Die Attention {'wird' if facts.falls else 'ist'} one-hot, und ihre Gradienten verschwinden"
        elif facts.falls:
            verdict = f"Die Attention wird schärfer, ist bei {ganz(facts.last_d)} Dimensionen aber nicht one-hot"
        else:
            verdict = "Die Attention wird nicht schärfer"
        return {
            "collapse": (
                f"Unskaliert {'fällt' if facts.falls else 'geht'} die mittlere Entropie von "
                f"{_signifikant(facts.first_entropy)} auf {_signifikant(facts.last_entropy)}: {verdict}."
            ),
            "kept": f"Geteilt durch Wurzel d fällt die Entropie nie unter {zahl(facts.floor, 2)}.",
        }
