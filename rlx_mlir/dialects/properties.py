"""The kinds of geometry property RLX ops hold, and how each reads as a Python value.

Every property is declared once, on its op, with `prop_def`; a property with a default
(`dilation`, `groups`, ...) may be left out of the custom form, which the declarative
assembly format does by itself. A kind ties the property's attribute constraint to the
Python value it stands for, so that building an op (`RlxOp.build_with`), reading it
(`RlxOp.geometry_value`), explaining a wrong attribute and describing the op in IRDL
all follow from the op's own definition.
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


def sizes_property(default: tuple[int, ...] | None = None, prop_name: str | None = None) -> Any:
    """An `array<i64: ...>` property with one value per spatial axis, outermost first (as
    PyTorch's tuples: depth, height, width); its length is checked by the op's verifier."""
    return prop_def(
        SIZES.constraint, prop_name=prop_name, default_value=None if default is None else SIZES.to_attribute(default)
    )


def int_property(default: int, prop_name: str | None = None) -> Any:
    return prop_def(INT.constraint, prop_name=prop_name, default_value=INT.to_attribute(default))


def bool_property(default: bool, prop_name: str | None = None) -> Any:
    return prop_def(BOOL.constraint, prop_name=prop_name, default_value=BOOL.to_attribute(default))


def float_property(default: float, prop_name: str | None = None) -> Any:
    return prop_def(FLOAT.constraint, prop_name=prop_name, default_value=FLOAT.to_attribute(default))


def string_property(default: str, prop_name: str | None = None) -> Any:
    return prop_def(STRING.constraint, prop_name=prop_name, default_value=STRING.to_attribute(default))


def expect_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """A `STRING` property must hold one of `choices`; the message lists them."""
    if value not in choices:
        listed = ", ".join(f'"{c}"' for c in choices)
        raise VerifyException(f"expected '{name}' to be one of {listed}, got \"{value}\"")
