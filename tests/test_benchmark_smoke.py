"""The benchmark harness on one tiny case: it compiles, agrees with PyTorch and times both.

Keeps `benchmarks/` from rotting; the real suite is `python -m benchmarks.run`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cases import BATCHES, CASES, Case  # noqa: E402
from benchmarks import matmul, peak_fma, sequence_ops  # noqa: E402
from benchmarks.harness import format_table, run_case  # noqa: E402

SMALL = [
    Case("tiny-bw-weight", "conv_weight", 2, 4, 9, 3, 2, 1, 6, 2),
    Case("tiny-maxpool", "max_pool", 2, 3, 8, 3, 2, 1),
]


@pytest.mark.parametrize("case", SMALL, ids=lambda c: c.name)
def test_small_case_matches_pytorch_and_is_timed(case):
    result = run_case(case, "plain", budget_s=0.05, min_rounds=3)
    assert result.correct, f"relative error {result.rel_err:.2e}"
    assert result.ours_ms > 0 and result.torch_ms > 0 and result.ratio > 0
    assert result.rounds >= 3
    json.dumps(result.to_json())
    assert case.name in format_table([result])


@pytest.mark.parametrize("label", BATCHES)
@pytest.mark.parametrize("case", SMALL, ids=lambda c: c.name)
def test_every_case_runs_at_every_batch_users_run(case, label):
    at = case.at_batch(label)
    module = at.rlx_module()
    assert ("tensor<?x" in module) == (label == "?")
    result = run_case(at, "plain", budget_s=0.05, min_rounds=3)
    assert result.correct, f"relative error {result.rel_err:.2e}"
    assert result.batch == at.batch_label and at.batch_label in format_table([result])


def test_suite_lists_every_issue_case():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)) == 17  # the issue's 15, and MobileNetV2's stride-2 depthwise pair
    conv = [c for c in CASES if c.is_conv]
    assert {c.kind for c in conv} == {"conv_weight", "conv_input"} and len(conv) == 14
    stem = next(c for c in CASES if c.name.startswith("c-"))
    assert stem.work() == 2 * 8 * 64 * 3 * 7 * 7 * 112 * 112


@pytest.mark.parametrize(
    "case",
    [
        sequence_ops.embedding_backward_case(11, 2, 5, 4, dynamic=True),
        sequence_ops.cumsum_case(2, 7, 3),
        sequence_ops.linear_scan_case(2, 7, 3),
    ],
    ids=lambda c: c.name,
)
def test_sequence_op_case_matches_pytorch_and_is_timed(case):
    result = sequence_ops.run(case, budget=0.05)
    assert result["correct"], f"max error {result['max_abs_err']:.2e}"
    assert result["ours_ms"] > 0 and result["torch_ms"] > 0
    json.dumps(result)


@pytest.mark.parametrize("variant", matmul.VARIANTS)
def test_matmul_case_matches_pytorch_and_is_timed(variant):
    """Each transpose form of an odd-sized product (no size a multiple of a tile)."""
    result = matmul.run(matmul.MatmulCase(17, 3, 5, variant), budget=0.05)
    assert result["correct"], f"max error {result['max_abs_err']:.2e}"
    assert result["ours_gflops"] > 0 and result["torch_gflops"] > 0
    assert result["peak_gflops"] > 0 and 0 < result["ours_of_peak"] and 0 < result["torch_of_peak"]
    json.dumps(result)


@pytest.mark.parametrize("element", ["float", "double"])
def test_peak_fma_kernel_compiles_and_runs(element):
    """The peak-FMA kernel goes through our llc and linker and returns a rate."""
    assert peak_fma.peak_gflops(1, seconds=0.01, element=element) > 0
