"""The decisions of a training step that f32 rounding may take either way, and the f64 step
with them taken the other way.

A ReLU (ReLU6, hardtanh) input within f32 rounding error of its threshold, or a max-pool
window whose two largest inputs are within f32 error of each other, is a near-tie. An f32
implementation's rounding may put it on either side, and the gradient is discontinuous
there: the ReLU passes dy or blocks it, the pool sends dy to one input or to the other.
Every gradient below that decision then moves by ~1e-2, far beyond any rounding-error bound,
and which honest f32 implementation lands on which side depends on its summation order, so
on the machine. Seed 0's VGG-11-BN step has two such windows (features.7 and features.14,
their two leaders 1.1e-6 and 2.2e-6 of the input's RMS apart, where PyTorch's f32 steps err
by up to 1.3e-6 and 2.2e-6 RMS, so margins 5.1e-6 and 8.9e-6): on one host PyTorch's
default f32 step flipped features.14 and ours did not; on another (AVX-512) ours flipped it
and none of PyTorch's three did. Four ReLU calls have near-ties too (one or two elements
each); the flip of features.13's is features.14's window again (its leader is that ReLU's
output, 1.6e-6 above 0, the others are 0), those of features.2 and .6 cost nothing (no pool
window is led by them).

So the f32 check also asks the f64 step what its near-ties can cost:
- `DecisionProbe` records the input of every ReLU, hardtanh (ReLU6) and max-pool call of a
  step (module forward pre-hooks, in call order), and can add a perturbation to each;
- a decision is a near-tie when its margin is below TAU_MULTIPLE times the largest error
  that PyTorch's f32 implementations make on that input (relative to the input's RMS);
- `near_tie_perturbation` moves every near-tie's input across its boundary (a ReLU input x
  to 2t - x, a pool window's two leaders swapped): a change of each input by less than
  that margin, which is the kind of change f32 rounding makes;
- PyTorch's f64 step run with that perturbation has every near-tie taken the other way. Its
  distance from the f64 step is what the decisions can cost, and `oracle.step_error_table`
  (`flipped=`) allows it on top of the rounding-error bound.
"""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F
from torch import nn

DECISIONS = (nn.ReLU, nn.Hardtanh, nn.MaxPool2d)
"""The modules whose gradient jumps at a boundary of their input (nn.ReLU6 is a Hardtanh)."""

TAU_MULTIPLE = 4.0
"""A near-tie's margin: this many times PyTorch f32's largest error on the decision's input.

Measured (seed 0, VGG-11-BN, AVX-512 host, RMS error of each ReLU and pool input against
f64, relative to the input's RMS): PyTorch's default f32 errs by 1e-7 at features.2 growing
to 2.2e-6 at features.28, its channels_last f32 by 2.8x to 6.6x that (6.6e-7 to 6.2e-6),
mkldnn disabled by 1x to 1.4x. Another honest implementation (ours) may be as far from the
best as those two are from each other: 4x the worst of three. The two windows that flip
(features.7, features.14) have gaps of 0.22x and 0.25x their margin.
"""


class DecisionProbe:
    """Records the inputs of a step's decisions, in call order; optionally perturbs them.

    `perturbation[i]`, when given and not None, is added to the input of the i-th decision
    call (same shape, f64; cast to the run's dtype).
    """

    def __init__(self, perturbation: list[torch.Tensor | None] | None = None):
        self.perturbation = perturbation
        self.modules: list[nn.Module] = []
        self.inputs: list[torch.Tensor] = []

    @contextlib.contextmanager
    def attached(self, model: nn.Module):
        def record(module, args):
            i = len(self.inputs)
            x = args[0]
            self.modules.append(module)
            self.inputs.append(x.detach().to(torch.float64, memory_format=torch.contiguous_format, copy=True))
            if self.perturbation is not None and self.perturbation[i] is not None:
                return (x + self.perturbation[i].to(x.dtype),) + tuple(args[1:])
            return None

        handles = [m.register_forward_pre_hook(record) for m in model.modules() if isinstance(m, DECISIONS)]
        try:
            yield self
        finally:
            for h in handles:
                h.remove()


def _rms(x: torch.Tensor) -> float:
    return float(x.pow(2).mean().sqrt())


def margins(ref: DecisionProbe, f32_runs: list[DecisionProbe], multiple: float = TAU_MULTIPLE) -> list[float]:
    """Per decision call: the absolute margin below which it is a near-tie."""
    out = []
    for i, x in enumerate(ref.inputs):
        sigma = max((_rms(run.inputs[i] - x) for run in f32_runs), default=0.0)
        out.append(multiple * max(sigma, 2.0 ** -24 * _rms(x)))
    return out


def near_tie_elements(ref: DecisionProbe, f32_runs: list[DecisionProbe], multiple: float = TAU_MULTIPLE) -> list[int]:
    """Per decision call: how many of its elements `near_tie_perturbation` moves."""
    deltas, _ = near_tie_perturbation(ref, f32_runs, multiple)
    return [0 if d is None else int((d != 0).sum()) for d in deltas]


def _threshold_flips(x: torch.Tensor, thresholds, tau: float) -> torch.Tensor | None:
    delta = torch.zeros_like(x)
    for t in thresholds:
        d = x - t
        near = (d != 0) & (d.abs() < tau)
        delta = torch.where(near, -2 * d, delta)
    return delta if bool((delta != 0).any()) else None


def _pair(v) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def _window_leader_swaps(pool: nn.MaxPool2d, x: torch.Tensor, tau: float) -> torch.Tensor | None:
    """Swap the two largest inputs of every window whose leaders are within `tau` (and not equal)."""
    (kh, kw), (ph, pw), (dh, dw) = _pair(pool.kernel_size), _pair(pool.padding), _pair(pool.dilation)
    sh, sw = _pair(pool.stride if pool.stride else pool.kernel_size)
    if kh * kw == 1:
        return None
    lead = x.shape[:-2]
    h, w = x.shape[-2:]
    planes = x.reshape(-1, 1, h, w)
    oh, ow = F.max_pool2d(planes[:1], (kh, kw), (sh, sw), (ph, pw), (dh, dw), ceil_mode=pool.ceil_mode).shape[-2:]
    # Pad with -inf (a pool's padding) far enough right and down that every output window is whole.
    right = max(0, (ow - 1) * sw + dw * (kw - 1) + 1 - w - pw)
    bottom = max(0, (oh - 1) * sh + dh * (kh - 1) + 1 - h - ph)
    values = F.pad(planes, (pw, right, ph, bottom), value=float("-inf"))
    where = F.pad(torch.arange(h * w, dtype=torch.float64).reshape(1, 1, h, w), (pw, right, ph, bottom), value=-1.0)

    def windows(t):
        cols = F.unfold(t, (kh, kw), dilation=(dh, dw), stride=(sh, sw))
        nh = (t.shape[-2] - dh * (kh - 1) - 1) // sh + 1
        nw = (t.shape[-1] - dw * (kw - 1) - 1) // sw + 1
        return cols.reshape(t.shape[0], kh * kw, nh, nw)[:, :, :oh, :ow].flatten(2)

    top = windows(values).topk(2, dim=1)
    gap = top.values[:, 0] - top.values[:, 1]
    near = (gap > 0) & (gap < tau)
    if not bool(near.any()):
        return None
    positions = windows(where).expand(planes.shape[0], -1, -1).gather(1, top.indices).long()
    plane, window = near.nonzero(as_tuple=True)
    delta = torch.zeros(planes.shape[0], h * w, dtype=torch.float64)
    delta[plane, positions[plane, 0, window]] = -gap[plane, window]
    delta[plane, positions[plane, 1, window]] = gap[plane, window]
    return delta.reshape(*lead, h, w)


def near_tie_perturbation(ref: DecisionProbe, f32_runs: list[DecisionProbe],
                          multiple: float = TAU_MULTIPLE) -> tuple[list[torch.Tensor | None], int]:
    """(the perturbation that flips every near-tie of the `ref` step, how many calls have one)."""
    out = []
    for module, x, tau in zip(ref.modules, ref.inputs, margins(ref, f32_runs, multiple)):
        if isinstance(module, nn.MaxPool2d):
            out.append(_window_leader_swaps(module, x, tau))
        elif isinstance(module, nn.Hardtanh):
            out.append(_threshold_flips(x, (module.min_val, module.max_val), tau))
        else:
            out.append(_threshold_flips(x, (0.0,), tau))
    return out, sum(d is not None for d in out)
