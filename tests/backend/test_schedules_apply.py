"""The schedules apply to the IR the passes really emit: per kernel, thread loops and vectors.

lit_tests/schedules/ checks each schedule library on hand-written linalg payloads. Here the
payloads are what `decompose-backward` (each formulation option) and
`convert-rlx-to-linalg` emit for RLX ops, and the facts checked are those that tell a
scheduled kernel from an unscheduled one: its ops sit in an `scf.forall` thread loop, the
loop holds the kernel's vector code (vector widths of @f32_lanes = 8), and no linalg op of
the kernel is left, neither whole nor as scalar tiles. Every schedule action runs under
`failures(suppress)`, so a matcher or a schedule that stops applying costs speed silently;
these tests make it loud.

A kernel whose schedule does not apply to the real IR is a finding: its case asserts the
scheduled behaviour and is a strict xfail whose reason says which op and why the matcher
or the schedule misses it.

All cases are functions of one module, lowered per pass options and scheduled by one
mlir-opt call (the flags of `pipelines._optimizing_flags` up to the interpreter).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from xdsl.dialects.builtin import ModuleOp

from rlx_mlir.backend import pipelines, toolchain
from rlx_mlir.backend.interface import module_text
from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

# --------------------------------------------------------------------------------------
# RLX functions
# --------------------------------------------------------------------------------------


def _t(*shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def _out(size: int, k: int, s: int, p: int) -> int:
    return (size + 2 * p - k) // s + 1


def _window(k: int, s: int, p: int, g: int) -> str:
    return f"kernel_size [{k}, {k}] stride [{s}, {s}] padding [{p}, {p}] dilation [1, 1] groups {g}"


def one_op_function(name: str, op: str, operands: dict[str, str], result: str, properties: str = "") -> str:
    """`func.func @name(%a: A, ...) -> R` returning `op %a, ... properties : (A, ...) -> R`."""
    args = ", ".join(f"%{value}: {type_}" for value, type_ in operands.items())
    uses = ", ".join(f"%{value}" for value in operands)
    types = ", ".join(operands.values())
    return (
        f"func.func @{name}({args}) -> {result} {{\n"
        f"  %r = {op} {uses}{' ' + properties if properties else ''} : ({types}) -> {result}\n"
        f"  return %r : {result}\n}}\n"
    )


def conv_dw(name, n, c, f, hw, k, s=1, p=0, g=1) -> str:
    """rlx.conv2d_backward_weight; n may be "?" (dynamic batch)."""
    o = _out(hw, k, s, p)
    x, dy, w = _t(n, c, hw, hw), _t(n, f, o, o), _t(f, c // g, k, k)
    return one_op_function(name, "rlx.conv2d_backward_weight", {"x": x, "dy": dy}, w, _window(k, s, p, g))


def conv_dx(name, n, c, f, hw, k, s=1, p=0, g=1) -> str:
    """rlx.conv2d_backward_input; n may be "?" (dynamic batch)."""
    o = _out(hw, k, s, p)
    x, dy, w = _t(n, c, hw, hw), _t(n, f, o, o), _t(f, c // g, k, k)
    return one_op_function(name, "rlx.conv2d_backward_input", {"dy": dy, "w": w}, x, _window(k, s, p, g))


def conv_forward(name, n, c, f, hw, k, s=1, p=0, g=1) -> str:
    o = _out(hw, k, s, p)
    x, w, y = _t(n, c, hw, hw), _t(f, c // g, k, k), _t(n, f, o, o)
    groups = f" groups {g}" if g > 1 else ""
    return one_op_function(name, "rlx.conv2d", {"x": x, "w": w}, y, f"stride [{s}, {s}] padding [{p}, {p}]{groups}")


def _pool_window(k: int, s: int, p: int) -> str:
    return f"kernel_size [{k}, {k}] stride [{s}, {s}] padding [{p}, {p}]"


def max_pool_dx(name, n, c, hw, k, s, p) -> str:
    o = _out(hw, k, s, p)
    x, dy = _t(n, c, hw, hw), _t(n, c, o, o)
    return one_op_function(name, "rlx.max_pool2d_backward", {"x": x, "dy": dy}, x, _pool_window(k, s, p))


def avg_pool_dx(name, n, c, hw, k, s, p, count_include_pad=True) -> str:
    o = _out(hw, k, s, p)
    x, dy = _t(n, c, hw, hw), _t(n, c, o, o)
    extra = "" if count_include_pad else " count_include_pad false"
    return one_op_function(name, "rlx.avg_pool2d_backward", {"dy": dy}, x, _pool_window(k, s, p) + extra)


def matmul(name, a, b, y) -> str:
    return one_op_function(name, "rlx.matmul", {"a": _t(*a), "b": _t(*b)}, _t(*y))


# --------------------------------------------------------------------------------------
# Facts about one scheduled function (mlir-opt's custom form after the interpreter:
# bufferized, the function body at indent 4, so a thread loop of a scheduled op is an
# `scf.forall` at indent 4 and an unscheduled op is a linalg op at indent 4).
# --------------------------------------------------------------------------------------


def thread_loops(body: str) -> list[str]:
    """The function's top-level scf.forall loops, each as its text."""
    loops, current = [], None
    for line in body.splitlines():
        if current is None and line.startswith("    scf.forall"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line == "    }":
                loops.append("\n".join(current))
                current = None
    return loops


Fact = Callable[[str], None]


@dataclass(frozen=True)
class Threaded:
    """At least `count` thread loops each hold a match of `pattern`."""

    what: str
    pattern: str
    count: int = 1

    def __call__(self, body: str) -> None:
        found = sum(1 for loop in thread_loops(body) if re.search(self.pattern, loop))
        assert found >= self.count, (
            f"{self.what}: {found} thread loop(s) hold /{self.pattern}/, expected >= {self.count}"
        )


@dataclass(frozen=True)
class Somewhere:
    """The function holds a match of `pattern` (in a thread loop or not)."""

    what: str
    pattern: str

    def __call__(self, body: str) -> None:
        assert re.search(self.pattern, body), f"{self.what}: no /{self.pattern}/ in the function"


@dataclass(frozen=True)
class Absent:
    """No match of `pattern` anywhere in the function: the op is gone, not just tiled."""

    what: str
    pattern: str

    def __call__(self, body: str) -> None:
        left = re.findall(r"^.*(?:" + self.pattern + r").*$", body, re.M)
        assert not left, f"{self.what}: left unscheduled: {left[0].strip()[:200]}"


@dataclass(frozen=True)
class Exactly:
    """Exactly `count` matches of `pattern` in the function."""

    what: str
    pattern: str
    count: int

    def __call__(self, body: str) -> None:
        found = len(re.findall(self.pattern, body))
        assert found == self.count, f"{self.what}: {found} x /{self.pattern}/, expected {self.count}"


@dataclass(frozen=True)
class OnlyInThreads:
    """No op matching `pattern` outside the thread loops (every such op is scheduled)."""

    what: str
    pattern: str = r"linalg\.generic"

    def __call__(self, body: str) -> None:
        outside = [line for line in body.splitlines() if re.match(r"    (?:" + self.pattern + ")", line)]
        assert not outside, f"{self.what}: outside any thread loop: {outside[0].strip()[:200]}"


def generic_of_rank(rank: int) -> str:
    """A linalg.generic with `rank` loops (as printed after bufferization)."""
    return r'linalg\.generic .*iterator_types = \[(?:"\w+", ){%d}"\w+"\]' % (rank - 1)


FMA_8 = r"vector\.fma .* : vector<8xf32>"


def accumulator(shape: str) -> str:
    """A register tile carried through a reduction loop."""
    return r"iter_args\(.*\) -> \(vector<" + shape + r"xf32>\)"


# The dense conv input gradient (direct): stride-phase linalg.conv_2d_nchw_fchw, conv.mlir.
CONV = (
    Absent("conv", r"linalg\.conv_2d_nchw_fchw"),
    Absent("generalized conv tile", generic_of_rank(7)),
)
CONV_8F = (
    Threaded("8 f x 8 ow register tiles", r"vector\.transfer_write .* : vector<8x8xf32>"),
    Threaded("FMAs along ow", FMA_8),
    *CONV,
)
# ... kept in registers across the (c, kh, kw) loops (a 3x3 kernel has them).
CONV_8F_3X3 = (Threaded("8 f x 8 ow accumulators", accumulator("8x8")), *CONV_8F)
# The dense weight gradient (direct): channels-last transposes (transpose.mlir), the rank-7
# contraction (conv-weight.mlir), the [KH, KW, F, C] -> [F, C, KH, KW] weight transpose
# (unscheduled by design: its inner dims are the kernel's).
DW_TRANSPOSES = Threaded("x and dy NCHW -> NHWC in 8x8 blocks", r"vector\.transfer_read .* vector<1x8x1x8xf32>", 2)
DW_CONTRACTION = (
    Threaded("4 p x 8|16 q register tiles", accumulator(r"4x(?:8|16)")),
    Threaded("outer products of channel rows", r"arith\.mulf .* : vector<4x(?:8|16)xf32>"),
    Absent("channels-last weight-gradient contraction", generic_of_rank(7)),
)
DW = (DW_TRANSPOSES, *DW_CONTRACTION, Exactly("transposes left (the weight's only)", r"linalg\.transpose", 1))
# Grouped and depthwise gradients (grouped-conv.mlir): vector rows along W.
GROUPED_PADDING = Threaded("zero padding as vector rows (fill, copy)", r"vector\.transfer_write .* : vector<1x1x1x\d+xf32>", 2)
GROUPED_ROWS = Threaded("8-wide row chunks", r"arith\.mulf .* : vector<8xf32>")
GROUPED_DX = (
    GROUPED_PADDING,
    GROUPED_ROWS,
    Threaded("rows stored", r"vector\.store .* vector<8xf32>"),
    Absent("grouped conv", r"linalg\.conv_2d_ngchw_gfchw"),
    Absent("generalized grouped conv tile", generic_of_rank(8)),
)
GROUPED_DW = (
    GROUPED_PADDING,
    GROUPED_ROWS,
    Threaded("rows stored", r"vector\.store .* vector<8xf32>"),
    Absent("weight-gradient row partials", generic_of_rank(8)),
)
MATMUL = (Threaded("8 x 32 register tiles of FMAs", r"vector\.fma .* : vector<32xf32>"), Absent("matmul", r"linalg\.matmul"))
# Pool gradients (pool.mlir).
POOL_THREADED = OnlyInThreads("pool gradient generics")
WINDOW_LOOPS = r'linalg\.generic .*iterator_types = \["reduction", "reduction"\]'
POOL_ROWS = Threaded("tiled-window gather, 14 ow x 2 kw", r"vector\.transfer_write .* : vector<14x2xf32>")


# --------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    facts: tuple[Fact, ...]
    options: dict = field(default_factory=dict)
    xfail: str | None = None

    def __str__(self) -> str:
        return self.name


def _batch_tag(n) -> str:
    return "ndyn" if n == "?" else f"n{n}"


def _dense_batch_cases() -> list[Case]:
    cases = []
    for n in (1, 7, "?"):
        b = _batch_tag(n)
        cases.append(Case(f"dw_direct_{b}_c16f16_k3p1", conv_dw(f"dw_direct_{b}", n, 16, 16, 16, 3, p=1), DW))
        if n == 1:
            # One image and 8 filters per forall iteration: at batch 1 the thread loop
            # still has F/8 iterations.
            cases.append(Case(
                "dx_direct_n1_c16f16_k3p1-threads", conv_dx("dx_direct_n1_threads", 1, 16, 16, 16, 3, p=1),
                CONV_8F_3X3,
            ))
        else:
            cases.append(Case(f"dx_direct_{b}_c16f16_k3p1", conv_dx(f"dx_direct_{b}", n, 16, 16, 16, 3, p=1), CONV_8F_3X3))
        cases.append(Case(
            f"dx_transpose_{b}_c16f16_k3p1", conv_dx(f"dx_transpose_{b}", n, 16, 16, 16, 3, p=1),
            (Threaded("FMAs along ow", FMA_8), Absent("transposed-conv contraction", generic_of_rank(8))),
            options=dict(conv_input="transpose"),
            xfail=(
                "conv-input=transpose lowers through rlx.conv_transpose2d to one rank-8 linalg.generic"
                " (5 parallel, 3 reduction loops) that no library matches (conv.mlir takes"
                " linalg.conv_2d_nchw_fchw only, conv-weight.mlir rank 7, grouped-conv.mlir rank 8"
                " with 6 parallel loops): the whole dx runs as unthreaded scalar loops"
            ),
        ))
        if n == "?":
            cases.append(Case(
                f"dw_im2col_{b}_c64f16_k3p1", conv_dw(f"dw_im2col_{b}", n, 64, 16, 8, 3, p=1), MATMUL,
                options=dict(conv_weight="im2col"),
                xfail=(
                    "with a dynamic batch ConvBackwardWeightIm2col always chunks the rows: the product"
                    " is a rank-6 linalg.generic [p, p, p, p, r, r], not linalg.matmul, which is all"
                    " matmul.mlir matches"
                ),
            ))
        else:
            cases.append(Case(
                f"dw_im2col_{b}_c64f16_k3p1", conv_dw(f"dw_im2col_{b}", n, 64, 16, 8, 3, p=1), MATMUL,
                options=dict(conv_weight="im2col"),
            ))
    return cases


# A conv tile: the generalized conv's reduction loops, left unvectorized. (The stride-phase
# copies of a strided forward conv are all-parallel generics, lowered as loops by design.)
CONV_TILES = Absent("conv tiles", r'linalg\.generic .*"reduction"')

CASES: list[Case] = [
    # Dense conv gradients at batch 2, and per formulation.
    Case("dw_direct_n2_c16f16_k3p1", conv_dw("dw_direct_n2", 2, 16, 16, 16, 3, p=1), DW),
    Case("dx_direct_n2_c16f16_k3p1", conv_dx("dx_direct_n2", 2, 16, 16, 16, 3, p=1), CONV_8F_3X3),
    *_dense_batch_cases(),
    Case(
        "dw_im2col_n2_c16f16_k3p1", conv_dw("dw_im2col_k144", 2, 16, 16, 16, 3, p=1), MATMUL,
        # The 144 columns split into 72 per thread: two whole 32-column tiles and a peeled
        # 8-column one, all vectorized.
        options=dict(conv_weight="im2col"),
    ),
    Case(
        "dw_im2col_n2_c64f16_k3p1-gathers", conv_dw("dw_im2col_gathers", 2, 64, 16, 8, 3, p=1),
        (OnlyInThreads("im2col gather and dy transpose"),), options=dict(conv_weight="im2col"),
        xfail=(
            "no library matches the im2col gather (a rank-6 all-parallel copy generic over"
            " (n, ho, wo, c, kh, kw), KH*KW times x) nor dy's transposing rank-4 generic: both run"
            " as unthreaded scalar loops"
        ),
    ),
    # Strided, padded, 1x1 and the stem.
    Case("dw_direct_n2_c16f16_k3s2p1", conv_dw("dw_direct_s2", 2, 16, 16, 16, 3, s=2, p=1), DW),
    Case(
        "dx_direct_n2_c16f16_k3s2p1", conv_dx("dx_direct_s2", 2, 16, 16, 16, 3, s=2, p=1),
        (
            Threaded("each of the 4 stride phases: FMAs along ow", FMA_8, 4),
            Threaded("each phase's 8x8 tiles", r"vector\.transfer_write .* : vector<8x8xf32>", 4),
            *CONV,
        ),
    ),
    # The WGAN-GP critic's last input gradient, small: four 4-column phases on wrapped rows,
    # each kernel row (2 per phase) a 1-row conv of the flattened padded dy, all vector code.
    Case(
        "dx_direct_n2_c16f16_in8_k4s2p1", conv_dx("dx_direct_wrapped", 2, 16, 16, 8, 4, s=2, p=1),
        (Threaded("each of the 8 wrapped-row convs: FMAs", r"vector\.fma .* : vector<\d+xf32>", 8), *CONV),
    ),
    Case("dw_direct_n2_c16f16_k1", conv_dw("dw_direct_1x1", 2, 16, 16, 16, 1), DW),
    Case("dx_direct_n2_c16f16_k1", conv_dx("dx_direct_1x1", 2, 16, 16, 16, 1), CONV_8F),
    Case("dw_direct_n2_c16f16_k1s2", conv_dw("dw_direct_1x1_s2", 2, 16, 16, 16, 1, s=2), DW),
    Case("dx_direct_n2_c16f16_k1s2", conv_dx("dx_direct_1x1_s2", 2, 16, 16, 16, 1, s=2), CONV_8F),
    Case(
        "dw_direct_n2_c3f16_k7s2p3", conv_dw("dw_stem", 2, 3, 16, 32, 7, s=2, p=3),
        (
            Threaded("dy NCHW -> NHWC in 8x8 blocks", r"vector\.transfer_read .* vector<1x8x1x8xf32>"),
            Threaded("3 c x 8 f register tiles", accumulator("3x8")),
            Threaded("outer products of channel rows", r"arith\.mulf .* : vector<3x8xf32>"),
            Absent("channels-last weight-gradient contraction", generic_of_rank(7)),
        ),
    ),
    Case(
        "dw_direct_n2_c3f16_k7s2p3-x-transpose", conv_dw("dw_stem_x", 2, 3, 16, 32, 7, s=2, p=3),
        (Exactly("transposes left (the weight's only)", r"linalg\.transpose", 1),),
        xfail=(
            "transpose.mlir takes a rank-4 linalg.transpose whose two inner result dims are >= 8:"
            " x as NHWC with C = 3 has W x 3 inner dims, so the stem's x transpose stays an"
            " unthreaded scalar linalg.transpose"
        ),
    ),
    Case(
        "dx_direct_n2_c3f16_k7s2p3", conv_dx("dx_stem", 2, 3, 16, 32, 7, s=2, p=3),
        (Threaded("each of the 4 stride phases: 3 c x 8 ow tiles", accumulator("3x8"), 4), Threaded("FMAs", FMA_8, 4), *CONV),
    ),
    # Grouped (32 groups of 2 channels) and depthwise.
    Case("dw_direct_n2_c64f64g32_k3p1", conv_dw("dw_grouped", 2, 64, 64, 16, 3, p=1, g=32), GROUPED_DW),
    Case("dx_direct_n2_c64f64g32_k3p1", conv_dx("dx_grouped", 2, 64, 64, 16, 3, p=1, g=32), GROUPED_DX),
    Case("dw_direct_n2_c16f16g16_k3p1", conv_dw("dw_depthwise", 2, 16, 16, 16, 3, p=1, g=16), GROUPED_DW),
    Case("dx_direct_n2_c16f16g16_k3p1", conv_dx("dx_depthwise", 2, 16, 16, 16, 3, p=1, g=16), GROUPED_DX),
    Case(
        "dx_direct_n2_c16f16g16_k3s2p1", conv_dx("dx_depthwise_s2", 2, 16, 16, 16, 3, s=2, p=1, g=16),
        (Threaded("each of the 4 stride phases: 8-wide row chunks", r"arith\.mulf .* : vector<8xf32>", 4),
         Absent("grouped conv", r"linalg\.conv_2d_ngchw_gfchw"), Absent("generalized grouped conv tile", generic_of_rank(8))),
    ),
    Case(
        "dw_direct_n2_c16f16g16_k3s2p1", conv_dw("dw_depthwise_s2", 2, 16, 16, 16, 3, s=2, p=1, g=16),
        (
            Threaded("each of the 2 column phases: 8-wide row chunks", r"arith\.mulf .* : vector<8xf32>", 2),
            Threaded("column phases of x zeroed and copied as vector rows", r"vector\.transfer_write .* : vector<1x1x1x\d+xf32>", 4),
            Absent("weight-gradient row partials", generic_of_rank(8)),
            Absent("channels-last transposes", r"linalg\.transpose"),
            OnlyInThreads("phase copies and row partials"),
        ),
    ),
    Case(
        "dw_im2col_n2_c64f64g32_k3p1", conv_dw("dw_grouped_im2col", 2, 64, 64, 16, 3, p=1, g=32),
        (Threaded("vector code", r"vector<\d+xf32>"), OnlyInThreads("grouped im2col gather and product")),
        options=dict(conv_weight="im2col"),
        xfail=(
            "grouped conv-weight=im2col emits a group-batched rank-7 product [p, p, p, p, p, r, r]"
            " (conv-weight.mlir wants 4 parallel + 3 reduction loops, matmul.mlir linalg.matmul) and an"
            " unmatched im2col gather: all unthreaded scalar loops"
        ),
    ),
    Case(
        "dx_transpose_n2_c64f64g32_k3p1", conv_dx("dx_grouped_transpose", 2, 64, 64, 16, 3, p=1, g=32),
        (Threaded("vector code", r"vector<\d+xf32>"), Absent("transposed-conv contraction", generic_of_rank(8))),
        options=dict(conv_input="transpose"),
        xfail="as the dense conv-input=transpose: one unmatched rank-8 linalg.generic (5 parallel, 3 reduction loops)",
    ),
    # Max-pool gradients (pool-ties=first unless named).
    Case(
        "maxpool_dx_n2_c4_in28_k2s2", max_pool_dx("max_k2s2", 2, 4, 28, 2, 2, 0),
        (Threaded("argmax as unit tiles", r'linalg\.generic .*iterator_types = \[\]'), POOL_ROWS, POOL_THREADED),
    ),
    Case(
        "maxpool_dx_n2_c4_in32_k2s2", max_pool_dx("max_k2s2_ow16", 2, 4, 32, 2, 2, 0),
        (Threaded("tiled-window gather as vector rows", r"vector\.transfer_write .* : vector<\d+x2xf32>"),),
        xfail=(
            "pool.mlir tiles the rows gather by 14 ow: at ow = 16 every tile's size is an affine.min"
            " (dynamic), transform.structured.vectorize fails and the whole gather stays scalar loops"
            " (it vectorizes only when ow is a multiple of 14)"
        ),
    ),
    Case(
        "maxpool_dx_n2_c4_in32_k3s2p1", max_pool_dx("max_k3s2p1_even", 2, 4, 32, 3, 2, 1),
        (
            Threaded("border-strip scans as (kh, kw) loops", WINDOW_LOOPS, 2),
            Threaded("interior argmax in 8 lanes", r"vector\.store .* vector<8xi32>"),
            Threaded("interleaved phase gather, 8 x 2 per row", r"vector\.transfer_write .* : vector<8x2xf32>"),
            POOL_THREADED,
        ),
    ),
    Case(
        "maxpool_dx_n2_c4_in33_k3s2p1", max_pool_dx("max_k3s2p1_odd", 2, 4, 33, 3, 2, 1),
        (
            Threaded("border-strip scans as (kh, kw) loops", WINDOW_LOOPS, 4),
            Threaded("interior argmax in 8 lanes", r"vector\.store .* vector<8xi32>"),
            Threaded("the 4 stride phases in 8 lanes", r"vector\.transfer_write .* : vector<8xf32>", 4),
            POOL_THREADED,
        ),
    ),
    Case(
        "maxpool_dx_n2_c4_in28_k2s2_tiesall", max_pool_dx("max_k2s2_all", 2, 4, 28, 2, 2, 0),
        (Threaded("window max as (kh, kw) loops", WINDOW_LOOPS), POOL_ROWS, POOL_THREADED),
        options=dict(pool_ties="all"),
    ),
    Case(
        "maxpool_dx_n2_c4_in32_k3s2p1_tiesall", max_pool_dx("max_k3s2p1_all", 2, 4, 32, 3, 2, 1),
        (Threaded("window max and window gather as (kh, kw) loops", WINDOW_LOOPS, 2), POOL_THREADED),
        options=dict(pool_ties="all"),
    ),
    # Avg-pool gradients.
    Case("avgpool_dx_n2_c4_in28_k2s2", avg_pool_dx("avg_k2s2", 2, 4, 28, 2, 2, 0), (POOL_ROWS, POOL_THREADED)),
    Case(
        "avgpool_dx_n2_c4_in28_k2s2_nopad", avg_pool_dx("avg_k2s2_nopad", 2, 4, 28, 2, 2, 0, False),
        (POOL_ROWS, POOL_THREADED),
    ),
    Case(
        "avgpool_dx_n2_c4_in32_k3s2p1", avg_pool_dx("avg_k3s2p1", 2, 4, 32, 3, 2, 1),
        (Threaded("overlapping-window gather as (kh, kw) loops", WINDOW_LOOPS), POOL_THREADED),
    ),
    Case(
        "avgpool_dx_n2_c4_in32_k3s2p1_nopad", avg_pool_dx("avg_k3s2p1_nopad", 2, 4, 32, 3, 2, 1, False),
        (Threaded("overlapping-window gather as (kh, kw) loops", WINDOW_LOOPS), POOL_THREADED),
    ),
    # Forward ops (convert-rlx-to-linalg).
    Case(
        "conv2d_n2_c16f16_k3p1", conv_forward("fwd_conv", 2, 16, 16, 16, 3, p=1),
        (*CONV_8F_3X3, Absent("conv tiles", r"linalg\.generic")),
    ),
    # Strided forward convs as stride-1 phase convs (the backend's strided-conv=phases).
    Case(
        "conv2d_n2_c16f16_k3s2p1", conv_forward("fwd_conv_s2", 2, 16, 16, 16, 3, s=2, p=1),
        (
            Threaded("each of the 4 stride phases: FMAs along ow", FMA_8, 4),
            Threaded("each phase's 8x8 tiles", r"vector\.transfer_write .* : vector<8x8xf32>", 4),
            *CONV,
            CONV_TILES,
        ),
    ),
    Case(
        "conv2d_n2_c3f16_k7s2p3", conv_forward("fwd_stem", 2, 3, 16, 32, 7, s=2, p=3),
        (Threaded("each of the 4 stride phases: FMAs along ow", FMA_8, 4), *CONV, CONV_TILES),
    ),
    Case(
        "conv2d_n2_c16f16_k1s2", conv_forward("fwd_conv_1x1_s2", 2, 16, 16, 16, 1, s=2),
        (Threaded("the one phase, on flattened rows: FMAs along ow", FMA_8), *CONV, CONV_TILES),
    ),
    # Narrower than one vector (ow = 7 < 8 lanes): widened to 8 columns, then scheduled.
    Case(
        "conv2d_n2_c16f16_in7_k3p1", conv_forward("fwd_conv_narrow", 2, 16, 16, 7, 3, p=1),
        (*CONV_8F_3X3, CONV_TILES),
    ),
    Case(
        # Its 1x1 phase is one 49-wide flattened row: chunks of 48 and 1, whose 1-wide
        # remainder tile is scalar (1/49 of that phase).
        "conv2d_n2_c16f16_in14_k3s2p1", conv_forward("fwd_conv_s2_narrow", 2, 16, 16, 14, 3, s=2, p=1),
        (Threaded("each of the 4 stride phases: FMAs along ow", FMA_8, 4), *CONV),
    ),
    Case("dx_direct_n2_c16f16_in7_k3p1", conv_dx("dx_direct_narrow", 2, 16, 16, 7, 3, p=1), CONV_8F_3X3),
    Case(
        "dx_direct_n2_c16f16_in14_k3s2p1", conv_dx("dx_direct_s2_narrow", 2, 16, 16, 14, 3, s=2, p=1),
        (Threaded("each of the 4 stride phases (7 wide): FMAs along ow", FMA_8, 4), *CONV),
    ),
    Case(
        "conv2d_dyn_c16f16_in7_k3p1", conv_forward("fwd_conv_narrow_dyn", "?", 16, 16, 7, 3, p=1),
        (*CONV_8F_3X3, CONV_TILES),
    ),
    Case(
        "conv2d_n2_c16f16g16_k3p1", conv_forward("fwd_depthwise", 2, 16, 16, 16, 3, p=1, g=16),
        (
            GROUPED_PADDING,
            GROUPED_ROWS,
            Absent("grouped conv", r"linalg\.conv_2d_ngchw_gfchw"),
            Absent("conv tiles", r"linalg\.generic"),
        ),
    ),
    # K = 48: below the packing threshold (K >= 64), the direct register-tiled form.
    Case("matmul_64x48x128", matmul("mm", (64, 48), (48, 128), (64, 128)), MATMUL),
    Case(
        "matmul_packed_64x96x128", matmul("mm_packed", (64, 96), (96, 128), (64, 128)),
        (Threaded("packed register tiles of FMAs", r"vector\.fma .* : vector<\d+xf32>"),
         Absent("matmul", r"linalg\.(matmul|pack|unpack|fill)")),
    ),
    Case(
        "matmul_batched_2x64x96x128", matmul("bmm", (2, 64, 96), (2, 96, 128), (2, 64, 128)),
        (Threaded("FMAs", r"vector\.fma .* : vector<\d+xf32>"), Absent("batched product", r"linalg\.generic")),
    ),
]


# --------------------------------------------------------------------------------------
# Lowering and scheduling, once per session
# --------------------------------------------------------------------------------------


def lower(cases: list[Case]) -> ModuleOp:
    """The cases' functions in one module, each lowered by the passes with its options."""
    ctx = make_context()
    merged = ModuleOp([])
    by_options: dict[tuple, str] = {}
    for case in cases:
        key = tuple(sorted(case.options.items()))
        by_options[key] = by_options.get(key, "") + case.text
    for key, text in by_options.items():
        module = parse_module(ctx, text)
        DecomposeBackwardPass(**dict(key)).apply(ctx, module)
        ConvertRlxToLinalgPass(strided_conv="phases").apply(ctx, module)
        for op in list(module.body.block.ops):
            op.detach()
            merged.body.block.add_op(op)
    return merged


def schedule(text: str) -> str:
    """`text` after the transform interpreter with the optimizing pipelines' libraries (read
    from `pipelines.SCHEDULE_FILES` at call time, as `_optimizing_flags` writes them)."""
    mlir_opt = toolchain.find_tool("mlir-opt")
    return toolchain.run("schedule", [str(mlir_opt.path), *interpreter_flags(), "-"], input=text)


def interpreter_flags() -> tuple[str, str]:
    paths = ",".join(str(path) for path in pipelines.SCHEDULE_FILES)
    return (f"--transform-preload-library=transform-library-paths={paths}", "--transform-interpreter")


def functions(text: str) -> dict[str, str]:
    """Each function of mlir-opt's output, by name."""
    bodies: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        match = re.match(r"  func\.func @(\w+)\(", line)
        if match:
            current = bodies.setdefault(match.group(1), [])
        if current is not None:
            current.append(line)
            if line == "  }":
                current = None
    return {name: "\n".join(lines) for name, lines in bodies.items()}


def _function_name(case: Case) -> str:
    return re.match(r"func\.func @(\w+)\(", case.text).group(1)


@pytest.fixture(scope="module")
def scheduled() -> dict[str, str]:
    try:
        toolchain.find_tool("mlir-opt")
    except toolchain.ToolchainError as error:
        pytest.skip(str(error))
    return functions(schedule(module_text(lower(CASES))))


def test_schedules_run_as_the_optimizing_pipelines_run_them():
    for pipeline in (pipelines.OPTIMIZING, pipelines.OPTIMIZING_OMP):
        assert pipeline.mlir_opt_flags[:2] == interpreter_flags()


def test_case_functions_are_distinct():
    names = [_function_name(case) for case in CASES]
    assert len(names) == len(set(names))
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, marks=pytest.mark.xfail(strict=True, reason=case.xfail)) if case.xfail else case
        for case in CASES
    ],
    ids=str,
)
def test_schedule_applies_to_emitted_kernel(case, scheduled):
    body = scheduled[_function_name(case)]
    for fact in case.facts:
        fact(body)
