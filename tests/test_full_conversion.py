"""Each RLX pass converts every op it owns or fails at the op; and it emits one constant per value.

decompose-backward owns the backward ops, convert-rlx-to-linalg the forward ones. An owned
op that does not verify is the input's error (a located diagnostic, as mlir-opt gives); a
valid one that no pattern rewrote, or that a pattern failed on, is our bug
(`InternalRewriteError`, located too). What each pass leaves, constants included, is
checked in `test_legal_after_passes`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from rlx_mlir.dialects.rlx import BACKWARD_OPS, FORWARD_OPS
from rlx_mlir.ir import DiagnosticError, make_context, parse_module
from rlx_mlir.transforms.conversion import InternalRewriteError, apply_full_conversion
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

BIN = Path(sys.executable).parent
RLX_OPT = [str(BIN / "rlx-opt")] if (BIN / "rlx-opt").exists() else [sys.executable, "-m", "rlx_mlir.tools.rlx_opt"]

BACKWARD = """\
func.func @g(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}
"""

# Line 2: dy has 4 rows, which no 12-row input gives with kernel 3, stride 2, padding 1.
INCONSISTENT = """\
func.func @f(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x12x12xf32> {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size [3, 3] stride [2, 2] padding [1, 1] : (tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x12x12xf32>
  return %dx : tensor<1x3x12x12xf32>
}
"""


def unverified(text: str) -> ModuleOp:
    """`text` parsed with locations but not verified, as `rlx-opt --disable-verify` reads it."""
    from rlx_mlir.ir import LocatingParser

    return LocatingParser(make_context(), text, "input.mlir").parse_module()


# -- full conversion ------------------------------------------------------------------------


def test_invalid_owned_op_is_the_inputs_located_error():
    with pytest.raises(DiagnosticError) as caught:
        DecomposeBackwardPass().apply(make_context(), unverified(INCONSISTENT))
    assert str(caught.value) == (
        "input.mlir:2:9: error: failed to legalize operation 'rlx.conv2d_backward_input': an input height "
        "of 12 does not give 4 outputs; expected an input height of 7..8"
    )


def test_invalid_owned_op_is_rejected_before_anything_is_rewritten():
    module = unverified(BACKWARD + INCONSISTENT)
    with pytest.raises(DiagnosticError):
        DecomposeBackwardPass().apply(make_context(), module)
    assert [op.name for op in module.walk() if op.name.startswith("rlx.")] == [
        "rlx.conv2d_backward_weight",
        "rlx.conv2d_backward_input",
    ]


def test_invalid_op_the_pass_does_not_own_is_left_alone():
    forward_only = INCONSISTENT.replace("rlx.conv2d_backward_input %dy, %w kernel_size [3, 3]", "rlx.conv2d %dy, %w")
    module = unverified(forward_only)
    DecomposeBackwardPass().apply(make_context(), module)
    assert any(op.name == "rlx.conv2d" for op in module.walk())


def test_valid_op_left_by_the_patterns_is_an_internal_error():
    module = parse_module(make_context(), BACKWARD, "input.mlir")
    with pytest.raises(InternalRewriteError, match=r"^input\.mlir:2:9: failed to legalize operation 'rlx.conv2d_backward_weight': decompose-backward"):
        apply_full_conversion(module, [], BACKWARD_OPS, "decompose-backward")


class _Broken(RewritePattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        raise ZeroDivisionError("a bug")


def test_pattern_failing_on_a_valid_op_is_an_internal_error_at_the_op():
    module = parse_module(make_context(), BACKWARD, "input.mlir")
    with pytest.raises(InternalRewriteError, match=r"^input\.mlir:2:9: decompose-backward failed on a valid 'rlx.conv2d_backward_weight': ZeroDivisionError: a bug") as caught:
        apply_full_conversion(module, [_Broken()], BACKWARD_OPS, "decompose-backward")
    assert isinstance(caught.value.__cause__, ZeroDivisionError)


def test_the_passes_own_the_two_halves_of_the_dialect():
    from rlx_mlir.dialects.rlx import RLX

    assert set(BACKWARD_OPS).isdisjoint(FORWARD_OPS)
    assert set(BACKWARD_OPS) | set(FORWARD_OPS) == set(RLX.operations)


@pytest.mark.parametrize("flag", ["--decompose-backward", "--convert-rlx-to-linalg"])
def test_cli_exits_1_with_the_diagnostic_and_leaves_the_output_file(tmp_path, flag):
    text = INCONSISTENT if flag == "--decompose-backward" else INCONSISTENT.replace(
        "rlx.conv2d_backward_input %dy, %w kernel_size [3, 3]", "rlx.conv2d %dy, %w"
    )
    source, output = tmp_path / "in.mlir", tmp_path / "out.mlir"
    source.write_text(text)
    output.write_text("old")
    done = subprocess.run(
        [*RLX_OPT, str(source), "--disable-verify", flag, "-o", str(output)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{source}:2:9: error: failed to legalize operation 'rlx.conv2d"), done.stderr
    assert output.read_text() == "old"
