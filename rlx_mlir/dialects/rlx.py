"""The RLX dialect: the forward and backward ML ops of RLX's training graphs.

Every op works on ranked tensors in NCHW layout and keeps its element type. Geometry is
stored as properties: `i64` dense arrays for the 2-D values, an `i64` integer for
`groups`, a bool for `count_include_pad`. The generic form always carries every property,
so that the IRDL description upstream MLIR loads can require them all. The custom form
omits the properties that are at their PyTorch default (see `PropertySpec.default`).

Custom assembly, shared by every op:

    %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1]
            : (tensor<8x64x56x56xf32>, tensor<8x64x56x56xf32>) -> tensor<64x64x3x3xf32>

Only the batch dimension may be dynamic. Verifiers check every shape against
`rlx_mlir.geometry`, which also serves the rewrite patterns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.geometry import GeometryError, Pair, Window2d

# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------

I1 = IntegerType(1)


@dataclass(frozen=True)
class PropertySpec:
    """One geometry property: its name, its kind and its default in the custom form.

    `kind` is "pair" (an `array<i64: a, b>`), "int" (an `i64` integer) or "bool".
    A property with a default may be left out of the custom form; the generic form and
    the IRDL description always require it.
    """

    name: str
    kind: str
    default: tuple[int, int] | int | bool | None = None

    def to_attribute(self, value: tuple[int, ...] | int | bool) -> Attribute:
        if self.kind == "pair":
            return DenseArrayBase.from_list(i64, list(value))  # type: ignore[arg-type]
        if self.kind == "int":
            return IntegerAttr(int(value), i64)  # type: ignore[arg-type]
        return IntegerAttr(int(bool(value)), I1)

    def from_attribute(self, attr: Attribute) -> tuple[int, ...] | int | bool:
        if self.kind == "pair":
            assert isinstance(attr, DenseArrayBase)
            return tuple(attr.get_values())  # type: ignore[arg-type]
        assert isinstance(attr, IntegerAttr)
        if self.kind == "int":
            return attr.value.data
        return bool(attr.value.data)


KERNEL_SIZE = PropertySpec("kernel_size", "pair")
STRIDE = PropertySpec("stride", "pair")
PADDING = PropertySpec("padding", "pair")
DILATION = PropertySpec("dilation", "pair", (1, 1))
OUTPUT_PADDING = PropertySpec("output_padding", "pair", (0, 0))
GROUPS = PropertySpec("groups", "int", 1)
COUNT_INCLUDE_PAD = PropertySpec("count_include_pad", "bool", True)

PAIR_ATTR = DenseArrayBase.constr(i64)
INT_ATTR = IntegerAttr.constr(type=i64)
BOOL_ATTR = IntegerAttr.constr(type=I1)

FLOAT_TENSOR = TensorType.constr(AnyFloat)


def _pair_prop():
    return prop_def(PAIR_ATTR)


# --------------------------------------------------------------------------------------
# Shape helpers for verifiers
# --------------------------------------------------------------------------------------


def _is_dynamic(dim: int) -> bool:
    return dim == DYNAMIC_INDEX or dim < 0


def _fmt_shape(shape: Sequence[int]) -> str:
    return "x".join("?" if _is_dynamic(d) else str(d) for d in shape)


def _tensor(value: SSAValue) -> TensorType:
    assert isinstance(value.type, TensorType)
    return value.type


class RlxOp(IRDLOperation):
    """Shared custom syntax, property access and verification scaffolding of RLX ops.

    Subclasses list their geometry properties in `PROPERTIES` (in printing order) and
    their operand names in `OPERAND_NAMES` (for messages), and implement
    `verify_shapes`, raising `VerifyException` with a sentence that says what was expected.
    """

    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = ()
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ()

    # -- construction ------------------------------------------------------------------

    @classmethod
    def build_with(
        cls,
        operands: Sequence[SSAValue | Operation],
        result_type: Attribute,
        **geometry: tuple[int, int] | int | bool,
    ):
        """Build from Python values; properties with a default may be omitted."""
        known = {spec.name for spec in cls.PROPERTIES}
        unknown = set(geometry) - known
        if unknown:
            raise TypeError(f"{cls.name} has no properties {sorted(unknown)}")
        properties: dict[str, Attribute] = {}
        for spec in cls.PROPERTIES:
            value = geometry.get(spec.name, spec.default)
            if value is None:
                raise TypeError(f"{cls.name} needs the property '{spec.name}'")
            properties[spec.name] = spec.to_attribute(value)
        return cls(operands=list(operands), result_types=[result_type], properties=properties)

    def check_property_kinds(self) -> None:
        """Each geometry property present has its kind's attribute type, else a message naming it.

        xDSL's own property check runs first in `verify()` and reports only
        `Expected attribute i64 but got i32`; this says which property and what it should be.
        """
        expected = {"pair": "array<i64: ...>", "int": "an i64 integer", "bool": "true or false"}
        for spec in self.PROPERTIES:
            attr = self.properties.get(spec.name)
            if attr is None:
                raise VerifyException(f"expected the property '{spec.name}' ({expected[spec.kind]})")
            if spec.kind == "pair":
                ok = isinstance(attr, DenseArrayBase) and attr.elt_type == i64
            else:
                ok = isinstance(attr, IntegerAttr) and attr.type == (i64 if spec.kind == "int" else I1)
            if not ok:
                raise VerifyException(f"expected '{spec.name}' to be {expected[spec.kind]}, got {attr}")

    def geometry_value(self, name: str):
        spec = next(s for s in self.PROPERTIES if s.name == name)
        return spec.from_attribute(self.properties[name])

    # -- custom assembly format --------------------------------------------------------

    def print(self, printer: Printer):
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        for spec in self.PROPERTIES:
            value = self.geometry_value(spec.name)
            if spec.default is not None and value == spec.default:
                continue
            printer.print_string(f" {spec.name} ")
            if spec.kind == "pair":
                printer.print_string("[" + ", ".join(str(v) for v in value) + "]")
            elif spec.kind == "bool":
                printer.print_string("true" if value else "false")
            else:
                printer.print_string(str(value))
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" : ")
        printer.print_function_type(
            [o.type for o in self.operands], [r.type for r in self.results]
        )

    @classmethod
    def parse(cls, parser: Parser):
        operands = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        by_name = {spec.name: spec for spec in cls.PROPERTIES}
        values: dict[str, tuple[int, ...] | int | bool] = {}
        while (keyword := parser.parse_optional_keyword_in(by_name)) is not None:
            if keyword in values:
                parser.raise_error(f"property '{keyword}' is given twice")
            spec = by_name[keyword]
            if spec.kind == "pair":
                values[keyword] = tuple(
                    parser.parse_comma_separated_list(
                        Parser.Delimiter.SQUARE, parser.parse_integer
                    )
                )
            elif spec.kind == "bool":
                values[keyword] = parser.parse_boolean()
            else:
                values[keyword] = parser.parse_integer()
        missing = [
            s.name for s in cls.PROPERTIES if s.name not in values and s.default is None
        ]
        if missing:
            parser.raise_error(
                f"'{cls.name}' expects the properties {', '.join(missing)}"
                + (f" (optional: {', '.join(s.name for s in cls.PROPERTIES if s.default is not None)})"
                   if any(s.default is not None for s in cls.PROPERTIES) else "")
            )
        attributes = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation(":")
        pos = parser.pos
        function_type = parser.parse_function_type()
        if len(function_type.inputs) != len(operands):
            parser.raise_error(
                f"'{cls.name}' has {len(operands)} operands but the type lists "
                f"{len(function_type.inputs)}",
                pos,
                parser.pos,
            )
        if len(function_type.outputs) != 1:
            parser.raise_error(
                f"'{cls.name}' has one result but the type lists {len(function_type.outputs)}",
                pos,
                parser.pos,
            )
        resolved = parser.resolve_operands(operands, function_type.inputs.data, pos)
        properties = {
            spec.name: spec.to_attribute(values.get(spec.name, spec.default))  # type: ignore[arg-type]
            for spec in cls.PROPERTIES
        }
        op = cls(
            operands=resolved,
            result_types=list(function_type.outputs.data),
            properties=properties,
        )
        if attributes is not None:
            op.attributes.update(attributes.data)
        return op

    # -- verification -------------------------------------------------------------------

    def verify_(self) -> None:
        for spec in self.PROPERTIES:
            if spec.kind == "pair":
                value = self.geometry_value(spec.name)
                if len(value) != 2:
                    raise VerifyException(
                        f"expected '{spec.name}' to have 2 values (height, width), got {len(value)}"
                    )
        types = [_tensor(v) for v in (*self.operands, *self.results)]
        element_types = {t.element_type for t in types}
        if len(element_types) != 1:
            listed = ", ".join(str(t) for t in types)
            raise VerifyException(f"expected all operands and the result to have one element type, got {listed}")
        batched = self.batched_values()
        for name, value in zip((*self.OPERAND_NAMES, "result"), (*self.operands, *self.results)):
            shape = _tensor(value).get_shape()
            if name not in batched and any(_is_dynamic(d) for d in shape):
                raise VerifyException(f"expected the {name} to have a static shape, got {value.type}")
            if any(_is_dynamic(d) for d in shape[1:]):
                raise VerifyException(
                    f"expected only the leading (batch) dimension of the {name} to be dynamic, "
                    f"got {value.type}"
                )
        try:
            self.verify_shapes()
        except GeometryError as error:
            raise VerifyException(str(error)) from None

    def verify_shapes(self) -> None:
        raise NotImplementedError

    def batched_values(self) -> set[str]:
        """Operands (and "result") whose leading dimension is the batch, the one that may be dynamic.

        Weights carry no batch: every dimension of a weight must be static.
        """
        return {name for name in (*self.OPERAND_NAMES, "result") if name != "weight"}

    # -- helpers for subclasses ------------------------------------------------------------

    def shape_of(self, index: int, rank: int | tuple[int, ...]) -> tuple[int, ...]:
        """The shape of operand `index` (or the result, index -1), rank-checked."""
        value = self.results[0] if index == -1 else self.operands[index]
        name = "result" if index == -1 else self.OPERAND_NAMES[index]
        shape = _tensor(value).get_shape()
        ranks = (rank,) if isinstance(rank, int) else rank
        if len(shape) not in ranks:
            expected = " or ".join(str(r) for r in ranks)
            raise VerifyException(f"expected the {name} to have rank {expected}, got {value.type}")
        return shape

    def expect_result_shape(self, expected: Sequence[int]) -> None:
        got = _tensor(self.results[0]).get_shape()
        if tuple(got) != tuple(expected):
            element = _tensor(self.results[0]).element_type
            raise VerifyException(
                f"expected the result type to be tensor<{_fmt_shape(expected)}x{element}> "
                f"as the geometry implies, got tensor<{_fmt_shape(got)}x{element}>"
            )

    def window(self) -> Window2d:
        """The op's window geometry, validated; the kernel comes from `kernel_size` or the weight."""
        names = {s.name for s in self.PROPERTIES}
        kernel = self.geometry_value("kernel_size") if "kernel_size" in names else self.weight_kernel()
        window = Window2d(
            kernel=kernel,
            stride=self.geometry_value("stride"),
            padding=self.geometry_value("padding"),
            dilation=self.geometry_value("dilation") if "dilation" in names else (1, 1),
        )
        window.validate()
        return window

    def weight_kernel(self) -> Pair:
        raise NotImplementedError

    def groups(self) -> int:
        groups = self.geometry_value("groups")
        if groups < 1:
            raise VerifyException(f"expected groups to be positive, got {groups}")
        return groups


def _same_batch(op: RlxOp, a: tuple[int, ...], a_name: str, b: tuple[int, ...], b_name: str) -> None:
    if a[0] != b[0]:
        raise VerifyException(
            f"expected the {a_name} and the {b_name} to have the same batch size, got "
            f"{_fmt_shape(a[:1])} and {_fmt_shape(b[:1])}"
        )


def _divisible(channels: int, groups: int, what: str) -> None:
    if channels % groups:
        raise VerifyException(f"expected the {what} channels ({channels}) to be divisible by groups ({groups})")


# --------------------------------------------------------------------------------------
# Forward ops
# --------------------------------------------------------------------------------------


@irdl_op_definition
class Conv2dOp(RlxOp):
    """`y = conv2d(x, w)`: x [N,C,H,W], w [F,C/g,KH,KW] -> y [N,F,Ho,Wo] (PyTorch's F.conv2d)."""

    name = "rlx.conv2d"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (STRIDE, PADDING, DILATION, GROUPS)
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("input", "weight")

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    stride = _pair_prop()
    padding = _pair_prop()
    dilation = _pair_prop()
    groups_ = prop_def(INT_ATTR, prop_name="groups")
    traits = traits_def(NoMemoryEffect())

    def weight_kernel(self) -> Pair:
        shape = _tensor(self.weight).get_shape()
        return (shape[2], shape[3])

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        w = self.shape_of(1, 4)
        self.shape_of(-1, 4)
        groups = self.groups()
        _divisible(x[1], groups, "input")
        _divisible(w[0], groups, "output (weight dimension 0)")
        if w[1] * groups != x[1]:
            raise VerifyException(
                f"expected weight dimension 1 to be input channels / groups = {x[1] // groups}, got {w[1]}"
            )
        out = self.window().output_size((x[2], x[3]))
        self.expect_result_shape((x[0], w[0], *out))


@irdl_op_definition
class ConvTranspose2dOp(RlxOp):
    """`y = conv_transpose2d(x, w)`: x [N,C,H,W], w [C,F/g,KH,KW] -> y [N,F,Ho,Wo] (F.conv_transpose2d)."""

    name = "rlx.conv_transpose2d"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (STRIDE, PADDING, DILATION, OUTPUT_PADDING, GROUPS)
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("input", "weight")

    input = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    stride = _pair_prop()
    padding = _pair_prop()
    dilation = _pair_prop()
    output_padding = _pair_prop()
    groups_ = prop_def(INT_ATTR, prop_name="groups")
    traits = traits_def(NoMemoryEffect())

    def weight_kernel(self) -> Pair:
        shape = _tensor(self.weight).get_shape()
        return (shape[2], shape[3])

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        w = self.shape_of(1, 4)
        self.shape_of(-1, 4)
        groups = self.groups()
        _divisible(x[1], groups, "input")
        if w[0] != x[1]:
            raise VerifyException(f"expected weight dimension 0 to be the input channels ({x[1]}), got {w[0]}")
        window = self.window()
        output_padding = self.geometry_value("output_padding")
        if len(output_padding) != 2:
            raise VerifyException(f"expected 'output_padding' to have 2 values (height, width), got {len(output_padding)}")
        for i in range(2):
            bound = max(window.stride[i], window.dilation[i])
            if not 0 <= output_padding[i] < bound:
                raise VerifyException(
                    f"expected output_padding to be non-negative and smaller than stride or dilation, "
                    f"got {list(output_padding)} with stride {list(window.stride)} and dilation {list(window.dilation)}"
                )
        out = window.transpose_output_size((x[2], x[3]), output_padding)
        self.expect_result_shape((x[0], w[1] * groups, *out))


class _PoolOp(RlxOp):
    """Shared verifier of the forward pools: [N,C,H,W] -> [N,C,Ho,Wo]."""

    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("input",)

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        self.shape_of(-1, 4)
        window = self.window()
        window.validate_pool_padding()
        self.expect_result_shape((x[0], x[1], *window.output_size((x[2], x[3]))))


@irdl_op_definition
class MaxPool2dOp(_PoolOp):
    """`y = max_pool2d(x)`; padded cells never win (PyTorch pads with -inf)."""

    name = "rlx.max_pool2d"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (KERNEL_SIZE, STRIDE, PADDING)

    input = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = _pair_prop()
    stride = _pair_prop()
    padding = _pair_prop()
    traits = traits_def(NoMemoryEffect())


@irdl_op_definition
class AvgPool2dOp(_PoolOp):
    """`y = avg_pool2d(x)`; `count_include_pad` divides by the full window (PyTorch's default)."""

    name = "rlx.avg_pool2d"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (KERNEL_SIZE, STRIDE, PADDING, COUNT_INCLUDE_PAD)

    input = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = _pair_prop()
    stride = _pair_prop()
    padding = _pair_prop()
    count_include_pad = prop_def(BOOL_ATTR)
    traits = traits_def(NoMemoryEffect())


@irdl_op_definition
class MatmulOp(RlxOp):
    """`[M,K] x [K,N] -> [M,N]`, or batched `[B,M,K] x [B,K,N] -> [B,M,N]`."""

    name = "rlx.matmul"
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("lhs", "rhs")

    lhs = operand_def(FLOAT_TENSOR)
    rhs = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    traits = traits_def(NoMemoryEffect())

    def batched_values(self) -> set[str]:
        # [B,M,K] x [B,K,N]: B leads all three; [M,K] x [K,N]: only M (the rows) may vary.
        return {"lhs", "rhs", "result"} if _tensor(self.rhs).get_num_dims() == 3 else {"lhs", "result"}

    def verify_shapes(self) -> None:
        a = self.shape_of(0, (2, 3))
        b = self.shape_of(1, (2, 3))
        if len(a) != len(b):
            raise VerifyException(f"expected lhs and rhs of equal rank, got {len(a)} and {len(b)}")
        if len(a) == 3:
            _same_batch(self, a, "lhs", b, "rhs")
        if a[-1] != b[-2]:
            raise VerifyException(
                f"expected the contraction sizes to agree: lhs {self.lhs.type} has {a[-1]} columns, "
                f"rhs {self.rhs.type} has {b[-2]} rows"
            )
        self.shape_of(-1, len(a))
        self.expect_result_shape((*a[:-1], b[-1]))


@irdl_op_definition
class Im2colOp(RlxOp):
    """`cols = im2col(x)`: [N,C,H,W] -> [N*Ho*Wo, C*KH*KW], rows (n, ho, wo), columns (c, kh, kw).

    Exactly `F.unfold(x).transpose(1, 2).reshape(-1, C*KH*KW)`; padded cells read 0.
    """

    name = "rlx.im2col"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (KERNEL_SIZE, STRIDE, PADDING, DILATION)
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("input",)

    input = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = _pair_prop()
    stride = _pair_prop()
    padding = _pair_prop()
    dilation = _pair_prop()
    traits = traits_def(NoMemoryEffect())

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        self.shape_of(-1, 2)
        window = self.window()
        ho, wo = window.output_size((x[2], x[3]))
        rows = DYNAMIC_INDEX if _is_dynamic(x[0]) else x[0] * ho * wo
        self.expect_result_shape((rows, x[1] * window.kernel[0] * window.kernel[1]))


# --------------------------------------------------------------------------------------
# Backward ops
# --------------------------------------------------------------------------------------


def _check_kernel_matches(op: RlxOp, kernel: Pair, weight_shape: tuple[int, ...], what: str) -> None:
    if tuple(weight_shape[2:]) != tuple(kernel):
        raise VerifyException(
            f"expected kernel_size {list(kernel)} to match the {what} spatial size {list(weight_shape[2:])}"
        )


@irdl_op_definition
class Conv2dBackwardWeightOp(RlxOp):
    """`dw = d(loss)/dw` of `y = conv2d(x, w)`: x [N,C,H,W], dy [N,F,Ho,Wo] -> dw [F,C/g,KH,KW]."""

    name = "rlx.conv2d_backward_weight"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (KERNEL_SIZE, STRIDE, PADDING, DILATION, GROUPS)
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("input", "grad_output")

    input = operand_def(FLOAT_TENSOR)
    grad_output = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = _pair_prop()
    stride = _pair_prop()
    padding = _pair_prop()
    dilation = _pair_prop()
    groups_ = prop_def(INT_ATTR, prop_name="groups")
    traits = traits_def(NoMemoryEffect())

    def batched_values(self) -> set[str]:
        return {"input", "grad_output"}  # dw [F, C/g, KH, KW] has no batch

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        dy = self.shape_of(1, 4)
        self.shape_of(-1, 4)
        _same_batch(self, x, "input", dy, "grad_output")
        groups = self.groups()
        _divisible(x[1], groups, "input")
        _divisible(dy[1], groups, "grad_output")
        window = self.window()
        out = window.output_size((x[2], x[3]))
        if tuple(dy[2:]) != out:
            raise VerifyException(
                f"expected grad_output spatial size {list(out)} (the forward conv's output for "
                f"input {list(x[2:])}), got {list(dy[2:])}"
            )
        self.expect_result_shape((dy[1], x[1] // groups, *window.kernel))


@irdl_op_definition
class Conv2dBackwardInputOp(RlxOp):
    """`dx = d(loss)/dx` of `y = conv2d(x, w)`: dy [N,F,Ho,Wo], w [F,C/g,KH,KW] -> dx [N,C,H,W].

    dx's spatial size is the declared result type: any size that the forward conv maps to
    dy's size (up to stride - 1 sizes share one dy size).
    """

    name = "rlx.conv2d_backward_input"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (KERNEL_SIZE, STRIDE, PADDING, DILATION, GROUPS)
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("grad_output", "weight")

    grad_output = operand_def(FLOAT_TENSOR)
    weight = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = _pair_prop()
    stride = _pair_prop()
    padding = _pair_prop()
    dilation = _pair_prop()
    groups_ = prop_def(INT_ATTR, prop_name="groups")
    traits = traits_def(NoMemoryEffect())

    def verify_shapes(self) -> None:
        dy = self.shape_of(0, 4)
        w = self.shape_of(1, 4)
        dx = self.shape_of(-1, 4)
        _same_batch(self, dy, "grad_output", dx, "result")
        groups = self.groups()
        window = self.window()
        _check_kernel_matches(self, window.kernel, w, "weight")
        _divisible(w[0], groups, "output (weight dimension 0)")
        if dy[1] != w[0]:
            raise VerifyException(
                f"expected grad_output channels ({dy[1]}) to equal weight dimension 0 ({w[0]})"
            )
        if dx[1] != w[1] * groups:
            raise VerifyException(
                f"expected result channels to be weight dimension 1 x groups = {w[1] * groups}, got {dx[1]}"
            )
        window.output_size((dx[2], dx[3]))
        window.solved_output_padding((dy[2], dy[3]), (dx[2], dx[3]))


@irdl_op_definition
class MaxPool2dBackwardOp(RlxOp):
    """`dx` of `y = max_pool2d(x)`: each window's dy goes to its first maximum (PyTorch's rule)."""

    name = "rlx.max_pool2d_backward"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (KERNEL_SIZE, STRIDE, PADDING)
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("input", "grad_output")

    input = operand_def(FLOAT_TENSOR)
    grad_output = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = _pair_prop()
    stride = _pair_prop()
    padding = _pair_prop()
    traits = traits_def(NoMemoryEffect())

    def verify_shapes(self) -> None:
        x = self.shape_of(0, 4)
        dy = self.shape_of(1, 4)
        self.shape_of(-1, 4)
        window = self.window()
        window.validate_pool_padding()
        expected = (x[0], x[1], *window.output_size((x[2], x[3])))
        if tuple(dy) != expected:
            raise VerifyException(
                f"expected grad_output of shape {_fmt_shape(expected)} (the pool's output for "
                f"input {_fmt_shape(x)}), got {_fmt_shape(dy)}"
            )
        self.expect_result_shape(x)


@irdl_op_definition
class AvgPool2dBackwardOp(RlxOp):
    """`dx` of `y = avg_pool2d(x)`: dy [N,C,Ho,Wo] -> dx of the declared input shape."""

    name = "rlx.avg_pool2d_backward"
    PROPERTIES: ClassVar[tuple[PropertySpec, ...]] = (KERNEL_SIZE, STRIDE, PADDING, COUNT_INCLUDE_PAD)
    OPERAND_NAMES: ClassVar[tuple[str, ...]] = ("grad_output",)

    grad_output = operand_def(FLOAT_TENSOR)
    result = result_def(FLOAT_TENSOR)
    kernel_size = _pair_prop()
    stride = _pair_prop()
    padding = _pair_prop()
    count_include_pad = prop_def(BOOL_ATTR)
    traits = traits_def(NoMemoryEffect())

    def verify_shapes(self) -> None:
        dy = self.shape_of(0, 4)
        dx = self.shape_of(-1, 4)
        _same_batch(self, dy, "grad_output", dx, "result")
        if dy[1] != dx[1]:
            raise VerifyException(f"expected result channels to equal grad_output channels ({dy[1]}), got {dx[1]}")
        window = self.window()
        window.validate_pool_padding()
        out = window.output_size((dx[2], dx[3]))
        if tuple(dy[2:]) != out:
            raise VerifyException(
                f"expected grad_output spatial size {list(out)} (the pool's output for input "
                f"{list(dx[2:])}), got {list(dy[2:])}"
            )


FORWARD_OPS = (Conv2dOp, ConvTranspose2dOp, MaxPool2dOp, AvgPool2dOp, MatmulOp, Im2colOp)
BACKWARD_OPS = (Conv2dBackwardWeightOp, Conv2dBackwardInputOp, MaxPool2dBackwardOp, AvgPool2dBackwardOp)

RLX = Dialect("rlx", [*FORWARD_OPS, *BACKWARD_OPS], [])
