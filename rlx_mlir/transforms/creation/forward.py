"""Lowering of the creation ops to linalg/arith.

`rlx.cast` is one all-parallel generic whose body is the one arith conversion the pair of
element types calls for (`convert`); `rlx.arange` one generic without inputs over its
result's index; `rlx.full` a `linalg.fill` of a `tensor.empty` sized by its operands.
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, f32, f64, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import creation
from rlx_mlir.dialects.properties import I1
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of
from rlx_mlir.transforms.elementwise.forward import elementwise


def _width(type_: Attribute) -> int:
    return type_.bitwidth if isinstance(type_, AnyFloat) else type_.width.data


def convert(r: RegionBuilder, x: SSAValue, target: Attribute) -> SSAValue:
    """x as `target`: PyTorch's conversion (see `dialects.creation`)."""
    source = x.type
    if source == target:
        return x
    if target == I1:  # x != 0; NaN != 0 too (unordered or not equal)
        zero = r.constant(0, source)
        return r.cmpf("une", x, zero) if isinstance(source, AnyFloat) else r.cmpi("ne", x, zero)
    if source == I1:
        return r.value(arith.UIToFPOp(x, target) if isinstance(target, AnyFloat) else arith.ExtUIOp(x, target))
    if isinstance(source, AnyFloat) and isinstance(target, AnyFloat):
        if _width(target) == _width(source):  # bf16 <-> f16: exactly through f32, then rounded once
            x = r.value(arith.ExtFOp(x, f32))
        return r.value(arith.ExtFOp(x, target) if _width(target) > _width(x.type) else arith.TruncFOp(x, target))
    if isinstance(source, AnyFloat):
        return r.value(arith.FPToSIOp(x, target))
    if isinstance(target, AnyFloat):
        return r.sitofp(x, target)
    return r.value(arith.ExtSIOp(x, target) if _width(target) > _width(source) else arith.TruncIOp(x, target))


class CastToLinalg(RewritePattern):
    """y[*i] = convert(x[*i]) to y's element type"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: creation.CastOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        target = element_type_of(op.result)
        y = elementwise(b, [op.input], shape_of(op.result), target, lambda r, x: convert(r, x, target))
        rewriter.replace(op, [], [y])


class ArangeToLinalg(RewritePattern):
    """y[i] = convert(fma(step, i, start)), formed in f64 (i64: start + step * i)

    One rounding, as ATen's arange on CPU computes it (its kernels are compiled with FMA
    contraction): a multiply and an add rounded apart differ from PyTorch in the last bit
    (-1 + 0.3 * 3), and whether LLVM fuses them depended on whether the loop was
    vectorized."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: creation.ArangeOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        target = element_type_of(op.result)
        wide = f64 if isinstance(target, AnyFloat) else i64
        start, step = op.start, op.step

        def body(r: RegionBuilder, _out: SSAValue) -> SSAValue:
            i = r.loop_index(0)
            i = r.index_to_float(i, wide) if wide == f64 else r.index_cast(i, i64)
            if wide == f64:
                value = r.value(math.FmaOp(r.constant(step, wide), i, r.constant(start, wide)))
            else:
                value = r.add(r.constant(start, wide), r.mul(r.constant(step, wide), i))
            return convert(r, value, target)

        init = b.empty(shape_of(op.result), target)
        y = b.generic(ins=[], init=init, maps=[dims_map(1, lambda d: d)], iterators="p", body=body)
        rewriter.replace(op, [], [y])


class FullToLinalg(RewritePattern):
    """y[*i] = value: linalg.fill of tensor.empty(sizes)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: creation.FullOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        y = b.full(shape_of(op.result), element_type_of(op.result), op.value, sizes=list(op.sizes))
        rewriter.replace(op, [], [y])
