"""Lowering of the selection ops: one all-parallel `linalg.generic` each, its body a select.

Operands are read through their broadcast maps (`elementwise`, shared with the
elementwise family), so the IR is the same size for any shape. Bounds and fill values are
converted to the element type once, as ATen's kernels convert their `Scalar`s.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import AnyFloat, i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import selection as sel
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.elementwise.forward import elementwise


def less(r: RegionBuilder, a: SSAValue, b: SSAValue) -> SSAValue:
    """`a < b`, false when either is NaN (ordered compare; signed for integers)."""
    return r.cmpf("olt", a, b) if isinstance(a.type, AnyFloat) else r.cmpi("slt", a, b)


def clamped(r: RegionBuilder, x: SSAValue, low: float, high: float) -> SSAValue:
    """`t = x < lo ? lo : x; t > hi ? hi : t`, an infinite bound left out.

    std::min(std::max(x, lo), hi) as ATen's scalar kernel: NaN compares false and stays,
    and with lo > hi every element ends at hi.
    """
    if not math.isinf(low):
        lo = r.constant(low, x.type)
        x = r.select(less(r, x, lo), lo, x)
    if not math.isinf(high):
        hi = r.constant(high, x.type)
        x = r.select(less(r, hi, x), hi, x)
    return x


class WhereToLinalg(RewritePattern):
    """z[*i] = condition[bc(*i)] ? input[bc(*i)] : other[bc(*i)]"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sel.WhereOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        ins = [op.condition, op.input, op.other]
        z = elementwise(b, ins, shape_of(op.result), element_type_of(op.result), RegionBuilder.select)
        rewriter.replace(op, [], [z])


class MaskedFillToLinalg(RewritePattern):
    """z[*i] = mask[bc(*i)] ? value : input[*i]"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sel.MaskedFillOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        element, value = element_type_of(op.result), op.value
        z = elementwise(
            b, [op.input, op.mask], shape_of(op.result), element,
            lambda r, x, m: r.select(m, r.constant(value, element), x), like=op.input,
        )
        rewriter.replace(op, [], [z])


class ClampToLinalg(RewritePattern):
    """y[*i] = min(max(x[*i], lo), hi)   (`clamped`)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sel.ClampOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        low, high = op.min, op.max
        element = element_type_of(op.result)
        y = elementwise(b, [op.input], shape_of(op.result), element, lambda r, x: clamped(r, x, low, high))
        rewriter.replace(op, [], [y])


class TriangleToLinalg(RewritePattern):
    """tril: y[..., i, j] = j - i <= diagonal ? x[..., i, j] : 0
    triu: y[..., i, j] = j - i >= diagonal ? x[..., i, j] : 0

    The test is on loop indices (`linalg.index`), in i64 so that a diagonal beyond the
    matrix is just a test that always or never holds.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sel.TriangleOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        shape, element = shape_of(op.result), element_type_of(op.result)
        rank, diagonal = len(shape), op.diagonal
        keep = "sle" if isinstance(op, sel.TrilOp) else "sge"

        def body(r: RegionBuilder, x: SSAValue) -> SSAValue:
            i, j = (r.index_cast(r.loop_index(rank + k), i64) for k in (-2, -1))
            inside = r.cmpi(keep, r.sub(j, i), r.constant(diagonal, i64))
            return r.select(inside, x, r.constant(0, element))

        y = elementwise(b, [op.input], shape, element, body)
        rewriter.replace(op, [], [y])
