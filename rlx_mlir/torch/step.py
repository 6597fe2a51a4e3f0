"""`export_training_step`: a PyTorch model's training step as RLX IR, and as native code.

    step = export_training_step(model, (x, target), loss_fn=torch.nn.functional.cross_entropy)
    step.mlir, step.module            # the RLX module: text, xDSL ModuleOp
    compiled = step.compile(seed=0)   # rlx_mlir.compile (cached); seed: the masks' generator
    loss, grads, buffers = compiled(x, target)

The step's batch is `?` where the graph allows it (`dynamic_shapes=DYNAMIC_BATCH`, the
default, or a `torch.export.Dim` on dim 0 of x and target): one compiled step runs every
batch, and checks every other size. `dynamic_shapes=None` exports the example's shapes.

`compiled(...)` reads the model's parameters and buffers at every call (an optimizer that
updates the model between calls is seen); `params=` / `buffers=` override some or all of
them by name. `grads` maps every name of `model.named_parameters()` to a NumPy array (zeros
for a parameter the loss does not depend on); `buffers` maps every name of
`model.named_buffers()` to its value after the step (unchanged ones as given).

Random ops are arguments of the step (`step.masks`, one `RandomMask` each, in graph order):
`compiled(..., masks=...)` takes them as a dict by mask name or a list in that order;
otherwise the compiled step draws them from its NumPy generator
(`np.random.default_rng(seed)`), so two compiled steps with one seed draw the same masks.
`compiled.last_masks` holds the masks of the last call, for feeding PyTorch the same ones.
"""

from __future__ import annotations

import io
import operator
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import torch
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from rlx_mlir import compile as compile_rlx
from rlx_mlir.errors import UserTypeError, UserValueError
from rlx_mlir.torch.aten import SUPPORTED
from rlx_mlir.torch.batch import batches_in
from rlx_mlir.torch.emitter import ELEMENT_TYPES, NUMPY_DTYPES, RandomMask, dynamic_shape_problem, is_symbolic_scalar
from rlx_mlir.torch.errors import UnsupportedGraph
from rlx_mlir.torch.fake_kernels import fake_kernels
from rlx_mlir.torch.graph import JointGraph, export_joint_graph
from rlx_mlir.torch.translate import FUNCTION_NAME, translate

_NUMPY_OF_ELEMENT = {str(element): NUMPY_DTYPES[dtype] for dtype, element in ELEMENT_TYPES.items()}


DYNAMIC_BATCH = "batch"
"""`dynamic_shapes=DYNAMIC_BATCH`: the batch (dim 0 of x and of the target) is dynamic where the
graph allows it, and static, with one warning saying why, where it does not."""


def export_training_step(
    model: torch.nn.Module,
    example_inputs: tuple[torch.Tensor, torch.Tensor],
    loss_fn: Callable = torch.nn.functional.cross_entropy,
    dynamic_shapes=DYNAMIC_BATCH,
    step_fn: Callable | None = None,
) -> TrainingStep:
    """The training step `loss_fn(model(x), target)` and its backward, as RLX IR.

    The model is traced in the mode it is in (call `model.train()` first for a training
    step). An ATen op, a dtype or a dynamic size RLX cannot express raises one
    `UnsupportedGraph` naming it, the submodule and the source line.

    `dynamic_shapes` is `DYNAMIC_BATCH` (the default: the batch dynamic where the graph
    allows it, else static with one warning), None (every shape as the example's), or
    torch.export's own specification of the wrapper's inputs `x` and `target`, e.g.
    `{"x": {0: batch}, "target": {0: batch}}` with `batch = torch.export.Dim("batch")`. A
    dynamic size is `?` in the step's types, and the compiled step runs any batch; only
    the leading dimension may be dynamic (RLX's kernels take `?` there).

    `step_fn(model, *example_inputs)` -> the scalar loss replaces `loss_fn(model(x), target)`:
    a step that may differentiate inside its loss (`rlx_mlir.torch.higher_order`).
    """
    if not isinstance(model, torch.nn.Module):
        raise UserTypeError(f"export_training_step takes a torch.nn.Module, got {type(model).__name__}")
    if step_fn is not None:
        from rlx_mlir.torch.higher_order import export_higher_order_step  # it builds on this module: an import cycle

        # A step_fn step is traced at the example's shapes: the default asks for no dynamic batch.
        return export_higher_order_step(model, example_inputs, step_fn,
                                        None if isinstance(dynamic_shapes, str) and dynamic_shapes == DYNAMIC_BATCH else dynamic_shapes)
    if not (isinstance(example_inputs, (tuple, list)) and len(example_inputs) == 2):
        raise UserTypeError("example_inputs must be the pair (x, target)")
    start = time.perf_counter()
    if isinstance(dynamic_shapes, str) and dynamic_shapes == DYNAMIC_BATCH:
        joint, module, emitter = _export_with_batch_if_possible(model, tuple(example_inputs), loss_fn)
    else:
        joint, module, emitter = _export(model, tuple(example_inputs), loss_fn, dynamic_shapes)
    x_value = joint.user_inputs[0].meta.get("val")
    batch = x_value.shape[0] if isinstance(x_value, torch.Tensor) and x_value.dim() else None
    return TrainingStep.from_translation(model, joint, module, emitter, start,
                                         mask_batches=[batches_in(size, batch) for size in emitter.mask_batches])


def _export(model, example_inputs, loss_fn, dynamic_shapes):
    """The joint graph, and its module and emitter; a dynamic module is verified here, so
    that a size RLX cannot carry is refused as the user's graph, not as our error."""
    with fake_kernels():  # the fake quantizations' shapes for a symbolic batch
        joint = export_joint_graph(model, example_inputs, loss_fn, SUPPORTED, check_forward=check_forward,
                                   dynamic_shapes=dynamic_shapes)
    module, emitter = translate(joint)
    if any(DYNAMIC_INDEX in arg.type.get_shape() for arg in emitter.block.args):
        try:
            module.verify()
        except VerifyException as error:
            raise UnsupportedGraph(f"the dynamic batch does not reach every op: {error}") from error
    return joint, module, emitter


def _export_with_batch_if_possible(model, example_inputs, loss_fn):
    """`DYNAMIC_BATCH`: torch.export's `Dim.AUTO` on dim 0 of x and target, which it keeps
    dynamic unless the model's code fixes it (`x.view(2, -1)`, an example batch of 1);
    then our import, which may refuse a dynamic size an op cannot take. Either way the
    step falls back to the static shapes of the example, with a warning saying why; a
    graph refused whatever its batch (an unsupported op) raises the static export's error.

    The dynamic attempt traces aliases of x and target: torch.export marks the tensors it
    is given as dynamic (`Dim.AUTO` is `maybe_mark_dynamic`) and clears the marks only when
    it succeeds, so after a failed trace (an ATen op with no kernel for a symbolic size and
    none of ours in `fake_kernels`) the user's own tensors would still carry a dynamic
    batch into the static retry, and into any later torch.compile of theirs."""
    auto = {0: torch.export.Dim.AUTO}
    spec = {"x": auto if example_inputs[0].dim() else None, "target": auto if example_inputs[1].dim() else None}
    aliases = tuple(t.detach().requires_grad_(t.requires_grad) for t in example_inputs)
    try:
        joint, module, emitter = _export(model, aliases, loss_fn, spec)
    except UnsupportedGraph as problem:
        static = _export(model, example_inputs, loss_fn, None)
        warnings.warn(f"export_training_step: a static batch, as the example's: {problem}", stacklevel=3)
        return static
    if not any(DYNAMIC_INDEX in arg.type.get_shape() for arg in emitter.block.args):
        warnings.warn("export_training_step: a static batch, as the example's: torch.export specialised the "
                      "batch (the model's code fixes it, or the example's batch is 0 or 1)", stacklevel=3)
    return joint, module, emitter


def check_forward(graph: torch.fx.Graph, provenance) -> None:
    """Refuse an unsupported op, dtype or dynamic size of the forward graph, where it is."""
    for node in graph.nodes:
        where = provenance.get(node)
        if is_symbolic_scalar(node.meta.get("val")):
            continue
        if node.op == "call_function" and node.target is not operator.getitem and node.target not in SUPPORTED:
            raise UnsupportedGraph(f"unsupported ATen op {node.target}", str(node.target), where)
        if node.op not in ("call_function", "placeholder") or node.target is torch.ops.aten.native_dropout.default:
            continue
        values = node.meta.get("val")
        for value in values if isinstance(values, (tuple, list)) else (values,):
            if not isinstance(value, torch.Tensor):
                continue
            what = f"{node.target}" if node.op == "call_function" else f"input '{node.name}'"
            if value.dtype not in ELEMENT_TYPES:
                raise UnsupportedGraph(
                    f"unsupported dtype {value.dtype} of {what} (RLX takes float32, float64, int64, int32 and bool tensors)",
                    str(node.target), where,
                )
            problem = dynamic_shape_problem(value.shape)
            if problem:
                raise UnsupportedGraph(f"{problem}, in {what}", str(node.target), where)


@dataclass
class TrainingStep:
    """One training step as an RLX module:
    `training_step(params, buffers, x, target, masks, lifted constants)` -> (loss, gradients, updated buffers)."""

    model: torch.nn.Module
    module: ModuleOp
    joint: JointGraph
    masks: list[RandomMask]
    argument_types: list
    export_seconds: float
    mask_batches: list[Fraction] = field(default_factory=list)
    """How many of x's batches each mask's dynamic leading dim holds (`batch.batches_in`)."""

    def mask_shapes(self, batch: int) -> list[tuple[int, ...]]:
        """The shapes of the step's masks when x has `batch` rows."""
        multiples = self.mask_batches or [Fraction(1)] * len(self.masks)
        return [mask.shape_at(_times(batch, k)) for mask, k in zip(self.masks, multiples)]

    @classmethod
    def translated(cls, model: torch.nn.Module, joint: JointGraph, start: float):
        """The step of `joint` in RLX ops; `start` is when its export began (`time.perf_counter()`)."""
        module, emitter = translate(joint)
        return cls.from_translation(model, joint, module, emitter, start)

    @classmethod
    def from_translation(cls, model: torch.nn.Module, joint: JointGraph, module, emitter, start: float,
                         mask_batches: list | None = None):
        """The step of `joint`, already translated into `module` by `emitter`."""
        return cls(
            mask_batches=mask_batches or [],
            model=model,
            module=module,
            joint=joint,
            masks=list(emitter.masks),
            argument_types=[arg.type for arg in emitter.block.args],
            export_seconds=time.perf_counter() - start,
        )

    @property
    def mlir(self) -> str:
        """The module in its custom form, as `rlx-opt` prints it."""
        stream = io.StringIO()
        Printer(stream=stream).print_op(self.module)
        return stream.getvalue() + "\n"

    @property
    def function_name(self) -> str:
        return FUNCTION_NAME

    @property
    def parameter_names(self) -> list[str]:
        return [name for _, name in self.joint.parameters]

    @property
    def buffer_names(self) -> list[str]:
        return [name for _, name in self.joint.buffers]

    @property
    def updated_buffer_names(self) -> list[str]:
        return list(self.joint.buffer_updates)

    def compile(self, pipeline: str | None = None, seed: int | None = 0) -> CompiledStep:
        """Native code for the step (cached by content, as `rlx_mlir.compile` is).

        Each distinct op is compiled as its own kernel and the step runs as a graph of
        kernel calls (`rlx_mlir.kernel_graph`): compiled whole, a ResNet-18 step took LLVM
        minutes; as kernels, seconds."""
        return CompiledStep(self, compile_rlx(self.module, pipeline, outline=True)[FUNCTION_NAME], np.random.default_rng(seed))


@dataclass
class CompiledStep:
    """The compiled step, called on PyTorch tensors or NumPy arrays (module docstring)."""

    step: TrainingStep
    function: Callable
    rng: np.random.Generator
    last_masks: dict[str, np.ndarray] = field(default_factory=dict)

    def __call__(
        self,
        x,
        target,
        params: Mapping | None = None,
        buffers: Mapping | None = None,
        masks: Mapping | Sequence | None = None,
    ):
        return self.run({"x": x, "target": target}, params, buffers, masks)

    def run(self, inputs: Mapping[str, object], params: Mapping | None, buffers: Mapping | None,
            masks: Mapping | Sequence | None):
        """The step on the user's inputs (by name, in the function's order): (loss, grads, buffers)."""
        step = self.step
        types = iter(step.argument_types)
        current_params = dict(step.model.named_parameters())
        current_buffers = dict(step.model.named_buffers())
        arguments = []
        for name in step.parameter_names:
            arguments.append(_array(_pick(params, current_params, name, "parameter"), next(types), name))
        buffer_inputs = {}
        for name in step.buffer_names:
            buffer_inputs[name] = _array(_pick(buffers, current_buffers, name, "buffer"), next(types), name)
            arguments.append(buffer_inputs[name])
        batch = None
        for position, (name, value) in enumerate(inputs.items()):
            array = _array(value, next(types), name, batch)
            if position == 0 and array.ndim:
                batch = array.shape[0]  # the first input (x) fixes the batch the others must share
            arguments.append(array)
        mask_batches = [_times(batch, k) for k in step.mask_batches] or [batch] * len(step.masks)
        self.last_masks = self._masks(masks, mask_batches)
        arguments += [_array(self.last_masks[m.name], next(types), m.name, rows,
                             f"x's batch of {batch} gives it {rows} rows" if rows != batch else None)
                      for m, rows in zip(step.masks, mask_batches)]
        arguments += [_array(value, next(types), name) for _, name, value in step.joint.constants]
        results = self.function(*arguments)
        results = results if isinstance(results, tuple) else (results,)
        count = len(step.parameter_names)
        loss = results[0]
        grads = dict(zip(step.parameter_names, results[1:1 + count]))
        updated = dict(zip(step.updated_buffer_names, results[1 + count:]))
        buffers_after = {name: updated.get(name, buffer_inputs[name]) for name in step.buffer_names}
        return loss, grads, buffers_after

    def _masks(self, masks, batches: Sequence[int | None]) -> dict[str, np.ndarray]:
        specs = self.step.masks
        if masks is None:
            return {m.name: m.draw(self.rng, rows) for m, rows in zip(specs, batches)}
        if isinstance(masks, Mapping):
            missing = [m.name for m in specs if m.name not in masks]
            if missing:
                raise UserValueError(f"masks= lacks {missing} (the step's masks: {[m.name for m in specs]})")
            return {m.name: _numpy(masks[m.name]) for m in specs}
        masks = list(masks)
        if len(masks) != len(specs):
            raise UserValueError(f"masks= has {len(masks)} arrays; the step takes {len(specs)}")
        return {m.name: _numpy(value) for m, value in zip(specs, masks)}


def _times(batch: int | None, multiple: Fraction) -> int | None:
    """A mask's leading size at x's `batch`: `multiple` batches (a whole number of rows)."""
    if batch is None:
        return None
    rows = batch * multiple
    if rows.denominator != 1:
        raise UserValueError(f"x's batch of {batch} is not a multiple of {multiple.denominator}, which the "
                             f"step's random masks divide it by")
    return int(rows)


def _pick(overrides, current, name: str, what: str):
    if overrides is not None and name in overrides:
        return overrides[name]
    if name not in current:
        raise UserValueError(f"the model has no {what} '{name}' any more, and none was given")
    return current[name]


def _numpy(value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        return value.numpy() if value.dtype != torch.bool else value.numpy().astype(np.uint8)
    return np.asarray(value)


def _array(value, tensor_type, name: str, batch: int | None = None, why: str | None = None) -> np.ndarray:
    """`value` as a NumPy array of the argument's dtype (converted when it differs), of the
    argument's shape; a dynamic batch must be x's (`batch`, or the rows a mask of `B*T`
    has at x's batch): compiled code trusts that the batches agree, and would read out of
    bounds."""
    array = _numpy(value)
    dtype = _NUMPY_OF_ELEMENT[str(tensor_type.element_type)]
    if array.dtype != dtype:
        array = array.astype(dtype)
    shape = tuple(tensor_type.get_shape())
    exported = "(" + ", ".join("?" if size == DYNAMIC_INDEX else str(size) for size in shape) + ",)"[len(shape) != 1:]
    fixed = [(got, want) for got, want in zip(array.shape, shape) if want != DYNAMIC_INDEX]
    if len(array.shape) != len(shape) or any(got != want for got, want in fixed):
        raise UserValueError(f"{name} has shape {array.shape}; the step was exported for {exported}")
    if batch is not None and shape and shape[0] == DYNAMIC_INDEX and array.shape[0] != batch:
        why = why or f"x has a batch of {batch}"
        raise UserValueError(f"{name} has shape {array.shape}; {why} (the step was exported for {exported})")
    return array
