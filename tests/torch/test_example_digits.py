"""examples/train_digits.py: >= 100 SGD steps with our compiled step next to PyTorch eager.

The script asserts its own claims (exit 1 otherwise): the loss curves of our step and of
PyTorch eager agree within 1e-3 at every step, and the test accuracy ends above 90%. This
test runs its `main` in-process with the printed per-step table left out.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("rlx_mlir.torch")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_digits.py"


def test_train_digits_example_agrees_with_pytorch_and_learns(capsys):
    spec = importlib.util.spec_from_file_location("train_digits", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    status = module.main(["--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "step  150: test accuracy" in out
