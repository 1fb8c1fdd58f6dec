"""The training kernels of precompute/ compute what torch computes on the reference models.

- The hand-written backward passes of bptt.py, in float64, where any mistake in a hand-derived gradient
  shows up far above rounding (1e-12), and in float32 at the trained sizes, where the products go to oneDNN.
- dense.py's products against nn.Linear, and common.Adam against torch.optim.Adam.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from torch import nn

from precompute import dense
from precompute.bptt import GRU, RNN
from precompute.common import Adam
from precompute.dense import Linear
from precompute.seq2seq_model import Seq2SeqAttention
from seqanim.config import Seq2Seq
from seqanim.contract import ROOT

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
    """Training runs in float32 with tanh as 2 sigmoid(2x) - 1, at the adding problem's sizes (the GRU's
    per-step products go to oneDNN): rounding-level differences only."""
    torch.manual_seed(3)
    reference = nn.GRU(2, 64, batch_first=True) if layer == "GRU" else nn.RNN(2, 64, batch_first=True)
    ours = GRU(2, 64) if layer == "GRU" else RNN(2, 64)
    ours.load_state_dict(reference.state_dict())
    x = torch.rand(128, 40, 2, generator=torch.Generator().manual_seed(4))
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


def test_attention_decoder_matches_in_float32_at_the_sort_sizes() -> None:
    """seq2seq_sort's sizes, where the decoder's products and weight gradients go to oneDNN and the
    step-by-step reference runs torch's own: equal up to float32 rounding."""
    params = Seq2Seq(vocab=12, length=8, hidden=64, embed=32, attn=64, bidirectional=True)
    assert not dense.ONEDNN or dense.uses_onednn(torch.empty(64, 128), 448)  # the sizes do reach oneDNN here
    torch.manual_seed(5)
    model = Seq2SeqAttention(params)
    generator = torch.Generator().manual_seed(6)
    source = torch.rand(64, params.vocab, generator=generator).argsort(1)[:, : params.length]
    target = source.sort(1).values
    fused, reference = model(source, target), model.step_by_step(source, target)
    for mine, ref in zip(fused, reference):
        assert (mine - ref).abs().max() < 1e-5 * max(1.0, ref.abs().max().item())
    weights = torch.randn_like(fused.logits)
    grads_fused = gradients((fused.logits * weights).sum(), model)
    grads_reference = gradients((reference.logits * weights).sum(), model)
    largest = max(grad.abs().max().item() for grad in grads_reference.values())  # v's bias: exactly 0 but for rounding
    for name, grad in grads_reference.items():
        assert (grad - grads_fused[name]).abs().max() < 1e-4 * max(grad.abs().max().item(), 1e-3 * largest), name


@pytest.mark.parametrize(("rows", "inputs", "outputs", "dtype"), [(40, 2, 192, torch.double), (40, 96, 1, torch.double), (512, 128, 448, torch.float32)])
def test_dense_linear_matches_nn_linear(rows: int, inputs: int, outputs: int, dtype: torch.dtype) -> None:
    """Output and gradients of Linear against nn.Linear: narrow inputs (the adding problem's 2 channels),
    narrow outputs (a readout), and a decoder-sized layer, whose products and weight gradient go to oneDNN."""
    torch.manual_seed(7)
    reference = nn.Linear(inputs, outputs).to(dtype)
    ours = Linear(inputs, outputs).to(dtype)
    ours.load_state_dict(reference.state_dict())
    x = torch.randn(rows, 3, inputs, dtype=dtype)
    tolerance = 1e-12 if dtype == torch.double else 1e-5
    results = []
    for module in (reference, ours):
        leaf = x.clone().requires_grad_()
        output = module(leaf)
        results.append((output, *torch.autograd.grad(output.sin().sum(), [leaf, *module.parameters()])))
    for expected, got in zip(*results):
        assert (expected - got).abs().max() <= tolerance * max(1.0, expected.abs().max().item())


def test_adam_updates_as_torch_optim_adam() -> None:
    """The same fused kernel on the same state: bit-identical parameters after several steps, including a
    parameter that gets its first gradient late (its state starts then, as in torch.optim.Adam)."""
    torch.manual_seed(8)
    models = [nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3)) for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    optimisers = [torch.optim.Adam(models[0].parameters(), 0.01, fused=True), Adam(models[1].parameters(), 0.01)]
    x = torch.randn(16, 5)
    initial = [parameter.detach().clone() for parameter in models[0].parameters()]
    for step in range(6):
        for model, optimiser in zip(models, optimisers):
            optimiser.zero_grad()
            model[0].weight.requires_grad_(step >= 2)
            model(x).square().mean().backward()
            optimiser.step()
    for expected, got, start in zip(models[0].parameters(), models[1].parameters(), initial):
        assert torch.equal(expected, got)
        assert not torch.equal(got, start)  # every parameter, the late one too, was updated


def test_training_never_imports_torch_dynamo() -> None:
    """torch.optim's first use imports torch._dynamo (about 0.8 s); a training run here must not pay it."""
    script = (
        "import sys; from precompute import lookup; from seqanim.config import Lookup; "
        "lookup.run(Lookup(iters=3, test_size=16)); print('torch._dynamo' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, env={"SEQANIM_QUIET": "1", "PATH": ""})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "False"


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
