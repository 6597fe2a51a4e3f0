"""The RLX dialect from Python: building every op, its verifier's messages, its properties.

The lit tests in `lit_tests/dialect/` cover the same ground through text; here each op is
built with `Op.build_with(operands, result_type, **geometry)`, the way passes and the
PyTorch front end build them.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field, replace

import pytest
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i32,
    i64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Region
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects import rlx
from rlx_mlir.ir import DiagnosticError, make_context, parse_module

F16, BF16, F32, F64 = Float16Type(), BFloat16Type(), Float32Type(), Float64Type()
DTYPE_NAMES = {F16: "f16", BF16: "bf16", F32: "f32", F64: "f64"}
Q = DYNAMIC_INDEX  # a dynamic dimension


def _fmt(shape) -> str:
    return "x".join("?" if d == Q else str(d) for d in shape)


@dataclass(frozen=True)
class OpCase:
    """One op configuration: operand and result shapes, geometry and element type."""

    op: type[rlx.RlxOp]
    operands: tuple[tuple[int, ...], ...]
    result: tuple[int, ...]
    geometry: dict = field(default_factory=dict, hash=False)
    dtype: Attribute = F32
    label: str = ""

    def __str__(self) -> str:
        shapes = ",".join(_fmt(s) for s in self.operands)
        return f"{self.op.name.removeprefix('rlx.')}-{self.label or shapes}-{DTYPE_NAMES[self.dtype]}"

    def with_(self, label: str = "", *, operands=None, result=None, dtype=None, **geometry) -> OpCase:
        return replace(
            self,
            operands=self.operands if operands is None else operands,
            result=self.result if result is None else result,
            geometry={**self.geometry, **geometry},
            dtype=self.dtype if dtype is None else dtype,
            label=label,
        )

    def types(self, element_types=None) -> tuple[list[TensorType], TensorType]:
        element_types = element_types or [self.dtype] * (len(self.operands) + 1)
        operand_types = [TensorType(t, s) for t, s in zip(element_types, self.operands)]
        return operand_types, TensorType(element_types[-1], self.result)

    def build(self, element_types=None) -> rlx.RlxOp:
        operand_types, result_type = self.types(element_types)
        block = Block(arg_types=operand_types)
        return self.op.build_with(block.args, result_type, **self.geometry)

    def module(self) -> ModuleOp:
        """`func.func @f(operands) -> result { return op(operands) }`."""
        operand_types, result_type = self.types()
        block = Block(arg_types=operand_types)
        op = self.op.build_with(block.args, result_type, **self.geometry)
        block.add_ops([op, ReturnOp(op.results[0])])
        func = FuncOp("f", (operand_types, [result_type]), Region(block))
        return ModuleOp([func])


# -- one valid configuration per op, then variations ------------------------------------------

CONV2D = OpCase(rlx.Conv2dOp, ((1, 4, 8, 8), (6, 4, 3, 3)), (1, 6, 8, 8), dict(stride=(1, 1), padding=(1, 1)))
CONV_T = OpCase(
    rlx.ConvTranspose2dOp, ((1, 4, 4, 4), (4, 2, 3, 3)), (1, 2, 8, 8),
    dict(stride=(2, 2), padding=(1, 1), output_padding=(1, 1)),
)
POOL = dict(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
K3 = dict(kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
MAX_POOL = OpCase(rlx.MaxPool2dOp, ((1, 4, 8, 8),), (1, 4, 4, 4), POOL)
AVG_POOL = OpCase(rlx.AvgPool2dOp, ((1, 4, 8, 8),), (1, 4, 4, 4), POOL)
MATMUL = OpCase(rlx.MatmulOp, ((4, 8), (8, 16)), (4, 16))
IM2COL = OpCase(rlx.Im2colOp, ((2, 4, 8, 8),), (128, 36), K3)
BWD_WEIGHT = OpCase(rlx.Conv2dBackwardWeightOp, ((1, 4, 8, 8), (1, 6, 8, 8)), (6, 4, 3, 3), K3)
BWD_INPUT = OpCase(rlx.Conv2dBackwardInputOp, ((1, 6, 8, 8), (6, 4, 3, 3)), (1, 4, 8, 8), K3)
MAX_POOL_BWD = OpCase(rlx.MaxPool2dBackwardOp, ((1, 4, 8, 8), (1, 4, 4, 4)), (1, 4, 8, 8), POOL)
AVG_POOL_BWD = OpCase(rlx.AvgPool2dBackwardOp, ((1, 4, 4, 4),), (1, 4, 8, 8), POOL)

BASELINES = [CONV2D, CONV_T, MAX_POOL, AVG_POOL, MATMUL, IM2COL, BWD_WEIGHT, BWD_INPUT, MAX_POOL_BWD, AVG_POOL_BWD]

# The other ranks of each family, and the 2-D ops new with them.
CONV_T_BWD_INPUT = OpCase(rlx.ConvTranspose2dBackwardInputOp, ((1, 2, 8, 8), (4, 2, 3, 3)), (1, 4, 4, 4),
                          dict(stride=(2, 2), padding=(1, 1)))
CONV_T_BWD_WEIGHT = OpCase(rlx.ConvTranspose2dBackwardWeightOp, ((1, 4, 4, 4), (1, 2, 8, 8)), (4, 2, 3, 3),
                           dict(kernel_size=(3, 3), stride=(2, 2), padding=(1, 1)))
ADAPTIVE = [
    OpCase(rlx.AdaptiveAvgPool2dOp, ((2, 3, 7, 9),), (2, 3, 3, 4)),
    OpCase(rlx.AdaptiveMaxPool2dOp, ((2, 3, 7, 9),), (2, 3, 3, 4)),
    OpCase(rlx.AdaptiveAvgPool2dBackwardOp, ((2, 3, 3, 4),), (2, 3, 7, 9)),
    OpCase(rlx.AdaptiveMaxPool2dBackwardOp, ((2, 3, 7, 9), (2, 3, 3, 4)), (2, 3, 7, 9)),
]
ONE_D = [
    OpCase(rlx.Conv1dOp, ((Q, 4, 16), (8, 4, 3)), (Q, 8, 8), dict(stride=(2,), padding=(1,))),
    OpCase(rlx.ConvTranspose1dOp, ((1, 4, 4), (4, 2, 3)), (1, 2, 8), dict(stride=(2,), padding=(1,), output_padding=(1,))),
    OpCase(rlx.MaxPool1dOp, ((1, 4, 5),), (1, 4, 3), dict(kernel_size=(2,), stride=(2,), padding=(1,), ceil_mode=True)),
    OpCase(rlx.AvgPool1dOp, ((1, 4, 8),), (1, 4, 4), dict(kernel_size=(2,), stride=(2,), padding=(0,))),
    OpCase(rlx.Im2col1dOp, ((2, 4, 8),), (16, 12), dict(kernel_size=(3,), stride=(1,), padding=(1,))),
    OpCase(rlx.Conv1dBackwardWeightOp, ((1, 4, 8), (1, 6, 8)), (6, 4, 3), dict(kernel_size=(3,), stride=(1,), padding=(1,))),
    OpCase(rlx.Conv1dBackwardInputOp, ((1, 6, 8), (6, 4, 3)), (1, 4, 8), dict(kernel_size=(3,), stride=(1,), padding=(1,))),
    OpCase(rlx.ConvTranspose1dBackwardInputOp, ((1, 2, 8), (4, 2, 3)), (1, 4, 4), dict(stride=(2,), padding=(1,))),
    OpCase(rlx.ConvTranspose1dBackwardWeightOp, ((1, 4, 4), (1, 2, 8)), (4, 2, 3),
           dict(kernel_size=(3,), stride=(2,), padding=(1,))),
    OpCase(rlx.MaxPool1dBackwardOp, ((1, 4, 8), (1, 4, 4)), (1, 4, 8), dict(kernel_size=(2,), stride=(2,), padding=(0,))),
    OpCase(rlx.AvgPool1dBackwardOp, ((1, 4, 4),), (1, 4, 8), dict(kernel_size=(2,), stride=(2,), padding=(0,))),
    OpCase(rlx.AdaptiveAvgPool1dOp, ((2, 3, 7),), (2, 3, 3)),
    OpCase(rlx.AdaptiveMaxPool1dOp, ((2, 3, 7),), (2, 3, 3)),
    OpCase(rlx.AdaptiveAvgPool1dBackwardOp, ((2, 3, 3),), (2, 3, 7)),
    OpCase(rlx.AdaptiveMaxPool1dBackwardOp, ((2, 3, 7), (2, 3, 3)), (2, 3, 7)),
]
K333 = dict(kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))
POOL3 = dict(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
THREE_D = [
    OpCase(rlx.Conv3dOp, ((1, 4, 6, 6, 6), (6, 4, 3, 3, 3)), (1, 6, 6, 6, 6), dict(stride=(1, 1, 1), padding=(1, 1, 1))),
    OpCase(rlx.ConvTranspose3dOp, ((1, 4, 3, 3, 3), (4, 2, 2, 2, 2)), (1, 2, 6, 6, 6),
           dict(stride=(2, 2, 2), padding=(0, 0, 0))),
    OpCase(rlx.MaxPool3dOp, ((2, 3, 8, 9, 10),), (2, 3, 4, 4, 5),
           dict(kernel_size=(2, 3, 3), stride=(2, 2, 2), padding=(0, 1, 1), dilation=(1, 2, 2), ceil_mode=True)),
    OpCase(rlx.AvgPool3dOp, ((1, 4, 4, 4, 4),), (1, 4, 2, 2, 2), POOL3),
    OpCase(rlx.Im2col3dOp, ((1, 2, 4, 4, 4),), (64, 54), K333),
    OpCase(rlx.Conv3dBackwardWeightOp, ((1, 4, 6, 6, 6), (1, 6, 6, 6, 6)), (6, 4, 3, 3, 3), K333),
    OpCase(rlx.Conv3dBackwardInputOp, ((Q, 6, 6, 6, 6), (6, 4, 3, 3, 3)), (Q, 4, 6, 6, 6), K333),
    OpCase(rlx.ConvTranspose3dBackwardInputOp, ((1, 2, 6, 6, 6), (4, 2, 2, 2, 2)), (1, 4, 3, 3, 3),
           dict(stride=(2, 2, 2), padding=(0, 0, 0))),
    OpCase(rlx.ConvTranspose3dBackwardWeightOp, ((1, 4, 3, 3, 3), (1, 2, 6, 6, 6)), (4, 2, 2, 2, 2),
           dict(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))),
    OpCase(rlx.MaxPool3dBackwardOp, ((1, 4, 4, 4, 4), (1, 4, 2, 2, 2)), (1, 4, 4, 4, 4), POOL3),
    OpCase(rlx.AvgPool3dBackwardOp, ((1, 4, 2, 2, 2),), (1, 4, 4, 4, 4), POOL3),
    OpCase(rlx.AdaptiveAvgPool3dOp, ((2, 3, 5, 7, 9),), (2, 3, 2, 3, 4)),
    OpCase(rlx.AdaptiveMaxPool3dOp, ((2, 3, 5, 7, 9),), (2, 3, 2, 3, 4)),
    OpCase(rlx.AdaptiveAvgPool3dBackwardOp, ((2, 3, 2, 3, 4),), (2, 3, 5, 7, 9)),
    OpCase(rlx.AdaptiveMaxPool3dBackwardOp, ((2, 3, 5, 7, 9), (2, 3, 2, 3, 4)), (2, 3, 5, 7, 9)),
]

VALID = [
    *BASELINES,
    CONV_T_BWD_INPUT,
    CONV_T_BWD_WEIGHT,
    *ADAPTIVE,
    *ONE_D,
    *THREE_D,
    CONV2D.with_("per-side-padding", result=(1, 6, 7, 9), padding=(0, 1, 1, 2)),
    CONV2D.with_("same-even-kernel", operands=((1, 4, 8, 8), (6, 4, 2, 4)), result=(1, 6, 8, 8), padding=(0, 1, 1, 2)),
    CONV_T.with_("per-side-padding", result=(1, 2, 9, 8), padding=(0, 1, 1, 1)),
    CONV_T_BWD_INPUT.with_("output-padding-past-stride", operands=((1, 2, 16, 13), (4, 2, 3, 3)), result=(1, 4, 4, 4),
                           stride=(3, 2), padding=(1, 1), dilation=(4, 4)),
    MAX_POOL.with_("ceil-changes-size", operands=((1, 4, 7, 7),), result=(1, 4, 4, 4), ceil_mode=True),
    MAX_POOL.with_("ceil-keeps-size", operands=((1, 4, 8, 8),), result=(1, 4, 4, 4), ceil_mode=True),
    MAX_POOL.with_("dilated-per-side", operands=((1, 4, 9, 9),), result=(1, 4, 3, 3), kernel_size=(3, 3),
                   padding=(1, 0, 0, 1), dilation=(2, 2)),
    AVG_POOL.with_("ceil-divisor-override", operands=((1, 4, 7, 7),), result=(1, 4, 4, 4), ceil_mode=True,
                   divisor_override=3),
    AVG_POOL_BWD.with_("ceil-exclude-pad", operands=((1, 4, 4, 4),), result=(1, 4, 7, 7), kernel_size=(3, 3),
                       padding=(1, 1), ceil_mode=True, count_include_pad=False),
    MAX_POOL_BWD.with_("ceil-dilated", operands=((1, 4, 7, 7), (1, 4, 3, 3)), result=(1, 4, 7, 7),
                       kernel_size=(2, 2), dilation=(2, 2), ceil_mode=True),
    CONV2D.with_("grouped-dilated-stride2-dynbatch", operands=((Q, 4, 9, 9), (6, 2, 3, 3)), result=(Q, 6, 4, 4),
                 stride=(2, 2), dilation=(2, 2), groups=2),
    CONV2D.with_("depthwise-f64", operands=((2, 4, 8, 8), (4, 1, 3, 3)), result=(2, 4, 8, 8), groups=4, dtype=F64),
    CONV_T.with_("grouped-f16", operands=((1, 4, 5, 5), (4, 3, 3, 3)), result=(1, 6, 7, 7),
                 stride=(1, 1), padding=(0, 0), output_padding=(0, 0), groups=2, dtype=F16),
    CONV_T.with_("dilation-bounds-output-padding", result=(1, 2, 12, 12), stride=(1, 1), padding=(0, 0),
                 dilation=(3, 3), output_padding=(2, 2)),
    MAX_POOL.with_("padded-bf16-dynbatch", operands=((Q, 4, 8, 8),), result=(Q, 4, 4, 4),
                   kernel_size=(3, 3), padding=(1, 1), dtype=BF16),
    AVG_POOL.with_("exclude-pad", operands=((1, 4, 8, 8),), result=(1, 4, 8, 8), kernel_size=(3, 3),
                   stride=(1, 1), padding=(1, 1), count_include_pad=False),
    MATMUL.with_("batched-dynbatch-f64", operands=((Q, 4, 8), (Q, 8, 16)), result=(Q, 4, 16), dtype=F64),
    MATMUL.with_("dynamic-rows", operands=((Q, 8), (8, 16)), result=(Q, 16)),
    IM2COL.with_("dynbatch-dilated", operands=((Q, 3, 8, 8),), result=(Q, 27), stride=(2, 2), padding=(2, 2),
                 dilation=(2, 2)),
    BWD_WEIGHT.with_("grouped-dilated-f16", operands=((2, 4, 9, 9), (2, 6, 4, 4)), result=(6, 2, 3, 3),
                     stride=(2, 2), dilation=(2, 2), groups=2, dtype=F16),
    BWD_INPUT.with_("stride2-in8", operands=((Q, 6, 4, 4), (6, 4, 3, 3)), result=(Q, 4, 8, 8), stride=(2, 2)),
    BWD_INPUT.with_("stride2-in7", operands=((Q, 6, 4, 4), (6, 4, 3, 3)), result=(Q, 4, 7, 7), stride=(2, 2)),
    MAX_POOL_BWD.with_("dynbatch-f64", operands=((Q, 4, 8, 8), (Q, 4, 4, 4)), result=(Q, 4, 8, 8), dtype=F64),
    AVG_POOL_BWD.with_("exclude-pad-bf16", operands=((1, 4, 4, 4),), kernel_size=(3, 3), padding=(1, 1),
                       count_include_pad=False, dtype=BF16),
]


def test_every_op_has_a_valid_case():
    """Every conv, pool and matmul op (the ops of the PyTorch import's families have their
    cases in their own modules, `tests/numeric/test_<family>_ops.py`)."""
    geometry_ops = {op for op in rlx.RLX.operations if op.__module__.rsplit(".", 1)[-1] in ("conv", "pool", "matmul")}
    assert {case.op for case in VALID} == geometry_ops


@pytest.mark.parametrize("case", VALID, ids=str)
def test_build_with_verifies(case):
    op = case.build()
    op.verify()
    assert [tuple(v.type.get_shape()) for v in op.operands] == list(case.operands)
    assert tuple(op.results[0].type.get_shape()) == case.result
    for name in case.op.property_kinds():
        want = case.geometry.get(name, case.op.property_defaults().get(name))
        assert op.geometry_value(name) == want, name


@pytest.mark.parametrize("case", VALID, ids=str)
def test_module_verifies_through_the_located_verifier(case):
    from rlx_mlir.ir import verify_module

    verify_module(case.module())


def test_build_with_fills_in_defaults():
    op = CONV2D.build()
    assert op.properties["dilation"] == DenseArrayBase.from_list(i64, [1, 1])
    assert op.properties["groups"] == IntegerAttr(1, i64)
    pool = AVG_POOL.build()
    assert pool.geometry_value("count_include_pad") is True


def test_build_with_requires_the_properties_without_default():
    operand_types, result_type = CONV2D.types()
    block = Block(arg_types=operand_types)
    with pytest.raises(TypeError, match="rlx.conv2d needs the property 'padding'"):
        rlx.Conv2dOp.build_with(block.args, result_type, stride=(1, 1))


def test_build_with_rejects_unknown_properties():
    operand_types, result_type = CONV2D.types()
    block = Block(arg_types=operand_types)
    with pytest.raises(TypeError, match=r"rlx.conv2d has no properties \['kernel_size'\]"):
        rlx.Conv2dOp.build_with(block.args, result_type, stride=(1, 1), padding=(1, 1), kernel_size=(3, 3))


# -- the verifier: one case per error class -------------------------------------------------

def _bad(cls: str, case: OpCase, message: str, element_types=None):
    return pytest.param(case, message, element_types, id=f"{cls}-{case.op.name.removeprefix('rlx.')}")


INVALID = [
    _bad("wrong-rank", CONV2D.with_(operands=((1, 4, 8), (6, 4, 3, 3))),
         "expected the input to have rank 4, got tensor<1x4x8xf32>"),
    _bad("wrong-rank", MATMUL.with_(operands=((4,), (8, 16))), "expected the lhs to have rank 2 or 3, got tensor<4xf32>"),
    _bad("wrong-rank", IM2COL.with_(result=(2, 64, 36)), "expected the result to have rank 2, got tensor<2x64x36xf32>"),
    _bad("wrong-array-length", MAX_POOL.with_(kernel_size=(2, 2, 2)),
         r"expected 'kernel_size' to have 2 values \(height, width\), got 3"),
    _bad("wrong-array-length", CONV_T.with_(output_padding=(1,)),
         r"expected 'output_padding' to have 2 values \(height, width\), got 1"),
    _bad("zero-kernel", BWD_WEIGHT.with_(kernel_size=(0, 3)), r"expected kernel_size to be positive, got \[0, 3\]"),
    _bad("zero-kernel-from-weight", CONV2D.with_(operands=((1, 4, 8, 8), (6, 4, 3, 0))),
         r"expected kernel_size to be positive, got \[3, 0\]"),
    _bad("zero-stride", AVG_POOL.with_(stride=(0, 2)), r"expected stride to be positive, got \[0, 2\]"),
    _bad("negative-stride", BWD_INPUT.with_(stride=(1, -1)), r"expected stride to be positive, got \[1, -1\]"),
    _bad("zero-dilation", IM2COL.with_(dilation=(0, 1)), r"expected dilation to be positive, got \[0, 1\]"),
    _bad("negative-padding", MAX_POOL_BWD.with_(padding=(-1, 0)), r"expected padding to be non-negative, got \[-1, 0\]"),
    _bad("groups-not-dividing-input", CONV2D.with_(operands=((1, 4, 8, 8), (6, 1, 3, 3)), groups=3),
         r"expected the input channels \(4\) to be divisible by groups \(3\)"),
    _bad("groups-not-dividing-output", BWD_INPUT.with_(operands=((1, 6, 8, 8), (6, 1, 3, 3)), groups=4),
         r"expected the output \(weight dimension 0\) channels \(6\) to be divisible by groups \(4\)"),
    _bad("groups-not-dividing-grad-output", BWD_WEIGHT.with_(operands=((1, 4, 8, 8), (1, 5, 8, 8)), result=(5, 2, 3, 3),
                                                             groups=2),
         r"expected the grad_output channels \(5\) to be divisible by groups \(2\)"),
    _bad("nonpositive-groups", CONV_T.with_(groups=0), "expected groups to be positive, got 0"),
    _bad("mixed-element-types", CONV2D,
         "expected all operands and the result to have one element type, got f32 and f16", [F32, F16, F32]),
    _bad("mixed-element-types", MATMUL,
         "expected all operands and the result to have one element type, got f32 and f64", [F32, F32, F64]),
    _bad("dynamic-non-batch", AVG_POOL.with_(operands=((1, Q, 8, 8),)),
         r"expected only the leading \(batch\) dimension of the input to be dynamic, got tensor<1x\?x8x8xf32>"),
    _bad("dynamic-non-batch", MATMUL.with_(operands=((4, 8), (8, Q)), result=(4, Q)),
         r"expected the rhs to have a static shape, got tensor<8x\?xf32>"),
    _bad("result-shape", CONV2D.with_(stride=(2, 2)),
         r"expected the result type to be tensor<1x6x4x4xf32> as the geometry implies, got tensor<1x6x8x8xf32>"),
    _bad("result-shape", IM2COL.with_(result=(64, 36)),
         r"expected the result type to be tensor<128x36xf32> as the geometry implies, got tensor<64x36xf32>"),
    _bad("channel-mismatch", CONV2D.with_(operands=((1, 4, 8, 8), (6, 3, 3, 3))),
         "expected weight dimension 1 to be input channels / groups = 4, got 3"),
    _bad("kernel-mismatch", BWD_INPUT.with_(operands=((1, 6, 8, 8), (6, 4, 5, 5))),
         r"expected kernel_size \[3, 3\] to match the weight spatial size \[5, 5\]"),
    _bad("no-output", CONV2D.with_(operands=((1, 4, 2, 8), (6, 4, 3, 3)), result=(1, 6, 0, 6), padding=(0, 0)),
         r"the height has no complete window: input 2 padded by 0 on each side is smaller than the "
         r"\(dilated\) kernel extent 3"),
    _bad("no-output", CONV_T.with_(operands=((1, 4, 1, 1), (4, 2, 1, 1)), result=(1, 2, 1, 1), stride=(1, 1),
                                   output_padding=(0, 0)),
         "the transposed convolution's output height would be -1"),
    _bad("pool-padding", MAX_POOL.with_(kernel_size=(3, 3), stride=(1, 1), padding=(2, 1)),
         r"expected padding to be at most half the kernel size, got padding \[2, 1\] for kernel_size \[3, 3\]"),
    _bad("pool-padding", AVG_POOL_BWD.with_(kernel_size=(1, 1), padding=(1, 1)),
         r"expected padding to be at most half the kernel size, got padding \[1, 1\] for kernel_size \[1, 1\]"),
    _bad("grad-output-shape", BWD_WEIGHT.with_(operands=((1, 4, 8, 8), (1, 6, 7, 7))),
         r"expected grad_output spatial size \[8, 8\] \(the forward conv's output for input \[8, 8\]\), got \[7, 7\]"),
    _bad("grad-output-shape", MAX_POOL_BWD.with_(operands=((1, 4, 8, 8), (1, 4, 3, 4))),
         r"expected grad_output of shape 1x4x4x4 \(the pool's output for input 1x4x8x8\), got 1x4x3x4"),
    _bad("batch-mismatch", AVG_POOL_BWD.with_(operands=((Q, 4, 4, 4),)),
         r"expected the grad_output and the result to have the same batch size, got \? and 1"),
    _bad("input-size-not-mapping", BWD_INPUT.with_(operands=((1, 6, 4, 4), (6, 4, 3, 3)), result=(1, 4, 10, 8),
                                                   stride=(2, 2)),
         r"an input height of 10 does not give 4 outputs; expected an input height of 7\.\.8"),
    _bad("output-padding-too-large", CONV_T.with_(result=(1, 2, 9, 7), output_padding=(2, 0)),
         r"expected output_padding to be non-negative and smaller than stride or dilation, got \[2, 0\] "
         r"with stride \[2, 2\] and dilation \[1, 1\]"),
    _bad("contraction-mismatch", MATMUL.with_(operands=((4, 8), (7, 16))),
         "expected the contraction sizes to agree: lhs tensor<4x8xf32> has 8 columns, rhs tensor<7x16xf32> has 7 rows"),
    _bad("matmul-rank-mismatch", MATMUL.with_(operands=((4, 8), (2, 8, 16))),
         "expected lhs and rhs of equal rank, got 2 and 3"),
    _bad("matmul-dynamic-2d-rhs", MATMUL.with_(operands=((4, 8), (Q, 16))),
         r"expected the rhs to have a static shape, got tensor<\?x16xf32>"),
]


@pytest.mark.parametrize("case, message, element_types", INVALID)
def test_verifier_rejects_with_message(case, message, element_types):
    op = case.build(element_types)
    with pytest.raises(VerifyException, match=f"^{message}(\n|$)"):  # xDSL appends the op after a blank line
        op.verify()


@pytest.mark.parametrize("case, message, element_types", INVALID[:4])
def test_located_verifier_names_the_op(case, message, element_types):
    """`verify_module` reports mlir-opt style: `'rlx.op' op <message>`."""
    from rlx_mlir.ir import verify_module

    op = case.build(element_types)
    with pytest.raises(DiagnosticError) as info:
        verify_module(op)
    assert re.fullmatch(f"'{case.op.name}' op {message}", info.value.message)


def test_dynamic_weight_output_channels_are_rejected_as_dynamic():
    op = CONV2D.with_(operands=((1, 4, 8, 8), (Q, 4, 3, 3))).build()
    with pytest.raises(VerifyException, match="^expected the weight to have a static shape, got tensor<\\?x4x3x3xf32>"):
        op.verify()


def test_conv_transpose_dynamic_weight_message_has_no_raw_sentinel():
    op = CONV_T.with_(operands=((1, 4, 4, 4), (Q, 2, 3, 3))).build()
    with pytest.raises(VerifyException) as info:
        op.verify()
    assert str(DYNAMIC_INDEX) not in str(info.value)


# -- properties round-trip --------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, value",
    [(rlx.SIZES, (2, 3)), (rlx.SIZES, (0, 0)), (rlx.INT, 4), (rlx.BOOL, False), (rlx.BOOL, True)],
    ids=lambda v: v.name if isinstance(v, rlx.PropertyKind) else str(v),
)
def test_property_kind_round_trips(spec, value):
    attr = spec.to_attribute(value)
    assert spec.from_attribute(attr) == value


def test_property_kinds_are_stored_as_i64_arrays_i64_integers_and_bools():
    assert rlx.SIZES.to_attribute((1, 2)) == DenseArrayBase.from_list(i64, [1, 2])
    assert rlx.INT.to_attribute(3) == IntegerAttr(3, i64)
    assert rlx.BOOL.to_attribute(False) == IntegerAttr(0, rlx.I1)
    assert rlx.INT.to_attribute(3) != IntegerAttr(3, i32)


def _print(module: ModuleOp, generic: bool) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue()


@pytest.mark.parametrize("generic", [False, True], ids=["custom", "generic"])
@pytest.mark.parametrize("case", VALID, ids=str)
def test_properties_round_trip_through_text(case, generic):
    module = case.module()
    text = _print(module, generic)
    parsed = parse_module(make_context(), text, "roundtrip.mlir")
    (op,) = [o for o in parsed.walk() if isinstance(o, rlx.RlxOp)]
    (built,) = [o for o in module.walk() if isinstance(o, rlx.RlxOp)]
    assert type(op) is case.op
    assert dict(op.properties) == dict(built.properties)
    assert [v.type for v in op.operands] == [v.type for v in built.operands]
    assert op.results[0].type == built.results[0].type
    assert _print(parsed, generic) == text


def test_custom_form_omits_defaults_and_generic_form_keeps_them():
    module = CONV2D.module()
    custom, generic = _print(module, False), _print(module, True)
    assert "rlx.conv2d %0, %1 stride [1, 1] padding [1, 1] :" in custom
    assert "dilation" not in custom and "groups" not in custom
    assert "dilation = array<i64: 1, 1>" in generic and "groups = 1 : i64" in generic


# -- ranked families -------------------------------------------------------------------------------


def test_a_ranked_family_names_its_op_of_each_rank():
    assert rlx.CONV.ops == (rlx.Conv1dOp, rlx.Conv2dOp, rlx.Conv3dOp)
    assert list(rlx.IM2COL) == [rlx.Im2col1dOp, rlx.Im2colOp, rlx.Im2col3dOp]
    assert rlx.CONV_BACKWARD_INPUT.at(3) is rlx.Conv3dBackwardInputOp
    assert rlx.MAX_POOL_GATHER.like(rlx.MaxPool1dBackwardOp) is rlx.MaxPool1dGatherOp
    pool = MAX_POOL.build()
    assert rlx.MAX_POOL_BACKWARD.like(pool) is rlx.MaxPool2dBackwardOp
    assert pool in rlx.MAX_POOL and rlx.MaxPool2dOp in rlx.MAX_POOL and rlx.AvgPool2dOp not in rlx.MAX_POOL


def test_every_ranked_op_is_in_exactly_one_family():
    ranked = [op for family in rlx.RANKED_FAMILIES for op in family]
    assert len(ranked) == len(set(ranked)) == 3 * len(rlx.RANKED_FAMILIES)
    assert set(ranked) == {op for op in rlx.RLX.operations if issubclass(op, rlx.SpatialOp)}
