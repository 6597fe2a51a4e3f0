"""rlx-mlir: RLX's training ops as an xDSL dialect, lowered to upstream MLIR and native code."""

__version__ = "0.1.0"


def compile(source, pipeline=None, outline=False):  # noqa: A001
    """Compile RLX or linalg MLIR (text or xDSL module) to native code; see `rlx_mlir.api`."""
    from rlx_mlir.api import compile as _compile  # on first use: `import rlx_mlir` stays light

    return _compile(source, pipeline, outline=outline)


def __getattr__(name: str):
    # `rlx_mlir.autodiff(source, func, wrt=None)`: the subpackage, whose module is callable
    # (see rlx_mlir/autodiff/__init__.py); imported on first use, as `compile` imports the API.
    if name == "autodiff":
        import rlx_mlir.autodiff  # on first use, as `compile` imports the API

        return rlx_mlir.autodiff
    raise AttributeError(f"module 'rlx_mlir' has no attribute {name!r}")
