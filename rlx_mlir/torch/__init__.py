"""Import a PyTorch model's training step (forward and PyTorch's own backward) as RLX IR.

The only part of rlx_mlir that imports torch (`pip install 'rlx-mlir[torch]'`):

    from rlx_mlir.torch import export_training_step
    step = export_training_step(model, (x, target), loss_fn=torch.nn.functional.cross_entropy)
    loss, grads, buffers = step.compile()(x, target)

`graph` gets the joint ATen graph from `torch.export`, `aten` maps each ATen op to RLX,
`emitter` builds the RLX ops node by node, `translate` makes them the step's function,
`step` compiles and calls it.
"""

from rlx_mlir.torch.errors import UnsupportedGraph
from rlx_mlir.torch.step import CompiledStep, TrainingStep, export_training_step
from rlx_mlir.torch.emitter import RandomMask

__all__ = ["export_training_step", "TrainingStep", "CompiledStep", "RandomMask", "UnsupportedGraph"]
