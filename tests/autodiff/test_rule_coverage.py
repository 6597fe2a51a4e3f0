"""Every op of the RLX dialect has a VJP rule, so the dialect is closed under
differentiation: an op added to `rlx_mlir.dialects.rlx.RLX` without one fails here, not
at a user's second derivative."""

import rlx_mlir.autodiff.families  # noqa: F401  (registers every rule)
from rlx_mlir.autodiff import RULES
from rlx_mlir.dialects import rlx


def test_every_dialect_op_has_a_vjp_rule():
    ops = list(rlx.RLX.operations)
    assert len(ops) >= 106
    missing = sorted(op.name for op in ops if op not in RULES)
    assert not missing, f"ops without a VJP rule: {', '.join(missing)}"
