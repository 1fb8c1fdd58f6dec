"""The hand-written backward passes of precompute/bptt.py compute what autograd computes on the reference models.

Everything runs in float64, so any mistake in a hand-derived gradient shows up far above rounding (1e-12).
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from precompute.bptt import GRU, RNN
from precompute.seq2seq_model import Seq2SeqAttention
from seqanim.config import Seq2Seq

TOLERANCE = 1e-12


def gradients(loss: torch.Tensor, module: nn.Module) -> dict[str, torch.Tensor]:
    names, parameters = zip(*module.named_parameters())
    return dict(zip(names, torch.autograd.grad(loss, parameters)))


def compare(reference: nn.Module, ours: nn.Module, x: torch.Tensor, hx: torch.Tensor | None, tolerance: float) -> None:
    """Outputs, final states and the gradients of a loss w.r.t. the input, the start state and every parameter,
    equal up to `tolerance` relative to each tensor's largest entry."""
    results = []
    for module in (reference, ours):
        inputs = x.clone().requires_grad_()
        start = None if hx is None else hx.clone().requires_grad_()
        output, final = module(inputs, start)
        loss = output.sin().sum() + final.square().sum()
        leaves = [inputs, *([] if start is None else [start]), *module.parameters()]
        results.append((output, final, *torch.autograd.grad(loss, leaves)))
    for index, (expected, got) in enumerate(zip(*results)):
        assert expected.shape == got.shape, index
        assert (expected - got).abs().max() <= tolerance * max(1.0, expected.abs().max().item()), index


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("start", ["zeros", "given"])
def test_gru_matches_nn_gru_in_float64(bidirectional: bool, start: str) -> None:
    torch.manual_seed(0)
    reference = nn.GRU(3, 5, batch_first=True, bidirectional=bidirectional).double()
    torch.manual_seed(0)
    ours = GRU(3, 5, bidirectional=bidirectional).double()
    assert ours.state_dict().keys() == reference.state_dict().keys()
    assert all(torch.equal(a, b) for a, b in zip(ours.parameters(), reference.parameters()))  # same init from a seed
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(4, 7, 3, dtype=torch.double, generator=generator)
    hx = torch.randn(2 if bidirectional else 1, 4, 5, dtype=torch.double, generator=generator) if start == "given" else None
    compare(reference, ours, x, hx, TOLERANCE)


@pytest.mark.parametrize("layer", ["RNN", "GRU"])
def test_layers_match_in_float32_as_trained(layer: str) -> None:
    """Training runs in float32 with tanh as 2 sigmoid(2x) - 1: rounding-level differences only."""
    torch.manual_seed(3)
    reference = nn.GRU(2, 64, batch_first=True) if layer == "GRU" else nn.RNN(2, 64, batch_first=True)
    ours = GRU(2, 64) if layer == "GRU" else RNN(2, 64)
    ours.load_state_dict(reference.state_dict())
    x = torch.rand(16, 40, 2, generator=torch.Generator().manual_seed(4))
    compare(reference, ours, x, None, 1e-5)


def test_gru_evaluates_with_nn_gru_itself() -> None:
    """Without grad (held-out metrics, the scenes' data) the stock forward runs: nothing is kept for a backward."""
    ours = GRU(2, 4)
    x = torch.rand(3, 5, 2)
    with torch.no_grad():
        output, final = ours(x)
        expected, expected_final = nn.GRU.forward(ours, x)
    assert torch.equal(output, expected) and torch.equal(final, expected_final)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_attention_decoder_matches_the_step_by_step_model(bidirectional: bool) -> None:
    """The fused teacher-forced decoder against the readable per-step loop (autograd): logits, attention,
    energies and every parameter's gradient."""
    params = Seq2Seq(vocab=9, length=6, hidden=5, embed=4, attn=7, bidirectional=bidirectional)
    torch.manual_seed(2)
    model = Seq2SeqAttention(params).double()
    generator = torch.Generator().manual_seed(3)
    source = torch.randint(0, params.vocab, (4, params.length), generator=generator)
    target = torch.randint(0, params.vocab, (4, params.length), generator=generator)
    fused, reference = model(source, target), model.step_by_step(source, target)
    for mine, ref in zip(fused, reference):
        assert (mine - ref).abs().max() < TOLERANCE
    assert torch.allclose(fused.attention.sum(-1), torch.ones(4, params.length, dtype=torch.double))

    weights = torch.randn_like(fused.logits)
    grads_fused = gradients((fused.logits * weights).sum(), model)
    grads_reference = gradients((reference.logits * weights).sum(), model)
    for name, grad in grads_reference.items():
        assert (grad - grads_fused[name]).abs().max() < TOLERANCE, name
    assert any(grad.abs().max() > 1e-3 for grad in grads_fused.values())  # the comparison is not between zeros


def test_rnn_matches_nn_rnn_in_float64() -> None:
    torch.manual_seed(4)
    reference = nn.RNN(2, 6, batch_first=True).double()
    torch.manual_seed(4)
    ours = RNN(2, 6).double()
    assert all(torch.equal(a, b) for a, b in zip(ours.parameters(), reference.parameters()))
    generator = torch.Generator().manual_seed(5)
    x = torch.randn(3, 9, 2, dtype=torch.double, generator=generator)
    compare(reference, ours, x, torch.full((1, 3, 6), -0.2, dtype=torch.double), TOLERANCE)
    compare(reference, ours, x, None, TOLERANCE)
