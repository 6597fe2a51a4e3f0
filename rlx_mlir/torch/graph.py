"""PyTorch's side of the import: the joint forward-backward ATen graph of one training step.

The route (measured on twelve torchvision models, see the project's notes):

1. `torch.export.export` of a wrapper whose forward returns `(loss_fn(model(x), target),)`;
2. `run_decompositions(table)`: the forward graph in ATen ops, each node still carrying its
   `nn_module_stack` and `stack_trace`;
3. the joint trace of step 1's program with the loss as output 0: what
   `torch.export.experimental._export_forward_backward` does, but with our decomposition
   table instead of PyTorch's core-ATen one. That function takes no table, so this module
   calls the same internals it calls (`_decompose_exported_program`, then its
   `_copy_graph_module_and_signature` and `_remove_detach_pass`).

The table is PyTorch's core-ATen table minus every op the importer maps whole: with the
core table, each backward op of batch norm, ReLU, the activations, log-softmax and NLL
decomposes into ~12 elementwise ops (where, scalar_tensor, gather, scatter), and our own
decompositions of those ops, which are the ones that should run, would never see them.

The joint trace runs on the functionalized graph PyTorch traced itself, so its nodes lose
the user's module and source line. Step 2 keeps them: both decompose one program with one
table, so the k-th call of an op in the joint graph's forward part is the k-th call of that
op in step 2's graph (`_provenance`). (Step 3 cannot start from step 2's program: there the
functional batch norm returns its running statistics as outputs that require gradients,
which the joint trace refuses.)
"""

from __future__ import annotations

import os
import re
import warnings
from collections import defaultdict
from dataclasses import dataclass, field

import torch
import torch.export.experimental  # noqa: F401  (the submodule must be imported explicitly)
from torch._decomp import core_aten_decompositions
from torch.export.experimental import _copy_graph_module_and_signature, _remove_detach_pass
from torch.export.exported_program import _decompose_exported_program
from torch.export.graph_signature import InputKind, OutputKind

from rlx_mlir.torch.errors import Provenance, UnsupportedGraph

aten = torch.ops.aten

class TrainStep(torch.nn.Module):
    """`(loss_fn(model(x), target),)`: the function whose joint graph is the training step."""

    def __init__(self, model: torch.nn.Module, loss_fn):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn

    def forward(self, x, target):
        return (self.loss_fn(self.model(x), target),)


MODEL_PREFIX = "model."
"""How the wrapper's state names start; stripped to give `model.named_parameters()`' names."""


@dataclass
class JointGraph:
    """The joint graph and what each of its inputs and outputs is."""

    graph: torch.fx.Graph
    parameters: list[tuple[torch.fx.Node, str]]
    """(placeholder, name in `model.named_parameters()`), in signature order."""
    buffers: list[tuple[torch.fx.Node, str]]
    user_inputs: list[torch.fx.Node]
    loss: torch.fx.Node
    gradients: dict[str, torch.fx.Node | None]
    """Parameter name -> the node of its gradient (None: the loss does not depend on it)."""
    buffer_updates: dict[str, torch.fx.Node]
    constants: list[tuple[torch.fx.Node, str, torch.Tensor]]
    """(placeholder, name, value) of each tensor the model or the loss function captured
    (class weights, say): PyTorch lifts them out of the graph, and so does the step, as
    arguments after the masks that the compiled step passes itself."""
    provenance: dict[torch.fx.Node, Provenance] = field(default_factory=dict)

    def where(self, node: torch.fx.Node) -> Provenance:
        return self.provenance.get(node, Provenance(backward=True))


def decomposition_table(kept_whole) -> dict:
    """PyTorch's core-ATen table without the ops in `kept_whole` (OpOverloads), nor the
    other overloads of their packets.

    The composite ops above them still decompose into them: `F.max_pool1d` arrives as
    `max_pool2d_with_indices` over an unsqueezed input, `adaptive_avg_pool2d(x, 1)` as
    `mean.dim`, relu6 as `hardtanh` (checked for every conv and pool op).
    """
    packets = {op.overloadpacket for op in kept_whole}
    table = core_aten_decompositions()
    for op in list(table.keys()):
        if getattr(op, "overloadpacket", None) in packets:
            table.pop(op)
    return table


def export_joint_graph(model, example_inputs, loss_fn, kept_whole, check_forward=None, dynamic_shapes=None) -> JointGraph:
    """Trace `loss_fn(model(x), target)` and its backward into one ATen graph (module docstring).

    `check_forward(graph, provenance)` may refuse the forward graph before the (slower)
    joint trace, with the user's module and line at hand.
    """
    x, target = example_inputs
    table = decomposition_table(kept_whole)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            program = torch.export.export(TrainStep(model, loss_fn), (x, target), dynamic_shapes=dynamic_shapes)
            _drop_tied_aliases(program, model)
            unused = _unused_parameters_as_buffers(program)
            forward = program.run_decompositions(table)
    except UnsupportedGraph:
        raise
    except Exception as error:  # torch.export's own refusal: data-dependent control flow, ...
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        where = _raising_call(str(error))
        raise UnsupportedGraph(
            f"torch.export cannot trace the training step: {first}" + (f" (at {where})" if where else "")
        ) from error
    if check_forward is not None:
        check_forward(forward.graph, forward_provenance(forward.graph))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        joint = _decompose_exported_program(
            program,
            cia_to_decomp={},
            python_decomp_table=table,
            joint_loss_index=0,
            decompose_custom_triton_ops=False,
        )
        module, signature = _copy_graph_module_and_signature(joint)
        _remove_detach_pass(module, signature)
    return _read_signature(module.graph, signature, joint.constants, _provenance(forward.graph, module.graph), unused)


def _drop_tied_aliases(program, model) -> None:
    """One placeholder per tied parameter (a GPT head tied to its token embedding:
    `lm_head.weight` is `wte.weight`). torch.export lists each name as a parameter of its
    own but traces every use through one of them; the others, unused, would have no
    gradient, which the joint trace refuses. They are removed, and the used one is named
    as `model.named_parameters()` names the parameter, so its gradient, the sum over every
    use, comes under that one name."""
    first_name: dict[int, str] = {}
    for name, parameter in model.named_parameters(remove_duplicate=False):
        first_name.setdefault(id(parameter), MODEL_PREFIX + name)
    canonical = {MODEL_PREFIX + name: first_name[id(p)] for name, p in model.named_parameters(remove_duplicate=False)}
    placeholders = {node.name: node for node in program.graph.nodes if node.op == "placeholder"}
    specs = [spec for spec in program.graph_signature.input_specs if spec.kind == InputKind.PARAMETER]
    groups: dict[str, list] = defaultdict(list)
    for spec in specs:
        groups[canonical.get(spec.target, spec.target)].append(spec)
    changed = False
    for name, group in groups.items():
        used = [spec for spec in group if placeholders[spec.arg.name].users]
        if len(group) == 1 or len(used) != 1:
            continue
        for spec in group:
            if spec is not used[0]:
                program.graph.erase_node(placeholders[spec.arg.name])
                program.graph_signature.input_specs.remove(spec)
        tensor = program._state_dict.pop(used[0].target)
        for spec in group:
            program._state_dict.pop(spec.target, None)
        used[0].target = name
        program._state_dict[name] = tensor
        changed = True
    if changed:
        program.graph_module.recompile()


def _unused_parameters_as_buffers(program) -> set[str]:
    """The parameters the step never reads (a layer the forward skips), passed to the joint
    trace as buffers: it refuses a parameter that gets no gradient ("Found a parameter that
    did not receive a gradient"), where eager autograd leaves its `.grad` None. Their
    targets are returned; `_read_signature` lists them as parameters again, whose gradient
    is zero."""
    placeholders = {node.name: node for node in program.graph.nodes if node.op == "placeholder"}
    unused = set()
    for spec in program.graph_signature.input_specs:
        placeholder = placeholders[spec.arg.name]
        if spec.kind == InputKind.PARAMETER and not placeholder.users:
            spec.kind, spec.persistent = InputKind.BUFFER, True
            program._state_dict[spec.target] = program._state_dict[spec.target].detach()
            # The joint trace asks a gradient of every input whose example requires one.
            placeholder.meta["val"] = placeholder.meta["val"].detach()
            unused.add(spec.target)
    return unused


def _read_signature(graph, signature, constant_values, provenance, unused_parameters=frozenset()) -> JointGraph:
    placeholders = {node.name: node for node in graph.nodes if node.op == "placeholder"}
    parameters, buffers, user_inputs, constants = [], [], [], []
    for spec in signature.input_specs:
        node = placeholders[spec.arg.name]
        if spec.kind == InputKind.PARAMETER or spec.target in unused_parameters:
            parameters.append((node, _model_name(spec.target)))
        elif spec.kind == InputKind.BUFFER:
            buffers.append((node, _model_name(spec.target)))
        elif spec.kind == InputKind.USER_INPUT:
            user_inputs.append(node)
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            constants.append((node, spec.target, constant_values[spec.target].detach().clone()))
        else:
            raise UnsupportedGraph(
                f"the training step has an input of kind {spec.kind.name} ({spec.target}): only parameters, "
                "buffers, tensor constants and the two user inputs are supported"
            )
    outputs = list(graph.output_node().args[0])
    loss, gradients, updates = None, {}, {}
    for spec, node in zip(signature.output_specs, outputs):
        if spec.kind == OutputKind.LOSS_OUTPUT:
            loss = node
        elif spec.kind == OutputKind.GRADIENT_TO_PARAMETER:
            gradients[_model_name(spec.target)] = node
        elif spec.kind == OutputKind.BUFFER_MUTATION:
            updates[_model_name(spec.target)] = node
        else:
            raise UnsupportedGraph(f"the training step has an output of kind {spec.kind.name}")
    for _, name in parameters:
        gradients.setdefault(name, None)
    return JointGraph(graph, parameters, buffers, user_inputs, loss, gradients, updates, constants, provenance)


def _raising_call(message: str) -> str | None:
    """The user's call that torch.export's error names ("The following call raised this
    error:" and a traceback frame), as `file:line: code`: a data-dependent guard is raised
    deep inside PyTorch (a causal-mask check of nn.Transformer, say), and its first line
    alone does not say which of the model's lines to change."""
    found = re.search(r'The following call raised this error:\s*File "([^"]+)", line (\d+)[^\n]*\n(?: +(\S.*))?', message)
    if found is None:
        return None
    place = f"{found.group(1)}:{found.group(2)}"
    return f"{place}: {found.group(3).strip()}" if found.group(3) else place


def _model_name(target: str) -> str:
    return target[len(MODEL_PREFIX):] if target.startswith(MODEL_PREFIX) else target


# -- where each node comes from ------------------------------------------------------------

_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)\n\s*(?P<code>[^\n]*)')
_LIBRARY_DIRS = (os.path.dirname(torch.__file__) + os.sep, os.path.dirname(__file__) + os.sep)
"""torch's frames and ours (the wrapper's forward) are not the user's."""


def forward_provenance(graph: torch.fx.Graph) -> dict[torch.fx.Node, Provenance]:
    """The module and the user's source line of each node of a forward graph that records them."""
    return {node: _node_provenance(node) for node in graph.nodes if node.op == "call_function"}


def _node_provenance(node: torch.fx.Node) -> Provenance:
    stack = node.meta.get("nn_module_stack") or {}
    module = None
    if stack:
        path, kind = list(stack.values())[-1]
        kind = str(kind).rsplit(".", 1)[-1]
        if path in ("", None):
            module = "the loss function"
        elif path == MODEL_PREFIX.rstrip("."):
            module = f"the model ({kind})"
        else:
            module = f"submodule '{_model_name(path)}' ({kind})"
    return Provenance(module=module, source=_user_frame(node.meta.get("stack_trace")))


def _user_frame(stack_trace: str | None) -> str | None:
    """`file:line: code` of the innermost frame outside torch and this package, if any."""
    frames = list(_FRAME.finditer(stack_trace or ""))
    if not frames:
        return None
    outside = [f for f in frames if not f["file"].startswith(_LIBRARY_DIRS)]
    if not outside:
        return None
    frame = outside[-1]
    return f"{frame['file']}:{frame['line']}: {frame['code'].strip()}"


def _provenance(forward: torch.fx.Graph, joint: torch.fx.Graph) -> dict[torch.fx.Node, Provenance]:
    """The k-th call of each op in the joint graph gets the k-th call's provenance in `forward`.

    Calls beyond the forward graph's count are autograd's (the backward pass) and get none.
    """
    calls: dict[object, list[torch.fx.Node]] = defaultdict(list)
    for node in forward.nodes:
        if node.op == "call_function":
            calls[node.target].append(node)
    seen: dict[object, int] = defaultdict(int)
    result = {}
    for node in joint.nodes:
        if node.op != "call_function":
            continue
        index = seen[node.target]
        seen[node.target] += 1
        if index < len(calls[node.target]):
            result[node] = _node_provenance(calls[node.target][index])
    return result
