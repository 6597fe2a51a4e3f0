"""Batched products in `linalg.batch_matmul`'s form, for every lowering that has them.

    y[i, m, n] = init[i, m, n] + sum_k a[i, m, k] * c[i, k, n]

A generic with exactly these maps (xDSL has no `linalg.batch_matmul`): the optimizing
schedule (backend/schedules/batch_matmul.mlir) specializes it to the named op and
vectorizes it along n, where both c and y are contiguous. A product with a transposed
operand is written with the operand transposed first, so that it takes the same schedule.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from rlx_mlir.transforms.builders import TensorBuilder


def batch_matmul(b: TensorBuilder, a: SSAValue, c: SSAValue, init: SSAValue) -> SSAValue:
    """init + a . c over a leading batch dim: [I, M, K] . [I, K, N] -> [I, M, N]."""
    return b.generic(
        ins=[a, c],
        init=init,
        maps=[
            lambda i, m, n, k: (i, m, k),
            lambda i, m, n, k: (i, k, n),
            lambda i, m, n, k: (i, m, n),
        ],
        iterators="pppR",
        body=lambda r, a_, c_, acc: r.add(acc, r.mul(a_, c_)),
    )
