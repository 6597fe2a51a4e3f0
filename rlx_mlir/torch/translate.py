"""The joint ATen graph as the `func.func @training_step` of RLX ops, built with xDSL.

`Emitter` walks the graph with the one converter table (`rlx_mlir.torch.aten.CONVERTERS`,
keyed by OpOverload); this module gives the block it fills the training step's signature.
The function's arguments are the emitter's (parameters, buffers, x and target, one mask
per random op, the lifted constants); its results are the loss, the parameter gradients
(zeros for a parameter the loss does not depend on) and the updated buffers, in signature
order.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Region

from rlx_mlir.torch.aten import CONVERTERS
from rlx_mlir.torch.emitter import ELEMENT_TYPES, NUMPY_DTYPES, Emitter, OnlyFor, RandomMask
from rlx_mlir.torch.graph import JointGraph

FUNCTION_NAME = "training_step"

__all__ = ["translate", "step_function", "FUNCTION_NAME", "Emitter", "OnlyFor", "RandomMask", "ELEMENT_TYPES",
           "NUMPY_DTYPES"]


def translate(joint: JointGraph) -> tuple[ModuleOp, Emitter]:
    """The module holding the training step, and the emitter that built it (its masks)."""
    emitter = Emitter(joint)
    emitter.walk(CONVERTERS)
    return ModuleOp([step_function(emitter)]), emitter


def step_function(emitter: Emitter) -> func.FuncOp:
    """`@training_step(arguments) -> (loss, gradients..., updated buffers...)` of a walked graph."""
    joint = emitter.joint
    results = [emitter.result(joint.loss)]
    for node, name in joint.parameters:
        gradient = joint.gradients.get(name)
        results.append(emitter.constant(0, emitter.type_of(node)) if gradient is None else emitter.result(gradient))
    results += [emitter.result(node) for node in joint.buffer_updates.values()]
    emitter.append(func.ReturnOp(*results))
    function_type = FunctionType.from_lists([arg.type for arg in emitter.block.args], [value.type for value in results])
    return func.FuncOp(FUNCTION_NAME, function_type, Region(emitter.block))
