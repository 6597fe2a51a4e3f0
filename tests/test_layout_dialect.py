"""The layout ops from Python: built with `build_with` as the importer and the autodiff
pass build them (variadic inputs and results included), and read back."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import TensorType, f32, f64, i64
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects import rlx


def _args(*types):
    return Block(arg_types=list(types)).args


def test_concat_builds_from_any_number_of_inputs():
    for count in range(1, 5):
        inputs = _args(*[TensorType(i64, [2, k + 1]) for k in range(count)])
        op = rlx.ConcatOp.build_with(inputs, TensorType(i64, [2, sum(range(1, count + 1))]), dim=1)
        op.verify()
        assert list(op.inputs) == list(inputs) and op.geometry_value("dim") == 1


def test_split_builds_from_a_list_of_result_types():
    (x,) = _args(TensorType(f64, [4, 5]))
    op = rlx.SplitOp.build_with([x], [TensorType(f64, [4, 2]), TensorType(f64, [4, 3])], dim=1, sizes=[2, 3])
    op.verify()
    assert [r.type.get_shape() for r in op.pieces] == [(4, 2), (4, 3)]
    assert op.geometry_value("sizes") == (2, 3)


def test_slice_step_defaults_to_one():
    (x,) = _args(TensorType(f32, [2, 7]))
    op = rlx.SliceOp.build_with([x], TensorType(f32, [2, 5]), dim=1, start=1, end=6)
    op.verify()
    assert op.geometry() == (1, 1, 6, 1)


def test_slice_needs_its_bounds():
    (x,) = _args(TensorType(f32, [2, 7]))
    with pytest.raises(TypeError, match="needs the property 'end'"):
        rlx.SliceOp.build_with([x], TensorType(f32, [2, 5]), dim=1, start=1)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda x: rlx.PermuteOp.build_with([x], TensorType(f32, [7, 2]), dims=[0, 0]), "permutation of [0, 2)"),
        (lambda x: rlx.ReshapeOp.build_with([x], TensorType(i64, [14])), "element type of the input, f32"),
        (lambda x: rlx.ExpandOp.build_with([x], TensorType(f32, [3, 7])), "input dim 0 (size 2) to be 1"),
        (lambda x: rlx.SliceBackwardOp.build_with([x], TensorType(f32, [2, 3]), dim=1, start=0, end=3),
         "expected the grad_output type to be tensor<2x3xf32>"),
    ],
    ids=["permute", "reshape", "expand", "slice_backward"],
)
def test_built_op_verifies_with_worded_message(build, message):
    (x,) = _args(TensorType(f32, [2, 7]))
    with pytest.raises(VerifyException, match=re.escape(message)):
        build(x).verify()
