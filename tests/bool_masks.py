"""Bool (i1) tensors in natively compiled tests, which MLIR 22 cannot store.

MLIR 22's MemRefToLLVM asserts that a loaded or stored element is at least 8 bits wide,
so no i1 tensor may reach bufferization: functions take and return bools as i8 (NumPy's
bool is one byte). A test converts an i8 argument to i1 with `to_i1` and an i1 result to
i8 with `to_i8` (plain `linalg.generic`s, no RLX op), and compiles with `compile_fused`,
which runs upstream `--linalg-fuse-elementwise-ops` on the lowered module so that those
conversions fold into the generics that read or write the bools: the i1 values stay
scalars inside one loop body. Upstream fusion only fuses a producer with one use, so a
generic that makes bools for several readers (a mask a VJP reads twice) is first cloned
for each reader (`one_bool_producer_per_use`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.dialects.linalg.ops import GenericOp

from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend import toolchain
from rlx_mlir.backend.compile import compile_module


def tensor(shape, element: str, dynamic: bool = False) -> str:
    dims = ["?" if dynamic and i == 0 else str(d) for i, d in enumerate(shape)]
    return f"tensor<{''.join(d + 'x' for d in dims)}{element}>"


def _convert(name: str, shape, dynamic: bool, to_bool: bool) -> tuple[str, str]:
    src, dst = ("i8", "i1") if to_bool else ("i1", "i8")
    t_src, t_dst = tensor(shape, src, dynamic), tensor(shape, dst, dynamic)
    dims = ", ".join(f"d{i}" for i in range(len(shape)))
    identity = f"affine_map<({dims}) -> ({dims})>"
    iterators = ", ".join(['"parallel"'] * len(shape))
    out = f"{name}_{dst}"
    size = f"%{name}_n" if dynamic else ""
    convert = "%z = arith.constant 0 : i8\n    %t = arith.cmpi ne, %in, %z : i8" if to_bool else "%t = arith.extui %in : i1 to i8"
    text = (
        (f"  %{name}_c0 = arith.constant 0 : index\n  %{name}_n = tensor.dim %{name}, %{name}_c0 : {t_src}\n" if dynamic else "")
        + f"  %{name}_e = tensor.empty({size}) : {t_dst}\n"
        + f"  %{out} = linalg.generic {{indexing_maps = [{identity}, {identity}], iterator_types = [{iterators}]}}"
        + f" ins(%{name} : {t_src}) outs(%{name}_e : {t_dst}) {{\n"
        + f"  ^bb0(%in: {src}, %o: {dst}):\n    {convert}\n    linalg.yield %t : {dst}\n  }} -> {t_dst}\n"
    )
    return text, out


def to_i1(name: str, shape, dynamic: bool = False) -> tuple[str, str]:
    """IR making the i8 tensor `%name` an i1 tensor (`x != 0`): (the text, the new value's name)."""
    return _convert(name, shape, dynamic, to_bool=True)


def to_i8(name: str, shape, dynamic: bool = False) -> tuple[str, str]:
    """IR making the i1 tensor `%name` an i8 tensor of 0 and 1: (the text, the new value's name)."""
    return _convert(name, shape, dynamic, to_bool=False)


def _makes_bools(op) -> bool:
    return isinstance(op, GenericOp) and any(
        isinstance(r.type, TensorType) and r.type.element_type == IntegerType(1) for r in op.results
    )


def one_bool_producer_per_use(module) -> None:
    """Give every reader of a bool-making generic its own copy of it."""
    for op in list(module.walk()):
        if not _makes_bools(op):
            continue
        for result in op.results:
            for use in list(result.uses)[1:]:
                copy = op.clone()
                op.parent_block().insert_op_before(copy, use.operation)
                use.operation.operands[use.index] = copy.results[result.index]


def compile_fused(source):
    """`source` (text or module) lowered to linalg, its elementwise generics fused upstream
    (after a canonicalization that drops the `tensor.dim`s of the values to fuse, each of
    which would otherwise be a second use), compiled natively with the default pipeline."""
    module = lower_to_linalg(source)
    one_bool_producer_per_use(module)
    linalg = str(module)
    mlir_opt = str(toolchain.find_tool("mlir-opt").path)
    fused = toolchain.run("fuse", [mlir_opt, "--canonicalize", "--linalg-fuse-elementwise-ops", "--canonicalize"], input=linalg)
    return compile_module(fused)
