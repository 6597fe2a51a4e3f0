"""Layout ops: data moved, never computed; any element type (float or integer).

They are the view and copy ops of the PyTorch import: `rlx.reshape` (view, _unsafe_view,
squeeze, unsqueeze, flatten), `rlx.permute` (permute, t, transpose), `rlx.expand`,
`rlx.slice` (slice.Tensor, normalized), `rlx.concat` (cat), `rlx.split`
(split_with_sizes), and `rlx.slice_backward`, the gradient of a slice. No arithmetic
happens, so the result holds exactly the operand's values, and its element type is the
operand's: that is checked here (`ANY_TENSOR` leaves it to the op) in words.

Shapes are static. A dynamic leading dimension is accepted only where the op carries it
through unchanged (a permutation that keeps dim 0 first, a slice, concat or split along
another dim, a reshape or expand that keeps the leading dim and changes only the others),
or where a reshape merges it with the dims after it or splits it (`batch_regrouping`:
GPT's `view(-1, V)`, [?, T, V] -> [?, V], and its gradient's inverse); elsewhere the
verifier says why it cannot be.

    %y = rlx.permute %x dims [0, 2, 1] : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
    %p:2 = rlx.split %x dim 1 sizes [2, 3] : (tensor<4x5xi64>) -> (tensor<4x2xi64>, tensor<4x3xi64>)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.canonicalization import PermuteCanonicalization, ReshapeCanonicalization
from rlx_mlir.dialects.properties import ANY_TENSOR, int_property, sizes_property
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of, tensor_type


def slice_size(start: int, end: int, step: int) -> int:
    """How many elements `start:end:step` selects (0 <= start <= end, step >= 1): ceil((end - start) / step)."""
    return -(-(end - start) // step)


class LayoutOp(RlxOpBase):
    """A layout op: every operand and result has the first operand's element type."""

    def verify_shapes(self) -> None:
        self.expect_one_element_type()
        self.verify_layout()

    def verify_layout(self) -> None:
        raise NotImplementedError

    def expect_one_element_type(self) -> None:
        if not self.operands:
            return  # a concat of nothing: its own verifier says so
        (first, value), *others = self.named_values()
        expected = tensor_type(value).element_type
        for name, value in others:
            got = tensor_type(value).element_type
            if got != expected:
                raise VerifyException(
                    f"expected the {name} to have the element type of the {first}, {expected} "
                    f"(a layout op moves data, it does not convert it), got {got}"
                )

    def expect_dim(self, dim: int, rank: int) -> None:
        if not 0 <= dim < rank:
            raise VerifyException(f"expected 'dim' to be in [0, {rank}) for a rank-{rank} input, got {dim}")

    def expect_static_leading_unless(self, carried: bool, why: str) -> None:
        """A dynamic leading dim is accepted only where the op carries it unchanged (`carried`)."""
        if carried:
            return
        for name, value in self.named_values():
            shape = shape_of(value)
            if shape and is_dynamic(shape[0]):
                raise VerifyException(f"expected the {name} to have a static shape ({why}), got {value.type}")

    def expect_shape(self, value: SSAValue, name: str, expected: Sequence[int], because: str) -> None:
        got = shape_of(value)
        if tuple(got) != tuple(expected):
            element = tensor_type(value).element_type
            raise VerifyException(
                f"expected the {name} type to be {_tensor(expected, element)} ({because}), got {value.type}"
            )


def _tensor(shape: Sequence[int], element) -> str:
    return f"tensor<{format_shape(shape)}x{element}>" if shape else f"tensor<{element}>"


def _leading_dynamic(*shapes: Sequence[int]) -> bool:
    """Whether every shape has a dynamic leading dim (the one case a reshape or expand carries)."""
    return all(shape and is_dynamic(shape[0]) for shape in shapes)


def batch_regrouping(source: Sequence[int], target: Sequence[int]) -> tuple[int, int] | None:
    """How a reshape of a dynamic leading dim (`?` first in both shapes, the rest static)
    regroups it: `(i, j)` such that source[:i] and target[:j] hold the same elements,
    B * prod(source[1:i]) = B' * prod(target[1:j]), and the rest, source[i:] and
    target[j:], is a static reshape (equal products); None when there is none.

    (1, 1) carries the batch unchanged (B' = B). Otherwise the result's `?` is a whole
    multiple of the input's (a merge: `view(-1, V)` of [?, T, V] is [?, V], B' = B*T) or
    the input's is a whole multiple of the result's (a split, its inverse); any other
    ratio (B' = 2B/3) holds only for some batches, and is refused. Of the possible
    groupings the one with the fewest dims is chosen; the tails are both empty or both
    not, so that no size-1 dim is left out of every group of a reassociation.
    """
    head, tail = math.prod(source[1:]), math.prod(target[1:])
    if head == tail:
        return 1, 1
    if head == 0 or tail == 0 or (head % tail and tail % head):
        return None
    for total in range(2, len(source) + len(target) + 1):
        for i in range(max(1, total - len(target)), min(len(source), total - 1) + 1):
            j = total - i
            same_elements = math.prod(source[i:]) == math.prod(target[j:])
            if same_elements and (i == len(source)) == (j == len(target)):
                return i, j
    return None  # unreachable: (len(source), len(target)) always qualifies


@rlx_op_definition
class ReshapeOp(LayoutOp):
    """`y = x.view(result shape)` (view, _unsafe_view, squeeze, unsqueeze, flatten): the same
    elements in row-major order, the result type giving the new shape; 0-d <-> [1] included.
    A dynamic batch may be merged with the dims after it or split (`batch_regrouping`)."""

    name = "rlx.reshape"

    input = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    traits = traits_def(ReshapeCanonicalization())

    assembly_format = f"$input {SIGNATURE}"

    def regrouping(self) -> tuple[int, int] | None:
        """`batch_regrouping` of a reshape of a dynamic batch, else None (static shapes)."""
        x, y = shape_of(self.input), shape_of(self.result)
        return batch_regrouping(x, y) if _leading_dynamic(x, y) else None

    def scales_the_batch(self) -> bool:
        """Whether the result's `?` is another size than the input's (a merge or a split)."""
        return self.regrouping() not in (None, (1, 1))

    def verify_layout(self) -> None:
        x, y = shape_of(self.input), shape_of(self.result)
        carried = _leading_dynamic(x, y)
        if carried and self.regrouping() is not None:
            return
        self.expect_static_leading_unless(
            carried, "a reshape carries a dynamic dim only as the leading dim of both input and result"
        )
        tail = slice(1, None) if carried else slice(None)
        if math.prod(x[tail]) != math.prod(y[tail]):
            raise VerifyException(
                f"expected the result to have as many elements as the input ({math.prod(x[tail])}"
                f"{' per leading index' if carried else ''}), got {math.prod(y[tail])}: "
                f"{self.input.type} -> {self.result.type}"
                f"{', nor a whole multiple or divisor of it (a merge or split of the batch)' if carried else ''}"
            )


@rlx_op_definition
class PermuteOp(LayoutOp):
    """`y = x.permute(dims)` (permute, t, transpose): result axis k is input axis dims[k]."""

    name = "rlx.permute"

    input = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    dims = sizes_property()
    traits = traits_def(PermuteCanonicalization())

    assembly_format = f"$input `dims` $dims {SIGNATURE}"

    def permutation(self) -> tuple[int, ...]:
        return self.dims

    def verify_layout(self) -> None:
        x = shape_of(self.input)
        dims = self.permutation()
        if sorted(dims) != list(range(len(x))):
            raise VerifyException(
                f"expected 'dims' to be a permutation of [0, {len(x)}) for a rank-{len(x)} input, got {list(dims)}"
            )
        self.expect_static_leading_unless(
            not dims or dims[0] == 0, "a permutation carries a dynamic dim only when it keeps dim 0 first"
        )
        self.expect_shape(self.result, "result", [x[d] for d in dims], f"the input permuted by {list(dims)}")


@rlx_op_definition
class ExpandOp(LayoutOp):
    """`y = x.expand(result shape)` (expand): x's dims align with the result's trailing
    dims; each is the result's size or 1 (stretched); the result may add leading dims."""

    name = "rlx.expand"

    input = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)

    assembly_format = f"$input {SIGNATURE}"

    def new_leading_dims(self) -> int:
        return len(shape_of(self.result)) - len(shape_of(self.input))

    def verify_layout(self) -> None:
        x, y = shape_of(self.input), shape_of(self.result)
        if len(y) < len(x):
            raise VerifyException(
                f"expected the result rank to be at least the input's ({len(x)}), got {self.result.type}"
            )
        self.expect_static_leading_unless(
            len(x) == len(y) and _leading_dynamic(x, y),
            "an expand carries a dynamic dim only as the leading dim of both, with no new dims",
        )
        offset = len(y) - len(x)
        for axis, size in enumerate(x):
            target = y[offset + axis]
            if size != target and size != 1:
                raise VerifyException(
                    f"expected input dim {axis} (size {size}) to be 1 or the result's dim {offset + axis} "
                    f"(size {target}): {self.input.type} does not expand to {self.result.type}"
                )


class SliceGeometryOp(LayoutOp):
    """`start:end:step` along `dim`, normalized as ATen's slice.Tensor leaves it:
    0 <= start <= end <= size, step >= 1."""

    dim = int_property()
    start = int_property()
    end = int_property()
    step = int_property(default=1)

    def geometry(self) -> tuple[int, int, int, int]:
        return self.dim, self.start, self.end, self.step

    def verify_slice(self, full_name: str, part_name: str) -> None:
        """The value `part_name` is `full_name` sliced: same rank, the sliced size on `dim`, the rest alike."""
        full, part_value = getattr(self, full_name), getattr(self, part_name)
        full, part = shape_of(full), shape_of(part_value)
        dim, start, end, step = self.geometry()
        self.expect_dim(dim, len(full))
        self.expect_static_leading_unless(dim != 0, "a slice carries a dynamic dim only when it slices another dim")
        if step < 1:
            raise VerifyException(f"expected 'step' to be at least 1, got {step}")
        size = full[dim]
        if not 0 <= start <= end <= size:
            raise VerifyException(
                f"expected 0 <= start <= end <= {size} (the {full_name}'s dim {dim}), got start {start} and end {end}"
            )
        if len(part) != len(full):
            raise VerifyException(f"expected the {part_name} to have rank {len(full)}, got {part_value.type}")
        expected = list(full)
        expected[dim] = slice_size(start, end, step)
        self.expect_shape(
            part_value, part_name, expected, f"the {full_name} sliced {start}:{end}:{step} along dim {dim}"
        )


SLICE = "`dim` $dim `start` $start `end` $end (`step` $step^)?"


@rlx_op_definition
class SliceOp(SliceGeometryOp):
    """`y = x[..., start:end:step, ...]` along `dim` (slice.Tensor after normalization);
    the result size on dim is ceil((end - start) / step), possibly 0."""

    name = "rlx.slice"

    input = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)

    assembly_format = f"$input {SLICE} {SIGNATURE}"

    def verify_layout(self) -> None:
        self.verify_slice("input", "result")


@rlx_op_definition
class SliceBackwardOp(SliceGeometryOp):
    """`dx` of `y = rlx.slice(x)` (slice_backward): zeros of x's shape (the result type),
    with dy at the sliced positions `start:end:step` along `dim`."""

    name = "rlx.slice_backward"

    grad_output = operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)

    assembly_format = f"$grad_output {SLICE} {SIGNATURE}"

    def verify_layout(self) -> None:
        self.verify_slice("result", "grad_output")


@rlx_op_definition
class ConcatOp(LayoutOp):
    """`y = torch.cat(inputs, dim)` (cat): the inputs one after another along `dim`; they
    agree on every other dim, and y's dim is the sum of theirs."""

    name = "rlx.concat"

    inputs = var_operand_def(ANY_TENSOR)
    result = result_def(ANY_TENSOR)
    dim = int_property()

    assembly_format = f"$inputs `dim` $dim {SIGNATURE}"

    @classmethod
    def build_with(cls, operands, result_type, **geometry):
        """As `RlxOpBase.build_with`; `operands` are the inputs, however many (one variadic group)."""
        return super().build_with([list(operands)], result_type, **geometry)

    def named_values(self) -> list[tuple[str, SSAValue]]:
        return [*((f"input {k}", v) for k, v in enumerate(self.inputs)), ("result", self.result)]

    def batched_values(self) -> set[str]:
        return {name for name, _ in self.named_values()}

    def verify_layout(self) -> None:
        if not self.inputs:
            raise VerifyException("expected at least one input to concatenate")
        dim = self.dim
        shapes = [shape_of(v) for v in self.inputs]
        rank = len(shapes[0])
        self.expect_dim(dim, rank)
        self.expect_static_leading_unless(
            dim != 0, "a concat carries a dynamic dim only when it concatenates along another dim"
        )
        for index, (value, shape) in enumerate(zip(self.inputs, shapes)):
            if len(shape) != rank or any(a != b for axis, (a, b) in enumerate(zip(shape, shapes[0])) if axis != dim):
                raise VerifyException(
                    f"expected every input to have the shape of input 0 ({self.inputs[0].type}) except on "
                    f"dim {dim}, got input {index} {value.type}"
                )
        expected = list(shapes[0])
        expected[dim] = sum(shape[dim] for shape in shapes)
        self.expect_shape(self.result, "result", expected, f"the inputs concatenated along dim {dim}")


@rlx_op_definition
class SplitOp(LayoutOp):
    """`ys = x.split_with_sizes(sizes, dim)` (split_with_sizes): result k is x's
    `[sum(sizes[:k]), sum(sizes[:k+1]))` along `dim`; the sizes sum to x's dim."""

    name = "rlx.split"

    input = operand_def(ANY_TENSOR)
    pieces = var_result_def(ANY_TENSOR)
    dim = int_property()
    sizes = sizes_property()

    assembly_format = f"$input `dim` $dim `sizes` $sizes {SIGNATURE}"

    @classmethod
    def build_with(cls, operands, result_type, **geometry):
        """As `RlxOpBase.build_with`; `result_type` lists every piece's type (one variadic group)."""
        types = [result_type] if isinstance(result_type, TensorType) else list(result_type)
        return super().build_with(operands, [types], **geometry)

    def named_values(self) -> list[tuple[str, SSAValue]]:
        return [("input", self.input), *((f"result {k}", v) for k, v in enumerate(self.results))]

    def batched_values(self) -> set[str]:
        return {"input", *(f"result {k}" for k in range(len(self.results)))}

    def verify_layout(self) -> None:
        x = shape_of(self.input)
        dim, sizes = self.dim, self.sizes
        self.expect_dim(dim, len(x))
        self.expect_static_leading_unless(dim != 0, "a split carries a dynamic dim only when it splits another dim")
        if any(size < 0 for size in sizes):
            raise VerifyException(f"expected 'sizes' to be non-negative, got {list(sizes)}")
        if sum(sizes) != x[dim]:
            raise VerifyException(
                f"expected 'sizes' to sum to the input's dim {dim} ({x[dim]}), got {list(sizes)} (sum {sum(sizes)})"
            )
        if len(self.results) != len(sizes):
            raise VerifyException(f"expected one result per size ({len(sizes)}), got {len(self.results)}")
        for k, (value, size) in enumerate(zip(self.results, sizes)):
            expected = list(x)
            expected[dim] = size
            self.expect_shape(value, f"result {k}", expected, f"size {size} of the input along dim {dim}")


FORWARD_OPS: tuple = (ReshapeOp, PermuteOp, ExpandOp, SliceOp, ConcatOp, SplitOp)
BACKWARD_OPS: tuple = (SliceBackwardOp,)
