"""The lowered IR of every elementwise-family op: upstream dialects only, accepted by mlir-opt 22.

The input is the family's round-trip lit file, which holds every op of the family (checked
here, so a new op cannot be left out); `convert-rlx-to-linalg` must leave only linalg,
tensor, arith and math (plus func/builtin), and upstream `mlir-opt` must parse and verify
the printed result as it is.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rlx_mlir.dialects import elementwise
from rlx_mlir.ir import make_context, parse_module, verify_module
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass

ROUNDTRIP = Path(__file__).parent.parent / "lit_tests" / "dialect" / "elementwise-roundtrip.mlir"
ALLOWED = {"builtin", "func", "linalg", "tensor", "arith", "math"}


@pytest.fixture(scope="module")
def lowered():
    ctx = make_context()
    module = parse_module(ctx, ROUNDTRIP.read_text(), str(ROUNDTRIP))
    names = {op.name for op in module.walk()}
    missing = {op.name for op in elementwise.FORWARD_OPS} - names
    assert not missing, f"{ROUNDTRIP.name} lacks {sorted(missing)}"
    ConvertRlxToLinalgPass().apply(ctx, module)
    verify_module(module)
    return module


def test_only_upstream_dialects_remain(lowered):
    dialects = {op.name.split(".")[0] for op in lowered.walk()}
    assert dialects <= ALLOWED, f"left behind: {sorted(dialects - ALLOWED)}"
    assert "math" in dialects and "linalg" in dialects


def test_mlir_opt_verifies_the_lowered_ir(lowered):
    from rlx_mlir.backend.toolchain import ToolchainError, find_tool

    try:
        mlir_opt = str(find_tool("mlir-opt").path)
    except ToolchainError as error:
        pytest.skip(f"no mlir-opt: {error}")
    done = subprocess.run([mlir_opt, "-"], input=str(lowered), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
