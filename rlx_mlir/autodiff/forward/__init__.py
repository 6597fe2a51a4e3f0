"""Forward-mode differentiation of RLX functions: the `jvp` pass.

`sweep` holds the tangent sweep and the pass, `rules` the rule registry and the identities
the rules share, and one module per op family (the reverse rules' family names) its rules.
Importing this package registers every rule (`families`).
"""

from rlx_mlir.autodiff.forward import families  # noqa: F401  (registers every family's rules)
from rlx_mlir.autodiff.forward.rules import JVP_RULES, jvp_rule
from rlx_mlir.autodiff.forward.sweep import JvpPass, jvp, linearize

__all__ = ["JVP_RULES", "JvpPass", "jvp", "jvp_rule", "linearize"]
