"""`RlxOpBase` and `RlxOp`: what every RLX op shares beyond its IRDL definition.

An op declares its operands and properties with `operand_def` and `prop_def` (the shared
window properties, and the spatial rank, by inheriting them from `dialects.windows`) and its syntax with
`assembly_format`. `RlxOpBase` declares purity, and `RlxOp` adds the one float result
most ops have (an op with several, integer or variadic results declares its own on
`RlxOpBase`). The base derives the rest from that one definition:
- `build_with(operands, result_type, **geometry)` builds from Python values, filling in the
  defaults;
- each property field reads as its Python value (`op.eps`, a float), once the op class is
  made with `rlx_op_definition` (xDSL's `irdl_op_definition`, then `PropertyValue`
  accessors); `property_value(name)` reads one by name (`geometry_value` is its older
  name, kept for the window geometry);
- verification explains a wrong property or mixed float element types (of the values
  declared `FLOAT_TENSOR`, which share `T`) in words before xDSL's
  generic constraint check runs, then checks the dynamic dimensions and hands the op's
  shapes to `verify_shapes`, which each op writes against `rlx_mlir.geometry`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParamAttrConstraint,
    VerificationContext,
    irdl_op_definition,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.properties import ELEMENT_TYPE, FLOAT_TENSOR, PropertyKind, PropertyValue
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, tensor_type
from rlx_mlir.geometry import GeometryError


_FORMAT_VARIABLE = re.compile(r"\$([A-Za-z_]\w*)")

SIGNATURE = "attr-dict-with-keyword `:` functional-type(operands, results)"
"""How every RLX op's custom form ends: extra attributes, then the types as a function type."""


class RlxOpBase(IRDLOperation):
    """Shared construction, property access and verification scaffolding of RLX ops.

    Every RLX op is a pure function of tensors to tensors. Most have one float result of
    their operands' element type (`RlxOp`); the others (batch norm's five results, a loss
    and its total weight, a split's pieces, integer data moved by a layout op) declare
    their own results on this base.
    """

    traits = traits_def(NoMemoryEffect())

    def __post_init__(self):
        # Properties in declaration order, whatever order they were parsed or given in, so
        # that the generic form always prints them alike.
        super().__post_init__()
        given = dict(self.properties)
        self.properties.clear()
        for name in (*self.property_kinds(), *given):
            if name in given:
                self.properties.setdefault(name, given[name])

    # -- the definition, read back -----------------------------------------------------

    @classmethod
    def property_kinds(cls) -> dict[str, PropertyKind]:
        """Each property's kind, in the order the custom form writes them.

        Properties come from the op and its bases (`dialects.windows`), so the order of the
        fields in Python says little; the assembly format (whose variables are `$name`) is
        the op's one statement of its syntax, and its order is the one a reader sees.
        """
        definitions = cls.get_irdl_definition().properties
        written = [name for name in _FORMAT_VARIABLE.findall(cls.assembly_format or "") if name in definitions]
        return {name: PropertyKind.of(definitions[name].constr) for name in dict.fromkeys((*written, *definitions))}

    @classmethod
    def property_defaults(cls) -> dict[str, object]:
        """The Python value of each property that may be left out."""
        return {
            name: PropertyKind.of(d.constr).from_attribute(d.default_value)
            for name, d in cls.get_irdl_definition().properties.items()
            if d.default_value is not None
        }

    @classmethod
    def operand_names(cls) -> tuple[str, ...]:
        return tuple(name for name, _ in cls.get_irdl_definition().operands)

    @classmethod
    def result_names(cls) -> tuple[str, ...]:
        return tuple(name for name, _ in cls.get_irdl_definition().results)

    def named_values(self) -> list[tuple[str, SSAValue]]:
        """(name, value) for every operand and then every result; a variadic one repeats its
        name, an absent optional one is left out."""
        definition = self.get_irdl_definition()
        named = []
        for name, _ in (*definition.operands, *definition.results):
            values = getattr(self, name)
            if values is None:
                continue
            named += [(name, v) for v in (values if isinstance(values, Sequence) else (values,))]
        return named

    # -- construction ------------------------------------------------------------------

    @classmethod
    def build_with(
        cls,
        operands: Sequence[SSAValue | Operation],
        result_type: Attribute | Sequence[Attribute],
        **geometry: tuple[int, int] | int | float | bool | str,
    ):
        """Build from Python values; properties with a default may be omitted.

        `result_type` is the one result's type, or a list of every result's type.
        """
        kinds = cls.property_kinds()
        unknown = set(geometry) - set(kinds)
        if unknown:
            raise TypeError(f"{cls.name} has no properties {sorted(unknown)}")
        defaults = cls.property_defaults()
        missing = [name for name in kinds if name not in geometry and name not in defaults]
        if missing:
            raise TypeError(f"{cls.name} needs the property '{missing[0]}'")
        properties = {name: kind.to_attribute(geometry[name]) for name, kind in kinds.items() if name in geometry}
        result_types = list(result_type) if isinstance(result_type, Sequence) else [result_type]
        return cls(operands=list(operands), result_types=result_types, properties=properties)

    def property_value(self, name: str):
        """The property `name` (as the custom form spells it) as its Python value."""
        return self.property_kinds()[name].from_attribute(self.properties[name])

    def geometry_value(self, name: str):
        """`property_value`, by the name the window geometry's readers know."""
        return self.property_value(name)

    # -- verification -------------------------------------------------------------------

    def verify(self, verify_nested_ops: bool = True) -> None:
        self._explain_properties_and_element_types()
        super().verify(verify_nested_ops)

    def _explain_properties_and_element_types(self) -> None:
        """Say which property or type is wrong, in words, before xDSL's constraints do.

        xDSL's own checks report `Expected attribute i64 but got i32` or
        `attribute f32 expected from variable 'T'` without naming the property. Each
        property is checked by its kind (`PropertyKind.check`). A discardable attribute of a
        property's name (`attributes {groups = 2}` in the custom form) is refused too: xDSL
        keeps it beside the property and ignores it, where MLIR would read it as the
        property. The element types are checked by the op's own constraint `T`, in the
        order of the custom form's parser, so that a generic and a custom form get the same
        message.
        """
        for name, kind in self.property_kinds().items():
            kind.check(name, self.properties.get(name))
            if name in self.attributes:
                kind.check(name, self.attributes[name])
                raise VerifyException(
                    f"expected '{name}' as a property (the custom form's `{name}`), "
                    f"got a discardable attribute {name} = {self.attributes[name]} beside it"
                )
        element_types = VerificationContext()
        float_typed = self.float_typed_names()
        for name, value in self.named_values():
            if name in float_typed and isinstance(value.type, TensorType):
                ELEMENT_TYPE.verify(value.type.element_type, element_types)

    @classmethod
    def float_typed_names(cls) -> set[str]:
        """The operands and results declared with `FLOAT_TENSOR`, which share the element type `T`."""
        definition = cls.get_irdl_definition()
        return {name for name, d in (*definition.operands, *definition.results) if declares_element_type(d.constr)}

    def verify_(self) -> None:
        self.verify_property_lengths()
        batched = self.batched_values()
        for name, value in self.named_values():
            if not isinstance(value.type, TensorType):
                continue
            shape = tensor_type(value).get_shape()
            if name not in batched and any(is_dynamic(d) for d in shape):
                raise VerifyException(f"expected the {name} to have a static shape, got {value.type}")
            if any(is_dynamic(d) for d in shape[1:]):
                raise VerifyException(
                    f"expected only the leading (batch) dimension of the {name} to be dynamic, got {value.type}"
                )
        try:
            self.verify_shapes()
        except GeometryError as error:
            raise VerifyException(str(error)) from None

    def verify_property_lengths(self) -> None:
        """Check the length of each array property (ops with spatial properties do)."""

    def verify_shapes(self) -> None:
        raise NotImplementedError

    def batched_values(self) -> set[str]:
        """Operands (and "result") whose leading dimension is the batch, the one that may be dynamic.

        Weights carry no batch: every dimension of a weight must be static.
        """
        return {name for name in (*self.operand_names(), *self.result_names()) if name != "weight"}

    # -- helpers for the verifiers -----------------------------------------------------------

    def shape_of(self, index: int, rank: int | tuple[int, ...]) -> tuple[int, ...]:
        """The shape of operand `index` (or the result, index -1), rank-checked."""
        value = self.results[0] if index == -1 else self.operands[index]
        name = "result" if index == -1 else self.operand_names()[index]
        shape = tensor_type(value).get_shape()
        ranks = (rank,) if isinstance(rank, int) else rank
        if len(shape) not in ranks:
            expected = " or ".join(str(r) for r in ranks)
            raise VerifyException(f"expected the {name} to have rank {expected}, got {value.type}")
        return shape

    def shapes(self, rank: int) -> tuple[tuple[int, ...], ...]:
        """The shapes of the operands and then of the result, each checked to have `rank`."""
        return tuple(self.shape_of(index, rank) for index in (*range(len(self.operands)), -1))

    def expect_result_shape(self, expected: Sequence[int]) -> None:
        got = tensor_type(self.results[0]).get_shape()
        if tuple(got) != tuple(expected):
            element = tensor_type(self.results[0]).element_type
            raise VerifyException(
                f"expected the result type to be tensor<{format_shape(expected)}x{element}> "
                f"as the geometry implies, got tensor<{format_shape(got)}x{element}>"
            )

    def groups(self) -> int:
        groups = self.geometry_value("groups")
        if groups < 1:
            raise VerifyException(f"expected groups to be positive, got {groups}")
        return groups


class RlxOp(RlxOpBase):
    """An RLX op with one float result of its operands' element type (most of them)."""

    result = result_def(FLOAT_TENSOR)


def rlx_op_definition(cls: type[RlxOpBase]) -> type[RlxOpBase]:
    """xDSL's `irdl_op_definition`, with each property field read as its Python value (`PropertyValue`)."""
    irdl_op_definition(cls)
    definition = cls.get_irdl_definition()
    for field, (prop_name, what) in definition.accessor_names.items():
        if what == "property":
            declared = definition.properties[prop_name]
            setattr(cls, field, PropertyValue(prop_name, PropertyKind.of(declared.constr), declared.default_value))
    return cls


def declares_element_type(constraint: object) -> bool:
    """Whether an operand or result constraint is (a range of) `FLOAT_TENSOR`, i.e. binds `T`."""
    while constraint is not None and not isinstance(constraint, ParamAttrConstraint):
        constraint = getattr(constraint, "constraint", None) or getattr(constraint, "constr", None)
    return constraint is not None and any(p is ELEMENT_TYPE for p in constraint.param_constrs)


def expect_same_batch(a: tuple[int, ...], a_name: str, b: tuple[int, ...], b_name: str) -> None:
    if a[0] != b[0]:
        raise VerifyException(
            f"expected the {a_name} and the {b_name} to have the same batch size, got "
            f"{format_shape(a[:1])} and {format_shape(b[:1])}"
        )


def expect_divisible(channels: int, groups: int, what: str) -> None:
    if channels % groups:
        raise VerifyException(f"expected the {what} channels ({channels}) to be divisible by groups ({groups})")
