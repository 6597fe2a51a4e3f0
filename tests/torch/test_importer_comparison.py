"""Comparisons, logical ops and any/all imported from PyTorch, run natively, against eager.

The graphs come through `torch.compile(..., backend="rlx")` (strict: a graph we could not
import would raise), so the bool results cross back to PyTorch as they do in training.
Exact: a comparison rounds nothing.
"""

from __future__ import annotations

import pytest
import torch

from rlx_mlir.torch.errors import UnsupportedGraph


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def masks(x, y, t):
    """What PyTorch's causal and padding masks are made of (`.Scalar` and `.Tensor`
    comparisons, bitwise ops on bools, any over a dim), and NaN's corner cases."""
    upper = (x < y) & ~(x > 0.5)
    lower = torch.logical_or(x == 0.25, torch.logical_xor(x >= y, y != y))
    return (upper, lower, (t <= 2) | (t == 7), torch.any(upper, dim=1), torch.all(lower, dim=0, keepdim=True),
            torch.any(x == x), torch.logical_not(t > 3))


def inputs(dtype):
    x = torch.tensor([[0.25, float("nan"), -0.0, 1.0], [0.5, 2.0, float("inf"), -1.0], [0.0, 0.25, 3.0, 0.6]], dtype=dtype)
    y = torch.tensor([0.0, float("nan"), 0.0, 0.75], dtype=dtype)
    t = torch.tensor([[1, 2, 3, 7], [9, 0, -4, 2], [7, 7, 3, 3]])
    return x, y, t


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_comparison_graph_matches_eager(dtype):
    compiled = torch.compile(masks, backend="rlx", options={"strict": True})
    got, want = compiled(*inputs(dtype)), masks(*inputs(dtype))
    assert len(got) == len(want)
    for index, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == torch.bool and torch.equal(g, w), f"result {index}: {g} != {w}"


def test_an_integer_tensor_against_a_fractional_number_is_refused():
    compiled = torch.compile(lambda t: t < 2.5, backend="rlx", options={"strict": True})
    with pytest.raises(Exception) as raised:
        compiled(torch.tensor([1, 2, 3]))
    chain = [raised.value, raised.value.__cause__, raised.value.__context__]
    assert any(isinstance(e, UnsupportedGraph) and "type promotion" in str(e) for e in chain), chain
