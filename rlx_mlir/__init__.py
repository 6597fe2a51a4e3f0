"""rlx-mlir: RLX's training ops as an xDSL dialect, lowered to upstream MLIR and native code."""

__version__ = "0.1.0"


def compile(source, pipeline=None, outline=False):  # noqa: A001
    """Compile RLX or linalg MLIR (text or xDSL module) to native code; see `rlx_mlir.api`."""
    from rlx_mlir.api import compile as _compile

    return _compile(source, pipeline, outline=outline)
