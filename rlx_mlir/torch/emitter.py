"""What an ATen converter sees: `Emitter`, which builds RLX ops from an FX graph, one node at a time.

The converters (`rlx_mlir.torch.aten`) and every front door that walks an ATen graph
(`translate` for the training step, `forward` for the forward alone) share this one
builder, so it knows no converter table and no function signature: `walk` takes the
table, and the front door turns the block it filled into a function. It owns the ceremony
the converters should not see: types from `node.meta["val"]`, splat constants for
PyTorch's scalars and creation ops, the block's arguments, and the one place where a node
is refused, with the user's module and source line.

The block's arguments are the parameters, the buffers and the user inputs (x, target), in
the graph signature's order, then one float mask per random op (dropout, stochastic depth)
in graph order, then the tensors PyTorch lifted as constants.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, IntegerType, TensorType, f32, f64, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue

from rlx_mlir.dialects import rlx
from rlx_mlir.torch.batch import (
    contract_over_batch,
    dynamic_shape_problem,
    is_symbolic_scalar,
    specialised,
    transposes_the_batch_into_a_product,
)
from rlx_mlir.torch.errors import UnsupportedGraph
from rlx_mlir.torch.graph import JointGraph

ELEMENT_TYPES = {torch.float32: f32, torch.float64: f64, torch.int64: i64, torch.int32: i32, torch.bool: i1}
NUMPY_DTYPES = {torch.float32: np.dtype(np.float32), torch.float64: np.dtype(np.float64), torch.int64: np.dtype(np.int64),
                torch.int32: np.dtype(np.int32), torch.bool: np.dtype(np.bool_)}

Converter = Callable[..., object]
"""`converter(emitter, node, *args, **kwargs)`: the RLX value(s) of one ATen node's results."""


@dataclass(frozen=True)
class RandomMask:
    """One random mask the step takes as an argument, in place of PyTorch's generator.

    `kind` is "dropout" (`native_dropout(x, p)`: a cell is kept with probability 1 - p, and
    the output is `x * mask / (1 - p)`) or "bernoulli" (`bernoulli(x, p)`, stochastic depth:
    a cell is 1 with probability p). The mask holds 0.0 and 1.0 in the step's float type;
    a test feeds PyTorch the same mask (dropout's as the bool `mask`).
    """

    name: str
    kind: str
    p: float
    shape: tuple[int, ...]
    """The mask's shape; -1 for a dynamic batch, which `draw` takes from the call."""
    dtype: np.dtype
    module: str | None

    @property
    def probability_of_one(self) -> float:
        return 1.0 - self.p if self.kind == "dropout" else self.p

    def shape_at(self, batch: int | None) -> tuple[int, ...]:
        """The mask's shape with `batch` rows where they are dynamic."""
        return tuple(batch if size == DYNAMIC_INDEX else size for size in self.shape)

    def draw(self, rng: np.random.Generator, batch: int | None = None) -> np.ndarray:
        return (rng.random(self.shape_at(batch)) < self.probability_of_one).astype(self.dtype)


class OnlyFor:
    """A result RLX does not materialize (a pool's indices), usable only by `consumers`."""

    def __init__(self, what: str, consumers: Sequence[object], operand: SSAValue | None = None):
        self.what = what
        self.consumers = tuple(consumers)
        self.operand = operand
        """The value a consumer reads in its place, if any (a transposed batch's untransposed matrix)."""


class Emitter:
    """Builds the block of RLX ops of a graph, one node at a time."""

    def __init__(self, joint: JointGraph, sizes: Mapping | None = None):
        self.joint = joint
        self.sizes = sizes
        """Values of symbolic sizes that are not the batch (sympy symbol -> int), if any."""
        self.node: torch.fx.Node | None = None
        self.values: dict[torch.fx.Node, object] = {}
        self.masks: list[RandomMask] = []
        self.mask_batches: list[object] = []
        """Each mask's leading size as traced (a SymInt where it is the batch)."""
        self.constants: dict[tuple, SSAValue] = {}
        inputs = [node for node, _ in joint.parameters] + [node for node, _ in joint.buffers] + joint.user_inputs
        self.block = Block(arg_types=[self.type_of(node) for node in inputs])
        for node, arg in zip(inputs, self.block.args):
            self.values[node] = arg
        self.argument_names = [name for _, name in (*joint.parameters, *joint.buffers)] + [
            node.name for node in joint.user_inputs
        ]

    # -- failing -----------------------------------------------------------------------

    def fail(self, problem: str) -> UnsupportedGraph:
        """The error to raise for the current node: `raise e.fail("...")`."""
        node = self.node
        op = str(node.target) if node is not None and node.op == "call_function" else None
        where = self.joint.where(node) if node is not None else None
        return UnsupportedGraph(problem, op, where)

    # -- types ---------------------------------------------------------------------------

    def tensor_type(self, value) -> TensorType:
        """The tensor type of a fake tensor (f32/f64/i64/bool); a symbolic leading size,
        the batch or a size derived from it (`B*T`), is `?`."""
        if not isinstance(value, torch.Tensor):
            raise self.fail(f"expected a tensor, got {type(value).__name__}")
        if value.dtype not in ELEMENT_TYPES:
            raise self.fail(f"unsupported dtype {value.dtype} (RLX takes float32, float64, int64, int32 and bool tensors)")
        sizes = [specialised(size, self.sizes) for size in value.shape]
        problem = dynamic_shape_problem(sizes)
        if problem:
            raise self.fail(problem)
        shape = [size if isinstance(size, int) else DYNAMIC_INDEX for size in sizes]
        return TensorType(ELEMENT_TYPES[value.dtype], shape)

    def type_of(self, node: torch.fx.Node, index: int | None = None) -> TensorType:
        value = node.meta["val"]
        return self.tensor_type(value if index is None else value[index])

    def dtype_of(self, node: torch.fx.Node, index: int | None = None) -> torch.dtype:
        value = node.meta["val"]
        return (value if index is None else value[index]).dtype

    @staticmethod
    def shape(value: SSAValue) -> tuple[int, ...]:
        return tuple(value.type.get_shape())

    @staticmethod
    def element(value: SSAValue) -> Attribute:
        return value.type.element_type

    # -- building ------------------------------------------------------------------------

    def append(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def emit(self, op_class: type[rlx.RlxOpBase], operands: Sequence[SSAValue], result_types, **properties):
        """`op_class`(operands) -> one value, or a tuple when `result_types` is a list."""
        for operand in operands:
            if not isinstance(operand, SSAValue):
                raise self.fail(f"{op_class.name} needs tensors, got {operand!r}")
        op = self.append(op_class.build_with(list(operands), result_types, **properties))
        return tuple(op.results) if isinstance(result_types, list) else op.results[0]

    def constant(self, value: float | int | bool, tensor_type: TensorType) -> SSAValue:
        """A splat `arith.constant` of `tensor_type`, one per (value, type) in the function.
        A constant has a static shape: one of the dynamic batch is refused (the export then
        falls back to a static batch)."""
        if DYNAMIC_INDEX in tensor_type.get_shape():
            raise self.fail(f"a constant of the dynamic batch, {tensor_type} (a constant's shape is static)")
        element = tensor_type.element_type
        value = int(value) if isinstance(element, IntegerType) else float(value)
        key = (repr(value), tensor_type)
        if key not in self.constants:
            attr = DenseIntOrFPElementsAttr.from_list(tensor_type, [value])
            self.constants[key] = self.append(arith.ConstantOp(attr, tensor_type)).result
        return self.constants[key]

    def scalar(self, value: float | int | bool, element: Attribute) -> SSAValue:
        """A Python scalar as a 0-d constant, broadcast by the binary op that takes it."""
        return self.constant(value, TensorType(element, []))

    def tensor(self, value, element: Attribute) -> SSAValue:
        """An operand that may be a Python scalar (made a 0-d constant of `element`)."""
        if isinstance(value, SSAValue):
            if self.element(value) != element:
                raise self.fail(
                    f"mixed element types {self.element(value)} and {element}: RLX's binary ops take one "
                    "element type (no type promotion)"
                )
            return value
        if isinstance(value, (bool, int, float)):
            return self.scalar(value, element)
        raise self.fail(f"expected a tensor or a number, got {value!r}")

    def cast(self, value: SSAValue, element: Attribute) -> SSAValue:
        """`value` in `element`: itself when it already is, else `rlx.cast` (PyTorch's conversion)."""
        if self.element(value) == element:
            return value
        return self.emit(rlx.CastOp, [value], TensorType(element, list(self.shape(value))))

    def promoted(self, value, element: Attribute) -> SSAValue:
        """An operand in `element`, as PyTorch computes in the promoted dtype: a tensor cast
        to it, a Python number as a 0-d constant of it."""
        return self.cast(value, element) if isinstance(value, SSAValue) else self.tensor(value, element)

    def reshape(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        if self.shape(value) == tuple(shape):
            return value
        return self.emit(rlx.ReshapeOp, [value], TensorType(self.element(value), list(shape)))

    def mask_argument(self, kind: str, p: float, like: torch.Tensor) -> SSAValue:
        """A new float mask argument of `like`'s shape (module docstring).

        A mask is 0 or 1, exact in every float type: when the model only converts it
        (`torch.empty(...)` is float32 in a float64 model), the argument has the type it is
        converted to, and the conversion is the mask itself.
        """
        users = [user for user in self.node.users if user.target is not torch.ops.aten._assert_tensor_metadata.default]
        if users and all(user.target is torch.ops.aten._to_copy.default for user in users):
            converted = {user.kwargs.get("dtype") for user in users}
            if len(converted) == 1 and converted <= {torch.float32, torch.float64}:
                like = like.to(converted.pop())
        tensor_type = self.tensor_type(like)
        arg = self.block.insert_arg(tensor_type, len(self.block.args) - len(self.joint.constants))
        name = f"mask{len(self.masks)}"
        where = self.joint.where(self.node)
        shape = tuple(tensor_type.get_shape())
        self.masks.append(RandomMask(name, kind, float(p), shape, NUMPY_DTYPES[like.dtype], where.module))
        self.mask_batches.append(like.shape[0] if like.dim() else None)
        self.argument_names.insert(len(self.argument_names) - len(self.joint.constants), name)
        return arg

    def _constant_arguments(self) -> None:
        """The lifted constants, as the last arguments; masks are inserted before them."""
        for node, name, _ in self.joint.constants:
            self.values[node] = self.block.insert_arg(self.type_of(node), len(self.block.args))
            self.argument_names.append(name)

    # -- the walk ------------------------------------------------------------------------

    def value(self, node: torch.fx.Node):
        result = self.values[node]
        if isinstance(result, OnlyFor) and self.node.target not in result.consumers:
            raise self.fail(f"{result.what} is used by {self.node.target}; RLX recomputes it only inside the pool's backward")
        return result

    def walk(self, converters: Mapping[object, Converter]) -> None:
        """Every node of the graph, in order, through its converter in `converters`
        (keyed by OpOverload); the lifted constants become the last arguments first."""
        self._constant_arguments()
        for node in self.joint.graph.nodes:
            self.node = node
            if node.op in ("placeholder", "get_attr"):  # arguments: the inputs, the lifted constants
                continue
            if node.op == "output":
                break
            if node.op != "call_function":
                raise self.fail(f"unexpected graph node {node.op} {node.target}")
            if is_symbolic_scalar(node.meta.get("val")):  # a size of the batch: types carry it as `?`
                self.values[node] = node.meta["val"]
                continue
            args = torch.fx.node.map_arg(node.args, self.value)
            kwargs = torch.fx.node.map_arg(node.kwargs, self.value)
            if node.target is operator.getitem:
                self.values[node] = args[0][args[1]]
                continue
            if transposes_the_batch_into_a_product(node, self.sizes):  # the product contracts over the batch (batch.py)
                self.values[node] = OnlyFor("a transposed dynamic batch", [torch.ops.aten.mm.default], operand=args[0])
                continue
            if isinstance(args[0] if args else None, OnlyFor) and args[0].operand is not None:
                self.values[node] = contract_over_batch(self, args[0].operand, args[1], self.type_of(node))
                continue
            converter = converters.get(node.target)
            if converter is None:
                raise self.fail(f"unsupported ATen op {node.target}")
            self.values[node] = converter(self, node, *args, **kwargs)
        self.node = None

    def result(self, node: torch.fx.Node) -> SSAValue:
        """The RLX value of a graph output, which must be a tensor."""
        value = self.values[node]
        if not isinstance(value, SSAValue):
            raise self.fail(f"the step's output {node.name} is not a tensor RLX computes")
        return value
