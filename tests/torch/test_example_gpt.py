"""examples/train_gpt.py: a character-level GPT trained by our compiled step next to
PyTorch eager; the loss curves agree and the model learns (the script's own checks)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_gpt.py"


def test_train_gpt_example_agrees_with_pytorch_and_learns(capsys):
    spec = importlib.util.spec_from_file_location("train_gpt", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    status = module.main(["--quiet"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "step   80: loss ours" in out and "sample:" in out
