"""Every op of the RLX dialect has a VJP rule, so the dialect is closed under
differentiation: an op added to `rlx_mlir.dialects.rlx.RLX` without one fails here, not
at a user's second derivative."""

import subprocess
import sys

from rlx_mlir.autodiff import RULES
from rlx_mlir.dialects import rlx


def test_every_dialect_op_has_a_vjp_rule():
    ops = list(rlx.RLX.operations)
    assert len(ops) >= 106
    missing = sorted(op.name for op in ops if op not in RULES)
    assert not missing, f"ops without a VJP rule: {', '.join(missing)}"


def test_importing_the_package_registers_every_rule():
    """No pass has to run first: `import rlx_mlir.autodiff` (here in a fresh interpreter) registers them all."""
    code = (
        "from rlx_mlir.autodiff import RULES; from rlx_mlir.dialects import rlx; "
        "print(sum(op not in RULES for op in rlx.RLX.operations))"
    )
    missing = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert missing.strip() == "0"


def test_a_ranked_family_registers_one_rule_for_every_rank():
    assert RULES[rlx.Conv1dOp] is RULES[rlx.Conv2dOp] is RULES[rlx.Conv3dOp]
    assert all(RULES[op] is RULES[rlx.Col2im2dOp] for op in rlx.COL2IM)
