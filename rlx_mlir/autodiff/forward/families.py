"""Every family's JVP rules, imported for their registration (`rules.jvp_rule`)."""

from rlx_mlir.autodiff.forward import activation, attention, comparison, conv, creation, elementwise, indexing, layout, loss, matmul, norm, pool, quantization, rope, scan, selection  # noqa: F401
