"""Bad input to the importer: one `UnsupportedGraph` naming the ATen op (or dtype, or
dynamic size), the submodule and the source line; the CLI prints it as one line, exits 1
and writes no file."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from rlx_mlir.errors import UserError
from rlx_mlir.torch import UnsupportedGraph, export_training_step


class Body(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return torch.cumsum(self.conv(x), dim=1)  # the line the diagnostic names


class WithCumsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Body()

    def forward(self, x):
        return self.body(x).flatten(1)


def _line_of(function, text: str) -> int:
    lines, start = inspect.getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_unsupported_op_names_the_op_the_submodule_and_the_line():
    x, target = torch.randn(2, 3, 5, 5), torch.tensor([0, 1])
    with pytest.raises(UnsupportedGraph) as raised:
        export_training_step(WithCumsum().train(), (x, target))
    message = str(raised.value)
    assert raised.value.op == "aten.cumsum.default"
    assert isinstance(raised.value, UserError)
    assert "unsupported ATen op aten.cumsum.default" in message
    assert "submodule 'body' (Body)" in message
    assert f"{__file__}:{_line_of(Body.forward, 'torch.cumsum')}: return torch.cumsum(" in message
    assert "\n" not in message


def test_unsupported_dtype_is_refused_with_its_place():
    model = nn.Linear(4, 3).to(torch.float16)
    with pytest.raises(UnsupportedGraph, match=r"unsupported dtype torch.float16 .*RLX takes float32, float64"):
        export_training_step(model, (torch.randn(2, 4, dtype=torch.float16), torch.tensor([0, 1])))


def test_a_dynamic_size_beyond_the_batch_is_refused():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten())
    x, target = torch.randn(2, 3, 5, 5), torch.tensor([0, 1])
    batch, height = torch.export.Dim("batch", min=2), torch.export.Dim("height", min=4)
    with pytest.raises(UnsupportedGraph, match=r"dynamic size .* only in the leading \(batch\) dimension"):
        export_training_step(model, (x, target), dynamic_shapes=({0: batch, 2: height}, {0: batch}))


class UsesIndices(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(2, 3, 4, 4))

    def forward(self, x):
        y, indices = F.max_pool2d(self.w, 2, return_indices=True)
        return (y + indices.to(y.dtype)).flatten(1)


def test_pool_indices_used_outside_the_backward_are_refused():
    with pytest.raises(UnsupportedGraph, match=r"indices of max_pool2d_with_indices|_to_copy|dtype conversion"):
        export_training_step(UsesIndices(), (torch.zeros(2), torch.tensor([0, 1])))


MODELS = textwrap.dedent(
    """
    import torch
    import torch.nn as nn

    def small():
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False), nn.MaxPool2d(2), nn.Flatten())

    def cumsum():
        class M(nn.Module):
            def forward(self, x):
                return torch.cumsum(x, 1).flatten(1)
        return M()

    def not_a_module():
        return 3
    """
)


def _cli(tmp_path, *args):
    (tmp_path / "cli_models.py").write_text(MODELS)
    return subprocess.run(
        [sys.executable, "-m", "rlx_mlir.tools.rlx_import_torch", *args],
        capture_output=True, text=True, cwd=tmp_path,
    )


def test_cli_writes_the_training_step(tmp_path):
    done = _cli(tmp_path, "cli_models:small", "--input", "2x3x8x8", "--target", "int:64", "-o", "step.mlir")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "step.mlir").read_text()
    assert "func.func @training_step" in text
    assert "rlx.conv2d_backward_weight" in text and "rlx.max_pool2d_backward" in text
    f64 = _cli(tmp_path, "cli_models:small", "--input", "2x3x8x8", "--target", "int:64", "--dtype", "f64", "-o", "-")
    assert f64.returncode == 0 and "tensor<?x3x8x8xf64>" in f64.stdout  # a dynamic batch by default
    static = _cli(tmp_path, "cli_models:small", "--input", "2x3x8x8", "--target", "int:64", "--static-batch", "-o", "-")
    assert static.returncode == 0 and "tensor<2x3x8x8xf32>" in static.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["cli_models:cumsum", "--input", "2x3x4"], "rlx-import-torch: error: unsupported ATen op aten.cumsum.default"),
        (["cli_models:missing", "--input", "2x3"], "rlx-import-torch: error: module 'cli_models' has no attribute"),
        (["no_such_module:f", "--input", "2x3"], "rlx-import-torch: error: cannot import module 'no_such_module'"),
        (["cli_models:not_a_module", "--input", "2x3"], "returned int, not a torch.nn.Module"),
        (["cli_models:small", "--input", "2by3"], "expected a shape such as 2x3x224x224"),
    ],
    ids=["unsupported-op", "missing-callable", "missing-module", "not-a-module", "bad-shape"],
)
def test_cli_fails_with_one_line_and_no_file(tmp_path, args, message):
    done = _cli(tmp_path, *args, "-o", "out.mlir")
    assert done.returncode == 1
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out.mlir").exists()


class DataDependentBranch(nn.Module):
    """A Python branch on a tensor's value: torch.export refuses it (a data-dependent guard)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        h = self.lin(x)
        if (h > 0).all():
            h = h * 2
        return h


def test_a_step_torch_export_cannot_trace_names_the_users_line():
    """torch.export raises a data-dependent guard deep inside PyTorch (nn.Transformer's
    causal-mask check does too); the refusal names the model's line that asked for it."""
    with pytest.raises(UnsupportedGraph) as raised:
        export_training_step(DataDependentBranch(), (torch.randn(2, 4), torch.tensor([0, 1])))
    message = str(raised.value)
    assert message.startswith("torch.export cannot trace the training step: Could not guard on data-dependent")
    line = _line_of(DataDependentBranch.forward, "if (h > 0).all()")
    assert message.endswith(f"(at {__file__}:{line}: if (h > 0).all():)")
    assert "\n" not in message
