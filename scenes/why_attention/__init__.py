"""Seed 003: why attention, and how it works. Compare (scores), normalise (softmax), retrieve (weighted
values), then masks and what an attention plot can and cannot explain. Every number is read from
data/qkv_walkthrough (precompute/qkv_walkthrough.py)."""

from seqanim import Part

PART = Part(
    "Why attention, and how it works",
    order=3,
    scenes=(
        "query_key_value",
        "scaled_scores",
        "softmax_normalization",
        "weighted_retrieval",
        "query_and_temperature",
        "causal_mask",
        "padding_mask",
        "what_attention_explains",
    ),
)
