"""Part 3 of seed 000: Transformers. Self-attention as lookup and as pooling, sinusoidal and rotary
positions, and why dot products are scaled by 1/sqrt(d). Every number is read from data/."""

from seqanim import Part

PART = Part(
    "Transformers",
    order=4,
    scenes=(
        "self_attention_lookup",
        "attention_pooling",
        "sinusoidal_positions",
        "rope_rotation",
        "scaled_dot_product",
    ),
)
