"""JVP rules of the scans.

For h = linear_scan(a, x) along dim, h[t] = a[t] h[t-1] + x[t] with h[-1] = 0, so

    h_dot[t] = a[t] h_dot[t-1] + (a_dot[t] h[t-1] + x_dot[t]):  h_dot = linear_scan(a, a_dot * shift(h) + x_dot)

the same scan of the tangent's inputs (shift(h) is h one step behind along the scan, a zero
in front: `autodiff.scan.shifted`). The cumulative sum is linear: the cumsum of the tangent.
"""

from __future__ import annotations

from rlx_mlir.autodiff.forward.rules import jvp_rule, product_rule, replaced, total
from rlx_mlir.autodiff.scan import shifted
from rlx_mlir.dialects import rlx


@jvp_rule(rlx.LinearScanOp)
def linear_scan(b, op, a_dot, x_dot):
    h = op.results[0]
    behind = a_dot and b.mul(a_dot, shifted(b, h, op.dim, -1 if op.reverse else 1))
    return (replaced(b, op, 1, total(b, [behind, x_dot], h)),)


@jvp_rule(rlx.CumsumOp)
def cumsum(b, op, x_dot):
    return (product_rule(b, op, x_dot),)
