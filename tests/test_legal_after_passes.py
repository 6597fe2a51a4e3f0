"""What each pass promises to leave behind, checked on every op kind and option.

`decompose-backward` must leave only linalg/arith/tensor (plus the forward RLX ops it does
not own); `convert-rlx-to-linalg` after it must leave no RLX op at all. Downstream users
rely on exactly this, so it is checked by walking the IR, not by reading text. Each block
they write into holds one `arith.constant` per value (at the top of a function) and one
`tensor.dim` per (tensor, axis), as hand-written MLIR would.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import FloatAttr, IndexType, ModuleOp, f32
from xdsl.ir import Block, Region

from rlx_mlir.ir import make_context, parse_module, verify_module
from rlx_mlir.transforms.conversion import share_constants
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

STRUCTURAL = {"builtin", "func"}
LOWERED = {"linalg", "arith", "tensor"}

MODULE = """
func.func @train_step(%x: tensor<?x4x9x9xf32>, %w: tensor<6x2x3x3xf32>, %dy: tensor<?x6x4x4xf32>,
                      %p: tensor<?x4x4x4xf32>, %q: tensor<?x4x5x5xf32>) -> (tensor<6x2x3x3xf32>, tensor<?x4x9x9xf32>,
                      tensor<?x4x9x9xf32>, tensor<?x4x9x9xf32>, tensor<?x6x4x4xf32>) {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [2, 2] padding [0, 0] groups 2
      : (tensor<?x4x9x9xf32>, tensor<?x6x4x4xf32>) -> tensor<6x2x3x3xf32>
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [0, 0] groups 2
      : (tensor<?x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<?x4x9x9xf32>
  %dmax = rlx.max_pool2d_backward %x, %p kernel_size [3, 3] stride [2, 2] padding [0, 0]
      : (tensor<?x4x9x9xf32>, tensor<?x4x4x4xf32>) -> tensor<?x4x9x9xf32>
  %davg = rlx.avg_pool2d_backward %q kernel_size [3, 3] stride [2, 2] padding [1, 1] count_include_pad false
      : (tensor<?x4x5x5xf32>) -> tensor<?x4x9x9xf32>
  %y = rlx.conv2d %x, %w stride [2, 2] padding [0, 0] groups 2
      : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x4x4xf32>
  return %dw, %dx, %dmax, %davg, %y
      : tensor<6x2x3x3xf32>, tensor<?x4x9x9xf32>, tensor<?x4x9x9xf32>, tensor<?x4x9x9xf32>, tensor<?x6x4x4xf32>
}
"""

OPTIONS = [
    {},
    {"conv_weight": "im2col"},
    {"conv_weight": "im2col", "im2col_max_elements": 64},
    {"conv_input": "transpose"},
    {"pool_ties": "all"},
]


def dialects_after(*passes) -> dict[str, set[str]]:
    ctx = make_context()
    module = parse_module(ctx, MODULE)
    for pass_ in passes:
        pass_.apply(ctx, module)
        verify_module(module)
    found: dict[str, set[str]] = {}
    for op in module.walk():
        found.setdefault(op.name.split(".")[0], set()).add(op.name)
    return found


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_decompose_backward_leaves_upstream_ops_and_forward_rlx_ops(options):
    found = dialects_after(DecomposeBackwardPass(**options))
    assert set(found) <= STRUCTURAL | LOWERED | {"rlx"}, found
    assert found.get("rlx") == {"rlx.conv2d"}, "backward ops left, or a forward op was touched"


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_both_passes_leave_only_linalg_arith_tensor(options):
    found = dialects_after(DecomposeBackwardPass(**options), ConvertRlxToLinalgPass())
    assert set(found) <= STRUCTURAL | LOWERED, found


def _lowered(options: dict) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, MODULE)
    DecomposeBackwardPass(**options).apply(ctx, module)
    ConvertRlxToLinalgPass().apply(ctx, module)
    return module


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_each_block_has_one_constant_per_value_and_one_dim_per_axis(options):
    module = _lowered(options)
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                constants = [o for o in block.ops if isinstance(o, arith.ConstantOp)]
                keys = [(str(o.value), o.result.type) for o in constants]
                assert len(keys) == len(set(keys)), (op.name, keys)
                dims = [(o.source, o.index) for o in block.ops if isinstance(o, tensor.DimOp)]
                assert len(dims) == len(set(dims)), op.name


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_function_constants_come_first(options):
    (function,) = [op for op in _lowered(options).walk() if isinstance(op, func.FuncOp)]
    ops = list(function.body.block.ops)
    count = sum(isinstance(op, arith.ConstantOp) for op in ops)
    assert count > 0
    assert all(isinstance(op, arith.ConstantOp) for op in ops[:count])


def test_constants_are_shared_by_value_and_type_only():
    block = Block()
    zero, negative_zero, zero_again = (arith.ConstantOp(FloatAttr(v, f32)) for v in (0.0, -0.0, 0.0))
    index_zero = arith.ConstantOp.from_int_and_width(0, IndexType())
    block.add_ops([zero, negative_zero, index_zero, zero_again])
    Region(block)
    share_constants(block)
    assert list(block.ops) == [zero, negative_zero, index_zero]


def test_a_duplicate_where_constants_are_hoisted_to_is_erased_safely():
    """The op the constants go before may itself be a duplicate (a second pass emits a
    constant equal to one the first hoisted): it is erased, and later constants go before
    the op after it, instead of before an op no longer in the block."""
    block = Block()
    one, one_again, two = (arith.ConstantOp(FloatAttr(v, f32)) for v in (1.0, 1.0, 2.0))
    block.add_ops([one, one_again, two])
    Region(block)
    share_constants(block)
    assert list(block.ops) == [one, two]
