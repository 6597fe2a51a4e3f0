"""VJP rules of the indexing family: the embedding and its gradient, gather, the scatters, index and index_put.

    y = gather(x, t):          x_bar = scatter_add(0, t, y_bar)
    y = scatter_add(x, t, s):  x_bar = y_bar,  s_bar = gather(y_bar, t) (zeros beyond the index's extent)
    y = scatter(x, t, s):      x_bar = scatter_value(y_bar, t, 0),  s_bar = gather(y_bar, t) (as scatter_add's)
    y = scatter_value(x, t):   x_bar = scatter_value(y_bar, t, 0)
    y = index_select(x, t):    x_bar = scatter_add(0, T, y_bar),  T = t along dim, expanded to y's shape
    y = index(x, I):           x_bar = index_put(0, I, y_bar, accumulate)
    y = index_put(x, I, v):    x_bar = y_bar (accumulate) or index_put(y_bar, I, 0) (the written positions zeroed),
                               v_bar = index(y_bar, I), summed to v's shape where v was broadcast

index and index_put (in v, with accumulate) are each other's adjoint as gather and
scatter_add are, out-of-range positions included. Without accumulate, a repeated position
keeps only its last write in y, yet every repeat gets index(y_bar, I) as PyTorch's.

gather and scatter_add (in src) are each other's adjoint: <gather(x, t), g> sums
x[p|t[p]] g[p] over p, and so does <x, scatter_add(0, t, g)>; an out-of-range index is 0 in
one and dropped in the other, so it stays an exact adjoint there too.

    y = embedding(w, t):           w_bar = embedding_backward(y_bar, t)  (same padding_idx, scale_grad_by_freq)
    gw = embedding_backward(dy, t): dy_bar[*i] = q[t[*i]] * gw_bar[t[*i]] = embedding(q * gw_bar, t)[*i]

embedding_backward is linear in dy, gw[v] = sum_{*i: t[*i] = v} q[v] dy[*i] with the row
factor q[v] = [v != padding_idx] * s(v), s(v) = 1/count(v) with scale_grad_by_freq (else 1);
its adjoint gathers gw_bar's rows and scales each by the same factor. PyTorch's own double
backward (`embedding_dense_double_backward`) zeroes the padding rows but leaves out s(v),
so it differs from this exact adjoint when scale_grad_by_freq meets a repeated index.

q is built from embedding_backward itself, with ones for dy ([*t.shape, 1]):
    a = embedding_backward(1, t, padding_idx, scale=True)[v] = [v != padding_idx] * [count(v) > 0]
    count = embedding_backward(1, t)[v]
    q = a (no scaling) or a / max(count, 1)
Only rows some index names are ever gathered, and for them these are the factor above; the
max keeps the rows no index names at 0 rather than 0/0, so that the next order, which
multiplies by q, stays finite. The indices (integers) get no cotangent.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.autodiff.rules import vjp_rule
from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.indexing import NO_PADDING
from rlx_mlir.dialects.indexing.advanced import broadcast_shapes
from rlx_mlir.ir import DiagnosticError, format_location


@vjp_rule(rlx.EmbeddingOp)
def embedding(b, op, y_bar):
    """y = embedding(w, t): w_bar = embedding_backward(y_bar, t), with the op's padding_idx and scaling."""
    return b.like(op, rlx.EmbeddingBackwardOp, [y_bar, op.indices], op.weight), None


def _row_factor(b, op):
    """q [V, 1] (see the module docstring), or None when it is 1 for every row."""
    if op.padding_idx == NO_PADDING and not op.scale_grad_by_freq:
        return None
    shape = (*op.indices.type.get_shape(), 1)
    if any(size < 0 for size in shape):
        raise DiagnosticError(
            f"'{op.name}' op with padding_idx or scale_grad_by_freq has a VJP rule for static indices only, "
            f"got {op.indices.type}",
            format_location(op),
        )
    element = op.grad_output.type.element_type
    ones = b.ones(TensorType(element, shape))
    column = TensorType(element, [op.result.type.get_shape()[0], 1])
    named = b.build(rlx.EmbeddingBackwardOp, [ones, op.indices], column, padding_idx=op.padding_idx, scale_grad_by_freq=True)
    if not op.scale_grad_by_freq:
        return named
    counts = b.build(rlx.EmbeddingBackwardOp, [ones, op.indices], column)
    return b.div(named, b.binary(rlx.MaximumOp, counts, b.scalar(1.0, counts)))


@vjp_rule(rlx.EmbeddingBackwardOp)
def embedding_backward(b, op, gw_bar):
    """Linear in dy: dy_bar = embedding(q * gw_bar, t), the padding row and the frequency scaling in q."""
    factor = _row_factor(b, op)
    scaled = gw_bar if factor is None else b.mul(gw_bar, factor)
    return b.build(rlx.EmbeddingOp, [scaled, op.indices], op.grad_output), None


@vjp_rule(rlx.GatherOp)
def gather(b, op, y_bar):
    """y = gather(x, t): x_bar = scatter_add(0, t, y_bar) (a zero input needs its static shape)."""
    return b.like(op, rlx.ScatterAddOp, [b.zeros(op.input.type), op.index, y_bar], op.input), None


def _src_bar(b, op, y_bar):
    """gather(y_bar, t), padded with zeros (`slice_backward`) to src's shape where src is larger than the index."""
    index_shape = op.index.type.get_shape()
    s_bar = b.like(op, rlx.GatherOp, [y_bar, op.index], TensorType(y_bar.type.element_type, index_shape))
    for axis, (size, full) in enumerate(zip(index_shape, op.src.type.get_shape())):
        if size != full:
            grown = TensorType(y_bar.type.element_type, [*op.src.type.get_shape()[: axis + 1], *index_shape[axis + 1:]])
            s_bar = b.build(rlx.SliceBackwardOp, [s_bar], grown, dim=axis, start=0, end=size)
    return s_bar


@vjp_rule(rlx.ScatterAddOp)
def scatter_add(b, op, y_bar):
    """y = x + scatter(t, s): x_bar = y_bar, s_bar = gather(y_bar, t), padded with zeros to src's shape."""
    return y_bar, None, _src_bar(b, op, y_bar)


@vjp_rule(rlx.ScatterOp)
def scatter(b, op, y_bar):
    """y = x with the written positions replaced by s: x_bar = y_bar with them zeroed
    (scatter_value 0), s_bar = gather(y_bar, t) as PyTorch's (exact for an index without
    repeats; with repeats only the winner reached y, yet every repeat gets its cotangent)."""
    return b.like(op, rlx.ScatterValueOp, [y_bar, op.index], op.input, value=0.0), None, _src_bar(b, op, y_bar)


@vjp_rule(rlx.ScatterValueOp)
def scatter_value(b, op, y_bar):
    """y = x with the written positions set to a constant: x_bar = y_bar with them zeroed."""
    return b.like(op, rlx.ScatterValueOp, [y_bar, op.index], op.input, value=0.0), None


@vjp_rule(rlx.IndexSelectOp)
def index_select(b, op, y_bar):
    """y = index_select(x, t) is gather(x, T) for T, t laid along dim and expanded to y's shape
    (`rlx.reshape`, `rlx.expand` of the i64 index): x_bar = scatter_add(0, T, y_bar)."""
    shape = op.result.type.get_shape()
    along = TensorType(op.index.type.element_type, [size if axis == op.dim else 1 for axis, size in enumerate(shape)])
    spread = op.index
    if along.get_shape() != tuple(op.index.type.get_shape()):
        spread = b.build(rlx.ReshapeOp, [spread], along)
    if tuple(shape) != along.get_shape():
        spread = b.build(rlx.ExpandOp, [spread], TensorType(op.index.type.element_type, shape))
    return b.like(op, rlx.ScatterAddOp, [b.zeros(op.input.type), spread, y_bar], op.input), None


def _index(b, op, source: SSAValue) -> SSAValue:
    """index(source, I) at op's indices: [*B, *source.shape[k:]] (B the indices' broadcast shape)."""
    k = len(op.indices)
    batch = broadcast_shapes([tuple(index.type.get_shape()) for index in op.indices], "index tensors")
    indexed = TensorType(source.type.element_type, [*batch, *source.type.get_shape()[k:]])
    return b.build(rlx.IndexOp, [source, list(op.indices)], indexed)


@vjp_rule(rlx.IndexOp)
def index(b, op, y_bar):
    """y = index(x, I): x_bar = index_put(0, I, y_bar, accumulate) (a zero input needs its static shape)."""
    x_bar = b.build(rlx.IndexPutOp, [b.zeros(op.input.type), list(op.indices), y_bar], op.input, accumulate=True)
    return (x_bar, *(None for _ in op.indices))


@vjp_rule(rlx.IndexPutOp)
def index_put(b, op, y_bar):
    """y = x with v put (or added) at I: x_bar = y_bar, or y_bar zeroed where written
    (index_put of a 0-d zero without accumulate); v_bar = index(y_bar, I) summed to v's shape."""
    x_bar = y_bar
    if not op.accumulate:
        zero = b.zeros(TensorType(y_bar.type.element_type, []))
        x_bar = b.build(rlx.IndexPutOp, [y_bar, list(op.indices), zero], op.input, accumulate=False)
    return (x_bar, *(None for _ in op.indices), b.sum_to(_index(b, op, y_bar), op.values))
