"""`rlx_mlir.compile`: a training graph as the user wrote it, in; callable native code, out.

RLX input goes through our passes first (backward ops, then forward ops, to upstream
linalg/tensor/arith); IR that is already lowered passes through untouched. The backend
then builds (or fetches from its cache) a shared library.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from rlx_mlir.backend import NativeModule, compile_module
from rlx_mlir.ir import make_context, parse_module, verify_module


def lower_to_linalg(source: str | Operation, name: str = "<string>") -> ModuleOp:
    """Parse (if text), verify, and run `decompose-backward` then `convert-rlx-to-linalg`."""
    from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    ctx = make_context()
    if isinstance(source, str):
        module = parse_module(ctx, source, name)
    else:
        assert isinstance(source, ModuleOp), "compile takes MLIR text or an xDSL ModuleOp"
        module = source.clone()
        verify_module(module)
    for pass_ in (DecomposeBackwardPass(), ConvertRlxToLinalgPass()):
        pass_.apply(ctx, module)
        verify_module(module)
    return module


def compile(source: str | Operation, pipeline: str | None = None) -> NativeModule:  # noqa: A001
    """Compile MLIR text or an xDSL module to native code: `compile(src)["f"](*arrays)`."""
    module = lower_to_linalg(source)
    return compile_module(module) if pipeline is None else compile_module(module, pipeline)
