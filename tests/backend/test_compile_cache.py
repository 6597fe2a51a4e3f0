"""Lowering stages, pipelines and the on-disk library cache."""

from __future__ import annotations

import contextlib
import ctypes
import json
import re
import subprocess
import threading
import uuid
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser

from rlx_mlir.backend import (
    PIPELINES,
    STAGES,
    ToolchainError,
    build_library,
    compile_module,
    compile_to_library,
    emit,
    last_compile_was_cache_hit,
    toolchain,
)
from rlx_mlir.backend.cache import CACHE_DIR_ENV
from rlx_mlir.backend.compile import PipelineFallbackWarning
from rlx_mlir.backend.pipelines import default_pipeline, get_pipeline

SCALE = """
#id = affine_map<(d0) -> (d0)>
func.func @{name}(%a: tensor<?xf32>) -> tensor<?xf32> {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %two = arith.constant {factor} : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel"]}}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {{
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %two : f32
    linalg.yield %m : f32
  }} -> tensor<?xf32>
  return %r : tensor<?xf32>
}}
"""


def unique_module(factor: float = 2.0) -> tuple[str, str]:
    """(name, text) of a module nobody compiled before in this session."""
    name = f"scale_{uuid.uuid4().hex[:12]}"
    return name, SCALE.format(name=name, factor=factor)


def check_scale(library_module, name: str, factor: float = 2.0) -> None:
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(library_module[name](x), x * np.float32(factor))


def tool(name: str) -> str:
    return str(toolchain.find_tool(name).path)


@pytest.fixture(scope="module")
def stages() -> dict[str, str | bytes]:
    name, text = unique_module()
    return {"name": name, **{stage: emit(text, stage) for stage in STAGES}}


def accepted(argv: list[str], data: str | bytes) -> str | bytes:
    text = isinstance(data, str)
    return subprocess.run(argv, input=data, capture_output=True, text=text, check=True).stdout


def test_emit_linalg_is_accepted_by_mlir_opt(stages: dict[str, str | bytes]) -> None:
    out = accepted([tool("mlir-opt"), "-"], stages["linalg"])
    assert "llvm.emit_c_interface" in out and "bufferization.writable = false" in out


def test_emit_llvm_mlir_is_accepted_by_mlir_translate(stages: dict[str, str | bytes]) -> None:
    assert "llvm.func" in stages["llvm-mlir"]
    accepted([tool("mlir-translate"), "--mlir-to-llvmir", "-"], stages["llvm-mlir"])


def test_emit_llvm_ir_is_accepted_by_llc_and_opt(stages: dict[str, str | bytes]) -> None:
    assert f"define void @_mlir_ciface_{stages['name']}(" in stages["llvm-ir"]
    accepted([tool("llc"), "-filetype=null", "-"], stages["llvm-ir"])
    accepted([tool("opt"), "-O1", "-S", "-"], stages["llvm-ir"])


def test_emit_obj_and_shared(stages: dict[str, str | bytes], tmp_path: Path) -> None:
    assert stages["obj"][:4] == b"\x7fELF"
    library = tmp_path / "emitted.so"
    library.write_bytes(stages["shared"])
    handle = ctypes.CDLL(str(library))
    assert hasattr(handle, f"_mlir_ciface_{stages['name']}")


def test_unknown_stage_and_pipeline() -> None:
    with pytest.raises(ValueError, match=r"unknown stage 'asm'; stages: linalg, llvm-mlir"):
        emit(SCALE, "asm")
    with pytest.raises(ValueError, match=r"unknown pipeline 'fastest'; known pipelines: o3, plain"):
        compile_to_library(SCALE, pipeline="fastest")


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_every_pipeline_is_correct(pipeline: str) -> None:
    name, text = unique_module(3.0)
    check_scale(compile_module(text, pipeline), name, 3.0)


def test_second_compile_is_served_from_cache() -> None:
    name, text = unique_module()
    first = build_library(text)
    assert not first.cache_hit and last_compile_was_cache_hit() is False
    second = build_library(text)
    assert second.cache_hit and last_compile_was_cache_hit() is True
    assert second.path == first.path
    assert second.signatures == first.signatures
    check_scale(compile_module(text), name)


def test_different_pipeline_is_a_different_entry() -> None:
    _, text = unique_module()
    plain = build_library(text, "plain")
    o3 = build_library(text, "o3")
    assert not o3.cache_hit and o3.path != plain.path


def test_cache_dir_env_is_respected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = tmp_path / "nested" / "cache"
    monkeypatch.setenv(CACHE_DIR_ENV, str(directory))
    _, text = unique_module()
    library = compile_to_library(text)
    assert library.parent == directory
    assert directory.stat().st_mode & 0o777 == 0o700
    assert len(list(directory.glob("*.json"))) == 1
    assert not list(directory.glob(".build-*")), "temporary build directories are removed"


@pytest.mark.parametrize("damage", ["truncate", "flip", "delete"])
def test_damaged_library_is_rebuilt(damage: str) -> None:
    name, text = unique_module()
    library = compile_to_library(text)
    data = library.read_bytes()
    if damage == "truncate":
        library.write_bytes(data[: len(data) // 3])
    elif damage == "flip":
        library.write_bytes(data[:100] + bytes([data[100] ^ 0xFF]) + data[101:])
    else:
        library.unlink()
    rebuilt = build_library(text)
    assert not rebuilt.cache_hit
    assert rebuilt.path.read_bytes() == data
    check_scale(compile_module(text), name)


def test_damaged_metadata_is_rebuilt() -> None:
    name, text = unique_module()
    library = compile_to_library(text)
    metadata = next(p for p in library.parent.glob("*.json") if library.name.startswith(p.stem))
    metadata.write_text("{not json")
    assert not build_library(text).cache_hit
    assert json.loads(metadata.read_text())["library"] == library.name


def test_unwritable_cache_dir_falls_back_with_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(CACHE_DIR_ENV, str(blocker / "cache"))
    name, text = unique_module()
    with pytest.warns(UserWarning, match=r"cache directory .*a-file/cache is not writable"):
        library = build_library(text)
    assert not library.path.is_relative_to(blocker)
    check_scale(compile_module(text), name)


def test_concurrent_builds_of_one_module_all_succeed() -> None:
    name, text = unique_module()
    paths: list[Path] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            paths.append(compile_to_library(text))
        except BaseException as err:  # noqa: BLE001 - reported by the assertion below
            errors.append(err)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(p.is_file() for p in paths)
    check_scale(compile_module(text), name)


def test_xdsl_module_input_matches_text_input() -> None:
    name, text = unique_module(0.5)
    ctx = Context()
    for dialect_name, factory in get_all_dialects().items():
        ctx.register_dialect(dialect_name, factory)
    module = Parser(ctx, text).parse_module()
    check_scale(compile_module(module), name, 0.5)


def test_pipeline_failure_names_stage_command_and_error() -> None:
    not_bufferizable = """
func.func @f(%a: tensor<4xf32>) -> tensor<1xindex> {
  %s = shape.shape_of %a : tensor<4xf32> -> tensor<1xindex>
  return %s : tensor<1xindex>
}
"""
    # Under a scheduled default, the scheduled run fails first and the fallback is tried.
    scheduled = get_pipeline(default_pipeline()).fallback is not None
    expect_fallback = pytest.warns(PipelineFallbackWarning) if scheduled else contextlib.nullcontext()
    with pytest.raises(ToolchainError) as err, expect_fallback:
        emit(not_bufferizable, "llvm-mlir")
    message = str(err.value)
    # Under a scheduled default, the error is its schedule-free fallback's (plain or o3).
    assert re.match(r"mlir-opt \((plain|o3) pipeline\) failed", message)
    assert "command: " in message and "--one-shot-bufferize=" in message
    # Locations are carried through, so the error points at line 3 of the input.
    assert "<stdin>:3:8: error: op was not bufferized" in message


def test_any_change_to_the_text_is_a_new_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    _, text = unique_module()
    first = build_library(text)
    assert not build_library(text + "\n// a comment\n").cache_hit
    assert build_library(text).path == first.path
    assert len(list(tmp_path.glob("*.json"))) == 2
