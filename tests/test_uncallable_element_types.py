"""bf16 (and the f8 types) verify, but compiled code could never be called with them.

NumPy has no such dtype, and LLVM lowers their arithmetic to conversions the library does
not link (bf16: `__truncsfbf2`), so the library failed to load: `rlx-run` said
`cannot access: ...so: undefined symbol: __truncsfbf2`, and every other function of the
module became unusable too. Now a compile to callable code refuses them before any tool
runs, with a located diagnostic that names the function and the element type. Stopping at
`--emit=linalg` still works: mlir-opt and IREE take bf16.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rlx_mlir
from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend import compile_module, emit
from rlx_mlir.backend.compile import UnsupportedElementType
from rlx_mlir.backend.interface import module_text

BIN = Path(sys.executable).parent

POOL = """\
func.func @ok(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}
func.func @pool(%x: tensor<1x2x4x4xT>) -> tensor<1x2x2x2xT> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<1x2x4x4xT>) -> tensor<1x2x2x2xT>
  return %y : tensor<1x2x2x2xT>
}
"""
TYPES = ["bf16", "f8E4M3FN"]


def message(element: str) -> str:
    return (
        f"function @pool uses the element type {element}: the native backend compiles only f16, f32 and f64"
        f" floats into callable code (NumPy has no {element}, and its arithmetic needs conversions the"
        " library does not link); --emit=linalg still gives IR for another toolchain such as IREE"
    )


def run(tool: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RLX_MLIR_DEBUG"}
    return subprocess.run([str(BIN / tool), *args], capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(params=TYPES)
def source(request, tmp_path) -> tuple[str, Path]:
    path = tmp_path / f"pool-{request.param}.mlir"
    path.write_text(POOL.replace("xT>", f"x{request.param}>"))
    return request.param, path


def test_the_verifier_accepts_them(source):
    _, path = source
    done = run("rlx-opt", str(path), "--decompose-backward", "--convert-rlx-to-linalg")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("tool, args", [("rlx-run", ["-e", "ok"]), ("rlx-compile", ["-o", "{out}"])], ids=["rlx-run", "rlx-compile"])
def test_the_tools_refuse_them_with_a_located_diagnostic(source, tool, args, tmp_path):
    element, path = source
    out = tmp_path / "out.so"
    done = run(tool, str(path), *[a.replace("{out}", str(out)) for a in args])
    assert done.returncode == 1
    assert done.stderr == f"{path}:5:1: error: {message(element)}\n"
    assert not out.exists()


def test_the_api_refuses_them_at_compile_time(source):
    element, path = source
    with pytest.raises(ValueError) as info:
        rlx_mlir.compile(path.read_text())
    assert isinstance(info.value, UnsupportedElementType)
    assert str(info.value) == f"<string>:5:1: error: {message(element)}"


def test_linalg_text_is_located_at_the_first_use(source):
    element, path = source
    text = module_text(lower_to_linalg(path.read_text()))
    with pytest.raises(UnsupportedElementType) as info:
        compile_module(text)
    line, column = (int(n) for n in re.fullmatch(r"<input>:(\d+):(\d+)", info.value.location).groups())
    assert text.splitlines()[line - 1][column - 1:].startswith(element)
    assert info.value.message == message(element)


def test_emit_linalg_still_accepts_bf16():
    text = POOL.replace("xT>", "xbf16>")
    linalg = emit(lower_to_linalg(text), "linalg")
    assert "bf16" in linalg and "rlx." not in linalg
