"""The activation ops' lowering: upstream dialects only, accepted by mlir-opt 22, and of a
size that does not depend on the tensors' sizes.

Every op of the family (each property value that changes the lowering) is lowered by both
passes, as `rlx_mlir.compile` runs them; the result must hold only linalg/tensor/arith/
math ops (plus func/builtin), each op one `linalg.generic`, and parse and verify in
upstream `mlir-opt`.
"""

from __future__ import annotations

import subprocess

import pytest

from rlx_mlir.backend.toolchain import find_tool
from rlx_mlir.dialects import activation
from rlx_mlir.ir import make_context, parse_module, verify_module
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

FORWARD = [
    "rlx.relu", "rlx.hardtanh min_val 0.0 max_val 6.0", "rlx.hardswish", "rlx.hardsigmoid", "rlx.sigmoid",
    "rlx.silu", "rlx.gelu", 'rlx.gelu approximate "tanh"', "rlx.leaky_relu negative_slope 0.2",
]
BACKWARD = [
    "rlx.threshold_backward", "rlx.hardtanh_backward", "rlx.hardswish_backward", "rlx.hardsigmoid_backward",
    "rlx.sigmoid_backward", "rlx.silu_backward", "rlx.gelu_backward", 'rlx.gelu_backward approximate "tanh"',
    "rlx.leaky_relu_backward",
]
ALLOWED = {"builtin", "func", "linalg", "tensor", "arith", "math"}


def module_text(shape: str) -> str:
    t = f"tensor<{shape}>"
    lines = []
    for i, text in enumerate(FORWARD + BACKWARD):
        name, _, props = text.partition(" ")
        if text in FORWARD:
            lines.append(f"func.func @op{i}(%x: {t}) -> {t} {{\n  %y = {name} %x {props} : ({t}) -> {t}\n  return %y : {t}\n}}")
        else:
            lines.append(
                f"func.func @op{i}(%dy: {t}, %x: {t}) -> {t} {{\n  %y = {name} %dy, %x {props} : ({t}, {t}) -> {t}\n"
                f"  return %y : {t}\n}}"
            )
    return "\n".join(lines)


def lowered(shape: str):
    ctx = make_context()
    module = parse_module(ctx, module_text(shape))
    for pass_ in (DecomposeBackwardPass(), ConvertRlxToLinalgPass()):
        pass_.apply(ctx, module)
        verify_module(module)
    return module


def test_every_op_is_listed():
    names = {text.split()[0] for text in FORWARD + BACKWARD}
    assert names == {op.name for op in (*activation.FORWARD_OPS, *activation.BACKWARD_OPS)}


@pytest.mark.parametrize("shape", ["2x3x4xf32", "?x5xf64", "f32"])
def test_lowering_leaves_upstream_ops_that_mlir_opt_verifies(shape):
    module = lowered(shape)
    dialects = {op.name.split(".")[0] for op in module.walk()}
    assert dialects <= ALLOWED, dialects
    generics = [op for op in module.walk() if op.name == "linalg.generic"]
    assert len(generics) == len(FORWARD) + len(BACKWARD), "one linalg.generic per op"
    mlir_opt = str(find_tool("mlir-opt").path)
    check = subprocess.run([mlir_opt, "-"], input=str(module), capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_ir_size_does_not_depend_on_tensor_size():
    small, large = lowered("2x3xf32"), lowered("512x1024xf32")
    assert sum(1 for _ in small.walk()) == sum(1 for _ in large.walk())
