"""Time limits per toolchain stage, scaled to the module, and the fallback when one is hit.

A schedule that sends mlir-opt into minutes of work (some pool shapes ran for
minutes with ~22 GB) must not hang a compile: each stage gets `stage_timeout(size)`
seconds, and a scheduled pipeline that runs past it falls back, as on a crash, with a
warning that names the op kinds of the module. The runaway is a wrapper around the real
mlir-opt that sleeps when it is given the schedules, under a base limit of a few seconds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from rlx_mlir.backend import PIPELINES, compile_module, emit, toolchain
from rlx_mlir.backend.compile import PipelineFallbackWarning
from rlx_mlir.backend.toolchain import TIMEOUT_ENV, TOOLS_DIR_ENV, ToolchainTimeout, stage_timeout

MATMUL = """
func.func @mm(%a: tensor<5x7xf32>, %b: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<5x7xf32>, tensor<7x3xf32>) outs(%acc : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
"""

# Small enough to catch the sleeping wrapper quickly, large enough for the real tools on a
# one-op module on a loaded machine.
TEST_BASE_SECONDS = "6"


def test_the_limit_grows_with_the_module(monkeypatch):
    monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    assert stage_timeout(0) == 120
    assert stage_timeout(1 << 20) == 180
    assert stage_timeout(4 << 20) == 360
    monkeypatch.setenv(TIMEOUT_ENV, "10")
    assert stage_timeout(0) == 10
    assert stage_timeout(2 << 20) == 20


@pytest.mark.parametrize("value", ["soon", "0", "-1"])
def test_a_bad_limit_is_a_clear_error(monkeypatch, value):
    monkeypatch.setenv(TIMEOUT_ENV, value)
    with pytest.raises(toolchain.ToolchainError, match=rf"^{TIMEOUT_ENV}='{value}'"):
        stage_timeout(0)


@pytest.fixture
def runaway_schedules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A tools dir whose mlir-opt hangs when the schedules are loaded, and works otherwise."""
    real = {name: toolchain.find_tool(name).path for name in ("mlir-opt", "mlir-translate", "opt", "llc")}
    lib = toolchain.runtime_library_dir()
    directory = tmp_path / "tools" / "bin"
    directory.mkdir(parents=True)
    (tmp_path / "tools" / "lib").symlink_to(lib)
    for name, path in real.items():
        if name != "mlir-opt":
            (directory / name).symlink_to(path)
    wrapper = directory / "mlir-opt"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case "$*" in *transform-preload-library*) exec sleep 300;; esac\n'
        f'exec "{real["mlir-opt"]}" "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv(TOOLS_DIR_ENV, str(directory.parent))
    monkeypatch.setenv(TIMEOUT_ENV, TEST_BASE_SECONDS)
    toolchain.reset_discovery()
    yield
    monkeypatch.delenv(TOOLS_DIR_ENV)
    toolchain.reset_discovery()


def test_a_schedule_past_its_limit_falls_back_and_names_the_op_kind(runaway_schedules):
    a = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((7, 3)).astype(np.float32)
    with pytest.warns(PipelineFallbackWarning) as record:
        mm = compile_module(MATMUL, "optimizing")["mm"]
    (warning,) = [w for w in record if issubclass(w.category, PipelineFallbackWarning)]
    message = str(warning.message)
    assert message.startswith("pipeline 'optimizing': mlir-opt (optimizing pipeline): `"), message
    assert f"timed out after {float(TEST_BASE_SECONDS):g}s" in message
    assert "lowered this module (linalg.matmul) with the 'o3' pipeline instead" in message
    np.testing.assert_allclose(mm(a, b), (torch.from_numpy(a) @ torch.from_numpy(b)).numpy(), rtol=1e-5, atol=1e-6)


def test_emit_falls_back_on_a_timeout_too(runaway_schedules):
    with pytest.warns(PipelineFallbackWarning, match=r"timed out .*\(linalg\.matmul\) with the 'o3'"):
        assert "llvm.func" in emit(MATMUL, "llvm-mlir", "optimizing")


def test_a_pipeline_without_fallback_reports_the_timeout(runaway_schedules, monkeypatch):
    monkeypatch.setitem(PIPELINES, "no-fallback", dataclasses.replace(PIPELINES["optimizing"], name="no-fallback", fallback=None))
    with pytest.raises(ToolchainTimeout, match=r"^mlir-opt \(no-fallback pipeline\): `.*` timed out after 6s") as info:
        emit(MATMUL, "llvm-mlir", "no-fallback")
    assert 6.0 <= info.value.timeout < 6.1  # the base, and a little for a module of a few hundred bytes
