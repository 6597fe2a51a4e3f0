"""Lowering of the elementwise ops, reductions and addmm to linalg/tensor/arith/math.

Every binary or unary op is ONE all-parallel `linalg.generic` over the result's dims. An
operand is read through its broadcast map (`broadcast_read`): a dim it lacks (leading) is
dropped from the map, a size-1 dim that expands reads index 0, every other dim is the loop
dim itself; the output is indexed by the loop dims (gather form). So the IR is the same
size for any shape, and a 0-d operand (the importer's Python scalars) is a map with no
results. Reductions are one generic with reduction iterators into zeros, then (mean) an
in-place division, then (keepdim) an expand_shape adding the unit dims. addmm is
`linalg.matmul`, accumulating into the broadcast bias when beta = alpha = 1.

An empty result is `tensor.empty`; a sum over a static empty dim is its zeros, written
directly (tiling an empty reduction crashes mlir-opt 22, see `empty_result`).
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import elementwise as ew
from rlx_mlir.transforms.elementwise import polynomial_tanh
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, is_dynamic, shape_of

Shape = Sequence[int]


def broadcast_read(operand: Shape, result: Shape) -> AffineMap:
    """The loops of `result` -> the element of `operand` that broadcasts to it.

    operand axis j is result axis i = j + (rank(result) - rank(operand)); it reads 0 where
    it has size 1 and the result does not (that dim expands), else the loop dim d_i.
    """
    lead = len(result) - len(operand)
    return dims_map(
        len(result),
        lambda d: tuple(0 if size == 1 and result[lead + j] != 1 else d[lead + j] for j, size in enumerate(operand)),
    )


def identity(rank: int) -> AffineMap:
    return dims_map(rank, lambda d: d)


def _carrier(values: Sequence[SSAValue], shape: Shape) -> SSAValue | None:
    """An operand that carries the result's dynamic leading dim (same rank, `?` at axis 0)."""
    if not shape or not is_dynamic(shape[0]):
        return None
    return next(v for v in values if len(shape_of(v)) == len(shape) and is_dynamic(shape_of(v)[0]))


def elementwise(
    b: TensorBuilder, ins: Sequence[SSAValue], shape: Shape, element: Attribute, body: Callable,
    like: SSAValue | None = None,
) -> SSAValue:
    """result[*i] = body(in_0[bcast(*i)], in_1[bcast(*i)], ...): one all-parallel generic.

    A dynamic leading dim is read from `like`, or from an operand that carries it.
    """
    init = b.empty(shape, element, like=like or _carrier(ins, shape))
    return b.generic(
        ins=list(ins),
        init=init,
        maps=[*(broadcast_read(shape_of(v), shape) for v in ins), identity(len(shape))],
        iterators="p" * len(shape),
        body=lambda r, *args: body(r, *args[:-1]),
    )


def _is_float(value: SSAValue) -> bool:
    return isinstance(value.type, AnyFloat)


def _maximum(r: RegionBuilder, a: SSAValue, b: SSAValue) -> SSAValue:
    # arith.maximumf: NaN if either is NaN (torch.maximum), -0 < +0.
    return r.value(arith.MaximumfOp(a, b) if _is_float(a) else arith.MaxSIOp(a, b))


def _minimum(r: RegionBuilder, a: SSAValue, b: SSAValue) -> SSAValue:
    return r.value(arith.MinimumfOp(a, b) if _is_float(a) else arith.MinSIOp(a, b))


BINARY_BODIES: dict[type, Callable[[RegionBuilder, SSAValue, SSAValue], SSAValue]] = {
    ew.AddOp: RegionBuilder.add,
    ew.SubOp: RegionBuilder.sub,
    ew.MulOp: RegionBuilder.mul,
    ew.DivOp: lambda r, a, b: r.value(arith.DivfOp(a, b)),
    ew.MaximumOp: _maximum,
    ew.MinimumOp: _minimum,
}

UNARY_BODIES: dict[type, Callable[[RegionBuilder, SSAValue], SSAValue]] = {
    ew.NegOp: lambda r, x: r.value(arith.NegfOp(x)),
    ew.ExpOp: lambda r, x: r.value(math.ExpOp(x)),
    ew.LogOp: lambda r, x: r.value(math.LogOp(x)),
    ew.SqrtOp: lambda r, x: r.value(math.SqrtOp(x)),
    ew.RsqrtOp: lambda r, x: r.value(math.RsqrtOp(x)),
    ew.AbsOp: lambda r, x: r.value(math.AbsFOp(x)),
    ew.TanhOp: polynomial_tanh.tanh,
    ew.ErfOp: lambda r, x: r.value(math.ErfOp(x)),
}


def _replace_if_empty(op, b: TensorBuilder, rewriter: PatternRewriter, like: Sequence[SSAValue]) -> bool:
    """An empty result computes nothing: `tensor.empty` of its type."""
    shape = shape_of(op.result)
    if 0 not in shape:
        return False
    rewriter.replace(op, [], [b.empty(shape, element_type_of(op.result), like=_carrier(like, shape))])
    return True


class BinaryToLinalg(RewritePattern):
    """z[*i] = lhs[bcast_lhs(*i)] OP rhs[bcast_rhs(*i)]

    OP is arith.addf/addi, subf/subi, mulf/muli, divf, maximumf/maxsi, minimumf/minsi by the
    element type; `broadcast_read` gives each operand's map.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ew.BinaryOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        ins = [op.lhs, op.rhs]
        if _replace_if_empty(op, b, rewriter, ins):
            return
        z = elementwise(b, ins, shape_of(op.result), element_type_of(op.result), BINARY_BODIES[type(op)])
        rewriter.replace(op, [], [z])


class UnaryToLinalg(RewritePattern):
    """y[*i] = f(x[*i]), f an arith/math op (negf, exp, log, sqrt, rsqrt, absf, erf; tanh by
    `polynomial_tanh`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ew.UnaryOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        if _replace_if_empty(op, b, rewriter, [op.input]):
            return
        y = elementwise(b, [op.input], shape_of(op.result), element_type_of(op.result), UNARY_BODIES[type(op)])
        rewriter.replace(op, [], [y])


def _unit_dims_reassociation(rank: int, dims: Sequence[int]) -> list[list[int]]:
    """Groups of the keepdim shape per kept dim: each reduced (unit) dim joins the kept dim
    before it, leading ones the first kept dim (there is one)."""
    kept = [axis for axis in range(rank) if axis not in dims]
    groups = [[axis] for axis in kept]
    for axis in dims:
        before = [g for g, k in enumerate(kept) if k < axis]
        groups[before[-1] if before else 0].append(axis)
    return [sorted(g) for g in groups]


class ReductionToLinalg(RewritePattern):
    """sum[*k] = sum_{*r} x[*k, *r] (k the kept dims, r the reduced ones, in x's order);
    mean = sum / prod(sizes of r).

    One generic over x's dims (reduction iterators at `dims`) into zeros, indexed by the
    kept dims; the mean's division rewrites the sums in place (an input-less generic);
    keepdim is an expand_shape inserting the unit dims (a copy when all are reduced). The count of a dynamic reduced
    batch is read with `tensor.dim`; an empty count gives 0/0 = NaN, as PyTorch's mean.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ew.SumOp | ew.MeanOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        if _replace_if_empty(op, b, rewriter, [op.input]):
            return
        x, dims = op.input, op.reduced_dims()
        shape, element = shape_of(x), element_type_of(x)
        kept = ew.reduced_shape(shape, dims, keepdim=False)
        zeros = b.full(kept, element, 0, like=x if kept and is_dynamic(kept[0]) else None)
        if any(shape[axis] == 0 for axis in dims):
            sums = zeros
        else:
            sums = b.generic(
                ins=[x],
                init=zeros,
                maps=[identity(len(shape)), dims_map(len(shape), lambda d: tuple(d[a] for a in range(len(shape)) if a not in dims))],
                iterators="".join("R" if axis in dims else "p" for axis in range(len(shape))),
                body=lambda r, x_, acc: r.accumulate(acc, x_),
            )
        if isinstance(op, ew.MeanOp):
            count = self.count(b, x, dims, element)
            sums = b.generic(
                ins=[], init=sums, maps=[identity(len(kept))], iterators="p" * len(kept),
                body=lambda r, acc: r.value(arith.DivfOp(acc, count)),
            )
        if op.keepdim:
            result_shape = shape_of(op.result)
            if kept:
                sizes = [b.dim(sums, 0)] if is_dynamic(kept[0]) else []
                sums = b.expand_shape(sums, _unit_dims_reassociation(len(shape), dims), result_shape, sizes)
            else:  # 0-d to [1, ..., 1]: a one-element copy (xDSL rejects an empty reassociation)
                sums = elementwise(b, [sums], result_shape, element, lambda r, s: s)
        rewriter.replace(op, [], [sums])

    @staticmethod
    def count(b: TensorBuilder, x: SSAValue, dims: Sequence[int], element: Attribute) -> SSAValue:
        """prod of the reduced sizes, as a float of `element` (a dynamic one via tensor.dim)."""
        shape = shape_of(x)
        static = pymath.prod(shape[axis] for axis in dims if not is_dynamic(shape[axis]))
        if not any(is_dynamic(shape[axis]) for axis in dims):
            return b.constant(float(static), element)
        size = b.dim(x, 0)
        if static != 1:
            size = b.value(arith.MuliOp(size, b.index(static)))
        return b.value(arith.SIToFPOp(b.value(arith.IndexCastOp(size, i64)), element))


class AddmmToLinalg(RewritePattern):
    """y[m, n] = beta * bias[bcast(m, n)] + alpha * sum_k lhs[m, k] * rhs[k, n]

    beta = alpha = 1: `linalg.matmul` accumulating into the bias broadcast to [M, N] (a
    copy through `broadcast_read`, or the bias itself when it is [M, N]). Otherwise the
    matmul into zeros, then one generic `beta * bias + alpha * p` (beta = 0 never reads
    the bias, so its NaNs do not propagate, as PyTorch's). An empty contraction (K = 0)
    or alpha = 0 is the `beta * bias` term alone (PyTorch's BLAS call skips the product
    then, so an inf in lhs or rhs gives no NaN).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ew.AddmmOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        if _replace_if_empty(op, b, rewriter, [op.lhs]):
            return
        beta, alpha = op.beta, op.alpha
        out, element = shape_of(op.result), element_type_of(op.result)
        like = op.lhs if is_dynamic(out[0]) else None
        no_product = shape_of(op.lhs)[1] == 0 or alpha == 0.0

        def scaled(r: RegionBuilder, factor: float, value: SSAValue) -> SSAValue:
            return value if factor == 1.0 else r.mul(r.constant(factor, element), value)

        if beta == 0.0:
            if no_product:
                y = b.full(out, element, 0.0, like=like)
            else:
                y = b.matmul(op.lhs, op.rhs, b.full(out, element, 0.0, like=like))
                if alpha != 1.0:
                    y = b.generic(ins=[], init=y, maps=[identity(2)], iterators="pp", body=lambda r, p: scaled(r, alpha, p))
        elif no_product:
            same = tuple(shape_of(op.bias)) == tuple(out)
            y = op.bias if same and beta == 1.0 else elementwise(
                b, [op.bias], out, element, lambda r, c: scaled(r, beta, c), like=op.lhs
            )
        elif beta == 1.0 and alpha == 1.0:
            init = op.bias if tuple(shape_of(op.bias)) == tuple(out) else elementwise(
                b, [op.bias], out, element, lambda r, c: c, like=op.lhs
            )
            y = b.matmul(op.lhs, op.rhs, init)
        else:
            product = b.matmul(op.lhs, op.rhs, b.full(out, element, 0.0, like=like))
            y = elementwise(
                b, [op.bias, product], out, element,
                lambda r, c, p: r.add(scaled(r, beta, c), scaled(r, alpha, p)),
            )
        rewriter.replace(op, [], [y])
