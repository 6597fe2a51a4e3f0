"""Properties by type: each reads as its Python value, and a wrongly typed one is a located diagnostic.

Every property field of an RLX op reads through its kind (`op.eps` is a float, `op.dim` an
int, `op.reduction` a str, `op.stride` a tuple), whatever the op it is declared on. An
attribute of another type where a property belongs (an integer of another width, a float
where an integer belongs and the reverse, an array of other elements) is refused by the
op's verifier, in the custom and the generic form alike, at the op's line and column.
"""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f64, i64

from rlx_mlir.dialects import rlx
from rlx_mlir.dialects.properties import BOOL, FLOAT, INT, SIZES, STRING, PropertyValue
from rlx_mlir.ir import make_context, parse_module

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
