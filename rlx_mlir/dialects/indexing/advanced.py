"""Advanced indexing: `rlx.index` and `rlx.index_put`, k index tensors for the leading k dims (ATen's semantics).

    rlx.index       index.Tensor(input, [i_0, ..., i_{k-1}])
                    y[*b, *r] = input[i_0[*b], ..., i_{k-1}[*b], *r]
    rlx.index_put   index_put(input, [i_0, ..., i_{k-1}], values, accumulate)
                    y = input;  y[i_0[*b], ..., i_{k-1}[*b], *r] (+)= values[*b, *r]  for every b

The k i64 index tensors broadcast together (right-aligned, a size 1 stretches, as
PyTorch's) to one shape B; the result of `index` is [*B, *input.shape[k:]], and the
values of `index_put` broadcast to that shape. Every index names a position of the
leading k dims of the input; no `None` (a full slice) stands between them: the importer
moves such a dim behind the indexed ones or writes it as an index of its own.

Negative indices wrap as PyTorch's: i in [-size, 0) means i + size. Outside [-size, size),
which PyTorch rejects and compiled code cannot, nothing is read or written out of bounds:
`index` reads 0 there and `index_put` drops the write.

Order: with `accumulate`, repeated positions add their values in ascending order of b (the
row-major order of B), so the result never depends on thread timing. Without it, PyTorch
leaves the winner of repeated positions undefined; here the last in that order wins.

Upstream mlir-opt with `dialects/rlx.irdl.mlir` binds one type to every value of a
variadic operand, so it accepts these ops only where the index tensors share one type;
rlx-opt accepts any that broadcast together.
"""

from __future__ import annotations

from xdsl.irdl import operand_def, result_def, var_operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.indexing.one_dim import POSITIONS
from rlx_mlir.dialects.properties import FLOAT_TENSOR, bool_property
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of


def broadcast_shapes(shapes: list[tuple[int, ...]], what: str) -> tuple[int, ...]:
    """PyTorch's broadcast of `shapes` (right-aligned; 1 stretches; a dynamic size, only ever
    the leading one, matches what it meets and stays dynamic)."""
    rank = max(len(shape) for shape in shapes)
    result = []
    for axis in range(rank):
        sizes = {shape[axis - rank + len(shape)] for shape in shapes if axis - rank + len(shape) >= 0}
        static = {size for size in sizes if not is_dynamic(size)} - {1}
        if len(static) > 1:
            raise VerifyException(
                f"expected the {what} to broadcast together, got sizes {sorted(static)} in dim {axis - rank} (from the right)"
            )
        dynamic = [size for size in sizes if is_dynamic(size)]
        result.append(dynamic[0] if dynamic else static.pop() if static else 1)
    return tuple(result)


class _AdvancedIndexOp(RlxOpBase):
    """What index and index_put share: an input and k >= 1 i64 index tensors for its leading k dims."""

    def batched_values(self) -> set[str]:
        return {name for name, _ in self.named_values()}

    def indexed_shape(self) -> tuple[int, ...]:
        """[*B, *input.shape[k:]]: B the indices' broadcast shape, after the checks of k."""
        input_shape = shape_of(self.input)
        k = len(self.indices)
        if not 1 <= k <= len(input_shape):
            raise VerifyException(
                f"expected 1 to {len(input_shape)} index tensors (one per leading dim of the input), got {k}"
            )
        batch = broadcast_shapes([tuple(shape_of(index)) for index in self.indices], "index tensors")
        return (*batch, *input_shape[k:])


@rlx_op_definition
class IndexOp(_AdvancedIndexOp):
    """`y[*b, *r] = input[i_0[*b], ..., i_{k-1}[*b], *r]` [index.Tensor]; negative indices wrap, an
    index outside [-size, size) reads 0."""

    name = "rlx.index"

    input = operand_def(FLOAT_TENSOR)
    indices = var_operand_def(POSITIONS)

    result = result_def(FLOAT_TENSOR)

    assembly_format = f"$input `[` $indices `]` {SIGNATURE}"

    def verify_shapes(self) -> None:
        expected = self.indexed_shape()
        if tuple(shape_of(self.result)) != expected:
            element = self.result.type.element_type
            raise VerifyException(
                f"expected the result to be tensor<{format_shape(expected)}x{element}> "
                f"(the indices' broadcast shape, then the input's unindexed dims), got {self.result.type}"
            )


@rlx_op_definition
class IndexPutOp(_AdvancedIndexOp):
    """`y = input; y[i_0[*b], ..., i_{k-1}[*b], *r] (+)= values[*b, *r]` [index_put].

    With `accumulate`, repeated positions add in ascending b; without it the last b wins.
    Negative indices wrap; an index outside [-size, size) writes nothing. The values
    broadcast to [*B, *input.shape[k:]].
    """

    name = "rlx.index_put"

    input = operand_def(FLOAT_TENSOR)
    indices = var_operand_def(POSITIONS)
    values = operand_def(FLOAT_TENSOR)
    accumulate = bool_property(False)

    result = result_def(FLOAT_TENSOR)

    assembly_format = f"$input `[` $indices `]` `,` $values (`accumulate` $accumulate^)? {SIGNATURE}"

    def verify_shapes(self) -> None:
        target = self.indexed_shape()
        values = tuple(shape_of(self.values))
        offset = len(target) - len(values)
        stretches = offset >= 0 and all(
            size in (1, target[offset + axis]) or is_dynamic(size) and is_dynamic(target[offset + axis])
            for axis, size in enumerate(values)
        )
        if not stretches:
            raise VerifyException(
                f"expected the values to broadcast to tensor<{format_shape(target)}> (the indices' broadcast shape, "
                f"then the input's unindexed dims), got {self.values.type}"
            )
        if tuple(shape_of(self.result)) != tuple(shape_of(self.input)):
            raise VerifyException(f"expected the result to have the input's type {self.input.type}, got {self.result.type}")
