"""`rlx_mlir.compile`: a training graph as the user wrote it, in; callable native code, out.

RLX input goes through our passes first (backward ops, then forward ops, to upstream
linalg/tensor/arith); IR that is already lowered passes through untouched. The backend
then builds (or fetches from its cache) a shared library.

The verifiers of the RLX ops allow only the batch to be dynamic, and assume that the
operands of one op share it. Compiled code cannot check that, so the arguments whose batch
meets in an RLX op are marked (`rlx_mlir.batch_group`) and the runtime refuses a call whose
batch sizes disagree instead of reading out of bounds.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Operation, SSAValue

from rlx_mlir import compile_memo
from rlx_mlir.backend import NativeModule, compile_module
from rlx_mlir.backend.interface import BATCH_GROUP_ATTR
from rlx_mlir.dialects.layout import ReshapeOp
from rlx_mlir.ir import make_context, parse_module, verify_module, verify_pass_output
from rlx_mlir.kernel_graph import compile_as_kernels
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass
from rlx_mlir.transforms.options import StridedConv
from rlx_mlir.transforms.outline_kernels import outline_kernels


def lower_to_linalg(
    source: str | Operation, name: str = "<string>", outline: bool = False, strided_conv: StridedConv = "phases"
) -> ModuleOp:
    """Parse (if text), verify, and run `decompose-backward` then `convert-rlx-to-linalg`.

    This is the native backend's lowering: strided convs become stride-1 phase convs by
    default (`strided-conv=phases`, which the backend's schedules vectorize);
    `strided_conv="direct"` gives `rlx-opt`'s default form instead.

    With `outline`, each RLX op is first put in its own kernel function, one per distinct
    op (`transforms.outline_kernels`): what a large graph (a whole training step) needs
    to compile in seconds rather than minutes.

    The input's errors are the user's (`DiagnosticError`); once it has verified, a pass
    whose output does not verify is a bug of ours (`InternalError`).
    """
    ctx = make_context()
    if isinstance(source, str):
        module = parse_module(ctx, source, name)
    else:
        assert isinstance(source, ModuleOp), "compile takes MLIR text or an xDSL ModuleOp"
        module = source.clone()
        verify_module(module)
    if outline:

        outline_kernels(module)
    mark_batch_groups(module)
    for pass_ in (DecomposeBackwardPass(), ConvertRlxToLinalgPass(strided_conv=strided_conv)):
        pass_.apply(ctx, module)
        verify_pass_output(module, pass_.name)
    return module


def mark_batch_groups(module: ModuleOp) -> None:
    """Give arguments whose dynamic batch meets in an RLX op one `rlx_mlir.batch_group`.

    A union-find over the values with a dynamic leading dimension: the operands and results
    of one RLX op share it, except the result of `rlx.im2col`, whose rows are
    batch x output pixels, and of a reshape that merges the batch with other dims or splits
    it (`view(-1, V)`: [B, T, V] -> [B*T, V]).
    """
    parent: dict[SSAValue, SSAValue] = {}

    def find(value: SSAValue) -> SSAValue:
        while parent.setdefault(value, value) is not value:
            value = parent[value]
        return value

    def batched(value: SSAValue) -> bool:
        shape = value.type.get_shape() if isinstance(value.type, TensorType) else ()
        return bool(shape) and shape[0] == DYNAMIC_INDEX

    for function in module.walk():
        if not isinstance(function, func.FuncOp) or not function.body.blocks:
            continue
        for op in function.walk():
            if not op.name.startswith("rlx."):
                continue
            scaled = op.name == "rlx.im2col" or (isinstance(op, ReshapeOp) and op.scales_the_batch())
            results = () if scaled else op.results
            values = [v for v in (*op.operands, *results) if batched(v)]
            for value in values[1:]:
                parent[find(value)] = find(values[0])
        groups: dict[SSAValue, list[int]] = {}
        for index, arg in enumerate(function.args):
            if arg in parent:
                groups.setdefault(find(arg), []).append(index)
        tied = [group for group in groups.values() if len(group) > 1]
        if not tied:
            continue
        attrs = [dict(d.data) for d in function.arg_attrs.data] if function.arg_attrs else [
            {} for _ in function.args
        ]
        for number, group in enumerate(tied):
            for index in group:
                attrs[index][BATCH_GROUP_ATTR] = IntegerAttr(number, i64)
        function.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in attrs])


def compile(source: str | Operation, pipeline: str | None = None, outline: bool = False) -> NativeModule:  # noqa: A001
    """Compile MLIR text or an xDSL module to native code: `compile(src)["f"](*arrays)`.

    `outline=True` compiles each distinct RLX op as its own kernel and runs each function
    that only calls them as a graph of native calls (`rlx_mlir.kernel_graph`): a large
    graph (a whole training step) then compiles in linear time.

    A source compiled before (same text, options, code and machine) is not lowered again:
    `rlx_mlir.compile_memo` remembers which cached libraries it became.
    """
    key = compile_memo.memo_key(source, pipeline, outline, "phases")
    compiled = compile_memo.recall(key)
    if compiled is not None:
        return compiled
    if outline:
        compiled = compile_as_kernels(lower_to_linalg(source, outline=True), pipeline)
    else:
        compiled = compile_module(lower_to_linalg(source), pipeline)
    compile_memo.remember(key, compiled)
    return compiled
