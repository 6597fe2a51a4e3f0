"""VJP rules: one function per op family, registered by op class, and the builder they write with.

A rule is the vector-Jacobian product of one op: given the op (its operands are the
forward values, already computed once in the VJP function) and the cotangent of each of
its results, it returns one cotangent per operand, or None where the operand gets none
(an integer operand, or a gradient that is zero almost everywhere).

    @vjp_rule(*rlx.CONV)
    def conv(b, op, y_bar):
        x_bar = b.like(op, rlx.CONV_BACKWARD_INPUT, [y_bar, op.weight], op.input, kernel_size=kernel(op))
        ...
        return x_bar, w_bar

Rules are registered on op classes, as JAX registers its rules on primitives; a ranked
family (`CONV`, a `RankedOps`) registers one rule for its every rank. Importing
`rlx_mlir.autodiff` imports every family's rules (`autodiff.families`).

Every value a rule builds is an RLX op (or an `arith.constant` splat), so the VJP
function it helps build is differentiable again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, DenseIntOrFPElementsAttr, FileLineColLoc, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.windows import RankedOps
from rlx_mlir.ir import DiagnosticError

Rule = Callable[..., Sequence[SSAValue | None]]

RULES: dict[type[Operation], Rule] = {}
"""The VJP rule of each op class."""


def vjp_rule(*op_classes: type[Operation]) -> Callable[[Rule], Rule]:
    """Register the decorated function as the VJP rule of each of `op_classes`."""
    return registrar(RULES, "VJP", op_classes)


def registrar(table: dict[type[Operation], Rule], kind: str, op_classes) -> Callable[[Rule], Rule]:
    """The decorator that enters a rule in `table` (the VJP or the JVP rules) for each op class, once."""

    def register(rule: Rule) -> Rule:
        for op_class in op_classes:
            assert op_class not in table, f"two {kind} rules for {op_class.name}"
            table[op_class] = rule
        return rule

    return register


def kernel(op: Operation) -> tuple[int, ...]:
    """The spatial kernel size of a conv or transposed conv: its weight's spatial shape."""
    return tuple(op.weight.type.get_shape()[2:])


def is_float_tensor(type_: Attribute) -> bool:
    """Whether values of `type_` carry cotangents: ranked tensors of a float element type."""
    return isinstance(type_, TensorType) and isinstance(type_.element_type, AnyFloat)


class VjpBuilder:
    """Appends the reverse sweep's ops to the VJP function's block.

    Each op built while a rule runs carries the location of the forward op the rule
    differentiates, so a diagnostic about it (at the next order, say) points at the
    source line it came from.
    """

    def __init__(self, block: Block):
        self.block = block
        self.location: Attribute | None = None

    def _emit(self, op: Operation) -> SSAValue:
        if self.location is not None:
            op.location = self.location
        self.block.add_op(op)
        return op.results[0]

    def build(self, op_class: type[Operation], operands: Sequence[SSAValue], result: SSAValue | Attribute, **props) -> SSAValue:
        """`op_class(operands) -> result type` with the given properties (defaults may be left out).

        `result` is a type, or a value whose type the result has (the operand a cotangent is for).
        """
        result_type = result.type if isinstance(result, SSAValue) else result
        return self._emit(op_class.build_with(operands, result_type, **props))

    def build_many(self, op_class: type[Operation], operands, result_types, **props) -> tuple[SSAValue, ...]:
        """An op of several results (`rlx.split`); `operands`/`result_types` as `build_with` takes them."""
        built = op_class.build_with(operands, result_types, **props)
        self._emit(built)
        return tuple(built.results)

    def like(
        self,
        op: Operation,
        family: RankedOps | type[Operation],
        operands: Sequence[SSAValue],
        result: SSAValue | Attribute,
        **props,
    ) -> SSAValue:
        """An op of `family` (at `op`'s rank, for a `RankedOps` such as `CONV`), with every
        property of `op` it also has, and `props`.

        The forward op and its adjoints share their window (stride, padding, dilation,
        groups, ceil_mode, ...) by name; `props` states what the adjoint needs beyond it
        (the kernel size a gradient cannot see in its operands).
        """
        op_class = family.like(op) if isinstance(family, RankedOps) else family
        kinds = op_class.property_kinds()
        shared = {name: op.property_value(name) for name in kinds if name in op.properties and name not in props}
        return self.build(op_class, operands, result, **shared, **props)

    def zeros(self, type_: Attribute) -> SSAValue:
        """A zero splat of `type_`: `arith.constant dense<0.0>`."""
        if not isinstance(type_, TensorType) or any(d < 0 for d in type_.get_shape()):
            raise DiagnosticError(
                f"autodiff: a zero cotangent of {type_} is needed, but only static shapes have one",
                format_location_attr(self.location),
            )
        return self._emit(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(type_, [0.0])))

    def ones(self, type_: Attribute) -> SSAValue:
        """A splat of ones of `type_`."""
        return self._emit(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(type_, [1.0])))

    def scalar(self, value: float, like: SSAValue) -> SSAValue:
        """A 0-d constant of `like`'s element type, which the elementwise ops broadcast."""
        type_ = TensorType(like.type.element_type, [])
        return self._emit(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(type_, [value])))

    def binary(self, op_class: type[Operation], a: SSAValue, b: SSAValue) -> SSAValue:
        """`op_class` (`rlx.MulOp`, ...) of a and b, broadcast as PyTorch does.

        Known zeros fold (a cotangent that is a zero splat, from an unused result or a
        rule's zero): 0 * b = a * 0 = 0 / b = 0, a + 0 = 0 + a = a - 0 = a, 0 - b = -b,
        where the kept operand already has the result's type. These are exact in IEEE
        arithmetic up to the sign of zero and NaN/inf propagation from the other operand,
        which a cotangent of a finite function does not carry.
        """
        result_type = broadcast_type(a, b)
        if op_class in (rlx.MulOp, rlx.DivOp) and is_zero(a) or op_class is rlx.MulOp and is_zero(b):
            return self.zeros(result_type)
        if op_class in (rlx.AddOp, rlx.SubOp) and is_zero(b) and a.type == result_type:
            return a
        if op_class is rlx.AddOp and is_zero(a) and b.type == result_type:
            return b
        if op_class is rlx.SubOp and is_zero(a) and b.type == result_type:
            return self.neg(b)
        return self.build(op_class, [a, b], result_type)

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.binary(rlx.MulOp, a, b)

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.binary(rlx.SubOp, a, b)

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.binary(rlx.DivOp, a, b)

    def neg(self, a: SSAValue) -> SSAValue:
        return a if is_zero(a) else self.build(rlx.NegOp, [a], a)

    def unary(self, op_class: type[Operation], a: SSAValue) -> SSAValue:
        """`op_class` (`rlx.ExpOp`, ...) of a, of a's type."""
        return self.build(op_class, [a], a)

    def sum_to(self, value: SSAValue, target: SSAValue) -> SSAValue:
        """`value` summed over the dims a broadcast to its shape stretched or added, as `target`'s shape.

        The VJP of a broadcast: each element of `target` was read by every element of its
        broadcast image, so it receives their cotangents' sum.
        """
        if value.type == target.type:
            return value
        if is_zero(value):
            return self.zeros(target.type)
        shape, goal = value.type.get_shape(), target.type.get_shape()
        lead = len(shape) - len(goal)
        dims = [*range(lead), *(lead + i for i, size in enumerate(goal) if size == 1 and shape[lead + i] != 1)]
        if not goal:  # a 0-d target: the sum of everything, with no reshape
            return self.build(rlx.SumOp, [value], target, dims=list(range(len(shape))))
        if dims:
            kept = [1 if axis in dims else size for axis, size in enumerate(shape)]
            value = self.build(rlx.SumOp, [value], TensorType(value.type.element_type, kept), dims=dims, keepdim=True)
        return value if value.type == target.type else self.build(rlx.ReshapeOp, [value], target)

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """a + b, the sum of two cotangents of one value (`rlx.add`)."""
        if is_zero(a):
            return b
        if is_zero(b):
            return a
        return self.build(rlx.AddOp, [a, b], a)


def is_zero(value: SSAValue | None) -> bool:
    """Whether `value` is known to be zero: an `arith.constant` zero splat (or no value)."""
    if value is None:
        return True
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp):
        return False
    attr = owner.value
    return isinstance(attr, DenseIntOrFPElementsAttr) and attr.is_splat() and next(iter(attr.iter_values())) == 0


def broadcast_type(a: SSAValue, b: SSAValue) -> TensorType:
    """The type of a PyTorch-broadcasting binary op's result on `a` and `b` (trailing dims align)."""
    x, y = a.type.get_shape(), b.type.get_shape()
    rank = max(len(x), len(y))
    x, y = (1,) * (rank - len(x)) + tuple(x), (1,) * (rank - len(y)) + tuple(y)
    return TensorType(a.type.element_type, [p if q == 1 else q for p, q in zip(x, y)])


def format_location_attr(location: Attribute | None) -> str | None:
    """`file:line:col` of a location attribute, as `ir.format_location` gives an op's."""
    if isinstance(location, FileLineColLoc):
        return f"{location.filename.data}:{location.line.data}:{location.column.data}"
    return None
