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


@pytest.mark.parametrize("bidirectional", [False, True])
def test_gru_matches_nn_gru_values_and_gradients(bidirectional: bool) -> None:
    torch.manual_seed(0)
    reference = nn.GRU(3, 5, batch_first=True, bidirectional=bidirectional).double()
    torch.manual_seed(0)
    ours = GRU(3, 5, bidirectional=bidirectional).double()
    assert ours.state_dict().keys() == reference.state_dict().keys()
    assert all(torch.equal(a, b) for a, b in zip(ours.parameters(), reference.parameters()))  # same init from a seed

    inputs = torch.randn(4, 7, 3, dtype=torch.double)
    start = torch.randn(2 if bidirectional else 1, 4, 5, dtype=torch.double)
    weight_out, weight_final = torch.randn(4, 7, 5 * (2 if bidirectional else 1), dtype=torch.double), torch.randn_like(start)
    results = {}
    for name, module in (("reference", reference), ("ours", ours)):
        x = inputs.clone().requires_grad_()
        h0 = start.clone().requires_grad_()
        output, final = module(x, h0)
        loss = (output * weight_out).sum() + (final * weight_final).sum()
        results[name] = (output, final, gradients(loss, module))
    (out_ref, final_ref, grads_ref), (out_ours, final_ours, grads_ours) = results["reference"], results["ours"]
    assert (out_ref - out_ours).abs().max() < TOLERANCE
    assert (final_ref - final_ours).abs().max() < TOLERANCE
    for name, grad in grads_ref.items():
        assert (grad - grads_ours[name]).abs().max() < TOLERANCE, name


def test_gru_input_and_state_gradients_match() -> None:
    torch.manual_seed(1)
    reference = nn.GRU(2, 4, batch_first=True).double()
    ours = GRU(2, 4).double()
    ours.load_state_dict(reference.state_dict())
    grads = []
    for module in (reference, ours):
        x = torch.linspace(-1, 1, 3 * 6 * 2, dtype=torch.double).reshape(3, 6, 2).requires_grad_()
        h0 = torch.full((1, 3, 4), 0.3, dtype=torch.double, requires_grad=True)
        output, _ = module(x, h0)
        grads.append(torch.autograd.grad(output.square().sum(), [x, h0]))
    for ref, mine in zip(*grads):
        assert (ref - mine).abs().max() < TOLERANCE


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


def test_rnn_matches_nn_rnn_values_and_gradients() -> None:
    torch.manual_seed(4)
    reference = nn.RNN(2, 6, batch_first=True).double()
    torch.manual_seed(4)
    ours = RNN(2, 6).double()
    assert all(torch.equal(a, b) for a, b in zip(ours.parameters(), reference.parameters()))
    results = []
    for module in (reference, ours):
        x = torch.randn(3, 9, 2, dtype=torch.double, generator=torch.Generator().manual_seed(5)).requires_grad_()
        h0 = torch.full((1, 3, 6), -0.2, dtype=torch.double, requires_grad=True)
        output, final = module(x, h0)
        loss = output.sin().sum() + final.square().sum()
        results.append((output, final, *torch.autograd.grad(loss, [x, h0, *module.parameters()])))
    for ref, mine in zip(*results):
        assert (ref - mine).abs().max() < TOLERANCE
