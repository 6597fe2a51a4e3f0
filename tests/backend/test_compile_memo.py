"""The compile memo (`rlx_mlir.compile_memo`): a source compiled before is not lowered again,
and what the memo serves computes what PyTorch computes. Anything that could change the
result (the source, the lowering's code, the libraries in the cache) makes it a miss."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import rlx_mlir
from rlx_mlir import api, compile_memo
from rlx_mlir.backend import cache
from rlx_mlir.backend.compile import last_compile_was_cache_hit
from rlx_mlir.kernel_graph import KernelGraph
from oracle import assert_within_bound

# A conv, a relu and a constant-scaled sum: as kernels, a graph with a constant operand.
SOURCE = """
func.func @f(%x: tensor<2x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32> {{
  %a = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  %r = rlx.relu %a : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %y = rlx.add %a, %r : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  func.return %y : tensor<2x4x8x8xf32>
}}
// {tag}
"""


def _fresh_source() -> str:
    """SOURCE with a comment no other test compiled: a memo miss the first time."""
    return SOURCE.format(tag=uuid.uuid4().hex)


def _inputs():
    rng = np.random.default_rng(0)
    return rng.standard_normal((2, 4, 8, 8)).astype(np.float32), rng.standard_normal((4, 4, 3, 3)).astype(np.float32)


def _check(got, x, w):
    """Against PyTorch in f64; the magnitude bound is the conv on |x|, |w|, doubled (a + relu(a))."""
    x64, w64 = (torch.from_numpy(a.astype(np.float64)) for a in (x, w))
    a = F.conv2d(x64, w64, padding=1)
    assert_within_bound(got, a + F.relu(a), 2 * F.conv2d(x64.abs(), w64.abs(), padding=1))


def _forbid_lowering(monkeypatch):
    def lowered(*args, **kwargs):
        raise AssertionError("a memo hit must not lower the source again")

    monkeypatch.setattr(api, "lower_to_linalg", lowered)


@pytest.mark.parametrize("outline", [False, True], ids=["one-library", "kernel-graph"])
def test_second_compile_is_served_without_lowering(monkeypatch, outline):
    source = _fresh_source()
    x, w = _inputs()
    first = rlx_mlir.compile(source, outline=outline)
    _check(first["f"](x, w), x, w)
    _forbid_lowering(monkeypatch)
    second = rlx_mlir.compile(source, outline=outline)
    assert last_compile_was_cache_hit() is True
    assert isinstance(second, KernelGraph) == isinstance(first, KernelGraph) == outline
    _check(second["f"](x, w), x, w)


def test_options_of_the_lowering_are_part_of_the_key():
    source = _fresh_source()
    keys = {compile_memo.memo_key(source, None, outline, "phases") for outline in (False, True)}
    keys.add(compile_memo.memo_key(source, None, False, "direct"))
    keys.add(compile_memo.memo_key(source, "o3", False, "phases"))
    keys.add(compile_memo.memo_key(source.replace("// ", "// changed "), None, False, "phases"))
    assert len(keys) == 5


def test_a_change_to_the_lowering_code_is_a_miss(monkeypatch):
    source = _fresh_source()
    rlx_mlir.compile(source)
    calls = []
    real = api.lower_to_linalg
    monkeypatch.setattr(api, "lower_to_linalg", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(compile_memo, "_code_digest", lambda: "another version of the passes")
    x, w = _inputs()
    _check(rlx_mlir.compile(source)["f"](x, w), x, w)
    assert calls == [1]


def test_a_record_whose_library_is_gone_is_a_miss(monkeypatch):
    source = _fresh_source()
    compiled = rlx_mlir.compile(source, outline=True)
    libraries = compiled.kernels.modules
    directory = cache.cache_dir()
    (directory / f"{libraries[0].key}.json").unlink()
    calls = []
    real = api.lower_to_linalg
    monkeypatch.setattr(api, "lower_to_linalg", lambda *a, **k: calls.append(1) or real(*a, **k))
    x, w = _inputs()
    _check(rlx_mlir.compile(source, outline=True)["f"](x, w), x, w)
    assert calls == [1]


def test_a_damaged_record_is_a_miss(monkeypatch):
    source = _fresh_source()
    rlx_mlir.compile(source)
    key = compile_memo.memo_key(source, None, False, "phases")
    (cache.cache_dir() / f"{key}.record").write_text('{"format": "1", "libr')
    assert compile_memo.recall(key) is None
    x, w = _inputs()
    _check(rlx_mlir.compile(source)["f"](x, w), x, w)


def test_bad_input_is_still_diagnosed_on_a_second_compile():
    from rlx_mlir.ir import DiagnosticError

    bad = "func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {\n  %y = rlx.relu %x : (tensor<2x4xf32>) -> tensor<4x2xf32>\n  func.return %x : tensor<2x4xf32>\n}\n"
    for _ in range(2):
        with pytest.raises(DiagnosticError):
            rlx_mlir.compile(bad)


# A softmax over a -inf-masked score: the graph holds the mask's -inf and a NaN as
# constants, which its text spells as bit patterns (`0xFF800000`).
MASKED_SOURCE = """
func.func @f(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {{
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %nan = arith.constant dense<[0x7FC00000, 1.0, 2.0, 0xFF800000, 0x7F800000]> : tensor<5xf32>
  %keep = rlx.gt %x, %zero : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xi1>
  %bias = rlx.where %keep, %zero, %ninf : (tensor<3x5xi1>, tensor<f32>, tensor<f32>) -> tensor<3x5xf32>
  %s = rlx.add %x, %bias : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %p = rlx.softmax %s dim 1 : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %n = rlx.mul %x, %nan : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  func.return %p, %n : tensor<3x5xf32>, tensor<3x5xf32>
}}
// {tag}
"""


def test_infinities_and_nans_of_a_graph_survive_the_memo(monkeypatch):
    """A memo hit reads the kernel graph back from its record's text, where MLIR spells an
    infinity or a NaN by its bits; read as an integer, an attention mask's -inf became 1.8e19
    and a cached step computed another function (the first compile was right)."""
    source = MASKED_SOURCE.format(tag=uuid.uuid4().hex)
    x = np.array([[1.0, -2.0, 0.5, 3.0, -1.0], [0.25, 0.75, -0.5, -3.0, 2.0], [-1.0, 4.0, 1.5, -0.25, 0.5]],
                 dtype=np.float32)
    t = torch.from_numpy(x.astype(np.float64))
    want_p = torch.softmax(t.masked_fill(t <= 0, float("-inf")), dim=1).numpy()
    want_n = (t * torch.tensor([float("nan"), 1.0, 2.0, float("-inf"), float("inf")], dtype=torch.float64)).numpy()
    first = rlx_mlir.compile(source, outline=True)
    _forbid_lowering(monkeypatch)
    second = rlx_mlir.compile(source, outline=True)
    assert last_compile_was_cache_hit() is True
    for compiled in (first, second):
        p, n = compiled["f"](x)
        np.testing.assert_allclose(p, want_p, rtol=1e-6, atol=0)
        np.testing.assert_array_equal(np.isnan(n), np.isnan(want_n))
        np.testing.assert_array_equal(n[~np.isnan(n)], want_n[~np.isnan(want_n)].astype(np.float32))
