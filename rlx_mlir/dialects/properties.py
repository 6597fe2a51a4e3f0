"""The kinds of property RLX ops hold, and how each reads as a Python value.

Every property is declared once, on its op, with one of the `*_property` helpers below
(xDSL's `prop_def` with the kind's constraint); a property with a default (`dilation`,
`groups`, `eps`, ...) may be left out of the custom form, which the declarative assembly
format does by itself. A kind ties the property's attribute constraint to the Python value
it stands for, so that building an op (`RlxOp.build_with`), reading it (`op.eps` is a
float, `op.dims` a tuple of ints: `PropertyValue`), explaining a wrong attribute and
describing the op in IRDL all follow from the op's own definition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.dialects.builtin import AnyFloat, DenseArrayBase, FloatAttr, IntegerAttr, IntegerType, StringAttr, TensorType, f64, i64
from xdsl.ir import Attribute
from xdsl.irdl import AttrConstraint, BaseAttr, EqAttrConstraint, VarConstraint, VerificationContext, irdl_to_attr_constraint, prop_def
from xdsl.utils.exceptions import VerifyException

I1 = IntegerType(1)


@dataclass(frozen=True, init=False)
class OneFloatElementType(VarConstraint[Attribute]):
    """The variable `T`: one float element type shared by every operand and the result.

    It is xDSL's `VarConstraint`, worded for a reader: xDSL's own messages
    (`Unexpected attribute i32`, `attribute f32 expected from variable 'T'`) name neither
    what was expected nor why.
    """

    def __init__(self):
        super().__init__("T", irdl_to_attr_constraint(AnyFloat))

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        bound = constraint_context.get_variable(self.name)
        if bound is not None and bound != attr:
            raise VerifyException(
                f"expected all operands and the result to have one element type, got {bound} and {attr}"
            )
        try:
            super().verify(attr, constraint_context)
        except VerifyException:
            raise VerifyException(f"expected a floating-point element type, got {attr}") from None


ELEMENT_TYPE = OneFloatElementType()
FLOAT_TENSOR = TensorType.constr(ELEMENT_TYPE)
"""A ranked float tensor whose element type is the op's one element type `T`."""

@dataclass(frozen=True)
class IndexElementType(EqAttrConstraint):
    """`i64`, the element type of class indices, worded for a reader (xDSL's own message,
    `Expected attribute i64 but got i32`, says neither what the operand is nor why)."""

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if attr != self.attr:
            raise VerifyException(f"expected class indices of element type {self.attr}, got {attr}")


I64_TENSOR = TensorType.constr(IndexElementType(i64))
"""A ranked tensor of `i64`: class indices (a loss's target)."""

ANY_TENSOR = TensorType.constr()
"""A ranked tensor of any element type: data that an op moves (layout) or integer
arithmetic; the op ties its element types itself, in `verify_shapes`."""


@dataclass(frozen=True)
class PropertyKind:
    """What a property holds: its attribute constraint, the Python value and the wording."""

    name: str
    constraint: AttrConstraint
    expected: str
    """How a diagnostic names the attribute it wants."""
    to_attribute: Callable[[Any], Attribute]
    from_attribute: Callable[[Attribute], Any]

    BY_CONSTRAINT: ClassVar[dict[AttrConstraint, PropertyKind]] = {}

    def __post_init__(self):
        PropertyKind.BY_CONSTRAINT[self.constraint] = self

    @staticmethod
    def of(constraint: AttrConstraint) -> PropertyKind:
        return PropertyKind.BY_CONSTRAINT[constraint]

    def check(self, name: str, attr: Attribute | None) -> None:
        """The verifier's word on property `name` holding `attr` (None: left out, with no default).

        The kind's constraint is exact: an integer of another width (`1 : i32`, `1 : i632`),
        a float where an integer belongs or the reverse, an array of other elements is
        refused, and the message names the property and what it holds, where xDSL's own
        (`Expected attribute i64 but got i32`) names neither.
        """
        if attr is None:
            raise VerifyException(f"expected the property '{name}' ({self.expected})")
        try:
            self.constraint.verify(attr, VerificationContext())
        except VerifyException:
            raise VerifyException(f"expected '{name}' to be {self.expected}, got {attr}") from None


SIZES = PropertyKind(
    "sizes",
    DenseArrayBase.constr(i64),
    "array<i64: ...>",
    lambda value: DenseArrayBase.from_list(i64, list(value)),
    lambda attr: tuple(attr.get_values()),
)
INT = PropertyKind(
    "int",
    IntegerAttr.constr(type=i64),
    "an i64 integer",
    lambda value: IntegerAttr(int(value), i64),
    lambda attr: attr.value.data,
)
BOOL = PropertyKind(
    "bool",
    IntegerAttr.constr(type=I1),
    "true or false",
    lambda value: IntegerAttr(int(bool(value)), I1),
    lambda attr: bool(attr.value.data),
)


FLOAT = PropertyKind(
    "float",
    FloatAttr.constr(f64),
    "an f64 float",
    lambda value: FloatAttr(float(value), f64),
    lambda attr: attr.value.data,
)
STRING = PropertyKind(
    "string",
    BaseAttr(StringAttr),
    "a string",
    lambda value: StringAttr(str(value)),
    lambda attr: attr.data,
)
"""A choice among named values (`reduction = "mean"`); the op's verifier checks the name."""


# Each helper declares a property of its kind (a default makes it optional in the custom
# form). Its annotated type is what the op's field reads as once `rlx_op_definition` has
# made it a `PropertyValue`: `eps = float_property(1e-5)` gives `op.eps`, a float.


def _property(kind: PropertyKind, default: object, prop_name: str | None) -> Any:
    return prop_def(
        kind.constraint, prop_name=prop_name, default_value=None if default is None else kind.to_attribute(default)
    )


def sizes_property(default: tuple[int, ...] | None = None, prop_name: str | None = None) -> tuple[int, ...]:
    """An `array<i64: ...>` property; for a window, one value per spatial axis, outermost
    first (as PyTorch's tuples: depth, height, width), its length checked by the op's verifier."""
    return _property(SIZES, default, prop_name)


def int_property(default: int | None = None, prop_name: str | None = None) -> int:
    return _property(INT, default, prop_name)


def bool_property(default: bool, prop_name: str | None = None) -> bool:
    return _property(BOOL, default, prop_name)


def float_property(default: float | None = None, prop_name: str | None = None) -> float:
    """Without a default the property is required (`rlx.rms_norm`'s eps, which the importer
    always passes)."""
    return _property(FLOAT, default, prop_name)


def string_property(default: str, prop_name: str | None = None) -> str:
    return _property(STRING, default, prop_name)


class PropertyValue:
    """An op's property field read as its Python value, and written from one.

    xDSL's own accessor gives the attribute (`FloatAttr(1e-05, f64)`); every reader wants
    the number, so each RLX op's property fields read through the property's kind instead:
    `op.eps` is a float, `op.dim` an int, `op.reduction` a str, `op.stride` a tuple. A
    property left out takes its declared default. Setting takes a Python value or an
    attribute.
    """

    def __init__(self, prop_name: str, kind: PropertyKind, default: Attribute | None):
        self.prop_name, self.kind, self.default = prop_name, kind, default

    def __get__(self, op: Any, owner: type | None = None) -> Any:
        if op is None:
            return self
        attr = op.properties.get(self.prop_name, self.default)
        if attr is None:
            raise AttributeError(f"{op.name} has no property '{self.prop_name}'")
        return self.kind.from_attribute(attr)

    def __set__(self, op: Any, value: Any) -> None:
        op.properties[self.prop_name] = value if isinstance(value, Attribute) else self.kind.to_attribute(value)


def expect_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """A `STRING` property must hold one of `choices`; the message lists them."""
    if value not in choices:
        listed = ", ".join(f'"{c}"' for c in choices)
        raise VerifyException(f"expected '{name}' to be one of {listed}, got \"{value}\"")
