"""Pass options of the RLX passes: each choice typed once, checked with one message.

A choice is a `Literal` alias (`ConvWeight`), used both by the pass field and by the
pattern-set function that acts on it, so the valid values are written in one place.
xDSL's option parser checks a `Literal` field itself, but its message names neither the
pass nor the option ("Incompatible types: given ('bogus',), expected typing.Literal[...]").
`CheckedOptions` checks first, both when a pipeline is parsed and when a pass is built in
Python, and says `decompose-backward: option 'conv-weight' must be one of direct, im2col;
got 'bogus'`; an `int` option given something else is checked the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec

from rlx_mlir.errors import UserValueError

ConvWeight = Literal["direct", "im2col"]
"""`conv-weight`: one gather-form contraction, or RLX's im2col + matmul."""

ConvInput = Literal["direct", "transpose"]
"""`conv-input`: the adjoint conv in gather form, or a transposed conv."""

StridedConv = Literal["direct", "phases"]
"""`strided-conv`: one strided named conv, or a stride-1 conv per stride phase of x (the
backend's form, which also makes a strided conv with narrow output rows a matmul)."""

PoolTies = Literal["first", "all"]
"""`pool-ties`: the gradient goes to the first maximum (PyTorch), or to every tied one."""


def literal_values(option_type: Any) -> tuple[str, ...] | None:
    """The values of a `Literal` option type, or None for any other type."""
    return get_args(option_type) if get_origin(option_type) is Literal else None


def _option_name(field_name: str) -> str:
    return field_name.replace("_", "-")


def _choice_error(pass_name: str, option: str, value: object, valid: Sequence[str]) -> UserValueError:
    return UserValueError(f"{pass_name}: option '{option}' must be one of {', '.join(valid)}; got '{value}'")


@dataclasses.dataclass(frozen=True)
class CheckedOptions(ModulePass):
    """A pass whose `Literal` options are checked with a message naming pass and option."""

    @classmethod
    def from_spec(cls, spec: ArgSpec):
        hints = get_type_hints(cls)
        for option, values in spec.normalize_parameter_names().parameters.items():
            valid = literal_values(hints.get(option))
            shown = values[0] if len(values) == 1 else ",".join(map(str, values))
            if valid is not None and (len(values) != 1 or values[0] not in valid):
                raise _choice_error(cls.name, _option_name(option), shown, valid)
            if hints.get(option) is int and (len(values) != 1 or type(values[0]) is not int):
                raise UserValueError(f"{cls.name}: option '{_option_name(option)}' must be an integer; got '{shown}'")
        return super().from_spec(spec)

    def __post_init__(self):
        hints = get_type_hints(type(self))
        for field in dataclasses.fields(self):
            valid = literal_values(hints.get(field.name))
            value = getattr(self, field.name)
            if valid is not None and value not in valid:
                raise _choice_error(self.name, _option_name(field.name), value, valid)


@dataclasses.dataclass(frozen=True)
class LoweringOptions:
    """The pass options every family's `populate_forward` / `populate_backward` receives.

    One value for both passes, so every family has the same signature whichever options
    it reads; each pass fills in its own and leaves the others at their defaults.
    """

    conv_weight: ConvWeight = "direct"
    conv_input: ConvInput = "direct"
    im2col_max_elements: int = 4_194_304
    pool_ties: PoolTies = "first"
    strided_conv: StridedConv = "direct"
