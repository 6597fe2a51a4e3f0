"""The optimizing pipelines compile for the machine they run on: its threads, its vectors.

The thread count comes from OMP_NUM_THREADS, else the process's CPU affinity; the vector
width from what llc selects for the target CPU (RLX_MLIR_CPU, default the host). Both
reach the emitted code, which is what these tests inspect (no timing): the OpenMP
regions fork the requested number of threads, and an AVX-512 target gets 16-lane f32
vectors in the scheduled IR and zmm registers in llc's code. The AVX-512 code cannot run
on this AVX2 machine; it is only emitted.
"""

from __future__ import annotations

import os
import re

import pytest

from rlx_mlir.backend import emit, schedules, toolchain
from rlx_mlir.backend.compile import _cache_key
from rlx_mlir.backend.machine import (
    CPU_VARIABLE,
    MachineParams,
    conv_weight_rows,
    f32_lanes_of,
    has_full_width_fma,
    machine_params,
)
from rlx_mlir.backend.pipelines import get_pipeline, openmp_library

needs_openmp = pytest.mark.skipif(openmp_library() is None, reason="intel-openmp not installed")

# The input-gradient conv decompose-backward emits: one image per forall iteration, so its
# parallel region is there at any thread count (a forall split by thread count folds away
# at one thread).
CONV = """
func.func @dx(%dy: tensor<2x8x18x18xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%dy, %w : tensor<2x8x18x18xf32>, tensor<8x8x3x3xf32>) outs(%acc : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  return %r : tensor<2x8x16x16xf32>
}
"""

# A matmul: its schedule splits columns into @num_threads forall iterations.
MATMUL = """
func.func @mm(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
"""


@pytest.fixture
def machine(monkeypatch):
    """Sets the environment the pipelines read the machine from; returns its params."""

    def configure(threads: int | None = None, cpu: str | None = None) -> MachineParams:
        for variable, value in (("OMP_NUM_THREADS", threads), (CPU_VARIABLE, cpu)):
            if value is None:
                monkeypatch.delenv(variable, raising=False)
            else:
                monkeypatch.setenv(variable, str(value))
        return machine_params()

    return configure


def test_thread_count_is_omp_num_threads(machine):
    assert machine(threads=3).threads == 3


def test_thread_count_takes_the_outer_level_of_a_nested_list(machine, monkeypatch):
    machine()
    monkeypatch.setenv("OMP_NUM_THREADS", "4,2")
    assert machine_params().threads == 4


def test_thread_count_without_omp_num_threads_is_the_affinity_mask(machine):
    assert machine().threads == len(os.sched_getaffinity(0))


@needs_openmp
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_scheduled_conv_forks_the_requested_threads(threads, machine):
    machine(threads=threads)
    llvm_ir = emit(CONV, "llvm-ir", "optimizing-omp")
    forks = re.findall(r"call void @__kmpc_push_num_threads\(ptr [^,]+, i32 [^,]+, i32 (\d+)\)", llvm_ir)
    assert forks, "no OpenMP region pushes a thread count"
    assert set(forks) == {str(threads)}


@needs_openmp
@pytest.mark.parametrize("threads", [2, 4])
def test_thread_split_schedules_make_one_iteration_per_thread(threads, machine):
    machine(threads=threads)
    scheduled = emit(MATMUL, "llvm-mlir", "optimizing-omp")
    assert "omp.parallel num_threads" in scheduled
    # The matmul's 64 columns in `threads` forall iterations: the schedule's params.
    assert f"%p = transform.param.constant {threads} : i64" in schedules.params_library(
        machine_params()
    ).read_text()


def test_thread_count_and_cpu_are_in_the_cache_key(machine):
    keys = set()
    for threads, cpu in ((2, None), (4, None), (2, "x86-64-v4")):
        machine(threads=threads, cpu=cpu)
        keys.add(_cache_key("module", get_pipeline("optimizing-omp")))
    assert len(keys) == 3


@pytest.mark.parametrize("cpu, lanes", [("x86-64-v3", 8), ("x86-64-v4", 16)])
def test_vector_width_is_what_llc_selects_for_the_cpu(cpu, lanes):
    assert f32_lanes_of(cpu) == lanes


def test_avx512_target_gets_16_lane_vectors_and_zmm_code(machine):
    params = machine(threads=2, cpu="x86-64-v4")
    assert params.f32_lanes == 16
    pipeline = get_pipeline("optimizing")
    assert "-mcpu=x86-64-v4" in pipeline.llc_flags
    assert "vector<16xf32>" in emit(CONV, "llvm-mlir", "optimizing")
    # llc as the pipeline runs it, writing assembly instead of the object file.
    asm = toolchain.run(
        "llc",
        [str(toolchain.find_tool("llc").path), *pipeline.llc_flags, "-o", "-", "-"],
        input=emit(CONV, "llvm-ir", "optimizing"),
    )
    assert re.search(r"vfmadd\w*ps\s.*%zmm", asm), "no 16-lane FMA in the AVX-512 code"


def test_avx2_host_keeps_8_lane_vectors(machine):
    params = machine(threads=2)
    if params.f32_lanes != 8:
        pytest.skip(f"host vectors have {params.f32_lanes} f32 lanes")
    scheduled = emit(CONV, "llvm-mlir", "optimizing")
    assert "vector<8xf32>" in scheduled
    assert "vector<16xf32>" not in scheduled


def f32_tensor(shape: tuple) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


def emit_without_fallback(source: str) -> str:
    """The `optimizing` pipeline's LLVM dialect of `source`, its `o3` fallback an error."""
    import warnings

    from rlx_mlir.backend.compile import PipelineFallbackWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", PipelineFallbackWarning)
        return emit(source, "llvm-mlir", "optimizing")


def conv_function(name: str, x: tuple, w: tuple, y: tuple) -> str:
    """A stride-1 linalg.conv_2d_nchw_fchw of a zero init, as the backend lowers a conv."""
    tx, tw, ty = (f32_tensor(shape) for shape in (x, w, y))
    return f"""
func.func @{name}(%x: {tx}, %w: {tw}) -> {ty} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {ty}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {ty}) -> {ty}
  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}}
      ins(%x, %w : {tx}, {tw}) outs(%acc : {ty}) -> {ty}
  return %r : {ty}
}}
"""


# A 3x3 conv whose output rows are 7 wide (ResNet's last stage).
NARROW_CONV = conv_function("c7", (2, 16, 9, 9), (16, 16, 3, 3), (2, 16, 7, 7))


@pytest.mark.parametrize("cpu", ["x86-64-v3", "x86-64-v4"])
def test_narrow_conv_is_widened_to_8_columns_on_any_vector_width(machine, cpu):
    """7-wide rows are computed as 8-lane FMAs, also on a 16-lane target: widened to 16 they
    would waste 9 columns in 16 (on Zen 4 two 8-lane FMAs issue where one 16-lane FMA does)."""
    machine(threads=2, cpu=cpu)
    scheduled = emit(NARROW_CONV, "llvm-mlir", "optimizing")
    fmas = re.findall(r"llvm\.intr\.fmuladd.*vector<(\d+)xf32>|llvm\.intr\.fma.*vector<(\d+)xf32>", scheduled)
    widths = {int(a or b) for a, b in fmas}
    assert widths == {8}, f"FMA widths {widths}"


# SqueezeNet's 1x1 conv at 7x7 with 12 filters: its last 8-filter block is 4 wide (dynamic).
NARROW_FEW_FILTERS = conv_function("c12", (2, 32, 7, 7), (12, 32, 1, 1), (2, 12, 7, 7))


@pytest.mark.parametrize("cpu", ["x86-64-v3", "x86-64-v4"])
def test_narrow_conv_with_a_partial_filter_block_schedules_without_fallback(machine, cpu):
    """The widened 8-column conv whose filter blocks do not divide its filters: mlir-opt 22
    asserted on the schedule of its dynamic last block, and the module fell back to `o3`."""
    machine(threads=2, cpu=cpu)
    emit_without_fallback(NARROW_FEW_FILTERS)


def _transpose_function(name: str, shape: tuple[int, ...], permutation: tuple[int, ...]) -> str:
    tx, ty = f32_tensor(shape), f32_tensor(tuple(shape[d] for d in permutation))
    return f"""
func.func @{name}(%x: {tx}) -> {ty} {{
  %e = tensor.empty() : {ty}
  %t = linalg.transpose ins(%x : {tx}) outs(%e : {ty}) permutation = [{", ".join(map(str, permutation))}]
  return %t : {ty}
}}
"""


@pytest.mark.parametrize("cpu, lanes", [("x86-64-v3", 8), ("x86-64-v4", 16)])
@pytest.mark.parametrize("permutation", [(0, 2, 3, 1), (0, 3, 1, 2)], ids=["to_nhwc", "to_nchw"])
def test_channels_last_transposes_are_lane_square_blocks_on_any_vector_width(machine, cpu, lanes, permutation):
    """NCHW <-> NHWC of 32x32 planes of 64 channels, both ways: each LxL block (L the
    target's lanes) is read and written as rows of L, whatever dimension the source's
    innermost becomes (unblocked, the transpose would be scalar loads and stores).
    Blocks once read across the wrong two dimensions made mlir-opt loop (ConvNeXt's step
    fell back to `o3`)."""
    machine(threads=2, cpu=cpu)
    shape = (2, 64, 32, 32) if permutation == (0, 2, 3, 1) else (2, 32, 32, 64)
    scheduled = emit_without_fallback(_transpose_function("t", shape, permutation))
    rows = {kind: set(re.findall(rf"llvm\.{kind} .*vector<(\d+)xf32>", scheduled)) for kind in ("load", "store")}
    assert rows == {"load": {str(lanes)}, "store": {str(lanes)}}, rows


@pytest.mark.parametrize(
    "cpu, lanes, full", [("znver5", 16, True), ("znver4", 16, False), ("x86-64-v4", 16, False), ("znver5", 8, False)]
)
def test_full_width_fma_is_a_property_of_the_cpu_and_its_lanes(cpu, lanes, full):
    """Only CPUs measured to run 16-lane FMAs at the 8-lane rate (Zen 5) count; Zen 4's
    512-bit FMAs are two 256-bit halves, and a CPU compiled for 8 lanes has no 16-lane FMA."""
    assert has_full_width_fma(cpu, lanes) is full


# A 3x3 conv whose rows are 28 wide (ResNet's second stage): 16 + 8 + 4 columns in chunks.
RAGGED_CONV = conv_function("c28", (2, 16, 30, 30), (16, 16, 3, 3), (2, 16, 28, 28))


@pytest.mark.parametrize("cpu, widths", [("znver5", {16}), ("znver4", {16, 8, 4}), ("x86-64-v3", {8, 4})])
def test_ragged_rows_are_whole_vectors_where_full_width_fmas_cost_no_more(machine, cpu, widths):
    """On Zen 5 a 28-wide row is computed as two 16-lane vectors (4 zero columns: two FMAs
    per row and channel instead of three); elsewhere as its 16 + 8 + 4 (or 8 + 8 + 8 + 4)
    chunks. Emitted only: the code for another CPU need not run here."""
    params = machine(threads=2, cpu=cpu)
    assert params.full_width_fma is (cpu == "znver5")
    scheduled = emit_without_fallback(RAGGED_CONV)
    fmas = re.findall(r"llvm\.intr\.fmuladd.*vector<(\d+)xf32>|llvm\.intr\.fma.*vector<(\d+)xf32>", scheduled)
    assert {int(a or b) for a, b in fmas} == widths


@pytest.mark.parametrize("lanes, rows", [(16, 8), (8, 4), (4, 4)])
def test_weight_gradient_tile_rows_fill_the_vector_registers(lanes, rows):
    """8 rows x 2 vectors of accumulators where 16-lane vectors come with 32 registers
    (AVX-512), 4 x 2 in AVX2's 16: the rendered parameter the conv-weight schedule reads."""
    params = MachineParams(f32_lanes=lanes)
    assert conv_weight_rows(params) == rows
    assert f"%p = transform.param.constant {rows} : i64" in schedules.render_params(params).split("@conv_weight_rows")[1][:200]


def test_ragged_rows_stay_in_chunks_at_a_dynamic_batch(machine):
    """At a dynamic batch the widening's pads would not fold into the conv's own (each a
    copy of the whole input or output), so the rows keep their 16 + 8 + 4 chunks."""
    machine(threads=2, cpu="znver5")
    dynamic = """
func.func @c28(%x: tensor<?x16x30x30xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<?x16x28x28xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16x30x30xf32>
  %e = tensor.empty(%n) : tensor<?x16x28x28xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16x28x28xf32>) -> tensor<?x16x28x28xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x16x30x30xf32>, tensor<16x16x3x3xf32>) outs(%acc : tensor<?x16x28x28xf32>) -> tensor<?x16x28x28xf32>
  return %r : tensor<?x16x28x28xf32>
}
"""
    scheduled = emit_without_fallback(dynamic)
    fmas = re.findall(r"llvm\.intr\.fmuladd.*vector<(\d+)xf32>|llvm\.intr\.fma.*vector<(\d+)xf32>", scheduled)
    assert {int(a or b) for a, b in fmas} == {16, 8, 4}
