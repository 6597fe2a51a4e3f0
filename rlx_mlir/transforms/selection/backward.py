"""Lowering of clamp's gradient: one all-parallel `linalg.generic`."""

from __future__ import annotations

import math

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import selection as sel
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, element_type_of, shape_of
from rlx_mlir.transforms.elementwise.forward import elementwise


class ClampBackwardToLinalg(RewritePattern):
    """dx[*i] = lo <= x[*i] && x[*i] <= hi ? dy[*i] : 0

    Ordered compares: a NaN input gets 0, as ATen's mask `(x >= min) & (x <= max)` gives;
    an infinite (absent) bound tests nothing, and the other one still rejects NaN.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sel.ClampBackwardOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        low, high = op.min, op.max

        def body(r: RegionBuilder, dy: SSAValue, x: SSAValue) -> SSAValue:
            tests = [r.cmpf("oge", x, r.constant(low, x.type))] if not math.isinf(low) else []
            tests += [r.cmpf("ole", x, r.constant(high, x.type))] if not math.isinf(high) else []
            inside = tests[0] if len(tests) == 1 else r.and_(*tests)
            return r.select(inside, dy, r.constant(0.0, dy.type))

        dx = elementwise(b, [op.grad_output, op.input], shape_of(op.result), element_type_of(op.result), body)
        rewriter.replace(op, [], [dx])
