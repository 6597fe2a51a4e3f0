"""One slice of a tensor at a position a loop computes: the step of a scan, the row of a scatter.

A loop that is the algorithm (a scan's steps, a scatter's index positions) reads and
writes one [..., 1, ...] slice per iteration, at an offset along one axis that is a loop
value. `Slabs` builds that `tensor.extract_slice` / `tensor.insert_slice` pair once, so
that every such loop carries the same slices, which bufferization turns into in-place
views of the loop's tensor.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import SSAValue

from rlx_mlir.transforms.builders import TensorBuilder, element_type_of, is_dynamic


@dataclass(frozen=True)
class Slabs:
    """The [..., 1, ...] slices along `dim` of a tensor of `shape`, at a step t the loop computes."""

    dim: int
    shape: tuple[int, ...]
    """The slab's shape: the tensor's, with 1 on `dim`."""
    sizes: tuple[SSAValue, ...]
    """The slab's dynamic sizes (the batch), read once before the loop."""

    def _offsets(self, t: SSAValue) -> list[SSAValue | int]:
        return [t if axis == self.dim else 0 for axis in range(len(self.shape))]

    def _size_operands(self) -> list[SSAValue | int]:
        dynamic = iter(self.sizes)
        return [next(dynamic) if is_dynamic(size) else size for size in self.shape]

    def read(self, r: TensorBuilder, value: SSAValue, t: SSAValue) -> SSAValue:
        """`value[..., t:t+1, ...]` (`tensor.extract_slice`)."""
        slab_type = TensorType(element_type_of(value), list(self.shape))
        unit = [1] * len(self.shape)
        return r.value(tensor.ExtractSliceOp(value, self._offsets(t), self._size_operands(), unit, slab_type))

    def write(self, r: TensorBuilder, slab: SSAValue, into: SSAValue, t: SSAValue) -> SSAValue:
        """`into` with `slab` at `[..., t:t+1, ...]` (`tensor.insert_slice`)."""
        rank = len(self.shape)
        return r.value(
            tensor.InsertSliceOp.get(
                slab, into, static_sizes=list(self.shape),
                static_offsets=[DYNAMIC_INDEX if axis == self.dim else 0 for axis in range(rank)],
                static_strides=[1] * rank, offsets=[t], sizes=list(self.sizes),
            )
        )
