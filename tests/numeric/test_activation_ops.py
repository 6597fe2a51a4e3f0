"""The activation ops and their gradients, lowered and run natively, against PyTorch 2.13 (CPU).

Each op runs on [8, 64] inputs of two kinds: standard normal times 4 (a broad sweep of
both tails), and a row of corner values (NaN, +-inf, +-0, every boundary an op has:
+-3, 6, hardtanh's bounds, the threshold, and the neighbouring floats of each; the
range where exp underflows to subnormals; +-1e20, where x^3 overflows f32), tiled over
the rows. The gradients also run with corner values in dy. One module holds every
function of a dtype and is compiled once per session.

What is asserted
----------------
- Exact ops, bit for bit (NaN positions and the sign of zero included) against PyTorch in
  the SAME dtype: relu, hardtanh, leaky_relu, threshold_backward, hardtanh_backward,
  leaky_relu_backward (selects and one multiply), and, because our lowering performs
  ATen's operations in ATen's order and rounds nothing else, also hardswish,
  hardsigmoid, hardswish_backward, hardsigmoid_backward (ATen's factor 1.0f/6.0f, in f64
  too) and sigmoid_backward.
- PyTorch's inputs are long enough (512 elements) for its vectorised CPU loop to handle
  every element. Its scalar loop, used for the last elements of a tensor, differs on a
  NaN x in hardtanh_backward (dy instead of 0) and hardswish_backward (dy instead of
  NaN); we implement the vectorised result (`test_nan_conventions_follow_the_vectorised_kernel`).
- Smooth ops (sigmoid, silu, gelu, silu_backward, gelu_backward, both approximations),
  against PyTorch in float64 on the same inputs, twice: against the ATen op itself, and
  against the same function written with PyTorch's float64 ops in a form that neither
  cancels nor overflows (`stable_*`: e^z / (1 + e^z) for z < 0, `torch.special.erfc`):

      |got - want| <= k * ulp(A) + P + U + R       (NaN/inf where the reference has them)

  `ulp(a)` is the spacing of the dtype at `a` (in the subnormal range, the smallest
  subnormal). `A` is the sum of the absolute values of the formula's terms, |want|
  where there is no cancellation: silu_backward `|dy| s (1 + |x| (1 - s))`,
  gelu_backward `|dy| (Phi + |x| phi)` and `|dy| (s + |right_derivative|)`. `P` (gelu
  only) is the conditioning on the rounding of its argument (x / sqrt 2 and
  x + 0.044715 x^3 are formed in the dtype; erfc and sigmoid magnify a relative error of
  the argument by ~x^2): the change of the stable result when x moves by 2 ulps. `U`
  (gradients only) is `|dy| * smallest_subnormal`: the derivative is rounded in the dtype
  before it meets dy (ATen's order), so a huge dy times a derivative below the normal
  range loses it. `R` (only against ATen) is `|ATen64 - stable64|`, the float64
  reference's own error where ATen's formula cancels (1 + erf, 1 + tanh) or overflows
  (exp(-x)), which our lowering avoids. NaN/inf are compared with ATen except where
  ATen64 and stable64 differ in kind (ATen's derivative underflowed and met an infinite
  dy), and with the stable form except where the derivative underflows in the dtype.
- k per op (`Op.k`), measured on these inputs (`test_report_measured`, run with -s) as
  the worst `(|got - want| - P - U - R) / ulp(A)`, f32 / f64: sigmoid 2.37 / 2.0, silu
  3.41 / 3.0, gelu 1.73 / 3.0, gelu tanh 1.70 / 1.0, silu_backward 3.79 / 4.0,
  gelu_backward 1.99 / 2.0, gelu_backward tanh 1.80 / 2.0 (the f64 figures include the
  float64 reference's own rounding). Each k is about 2x its worst: 5, 7, 7, 4, 8, 4, 4.
  (The erf-GELU lowering without math.erfc, for IREE, moved gelu from 3.05 / 2.0 and
  gelu_backward from 1.62 / 2.0, within their k; the tanh gradient's subnormal-free sum
  moved it from 3.39, so its k went from 10 to 4.) A denser sweep with an mpmath
  reference, down to x = -14 (f32) / -38 (f64), is in `activation`'s docstring.
- The negative tails (`test_negative_tails`): x in [-110, -1e-3] (f32) and [-20, -1e-3]
  (f64; below -20 the float64 references' own intermediates turn subnormal and they stop
  being references), the same bound. Results below f64's normal range (x < -708) are
  not compared for the same reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from oracle import assert_same_non_finite

A = torch.ops.aten
DTYPES = {"f32": np.float32, "f64": np.float64}
SHAPE = (8, 64)


@dataclass(frozen=True)
class Op:
    """One RLX op in one configuration, and the PyTorch op it must match."""

    name: str
    rlx: str  # the op's name and its properties, as written in the custom form
    torch_op: Callable[..., torch.Tensor]
    backward: bool = False
    exact: bool = False
    k: float = 0.0
    magnitude: Callable[..., torch.Tensor] | None = None  # A, in float64; None: |want|
    perturbed: bool = False  # gelu's rounded argument: add P
    stable: Callable[..., torch.Tensor] | None = None  # the same function without cancellation or overflow

    def __str__(self) -> str:
        return self.name

    def function(self, element: str, shape_text: str) -> str:
        t = f"tensor<{shape_text}{element}>"
        op, _, props = self.rlx.partition(" ")
        props = f" {props}" if props else ""
        if self.backward:
            return (
                f"func.func @{self.name}_{shape_text.replace('?', 'd').replace('x', '_')}(%dy: {t}, %x: {t}) -> {t} {{\n"
                f"  %r = {op} %dy, %x{props} : ({t}, {t}) -> {t}\n  return %r : {t}\n}}\n"
            )
        return (
            f"func.func @{self.name}_{shape_text.replace('?', 'd').replace('x', '_')}(%x: {t}) -> {t} {{\n"
            f"  %r = {op} %x{props} : ({t}) -> {t}\n  return %r : {t}\n}}\n"
        )


def stable_sigmoid(z):
    """sigmoid(z) in float64 without overflow: e^z / (1 + e^z) for z < 0."""
    return torch.where(z >= 0, 1 / (1 + torch.exp(-z)), torch.exp(z) / (1 + torch.exp(z)))


def _sigmoid_parts(z):
    return stable_sigmoid(z), stable_sigmoid(-z)


def stable_silu(x):
    return x * stable_sigmoid(x)


def stable_silu_backward(dy, x):
    s, s_neg = _sigmoid_parts(x)
    return dy * s * (1 + x * s_neg)


def _silu_backward_magnitude(dy, x):
    s, s_neg = _sigmoid_parts(x)
    return dy.abs() * s * (1 + x.abs() * s_neg)


def _gelu_backward_magnitude(dy, x):
    cdf = 0.5 * torch.special.erfc(-x / math.sqrt(2))
    pdf = torch.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return dy.abs() * (cdf + x.abs() * pdf)


def _gelu_tanh_parts(x):
    beta, kappa = math.sqrt(2 / math.pi), 0.044715
    z = 2 * beta * (x + kappa * x**3)
    s, s_neg = _sigmoid_parts(z)
    right = 2 * x * s * s_neg * beta * (1 + 3 * kappa * x * x)  # 0.5 x (1 - tanh^2) inner'
    return s, right


def _gelu_tanh_backward_magnitude(dy, x):
    s, right = _gelu_tanh_parts(x)
    return dy.abs() * (s + right.abs())


def stable_gelu(x):
    return 0.5 * x * torch.special.erfc(-x / math.sqrt(2))


def stable_gelu_tanh(x):
    return x * stable_sigmoid(2 * math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))


def stable_gelu_backward(dy, x):
    cdf = 0.5 * torch.special.erfc(-x / math.sqrt(2))
    return dy * (cdf + x * torch.exp(-0.5 * x * x) / math.sqrt(2 * math.pi))


def stable_gelu_tanh_backward(dy, x):
    s, right = _gelu_tanh_parts(x)
    return dy * (s + right)


OPS = [
    Op("relu", "rlx.relu", torch.relu, exact=True),
    Op("hardtanh", "rlx.hardtanh", F.hardtanh, exact=True),
    Op("relu6", "rlx.hardtanh min_val 0.0 max_val 6.0", lambda x: F.hardtanh(x, 0.0, 6.0), exact=True),
    Op("hardtanh_asym", "rlx.hardtanh min_val -0.5 max_val 2.0", lambda x: F.hardtanh(x, -0.5, 2.0), exact=True),
    Op("hardswish", "rlx.hardswish", F.hardswish, exact=True),
    Op("hardsigmoid", "rlx.hardsigmoid", F.hardsigmoid, exact=True),
    Op("sigmoid", "rlx.sigmoid", torch.sigmoid, k=5, stable=stable_sigmoid),
    Op("silu", "rlx.silu", F.silu, k=7, stable=stable_silu),
    Op("gelu", "rlx.gelu", F.gelu, k=7, perturbed=True, stable=stable_gelu),
    Op(
        "gelu_tanh", 'rlx.gelu approximate "tanh"', lambda x: F.gelu(x, approximate="tanh"),
        k=4, perturbed=True, stable=stable_gelu_tanh,
    ),
    Op("leaky_relu", "rlx.leaky_relu", F.leaky_relu, exact=True),
    Op("leaky_relu_02", "rlx.leaky_relu negative_slope 0.2", lambda x: F.leaky_relu(x, 0.2), exact=True),
    Op("leaky_relu_neg", "rlx.leaky_relu negative_slope -0.3", lambda x: F.leaky_relu(x, -0.3), exact=True),
    Op("threshold_backward", "rlx.threshold_backward", lambda dy, x: A.threshold_backward(dy, x, 0.0), backward=True, exact=True),
    Op(
        "threshold_backward_05", "rlx.threshold_backward threshold 0.5",
        lambda dy, x: A.threshold_backward(dy, x, 0.5), backward=True, exact=True,
    ),
    Op("hardtanh_backward", "rlx.hardtanh_backward", lambda dy, x: A.hardtanh_backward(dy, x, -1.0, 1.0), backward=True, exact=True),
    Op(
        "relu6_backward", "rlx.hardtanh_backward min_val 0.0 max_val 6.0",
        lambda dy, x: A.hardtanh_backward(dy, x, 0.0, 6.0), backward=True, exact=True,
    ),
    Op("hardswish_backward", "rlx.hardswish_backward", A.hardswish_backward, backward=True, exact=True),
    Op("hardsigmoid_backward", "rlx.hardsigmoid_backward", A.hardsigmoid_backward, backward=True, exact=True),
    Op("sigmoid_backward", "rlx.sigmoid_backward", A.sigmoid_backward, backward=True, exact=True),
    Op("silu_backward", "rlx.silu_backward", A.silu_backward, backward=True, k=8, magnitude=_silu_backward_magnitude,
       stable=stable_silu_backward),
    Op(
        "gelu_backward", "rlx.gelu_backward", A.gelu_backward, backward=True, k=4, magnitude=_gelu_backward_magnitude,
        perturbed=True, stable=stable_gelu_backward,
    ),
    Op(
        "gelu_tanh_backward", 'rlx.gelu_backward approximate "tanh"',
        lambda dy, x: A.gelu_backward(dy, x, approximate="tanh"), backward=True, k=4,
        magnitude=_gelu_tanh_backward_magnitude, perturbed=True, stable=stable_gelu_tanh_backward,
    ),
    Op(
        "leaky_relu_backward", "rlx.leaky_relu_backward",
        lambda dy, x: A.leaky_relu_backward(dy, x, 0.01, False), backward=True, exact=True,
    ),
    Op(
        "leaky_relu_backward_02", "rlx.leaky_relu_backward negative_slope 0.2",
        lambda dy, x: A.leaky_relu_backward(dy, x, 0.2, False), backward=True, exact=True,
    ),
]
BY_NAME = {op.name: op for op in OPS}
DYNAMIC = ("gelu", "silu_backward")
ZERO_D = ("relu", "sigmoid", "gelu_tanh", "hardtanh_backward", "gelu_backward")


def corner_values(dtype) -> np.ndarray:
    """64 values at which some op changes behaviour, and the floats around them."""
    near = []
    for b in (-3.0, 3.0, -1.0, 1.0, 0.5, 6.0, -1.5):
        near += [np.nextafter(dtype(b), dtype(-np.inf)), dtype(b), np.nextafter(dtype(b), dtype(np.inf))]
    values = [
        np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0, -2.0, 1e20, -1e20, 1e-30, -1e-30,
        np.finfo(dtype).smallest_subnormal, -np.finfo(dtype).smallest_subnormal,
        -80.0, -88.0, -90.0, -95.0, -100.0, -104.0, -110.0, -174.0, -180.0, 80.0, 100.0,
        -11.0, -13.5, -20.0, -600.0, 740.0, -1e4, -1.2785, -0.7518, 13.0,
        -1e5, 1e5, -5.0, -8.0, -9.5,
    ]
    values = np.array(near + values, dtype)
    assert values.size <= 64
    return np.resize(values, 64)


def inputs(op: Op, dtype, kind: str, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(SHAPE) * 4).astype(dtype)
    dy = rng.standard_normal(SHAPE).astype(dtype)
    if kind == "corners_x":
        x = np.tile(corner_values(dtype), (SHAPE[0], 1))
        x[1::2] = x[1::2][:, ::-1]
    elif kind == "corners_dy":
        dy = np.tile(corner_values(dtype), (SHAPE[0], 1))
    return [dy, x] if op.backward else [x]


@pytest.fixture(scope="module")
def compiled(compile_rlx):
    """One module per dtype with every op at [8, 64], the dynamic and the 0-d functions."""
    modules = {}
    for element in DTYPES:
        text = "".join(op.function(element, "8x64x") for op in OPS)
        text += "".join(BY_NAME[name].function(element, "?x5x") for name in DYNAMIC)
        text += "".join(BY_NAME[name].function(element, "") for name in ZERO_D)
        modules[element] = compile_rlx(text)
    return modules


def _call(compiled, element: str, op: Op, shape_text: str, args: list[np.ndarray]) -> np.ndarray:
    return compiled[element][f"{op.name}_{shape_text.replace('?', 'd').replace('x', '_')}"](*args)


def _bits(a: np.ndarray) -> np.ndarray:
    """The bit patterns, with every NaN made one NaN (its payload is not PyTorch's business)."""
    a = np.where(np.isnan(a), np.array(np.nan, a.dtype), a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def assert_bitwise(got: np.ndarray, want: np.ndarray, label: str) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    bad = _bits(got) != _bits(want)
    if bad.any():
        i = tuple(int(v) for v in np.argwhere(bad)[0])
        raise AssertionError(f"{label}: {bad.sum()} of {got.size} elements differ from PyTorch, first at {i}: "
                             f"got {got[i]!r}, want {want[i]!r}")


def smooth_error_ratio(op: Op, got: np.ndarray, args: list[np.ndarray], against: str) -> float:
    """The worst (|got - want| - P - R) / ulp(A) over the finite reference values.

    `against="aten"`: want is PyTorch's op in float64, R its distance from `op.stable`
    (ATen's own cancellation and overflow), and NaN/+-inf must sit where PyTorch has
    them except where ATen's and the stable float64 results differ in kind (ATen's
    derivative underflowed to 0 and met an infinite dy: NaN where the function is +-inf).
    `against="stable"`: want is `op.stable` in float64, R = 0, and the non-finite
    values must match it everywhere.
    """
    dtype = got.dtype
    t = [torch.from_numpy(a.astype(np.float64)) for a in args]
    aten, stable = op.torch_op(*t).numpy(), op.stable(*t).numpy()
    want = aten if against == "aten" else stable
    # dy = +-inf times a derivative that underflows in the dtype is NaN in any evaluation
    # of the dtype (ATen's too); the float64 references keep the derivative and give inf.
    compared = np.ones(got.shape, bool)
    if op.backward:
        derivative = op.stable(torch.ones_like(t[1]), t[1]).numpy()
        compared = ~(np.isinf(args[0]) & (np.abs(derivative).astype(dtype) == 0))
    if against == "aten":
        compared &= np.all([test(aten) == test(stable) for test in (np.isnan, np.isposinf, np.isneginf)], axis=0)
        assert_same_non_finite(got[compared], aten[compared], op.name)
    else:
        assert_same_non_finite(got[compared], stable[compared], op.name)
    magnitude = np.asarray(op.magnitude(*t).numpy() if op.magnitude else np.abs(stable))
    slack = np.zeros_like(magnitude)
    if op.perturbed:
        x = t[-1]
        for sign in (-1.0, 1.0):
            moved = x * (1 + sign * 2 * float(np.finfo(dtype).eps))
            slack = np.maximum(slack, np.abs(op.stable(*t[:-1], moved).numpy() - stable))
    if op.backward:  # U: the derivative is rounded in the dtype before it meets dy
        slack = slack + np.abs(args[0].astype(np.float64)) * float(np.finfo(dtype).smallest_subnormal)
    if against == "aten":
        slack = slack + np.abs(aten - stable)
    finite = compared & np.isfinite(want) & np.isfinite(slack) & np.isfinite(magnitude)
    err = np.abs(got.astype(np.float64) - want)[finite] - slack[finite]
    ulp = np.spacing(np.minimum(magnitude[finite], np.finfo(dtype).max).astype(dtype)).astype(np.float64)
    ratio = np.maximum(err, 0.0) / ulp
    return float(ratio.max()) if ratio.size else 0.0


MEASURED: dict[tuple[str, str], float] = {}


def check(op: Op, element: str, got: np.ndarray, args: list[np.ndarray]) -> None:
    """Exact ops bit for bit against PyTorch's vectorised kernel in the same dtype (the
    inputs broadcast to 512 elements for a 0-d call); smooth ops within k, against both
    PyTorch's op and the stable form."""
    if op.exact:
        long = [torch.from_numpy(np.broadcast_to(a, SHAPE).copy()) for a in args] if got.ndim == 0 else None
        want = op.torch_op(*long).numpy()[0, 0] if long else op.torch_op(*(torch.from_numpy(a) for a in args)).numpy()
        assert_bitwise(np.asarray(got), np.asarray(want), op.name)
        return
    for against in ("aten", "stable"):
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf in the slack of non-finite elements
            ratio = smooth_error_ratio(op, got, args, against)
        key = (f"{op.name} vs {against}", element)
        MEASURED[key] = max(ratio, MEASURED.get(key, 0.0))
        assert ratio <= op.k, f"{op.name} ({element}) vs {against}: {ratio:.3g} ulp(A) beyond P + R exceeds k = {op.k}"


CASES = [(op, kind) for op in OPS for kind in ("normal", "corners_x", "corners_dy") if op.backward or kind != "corners_dy"]


@pytest.mark.parametrize("element", DTYPES)
@pytest.mark.parametrize(("op", "kind"), CASES, ids=lambda v: str(v))
def test_activation_matches_pytorch(op, kind, element, compiled):
    args = inputs(op, DTYPES[element], kind)
    check(op, element, _call(compiled, element, op, "8x64x", args), args)


@pytest.mark.parametrize("element", DTYPES)
@pytest.mark.parametrize("name", DYNAMIC)
@pytest.mark.parametrize("batch", [1, 3])
def test_dynamic_leading_dimension(name, batch, element, compiled):
    op = BY_NAME[name]
    rng = np.random.default_rng(batch)
    args = [(rng.standard_normal((batch, 5)) * 3).astype(DTYPES[element]) for _ in range(2 if op.backward else 1)]
    check(op, element, _call(compiled, element, op, "?x5x", args), args)


@pytest.mark.parametrize("element", DTYPES)
@pytest.mark.parametrize("name", ZERO_D)
@pytest.mark.parametrize("value", [-2.5, 0.75, float("nan")])
def test_zero_d(name, value, element, compiled):
    op = BY_NAME[name]
    dtype = DTYPES[element]
    args = [np.array(value, dtype)] if not op.backward else [np.array(1.5, dtype), np.array(value, dtype)]
    got = _call(compiled, element, op, "", args)
    assert got.shape == () and got.dtype == dtype
    check(op, element, got, args)


@pytest.mark.parametrize("element", DTYPES)
def test_nan_conventions_follow_the_vectorised_kernel(element, compiled):
    """PyTorch's hardtanh_backward and hardswish_backward give a NaN x 0 and NaN in its
    vectorised loop, dy in its scalar tail loop; we give the vectorised result everywhere."""
    dtype = DTYPES[element]
    x = np.full(SHAPE, np.nan, dtype)
    dy = np.full(SHAPE, 2.0, dtype)
    for name, expected in (("hardtanh_backward", 0.0), ("hardswish_backward", np.nan)):
        op = BY_NAME[name]
        got = _call(compiled, element, op, "8x64x", [dy, x])
        assert_bitwise(got, np.full(SHAPE, expected, dtype), name)
        vectorised = op.torch_op(torch.from_numpy(dy), torch.from_numpy(x)).numpy()
        tail = op.torch_op(torch.from_numpy(dy[0, :1]), torch.from_numpy(x[0, :1])).numpy()
        assert_bitwise(vectorised, np.full(SHAPE, expected, dtype), f"PyTorch's vectorised {name}")
        assert tail[0] == 2.0, f"PyTorch's scalar {name} loop now gives {tail[0]} for NaN: revisit the convention"


@pytest.mark.parametrize("element", DTYPES)
@pytest.mark.parametrize("name", ["sigmoid", "silu", "silu_backward", "gelu", "gelu_tanh", "gelu_backward", "gelu_tanh_backward"])
def test_negative_tails(name, element, compiled):
    """x from -1e-3 down to where the results underflow (f32: -110; f64: -20, since below
    that the float64 references' own intermediates are subnormal): where ATen's 1 + erf,
    1 + tanh and exp(-x) cancel or overflow."""
    op = BY_NAME[name]
    dtype = DTYPES[element]
    low = 110.0 if element == "f32" else 20.0
    x = -np.geomspace(1e-3, low, SHAPE[0] * SHAPE[1]).astype(dtype).reshape(SHAPE)
    dy = np.random.default_rng(1).standard_normal(SHAPE).astype(dtype)
    args = [dy, x] if op.backward else [x]
    check(op, element, _call(compiled, element, op, "8x64x", args), args)


def test_report_measured(request):
    """Prints the measured worst ratios (run with -s); the docstring's numbers come from here."""
    for (name, element), ratio in sorted(MEASURED.items()):
        print(f"MEASURED {name:24s} {element}: {ratio:.3f}")
