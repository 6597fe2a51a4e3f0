"""rlx-run and rlx-compile from the command line: inputs, outputs, every emitted stage.

The numbers are checked against PyTorch; every emitted stage is handed to the upstream
tool that consumes it, which is the promise `rlx-compile` makes to downstream toolchains.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from oracle import assert_matches
from rlx_mlir.backend.toolchain import c_compiler, find_tool

BIN = Path(sys.executable).parent

CONV_WEIGHT_GRAD = """
func.func @dw(%x: tensor<?x3x9x9xf32>, %dy: tensor<?x4x5x5xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [2, 2] padding [1, 1]
      : (tensor<?x3x9x9xf32>, tensor<?x4x5x5xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}
"""


def run(tool: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / tool), *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("src with space") / "conv grad.mlir"
    path.write_text(CONV_WEIGHT_GRAD)
    return path


def conv2d_weight(x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """The oracle of @dw (assert_matches calls it on float64 inputs)."""
    return torch.nn.grad.conv2d_weight(x, (4, 3, 3, 3), dy, stride=2, padding=1)


def test_rlx_run_npy_inputs_match_pytorch(source, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 3, 9, 9)).astype(np.float32)
    dy = rng.standard_normal((3, 4, 5, 5)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "dy.npy", dy)
    out = tmp_path / "out.npz"
    done = run("rlx-run", str(source), "-e", "dw", "--inputs", str(tmp_path / "x.npy"), str(tmp_path / "dy.npy"), "-o", str(out))
    assert done.returncode == 0, done.stderr
    with np.load(out) as results:
        assert_matches(results["result0"], conv2d_weight, (x, dy))


def test_rlx_run_npz_inputs_and_printed_form(source, tmp_path):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    dy = rng.standard_normal((2, 4, 5, 5)).astype(np.float32)
    np.savez(tmp_path / "in.npz", arg0=x, arg1=dy)
    done = run("rlx-run", str(source), "-e", "dw", "--inputs", str(tmp_path / "in.npz"), "--print")
    assert done.returncode == 0, done.stderr
    header, body = done.stdout.split("\n", 1)
    assert header == "result 0: tensor<4x3x3x3xf32>"
    printed = np.array(eval(body), dtype=np.float32)  # the stable form is a nested list literal
    # `%.6g` keeps 6 significant digits: the printed decimal d is within 5e-6 |d| of our value.
    assert_matches(printed, conv2d_weight, (x, dy), extra=5e-6 * (1 + 1e-6) * np.abs(printed.astype(np.float64)))


def test_rlx_run_random_inputs_need_a_batch_for_dynamic_dims(source):
    done = run("rlx-run", str(source), "-e", "dw")
    assert done.returncode == 1
    assert "dynamic dimension" in done.stderr and "--batch" in done.stderr
    assert "Traceback" not in done.stderr
    seeded = [run("rlx-run", str(source), "-e", "dw", "--batch", "2", "--seed", "7").stdout for _ in range(2)]
    assert seeded[0] == seeded[1] and seeded[0].startswith("result 0: tensor<4x3x3x3xf32>")


def test_rlx_run_unknown_function_is_a_clear_error(source):
    done = run("rlx-run", str(source), "-e", "nope")
    assert done.returncode == 1
    assert "no function 'nope'" in done.stderr and "dw" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("stage", ["linalg", "llvm-mlir", "llvm-ir", "obj", "shared"])
def test_rlx_compile_stage_is_accepted_by_its_upstream_tool(stage, source, tmp_path):
    out = tmp_path / f"out.{stage}"
    done = run("rlx-compile", str(source), f"--emit={stage}", "-o", str(out))
    assert done.returncode == 0, done.stderr
    if stage == "linalg":
        text = out.read_text()
        assert "rlx." not in text
        check = subprocess.run([str(find_tool("mlir-opt").path), str(out)], capture_output=True, text=True)
    elif stage == "llvm-mlir":
        check = subprocess.run([str(find_tool("mlir-translate").path), "--mlir-to-llvmir", str(out)], capture_output=True, text=True)
    elif stage == "llvm-ir":
        check = subprocess.run([str(find_tool("llc").path), "-filetype=obj", str(out), "-o", str(tmp_path / "x.o")], capture_output=True, text=True)
    elif stage == "obj":
        check = subprocess.run([*c_compiler(), "-shared", str(out), "-o", str(tmp_path / "x.so")], capture_output=True, text=True)
    else:
        library = ctypes.CDLL(str(out))
        assert hasattr(library, "_mlir_ciface_dw")
        return
    assert check.returncode == 0, check.stderr


def test_rlx_compile_refuses_binary_to_stdout(source):
    done = run("rlx-compile", str(source), "--emit=obj")
    assert done.returncode == 1
    assert "binary" in done.stderr and "Traceback" not in done.stderr


def test_rlx_compile_failure_leaves_output_untouched(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(CONV_WEIGHT_GRAD.replace("stride [2, 2]", "stride [3, 3]"))
    out = tmp_path / "keep.mlir"
    out.write_text("previous\n")
    done = run("rlx-compile", str(bad), "--emit=linalg", "-o", str(out))
    assert done.returncode == 1
    assert f"{bad}:3:" in done.stderr and "error:" in done.stderr
    assert out.read_text() == "previous\n"
    assert sorted(os.listdir(tmp_path)) == ["bad.mlir", "keep.mlir"]
