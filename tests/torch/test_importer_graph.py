"""The exported graph and the emitted module: backward ops kept whole, the signature's
inputs and outputs in order, RLX ops only, and upstream-only IR after our passes that
`mlir-opt` 22 verifies."""

from __future__ import annotations

import collections
import subprocess

import torch
import torch.nn as nn
import torch.nn.functional as F

from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend.toolchain import find_tool
from rlx_mlir.torch import export_training_step
from rlx_mlir.torch.aten import SUPPORTED
from rlx_mlir.torch.graph import export_joint_graph

aten = torch.ops.aten


class Block(nn.Module):
    """A ResNet basic block: conv-bn-relu-conv-bn + identity, relu."""

    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        return F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))) + x)


class TinyResNet(nn.Module):
    """ResNet-18's stem, a basic block and its head, at a small width."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = Block(8)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        return self.fc(torch.flatten(self.avgpool(self.layer1(x)), 1))


def _example():
    torch.manual_seed(0)
    return TinyResNet().train(), torch.randn(2, 3, 32, 32), torch.tensor([1, 7])


def test_joint_graph_keeps_the_backward_ops_whole():
    model, x, target = _example()
    joint = export_joint_graph(model, (x, target), F.cross_entropy, SUPPORTED)
    ops = collections.Counter(n.target for n in joint.graph.nodes if n.op == "call_function")
    assert ops[aten.convolution_backward.default] == 3
    assert ops[aten.native_batch_norm_backward.default] == 3
    assert ops[aten.threshold_backward.default] == 3
    assert ops[aten.max_pool2d_with_indices_backward.default] == 1
    assert ops[aten._log_softmax_backward_data.default] == 1
    assert ops[aten.nll_loss_backward.default] == 1
    # What PyTorch's core table would have decomposed them into:
    for decomposed in (aten.where.self, aten.scatter.value, aten.gather.default, aten.le.Scalar):
        assert ops[decomposed] == 0
    assert set(ops) - {__import__("operator").getitem} <= SUPPORTED


def test_signature_orders_the_step_arguments_and_results():
    model, x, target = _example()
    step = export_training_step(model, (x, target))
    assert step.parameter_names == [name for name, _ in model.named_parameters()]
    assert step.buffer_names == [name for name, _ in model.named_buffers()]
    assert "layer1.bn2.num_batches_tracked" in step.updated_buffer_names
    function = step.module.body.block.first_op
    arg_types = [str(t) for t in function.function_type.inputs]
    params, buffers = len(step.parameter_names), len(step.buffer_names)
    assert arg_types[0] == "tensor<8x3x7x7xf32>"  # conv1.weight
    assert arg_types[params + 2] == "tensor<i64>"  # bn1.num_batches_tracked
    assert arg_types[params + buffers:] == ["tensor<?x3x32x32xf32>", "tensor<?xi64>"]  # a dynamic batch by default
    results = [str(t) for t in function.function_type.outputs]
    assert results[0] == "tensor<f32>"
    assert results[1:1 + params] == [str(p.shape and f"tensor<{'x'.join(map(str, p.shape))}xf32>")
                                     for p in model.parameters()]
    assert len(results) == 1 + params + len(step.updated_buffer_names)


def test_emitted_module_is_rlx_only_and_lowers_to_ir_mlir_opt_verifies():
    model, x, target = _example()
    step = export_training_step(model, (x, target))
    dialects = {op.name.split(".")[0] for op in step.module.walk()}
    assert dialects == {"builtin", "func", "rlx", "arith"}
    assert {op.name for op in step.module.walk() if op.name.startswith("arith.")} == {"arith.constant"}
    lowered = lower_to_linalg(step.mlir)
    names = {op.name.split(".")[0] for op in lowered.walk()}
    assert names <= {"builtin", "func", "linalg", "tensor", "arith", "math"}
    done = subprocess.run(
        [str(find_tool("mlir-opt").path), "-o", "/dev/null"], input=str(lowered), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_dropout_and_stochastic_depth_become_mask_arguments():
    class Drop(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 4)
            self.drop = nn.Dropout(0.25)

        def forward(self, x):
            keep = torch.empty(x.shape[0], 1).bernoulli_(0.8) / 0.8  # stochastic depth
            return self.fc(self.drop(x) * keep)

    step = export_training_step(Drop().train(), (torch.randn(3, 6), torch.tensor([0, 1, 2])), dynamic_shapes=None)
    kinds = [(m.kind, m.p, m.shape) for m in step.masks]
    assert kinds == [("bernoulli", 0.8, (3, 1)), ("dropout", 0.25, (3, 6))]  # graph order
    assert step.masks[1].module == "submodule 'drop' (Dropout)"
    function = step.module.body.block.first_op
    assert [str(t) for t in function.function_type.inputs][-2:] == ["tensor<3x1xf32>", "tensor<3x6xf32>"]
