"""`rlx.fake_quantize` and `rlx.ste_backward`: one all-parallel generic each, in ATen's precisions.

PyTorch 2.13's CPU kernel (`_fake_quantize_tensor_helper`), which the forward reproduces
bit for bit:

    float inv_scale = 1.0f / sc;
    qval_f = z_point + std::nearbyint(x * inv_scale);          // x's type (f32: float math)
    qval   = (int64_t) std::fmin(std::fmax(qval_f, quant_min), quant_max);
    y      = (qval - z_point) * sc;                              // int64 * float: float math
    mask   = quant_min <= qval_f && qval_f <= quant_max;         // the gradient's

so here, with s = f32(scale) and inv = f32(1 / s) constants:

    q  = roundeven(x * inv) + zero_point                         (x's type)
    l  = minnumf(maxnumf(q, quant_min), quant_max) - zero_point  (exact: an integer)
    y  = l * s in f32 (another type: l converted to f32, the product converted back:
         ATen's float product)

`maxnumf`/`minnumf` are C's fmax/fmin: a NaN q gives quant_min. The levels are exact
integers in x's type while |quant_min|, |quant_max| + |zero_point| stay below 2^24 (every
integer quantization grid). The clipped STE's mask compares the unclamped q with ordered
predicates (false for NaN), as ATen's mask does.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import Float32Type, Float64Type, f32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import quantization as quant
from rlx_mlir.dialects.quantization import float32
from rlx_mlir.transforms.activation.forward import Scalars, elementwise


class Grid:
    """An op's per-tensor quantization grid, as scalar arithmetic in a generic body; the
    scale and zero point are constants here, values read from operands in `OperandGrid`."""

    def __init__(self, op: quant.FakeQuantizeOp | quant.SteBackwardOp):
        self.scale = float32(op.scale)
        self.inv_scale = float32(1.0 / self.scale)
        self.zero_point, self.low, self.high = float(op.zero_point), float(op.quant_min), float(op.quant_max)

    def inverse_scale(self, s: Scalars) -> SSAValue:
        """inv = f32(1 / s), in x's type."""
        return s.const(self.inv_scale)

    def zero(self, s: Scalars) -> SSAValue:
        """The zero point, in x's type."""
        return s.const(self.zero_point)

    def scale_f32(self, s: Scalars) -> SSAValue:
        """s, an f32 value."""
        return s.r.constant(self.scale, f32)

    def level(self, s: Scalars, x: SSAValue) -> SSAValue:
        """q = roundeven(x * inv) + zero_point, unclamped, in x's type."""
        rounded = s.r.value(math_dialect.RoundEvenOp(s.mul(x, self.inverse_scale(s))))
        return s.add(rounded, self.zero(s))

    def inside(self, s: Scalars, q: SSAValue) -> SSAValue:
        """quant_min <= q <= quant_max (false for NaN): the clipped STE's mask."""
        return s.and_(s.le(s.const(self.low), q), s.le(q, s.const(self.high)))

    def dequantized(self, s: Scalars, q: SSAValue) -> SSAValue:
        """(clamp(q) - zero_point) * scale, the product in f32 as ATen forms it."""
        clamped = s.r.value(arith.MinnumfOp(s.r.value(arith.MaxnumfOp(q, s.const(self.low))), s.const(self.high)))
        level = s.sub(clamped, self.zero(s))
        if isinstance(s.element, Float32Type):
            return s.mul(level, self.scale_f32(s))
        wide = isinstance(s.element, Float64Type)
        as_f32 = s.r.value((arith.TruncFOp if wide else arith.ExtFOp)(level, f32))
        product = s.r.value(arith.MulfOp(as_f32, self.scale_f32(s)))
        return s.r.value((arith.ExtFOp if wide else arith.TruncFOp)(product, s.element))


class FakeQuantizeToLinalg(RewritePattern):
    """y = (clamp(roundeven(x * inv) + zp, qmin, qmax) - zp) * scale      (module docstring)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.FakeQuantizeOp, rewriter: PatternRewriter):
        grid = Grid(op)
        elementwise(op, rewriter, lambda s, x: grid.dequantized(s, grid.level(s, x)))


class SteBackwardToLinalg(RewritePattern):
    """dx = dy * g(x):
        identity:  dy (the op is replaced by dy itself)
        clipped:   qmin <= roundeven(x * inv) + zp <= qmax ? dy : 0
        tanh:      dy * (1 - t * t),  t = tanh(x)
        hard_tanh: -1 <= x <= 1 ? dy : 0
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.SteBackwardOp, rewriter: PatternRewriter):
        if op.kind == "identity":
            rewriter.replace(op, [], [op.grad_output])
            return
        elementwise(op, rewriter, _STE_GRADIENTS[op.kind](op))


def _clipped(op):
    grid = Grid(op)
    return lambda s, dy, x: s.select(grid.inside(s, grid.level(s, x)), dy, s.const(0.0))


def _tanh(op):
    def gradient(s: Scalars, dy, x):
        t = s.r.value(math_dialect.TanhOp(x))
        return s.mul(dy, s.sub(s.const(1.0), s.mul(t, t)))

    return gradient


def _hard_tanh(op):
    return lambda s, dy, x: s.select(s.and_(s.le(s.const(-1.0), x), s.le(x, s.const(1.0))), dy, s.const(0.0))


_STE_GRADIENTS = {"clipped": _clipped, "tanh": _tanh, "hard_tanh": _hard_tanh}
"""The body of each STE kind but identity, from the op."""
