"""Tool discovery, version checks and the error messages of failing tool runs."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from rlx_mlir.backend import emit, toolchain
from rlx_mlir.backend.toolchain import TOOLS_DIR_ENV, ToolchainError

TOOLS = ("mlir-opt", "mlir-translate", "opt", "llc")


@pytest.mark.parametrize("name", TOOLS)
def test_default_discovery_finds_version_22(name: str) -> None:
    tool = toolchain.find_tool(name)
    assert tool.version.startswith("22.")
    assert os.access(tool.path, os.X_OK)


def test_describe_names_version_and_path() -> None:
    text = toolchain.describe()
    tool = toolchain.find_tool("mlir-opt")
    assert text == f"MLIR {tool.version} (mlir-opt at {tool.path})"


def test_runtime_library_dir_holds_c_runner_utils() -> None:
    assert (toolchain.runtime_library_dir() / "libmlir_c_runner_utils.so").is_file()


def test_explicit_tools_dir_without_tool_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_discovery: None
) -> None:
    monkeypatch.setenv(TOOLS_DIR_ENV, str(tmp_path))
    with pytest.raises(ToolchainError) as err:
        toolchain.find_tool("mlir-opt")
    message = str(err.value)
    assert message.startswith("mlir-opt:")
    assert f"{TOOLS_DIR_ENV}={tmp_path}" in message
    assert str(tmp_path / "bin") in message


def test_explicit_tools_dir_with_bin_subdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_discovery: None
) -> None:
    real = toolchain.find_tool("llc").path
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "llc").symlink_to(real)
    monkeypatch.setenv(TOOLS_DIR_ENV, str(tmp_path))
    toolchain.reset_discovery()
    assert toolchain.find_tool("llc").path == tmp_path / "bin" / "llc"


def test_wrong_major_version_is_rejected_with_its_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_discovery: None
) -> None:
    fake = tmp_path / "mlir-opt"
    fake.write_text("#!/bin/sh\necho 'LLVM (http://llvm.org/):'\necho '  LLVM version 18.1.3'\n")
    fake.chmod(0o755)
    monkeypatch.setenv(TOOLS_DIR_ENV, str(tmp_path))
    with pytest.raises(ToolchainError, match=r"rejected wrong versions: .*mlir-opt \(version 18\.1\.3\)"):
        toolchain.find_tool("mlir-opt")


def test_failed_stage_reports_stage_command_and_stderr() -> None:
    with pytest.raises(ToolchainError) as err:
        emit("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %b : tensor<4xf32>\n}\n", "linalg")
    message = str(err.value)
    assert message.startswith("parse input failed")
    assert f"command: {shlex.join([str(toolchain.find_tool('mlir-opt').path), '--mlir-print-op-generic', '-'])}" in message
    assert "use of undeclared SSA value name" in message


def test_run_reports_missing_executable_and_timeout(tmp_path: Path) -> None:
    with pytest.raises(ToolchainError, match=r"^probe: could not start `.*no-such-tool`"):
        toolchain.run("probe", [str(tmp_path / "no-such-tool")])
    with pytest.raises(ToolchainError, match=r"^sleeper: `.* -c 'import time; time.sleep\(10\)'` timed out"):
        toolchain.run("sleeper", [sys.executable, "-c", "import time; time.sleep(10)"], timeout=0.2)


def test_cc_override(monkeypatch: pytest.MonkeyPatch, fresh_discovery: None) -> None:
    monkeypatch.setenv("CC", "no-such-compiler -O2")
    with pytest.raises(ToolchainError, match=r"C compiler: CC='no-such-compiler -O2'"):
        toolchain.c_compiler()
    toolchain.reset_discovery()
    monkeypatch.setenv("CC", "gcc -fno-plt")
    assert toolchain.c_compiler()[1:] == ("-fno-plt",)
