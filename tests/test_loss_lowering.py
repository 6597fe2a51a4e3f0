"""The loss ops' lowered IR: upstream dialects only, accepted by `mlir-opt` 22, and of a size
that does not depend on the tensor sizes.

Every op of the family, in each of its forms (the three NLL shapes, every reduction, a
dynamic batch), is lowered by both passes, as `rlx_mlir.compile` lowers it.
"""

from __future__ import annotations

import subprocess
from collections import Counter

import pytest

from rlx_mlir.backend.toolchain import find_tool
from rlx_mlir.ir import make_context, parse_module, verify_module
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

ALLOWED = {"builtin", "func", "linalg", "tensor", "arith", "math"}


def t(*shape, element="f32") -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


def softmax(op: str, dim: int):
    def text(n: int, c: int) -> str:
        x = t(n, c, 3)
        return f"%r = rlx.{op} %a dim {dim} : ({x}) -> {x}", [x], x
    return text


def softmax_backward(op: str, dim: int):
    def text(n: int, c: int) -> str:
        x = t(n, c, 3)
        return f"%r = rlx.{op} %a, %b dim {dim} : ({x}, {x}) -> {x}", [x, x], x
    return text


def nll_loss(reduction: str, spatial: tuple[int, ...], batched: bool = True, dynamic: bool = False):
    def text(n: int, c: int) -> str:
        lead = "?" if dynamic else n
        x = t(lead, c, *spatial) if batched else t(c)
        target = t(lead, *spatial, element="i64") if batched else t(element="i64")
        loss = t(lead, *spatial) if reduction == "none" and batched else t()
        types = f"({x}, {target}, {t(c)}) -> ({loss}, {t()})"
        return f'%r, %tw = rlx.nll_loss %a, %b, %c reduction "{reduction}" ignore_index 1 : {types}', [x, target, t(c)], loss
    return text


def nll_loss_backward(reduction: str, spatial: tuple[int, ...], batched: bool = True):
    def text(n: int, c: int) -> str:
        x = t(n, c, *spatial) if batched else t(c)
        target = t(n, *spatial, element="i64") if batched else t(element="i64")
        grad = t(n, *spatial) if reduction == "none" and batched else t()
        operands = [grad, x, target, t(c), t()]
        return (
            f'%r = rlx.nll_loss_backward %a, %b, %c, %d, %e reduction "{reduction}" : ({", ".join(operands)}) -> {x}',
            operands, x,
        )
    return text


CASES = {
    "log_softmax_dim1": softmax("log_softmax", 1),
    "softmax_dim2": softmax("softmax", 2),
    "log_softmax_backward_dim1": softmax_backward("log_softmax_backward", 1),
    "softmax_backward_dim0": softmax_backward("softmax_backward", 0),
    **{
        f"nll_loss_{reduction}_{form}": nll_loss(reduction, spatial, batched)
        for reduction in ("mean", "sum", "none")
        for form, spatial, batched in [("nc", (), True), ("nchw", (4, 4), True), ("unbatched", (), False)]
    },
    "nll_loss_mean_dynamic": nll_loss("mean", (), dynamic=True),
    "nll_loss_none_dynamic": nll_loss("none", (2,), dynamic=True),
    **{
        f"nll_loss_backward_{reduction}_{form}": nll_loss_backward(reduction, spatial, batched)
        for reduction in ("mean", "sum", "none")
        for form, spatial, batched in [("nc", (), True), ("nchw", (4, 4), True), ("unbatched", (), False)]
    },
}


def function(name: str, n: int, c: int) -> str:
    body, operand_types, result = CASES[name](n, c)
    params = ", ".join(f"%{chr(ord('a') + i)}: {ty}" for i, ty in enumerate(operand_types))
    return f"func.func @{name}({params}) -> {result} {{\n  {body}\n  return %r : {result}\n}}\n"


def lowered(text: str):
    ctx = make_context()
    module = parse_module(ctx, text)
    for pass_ in (DecomposeBackwardPass(), ConvertRlxToLinalgPass()):
        pass_.apply(ctx, module)
        verify_module(module)
    return module


def op_counts(module) -> Counter:
    return Counter(op.name for op in module.walk())


@pytest.mark.parametrize("name", CASES)
def test_lowering_leaves_upstream_dialects_and_does_not_grow_with_the_data(name):
    small = op_counts(lowered(function(name, 2, 3)))
    assert {op.split(".")[0] for op in small} <= ALLOWED, sorted(small)
    large = op_counts(lowered(function(name, 37, 50)))
    assert small == large, "the lowered IR depends on the tensor sizes"


def test_lowered_ir_of_every_loss_op_passes_mlir_opt(tmp_path):
    text = "\n".join(function(name, 2, 5) for name in CASES)
    path = tmp_path / "loss.mlir"
    path.write_text(str(lowered(text)))
    check = subprocess.run([str(find_tool("mlir-opt").path), str(path)], capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stderr
