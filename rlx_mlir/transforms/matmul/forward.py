"""`rlx.matmul` as linalg: `linalg.matmul`, or a batch-matmul generic when batched."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rlx
from rlx_mlir.transforms.builders import TensorBuilder, tensor_type
from rlx_mlir.transforms.matmul.batched import batch_matmul


class MatmulToLinalg(RewritePattern):
    """y[m, n] = sum_k a[m, k] * b[k, n];  batched: y[i, m, n] = sum_k a[i, m, k] * b[i, k, n]

    2-D: `linalg.matmul`. 3-D: a generic over (i, m, n, k) in `linalg.batch_matmul`'s form
    (xDSL has no such op); the optimizing schedule (batch_matmul.mlir) specializes it to
    the named op and vectorizes it, and mlir-opt's `linalg-specialize-generic-ops` does.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rlx.MatmulOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        out = tensor_type(op.result)
        init = b.full(out.get_shape(), out.element_type, 0.0, like=op.lhs)
        if len(out.get_shape()) == 2:
            y = b.matmul(op.lhs, op.rhs, init)
        else:
            y = batch_matmul(b, op.lhs, op.rhs, init)
        rewriter.replace(op, [], [y])
