"""Which RLX ops have a JVP rule: the gap is listed here, so it is visible and shrinks.

`test_rule_coverage.py` requires a VJP rule of every op; forward mode lands family by
family, and `WITHOUT_JVP_RULE` names the ops still missing one. An op that gains a rule
must leave the list (the test fails otherwise), and a new op must have a rule or join it.
"""

from rlx_mlir.autodiff.forward import JVP_RULES
from rlx_mlir.dialects import rlx

WITHOUT_JVP_RULE: set[str] = set()


def test_the_ops_without_a_jvp_rule_are_the_listed_ones():
    missing = {op.name for op in rlx.RLX.operations if op not in JVP_RULES}
    assert missing == WITHOUT_JVP_RULE, (
        f"gained a rule (remove from the list): {sorted(WITHOUT_JVP_RULE - missing)}; "
        f"new ops without one: {sorted(missing - WITHOUT_JVP_RULE)}"
    )


def test_a_ranked_family_registers_one_rule_for_every_rank():
    assert JVP_RULES[rlx.Conv1dOp] is JVP_RULES[rlx.Conv2dOp] is JVP_RULES[rlx.Conv3dOp]
    assert all(JVP_RULES[op] is JVP_RULES[rlx.MaxPool2dOp] for op in rlx.MAX_POOL)
