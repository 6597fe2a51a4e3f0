"""Every family's VJP rules, imported for their registration (`rules.vjp_rule`).

`rlx_mlir.autodiff` imports this module, so the rules are registered once the package is.
"""

from rlx_mlir.autodiff import activation, adjoint, attention, comparison, conv, creation, elementwise, indexing, layout, loss, matmul, norm, pool, quantization, rope, scan, selection  # noqa: F401
