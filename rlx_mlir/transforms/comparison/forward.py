"""Lowering of the comparisons, logical ops and any/all to linalg/tensor/arith.

Each comparison or logical op is ONE all-parallel `linalg.generic` over the result's dims,
its operands read through their broadcast maps (`elementwise.forward.elementwise`), whose
body is one `arith.cmpf`/`cmpi` (a comparison) or `arith.andi`/`ori`/`xori` of the
operands' truth values (a logical op; logical_not is the truth value xor true), yielding
i1. A truth value is `x != 0`: `cmpf une` for floats (NaN is true, -0.0 false, as
`bool(x)`), `cmpi ne` for integers, the i1 itself.

any/all are one generic with reduction iterators at `dims` into false/true (the identity
of `or`/`and`, so an empty extent gives PyTorch's any = false, all = true), then (keepdim)
an expand_shape adding the unit dims. The IR is the same size for any shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import comparison as cmp
from rlx_mlir.dialects.elementwise import reduced_shape
from rlx_mlir.dialects.properties import I1
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of
from rlx_mlir.transforms.elementwise.forward import (
    _replace_if_empty,
    _unit_dims_reassociation,
    elementwise,
    identity,
)

Predicates = tuple[str, str, str]

PREDICATES: dict[type, Predicates] = {
    # (float, integer, i1): IEEE ordered but `ne` unordered; signed; bool with false < true.
    cmp.EqOp: ("oeq", "eq", "eq"),
    cmp.NeOp: ("une", "ne", "ne"),
    cmp.LtOp: ("olt", "slt", "ult"),
    cmp.LeOp: ("ole", "sle", "ule"),
    cmp.GtOp: ("ogt", "sgt", "ugt"),
    cmp.GeOp: ("oge", "sge", "uge"),
}


def compare(r: RegionBuilder, predicates: Predicates, a: SSAValue, b: SSAValue) -> SSAValue:
    """`a OP b` by the element type: cmpf for floats, cmpi signed for integers, unsigned for i1."""
    if isinstance(a.type, AnyFloat):
        return r.cmpf(predicates[0], a, b)
    return r.cmpi(predicates[2] if a.type == I1 else predicates[1], a, b)


def truth(r: RegionBuilder, x: SSAValue) -> SSAValue:
    """`x != 0` as i1 (unordered for floats: NaN is true)."""
    if x.type == I1:
        return x
    return compare(r, PREDICATES[cmp.NeOp], x, r.constant(0, x.type))


def _xor(r: RegionBuilder, a: SSAValue, b: SSAValue) -> SSAValue:
    return r.value(arith.XOrIOp(a, b))


LOGICAL: dict[type, Callable[[RegionBuilder, SSAValue, SSAValue], SSAValue]] = {
    cmp.LogicalAndOp: RegionBuilder.and_,
    cmp.LogicalOrOp: RegionBuilder.or_,
    cmp.LogicalXorOp: _xor,
}


def _not(r: RegionBuilder, x: SSAValue) -> SSAValue:
    return _xor(r, truth(r, x), r.constant(1, I1))


def _body(op: cmp.BinaryPredicateOp | cmp.LogicalNotOp) -> Callable[..., SSAValue]:
    """The generic's body: a compare, a logical op of the truth values, or logical_not."""
    if isinstance(op, cmp.LogicalNotOp):
        return _not
    if isinstance(op, cmp.CompareOp):
        predicates = PREDICATES[type(op)]
        return lambda r, a, b: compare(r, predicates, a, b)
    combine = LOGICAL[type(op)]
    return lambda r, a, b: combine(r, truth(r, a), truth(r, b))


class PredicateToLinalg(RewritePattern):
    """z[*i] = lhs[bcast_lhs(*i)] OP rhs[bcast_rhs(*i)], z of i1 (logical_not: z[*i] = not x[*i])

    OP is arith.cmpf (oeq, une, olt, ole, ogt, oge) or arith.cmpi (eq, ne, slt, ... ; ult,
    ... for i1) for a comparison, andi/ori/xori of the truth values for a logical op;
    logical_not is the truth value xor true.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cmp.BinaryPredicateOp | cmp.LogicalNotOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        ins = list(op.operands)
        if _replace_if_empty(op, b, rewriter, ins):
            return
        rewriter.replace(op, [], [elementwise(b, ins, shape_of(op.result), I1, _body(op))])


class BooleanReductionToLinalg(RewritePattern):
    """any[*k] = OR_{*r} truth(x[*k, *r]), all[*k] = AND_{*r} truth(x[*k, *r])

    (k the kept dims, r the reduced ones, in x's order.) One generic over x's dims
    (reduction iterators at `dims`) into false (any) or true (all), indexed by the kept
    dims; over a static empty extent that fill is the result. keepdim expands the unit dims.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cmp.BooleanReductionOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        if _replace_if_empty(op, b, rewriter, [op.input]):
            return
        x, dims = op.input, op.reduced_dims()
        shape = shape_of(x)
        kept = reduced_shape(shape, dims, keepdim=False)
        is_all = isinstance(op, cmp.AllOp)
        combine = RegionBuilder.and_ if is_all else RegionBuilder.or_
        acc = b.full(kept, I1, int(is_all), like=x if kept and is_dynamic(kept[0]) else None)
        if not any(shape[axis] == 0 for axis in dims):
            acc = b.generic(
                ins=[x],
                init=acc,
                maps=[identity(len(shape)), dims_map(len(shape), lambda d: tuple(d[a] for a in range(len(shape)) if a not in dims))],
                iterators="".join("R" if axis in dims else "p" for axis in range(len(shape))),
                body=lambda r, x_, a: combine(r, a, truth(r, x_)),
            )
        if op.keepdim and dims:
            acc = _keep_unit_dims(b, acc, shape, dims, shape_of(op.result))
        rewriter.replace(op, [], [acc])


def _keep_unit_dims(b: TensorBuilder, value: SSAValue, shape: Sequence[int], dims: Sequence[int], result: Sequence[int]) -> SSAValue:
    """The reduction `value` (kept dims only) with the reduced dims back as size 1."""
    if not shape_of(value):  # 0-d to [1, ..., 1]: a one-element copy (xDSL rejects an empty reassociation)
        return elementwise(b, [value], result, element_type_of(value), lambda r, v: v)
    sizes = [b.dim(value, 0)] if is_dynamic(shape_of(value)[0]) else []
    return b.expand_shape(value, _unit_dims_reassociation(len(shape), dims), result, sizes)
