"""Part 2 of seed 000: recurrent attention. A GRU encoder-decoder with additive attention learns to reverse
(at2) and to sort (at4); at every decoder step the additive scores become a softmax row of the alignment
matrix. Everything drawn is the trained models' real attention from data/."""

from seqanim import Part

PART = Part("Recurrent attention", order=2, scenes=("reverse_alignment", "sort_alignment"))
