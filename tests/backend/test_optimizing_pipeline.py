"""The optimizing pipelines: scheduled where a schedule applies, correct everywhere.

Each kernel runs under `plain` (the reference lowering) and the optimizing pipelines and
must agree with PyTorch at the float tolerances, and the ones no schedule fits (dynamic
shapes, gathers, negative-stride maps) must compile and run unchanged. The vector code
each schedule library produces is checked by lit_tests/schedules/.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

from oracle import assert_matches
from rlx_mlir.backend import (
    PIPELINES,
    ToolchainError,
    build_library,
    compile_module,
    emit,
)
from rlx_mlir.backend import pipelines as pipelines_module
from rlx_mlir.backend import schedules
from rlx_mlir.backend.compile import PipelineFallbackWarning
from rlx_mlir.backend.machine import PARAMS
from rlx_mlir.backend.pipelines import (
    OPTIMIZING_OMP,
    SCHEDULE_FILES,
    openmp_library,
)

OPTIMIZING = ["optimizing"]
if openmp_library() is not None:
    OPTIMIZING.append("optimizing-omp")
needs_openmp = pytest.mark.skipif(openmp_library() is None, reason="intel-openmp not installed")

# The channels-last weight gradient decompose-backward emits (conv_backward_weight).
DW_MAPS = """
#dy = affine_map<(kh, kw, f, c, n, ho, wo) -> (n, ho, wo, f)>
#x = affine_map<(kh, kw, f, c, n, ho, wo) -> (n, ho * STRIDE + kh, wo * STRIDE + kw, c)>
#dw = affine_map<(kh, kw, f, c, n, ho, wo) -> (kh, kw, f, c)>
"""

DW_BODY = """
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3xFxCxf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3xFxCxf32>) -> tensor<3x3xFxCxf32>
  %r = linalg.generic {indexing_maps = [#dy, #x, #dw],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dy, %x : DYTYPE, XTYPE) outs(%acc : tensor<3x3xFxCxf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x3xFxCxf32>
  return %r : tensor<3x3xFxCxf32>
}
"""


def conv_weight_module(n, c, f, size, stride=1, dynamic=False) -> str:
    """dwl[kh, kw, f, c] of a 3x3 conv (x already padded), channels-last operands, as the
    generic the schedule targets."""
    out = (size - 3) // stride + 1
    batch = "?" if dynamic else str(n)
    x_type = f"tensor<{batch}x{size}x{size}x{c}xf32>"
    dy_type = f"tensor<{batch}x{out}x{out}x{f}xf32>"
    body = DW_BODY.replace("DYTYPE", dy_type).replace("XTYPE", x_type)
    body = body.replace("F", str(f)).replace("xC", f"x{c}")
    return (
        DW_MAPS.replace("STRIDE", str(stride))
        + f"func.func @dw(%dy: {dy_type}, %x: {x_type}) -> tensor<3x3x{f}x{c}xf32> {{"
        + body
    )


def matmul_module(m, k, n) -> str:
    return f"""
func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%acc : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


# The adjoint conv in gather form reads dy at h - kh: MLIR's tiling asserts on negative
# coefficients, so no schedule may touch it.
DX_FLIPPED = """
#dyp = affine_map<(n, c, h, w, f, kh, kw) -> (n, f, h - kh + 2, w - kw + 2)>
#w = affine_map<(n, c, h, w, f, kh, kw) -> (f, c, kh, kw)>
#dx = affine_map<(n, c, h, w, f, kh, kw) -> (n, c, h, w)>
func.func @dx(%dyp: tensor<2x6x11x11xf32>, %w: tensor<6x5x3x3xf32>) -> tensor<2x5x9x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x9x9xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x9x9xf32>) -> tensor<2x5x9x9xf32>
  %r = linalg.generic {indexing_maps = [#dyp, #w, #dx],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%dyp, %w : tensor<2x6x11x11xf32>, tensor<6x5x3x3xf32>) outs(%acc : tensor<2x5x9x9xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x5x9x9xf32>
  return %r : tensor<2x5x9x9xf32>
}
"""

def conv_module(n, c, f, size, k=3, dilation=1) -> str:
    """A stride-1 linalg.conv_2d_nchw_fchw (decompose-backward's direct input gradient form)."""
    out = size - dilation * (k - 1)
    x, w, y = f"tensor<{n}x{c}x{size}x{size}xf32>", f"tensor<{f}x{c}x{k}x{k}xf32>", f"tensor<{n}x{f}x{out}x{out}xf32>"
    return f"""
func.func @conv(%x: {x}, %w: {w}) -> {y} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {y}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {y}) -> {y}
  %r = linalg.conv_2d_nchw_fchw {{strides = dense<1> : tensor<2xi64>, dilations = dense<{dilation}> : tensor<2xi64>}}
      ins(%x, %w : {x}, {w}) outs(%acc : {y}) -> {y}
  return %r : {y}
}}
"""


# A gather through tensor.extract and an index-dependent body, like the pool gradients.
GATHER = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gather(%src: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %i2 = arith.muli %i, %c2 : index
    %v = tensor.extract %src[%i2, %j] : tensor<16x16xf32>
    %t = arith.addf %v, %v : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
"""


def rand(*shape):
    return np.random.default_rng(sum(shape)).standard_normal(shape, dtype=np.float32)


def dw_reference(stride):
    """PyTorch's dw [F, C, 3, 3] of channels-last dy [N, Ho, Wo, F] and x [N, H, W, C],
    laid out as the schedule's dwl [3, 3, F, C] (tensors in, for `oracle.assert_matches`)."""

    def channels_last_dw(dy, x):
        xt, dyt = x.permute(0, 3, 1, 2), dy.permute(0, 3, 1, 2)
        dw = torch.nn.grad.conv2d_weight(xt, (dy.shape[3], x.shape[3], 3, 3), dyt, stride=stride)
        return dw.permute(2, 3, 0, 1)

    return channels_last_dw


def test_pipelines_are_registered_and_schedule_ships():
    assert {"plain", "o3", "optimizing"} <= set(PIPELINES)
    flags = " ".join(PIPELINES["optimizing"].mlir_opt_flags)
    for schedule in SCHEDULE_FILES:
        assert schedule.is_file()
        assert str(schedule) in flags
    assert {"optimizing", "optimizing-omp"} <= set(PIPELINES)
    assert PIPELINES["optimizing"].fallback == PIPELINES["optimizing-omp"].fallback == "o3"


@needs_openmp
def test_openmp_library_is_linked_and_loads_in_a_fresh_process():
    assert "-liomp5" in OPTIMIZING_OMP.link_flags
    text = matmul_module(64, 96, 128)
    library = build_library(text, "optimizing-omp").path
    # No preloading: the library finds libiomp5 through its own rpath.
    script = (
        "import sys, numpy as np\n"
        "from rlx_mlir.backend import build_library, load\n"
        "lib = build_library(sys.stdin.read(), 'optimizing-omp')\n"
        "a = np.ones((64, 96), np.float32); b = np.ones((96, 128), np.float32)\n"
        "assert lib.path == __import__('pathlib').Path(sys.argv[1])\n"
        "print(float(load(lib.path, lib.signatures)['mm'](a, b)[3, 5]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(library)], input=text, capture_output=True,
        text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "96.0"
    needed = subprocess.run(["ldd", str(library)], check=False, capture_output=True, text=True).stdout
    assert "libiomp5.so" in needed


def test_missing_openmp_wheel_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(pipelines_module, "openmp_library", lambda: None)
    with pytest.raises(ToolchainError, match=r"libiomp5.*pip install intel-openmp"):
        OPTIMIZING_OMP.link_flags  # noqa: B018


def _broken_schedule_pipeline(monkeypatch, tmp_path, name="broken-schedule"):
    """'optimizing' with a schedule file mlir-opt rejects: every module makes it fail."""
    bad = tmp_path / "bad-schedule.mlir"
    bad.write_text("module attributes {transform.with_named_sequence} { this is not IR }\n")
    flags = tuple(
        f"--transform-preload-library=transform-library-paths={bad}"
        if flag.startswith("--transform-preload-library") else flag
        for flag in PIPELINES["optimizing"].mlir_opt_flags
    )
    broken = dataclasses.replace(PIPELINES["optimizing"], name=name, mlir_opt_flags=flags)
    monkeypatch.setitem(PIPELINES, name, broken)
    return broken


def test_failing_schedule_falls_back_to_o3_with_a_warning(monkeypatch, tmp_path):
    broken = _broken_schedule_pipeline(monkeypatch, tmp_path)
    text = matmul_module(13, 17, 19)
    a, b = rand(13, 17), rand(17, 19)
    with pytest.warns(PipelineFallbackWarning, match=r"'broken-schedule': mlir-opt .*failed.*'o3'"):
        fn = compile_module(text, broken.name)["mm"]
    assert_matches(fn(a, b), torch.matmul, (a, b))
    # Cached under the requested pipeline's key: the second build is a hit, silently.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert build_library(text, broken.name).cache_hit
    # emit falls back too.
    with pytest.warns(PipelineFallbackWarning):
        assert "llvm.func" in emit(text, "llvm-mlir", broken.name)


def test_pipeline_without_fallback_still_raises(monkeypatch, tmp_path):
    broken = _broken_schedule_pipeline(monkeypatch, tmp_path, "broken-no-fallback")
    monkeypatch.setitem(PIPELINES, broken.name, dataclasses.replace(broken, fallback=None))
    with pytest.raises(ToolchainError, match=r"mlir-opt \(broken-no-fallback pipeline\) failed"):
        compile_module(matmul_module(13, 17, 19), broken.name)


def test_link_flags_are_in_the_cache_key(monkeypatch):
    from rlx_mlir.backend.compile import _cache_key

    plain = PIPELINES["plain"]
    linked = dataclasses.replace(plain, link=lambda: ("-lm",))
    assert _cache_key("x", plain) != _cache_key("x", linked)


@pytest.mark.parametrize("pipeline", OPTIMIZING)
@pytest.mark.parametrize("shape", [(64, 96, 128), (13, 17, 19)], ids=lambda s: "x".join(map(str, s)))
def test_matmul_is_scheduled_and_correct(pipeline, shape):
    m, k, n = shape
    text = matmul_module(m, k, n)
    a, b = rand(m, k), rand(k, n)
    assert_matches(compile_module(text, pipeline)["mm"](a, b), torch.matmul, (a, b))


@pytest.mark.parametrize("pipeline", OPTIMIZING)
@pytest.mark.parametrize("stride", [1, 2])
def test_gather_form_conv_weight_is_scheduled_and_correct(pipeline, stride):
    n, c, f, size = 2, 32, 16, 11  # tiles divide: vectorized
    out = (size - 3) // stride + 1
    text = conv_weight_module(n, c, f, size, stride)
    dy, x = rand(n, out, out, f), rand(n, size, size, c)
    assert_matches(compile_module(text, pipeline)["dw"](dy, x), dw_reference(stride), (dy, x))


@pytest.mark.parametrize("pipeline", OPTIMIZING)
def test_conv_weight_partial_channel_tiles_are_correct(pipeline):
    # c = 40: 20 per thread, one full 16-wide tile and a peeled 4-wide rest; f = 10: two
    # full 4-row tiles and a peeled 2-row rest.
    n, c, f, size = 2, 40, 10, 9
    text = conv_weight_module(n, c, f, size)
    dy, x = rand(n, size - 2, size - 2, f), rand(n, size, size, c)
    assert_matches(compile_module(text, pipeline)["dw"](dy, x), dw_reference(1), (dy, x))


@pytest.mark.parametrize("pipeline", OPTIMIZING)
def test_dynamic_batch_conv_weight_falls_back_correctly(pipeline):
    text = conv_weight_module(0, 4, 6, 9, 1, dynamic=True)
    fn = compile_module(text, pipeline)["dw"]
    for n in (1, 3):
        dy, x = rand(n, 7, 7, 6), rand(n, 9, 9, 4)
        assert_matches(fn(dy, x), dw_reference(1), (dy, x))


@pytest.mark.parametrize("pipeline", OPTIMIZING)
@pytest.mark.parametrize("shape", [(2, 16, 32, 16, 1), (2, 5, 3, 13, 2)], ids=["tiled", "partial-dilated"])
def test_named_conv_is_scheduled_and_correct(pipeline, shape):
    n, c, f, size, dilation = shape
    text = conv_module(n, c, f, size, dilation=dilation)
    x, w = rand(n, c, size, size), rand(f, c, 3, 3)
    conv = lambda x, w: torch.nn.functional.conv2d(x, w, dilation=dilation)  # noqa: E731
    assert_matches(compile_module(text, pipeline)["conv"](x, w), conv, (x, w))


@pytest.mark.parametrize("pipeline", OPTIMIZING)
def test_negative_coefficient_gather_is_left_alone(pipeline):
    dyp, w = rand(2, 6, 11, 11), rand(6, 5, 3, 3)
    dx = lambda dyp, w: torch.nn.functional.conv2d(dyp, w.flip(2, 3).transpose(0, 1))  # noqa: E731
    assert_matches(compile_module(DX_FLIPPED, pipeline)["dx"](dyp, w), dx, (dyp, w))


@pytest.mark.parametrize("pipeline", OPTIMIZING)
def test_unscheduled_gather_body_is_correct(pipeline):
    src = rand(16, 16)
    np.testing.assert_array_equal(compile_module(GATHER, pipeline)["gather"](src), src[::2] * 2)


def test_params_library_is_the_rendering_of_the_machine_parameters():
    assert schedules.PARAMS_FILE in SCHEDULE_FILES
    assert schedules.PARAMS_FILE.read_text() == schedules.render_params(PARAMS), (
        "params.mlir is stale: run python -m rlx_mlir.backend.schedules --render"
    )


def test_schedule_contents_are_in_the_cache_key(monkeypatch, tmp_path):
    from rlx_mlir.backend.compile import _cache_key

    # A copy of the schedules, one library of which is then edited.
    copies = [tmp_path / path.name for path in SCHEDULE_FILES]
    for path, copy in zip(SCHEDULE_FILES, copies, strict=True):
        copy.write_text(path.read_text())
    flags = tuple(
        "--transform-preload-library=transform-library-paths=" + ",".join(map(str, copies))
        if flag.startswith("--transform-preload-library") else flag
        for flag in PIPELINES["optimizing"].mlir_opt_flags
    )
    pipeline = dataclasses.replace(PIPELINES["optimizing"], mlir_opt_flags=flags)
    before = _cache_key("x", pipeline)
    copies[-1].write_text(copies[-1].read_text() + "\n// edited\n")
    assert _cache_key("x", pipeline) != before


def transpose_module(shape, permutation) -> str:
    result = [shape[axis] for axis in permutation]
    source_type = "tensor<" + "x".join(map(str, shape)) + "xf32>"
    result_type = "tensor<" + "x".join(map(str, result)) + "xf32>"
    return f"""
func.func @t(%x: {source_type}) -> {result_type} {{
  %e = tensor.empty() : {result_type}
  %t = linalg.transpose ins(%x : {source_type}) outs(%e : {result_type}) permutation = {list(permutation)}
  return %t : {result_type}
}}
"""


@pytest.mark.parametrize("pipeline", OPTIMIZING)
@pytest.mark.parametrize(
    "shape, permutation",
    [
        ((2, 16, 24, 16), (0, 2, 3, 1)),  # whole 8x8 blocks: vector transposes
        ((2, 13, 9, 11), (0, 2, 3, 1)),  # partial blocks stay scalar
        ((3, 3, 16, 8), (2, 3, 0, 1)),  # a weight's: left to the loops
    ],
    ids=["blocks", "partial", "small"],
)
def test_transpose_is_scheduled_and_correct(pipeline, shape, permutation):
    text = transpose_module(shape, permutation)
    x = rand(*shape)
    np.testing.assert_array_equal(compile_module(text, pipeline)["t"](x), x.transpose(permutation))
