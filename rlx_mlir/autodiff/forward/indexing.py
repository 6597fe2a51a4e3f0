"""JVP rules of the indexing ops: each reads or writes data at positions, linearly.

    embedding(weight, i), gather(x, i), index_select(x, i), index(x, i...): linear in the
    table read, the same read of its tangent
    embedding_backward(dy, i), scatter_value(x, i): linear in the data, the same op of its tangent
    scatter_add(x, i, src), scatter(x, i, src), index_put(x, i..., v): linear in (x, src)
    together, the same op of both tangents (a zero splat for one without)

The positions are integers and carry no tangent.
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jointly_linear, jvp_rule, product_rule
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.EmbeddingOp, rlx.EmbeddingBackwardOp, rlx.GatherOp, rlx.IndexSelectOp, rlx.ScatterValueOp)
def read(b, op, data_dot, *_position_dots):
    return (product_rule(b, op, data_dot, *_position_dots, linear=[0]),)


@jvp_rule(rlx.ScatterAddOp, rlx.ScatterOp)
def scatter(b, op, x_dot, _index_dot, src_dot):
    return (jointly_linear(b, op, x_dot, _index_dot, src_dot, linear=[0, 2]),)


@jvp_rule(rlx.IndexOp)
def index(b, op, x_dot, *_index_dots):
    return (x_dot and b.build(rlx.IndexOp, [x_dot, list(op.indices)], op.results[0]),)


@jvp_rule(rlx.IndexPutOp)
def index_put(b, op, x_dot, *dots):
    values_dot = dots[-1]
    if x_dot is None and values_dot is None:
        return (None,)
    x_dot = x_dot or b.zeros(op.input.type)
    values_dot = values_dot or b.zeros(op.values.type)
    return (b.build(rlx.IndexPutOp, [x_dot, list(op.indices), values_dot], op.results[0], accumulate=op.accumulate),)
