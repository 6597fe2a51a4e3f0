"""The RLX dialect (xDSL IRDL definitions)."""

from rlx_mlir.dialects.rlx import BACKWARD_OPS, FORWARD_OPS, RLX

__all__ = ["RLX", "FORWARD_OPS", "BACKWARD_OPS"]
