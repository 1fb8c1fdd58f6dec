"""Matrix products for training on a CPU: oneDNN's AVX-512 kernels instead of MKL's AVX2 ones.

torch sends float32 matmuls to MKL, whose sgemm takes its AVX2 path on AMD CPUs. oneDNN, also inside torch,
picks its kernels by instruction set, so on an AVX-512 CPU it is 1.6-2.3x faster at the experiments' sizes
(measured here: 64x128 @ 128x448 in 43 instead of 70 us). Other dtypes (the float64 gradient tests) and
builds without oneDNN use torch's own matmul. Either way the results differ from F.linear only by rounding.

- `linear`, `linear_add` and `weight_grad` are the three products a hand-written backward needs.
- `Linear` is nn.Linear (same parameters, initialisation and state dict) trained through them.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd.function import once_differentiable

ONEDNN = torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_linear_pointwise")
# Below about a million multiply-adds oneDNN's fixed cost per call outweighs its faster kernel (measured:
# 64x128 @ 128x448 71 -> 44 us, 128x64 @ 64x192 31 -> 25 us, 64x64 @ 64x256 a tie, 128x64 @ 64x64 12 -> 16 us).
ONEDNN_MIN_MACS = 1_500_000
# oneDNN wants both factors of a weight gradient transposed; below this many weight entries the two
# copies cost more than oneDNN saves (measured: 448x128 and 384x128 gain, 192x64 and smaller do not).
ONEDNN_WEIGHT_GRAD_MIN = 32768


def uses_onednn(x: torch.Tensor, outputs: int) -> bool:
    """Whether `linear(x, weight)` with `outputs` rows of weight goes to oneDNN."""
    return ONEDNN and x.dtype == torch.float32 and x.numel() * outputs >= ONEDNN_MIN_MACS


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """x @ weight^T + bias, as F.linear."""
    if uses_onednn(x, weight.size(0)):
        return torch.ops.mkldnn._linear_pointwise(x, weight.contiguous(), bias, "none", [], "")
    return F.linear(x, weight, bias)


def linear_add(x: torch.Tensor, weight: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    """other + x @ weight^T, the sum fused into the product."""
    if uses_onednn(x, weight.size(0)):
        return torch.ops.mkldnn._linear_pointwise.binary(x, other.contiguous(), weight.contiguous(), None, "add")
    return other + F.linear(x, weight)


def weight_grad(grad: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """grad^T @ inputs for (N, out) and (N, in) rows: a linear layer's weight gradient, summed over the N rows."""
    if uses_onednn(grad, inputs.size(1)) and grad.size(1) * inputs.size(1) >= ONEDNN_WEIGHT_GRAD_MIN:
        return linear(grad.t().contiguous(), inputs.t().contiguous())
    if inputs.size(1) < grad.size(1):  # MKL is ~10x slower when the narrow factor comes second (e.g. 2 inputs)
        return (inputs.t() @ grad).t()
    return grad.t() @ inputs


class DenseFunction(torch.autograd.Function):
    """y = x W^T + b with every product of forward and backward by `linear` and `weight_grad`."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        return linear(x, weight, bias)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, weight = ctx.saved_tensors
        rows = grad.reshape(-1, grad.size(-1))
        grad_x = linear(grad, weight.t()) if ctx.needs_input_grad[0] else None
        grad_weight = weight_grad(rows, x.reshape(-1, x.size(-1))) if ctx.needs_input_grad[1] else None
        grad_bias = rows.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return grad_x, grad_weight, grad_bias


def dense(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """F.linear by `linear`, trained through DenseFunction."""
    if torch.is_grad_enabled():
        return DenseFunction.apply(x, weight, bias)
    return linear(x, weight, bias)


class Linear(nn.Linear):
    """nn.Linear trained through DenseFunction."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return dense(x, self.weight, self.bias)
