"""Properties by type: each reads as its Python value, and a wrongly typed one is a located diagnostic.

Every property field of an RLX op reads through its kind (`op.eps` is a float, `op.dim` an
int, `op.reduction` a str, `op.stride` a tuple), whatever the op it is declared on. An
attribute of another type where a property belongs (an integer of another width, a float
where an integer belongs and the reverse, an array of other elements) is refused by the
op's verifier, in the custom and the generic form alike, at the op's line and column.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f64, i64

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.properties import BOOL, FLOAT, INT, SIZES, STRING, PropertyValue
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.tools import rlx_opt

PYTHON_TYPES = {SIZES: tuple, INT: int, BOOL: bool, FLOAT: float, STRING: str}


def _module(body: str, args: str = "%x: tensor<2x3xf32>") -> str:
    return f"func.func @f({args}) {{\n  {body}\n  func.return\n}}\n"


def _ops(text: str) -> list:
    return [op for op in parse_module(make_context(), text).walk() if isinstance(op, rlx.RlxOpBase)]


# -- typed reads ----------------------------------------------------------------------------------


@pytest.mark.parametrize("op_class", [*rlx.FORWARD_OPS, *rlx.BACKWARD_OPS], ids=lambda op: op.name)
def test_every_property_field_reads_as_its_python_value(op_class):
    """Each field of each op is a `PropertyValue` of its property's kind: none is left an attribute."""
    definition = op_class.get_irdl_definition()
    for field, (prop_name, what) in definition.accessor_names.items():
        if what != "property":
            continue
        accessor = vars(op_class).get(field) or getattr(op_class, field)
        assert isinstance(accessor, PropertyValue), f"{op_class.name}.{field}"
        assert accessor.kind is op_class.property_kinds()[prop_name]


def test_non_geometry_properties_read_as_numbers_and_strings():
    (bn,) = _ops(_module(
        "%y, %m, %s, %rm, %rv = rlx.batch_norm %x, %c, %c, %c, %c momentum 0.25 eps 1.0e-3 : "
        "(tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> "
        "(tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)",
        "%x: tensor<2x3xf32>, %c: tensor<3xf32>",
    ))
    assert (bn.eps, bn.momentum) == (1.0e-3, 0.25) and type(bn.eps) is float
    softmax, total, gelu, mean = _ops(_module(
        "%s = rlx.softmax %x dim 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
        "  %l, %w = rlx.nll_loss %x, %t, %c reduction \"sum\" : "
        "(tensor<2x3xf32>, tensor<2xi64>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>)\n"
        "  %g = rlx.gelu %x approximate \"tanh\" : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
        "  %m = rlx.mean %x dims [1] keepdim true : (tensor<2x3xf32>) -> tensor<2x1xf32>",
        "%x: tensor<2x3xf32>, %t: tensor<2xi64>, %c: tensor<3xf32>",
    ))
    assert softmax.dim == 1 and type(softmax.dim) is int
    assert (total.reduction, total.ignore_index) == ("sum", -100)
    assert gelu.approximate == "tanh"
    assert (mean.dims, mean.keepdim) == ((1,), True)


def test_a_property_left_out_reads_as_its_default_and_can_be_set():
    (relu,) = _ops(_module("%y = rlx.leaky_relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>"))
    assert relu.negative_slope == 0.01
    relu.negative_slope = 0.5
    assert relu.properties["negative_slope"] == FloatAttr(0.5, f64)
    relu.negative_slope = FloatAttr(0.25, f64)
    assert relu.negative_slope == 0.25


def test_geometry_reads_by_name_as_before():
    (pool,) = _ops(_module(
        "%y = rlx.max_pool2d %x kernel_size [1, 1] stride [1, 1] padding [0, 0] : "
        "(tensor<1x1x2x3xf32>) -> tensor<1x1x2x3xf32>",
        "%x: tensor<1x1x2x3xf32>",
    ))
    assert pool.geometry_value("stride") == pool.property_value("stride") == pool.stride == (1, 1)
    assert pool.ceil_mode is False


def test_every_kind_reads_as_its_python_type():
    assert {kind: type(kind.from_attribute(kind.to_attribute(value))) for kind, value in [
        (SIZES, (1, 2)), (INT, 3), (BOOL, True), (FLOAT, 0.5), (STRING, "mean"),
    ]} == PYTHON_TYPES
    assert INT.from_attribute(IntegerAttr(7, i64)) == 7


# -- wrongly typed properties ---------------------------------------------------------------------

# (op, its operands and types, the generic form's properties with `{}` for the mistyped one,
# the custom form with `{}` for its attribute dictionary), by property name.
OPS = {
    "groups": (
        "rlx.conv2d",
        '"rlx.conv2d"(%x, %w) <{{stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, '
        "dilation = array<i64: 1, 1>, groups = {}}}> : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>",
        "rlx.conv2d %x, %w stride [1, 1] padding [0, 0] attributes {{groups = {}}} : "
        "(tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>",
    ),
    "dilation": (
        "rlx.conv2d",
        '"rlx.conv2d"(%x, %w) <{{stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, '
        "dilation = {}, groups = 1 : i64}}> : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>",
        "rlx.conv2d %x, %w stride [1, 1] padding [0, 0] attributes {{dilation = {}}} : "
        "(tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>",
    ),
    "negative_slope": (
        "rlx.leaky_relu",
        '"rlx.leaky_relu"(%v) <{{negative_slope = {}}}> : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "rlx.leaky_relu %v attributes {{negative_slope = {}}} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
    ),
    "keepdim": (
        "rlx.sum",
        '"rlx.sum"(%v) <{{dims = array<i64: 1>, keepdim = {}}}> : (tensor<2x3xf32>) -> tensor<2x1xf32>',
        "rlx.sum %v dims [1] attributes {{keepdim = {}}} : (tensor<2x3xf32>) -> tensor<2x1xf32>",
    ),
    "approximate": (
        "rlx.gelu",
        '"rlx.gelu"(%v) <{{approximate = {}}}> : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "rlx.gelu %v attributes {{approximate = {}}} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
    ),
    "dim": (
        "rlx.softmax",
        '"rlx.softmax"(%v) <{{dim = {}}}> : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "rlx.softmax %v dim 1 attributes {{dim = {}}} : (tensor<2x3xf32>) -> tensor<2x3xf32>",
    ),
}
ARGS = "%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %v: tensor<2x3xf32>"

# (property, the attribute it is given, what the diagnostic says it expected)
MISTYPED = [
    ("groups", "1 : i632", "to be an i64 integer"),
    ("groups", "1 : i32", "to be an i64 integer"),
    ("groups", "1 : i1", "to be an i64 integer"),
    ("groups", "1.0 : f64", "to be an i64 integer"),
    ("groups", '"1"', "to be an i64 integer"),
    ("dim", "1 : i632", "to be an i64 integer"),
    ("dim", "1.0 : f64", "to be an i64 integer"),
    ("dilation", "array<i32: 1, 1>", "to be array<i64: ...>"),
    ("dilation", "array<f64: 1.0, 1.0>", "to be array<i64: ...>"),
    ("dilation", "1 : i64", "to be array<i64: ...>"),
    ("negative_slope", "2 : i64", "to be an f64 float"),
    ("negative_slope", "2.0 : f32", "to be an f64 float"),
    ("negative_slope", "true", "to be an f64 float"),
    ("keepdim", "1 : i64", "to be true or false"),
    ("keepdim", "1.0 : f64", "to be true or false"),
    ("approximate", "1 : i64", "to be a string"),
]


def run_rlx_opt(tmp_path, text: str) -> tuple[int, str]:
    path = tmp_path / "input.mlir"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = rlx_opt.main([str(path)])
    return code, err.getvalue().replace(str(path), "input.mlir")


@pytest.mark.parametrize("form", ["generic", "custom"])
@pytest.mark.parametrize("name, attr, expected", MISTYPED, ids=lambda v: v if isinstance(v, str) else None)
def test_a_mistyped_property_is_a_located_verifier_diagnostic(tmp_path, form, name, attr, expected):
    op_name, generic, custom = OPS[name]
    body = (generic if form == "generic" else custom).format(attr)
    code, err = run_rlx_opt(tmp_path, _module(f"%y = {body}", ARGS))
    assert code == 1, err
    assert re.match(rf"input\.mlir:2:8: error: '{op_name}' op expected '{name}' {re.escape(expected)}, got ", err), err


@pytest.mark.parametrize("form", ["generic", "custom"])
def test_an_array_of_elements_wider_than_64_bits_is_located(tmp_path, form):
    """`array<i632: 1, 1>` is valid MLIR that xDSL cannot hold: a diagnostic at the op, not an internal error."""
    _, generic, custom = OPS["dilation"]
    body = (generic if form == "generic" else custom).format("array<i632: 1, 1>")
    code, err = run_rlx_opt(tmp_path, _module(f"%y = {body}", ARGS))
    assert code == 1, err
    assert err.startswith(
        "input.mlir:2:8: error: 'rlx.conv2d' op expected array elements of at most 64 bits, got an array<i632: ...>"
    ), err


def test_a_well_typed_attribute_beside_its_property_is_refused(tmp_path):
    """xDSL would keep `groups = 2` beside the property `groups` (1) and ignore it; MLIR reads it as the property."""
    _, _, custom = OPS["groups"]
    code, err = run_rlx_opt(tmp_path, _module(f"%y = {custom.format('2 : i64')}", ARGS))
    assert code == 1, err
    assert "'rlx.conv2d' op expected 'groups' as a property (the custom form's `groups`), got a discardable attribute" in err


@pytest.mark.parametrize("name", sorted(OPS))
def test_the_cases_are_valid_with_the_right_type(tmp_path, name):
    """Each case's op verifies with an attribute of the right type: only the type is wrong above."""
    right = {"groups": "1 : i64", "dim": "1 : i64", "dilation": "array<i64: 1, 1>", "negative_slope": "2.0 : f64",
             "keepdim": "true", "approximate": '"tanh"'}[name]
    _, generic, _ = OPS[name]
    code, err = run_rlx_opt(tmp_path, _module(f"%y = {generic.format(right)}", ARGS))
    assert code == 0, err
