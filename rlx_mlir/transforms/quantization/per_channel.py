"""`rlx.fake_quantize_per_channel` and its backward: one all-parallel generic each.

ATen's per-channel CPU kernel (`fake_quant_per_channel_cachemask_cpu`), per element of
channel c (scale[c] a float, zero_point[c] an int32):

    float inv_scale = 1.0f / scale;
    qval = static_cast<int64_t>(zero_point + std::nearbyint(self * inv_scale));
    y    = (std::fmin(std::fmax(qval, quant_min), quant_max) - zero_point) * scale;  // double
    mask = quant_min <= qval && qval <= quant_max;

Here, with the loops over x's shape and scale, zero_point read at the `axis` loop:

    inv = 1 / scale[c]                                   (f32 division)
    q   = roundeven(x * inv) + zero_point[c]             (x's type)
    q'  = |q| < 2^63 ? q : quant_min                     (the int64 cast: x86 gives INT64_MIN
                                                           for NaN, +-inf and overflow)
    y   = (minnumf(maxnumf(q', quant_min), quant_max) - zero_point[c]) * scale[c]
                                                         (x's type: an integer times an f32
                                                          value is exact in double, so this
                                                          is ATen's double product, rounded)
    dx  = quant_min <= q <= quant_max ? dy : 0           (ordered: false for NaN, +-inf)
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import quantization as quant
from rlx_mlir.transforms.activation.forward import Scalars
from rlx_mlir.transforms.builders import TensorBuilder, dims_map, tensor_type

INT64_RANGE = 2.0**63
"""|q| from here on does not fit an int64: ATen's cast gives INT64_MIN (x86's answer)."""


def per_channel(op, rewriter: PatternRewriter, body: Callable[..., SSAValue]) -> None:
    """Replace `op` by `body(s, *tensor_scalars, q, scale, zero_point)` over the result's
    shape, q the level `roundeven(x * inv) + zero_point` of x (the last tensor operand) on
    its channel's grid, scale and zero_point in x's type. An op without an `axis` has one
    grid (scale and zero_point of one element): every element reads element 0."""
    b = TensorBuilder(rewriter, op)
    out = tensor_type(op.result)
    rank = out.get_num_dims()
    element = out.element_type
    identity = dims_map(rank, lambda d: d)
    channel = dims_map(rank, lambda d: (d[op.axis],) if hasattr(op, "axis") else (0,))
    tensors = [v for v in op.operands if v not in (op.scale, op.zero_point)]

    def scalar_body(r, *scalars):
        s = Scalars(r, element)
        *values, scale, zero_point, _out = scalars
        inv = r.value(arith.DivfOp(r.constant(1.0, f32), scale))
        zero = r.sitofp(zero_point, element)
        x = values[-1]
        rounded = r.value(math_dialect.RoundEvenOp(s.mul(x, widen(s, inv))))
        return body(s, *values, s.add(rounded, zero), widen(s, scale), zero)

    y = b.generic(
        ins=[*tensors, op.scale, op.zero_point],
        init=b.empty(out.get_shape(), element, like=tensors[0]),
        maps=[*(identity for _ in tensors), channel, channel, identity],
        iterators="p" * rank,
        body=scalar_body,
    )
    rewriter.replace(op, [], [y])


def widen(s: Scalars, value: SSAValue) -> SSAValue:
    """An f32 scalar in the element type (exactly: only f32 and f64 are tested)."""
    if s.element == f32:
        return value
    return s.r.value(arith.ExtFOp(value, s.element))


class FakeQuantizePerChannelToLinalg(RewritePattern):
    """y = (clamp(|q| < 2^63 ? q : quant_min) - zero_point[c]) * scale[c]      (module docstring)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.FakeQuantizePerChannelOp, rewriter: PatternRewriter):
        low, high = float(op.quant_min), float(op.quant_max)

        def fake_quantized(s: Scalars, x, q, scale, zero):
            cast = s.select(s.lt(s.abs(q), s.const(INT64_RANGE)), q, s.const(low))
            clamped = s.r.value(arith.MinnumfOp(s.r.value(arith.MaxnumfOp(cast, s.const(low))), s.const(high)))
            return s.mul(s.sub(clamped, zero), scale)

        per_channel(op, rewriter, fake_quantized)


class FakeQuantizePerChannelBackwardToLinalg(RewritePattern):
    """dx = quant_min <= q <= quant_max ? dy : 0"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.FakeQuantizePerChannelBackwardOp, rewriter: PatternRewriter):
        low, high = float(op.quant_min), float(op.quant_max)

        def masked(s: Scalars, dy, x, q, scale, zero):
            inside = s.and_(s.le(s.const(low), q), s.le(q, s.const(high)))
            return s.select(inside, dy, s.const(0.0))

        per_channel(op, rewriter, masked)
