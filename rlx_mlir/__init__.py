"""rlx-mlir: RLX's training ops as an xDSL dialect, lowered to upstream MLIR and native code."""

__version__ = "0.1.0"
