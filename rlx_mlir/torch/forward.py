"""`export_forward`: a PyTorch model's forward and loss (no backward) as RLX, to be
differentiated by the autodiff pass rather than by PyTorch.

    fwd = export_forward(model, (x, target), loss_fn=torch.nn.functional.cross_entropy)
    fwd.module, fwd.mlir                   # @forward_loss(params, buffers, x, target, constants) -> loss
    module = rlx_mlir.autodiff(fwd.module, fwd.function_name, wrt=fwd.parameter_indices)
    # @forward_loss_vjp(<those arguments>, loss_bar) -> one gradient per parameter

This is the second route to a model's gradients, independent of PyTorch's backward: the
training step (`step.export_training_step`) imports the joint graph PyTorch's autograd
traced, this module imports only steps 1-2 of that route (graph.py's docstring: the
exported program, decomposed with the same table) and leaves the backward to the RLX VJP
rules. It reuses graph.py's export, the importer's `Emitter` (emitter.py) and its
converter table as they are; only the function's signature differs: its one result is the
loss (the updated running statistics of a training-mode batch norm are the optimizer's
state, not something to differentiate).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, Region
from xdsl.printer import Printer
from torch.export.graph_signature import InputKind, OutputKind

from rlx_mlir.errors import UserTypeError
from rlx_mlir.torch.aten import CONVERTERS, SUPPORTED
from rlx_mlir.torch.emitter import Emitter
from rlx_mlir.torch.errors import UnsupportedGraph
from rlx_mlir.torch.graph import JointGraph, TrainStep, _model_name, decomposition_table, forward_provenance
from rlx_mlir.torch.step import check_forward

FORWARD_FUNCTION_NAME = "forward_loss"


def export_forward(
    model: torch.nn.Module,
    example_inputs: tuple[torch.Tensor, torch.Tensor],
    loss_fn: Callable = torch.nn.functional.cross_entropy,
) -> ForwardLoss:
    """`loss_fn(model(x), target)` as `@forward_loss`, traced in the mode the model is in.

    Unsupported ops, dtypes and dynamic sizes raise `UnsupportedGraph` with the user's
    module and source line, as `export_training_step` does.
    """
    if not isinstance(model, torch.nn.Module):
        raise UserTypeError(f"export_forward takes a torch.nn.Module, got {type(model).__name__}")
    if not (isinstance(example_inputs, (tuple, list)) and len(example_inputs) == 2):
        raise UserTypeError("example_inputs must be the pair (x, target)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            program = torch.export.export(TrainStep(model, loss_fn), tuple(example_inputs))
            program = program.run_decompositions(decomposition_table(SUPPORTED))
    except Exception as error:  # torch.export's own refusal
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UnsupportedGraph(f"torch.export cannot trace the forward: {first}") from error
    provenance = forward_provenance(program.graph)
    check_forward(program.graph, provenance)
    graph = _read_forward_signature(program, provenance)
    emitter = Emitter(graph)
    emitter.walk(CONVERTERS)
    return ForwardLoss(model, ModuleOp([forward_function(emitter)]), graph, emitter)


def _read_forward_signature(program, provenance) -> JointGraph:
    """The forward program's inputs and its loss, in the JointGraph the Emitter reads
    (no gradients; the buffer mutations are left out of the function's results)."""
    graph = program.graph
    placeholders = {node.name: node for node in graph.nodes if node.op == "placeholder"}
    parameters, buffers, user_inputs, constants = [], [], [], []
    for spec in program.graph_signature.input_specs:
        node = placeholders[spec.arg.name]
        if spec.kind == InputKind.PARAMETER:
            parameters.append((node, _model_name(spec.target)))
        elif spec.kind == InputKind.BUFFER:
            buffers.append((node, _model_name(spec.target)))
        elif spec.kind == InputKind.USER_INPUT:
            user_inputs.append(node)
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            constants.append((node, spec.target, program.constants[spec.target].detach().clone()))
        else:
            raise UnsupportedGraph(f"the forward has an input of kind {spec.kind.name} ({spec.target})")
    outputs = list(graph.output_node().args[0])
    losses = [node for spec, node in zip(program.graph_signature.output_specs, outputs)
              if spec.kind == OutputKind.USER_OUTPUT]
    if len(losses) != 1:
        raise UnsupportedGraph(f"the forward returns {len(losses)} values; the loss must be its one output")
    return JointGraph(graph, parameters, buffers, user_inputs, losses[0], {}, {}, constants, provenance)


def forward_function(emitter: Emitter) -> func.FuncOp:
    """`@forward_loss(arguments) -> loss` of a walked forward graph."""
    loss = emitter.result(emitter.joint.loss)
    emitter.append(func.ReturnOp(loss))
    function_type = FunctionType.from_lists([arg.type for arg in emitter.block.args], [loss.type])
    return func.FuncOp(FORWARD_FUNCTION_NAME, function_type, Region(emitter.block))


@dataclass
class ForwardLoss:
    """`@forward_loss(params, buffers, x, target, masks, constants) -> loss` as an RLX module."""

    model: torch.nn.Module
    module: ModuleOp
    graph: JointGraph
    emitter: Emitter

    @property
    def function_name(self) -> str:
        return FORWARD_FUNCTION_NAME

    @property
    def mlir(self) -> str:
        stream = io.StringIO()
        Printer(stream=stream).print_op(self.module)
        return stream.getvalue() + "\n"

    @property
    def parameter_names(self) -> list[str]:
        return [name for _, name in self.graph.parameters]

    @property
    def buffer_names(self) -> list[str]:
        return [name for _, name in self.graph.buffers]

    @property
    def parameter_indices(self) -> list[int]:
        """The arguments of the parameters (the first ones), for `autodiff(wrt=...)`."""
        return list(range(len(self.graph.parameters)))

    @property
    def masks(self):
        return list(self.emitter.masks)

    @property
    def constants(self) -> list[tuple[str, torch.Tensor]]:
        return [(name, value) for _, name, value in self.graph.constants]
