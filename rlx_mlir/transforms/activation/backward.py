"""The activation gradients, each one all-parallel `linalg.generic` over dy's shape.

    dx[*i] = g(dy[*i], x[*i])        (identity maps; any rank, 0-d included)

The selects are ATen's: `threshold_backward` passes dy unless `x <= threshold`, so a NaN
x passes it; `hardtanh_backward` and `hardsigmoid_backward` pass it only strictly inside
their range, so a bound and a NaN give 0. Where ATen's scalar and vectorised CPU loops
disagree on a NaN x (its `hardtanh_backward` and `hardswish_backward` give dy in the
scalar loop that handles a tensor's last few elements, and 0 / NaN in the vectorised loop
that handles the rest), the vectorised result, which PyTorch returns for all but the
tail of a tensor, is the one implemented. The smooth gradients evaluate the derivative
of the forward lowering's formulation (`activation.Logistic`, `activation.NormalTail`,
`activation.small_erf`: no math.erfc, which IREE rejects), in the order of ATen's terms
(`left_derivative + right_derivative` etc.), except that no term is rounded into the
subnormal range while the gradient is above it (IREE flushes subnormal intermediates).
"""

from __future__ import annotations

import math
import struct

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import activation as act
from rlx_mlir.transforms.activation.forward import (
    GELU_TANH_KAPPA,
    SQRT_2_OVER_PI,
    Logistic,
    Scalars,
    elementwise,
    SMALL_ERF_X,
    SQRT1_2,
    NormalTail,
    gelu_tanh_argument,
    small_erf,
)

ONE_SIXTH_F32 = struct.unpack("f", struct.pack("f", 1.0 / 6.0))[0]
"""ATen's hardsigmoid_backward multiplies by `scalar_t(1.0f / 6.0f)`: 1/6 rounded to f32,
also for f64 (0.16666667163372040), so the f64 gradient is that, not dy / 6."""

INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
"""M_2_SQRTPI * M_SQRT1_2 * 0.5 = 1/sqrt(2 pi): the normal density's scale."""


class ThresholdBackwardToLinalg(RewritePattern):
    """dx = x <= threshold ? 0 : dy"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.ThresholdBackwardOp, rewriter: PatternRewriter):
        threshold = op.threshold
        elementwise(op, rewriter, lambda s, dy, x: s.select(s.le(x, s.const(threshold)), s.const(0.0), dy))


class HardtanhBackwardToLinalg(RewritePattern):
    """dx = (x > min_val && x < max_val) ? dy : 0"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.HardtanhBackwardOp, rewriter: PatternRewriter):
        low, high = op.min_val, op.max_val

        def gradient(s: Scalars, dy, x):
            inside = s.and_(s.gt(x, s.const(low)), s.lt(x, s.const(high)))
            return s.select(inside, dy, s.const(0.0))

        elementwise(op, rewriter, gradient)


class HardswishBackwardToLinalg(RewritePattern):
    """dx = x <= -3 ? 0 : (x >= 3 ? dy : dy * (x / 3 + 0.5))"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.HardswishBackwardOp, rewriter: PatternRewriter):
        def gradient(s: Scalars, dy, x):
            ramp = s.mul(dy, s.add(s.div(x, s.const(3.0)), s.const(0.5)))
            above = s.select(s.ge(x, s.const(3.0)), dy, ramp)
            return s.select(s.le(x, s.const(-3.0)), s.const(0.0), above)

        elementwise(op, rewriter, gradient)


class HardsigmoidBackwardToLinalg(RewritePattern):
    """dx = (x > -3 && x < 3) ? dy * ONE_SIXTH_F32 : 0"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.HardsigmoidBackwardOp, rewriter: PatternRewriter):
        def gradient(s: Scalars, dy, x):
            inside = s.and_(s.gt(x, s.const(-3.0)), s.lt(x, s.const(3.0)))
            return s.select(inside, s.mul(dy, s.const(ONE_SIXTH_F32)), s.const(0.0))

        elementwise(op, rewriter, gradient)


class SigmoidBackwardToLinalg(RewritePattern):
    """dx = (dy * (1 - y)) * y, y the sigmoid's output (ATen's order)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.SigmoidBackwardOp, rewriter: PatternRewriter):
        elementwise(op, rewriter, lambda s, dy, y: s.mul(s.mul(dy, s.sub(s.const(1.0), y)), y))


class SiluBackwardToLinalg(RewritePattern):
    """dx = dy * sigmoid(x) * (1 + x * sigmoid(-x))      [ATen: 1 - sigmoid(x) for sigmoid(-x)]

    Both sigmoids come from one `Logistic(x)`: `q = 1 + x * sigmoid(-x)`, then
    `dx = (q * dy) * sigmoid(x)` as `Logistic.times`. At x = +-inf, 0 * inf gives NaN, as
    in ATen.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.SiluBackwardOp, rewriter: PatternRewriter):
        def gradient(s: Scalars, dy, x):
            logistic = Logistic(s, x)
            q = s.add(s.const(1.0), logistic.times(x, negated=True))
            return logistic.times(s.mul(dy, q))

        elementwise(op, rewriter, gradient)


class GeluBackwardToLinalg(RewritePattern):
    """approximate "none", with `NormalTail(x)`'s m, e, g (erfc(|x| / sqrt 2) = (m e) e,
    exp(-x^2 / 2) = (g e) e) and x pdf = ((x / sqrt(2 pi)) g) e) e:
        dx = dy * (cdf + x pdf),  |x| < 0.75:  cdf = 0.5 (1 + erf(x / sqrt 2))   (Taylor)
                                  x < 0:       cdf + x pdf = ((0.5 m + (x / sqrt(2 pi)) g) e) e
                                  else:        cdf = 1 - 0.5 erfc(|x| / sqrt 2)
    approximate "tanh", with z = 2u, u = sqrt(2/pi) (x + 0.044715 x^3), s = sigmoid(z):
        ATen's left_derivative  0.5 * (1 + tanh u)                         = s
        ATen's right_derivative 0.5 x (1 - tanh^2 u) sqrt(2/pi) (1 + 3k x^2)
                              = r * h,  r = t * sqrt(2/pi) + ((t * x) * x) * 3k sqrt(2/pi),
                                t = 2x h / d^2 = (((2x) * h) / d) / d
        dx = dy * (left + right) = dy * (z >= 0 ? 1 / d + r h : (h / d + r) h)
    (h, d of `Logistic(z)`; 1 - tanh^2 u = 4 sigmoid(z) sigmoid(-z) = 4 h^2 / d^2). The
    factor (1 + 3k x^2) is distributed so that t = 0 at large |x| is never multiplied by an
    overflowed x^2, and for z < 0 (left = h^2 / d) one h is factored out so that no term is
    subnormal while the gradient is normal. NaN at x = +-inf, as in ATen.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.GeluBackwardOp, rewriter: PatternRewriter):
        elementwise(op, rewriter, _gelu_tanh_gradient if op.approximate == "tanh" else _gelu_gradient)


def _gelu_gradient(s: Scalars, dy, x):
    # cdf + x pdf with one `NormalTail(x)`: x pdf = x / sqrt(2 pi) * exp(-x^2 / 2) and, for
    # x < 0, cdf = 0.5 erfc(|x| / sqrt 2); both end in `* e * e`, so for x < 0 the sum is
    # ((0.5 m + (x / sqrt(2 pi)) g) * e) * e (g = exp(-(a - ah)(a + ah) / 2), a = |x|): one rounding
    # into the subnormal range. 0.5 m ~ 1 / (sqrt(2 pi) |x|) and |x| / sqrt(2 pi) differ
    # by x^2 for |x| > 1 and both are O(1) near 0, so the sum cancels by at most 2 bits.
    tail = NormalTail(s, x)
    x_scaled = s.mul(x, s.const(INV_SQRT_2PI))
    negative = s.add(s.mul(s.const(0.5), tail.m), s.mul(x_scaled, tail.gauss_tail))
    below = s.mul(s.mul(negative, tail.e), tail.e)
    x_pdf = tail.times_gauss(x_scaled)
    near = s.add(s.mul(s.const(0.5), s.add(s.const(1.0), small_erf(s, s.mul(x, s.const(SQRT1_2))))), x_pdf)
    above = s.add(s.sub(s.const(1.0), tail.times_erfc(s.const(0.5))), x_pdf)
    far = s.select(s.lt(x, s.const(0.0)), below, above)
    return s.mul(dy, s.select(s.lt(s.abs(x), s.const(SMALL_ERF_X)), near, far))


def _gelu_tanh_gradient(s: Scalars, dy, x):
    # left + right with one factor h of right's h^2 pulled out: right = r * h, r = t' sqrt(2/pi)
    # + ((t' x) x) 3k sqrt(2/pi), t' = (((2x) h) / d) / d. For z >= 0, left = 1 / d; for
    # z < 0, left = h (h / d) and the sum is (h / d + r) * h, so no term is rounded into the
    # subnormal range while the gradient is above it (h^2 / d is subnormal from x ~ -10 in
    # f32, where the gradient is still ~1e-36; IREE flushes such intermediates to 0).
    z = gelu_tanh_argument(s, x)
    logistic = Logistic(s, z)
    h, d = logistic.h, logistic.d
    t = s.div(s.div(s.mul(s.add(x, x), h), d), d)
    r = s.add(
        s.mul(t, s.const(SQRT_2_OVER_PI)),
        s.mul(s.mul(s.mul(t, x), x), s.const(3.0 * GELU_TANH_KAPPA * SQRT_2_OVER_PI)),
    )
    nonnegative = s.add(s.div(s.const(1.0), d), s.mul(r, h))
    negative = s.mul(s.add(s.div(h, d), r), h)
    z_nonnegative = s.ge(z, s.const(0.0))
    return s.mul(dy, s.select(z_nonnegative, nonnegative, negative))


class LeakyReluBackwardToLinalg(RewritePattern):
    """dx = x > 0 ? dy : dy * negative_slope"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: act.LeakyReluBackwardOp, rewriter: PatternRewriter):
        slope = op.negative_slope
        elementwise(op, rewriter, lambda s, dy, x: s.select(s.gt(x, s.const(0.0)), dy, s.mul(dy, s.const(slope))))
