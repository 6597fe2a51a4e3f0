"""`outline-kernels`: each RLX op becomes a call of a private kernel function, one kernel per
distinct op (its name, properties, and operand and result types).

Why: a training step imported from PyTorch is one function of hundreds of ops. Lowered
whole, it reaches LLVM as one huge function, and `opt -O3` spends superlinear time on it
(ResNet-18's step at batch 2, 64x64 ran past `opt`'s five-minute limit). Kernels are
small, are compiled once however often a model repeats them (ResNet's blocks, every
batch norm of one width), and keep each op's code apart, as IREE's dispatch regions do.
The kernels take and return tensors, are `private`, and keep the op's location, so a
later diagnostic still points at the user's line. `rlx_mlir.compile(..., outline=True)`
compiles them as public functions and runs the calling function as a graph of kernel
calls (`rlx_mlir.kernel_graph`, which says why the calls are not compiled).

Identical ops (same op, properties and operand values) are merged first (xDSL's CSE; every
RLX op is a pure function, `NoMemoryEffect`): a step that differentiates inside itself
repeats whole subexpressions (66 of the 306 ops of a PINN's step), and each would
otherwise be one more kernel call and one more buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import cse


def _kernel_key(op: Operation) -> tuple:
    """What makes two RLX ops the same kernel: everything but their operands' values."""
    return (
        op.name,
        tuple(sorted((name, str(attr)) for name, attr in op.properties.items())),
        tuple(str(v.type) for v in op.operands),
        tuple(str(r.type) for r in op.results),
    )


def _kernel(op: Operation, name: str) -> func.FuncOp:
    """`func.func private @name(operands) -> results` holding a copy of `op`."""
    block = Block(arg_types=[v.type for v in op.operands])
    body = op.clone()
    for index, arg in enumerate(block.args):
        body.operands[index] = arg
    block.add_ops([body, func.ReturnOp(*body.results)])
    function = func.FuncOp(
        name,
        ([v.type for v in op.operands], [r.type for r in op.results]),
        Region(block),
        visibility="private",
    )
    function.location = op.location
    return function


def outline_kernels(module: ModuleOp) -> int:
    """Merge identical ops, then outline every RLX op of every function in `module`;
    returns the number of kernels."""
    cse(module)
    kernels: dict[tuple, func.FuncOp] = {}
    taken = {op.sym_name.data for op in module.body.block.ops if isinstance(op, func.FuncOp)}
    for function in [op for op in module.body.block.ops if isinstance(op, func.FuncOp)]:
        for op in [op for op in function.walk() if op.name.startswith("rlx.")]:
            key = _kernel_key(op)
            if key not in kernels:
                name = f"{op.name.removeprefix('rlx.')}_kernel_{len(kernels)}"
                while name in taken:
                    name += "_"
                taken.add(name)
                kernels[key] = _kernel(op, name)
                module.body.block.add_op(kernels[key])
            call = func.CallOp(kernels[key].sym_name.data, list(op.operands), [r.type for r in op.results])
            call.location = op.location
            parent = op.parent_block()
            assert parent is not None
            parent.insert_op_before(call, op)
            for old, new in zip(op.results, call.results):
                old.replace_all_uses_with(new)
            op.detach()
            op.erase()
    return len(kernels)


@dataclass(frozen=True)
class OutlineKernelsPass(ModulePass):
    """Put each RLX op in its own private function, one per distinct op.

    Legal after it: the same ops as before, each RLX op alone in a kernel function; run
    `decompose-backward` and `convert-rlx-to-linalg` after it as before.
    """

    name = "outline-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        outline_kernels(op)
