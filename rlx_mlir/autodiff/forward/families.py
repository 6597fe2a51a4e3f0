"""Every family's JVP rules, imported for their registration (`rules.jvp_rule`)."""

from rlx_mlir.autodiff.forward import activation, comparison, conv, creation, elementwise, layout, loss, matmul, pool, selection  # noqa: F401
