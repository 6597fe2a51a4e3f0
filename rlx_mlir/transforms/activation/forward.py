"""The forward activations, each one all-parallel `linalg.generic` over the operand's shape.

    y[*i] = f(x[*i])        (identity maps; any rank, 0-d included; a dynamic leading
                             dimension is read with `tensor.dim`)

The scalar bodies follow ATen's CPU kernels (`aten/src/ATen/native/cpu/Activation.cpp`)
where these are exact or well-conditioned: the clamps and selects are ATen's comparisons,
so every boundary value and every NaN goes the way it goes in PyTorch. Where ATen's
formula loses accuracy in a tail, the body computes the same function another way:

- the logistic function never overflows or cancels: with `h = exp(-|z|/2)`,
  `sigmoid(z) = g^2 / (1 + h^2)` where `g = 1` for z >= 0 and `g = h` otherwise
  (`Logistic`). A product `w * sigmoid(z)` is `((w * g) * g) / d`, so a result in the
  subnormal range is rounded once, never amplified from a subnormal intermediate
  (ATen's `x / (1 + exp(-x))` flushes silu(-90) to -0 in f32);
- `1 + tanh(u)` is `2 sigmoid(2u)`, and `1 + erf(x / sqrt 2)` = 2 Phi(x) is computed by
  `scaled_cdf` from math.exp and arith only: ATen's forms cancel for negative inputs
  (gelu(-5) keeps ~4 correct bits in f32), and math.erfc, which would not, is rejected
  by IREE's llvm-cpu backend ("failed to legalize operation 'math.erfc'"; math.erf, exp,
  expm1, tanh, log, log1p compile there). 2 Phi(x) is 1 + erf(x / sqrt 2) by erf's Taylor
  series for |x| < 0.75, and otherwise erfc(|x| / sqrt 2) (x < 0) or 2 - erfc (x >= 0),
  with erfc(t) = C(y) / (1 + 2t) * exp(-x^2 / 2), C a fixed 15-term (f32) / 28-term (f64)
  Chebyshev series of (1 + 2t) exp(t^2) erfc(t) in y = (t - 3.75) / (t + 3.75), and the
  exponent exact by a Veltkamp split of |x| (`NormalTail`). Fixed-size IR, two selects.

  Measured on a dense sweep (9750 points: x = -geomspace(1e-4, 14 (f32) / 38 (f64)),
  linspace(-6, 6), geomspace(1e-4, 10); mpmath reference at 30 digits; the error in ulps
  of the result, the gradient's in ulps of Phi + |x| phi):

      worst ulps                x < -10  [-10, -3)  [-3, -0.5)  [-0.5, 0.5)  >= 0.5
      gelu        f32 ours        3.4      3.8        3.4         1.4        1.3
                  f32 PyTorch   1.7e7    1.7e7      531         6.8        3.0
                  f64 ours        5        5          5           1          1
                  f64 PyTorch   9.0e15   9.0e15     100         1          1
      gelu grad   f32 ours        2.9      3.7        3.7         1.5        1.3
                  f32 PyTorch   1.6e7    1.6e7      97          7.4        2.5
                  f64 ours        4        3          3           2          2
                  f64 PyTorch   8.4e13   1.2e14     10          1.5        1

  (PyTorch's own CPU kernel, 0.5 x (1 + erf(x / sqrt 2)), in the same dtype.) The first
  candidate, the same erfc with exp((x / sqrt 2)^2) formed from a rounded t, was off by
  162 (f32) / 1430 (f64) ulps at x = -13 / -35: exp magnifies the rounding of t^2 by t^2;
  without the Taylor branch the six roundings of erfc near t = 0 cost 5-6 ulps.

The table was measured with libm's exp. In f32 the bodies now take exp from
`polynomial_exp` (arith only, so that their loops vectorize); on the inputs of
`tests/numeric/test_activation_ops.py` that moved the worst f32 ratio of gelu from 0.72
to 0.86 and of silu from 2.65 to 3.08 ulps, the others not at all.

The other helpers here (`elementwise`, `Scalars`, `Logistic`) are shared with
`backward`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import activation as act
from rlx_mlir.transforms.activation import polynomial_exp
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, tensor_type

SQRT1_2 = math.sqrt(0.5)
"""M_SQRT1_2: gelu's erf argument is x / sqrt(2)."""
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
"""M_SQRT2 * M_2_SQRTPI * 0.5: the tanh approximation's scale."""
GELU_TANH_KAPPA = 0.044715
"""The cubic coefficient of gelu's tanh approximation."""


def round_to(value: float, element: Attribute) -> float:
    """`value` as ATen's `Scalar::to<scalar_t>` gives it: rounded to nearest in the element
    type (an f64 property held by an f32 op is first rounded to f32, as the kernel does)."""
    fmt = {Float16Type: "e", Float32Type: "f"}.get(type(element))
    if fmt is None or not math.isfinite(value):
        return value
    try:
        return struct.unpack(fmt, struct.pack(fmt, value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


class Scalars:
    """The scalar arithmetic of one generic body, in the element type of its operands.

    Comparisons are ordered (false when either side is NaN), as C++'s `<` in ATen's
    kernels; `maximum`/`minimum` propagate NaN, as ATen's `vec::maximum`/`minimum` do.
    """

    def __init__(self, r: RegionBuilder, element: Attribute):
        self.r = r
        self.element = element

    def const(self, value: float) -> SSAValue:
        return self.r.constant(round_to(value, self.element), self.element)

    def add(self, a, b):
        return self.r.add(a, b)

    def sub(self, a, b):
        return self.r.sub(a, b)

    def mul(self, a, b):
        return self.r.mul(a, b)

    def div(self, a, b):
        return self.r.div(a, b)

    def lt(self, a, b):
        return self.r.cmpf("olt", a, b)

    def le(self, a, b):
        return self.r.cmpf("ole", a, b)

    def gt(self, a, b):
        return self.r.cmpf("ogt", a, b)

    def ge(self, a, b):
        return self.r.cmpf("oge", a, b)

    def and_(self, a, b):
        return self.r.and_(a, b)

    def select(self, condition, if_true, if_false):
        return self.r.select(condition, if_true, if_false)

    def maximum(self, a, b):
        return self.r.value(arith.MaximumfOp(a, b))

    def minimum(self, a, b):
        return self.r.value(arith.MinimumfOp(a, b))

    def neg(self, a):
        return self.r.value(arith.NegfOp(a))

    def abs(self, a):
        return self.r.value(math_dialect.AbsFOp(a))

    def exp(self, a):
        return polynomial_exp.exp(self.r, a)

    def is_f64(self) -> bool:
        return isinstance(self.element, Float64Type)


class Logistic:
    """sigmoid(z) and sigmoid(-z) as `g^2 / d`, and products with them, without overflow.

    `h = exp(-|z| / 2)` (|z| / 2 is exact) and `d = 1 + h*h`; then
    `sigmoid(z) = g_z^2 / d` with `g_z = z >= 0 ? 1 : h`, and `sigmoid(-z) = g_-z^2 / d`
    with the roles swapped. `times(w)` forms `((w * g) * g) / d`: while the result is
    above the subnormal range h is a normal number, so the only rounding into the
    subnormal range is the last one. A NaN z gives NaN (z >= 0 is false and h is NaN);
    z = +-inf gives h = 0 and the limits 1 and 0.
    """

    def __init__(self, s: Scalars, z: SSAValue):
        self.s = s
        self.h = s.exp(s.mul(s.abs(z), s.const(-0.5)))
        self.d = s.add(s.const(1.0), s.mul(self.h, self.h))
        nonnegative = s.ge(z, s.const(0.0))
        one = s.const(1.0)
        self.g_pos = s.select(nonnegative, one, self.h)
        self.g_neg = s.select(nonnegative, self.h, one)

    def times(self, w: SSAValue, negated: bool = False) -> SSAValue:
        """`w * sigmoid(z)` (or `w * sigmoid(-z)` when `negated`)."""
        s, g = self.s, (self.g_neg if negated else self.g_pos)
        return s.div(s.mul(s.mul(w, g), g), self.d)

    def value(self, negated: bool = False) -> SSAValue:
        """sigmoid(z) (or sigmoid(-z)): `(g * g) / d`."""
        s, g = self.s, (self.g_neg if negated else self.g_pos)
        return s.div(s.mul(g, g), self.d)


def elementwise(op: Operation, rewriter: PatternRewriter, body: Callable[..., SSAValue]) -> None:
    """Replace `op` by `y[*i] = body(s, *operands[*i])`: one all-parallel generic with
    identity maps over the result's shape (a dynamic leading dim read from operand 0)."""
    b = TensorBuilder(rewriter, op)
    out = tensor_type(op.results[0])
    rank = out.get_num_dims()
    identity = dims_map(rank, lambda d: d)
    operands = list(op.operands)
    y = b.generic(
        ins=operands,
        init=b.empty(out.get_shape(), out.element_type, like=operands[0]),
        maps=[identity] * (len(operands) + 1),
        iterators="p" * rank,
        body=lambda r, *scalars: body(Scalars(r, out.element_type), *scalars[:-1]),
    )
    rewriter.replace(op, [], [y])


# -- patterns -------------------------------------------------------------------------------


class ReluToLinalg(RewritePattern):
    """y = x < 0 ? 0 : x

    ATen's relu is clamp_min(x, 0), whose kernels return x unless x < 0: a NaN and a
    -0.0 come out unchanged (`arith.maximumf` would turn -0.0 into +0.0).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.ReluOp, rewriter: PatternRewriter):
        elementwise(op, rewriter, lambda s, x: s.select(s.lt(x, s.const(0.0)), s.const(0.0), x))


class HardtanhToLinalg(RewritePattern):
    """y = x < lo ? lo : (x > hi ? hi : x),  lo = min_val, hi = max_val in the element type

    ATen's clamp: NaN stays NaN, -0.0 stays -0.0 inside the range.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.HardtanhOp, rewriter: PatternRewriter):
        low, high = op.min_val, op.max_val

        def clamp(s: Scalars, x):
            lo, hi = s.const(low), s.const(high)
            return s.select(s.lt(x, lo), lo, s.select(s.gt(x, hi), hi, x))

        elementwise(op, rewriter, clamp)


def _relu6_of_x_plus_3(s: Scalars, x):
    """min(max(x + 3, 0), 6), NaN-propagating as ATen's vec::maximum/minimum."""
    return s.minimum(s.maximum(s.add(x, s.const(3.0)), s.const(0.0)), s.const(6.0))


class HardswishToLinalg(RewritePattern):
    """y = (x * min(max(x + 3, 0), 6)) / 6   (ATen's order of operations)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.HardswishOp, rewriter: PatternRewriter):
        elementwise(op, rewriter, lambda s, x: s.div(s.mul(x, _relu6_of_x_plus_3(s, x)), s.const(6.0)))


class HardsigmoidToLinalg(RewritePattern):
    """y = min(max(x + 3, 0), 6) / 6"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.HardsigmoidOp, rewriter: PatternRewriter):
        elementwise(op, rewriter, lambda s, x: s.div(_relu6_of_x_plus_3(s, x), s.const(6.0)))


class SigmoidToLinalg(RewritePattern):
    """y = 1 / (1 + exp(-x)), as `Logistic(x).value()`: g^2 / (1 + h^2), h = exp(-|x|/2)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.SigmoidOp, rewriter: PatternRewriter):
        elementwise(op, rewriter, lambda s, x: Logistic(s, x).value())


class SiluToLinalg(RewritePattern):
    """y = x * sigmoid(x), as `((x * g) * g) / d` (`Logistic`); silu(-inf) = -inf * 0 = NaN"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.SiluOp, rewriter: PatternRewriter):
        elementwise(op, rewriter, lambda s, x: Logistic(s, x).times(x))


def gelu_tanh_argument(s: Scalars, x) -> SSAValue:
    """z = 2u, u = sqrt(2/pi) * (x + 0.044715 * x^3) (x^3 as ATen's (x * x) * x), so that
    0.5 * (1 + tanh(u)) = sigmoid(z)."""
    cube = s.mul(s.mul(x, x), x)
    u = s.mul(s.const(SQRT_2_OVER_PI), s.add(x, s.mul(s.const(GELU_TANH_KAPPA), cube)))
    return s.add(u, u)


ERFCX_K = 3.75
"""The centre of the map y = (t - K) / (t + K) = 1 - 2K / (t + K) of [0, inf) onto [-1, 1)."""
ERFCX_CHEBYSHEV = (
    1.1775789345674017,
    -0.004590054580646478,
    -0.08424913336651792,
    0.05920993999819189,
    -0.026658668435305753,
    0.009074997670705265,
    -0.002413163540417608,
    0.0004907758365258086,
    -6.916973302501207e-05,
    4.13902798607301e-06,
    7.74038306619849e-07,
    -2.1886401049234397e-07,
    1.076499946567091e-08,
    4.521959811218287e-09,
    -7.754400208831351e-10,
    -6.318088340886684e-11,
    2.86879501093067e-11,
    1.9455868545777347e-13,
    -9.65469674843344e-13,
    3.25254814814874e-14,
    3.3478119482868056e-14,
    -1.864562880419313e-15,
    -1.2507950530688648e-15,
    7.418235256624043e-17,
    5.068148904796111e-17,
    -2.237056659436e-18,
    -2.1873429443030182e-18,
    2.676632739925835e-20,
)
"""Chebyshev coefficients c_k of (1 + 2t) exp(t^2) erfc(t) = sum_k c_k T_k(y) on t >= 0
(Shepherd & Laframboise's form, Math. Comp. 36 (1981)), computed here with mpmath at 40
digits (120 Chebyshev nodes). The series converges geometrically: f64 keeps the 28 terms
(|c_27| = 3e-20, 1e-4 ulp), f32 the first 15 (|c_15| = 6e-11, 5e-4 ulp)."""
ERFCX_TERMS_F32 = 15
NORMAL_TAIL_MAX = 60.0
"""|x| is clamped to 60: e = exp(-x^2 / 4) = exp(-900) is 0 in f32 and f64 (so every
product with e * e is 0 and inf * e is NaN, as ATen's inf * 0), x^2 cannot overflow, and
|x| = inf gives the limit 0 instead of inf - inf."""
SMALL_ERF_X = 0.75
"""Below |x| = 0.75 (t = x / sqrt 2 < 0.53) erf comes from its Taylor series: there
erfc(t) is within 2x of 1 and the product `m * e * e`'s six roundings, each up to half an
ulp of a result just below a power of two, would cost up to 7 ulps (measured 6)."""
SMALL_ERF_TERMS = {"f32": 9, "f64": 14}
"""Taylor terms of erf kept: the first left out is below 1e-9 (f32) / 1e-19 (f64) of erf(0.53)."""
SMALL_ERF_TAYLOR = tuple(2.0 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(14))
"""erf(t) = t * sum_n a_n (t^2)^n, a_n = 2/sqrt(pi) (-1)^n / (n! (2n + 1))."""


def small_erf(s: Scalars, t) -> SSAValue:
    """erf(t) for |t| < 0.53 by Horner in t^2 (terms shrink ~t^2 / n, so no cancellation)."""
    terms = SMALL_ERF_TAYLOR[: SMALL_ERF_TERMS["f64" if s.is_f64() else "f32"]]
    u = s.mul(t, t)
    acc = s.const(terms[-1])
    for a in reversed(terms[:-1]):
        acc = s.add(s.mul(acc, u), s.const(a))
    return s.mul(t, acc)
VELTKAMP_F32 = 4097.0  # 2^12 + 1: a 12-bit head of an f32, whose square is exact
VELTKAMP_F64 = 134217729.0  # 2^27 + 1: a 26-bit head of an f64


class NormalTail:
    """The normal distribution's tail at a = |x|, without math.erf or math.erfc:

        erfc(a / sqrt 2) = C(y) / (1 + 2t) * exp(-a^2 / 2),   t = a / sqrt 2,
        C(y) = sum_k c_k T_k(y) (`ERFCX_CHEBYSHEV`, Clenshaw), y = 1 - 2K / (t + K)
        exp(-a^2 / 2) = exp(-(a - ah)(a + ah) / 2) * exp(-ah^2 / 4)^2

    ah is a's head by Veltkamp's split (c = a (2^s + 1), ah = c - (c - a)): ah^2 is exact,
    so the exponent is never rounded (a rounded a^2 or t = x / sqrt 2 would be magnified by
    exp by a^2 ulps: 80 ulps at x = -13). t and y enter only C(y) / (1 + 2t), whose
    relative condition is below 1. IREE's llvm-cpu rejects math.erfc; math.erf is IREE's
    own approximation and 1 - erf cancels, so neither is used.

    `m = C(y) / (1 + 2t) * exp(-(a - ah)(a + ah) / 2)` (in (0, 1]) and `e = exp(-ah^2 / 4)`:
    a product `w * erfc` is formed as `((w * m) * e) * e`, so while it is above the
    subnormal range e is normal and only the last rounding is into that range.
    A NaN x gives NaN in every part.
    """

    def __init__(self, s: Scalars, x: SSAValue):
        self.s = s
        a = s.minimum(s.abs(x), s.const(NORMAL_TAIL_MAX))
        split = s.mul(a, s.const(VELTKAMP_F64 if s.is_f64() else VELTKAMP_F32))
        head = s.sub(split, s.sub(split, a))
        self.e = s.exp(s.mul(s.mul(head, head), s.const(-0.25)))
        self.gauss_tail = s.exp(s.mul(s.mul(s.sub(a, head), s.add(a, head)), s.const(-0.5)))
        t = s.mul(a, s.const(SQRT1_2))
        k = s.const(ERFCX_K)
        y = s.sub(s.const(1.0), s.div(s.add(k, k), s.add(t, k)))
        terms = ERFCX_CHEBYSHEV if s.is_f64() else ERFCX_CHEBYSHEV[:ERFCX_TERMS_F32]
        two_y = s.add(y, y)
        b2 = s.const(terms[-1])  # b_n; b_{n+1} = 0, so b_{n-1} = 2y b_n + c_{n-1}
        b1 = s.add(s.mul(two_y, b2), s.const(terms[-2]))
        for c in reversed(terms[1:-2]):
            b1, b2 = s.add(s.sub(s.mul(two_y, b1), b2), s.const(c)), b1
        series = s.add(s.sub(s.mul(y, b1), b2), s.const(terms[0]))
        self.m = s.mul(s.div(series, s.add(s.const(1.0), s.add(t, t))), self.gauss_tail)

    def times_erfc(self, w: SSAValue) -> SSAValue:
        """w * erfc(|x| / sqrt 2)"""
        s = self.s
        return s.mul(s.mul(s.mul(w, self.m), self.e), self.e)

    def times_gauss(self, w: SSAValue) -> SSAValue:
        """w * exp(-x^2 / 2)"""
        s = self.s
        return s.mul(s.mul(s.mul(w, self.gauss_tail), self.e), self.e)


def scaled_cdf(s: Scalars, x, scale) -> SSAValue:
    """scale * 2 Phi(x) = scale * erfc(-x / sqrt 2), for |scale| ~ |x| or less:

        |x| < 0.75:  scale * (1 + erf(x / sqrt 2))       (`small_erf`; |erf| < 0.55)
        x < 0:       scale * erfc(|x| / sqrt 2)          (`NormalTail.times_erfc`)
        else:        scale * (2 - erfc(|x| / sqrt 2))    (erfc < 0.46 here: no cancellation)

    A NaN x goes the last way and gives NaN."""
    tail = NormalTail(s, x)
    near = s.mul(scale, s.add(s.const(1.0), small_erf(s, s.mul(x, s.const(SQRT1_2)))))
    above = s.mul(scale, s.sub(s.const(2.0), tail.times_erfc(s.const(1.0))))
    far = s.select(s.lt(x, s.const(0.0)), tail.times_erfc(scale), above)
    return s.select(s.lt(s.abs(x), s.const(SMALL_ERF_X)), near, far)


class GeluToLinalg(RewritePattern):
    """approximate "none":  y = `scaled_cdf(x, x * 0.5)` = (x * 0.5) * 2 Phi(x)
                                                [= x/2 * (1 + erf(x/sqrt 2))]
    approximate "tanh":  y = x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3)
                                                [= x/2 * (1 + tanh(u))]
    gelu(+inf) = inf and gelu(-inf) = NaN (-inf * 0), as in ATen.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.GeluOp, rewriter: PatternRewriter):
        if op.approximate == "tanh":
            elementwise(op, rewriter, lambda s, x: Logistic(s, gelu_tanh_argument(s, x)).times(x))
        else:
            elementwise(op, rewriter, lambda s, x: scaled_cdf(s, x, s.mul(x, s.const(0.5))))


class LeakyReluToLinalg(RewritePattern):
    """y = x > 0 ? x : x * negative_slope"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.LeakyReluOp, rewriter: PatternRewriter):
        slope = op.negative_slope
        elementwise(op, rewriter, lambda s, x: s.select(s.gt(x, s.const(0.0)), x, s.mul(x, s.const(slope))))
