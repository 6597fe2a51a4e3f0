"""Comparison with the oracle: PyTorch in float64, and a bound from the op's error model.

The rule (docs/numerics.md has the measurements per op family and dtype)
------------------------------------------------------------------------
Every numeric test runs our compiled function on inputs of its dtype (f16, f32 or f64) and
compares each element of the result with PyTorch's result for the *same* inputs upcast to
float64, `want = op(inputs64)`:

    |got - want| <= k * (eps(dtype) + eps(f64)) * A        where A > 0
     got == want                                            where A == 0

- `A = op(|inputs|)` is the same contraction on absolute values: `conv2d_weight(|x|, |dy|)`
  for the conv weight gradient, `conv2d_input(|w|, |dy|)` for the input gradient,
  `conv2d(|x|, |w|)`, `|a| @ |b|`, `avg_pool2d_backward(|dy|)`. An input that only *selects*
  (max pool's x picks the argmax) is passed unchanged: `max_pool2d_backward(x, |dy|)`.
  Each of our results is a sum of products of inputs with non-negative coefficients, and A
  is the sum of the absolute values of those terms, the quantity every floating-point
  error bound for a sum of products is proportional to (Higham, *Accuracy and Stability of
  Numerical Algorithms*, 2nd ed., sections 3.1 and 4.2). A product of two f16/f32 values
  is exact in float64, so A == 0 means every term is exactly 0 and so is the result.
  There is no absolute floor: underflow adds an absolute error per operation (half the
  smallest subnormal, or `tiny(dtype)` under flush-to-zero) that only an element with a
  tiny A could notice. f32/f64 inputs of the suite are far from that range; f16 products
  can be subnormal (absolute error <= 2**-25), and the measured f16 worst (1.29) shows no
  element where it matters. A test with such data would add `n * tiny(dtype)`.
- `eps(dtype)` is `np.finfo(dtype).eps`: 2**-10 (f16), 2**-23 (f32), 2**-52 (f64).
  `eps(f64)` pays for the reference's own rounding: the float64 reference carries an error
  of the same model in float64, so for an f64 result the bound is `2 k eps(f64) A` (two
  results of the same model, neither exact), and for f16/f32 the term is negligible.
- `k = K[dtype]`: 16 for f32 and f64, 6 for f16. The worst-case bound for a sum of n terms
  is `gamma_n = n u`, with u = eps/2, which for the ResNet-18 stem's weight gradient
  (n = 8 * 112 * 112 terms) would allow a relative error of 6e-3 of A, more than the old
  tolerance. The rounding errors of real sums do not all align: for terms of random signs
  (every test's inputs are standard normal) each partial sum is ~sqrt(i) terms large, the
  errors add as a random walk, and the error stays near `u * A` whatever n; vectorised or
  blocked sums do better still. So k is fitted on measurement: the worst
  `|got - want| / ((eps(dtype) + eps(f64)) * A)` over the whole numeric suite (every
  matrix, every dtype, the ResNet-18 shapes) is 3.09 in f32, at a ResNet-18 input gradient
  of 1.6M elements, and 0.89 in f64; the worst grows with the number of elements compared
  (an extreme of ~Gaussian errors), not with n (the stem's dw, n = 100352, is 1.53). The
  model is the same in units of eps, so f32 and f64 share K = 16, 5.2x over 3.09. f16's
  old tolerance (2e-2 of |want| + max|want|) was already close to its model: K = 6 keeps
  every f16 element's bound below the old one (at most 0.95 of it, the depthwise dw) and
  is 4.7x over f16's worst, 1.29. Sums of same-sign terms over long reductions would
  need k ~ sqrt(n): a test that feeds such data passes its own `k`.
- Ops that move data without arithmetic (max pool forward, im2col) must match exactly.
- Where the reference is NaN or +-inf, the result must be the same non-finite value.

Entry points: `assert_matches(got, op, inputs)` computes want and A itself;
`assert_within_bound(got, want, magnitude)` takes them precomputed. With the environment
variable `RLX_MLIR_ERROR_LOG=path`, every comparison appends its worst ratio to `path` (one
JSON line), which is how docs/numerics.md was measured: re-measure before changing K.
"""

from __future__ import annotations

import json
import os
from typing import Callable, NamedTuple, Sequence

import numpy as np
import torch
import torch.nn.functional as F

K = {np.dtype(np.float16): 6.0, np.dtype(np.float32): 16.0, np.dtype(np.float64): 16.0}

MLIR_ELEMENT = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.float16): "f16"}


def eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def _numpy64(value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    value = np.asarray(value)
    assert value.dtype == np.float64, f"the oracle must be computed in float64, not {value.dtype}"
    return value


def error_ratio(got, want, magnitude, dtype, extra=0.0) -> np.ndarray:
    """(|got - want| - extra)+ / ((eps(dtype) + eps(f64)) * A), elementwise: the measured k.

    0 where the two agree (to within `extra`), inf where A == 0 and they do not.
    """
    err = np.maximum(np.abs(got.astype(np.float64) - want) - extra, 0.0)
    scale = (eps(dtype) + eps(np.float64)) * magnitude
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(err == 0, 0.0, err / scale)


def _log(label: str, dtype, worst: float, size: int) -> None:
    path = os.environ.get("RLX_MLIR_ERROR_LOG")
    if path:
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
        with open(path, "a") as log:
            log.write(json.dumps(dict(op=label, dtype=np.dtype(dtype).name, ratio=worst, size=size, test=test)) + "\n")


def assert_within_bound(got, want, magnitude, *, dtype=None, k: float | None = None, extra=None, label: str = "") -> None:
    """`got` (ours, NumPy) against `want` (the float64 oracle) within `k (eps + eps64) A`.

    `magnitude` is A, the op on absolute inputs (float64). `extra` is an optional
    non-negative allowance per element for a rounding the caller applied on purpose (the
    printed form's 6 significant digits); no test may use it to absorb our own error.
    """
    want, magnitude = _numpy64(want), _numpy64(magnitude)
    dtype = np.dtype(dtype or got.dtype)
    assert got.shape == want.shape, f"shape {got.shape} != oracle {want.shape}"
    assert got.dtype == dtype, f"dtype {got.dtype} != {dtype}"
    assert magnitude.shape == want.shape
    k = K[dtype] if k is None else k
    assert_same_non_finite(got, want, label)
    finite = np.isfinite(want)
    got, want, magnitude = got[finite], want[finite], magnitude[finite]
    extra = 0.0 if extra is None else np.broadcast_to(np.asarray(extra, np.float64), finite.shape)[finite]
    ratio = error_ratio(got, want, magnitude, dtype, extra)
    worst = float(ratio.max()) if ratio.size else 0.0
    _log(label or "?", dtype, worst, int(ratio.size))
    if worst <= k:
        return
    bad = ratio > k
    i = int(np.argmax(ratio))
    raise AssertionError(
        f"{label}: {bad.sum()} of {ratio.size} finite elements exceed "
        f"|got - want| <= {k:g} * (eps({dtype.name}) + eps(f64)) * A; worst: got {float(got[i])!r}, "
        f"want {float(want[i])!r}, A {float(magnitude[i])!r}, |err| {abs(float(got[i]) - want[i]):.3g} = "
        f"{ratio[i]:.3g} (eps + eps64) * A; max|want| {np.abs(want).max():.3g}"
    )


def assert_same_non_finite(got, want, label: str = "") -> None:
    """NaN, +inf and -inf at the same positions as in `want`."""
    for name, test in (("NaN", np.isnan), ("+inf", np.isposinf), ("-inf", np.isneginf)):
        mismatch = test(got) != test(want)
        assert not mismatch.any(), (
            f"{label}: {name} positions differ from the oracle at {mismatch.sum()} of {got.size} "
            f"elements, first at {tuple(int(i) for i in np.argwhere(mismatch)[0])}"
        )


def input_dtype(inputs: Sequence[np.ndarray]) -> np.dtype:
    dtypes = {np.dtype(a.dtype) for a in inputs if np.issubdtype(a.dtype, np.floating)}
    assert len(dtypes) == 1, f"inputs of several dtypes: {dtypes}"
    return dtypes.pop()


def assert_matches(
    got, op: Callable[..., torch.Tensor], inputs: Sequence[np.ndarray], *,
    selects: Sequence[int] = (), k: float | None = None, extra=None, label: str = "",
) -> None:
    """`got` against `op(*inputs)` computed by PyTorch in float64, within the error model.

    `op` takes float64 tensors and is a sum of products of its inputs with non-negative
    coefficients (a conv, a gradient, a pool backward); `op(|inputs|)` is A. The inputs at
    the indices `selects` only choose which terms appear (max pool's x) and are passed to
    both calls unchanged. `got` must have the inputs' dtype.
    """
    dtype = input_dtype(inputs)
    upcast = [torch.from_numpy(np.asarray(a, np.float64)) for a in inputs]
    absolute = [t if i in selects else t.abs() for i, t in enumerate(upcast)]
    want, magnitude = op(*upcast), op(*absolute)
    assert_within_bound(got, want, magnitude, dtype=dtype, k=k, extra=extra, label=label or _name(op))


def assert_exact(got, want, dtype=None) -> None:
    """Data movement (a max, a copy): our result is PyTorch's bit for bit (NaN where NaN)."""
    if isinstance(want, torch.Tensor):
        want = want.detach().cpu().numpy()
    dtype = np.dtype(dtype or want.dtype)
    assert got.shape == want.shape, f"shape {got.shape} != oracle {want.shape}"
    assert got.dtype == want.dtype == dtype, f"dtype {got.dtype} != oracle {want.dtype}"
    np.testing.assert_array_equal(got, want)


def _name(op) -> str:
    return getattr(op, "__name__", None) or getattr(getattr(op, "func", None), "__name__", "op")


def tensor_type(shape, dtype, dynamic_batch: bool = False) -> str:
    dims = ["?" if (dynamic_batch and i == 0) else str(d) for i, d in enumerate(shape)]
    return f"tensor<{'x'.join(dims)}x{MLIR_ELEMENT[np.dtype(dtype)]}>"


def max_pool_every_tie_grad(x: torch.Tensor, dy: torch.Tensor, kernel, stride, padding) -> torch.Tensor:
    """pool-ties=all's rule (RLX's fast path): dx = sum over windows of dy * (x == window max).

    Independent of the code under test: the window max is PyTorch's max_pool2d output, the
    windows come from unfold over the -inf padded input, and fold sums their shares. Every
    size is spelled out (no `view(..., -1)`), so an empty batch gives an empty gradient:
    the `-1` of a view of zero elements is ambiguous and raised at N=0.
    """
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    (kh, kw), (sh, sw), (ph, pw) = pair(kernel), pair(stride), pair(padding)
    n, c, h, w = x.shape
    y = F.max_pool2d(x, (kh, kw), (sh, sw), (ph, pw))
    windows = y.shape[2] * y.shape[3]
    xpad = F.pad(x, (pw, pw, ph, ph), value=float("-inf"))
    cols = F.unfold(xpad, (kh, kw), stride=(sh, sw)).reshape(n, c, kh * kw, windows)
    hits = (cols == y.reshape(n, c, 1, windows)).to(x.dtype)
    share = (hits * dy.reshape(n, c, 1, windows)).reshape(n, c * kh * kw, windows)
    dxpad = F.fold(share, (h + 2 * ph, w + 2 * pw), (kh, kw), stride=(sh, sw))
    return dxpad[:, :, ph:ph + h, pw:pw + w]


# --- whole training steps (the PyTorch import) ----------------------------------------------

STEP_REL_TOL = {np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-9}
"""The per-tensor relative L2 tolerance against PyTorch's f64 step."""

STEP_M = 16.0
"""How many times PyTorch f32's own error (the floor) our error may be. See `assert_step_matches`."""

NEAR_TIE_M = 2.0
"""How many times the cost of the step's near-ties (`flipped`) our error may add. See `assert_step_matches`."""


def _l2(a: np.ndarray) -> float:
    return float(np.linalg.norm(np.asarray(a, np.float64).ravel()))


class StepRow(NamedTuple):
    """One tensor of a training step against the oracle; errors are relative L2 norms over |ref|."""

    name: str
    numel: int
    norm: float
    """|ref|, the L2 norm of PyTorch's f64 result."""
    err: float
    """Ours."""
    floor: float
    """PyTorch f32's error (the worst of its implementations), scaled to `dtype`."""
    ties: float
    """What the step's near-ties cost this tensor: ||flipped - ref|| (0 without `flipped`)."""
    allowed: float
    ok: bool


def step_error_table(ours: dict, torch_f64: dict, torch_f32=None, dtype=np.float32, *, m: float = STEP_M,
                     flipped: dict | None = None) -> list[StepRow]:
    """One `StepRow` per tensor of the step.

    Relative errors are L2 norms over |ref| (inf where |ref| == 0 and the error is not 0);
    see `assert_step_matches` for the rule. Integer tensors (num_batches_tracked) must be
    equal: their rows carry err 0 or inf.
    """
    dtype = np.dtype(dtype)
    f32_steps = [] if torch_f32 is None else ([torch_f32] if isinstance(torch_f32, dict) else list(torch_f32))
    # An f64 result's rounding noise is an f32 one's scaled by eps64 / eps32 (same algorithm).
    scale = 1.0 if dtype == np.float32 else eps(np.float64) / eps(np.float32)
    rows = []
    missing = sorted(set(torch_f64) - set(ours))
    extra = sorted(set(ours) - set(torch_f64))
    assert not missing and not extra, f"step tensors differ from PyTorch's: missing {missing}, unexpected {extra}"
    for name, want in torch_f64.items():
        got = np.asarray(ours[name])
        want = np.asarray(want)
        assert got.shape == want.shape, f"{name}: shape {got.shape} != PyTorch's {want.shape}"
        if not np.issubdtype(want.dtype, np.floating):
            ok = np.array_equal(got, want)
            rows.append(StepRow(name, want.size, _l2(want), 0.0 if ok else float("inf"), 0.0, 0.0, 0.0, ok))
            continue
        assert got.dtype == dtype, f"{name}: dtype {got.dtype} != {dtype}"
        assert want.dtype == np.float64, f"{name}: the reference must be PyTorch's f64 step, not {want.dtype}"
        assert_same_non_finite(got, want, name)
        finite = np.isfinite(want)
        got64, want = got.astype(np.float64)[finite], want[finite]
        norm = _l2(want)
        err = _l2(got64 - want)
        floor = max((_l2(np.asarray(s[name], np.float64)[finite] - want) for s in f32_steps), default=0.0) * scale
        ties = 0.0 if flipped is None else _l2(np.asarray(flipped[name], np.float64)[finite] - want)
        allowed = max(STEP_REL_TOL[dtype] * norm, m * floor + NEAR_TIE_M * ties)
        rel = (lambda v: v / norm if norm > 0 else (0.0 if v == 0 else float("inf")))
        rows.append(StepRow(name, want.size, norm, rel(err), rel(floor), rel(ties), rel(allowed), err <= allowed))
    return rows


def format_step_table(rows: list[StepRow], only_failures: bool = False) -> str:
    lines = [f"{'tensor':52s} {'numel':>9s} {'|ref|':>9s} {'ours':>9s} {'torch32':>9s} {'ties':>9s} {'allowed':>9s}"]
    for name, numel, norm, err, floor, ties, allowed, ok in rows:
        if only_failures and ok:
            continue
        lines.append(f"{name:52s} {numel:9d} {norm:9.3g} {err:9.3g} {floor:9.3g} {ties:9.3g} {allowed:9.3g}"
                     f"{'' if ok else '  FAIL'}")
    return "\n".join(lines)


def assert_step_matches(ours: dict, torch_f64: dict, torch_f32=None, dtype=np.float32, *, m: float = STEP_M,
                        flipped: dict | None = None, label: str = "") -> None:
    """Our training step (loss, every gradient, every updated buffer) against PyTorch eager's.

    `ours`, `torch_f64` and each of `torch_f32` map the same names ("loss", "grad/<param>",
    "buffer/<buffer>") to arrays. `torch_f64` is PyTorch's step in f64 on the same (f32-
    valued) weights, inputs and dropout masks; `torch_f32` is PyTorch's f32 step, or a
    list of the steps of several of PyTorch's f32 implementations. `dtype` is ours.

    The rule, per float tensor, errors as L2 norms over the whole tensor:

        ||ours - ref|| <= max(tol * ||ref||,  M * floor)
        tol = 1e-4 (f32), 1e-9 (f64); floor = max_i ||torch_f32_i - ref||   (f32)
                                      floor = eps64/eps32 * max_i ||...||   (f64)

    Integer tensors (`num_batches_tracked`) are equal; NaN/inf at PyTorch's positions.

    Why a floor: 1e-4 relative is out of reach of every f32 implementation on some tensors
    of these steps, and relative error is meaningless on tensors that are exactly zero in
    exact arithmetic (a conv bias before a batch norm has a zero gradient; the running mean
    of a batch norm after a 1x1 conv of a zero-mean batch-norm output is zero): their f64
    norm is ~1e-16, pure rounding noise, and even two of PyTorch's own f64 implementations
    differ by 100% there. PyTorch f32's absolute error on that tensor is the noise level an
    f32 implementation has; our error may be M times it. In f64 the same noise scales with
    eps (same algorithm, eps64/eps32 = 2**-29), which keeps the f64 rule meaningful on those
    tensors too; elsewhere the 1e-9 bound governs.

    The measurement (tests/torch/measure_step_errors.py; batch 2, 3x64x64, 1000 classes,
    training mode, cross-entropy, seed 0; relative L2 of PyTorch f32 against PyTorch f64):
        model (float tensors)   worst f32  > 1e-4  of which |ref|~0  f64-pert > 1e-4
        ResNet-18 (103)         1.1e-05       0         0                0
        MobileNetV2 (263)       4.9e-04 *    58        34               34
        VGG-11-BN (55)          1.6e-02 *    19         8                8
        small SqueezeNet (23)   4.1e-07       0         0                0
        mixed activations (32)  6.2e-06       0         0                0
        (* worst over tensors with |ref| > 1e-12; those with |ref| ~ 1e-16 have relative
        errors ~1e8-1e9: 34 in MobileNetV2, 8 in VGG-11-BN, 42 of the 77 misses.)

    "f64-pert" is the f64 step on weights and inputs multiplied by (1 + 2**-24 r), r
    uniform in [-1, 1]: the change an f32 rounding of the inputs alone causes. It misses
    1e-4 exactly on the |ref| ~ 0 tensors, where no f32 (or f64) implementation can be
    relatively accurate. The 24 other MobileNetV2 misses are up to 4.9e-4 (conditioning:
    an input perturbation of 6e-8 already moves its gradients by 3.4e-5, median).

    M: three of PyTorch's own f32 implementations (default, channels_last, mkldnn
    disabled; one thread is the default's twin) were each compared with the floor of the
    other two, where they miss 1e-4 (leave one out: how far a fourth honest
    implementation may be from the floor). Worst ratio without a decision flip: 10.8
    (channels_last, MobileNetV2, the running mean of features.2.conv.0.1, |ref| ~ 1e-16),
    then 5.4, 4.4; 1.4 in VGG-11-BN. M = 16 is 1.5x over 10.8. In f64, PyTorch's
    channels_last step against its default one needs 2.9x the scaled floor (MobileNetV2's
    |ref| ~ 0 tensors); elsewhere two f64 implementations agree within 6e-14.

    Decision flips are outside any small M: a ReLU, ReLU6 or max-pool input within f32
    error of its threshold takes the other branch, and every gradient below that layer
    moves by ~1e-2. Measured: MobileNetV2 without mkldnn flips a ReLU6 in features.18
    (f64 value -3.4e-5, f32 +3.5e-6, after a batch norm over 8 values), 1.2e-2 error on
    172 tensors, 1.6e4x (tensor features.18.1.bias) and ~150x the other two's floor; VGG-
    11-BN's default f32 flips a max pool at features.14 on one host, 6e-3..1.6e-2 on 11
    tensors (3.4e3x the other two), while on another host (AVX-512) ours flips it and none
    of PyTorch's three does. Which implementation flips depends on its summation order, so
    on the machine: the floor cannot be relied on to absorb a flip. Hence `flipped`:
    PyTorch's f64 step with every near-tie of the step taken the other way (`near_ties`: a
    ReLU input or a pool window's two leaders closer than 4x PyTorch f32's largest error on
    that input). Its distance from `torch_f64` is what the decisions can cost, and the rule
    becomes

            ||ours - ref|| <= max(tol * ||ref||,  M * floor + NEAR_TIE_M * ||flipped - ref||)

    An implementation takes some of the near-ties the other way, `flipped` takes all: their
    costs are near-orthogonal (different layers, channels and positions), so a subset costs
    less than the whole; NEAR_TIE_M = 2 covers partial cancellation within the whole. On
    tensors above every near-tie the cost is 0 (a pool's leader swap leaves its output as it
    was) or at rounding level (a flipped ReLU moves its output by less than the margin), and
    the rule is the one above (tests/torch/test_near_ties.py).

    Measured on VGG-11-BN, seed 0, AVX-512 host: six calls have a near-tie, two of which
    cost anything: the windows of features.7 and features.14, leaders 1.1e-6 and 2.2e-6 of
    the input's RMS apart (margins 5.1e-6 and 8.9e-6); features.14's leader is a ReLU
    output 1.6e-6 above 0, the same decision twice. Ours takes features.14 the other way (it
    matches the f64 step with that window alone flipped within PyTorch f32's own error,
    4e-6), none of PyTorch's three does. Ours is 0.52x to 1.0x the all-flipped cost ("ties")
    on the 11 tensors below, so at most half of the allowance (grad/features.12.bias: 1.6e-2
    of 3.2e-2; grad/features.0.weight: 6.3e-3 of 2.4e-2, its ties 1.2e-2 the root-sum-square
    of the single costs of features.7's window, features.10's ReLU and features.14's window,
    9.4e-3, 5.1e-3, 6.3e-3). Above features.14 the cost is 0 or <= 4.8e-8 (features.10/13's
    flipped ReLUs move the forward values), 0.1% of the 16 x floor there.

    On failure the assertion message is the table of the failing tensors (ours, PyTorch
    f32's floor, the near-ties' cost, the allowed error); `step_error_table` gives every row.
    """
    rows = step_error_table(ours, torch_f64, torch_f32, dtype, m=m, flipped=flipped)
    failed = [r for r in rows if not r.ok]
    if failed:
        raise AssertionError(
            f"{label}: {len(failed)} of {len(rows)} step tensors exceed max({STEP_REL_TOL[np.dtype(dtype)]:g} |ref|, "
            f"{m:g} x PyTorch f32's error + {NEAR_TIE_M:g} x the near-ties' cost) (errors relative to |ref|, "
            f"L2 per tensor):\n"
            + format_step_table(failed)
        )
