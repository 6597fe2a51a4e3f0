"""Every family's VJP rules, imported for their registration (`rules.vjp_rule`)."""

from rlx_mlir.autodiff import conv, matmul, pool  # noqa: F401
