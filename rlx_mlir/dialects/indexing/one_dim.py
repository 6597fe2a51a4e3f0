"""Indexing along one dim: the embedding lookup and its gradient, gather, index_select and the scatters (ATen's semantics).

    rlx.embedding           embedding(weight, indices, padding_idx, scale_grad_by_freq)
                            y[*i, d] = weight[indices[*i], d]
    rlx.embedding_backward  embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq)
                            gw[v, d] = [v != padding_idx] * sum_{*i: indices[*i] == v} s(v) * grad_output[*i, d]
                            s(v) = 1 / count(v in indices) with scale_grad_by_freq, else 1

The weight is a table [V, D] of V >= 1 rows; indices are an i64 tensor of any rank (0-d
too), whose leading dimension may be dynamic (the batch). `num_weights` is not a property:
it is the V of the backward's result type, the one place that states it.

The forward carries `padding_idx` and `scale_grad_by_freq` without using them (as ATen's
`embedding` does) so that its VJP can build the gradient; `padding_idx` is -1 (none) or a
row of the table.

Out-of-range indices: PyTorch raises `IndexError` for an index outside [0, V), which
compiled code cannot raise. Here nothing is read or written out of bounds: the forward
reads a row of zeros for such an index, and the backward drops its contribution (it
matches no row, and counts for no row's frequency).

    rlx.gather              gather(input, dim, index)
                            y[p] = input[p with p[dim] := index[p]]          (y has index's shape)
    rlx.scatter_add         scatter_add(input, dim, index, src)
                            y = input;  y[p with p[dim] := index[p]] += src[p]  for every p of index
    rlx.scatter             scatter(input, dim, index, src)          (scatter.src)
    rlx.scatter_value       scatter(input, dim, index, value)        (scatter.value)
                            y = input;  y[p with p[dim] := index[p]] = src[p] (or value)  for every p of index
    rlx.index_select        index_select(input, dim, index)
                            y[p] = input[p with p[dim] := index[p[dim]]]     (index 1-D, y's dim its length)

Along `dim`, input, index and src have one rank (>= 1, ATen's 0-d form is left out); the
index may be smaller than the input in every other dim and than src in every dim, and only
its extent counts (ATen's rule); index_select's index is 1-D. Out of range, which PyTorch
rejects (a negative index too: these ops do not wrap), means outside [0, input.size(dim)):
gather and index_select read 0 there and scatter_add drops the contribution. Repeated indices of scatter_add accumulate in
a fixed order (ascending position along `dim`), so its result never depends on thread
timing. Where scatter writes one position from several (PyTorch leaves which one wins
unspecified), the last along `dim` wins: the src element of the largest index position.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType, i64
from xdsl.ir import Attribute
from xdsl.irdl import VerificationContext, operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.properties import FLOAT_TENSOR, IndexElementType, bool_property, float_property, int_property
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of

NO_PADDING = -1
"""ATen's `padding_idx` when no row is the padding row."""


@dataclass(frozen=True)
class NamedIndexElementType(IndexElementType):
    """`i64`, the element type of an op's indices, named as what they are (rows of a table,
    positions along a dim)."""

    what: str = "indices"

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if attr != self.attr:
            raise VerifyException(f"expected {self.what} of element type {self.attr}, got {attr}")


ROW_INDICES = TensorType.constr(NamedIndexElementType(i64, "row indices"))
"""A ranked tensor of `i64` rows of an embedding table."""

POSITIONS = TensorType.constr(NamedIndexElementType(i64, "positions"))
"""A ranked tensor of `i64` positions along one dim of another tensor (gather's index)."""


class _EmbeddingOp(RlxOpBase):
    """What the embedding and its gradient share: i64 indices, a [V, D] table, a padding row."""

    def batched_values(self) -> set[str]:
        # The indices' leading axis (and the same axis of what has the indices' shape in front) is the batch.
        if not shape_of(self.indices):
            return set()
        return {"indices", "grad_output", "result"} & {name for name, _ in self.named_values()} - self.table_values()

    def table_values(self) -> set[str]:
        """The [V, D] tables, whose every dimension is static."""
        raise NotImplementedError

    def check_table(self, name: str) -> tuple[int, int]:
        """The [V, D] of the table `name`, with the padding row checked against V."""
        value = getattr(self, name)
        table = shape_of(value)
        if len(table) != 2:
            raise VerifyException(f"expected the {name} to have rank 2 ([num_weights, embedding_dim]), got {value.type}")
        rows, dim = table
        if rows < 1:
            raise VerifyException(f"expected the {name} to have at least one row, got {value.type}")
        if not NO_PADDING <= self.padding_idx < rows:
            raise VerifyException(
                f"expected padding_idx to be -1 (none) or a row of the {name} (0 <= padding_idx < {rows}), "
                f"got {self.padding_idx}"
            )
        return rows, dim

    def expect_gathered_shape(self, name: str, dim: int) -> None:
        """`name` must be [*indices.shape, D]: one row of the table per index."""
        value = getattr(self, name)
        expected = (*shape_of(self.indices), dim)
        if tuple(shape_of(value)) != expected:
            element = value.type.element_type
            raise VerifyException(
                f"expected the {name} to be tensor<{format_shape(expected)}x{element}> "
                f"(the indices' shape, then the embedding dim), got {value.type}"
            )


@rlx_op_definition
class EmbeddingOp(_EmbeddingOp):
    """`y[*i, d] = weight[indices[*i], d]` [embedding]; an index outside [0, V) reads zeros.

    `padding_idx` and `scale_grad_by_freq` do not change the result; they are the
    gradient's (ATen's embedding carries them for its backward too).
    """

    name = "rlx.embedding"

    weight = operand_def(FLOAT_TENSOR)
    indices = operand_def(ROW_INDICES)
    padding_idx = int_property(NO_PADDING)
    scale_grad_by_freq = bool_property(False)

    result = result_def(FLOAT_TENSOR)

    assembly_format = (
        f"$weight `,` $indices (`padding_idx` $padding_idx^)? (`scale_grad_by_freq` $scale_grad_by_freq^)? {SIGNATURE}"
    )

    def table_values(self) -> set[str]:
        return {"weight"}

    def verify_shapes(self) -> None:
        _, dim = self.check_table("weight")
        self.expect_gathered_shape("result", dim)


@rlx_op_definition
class EmbeddingBackwardOp(_EmbeddingOp):
    """`grad_weight` of `rlx.embedding` [embedding_dense_backward]; V is the result's row count.

        gw[v, d] = [v != padding_idx] * sum_{*i: indices[*i] == v} s(v) * grad_output[*i, d]

    Repeated indices accumulate; s(v) = 1 / (the count of v in indices) with
    `scale_grad_by_freq`, else 1. An index outside [0, V) contributes to no row.
    """

    name = "rlx.embedding_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    indices = operand_def(ROW_INDICES)
    padding_idx = int_property(NO_PADDING)
    scale_grad_by_freq = bool_property(False)

    result = result_def(FLOAT_TENSOR)

    assembly_format = (
        "$grad_output `,` $indices (`padding_idx` $padding_idx^)? (`scale_grad_by_freq` $scale_grad_by_freq^)? "
        f"{SIGNATURE}"
    )

    def table_values(self) -> set[str]:
        return {"result"}

    def verify_shapes(self) -> None:
        _, dim = self.check_table("result")
        self.expect_gathered_shape("grad_output", dim)


class _AlongDimOp(RlxOpBase):
    """What gather, index_select and the scatters share: an `input`, an i64 `index` (of the
    input's rank but for index_select's) and `dim`.

    Every value's leading dim (the batch) may be dynamic; a size known only at run time is
    not compared here.
    """

    def batched_values(self) -> set[str]:
        return {name for name, _ in self.named_values()}

    def check_dim(self) -> int:
        """The input's rank, with `dim` checked to be one of its dims."""
        rank = len(shape_of(self.input))
        if rank < 1:
            raise VerifyException(f"expected the input to have rank at least 1, got {self.input.type}")
        if not 0 <= self.dim < rank:
            raise VerifyException(f"expected dim to be a dim of the input (0 <= dim < {rank}), got {self.dim}")
        return rank

    def expect_within(self, name: str, skip_dim: bool) -> None:
        """The index has `name`'s rank and is no larger in any dim (but `dim` when `skip_dim`)."""
        value, index = getattr(self, name), shape_of(self.index)
        bound = shape_of(value)
        if len(index) != len(bound):
            raise VerifyException(f"expected the index to have the {name}'s rank {len(bound)}, got {self.index.type}")
        for axis, (size, limit) in enumerate(zip(index, bound)):
            if skip_dim and axis == self.dim or is_dynamic(size) or is_dynamic(limit):
                continue
            if size > limit:
                raise VerifyException(
                    f"expected the index to be no larger than the {name} in dim {axis}, got {size} > {limit}"
                )

    def expect_shape(self, name: str, like: str) -> None:
        got, want = getattr(self, name), shape_of(getattr(self, like))
        if tuple(shape_of(got)) != tuple(want):
            element = got.type.element_type
            raise VerifyException(f"expected the {name} to be tensor<{format_shape(want)}x{element}> (the {like}'s shape), got {got.type}")


DIM = "`dim` $dim"


@rlx_op_definition
class GatherOp(_AlongDimOp):
    """`y[p] = input[p with p[dim] := index[p]]` [gather]; an index outside [0, input.size(dim)) reads 0."""

    name = "rlx.gather"

    input = operand_def(FLOAT_TENSOR)
    index = operand_def(POSITIONS)
    dim = int_property()

    result = result_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $index {DIM} {SIGNATURE}"

    def verify_shapes(self) -> None:
        self.check_dim()
        self.expect_within("input", skip_dim=True)
        self.expect_shape("result", "index")


class _ScatterSrcOp(_AlongDimOp):
    """scatter_add and scatter: src's elements go to the input at the index, src at least the index's size."""

    input = operand_def(FLOAT_TENSOR)
    index = operand_def(POSITIONS)
    src = operand_def(FLOAT_TENSOR)
    dim = int_property()

    result = result_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $index `,` $src {DIM} {SIGNATURE}"

    def verify_shapes(self) -> None:
        self.check_dim()
        self.expect_within("input", skip_dim=True)
        self.expect_within("src", skip_dim=False)
        self.expect_shape("result", "input")


@rlx_op_definition
class ScatterAddOp(_ScatterSrcOp):
    """`y = input; y[p with p[dim] := index[p]] += src[p]` for every p of index [scatter_add].

    Repeated indices accumulate, each y element's terms added in ascending order of their
    position along `dim`; an index outside [0, input.size(dim)) contributes nothing.
    """

    name = "rlx.scatter_add"



@rlx_op_definition
class ScatterOp(_ScatterSrcOp):
    """`y = input; y[p with p[dim] := index[p]] = src[p]` for every p of index [scatter.src].

    Of several p writing one position, the last along `dim` wins (PyTorch leaves it
    unspecified); an index outside [0, input.size(dim)) writes nothing.
    """

    name = "rlx.scatter"



@rlx_op_definition
class ScatterValueOp(_AlongDimOp):
    """`y = input; y[p with p[dim] := index[p]] = value` for every p of index [scatter.value];
    an index outside [0, input.size(dim)) writes nothing."""

    name = "rlx.scatter_value"

    input = operand_def(FLOAT_TENSOR)
    index = operand_def(POSITIONS)
    dim = int_property()
    value = float_property()

    result = result_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $index {DIM} `value` $value {SIGNATURE}"

    def verify_shapes(self) -> None:
        self.check_dim()
        self.expect_within("input", skip_dim=True)
        self.expect_shape("result", "input")


@rlx_op_definition
class IndexSelectOp(_AlongDimOp):
    """`y[p] = input[p with p[dim] := index[p[dim]]]` [index_select]: the input's slices along
    `dim` at a 1-D index, in its order; an index outside [0, input.size(dim)) reads 0."""

    name = "rlx.index_select"

    input = operand_def(FLOAT_TENSOR)
    index = operand_def(POSITIONS)
    dim = int_property()

    result = result_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $index {DIM} {SIGNATURE}"

    def verify_shapes(self) -> None:
        rank = self.check_dim()
        index = shape_of(self.index)
        if len(index) != 1:
            raise VerifyException(f"expected the index to have rank 1, got {self.index.type}")
        expected = tuple(index[0] if axis == self.dim else size for axis, size in enumerate(shape_of(self.input)))
        if tuple(shape_of(self.result)) != expected:
            element = self.result.type.element_type
            raise VerifyException(
                f"expected the result to be tensor<{format_shape(expected)}x{element}> "
                f"(the input's shape with the index's length in dim {self.dim} of {rank}), got {self.result.type}"
            )

