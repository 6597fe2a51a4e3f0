"""The one exception a model the importer cannot translate ends in, and where it points.

A user whose model fails to import needs three facts: which ATen op (or dtype, or dynamic
size) is the obstacle, which of their submodules produced it, and the line of their code.
PyTorch records the last two on each node of the forward graph (`nn_module_stack`,
`stack_trace`); `Provenance` carries them from that graph to the joint graph, whose nodes
lose them (see `rlx_mlir.torch.graph`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rlx_mlir.errors import UserValueError


@dataclass(frozen=True)
class Provenance:
    """Where in the user's model a node of the joint graph comes from."""

    module: str | None = None
    """The innermost module, as a phrase: `submodule 'layer1.0.conv1' (Conv2d)`, `the loss function`."""
    source: str | None = None
    """`file:line: code` of the innermost user frame; None when PyTorch recorded none."""
    backward: bool = False
    """The node belongs to autograd's backward formula rather than to the model's forward code."""

    def describe(self) -> str:
        parts = []
        if self.backward:
            parts.append("in the backward pass")
        if self.module:
            parts.append(f"in {self.module}")
        if self.source:
            parts.append(f"at {self.source}")
        return ", ".join(parts)


class UnsupportedGraph(UserValueError):
    """The model's training step uses something RLX cannot express (an op, a dtype, a dynamic size).

    `op` names the ATen op (`aten.cumsum.default`) or is None; `provenance` says where it is.
    """

    def __init__(self, problem: str, op: str | None = None, provenance: Provenance | None = None):
        self.problem = problem
        self.op = op
        self.provenance = provenance or Provenance()
        where = self.provenance.describe()
        super().__init__(f"{problem} ({where})" if where else problem)
