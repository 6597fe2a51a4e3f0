"""Training steps that differentiate inside the loss: `export_training_step(model, inputs, step_fn=f)`.

    def wgan_gp(critic, real, fake, eps):
        mixed = (eps * real + (1 - eps) * fake).requires_grad_()
        (g,) = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
        return critic(fake).mean() - critic(real).mean() + 10 * ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()

    step = export_training_step(critic, (real, fake, eps), step_fn=wgan_gp)
    loss, grads, buffers = step.compile()(real, fake, eps)

`f(model, *inputs)` returns the scalar loss; it may call `torch.autograd.grad(...,
create_graph=True)` or `torch.func`'s `grad`, `vjp`, `jvp` and `hessian` any number of
times (a gradient penalty, forces `-dE/dpos`, a Laplacian, an inner SGD step, a
Hessian-vector product), and so may the model's own forward. The step gives what
`loss_fn`'s step gives: the loss, the gradient of every parameter, the updated buffers.

The route: PyTorch's own higher-order graph, traced by `make_fx`, rather than the forward
imported and differentiated by our `--autodiff`.
- `make_fx` runs `f` under autograd with the model's parameters swapped for fresh leaves
  (`_reparametrize_module`, what `torch.func.functional_call` does), then
  `torch.autograd.grad(loss, leaves)`: every backward formula PyTorch runs, the
  `create_graph=True` ones included, is recorded as ATen ops (`convolution_backward`,
  `leaky_relu_backward`, `tanh_backward`, ...), the same ops the joint graph of a
  first-order step holds, so the one converter table (`rlx_mlir.torch.aten`) and the
  `Emitter` import it as they are. The decomposition table is the first-order route's
  (`graph.decomposition_table`): the ops RLX maps whole stay whole.
- Our `--autodiff` cannot take this route's place: it needs the penalty written over the
  VJP of the critic, i.e. the user's `torch.autograd.grad` call rewritten as IR, which is
  what `f` expresses already. It stays the independent check (the two-routes test).
- Why two traces: `torch.func.functionalize` refuses `requires_grad_()` inside the
  function it transforms, and every higher-order step calls it (the interpolates of a
  gradient penalty, the atoms' positions). So the first trace records autograd's ops with
  their in-place forms (`masked_fill_` in a norm's backward, a batch counter's `add_`);
  the second functionalizes that graph, which has no autograd left in it. A buffer the
  step mutates becomes a trailing `copy_(buffer, new value)`: the new value is the
  updated buffer, as `torch.export` lists a BUFFER_MUTATION.
- Batch norm reaches the trace as `native_batch_norm`, whose schema does not say it
  writes its running statistics, so functionalization would keep it whole and drop their
  update. The first trace decomposes it into `_native_batch_norm_legit` (the annotated
  in-place form, `batch_norm_in_annotated_form`), which the second trace turns into
  `_native_batch_norm_legit_functional` and a `copy_` into each statistic, the ops of a
  first-order step. Autograd still records `native_batch_norm_backward` (decompositions
  run below it), and PyTorch's formula for that op's own derivative is ATen ops. The
  dead `empty(uint8)` reserve of `_batch_norm_impl_index` is removed.
- Attention is traced with PyTorch's math backend (`sdpa_kernel(SDPBackend.MATH)`):
  PyTorch's CPU flash kernel has no derivative of its backward, so autograd cannot run,
  and `make_fx` cannot record, a `create_graph=True` gradient through it (a gradient
  penalty on a transformer's input embeddings). The math backend is attention as `bmm`,
  `_softmax` and a causal `tril` mask, whose derivatives PyTorch has to any order and the
  importer maps op by op. The other way, our imported forward (`rlx.attention`, whose
  VJP is RLX ops) differentiated by `--autodiff`, would need the user's
  `torch.autograd.grad` call rewritten as IR, the reason this module traces at all.

The function the step compiles is `@training_step(params, buffers, *inputs, masks,
lifted constants) -> (loss, gradients, updated buffers)`, the first-order step's signature
with the user's inputs in place of (x, target); `compiled(*inputs)` runs it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.utils.stateless import _reparametrize_module

from rlx_mlir import compile as compile_rlx
from rlx_mlir.errors import UserTypeError, UserValueError
from rlx_mlir.torch.aten import SUPPORTED
from rlx_mlir.torch.errors import UnsupportedGraph
from rlx_mlir.torch.graph import JointGraph, _provenance, decomposition_table
from rlx_mlir.torch.step import CompiledStep, TrainingStep
from rlx_mlir.torch.translate import FUNCTION_NAME

aten = torch.ops.aten


def export_higher_order_step(model: torch.nn.Module, example_inputs, step_fn: Callable,
                             dynamic_shapes=None) -> HigherOrderStep:
    """The step `step_fn(model, *example_inputs)` -> loss and its parameter gradients, as RLX IR."""
    if dynamic_shapes is not None:
        raise UserValueError("a step_fn step is traced for static shapes: dynamic_shapes must be None")
    if not isinstance(example_inputs, (tuple, list)) or not all(isinstance(t, torch.Tensor) for t in example_inputs):
        raise UserTypeError("example_inputs of a step_fn step must be a tuple of tensors, the arguments of step_fn "
                            "after the model")
    start = time.perf_counter()
    return HigherOrderStep.translated(model, trace_higher_order_step(model, tuple(example_inputs), step_fn), start)


def trace_higher_order_step(model: torch.nn.Module, inputs: tuple, step_fn: Callable) -> JointGraph:
    """The functionalized ATen graph of (loss, parameter gradients), read as a JointGraph
    (module docstring: the two traces)."""
    parameter_names = [name for name, _ in model.named_parameters()]
    buffer_names = [name for name, _ in model.named_buffers()]
    parameters = [p.detach() for _, p in model.named_parameters()]
    buffers = [b.detach().clone() for _, b in model.named_buffers()]  # tracing runs the step: not on the model's
    inputs = [t.detach() for t in inputs]  # step_fn's requires_grad_() must not mark the caller's tensors

    def step(parameters, buffers, *inputs):
        with torch.enable_grad():
            leaves = [p.detach().requires_grad_(True) for p in parameters]
            state = {**dict(zip(parameter_names, leaves)), **dict(zip(buffer_names, buffers))}
            with _reparametrize_module(model, state, tie_weights=True):
                loss = step_fn(model, *inputs)
            if not (isinstance(loss, torch.Tensor) and loss.dim() == 0 and loss.is_floating_point()):
                raise UserValueError(f"step_fn must return the scalar float loss, got {_describe(loss)}")
            if not loss.requires_grad:
                raise UserValueError("step_fn's loss depends on no parameter of the model")
            gradients = torch.autograd.grad(loss, leaves, allow_unused=True)
        return loss, list(gradients)

    table = decomposition_table(SUPPORTED)
    with_autograd = {**table, aten.native_batch_norm.default: batch_norm_in_annotated_form}
    try:
        with sdpa_kernel(SDPBackend.MATH):  # module docstring: attention's double backward
            recorded = make_fx(step, decomposition_table=with_autograd, record_stack_traces=True,
                               record_module_stack=True)(parameters, buffers, *inputs)
        functional = make_fx(torch.func.functionalize(recorded, remove="mutations"),
                             decomposition_table=table)(parameters, buffers, *inputs)
        functional.graph.eliminate_dead_code()
    except (UserValueError, UserTypeError):
        raise
    except Exception as error:  # make_fx's own refusal: data-dependent control flow, ...
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UnsupportedGraph(f"make_fx cannot trace the step: {first}") from error
    return _read_graph(functional, parameter_names, buffer_names, _provenance(recorded.graph, functional.graph))


def batch_norm_in_annotated_form(x, weight, bias, running_mean, running_var, training, momentum, eps):
    """`native_batch_norm` as the `_native_batch_norm_legit` overload whose schema marks the
    running statistics written (module docstring)."""
    if running_mean is None:
        return aten._native_batch_norm_legit.no_stats(x, weight, bias, training, momentum, eps)
    if not training:
        return aten._native_batch_norm_legit_no_training.default(x, weight, bias, running_mean, running_var,
                                                                 momentum, eps)
    return aten._native_batch_norm_legit.default(x, weight, bias, running_mean, running_var, training, momentum, eps)


def _describe(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"a {value.dtype} tensor of shape {tuple(value.shape)}"
    return type(value).__name__


def _read_graph(module: torch.fx.GraphModule, parameter_names, buffer_names, provenance) -> JointGraph:
    """Placeholders in make_fx's order (parameters, buffers, inputs); outputs (loss,
    gradients...); a trailing `copy_` into a buffer is its update, removed from the graph."""
    graph = module.graph
    placeholders = [node for node in graph.nodes if node.op == "placeholder"]
    count, buffer_count = len(parameter_names), len(buffer_names)
    parameters = list(zip(placeholders[:count], parameter_names))
    buffers = list(zip(placeholders[count:count + buffer_count], buffer_names))
    user_inputs = placeholders[count + buffer_count:]
    buffer_of = {node: name for node, name in buffers}
    updates = {}
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target is aten.copy_.default and node.args[0].op == "placeholder":
            destination, value = node.args[0], node.args[1]
            if destination not in buffer_of:
                raise UnsupportedGraph(f"the step writes into its input '{destination.name}' in place: only buffers "
                                       "may be updated", str(node.target), provenance.get(node))
            updates[buffer_of[destination]] = value
            graph.erase_node(node)
    constants = [(node, str(node.target), getattr(module, node.target).detach().clone())
                 for node in graph.nodes if node.op == "get_attr"]
    loss, *gradients = graph.output_node().args[0]
    return JointGraph(graph, parameters, buffers, user_inputs, loss, dict(zip(parameter_names, gradients)),
                      {name: updates[name] for name in buffer_names if name in updates}, constants, provenance)


class HigherOrderStep(TrainingStep):
    """A `step_fn` step: `training_step(params, buffers, *inputs, masks, constants)`."""

    def compile(self, pipeline: str | None = None, seed: int | None = 0) -> CompiledHigherOrderStep:
        """Native code for the step, compiled as `TrainingStep.compile` does (kernel graph, cached)."""
        function = compile_rlx(self.module, pipeline, outline=True)[FUNCTION_NAME]
        return CompiledHigherOrderStep(self, function, np.random.default_rng(seed))


class CompiledHigherOrderStep(CompiledStep):
    """`compiled(*inputs, params=, buffers=, masks=)` -> (loss, gradients, buffers after the step)."""

    def __call__(self, *inputs, params: Mapping | None = None, buffers: Mapping | None = None,
                 masks: Mapping | Sequence | None = None):
        expected = len(self.step.joint.user_inputs)
        if len(inputs) != expected:
            raise UserValueError(f"the step takes {expected} inputs (step_fn's arguments after "
                                 f"the model), got {len(inputs)}")
        return self.run({f"input {i}": value for i, value in enumerate(inputs)}, params, buffers, masks)
