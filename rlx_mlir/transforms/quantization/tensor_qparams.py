"""`rlx.fake_quantize_tensor_qparams` and its backward: ATen's per-tensor kernel on a grid
read from operands, one all-parallel generic each.

ATen's `_fake_quantize_per_tensor_affine_cachemask_tensor_qparams` reads `scale[0]` (a
float) and `zero_point[0]` (an int32) and runs the per-tensor kernel that
`rlx.fake_quantize` reproduces (`fake_quantize.py`):

    inv = 1 / scale[0]                                  (f32 division)
    q   = roundeven(x * inv) + zero_point[0]            (x's type)
    y   = (minnumf(maxnumf(q, quant_min), quant_max) - zero_point[0]) * scale[0]
                                                        (the product in f32, as ATen's)
    dx  = quant_min <= q <= quant_max ? dy : 0          (ordered: false for NaN)

The loops and the level are the per-channel ops' (`per_channel.per_channel`, whose grid
map reads element 0 here); the clamp and the product are the constant grid's
(`fake_quantize.Grid`), with the scale and zero point taken from the operands.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import quantization as quant
from rlx_mlir.transforms.activation.forward import Scalars
from rlx_mlir.transforms.quantization.fake_quantize import Grid
from rlx_mlir.transforms.quantization.per_channel import per_channel


class OperandGrid(Grid):
    """The per-tensor grid of scalars read in the generic body: `scale` and `zero` in x's type."""

    def __init__(self, op, s: Scalars, scale: SSAValue, zero: SSAValue):
        self.low, self.high = float(op.quant_min), float(op.quant_max)
        self._zero = zero
        self._scale_f32 = scale if s.element == f32 else s.r.value(arith.TruncFOp(scale, f32))

    def zero(self, s: Scalars) -> SSAValue:
        return self._zero

    def scale_f32(self, s: Scalars) -> SSAValue:
        return self._scale_f32


class FakeQuantizeTensorQparamsToLinalg(RewritePattern):
    """y = (clamp(roundeven(x * inv) + zp[0], qmin, qmax) - zp[0]) * scale[0]      (module docstring)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.FakeQuantizeTensorQparamsOp, rewriter: PatternRewriter):
        def fake_quantized(s: Scalars, x, q, scale, zero):
            return OperandGrid(op, s, scale, zero).dequantized(s, q)

        per_channel(op, rewriter, fake_quantized)


class FakeQuantizeTensorQparamsBackwardToLinalg(RewritePattern):
    """dx = qmin <= roundeven(x * inv) + zp[0] <= qmax ? dy : 0"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.FakeQuantizeTensorQparamsBackwardOp, rewriter: PatternRewriter):
        def masked(s: Scalars, dy, x, q, scale, zero):
            return s.select(OperandGrid(op, s, scale, zero).inside(s, q), dy, s.const(0.0))

        per_channel(op, rewriter, masked)
