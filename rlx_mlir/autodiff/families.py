"""Every family's VJP rules, imported for their registration (`rules.vjp_rule`)."""

from rlx_mlir.autodiff import activation, conv, elementwise, layout, loss, matmul, norm, pool  # noqa: F401
