"""Hand-written backward passes through time for the recurrences the experiments train: same models, faster.

On a CPU, at the notebooks' sizes (batch 64-128, hidden 64), much of the training time goes into the
overhead of autograd's ~30 small ops per time step. Here each recurrence is one custom autograd Function:
the forward loop runs a matmul and a few elementwise ops per step, the step-local factors of the backward
are computed for all steps at once, the backward loop is one matmul and a few elementwise ops per step,
and weight gradients are summed over every step in one matmul at the end. The matmuls go through
precompute.dense (oneDNN's AVX-512 kernels where they pay). Measured per training step (one core, same
machine, side by side, against autograd through nn's modules): adding RNN 3.7 -> 2.9 ms, adding GRU
10.4 -> 9.2 ms, seq2seq reverse 6.8 -> 6.0 ms, seq2seq sort 10.1 -> 8.6 ms.

- `RNN` (tanh) and `GRU` are nn.RNN and nn.GRU (same parameters, initialisation and state dict, so a seed
  gives the notebook's initial weights) trained through them; a bidirectional GRU runs both directions in
  one loop. Without grad (evaluation) they run nn's own forward.
- `AttentionDecoderRecurrence` is the teacher-forced decoder of seq2seq_model.

tests/test_bptt.py checks values and gradients against nn.RNN, nn.GRU and the step-by-step decoder in
float64 (and float32, as trained).
"""
from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd.function import once_differentiable

from precompute.dense import dense, linear, linear_add, weight_grad


def fast_tanh_(x: torch.Tensor) -> torch.Tensor:
    """tanh(x) = 2 sigmoid(2x) - 1, in place. torch.tanh has no vectorised CPU kernel here (7x slower than sigmoid)."""
    return x.mul_(2).sigmoid_().mul_(2).sub_(1)


def one_minus_square(x: torch.Tensor) -> torch.Tensor:
    """1 - x^2, the derivative of tanh at tanh = x (x * x: torch.square goes through a slow pow kernel)."""
    return torch.mul(x, x).neg_().add_(1)


# --- the GRU cell, shared by GRURecurrence and the attention decoder ---------------------------------------
# Gate order as nn.GRU: r (reset), z (update), n (candidate); n = tanh(gi_n + r * (W_hn h + b_hn)) and
# h' = (1 - z) n + z h. gi and gh are the input's and the previous state's shares of the gates.


def gru_views(gates: torch.Tensor) -> list[tuple[torch.Tensor, ...]]:
    """Per step, the (r and z, n, r, z) views into `gates` (T, ..., 3H) that gru_cell_ writes: made once,
    because indexing inside the loop would cost as much as the elementwise ops."""
    hidden = gates.size(-1) // 3
    parts = (gates[..., : 2 * hidden], gates[..., 2 * hidden :], gates[..., :hidden], gates[..., hidden : 2 * hidden])
    return list(zip(*(part.unbind(0) for part in parts)))


def gru_cell_(gi_rz: torch.Tensor, gi_n: torch.Tensor, gh_rz: torch.Tensor, gh_n: torch.Tensor, gates: tuple[torch.Tensor, ...], previous: torch.Tensor, out: torch.Tensor) -> None:
    """One step, written in place: r, z, n into the step's `gates` views (gru_views), the new state into `out`."""
    rz, candidate, reset, update = gates
    torch.add(gi_rz, gh_rz, out=rz).sigmoid_()
    fast_tanh_(torch.addcmul(gi_n, reset, gh_n, out=candidate))
    torch.lerp(candidate, previous, update, out=out)


def gru_factors(gates: torch.Tensor, previous: torch.Tensor, gh_n: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """For all steps at once, what the backward multiplies the incoming gradient dh by:
    reset r, update z, and d h'/d(n pre-activation), d h'/d(z pre-activation), d(n pre)/d(r pre)."""
    reset, update, candidate = gates.split(previous.size(-1), -1)
    keep = update.neg().add_(1)
    through_candidate = keep * one_minus_square(candidate)  # (1 - z)(1 - n^2)
    through_update = (previous - candidate).mul_(update).mul_(keep)  # (h - n) z (1 - z)
    through_reset = reset.neg().add_(1).mul_(reset).mul_(gh_n)  # r (1 - r) (W_hn h + b_hn)
    return reset, update, through_candidate, through_update, through_reset


def gru_cell_backward_(grad_h: torch.Tensor, factors: tuple[torch.Tensor, ...], grad_reset: torch.Tensor, grad_update: torch.Tensor, grad_n: torch.Tensor, grad_gh_n: torch.Tensor) -> torch.Tensor:
    """One step back: the gradients of the r, z and n pre-activations (and of gh_n) from dh', written in
    place; returns dh' z, the part of dh that skips the gates."""
    reset, update, through_candidate, through_update, through_reset = factors
    torch.mul(grad_h, through_candidate, out=grad_n)
    torch.mul(grad_n, through_reset, out=grad_reset)
    torch.mul(grad_h, through_update, out=grad_update)
    torch.mul(grad_n, reset, out=grad_gh_n)
    return grad_h.mul_(update)


class GRURecurrence(torch.autograd.Function):
    """h_t = GRU(h_{t-1}; input gates gi_t) for t = 1..T, for D independent directions at once.

    gi = W_ih x + b_ih is computed outside. Gate order as nn.GRU: r (reset), z (update), n (candidate);
    n = tanh(gi_n + r * (W_hn h + b_hn)) and h_t = (1 - z) n + z h_{t-1}.
    """

    @staticmethod
    def forward(ctx: Any, input_gates: torch.Tensor, h0: torch.Tensor, weight_hh: torch.Tensor, bias_hh: torch.Tensor) -> torch.Tensor:
        steps, directions, batch, three_hidden = input_gates.shape  # (T, D, B, 3H), time-major
        hidden = three_hidden // 3
        states = input_gates.new_empty(steps + 1, directions, batch, hidden)  # h_0 .. h_T
        gates = input_gates.new_empty(steps, directions, batch, three_hidden)  # r, z, n after their nonlinearities
        hidden_n = input_gates.new_empty(steps, directions, batch, hidden)  # W_hn h_{t-1} + b_hn, for the backward
        states[0] = h0
        # Per-step views made once: indexing inside the loop would cost as much as the elementwise ops.
        input_rz, input_n = (part.unbind(0) for part in input_gates.split([2 * hidden, hidden], -1))
        cell, state, saved_n = gru_views(gates), states.unbind(0), hidden_n.unbind(0)
        weight, bias = weight_hh.transpose(1, 2), bias_hh.unsqueeze(1)
        for t in range(steps):
            if directions == 1:  # oneDNN's product (see dense); baddbmm, for both directions at once, has none
                product = linear(state[t][0], weight_hh[0], bias_hh[0]).unsqueeze(0)
            else:
                product = torch.baddbmm(bias, state[t], weight)
            # The step's product stays a cache-warm temporary; only its n part is kept (the gates buffers are MBs).
            gru_cell_(input_rz[t], input_n[t], product[..., : 2 * hidden], saved_n[t].copy_(product[..., 2 * hidden :]), cell[t], state[t], state[t + 1])
        factors = gru_factors(gates, states[:-1], hidden_n)  # all steps at once
        ctx.save_for_backward(states, *factors, weight_hh)
        return states[1:]

    @staticmethod
    @once_differentiable  # the backward loops are not themselves differentiable
    def backward(ctx: Any, grad_states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        states, *factors, weight_hh = ctx.saved_tensors
        steps, directions, batch, hidden = states[1:].shape
        grad_hidden_gates = states.new_empty(steps, directions, batch, 3 * hidden)  # d loss / d(W_hh h_{t-1} + b_hh)
        grad_candidate = states.new_empty(steps, directions, batch, hidden)  # d loss / d(candidate pre-activation)
        grad_reset, grad_update, grad_hidden_n = (part.unbind(0) for part in grad_hidden_gates.split(hidden, -1))
        grad_hidden, grad_n, grad_out = grad_hidden_gates.unbind(0), grad_candidate.unbind(0), grad_states.unbind(0)
        step_factors = list(zip(*(factor.unbind(0) for factor in factors)))
        weight_t = weight_hh[0].t().contiguous() if directions == 1 else None  # linear_add's layout
        grad_h = torch.zeros_like(states[0])
        for t in reversed(range(steps)):
            grad_h += grad_out[t]
            skip = gru_cell_backward_(grad_h, step_factors[t], grad_reset[t], grad_update[t], grad_n[t], grad_hidden_n[t])
            if weight_t is not None:
                grad_h = linear_add(grad_hidden[t][0], weight_t, skip[0]).unsqueeze(0)
            else:
                grad_h = torch.baddbmm(skip, grad_hidden[t], weight_hh)
        # The input gates share the r and z gradients; their n gradient skips the reset gate.
        grad_input_gates = torch.cat([grad_hidden_gates[..., : 2 * hidden], grad_candidate], -1)
        # Every step's share of the weight gradient in one matmul per direction.
        by_direction = grad_hidden_gates.transpose(0, 1).reshape(directions, steps * batch, 3 * hidden)
        previous = states[:-1].transpose(0, 1).reshape(directions, steps * batch, hidden)
        grad_weight = torch.stack([weight_grad(grad, inputs) for grad, inputs in zip(by_direction, previous)])
        return grad_input_gates, grad_h, grad_weight, by_direction.sum(1)


class GRU(nn.GRU):
    """A one-layer, batch-first nn.GRU (optionally bidirectional) trained through GRURecurrence."""

    def __init__(self, input_size: int, hidden_size: int, *, bidirectional: bool = False) -> None:
        super().__init__(input_size, hidden_size, batch_first=True, bidirectional=bidirectional)

    def forward(self, x: torch.Tensor, hx: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        if not torch.is_grad_enabled():  # evaluation: nn.GRU's own forward, which keeps nothing for a backward
            return super().forward(x, hx)
        return self._run([dense(sequence, weight, bias) for sequence, weight, bias in self._directions(x.transpose(0, 1))], hx)

    def forward_tokens(self, tokens: torch.Tensor, embedding: nn.Embedding, hx: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """forward(embedding(tokens)), with the embedding and the input weights composed into one table: the
        vocabulary's few rows are projected, not every token of the batch, then looked up."""
        if not torch.is_grad_enabled():
            return self.forward(embedding(tokens), hx)
        return self._run([F.embedding(sequence, dense(embedding.weight, weight, bias)) for sequence, weight, bias in self._directions(tokens.t())], hx)

    def _suffixes(self) -> list[str]:
        return ["l0", "l0_reverse"][: 2 if self.bidirectional else 1]

    def _directions(self, time_major: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        """Per direction: the sequence it reads (the reverse one backwards) and its input weight and bias."""
        sequences = [time_major, time_major.flip(0)]
        return [(sequence, getattr(self, f"weight_ih_{suffix}"), getattr(self, f"bias_ih_{suffix}")) for sequence, suffix in zip(sequences, self._suffixes())]

    def _run(self, gates: list[torch.Tensor], hx: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """The recurrence on each direction's input gates (T, B, 3H), time-major; outputs batch-first."""
        input_gates = torch.stack(gates, dim=1) if self.bidirectional else gates[0].unsqueeze(1)  # (T, D, B, 3H)
        h0 = gates[0].new_zeros(len(gates), gates[0].size(1), self.hidden_size) if hx is None else hx
        weight_hh = torch.stack([getattr(self, f"weight_hh_{suffix}") for suffix in self._suffixes()])
        bias_hh = torch.stack([getattr(self, f"bias_hh_{suffix}") for suffix in self._suffixes()])
        states = GRURecurrence.apply(input_gates, h0, weight_hh, bias_hh)  # (T, D, B, H)
        # Both directions' states side by side, each at its own time step (the copy only when there are two).
        outputs = torch.cat([states[:, 0], states[:, 1].flip(0)], -1) if self.bidirectional else states[:, 0]
        return outputs.transpose(0, 1), states[-1]


class TanhRecurrence(torch.autograd.Function):
    """h_t = tanh(pre_t + W_hh h_{t-1}) for t = 1..T; pre = W_ih x + b_ih + b_hh is computed outside."""

    @staticmethod
    def forward(ctx: Any, inputs: torch.Tensor, h0: torch.Tensor, weight_hh: torch.Tensor) -> torch.Tensor:
        steps, batch, hidden = inputs.shape  # (T, B, H), time-major
        states = inputs.new_empty(steps + 1, batch, hidden)
        states[0] = h0
        state, pre = states.unbind(0), inputs.unbind(0)
        for t in range(steps):
            state[t + 1].copy_(fast_tanh_(linear_add(state[t], weight_hh, pre[t])))
        ctx.save_for_backward(states, one_minus_square(states[1:]), weight_hh)
        return states[1:]

    @staticmethod
    @once_differentiable  # the backward loops are not themselves differentiable
    def backward(ctx: Any, grad_states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        states, through_tanh, weight_hh = ctx.saved_tensors
        steps, batch, hidden = through_tanh.shape
        grad_inputs = torch.empty_like(through_tanh)  # d loss / d(pre-activation) of every step
        grad_pre, factor, grad_out = grad_inputs.unbind(0), through_tanh.unbind(0), grad_states.unbind(0)
        weight_t = weight_hh.t().contiguous()
        grad_h = torch.zeros_like(states[0])
        for t in reversed(range(steps)):
            grad_h += grad_out[t]
            grad_h = linear(torch.mul(grad_h, factor[t], out=grad_pre[t]), weight_t)
        flat = grad_inputs.reshape(steps * batch, hidden)
        return grad_inputs, grad_h, weight_grad(flat, states[:-1].reshape(steps * batch, hidden))


class RNN(nn.RNN):
    """A one-layer, batch-first tanh nn.RNN trained through TanhRecurrence."""

    def __init__(self, input_size: int, hidden_size: int) -> None:
        super().__init__(input_size, hidden_size, batch_first=True)

    def forward(self, x: torch.Tensor, hx: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        if not torch.is_grad_enabled():  # evaluation: nn.RNN's own forward
            return super().forward(x, hx)
        inputs = dense(x.transpose(0, 1), self.weight_ih_l0, self.bias_ih_l0 + self.bias_hh_l0)
        start = x.new_zeros(x.size(0), self.hidden_size) if hx is None else hx[0]
        states = TanhRecurrence.apply(inputs, start, self.weight_hh_l0)
        return states.transpose(0, 1), states[-1:]


class AttentionDecoderRecurrence(torch.autograd.Function):
    """The teacher-forced decoder of seq2seq_model: additive attention over the encoder states, then a GRUCell.

    Per decoder step t, with h the previous decoder state:
        [hidden gates | query] = W_s h + b_s                    (W_s stacks the GRU's W_hh and attention's W_q)
        energies_j = v . tanh(keys_j + query) + v_bias           (keys = W_k encoder_states + b_k, from outside)
        attention = softmax(energies);  context = sum_j attention_j encoder_states_j
        input gates = embed_gates_t + W_c context                (embed_gates: the embedded previous symbol)
        h' = GRU(h; input gates, hidden gates)
    Returns every step's state, context, attention and energies, time-major. Only states and contexts
    carry gradients (they feed the output layer); the attention and energies are for display.
    """

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any,
        encoder_states: torch.Tensor,  # (B, L_src, S)
        keys: torch.Tensor,  # (B, L_src, A)
        h0: torch.Tensor,  # (B, S)
        embed_gates: torch.Tensor,  # (T, B, 3S)
        state_weight: torch.Tensor,  # (3S + A, S)
        state_bias: torch.Tensor,  # (3S + A,)
        score_weight: torch.Tensor,  # (A,)
        score_bias: torch.Tensor,  # (1,)
        context_weight: torch.Tensor,  # (3S, S)
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        steps, batch, three_state = embed_gates.shape
        state_size, width, sources = three_state // 3, keys.size(-1), keys.size(1)
        states = h0.new_empty(steps + 1, batch, state_size)
        state_products = h0.new_empty(steps, batch, three_state + width)  # [W_hh h + b_hh | query]
        squashed = h0.new_empty(steps, batch, sources, width)  # tanh(keys + query)
        energies = h0.new_empty(steps, batch, sources)
        attention = h0.new_empty(steps, batch, sources)
        contexts = h0.new_empty(steps, batch, state_size)
        input_gates = h0.new_empty(steps, batch, three_state)
        gates = h0.new_empty(steps, batch, three_state)  # r, z, n after their nonlinearities
        states[0] = h0
        split = [2 * state_size, state_size]
        hidden_rz, hidden_n, query = (part.unbind(0) for part in state_products.split([*split, width], -1))
        input_rz, input_n = (part.unbind(0) for part in input_gates.split(split, -1))
        cell = gru_views(gates)
        state, product, squash, energy, weights, context, gate_input = (
            tensor.unbind(0) for tensor in (states, state_products, squashed, energies, attention, contexts, input_gates)
        )
        for t in range(steps):
            product[t].copy_(linear(state[t], state_weight, state_bias))
            fast_tanh_(torch.add(keys, query[t].unsqueeze(1), out=squash[t]))
            torch.matmul(squash[t], score_weight, out=energy[t]).add_(score_bias)
            torch.softmax(energy[t], -1, out=weights[t])
            torch.bmm(weights[t].unsqueeze(1), encoder_states, out=context[t].unsqueeze(1))
            gate_input[t].copy_(linear_add(context[t], context_weight, embed_gates[t]))
            gru_cell_(input_rz[t], input_n[t], hidden_rz[t], hidden_n[t], cell[t], state[t], state[t + 1])
        factors = gru_factors(gates, states[:-1], state_products[..., 2 * state_size : three_state])
        through_squash = one_minus_square(squashed).mul_(score_weight)  # d energy / d(keys + query)
        ctx.save_for_backward(
            encoder_states, states, contexts, attention, squashed, through_squash, state_weight, context_weight, *factors,
        )  # fmt: skip
        ctx.mark_non_differentiable(attention, energies)
        return states[1:], contexts, attention, energies

    @staticmethod
    @once_differentiable  # the backward loops are not themselves differentiable
    def backward(ctx: Any, grad_states: torch.Tensor, grad_contexts: torch.Tensor, *_: torch.Tensor) -> tuple[torch.Tensor, ...]:
        encoder_states, states, contexts, attention, squashed, through_squash, state_weight, context_weight, *factors = ctx.saved_tensors
        steps, batch, state_size = contexts.shape
        width = squashed.size(-1)
        grad_products = states.new_empty(steps, batch, 3 * state_size + width)  # d loss / d(W_s h + b_s)
        grad_inputs = states.new_empty(steps, batch, 3 * state_size)  # d loss / d(input gates)
        grad_context = states.new_empty(steps, batch, state_size)
        grad_energies = states.new_empty(steps, batch, attention.size(-1))
        grad_squash = torch.empty_like(squashed)  # d loss / d(keys + query)
        grad_hidden_rz, grad_hidden_n, grad_query = (part.unbind(0) for part in grad_products.split([2 * state_size, state_size, width], -1))
        grad_reset, grad_update, grad_input_n = (part.unbind(0) for part in grad_inputs.split(state_size, -1))
        grad_input_rz = grad_inputs[..., : 2 * state_size].unbind(0)
        grad_product, grad_input, grad_ctx, grad_energy, grad_pre = (
            tensor.unbind(0) for tensor in (grad_products, grad_inputs, grad_context, grad_energies, grad_squash)
        )
        squash_factor, weights, grad_out, grad_ctx_out = (tensor.unbind(0) for tensor in (through_squash, attention, grad_states, grad_contexts))
        step_factors = list(zip(*(factor.unbind(0) for factor in factors)))
        state_weight_t, context_weight_t = state_weight.t().contiguous(), context_weight.t().contiguous()
        grad_h = torch.zeros_like(states[0])
        for t in reversed(range(steps)):
            grad_h += grad_out[t]
            skip = gru_cell_backward_(grad_h, step_factors[t], grad_reset[t], grad_update[t], grad_input_n[t], grad_hidden_n[t])
            grad_hidden_rz[t].copy_(grad_input_rz[t])  # the input and hidden gates share the r and z gradients
            grad_ctx[t].copy_(linear_add(grad_input[t], context_weight_t, grad_ctx_out[t]))
            grad_weights = torch.mul(encoder_states, grad_ctx[t].unsqueeze(1)).sum(-1)  # d loss / d attention; 4x faster than bmm here
            grad_weights -= (grad_weights * weights[t]).sum(-1, keepdim=True)  # through the softmax: a * (g - <a, g>)
            torch.mul(grad_weights, weights[t], out=grad_energy[t])
            torch.mul(grad_energy[t].unsqueeze(-1), squash_factor[t], out=grad_pre[t])
            torch.sum(grad_pre[t], 1, out=grad_query[t])
            grad_h = linear_add(grad_product[t], state_weight_t, skip)
        # Weight gradients summed over every step in one matmul each.
        flat_products = grad_products.reshape(steps * batch, -1)
        flat_inputs = grad_inputs.reshape(steps * batch, -1)
        grad_state_weight = weight_grad(flat_products, states[:-1].reshape(steps * batch, state_size))
        grad_context_weight = weight_grad(flat_inputs, contexts.reshape(steps * batch, state_size))
        grad_score_weight = grad_energies.reshape(-1) @ squashed.reshape(-1, width)
        grad_encoder = torch.bmm(attention.permute(1, 2, 0), grad_context.transpose(0, 1))  # sum_t a_t^T dc_t
        return (
            grad_encoder, grad_squash.sum(0), grad_h, grad_inputs, grad_state_weight, flat_products.sum(0),
            grad_score_weight, grad_energies.sum().reshape(1), grad_context_weight,
        )  # fmt: skip
