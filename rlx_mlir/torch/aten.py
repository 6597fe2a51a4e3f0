"""ATen -> RLX: one converter per ATen op, each reading like the mapping it implements.

A converter takes the emitter `e`, the FX node, and the node's arguments as ATen's schema
names them, with every tensor already an RLX value (a Python number stays a number). It
returns the RLX value of the node's result, or a tuple for an op with several results
(None where PyTorch's `output_mask` asks for none). Result types come from the node's
fake tensor (`e.type_of(node)`, `e.type_of(node, i)`).

The semantics of each RLX op are its ATen op's (`/work/frontend-ops.md`, README's dialect
reference), so most converters only rename and normalize arguments: negative dims made
non-negative, one-value window lists repeated per axis, `None` made its PyTorch default,
missing affine weights made constants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from rlx_mlir.torch.emitter import Emitter, OnlyFor

aten = torch.ops.aten

CONVERTERS: dict[object, Callable] = {}


def converts(*overloads):
    """Register the decorated function as the converter of each ATen OpOverload."""

    def register(function):
        for overload in overloads:
            CONVERTERS[overload] = function
        return function

    return register


# -- argument normalization ----------------------------------------------------------------


def per_axis(values, rank: int) -> list[int]:
    """ATen's window lists may hold one value for every axis."""
    values = [values] if isinstance(values, int) else list(values)
    return values * rank if len(values) == 1 else values


def dim_index(dim: int, rank: int) -> int:
    return dim + rank if dim < 0 else dim


def dims_of(dims, rank: int) -> list[int]:
    """ATen's reduction dims, sorted, non-negative; None or [] means every dim."""
    if dims is None or (not isinstance(dims, int) and len(dims) == 0):
        return list(range(rank))
    dims = [dims] if isinstance(dims, int) else dims
    return sorted({dim_index(d, rank) for d in dims})


REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
"""ATen's `reduction` integers (at::Reduction)."""


# -- identity, creation --------------------------------------------------------------------


@converts(
    aten.alias.default, aten.clone.default, aten.detach.default, aten.lift_fresh_copy.default,
    aten.contiguous.default,
)
def identity(e: Emitter, node, x, *_, **__):
    """Ops that only alias or copy: the value itself (tensors are values in RLX)."""
    return x


@converts(aten._assert_tensor_metadata.default)
def assert_tensor_metadata(e: Emitter, node, *_, **__):
    """A check of the trace's own dtypes and shapes, with no result: nothing to compute."""
    return None


@converts(aten._to_copy.default)
def to_copy(e: Emitter, node, x, **_):
    """`x.to(dtype)`: the value itself when the element type stays. A random mask is already
    float where PyTorch's is bool, and declared in the type it is converted to
    (`Emitter.mask_argument`), so its conversions are it."""
    if e.element(x) == e.type_of(node).element_type:
        return x
    raise e.fail(f"dtype conversion to {e.dtype_of(node)}: RLX has no conversion op")


@converts(aten.copy.default)
def copy(e: Emitter, node, destination, source, non_blocking=False):
    """`destination.copy_(source)` functionalized: source, broadcast to destination's shape."""
    if e.element(source) != e.element(destination):
        raise e.fail("a copy that converts the dtype: RLX has no conversion op")
    return broadcast_to(e, source, e.type_of(node))


def broadcast_to(e: Emitter, value, tensor_type: TensorType):
    if e.shape(value) == tuple(tensor_type.get_shape()):
        return value
    return e.emit("rlx.expand", [value], tensor_type)


@converts(aten.full.default)
def full(e: Emitter, node, size, fill_value, **_):
    return e.constant(fill_value, e.type_of(node))


@converts(aten.full_like.default, aten.new_full.default)
def full_like(e: Emitter, node, x, fill_value, *_, **__):
    return e.constant(fill_value, e.type_of(node))


@converts(aten.zeros.default, aten.zeros_like.default, aten.new_zeros.default)
def zeros(e: Emitter, node, *_, **__):
    return e.constant(0, e.type_of(node))


@converts(aten.ones.default, aten.ones_like.default, aten.new_ones.default)
def ones(e: Emitter, node, *_, **__):
    return e.constant(1, e.type_of(node))


@converts(aten.scalar_tensor.default)
def scalar_tensor(e: Emitter, node, value, **_):
    return e.constant(value, e.type_of(node))


@converts(
    aten.empty.memory_format, aten.empty_permuted.default, aten.new_empty_strided.default,
    aten.new_empty.default, aten.empty_like.default, aten.empty_strided.default,
)
def empty(e: Emitter, node, *_, **__):
    """Unspecified contents (in practice overwritten, by `bernoulli`): zeros are one choice."""
    return e.constant(0, e.type_of(node))


# -- random: the mask is an argument of the step -------------------------------------------


@converts(aten.native_dropout.default)
def native_dropout(e: Emitter, node, x, p, train):
    """(y, mask) with `y = x * mask * (1 / (1 - p))`, the mask an argument (keep: 1 - p)."""
    if train is False:
        return x, OnlyFor("the mask of an evaluation-mode dropout", ())
    mask = e.mask_argument("dropout", p, node.meta["val"][0])
    ty = e.type_of(node, 0)
    return e.emit("rlx.mul", [e.emit("rlx.mul", [x, mask], ty), e.scalar(dropout_scale(p), ty.element_type)], ty), mask


def dropout_scale(p: float) -> float:
    """ATen's `1 / (1 - p)`, and 0 for p = 1 (every cell dropped)."""
    return 0.0 if p == 1 else 1.0 / (1.0 - p)


@converts(aten.native_dropout_backward.default)
def native_dropout_backward(e: Emitter, node, grad_output, mask, scale):
    """`dx = dy * mask * scale`."""
    ty = e.type_of(node)
    return e.emit("rlx.mul", [e.emit("rlx.mul", [grad_output, mask], ty), e.scalar(scale, ty.element_type)], ty)


@converts(aten.bernoulli.p)
def bernoulli(e: Emitter, node, x, p=0.5, generator=None):
    """A tensor of x's shape whose cells are 1 with probability p: an argument of the step."""
    return e.mask_argument("bernoulli", p, node.meta["val"])


# -- elementwise -----------------------------------------------------------------------------


def binary(e: Emitter, node, name: str, a, b):
    ty = e.type_of(node)
    return e.emit(name, [e.tensor(a, ty.element_type), e.tensor(b, ty.element_type)], ty)


def scaled(e: Emitter, node, b, alpha):
    """`alpha * b` for ATen's `alpha` argument (left alone when it is 1)."""
    if alpha == 1:
        return b
    if isinstance(b, (int, float)):
        return b * alpha
    return binary(e, node, "rlx.mul", b, alpha)


@converts(aten.add.Tensor, aten.add.Scalar)
def add(e: Emitter, node, a, b, alpha=1):
    return binary(e, node, "rlx.add", a, scaled(e, node, b, alpha))


@converts(aten.sub.Tensor, aten.sub.Scalar)
def sub(e: Emitter, node, a, b, alpha=1):
    return binary(e, node, "rlx.sub", a, scaled(e, node, b, alpha))


@converts(aten.rsub.Scalar, aten.rsub.Tensor)
def rsub(e: Emitter, node, a, b, alpha=1):
    """`b - alpha * a`."""
    return binary(e, node, "rlx.sub", b, scaled(e, node, a, alpha))


@converts(aten.mul.Tensor, aten.mul.Scalar)
def mul(e: Emitter, node, a, b):
    return binary(e, node, "rlx.mul", a, b)


@converts(aten.div.Tensor, aten.div.Scalar)
def div(e: Emitter, node, a, b):
    return binary(e, node, "rlx.div", a, b)


@converts(aten.maximum.default)
def maximum(e: Emitter, node, a, b):
    return binary(e, node, "rlx.maximum", a, b)


@converts(aten.minimum.default)
def minimum(e: Emitter, node, a, b):
    return binary(e, node, "rlx.minimum", a, b)


def _unary(name: str):
    def convert(e: Emitter, node, x):
        return e.emit(name, [x], e.type_of(node))

    convert.__doc__ = f"aten -> {name}"
    return convert


for _aten_op, _rlx_name in {
    aten.neg.default: "rlx.neg", aten.exp.default: "rlx.exp", aten.log.default: "rlx.log",
    aten.sqrt.default: "rlx.sqrt", aten.rsqrt.default: "rlx.rsqrt", aten.abs.default: "rlx.abs",
    aten.tanh.default: "rlx.tanh", aten.erf.default: "rlx.erf",
    aten.relu.default: "rlx.relu", aten.hardswish.default: "rlx.hardswish",
    aten.hardsigmoid.default: "rlx.hardsigmoid", aten.sigmoid.default: "rlx.sigmoid",
    aten.silu.default: "rlx.silu",
}.items():
    CONVERTERS[_aten_op] = _unary(_rlx_name)


@converts(aten.reciprocal.default)
def reciprocal(e: Emitter, node, x):
    return binary(e, node, "rlx.div", 1.0, x)


@converts(aten.pow.Tensor_Scalar)
def pow_scalar(e: Emitter, node, x, exponent):
    """`x ** c`. The exponents ATen's CPU kernel computes without `pow` exactly as it does: 2
    and 3 as products, 0.5 and -0.5 as (r)sqrt, -1 and -2 as quotients; 1 is x. Other
    integers (|c| <= 64) by repeated squaring (`integer_power`), within a few ulps of
    `std::pow` times log2(c); any other c as `exp(c * log(x))`, which is NaN for x < 0 as
    `pow` is, 0 or inf at x = 0, and has a relative error of about |c log x| ulps (the
    backward of `x ** c` is `c * x ** (c - 1) * dy`, another power)."""
    ty = e.type_of(node)
    if exponent == 1:
        return x
    if exponent in (2, 3, -2):
        square = e.emit("rlx.mul", [x, x], ty)
        if exponent == 3:
            return e.emit("rlx.mul", [square, x], ty)
        return square if exponent == 2 else binary(e, node, "rlx.div", 1.0, square)
    if exponent == 0.5:
        return e.emit("rlx.sqrt", [x], ty)
    if exponent == -0.5:
        return e.emit("rlx.rsqrt", [x], ty)
    if exponent == -1:
        return binary(e, node, "rlx.div", 1.0, x)
    if exponent == 0:
        return e.constant(1, ty)
    if float(exponent).is_integer() and abs(exponent) <= 64:
        power = integer_power(e, ty, x, abs(int(exponent)))
        return power if exponent > 0 else binary(e, node, "rlx.div", 1.0, power)
    return e.emit("rlx.exp", [binary(e, node, "rlx.mul", e.emit("rlx.log", [x], ty), float(exponent))], ty)


def integer_power(e: Emitter, ty, x, n: int):
    """`x ** n` for an integer n >= 1 by repeated squaring (log2(n) squarings and at most as
    many products: the IR grows with the exponent's bits, never with the data), so that a
    negative base keeps its sign as PyTorch's integer powers do."""
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else e.emit("rlx.mul", [result, square], ty)
        n >>= 1
        if n:
            square = e.emit("rlx.mul", [square, square], ty)
    return result


@converts(aten.tanh_backward.default)
def tanh_backward(e: Emitter, node, grad_output, output):
    """`dx = dy * (1 - y * y)`, y the tanh output."""
    ty = e.type_of(node)
    one_minus_y2 = binary(e, node, "rlx.sub", 1.0, e.emit("rlx.mul", [output, output], ty))
    return e.emit("rlx.mul", [grad_output, one_minus_y2], ty)


# -- activations -------------------------------------------------------------------------------


@converts(aten.hardtanh.default)
def hardtanh(e: Emitter, node, x, min_val=-1.0, max_val=1.0):
    return e.emit("rlx.hardtanh", [x], e.type_of(node), min_val=float(min_val), max_val=float(max_val))


@converts(aten.gelu.default)
def gelu(e: Emitter, node, x, approximate="none"):
    return e.emit("rlx.gelu", [x], e.type_of(node), approximate=approximate)


@converts(aten.leaky_relu.default)
def leaky_relu(e: Emitter, node, x, negative_slope=0.01):
    return e.emit("rlx.leaky_relu", [x], e.type_of(node), negative_slope=float(negative_slope))


@converts(aten.threshold_backward.default)
def threshold_backward(e: Emitter, node, grad_output, x, threshold):
    return e.emit("rlx.threshold_backward", [grad_output, x], e.type_of(node), threshold=float(threshold))


@converts(aten.hardtanh_backward.default)
def hardtanh_backward(e: Emitter, node, grad_output, x, min_val, max_val):
    return e.emit(
        "rlx.hardtanh_backward", [grad_output, x], e.type_of(node), min_val=float(min_val), max_val=float(max_val)
    )


def _activation_backward(name: str):
    def convert(e: Emitter, node, grad_output, x):
        return e.emit(name, [grad_output, x], e.type_of(node))

    convert.__doc__ = f"aten -> {name}"
    return convert


for _aten_op, _rlx_name in {
    aten.hardswish_backward.default: "rlx.hardswish_backward",
    aten.hardsigmoid_backward.default: "rlx.hardsigmoid_backward",
    aten.sigmoid_backward.default: "rlx.sigmoid_backward",
    aten.silu_backward.default: "rlx.silu_backward",
}.items():
    CONVERTERS[_aten_op] = _activation_backward(_rlx_name)


@converts(aten.gelu_backward.default)
def gelu_backward(e: Emitter, node, grad_output, x, approximate="none"):
    return e.emit("rlx.gelu_backward", [grad_output, x], e.type_of(node), approximate=approximate)


@converts(aten.leaky_relu_backward.default)
def leaky_relu_backward(e: Emitter, node, grad_output, x, negative_slope, self_is_result):
    """With `self_is_result` x is the output; for a slope >= 0 its sign is the input's, so
    the gradient is the same function of it."""
    if self_is_result and negative_slope < 0:
        raise e.fail("leaky_relu_backward of an in-place leaky_relu with a negative slope")
    return e.emit("rlx.leaky_relu_backward", [grad_output, x], e.type_of(node), negative_slope=float(negative_slope))


# -- reductions and matrix products ---------------------------------------------------------------


def reduction(e: Emitter, node, name: str, x, dims, keepdim, dtype):
    if dtype is not None and dtype != e.dtype_of(node.args[0]):
        raise e.fail(f"a reduction that converts to {dtype}: RLX has no conversion op")
    rank = len(e.shape(x))
    if rank == 0:
        return x
    return e.emit(name, [x], e.type_of(node), dims=dims_of(dims, rank), keepdim=bool(keepdim))


@converts(aten.sum.dim_IntList)
def sum_dims(e: Emitter, node, x, dim, keepdim=False, dtype=None):
    return reduction(e, node, "rlx.sum", x, dim, keepdim, dtype)


@converts(aten.sum.default)
def sum_all(e: Emitter, node, x, dtype=None):
    return reduction(e, node, "rlx.sum", x, None, False, dtype)


@converts(aten.mean.dim)
def mean_dims(e: Emitter, node, x, dim, keepdim=False, dtype=None):
    return reduction(e, node, "rlx.mean", x, dim, keepdim, dtype)


@converts(aten.mean.default)
def mean_all(e: Emitter, node, x, dtype=None):
    return reduction(e, node, "rlx.mean", x, None, False, dtype)


@converts(aten.addmm.default)
def addmm(e: Emitter, node, bias, a, b, beta=1, alpha=1):
    return e.emit("rlx.addmm", [bias, a, b], e.type_of(node), beta=float(beta), alpha=float(alpha))


@converts(aten.mm.default, aten.bmm.default)
def matmul(e: Emitter, node, a, b):
    return e.emit("rlx.matmul", [a, b], e.type_of(node))


# -- layout ------------------------------------------------------------------------------------------


@converts(
    aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.squeeze.dim, aten.squeeze.dims,
    aten.squeeze.default, aten.unsqueeze.default, aten.flatten.using_ints,
)
def reshape(e: Emitter, node, x, *_):
    """Every shape change that keeps the element order: `rlx.reshape` to the result's shape."""
    return e.reshape(x, e.type_of(node).get_shape())


@converts(aten.permute.default)
def permute(e: Emitter, node, x, dims):
    rank = len(e.shape(x))
    return permutation(e, node, x, [dim_index(d, rank) for d in dims])


def permutation(e: Emitter, node, x, dims: list[int]):
    if dims == sorted(dims):
        return x
    return e.emit("rlx.permute", [x], e.type_of(node), dims=dims)


@converts(aten.t.default)
def transpose_matrix(e: Emitter, node, x):
    return permutation(e, node, x, [1, 0] if len(e.shape(x)) == 2 else list(range(len(e.shape(x)))))


@converts(aten.transpose.int)
def transpose(e: Emitter, node, x, dim0, dim1):
    rank = len(e.shape(x))
    dims = list(range(rank))
    a, b = dim_index(dim0, rank), dim_index(dim1, rank)
    dims[a], dims[b] = dims[b], dims[a]
    return permutation(e, node, x, dims)


@converts(aten.expand.default)
def expand(e: Emitter, node, x, size, implicit=False):
    return broadcast_to(e, x, e.type_of(node))


def slice_bounds(size: int, start, end, step) -> tuple[int, int, int]:
    """ATen's slice arguments as `0 <= start <= end <= size`, `step >= 1`."""
    start = 0 if start is None else start
    end = size if end is None else end
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end, step


@converts(aten.slice.Tensor)
def slice_tensor(e: Emitter, node, x, dim=0, start=None, end=None, step=1):
    shape = e.shape(x)
    dim = dim_index(dim, len(shape))
    start, end, step = slice_bounds(shape[dim], start, end, step)
    if (start, end, step) == (0, shape[dim], 1):
        return x
    return e.emit("rlx.slice", [x], e.type_of(node), dim=dim, start=start, end=end, step=step)


@converts(aten.slice_backward.default)
def slice_backward(e: Emitter, node, grad_output, input_sizes, dim, start, end, step):
    dim = dim_index(dim, len(input_sizes))
    start, end, step = slice_bounds(input_sizes[dim], start, end, step)
    if (start, end, step) == (0, input_sizes[dim], 1):
        return grad_output
    return e.emit("rlx.slice_backward", [grad_output], e.type_of(node), dim=dim, start=start, end=end, step=step)


# -- as_strided: the views of a dense tensor that RLX's layout ops express ------------------------


def _storage_order(e: Emitter, value: torch.Tensor) -> list[int]:
    """The dims of a dense, non-overlapping tensor from outermost to innermost in memory
    (by decreasing stride; size-1 dims, whose stride is arbitrary, where they stand)."""
    sizes, strides = list(value.shape), list(value.stride())
    order = sorted(range(len(sizes)), key=lambda d: (-strides[d] if sizes[d] != 1 else 0, d))
    placed = [d for d in order if sizes[d] != 1]
    expected = 1
    for d in reversed(placed):
        if strides[d] != expected:
            raise e.fail(f"as_strided on a tensor with strides {tuple(strides)} for shape {tuple(sizes)}, "
                         "which is not a dense layout")
        expected *= sizes[d]
    return [d for d in range(len(sizes)) if sizes[d] == 1] + placed


def _flat_storage(e: Emitter, node, x) -> SSAValue:
    """x's elements in its memory order, as a 1-D tensor (what as_strided indexes)."""
    value = node.args[0].meta["val"]
    order = _storage_order(e, value)
    shape = e.shape(x)
    if order != sorted(order):
        x = e.emit("rlx.permute", [x], TensorType(e.element(x), [shape[d] for d in order]), dims=order)
    return e.reshape(x, [int(np.prod(shape, dtype=np.int64))])


def _strided_view_layout(e: Emitter, size, stride, offset: int, numel: int):
    """How `y[i] = flat[offset + sum_k i_k stride_k]` is a layout of `flat`: (window, shape,
    dims, broadcast): y is flat[offset : offset + window] reshaped to `shape` (the dims of
    nonzero stride, outermost first), permuted by `dims` to y's order, then broadcast over
    the dims of stride 0. Anything else is refused (gaps, overlaps, out of range)."""
    size, stride = list(size), list(stride)
    real = [d for d in range(len(size)) if size[d] != 1 and stride[d] != 0]
    broadcast = [d for d in range(len(size)) if size[d] != 1 and stride[d] == 0]
    order = sorted(real, key=lambda d: -stride[d])
    expected = 1
    for d in reversed(order):
        if stride[d] != expected:
            raise e.fail(f"as_strided with size {tuple(size)}, stride {tuple(stride)}: not a dense view "
                         "(RLX expresses reshape, permute, expand and a contiguous window of its input)")
        expected *= size[d]
    if offset < 0 or offset + expected > numel:
        raise e.fail(f"as_strided window [{offset}, {offset + expected}) outside the input's {numel} elements")
    dims = [order.index(d) for d in real]
    return expected, [size[d] for d in order], dims, broadcast


@converts(aten.as_strided.default)
def as_strided(e: Emitter, node, x, size, stride, storage_offset=None):
    """`y[i] = storage(x)[offset + sum_k i_k stride_k]` when that is a layout op chain of x
    (ConvNeXt's head re-strides a [N, C, 1, 1] mean, and its backward views a flat buffer):
    x in memory order, flattened, a window, reshape, permute, expand."""
    offset = storage_offset or 0
    flat = _flat_storage(e, node, x)
    numel = e.shape(flat)[0]
    window, shape, dims, broadcast = _strided_view_layout(e, size, stride, offset, numel)
    element = e.element(x)
    if (offset, window) != (0, numel):
        flat = e.emit("rlx.slice", [flat], TensorType(element, [window]), dim=0, start=offset, end=offset + window,
                      step=1)
    y = e.reshape(flat, shape)
    if dims != sorted(dims):
        y = e.emit("rlx.permute", [y], TensorType(element, [shape[d] for d in dims]), dims=dims)
    y = e.reshape(y, [1 if d in broadcast else s for d, s in enumerate(size)])
    return broadcast_to(e, y, e.type_of(node))


@converts(aten.as_strided_scatter.default)
def as_strided_scatter(e: Emitter, node, base, src, size, stride, storage_offset=None):
    """`base` with its strided view (as `as_strided`) replaced by `src`: src through the
    inverse layout (inverse permute, reshape, `slice_backward` into the window), and base
    kept outside the window: `base - slice_backward(slice(base)) + slice_backward(src)`,
    exact in every cell."""
    offset = storage_offset or 0
    value = node.args[0].meta["val"]
    if not value.is_contiguous():
        raise e.fail(f"as_strided_scatter into a base with strides {tuple(value.stride())}: only a contiguous base")
    element = e.element(base)
    base_shape = e.shape(base)
    numel = int(np.prod(base_shape, dtype=np.int64))
    window, shape, dims, broadcast = _strided_view_layout(e, size, stride, offset, numel)
    if broadcast:
        raise e.fail(f"as_strided_scatter through stride-0 dims {broadcast}: several writes to one cell")
    permuted = [shape[d] for d in dims]
    y = e.reshape(src, permuted)
    if dims != sorted(dims):
        inverse = [dims.index(k) for k in range(len(dims))]
        y = e.emit("rlx.permute", [y], TensorType(element, shape), dims=inverse)
    y = e.reshape(y, [window])
    if (offset, window) == (0, numel):
        return e.reshape(y, base_shape)
    flat_type = TensorType(element, [numel])
    window_of = dict(dim=0, start=offset, end=offset + window, step=1)
    flat_base = e.reshape(base, [numel])
    inside = e.emit("rlx.slice", [flat_base], TensorType(element, [window]), **window_of)
    outside = e.emit("rlx.sub", [flat_base, e.emit("rlx.slice_backward", [inside], flat_type, **window_of)], flat_type)
    result = e.emit("rlx.add", [outside, e.emit("rlx.slice_backward", [y], flat_type, **window_of)], flat_type)
    return e.reshape(result, base_shape)


@converts(aten.select.int)
def select(e: Emitter, node, x, dim, index):
    """`x[..., index, ...]`: a slice of one, then the dim dropped."""
    shape = list(e.shape(x))
    dim = dim_index(dim, len(shape))
    index = index + shape[dim] if index < 0 else index
    kept = TensorType(e.element(x), [*shape[:dim], 1, *shape[dim + 1:]])
    one = x if shape[dim] == 1 else e.emit("rlx.slice", [x], kept, dim=dim, start=index, end=index + 1, step=1)
    return e.reshape(one, e.type_of(node).get_shape())


@converts(aten.select_backward.default)
def select_backward(e: Emitter, node, grad_output, input_sizes, dim, index):
    dim = dim_index(dim, len(input_sizes))
    index = index + input_sizes[dim] if index < 0 else index
    kept = e.reshape(grad_output, [*input_sizes[:dim], 1, *input_sizes[dim + 1:]])
    if input_sizes[dim] == 1:
        return kept
    return e.emit("rlx.slice_backward", [kept], e.type_of(node), dim=dim, start=index, end=index + 1, step=1)


@converts(aten.constant_pad_nd.default)
def constant_pad_nd(e: Emitter, node, x, pad, value=0):
    """`F.pad(x, pad, value=v)`: the negative pads crop (`rlx.slice`), the positive ones place
    the cropped x into a larger tensor (`rlx.slice_backward`, zeros around), and for v != 0
    `+ v * (1 - mask)`, the mask the same placement of ones: exact in every cell.
    `pad` pairs (low, high) run from the last dim backwards, as ATen's."""
    shape = list(e.shape(x))
    rank = len(shape)
    if len(pad) % 2 or len(pad) // 2 > rank:
        raise e.fail(f"constant_pad_nd with {len(pad)} pad values for a rank-{rank} tensor")
    element = e.element(x)
    bounds = {rank - 1 - i: (pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)}
    for dim, (low, high) in sorted(bounds.items()):
        start, end = max(-low, 0), shape[dim] - max(-high, 0)
        if end < start:
            raise e.fail(f"constant_pad_nd crops dim {dim} of size {shape[dim]} by {-low}, {-high}: nothing left")
        if (start, end) != (0, shape[dim]):
            shape[dim] = end - start
            x = e.emit("rlx.slice", [x], TensorType(element, list(shape)), dim=dim, start=start, end=end, step=1)

    def placed(value_in):
        current = list(shape)
        for dim, (low, high) in sorted(bounds.items()):
            if max(low, 0) or max(high, 0):
                size = current[dim]
                current[dim] = size + max(low, 0) + max(high, 0)
                value_in = e.emit("rlx.slice_backward", [value_in], TensorType(element, list(current)), dim=dim,
                                  start=max(low, 0), end=max(low, 0) + size, step=1)
        return value_in

    y = placed(x)
    if value == 0 or y is x:
        return y
    ty = e.type_of(node)
    outside = binary(e, node, "rlx.sub", 1.0, placed(e.constant(1, TensorType(element, list(shape)))))
    return e.emit("rlx.add", [y, binary(e, node, "rlx.mul", outside, value)], ty)


@converts(aten.sign.default, aten.sgn.default)
def sign(e: Emitter, node, x):
    """`sign(x)` (abs's backward is `dy * sign(x)`): 1 where x > 0, -1 where x < 0, 0 at 0,
    as `threshold_backward(1, x, 0) - threshold_backward(1, -x, 0)` (the step of x and of -x).
    A NaN gives 0 here where PyTorch gives NaN."""
    ty = e.type_of(node)
    one = e.constant(1, ty)
    positive = e.emit("rlx.threshold_backward", [one, x], ty, threshold=0.0)
    negative = e.emit("rlx.threshold_backward", [one, e.emit("rlx.neg", [x], ty)], ty, threshold=0.0)
    return e.emit("rlx.sub", [positive, negative], ty)


@converts(aten.cat.default)
def cat(e: Emitter, node, tensors, dim=0):
    tensors = [t for t in tensors if e.shape(t) != (0,)]  # ATen skips legacy empty [0] tensors
    if len(tensors) == 1:
        return tensors[0]
    return e.emit("rlx.concat", tensors, e.type_of(node), dim=dim_index(dim, len(e.shape(tensors[0]))))


@converts(aten.split_with_sizes.default)
def split_with_sizes(e: Emitter, node, x, split_sizes, dim=0):
    return split(e, node, x, list(split_sizes), dim)


@converts(aten.split.Tensor)
def split_tensor(e: Emitter, node, x, split_size, dim=0):
    size = e.shape(x)[dim_index(dim, len(e.shape(x)))]
    sizes = [min(split_size, size - start) for start in range(0, size, split_size)] or [0]
    return split(e, node, x, sizes, dim)


def split(e: Emitter, node, x, sizes: list[int], dim: int):
    if len(sizes) == 1:
        return (x,)
    types = [e.type_of(node, i) for i in range(len(sizes))]
    return e.emit("rlx.split", [x], types, dim=dim_index(dim, len(e.shape(x))), sizes=sizes)


# -- convolutions ---------------------------------------------------------------------------------


@converts(aten.convolution.default)
def convolution(e: Emitter, node, x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """`rlx.conv{r}d` or `rlx.conv_transpose{r}d`, then `+ bias` reshaped to [C, 1, ...]."""
    rank = len(e.shape(weight)) - 2
    ty = e.type_of(node)
    window = dict(stride=per_axis(stride, rank), padding=per_axis(padding, rank), dilation=per_axis(dilation, rank))
    if transposed:
        y = e.emit(f"rlx.conv_transpose{rank}d", [x, weight], ty, **window,
                   output_padding=per_axis(output_padding, rank), groups=groups)
    else:
        y = e.emit(f"rlx.conv{rank}d", [x, weight], ty, **window, groups=groups)
    if bias is None:
        return y
    return e.emit("rlx.add", [y, e.reshape(bias, [e.shape(bias)[0]] + [1] * rank)], ty)


@converts(aten.convolution_backward.default)
def convolution_backward(
    e: Emitter, node, grad_output, x, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
    groups, output_mask,
):
    """(dx, dw, db): the input and weight gradients of the conv (or transposed conv), and
    `db[c] = sum_{n, *spatial} dy[n, c, ...]`, each only where `output_mask` asks."""
    rank = len(e.shape(weight)) - 2
    window = dict(stride=per_axis(stride, rank), padding=per_axis(padding, rank), dilation=per_axis(dilation, rank),
                  groups=groups)
    kernel = list(e.shape(weight)[2:])
    family = "conv_transpose" if transposed else "conv"
    dx = dw = db = None
    if output_mask[0]:
        extra = {} if transposed else {"kernel_size": kernel}
        dx = e.emit(f"rlx.{family}{rank}d_backward_input", [grad_output, weight], e.type_of(node, 0), **extra, **window)
    if output_mask[1]:
        dw = e.emit(f"rlx.{family}{rank}d_backward_weight", [x, grad_output], e.type_of(node, 1),
                    kernel_size=kernel, **window)
    if output_mask[2]:
        db = e.emit("rlx.sum", [grad_output], e.type_of(node, 2), dims=[0, *range(2, rank + 2)], keepdim=False)
    return dx, dw, db


# -- pools --------------------------------------------------------------------------------------------


def max_pool_window(rank, kernel_size, stride, padding, dilation, ceil_mode) -> dict:
    kernel = per_axis(kernel_size, rank)
    return dict(
        kernel_size=kernel, stride=per_axis(stride, rank) if stride else kernel, padding=per_axis(padding, rank),
        dilation=per_axis(dilation, rank), ceil_mode=bool(ceil_mode),
    )


def _max_pool_with_indices(rank: int, backward):
    def convert(e: Emitter, node, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        window = max_pool_window(rank, kernel_size, stride, padding, dilation, ceil_mode)
        y = e.emit(f"rlx.max_pool{rank}d", [x], e.type_of(node, 0), **window)
        return y, OnlyFor(f"the indices of max_pool{rank}d_with_indices", (backward,))

    convert.__doc__ = f"(y, indices): rlx.max_pool{rank}d; the indices only feed the backward, which recomputes them"
    return convert


def _max_pool_backward(rank: int):
    def convert(e: Emitter, node, grad_output, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
        window = max_pool_window(rank, kernel_size, stride, padding, dilation, ceil_mode)
        return e.emit(f"rlx.max_pool{rank}d_backward", [x, grad_output], e.type_of(node), **window)

    convert.__doc__ = f"rlx.max_pool{rank}d_backward(x, dy): dy to each window's first maximum"
    return convert


for _rank, _forward, _backward in (
    (1, aten.max_pool1d_with_indices.default, None),
    (2, aten.max_pool2d_with_indices.default, aten.max_pool2d_with_indices_backward.default),
    (3, aten.max_pool3d_with_indices.default, aten.max_pool3d_with_indices_backward.default),
):
    CONVERTERS[_forward] = _max_pool_with_indices(_rank, _backward)
    if _backward is not None:
        CONVERTERS[_backward] = _max_pool_backward(_rank)


def avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) -> dict:
    kernel = per_axis(kernel_size, rank)
    return dict(
        kernel_size=kernel, stride=per_axis(stride, rank) if stride else kernel, padding=per_axis(padding, rank),
        ceil_mode=bool(ceil_mode), count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override or 0,
    )


def _avg_pool(rank: int):
    def convert(e: Emitter, node, x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
        window = avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return e.emit(f"rlx.avg_pool{rank}d", [x], e.type_of(node), **window)

    return convert


def _avg_pool_backward(rank: int):
    def convert(e: Emitter, node, grad_output, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override):
        window = avg_pool_window(rank, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return e.emit(f"rlx.avg_pool{rank}d_backward", [grad_output], e.type_of(node), **window)

    return convert


for _rank, _forward, _backward in (
    (2, aten.avg_pool2d.default, aten.avg_pool2d_backward.default),
    (3, aten.avg_pool3d.default, aten.avg_pool3d_backward.default),
):
    CONVERTERS[_forward] = _avg_pool(_rank)
    CONVERTERS[_backward] = _avg_pool_backward(_rank)


def _adaptive(rank: int, kind: str, backward):
    def forward(e: Emitter, node, x, output_size):
        if kind == "avg":
            return e.emit(f"rlx.adaptive_avg_pool{rank}d", [x], e.type_of(node))
        y = e.emit(f"rlx.adaptive_max_pool{rank}d", [x], e.type_of(node, 0))
        return y, OnlyFor(f"the indices of adaptive_max_pool{rank}d", (backward,))

    def avg_backward(e: Emitter, node, grad_output, x):
        return e.emit(f"rlx.adaptive_avg_pool{rank}d_backward", [grad_output], e.type_of(node))

    def max_backward(e: Emitter, node, grad_output, x, indices):
        return e.emit(f"rlx.adaptive_max_pool{rank}d_backward", [x, grad_output], e.type_of(node))

    return forward, (avg_backward if kind == "avg" else max_backward)


for _rank, _kind, _forward, _backward in (
    (2, "avg", aten._adaptive_avg_pool2d.default, aten._adaptive_avg_pool2d_backward.default),
    (3, "avg", aten._adaptive_avg_pool3d.default, aten._adaptive_avg_pool3d_backward.default),
    (2, "max", aten.adaptive_max_pool2d.default, aten.adaptive_max_pool2d_backward.default),
    (3, "max", aten.adaptive_max_pool3d.default, aten.adaptive_max_pool3d_backward.default),
):
    CONVERTERS[_forward], CONVERTERS[_backward] = _adaptive(_rank, _kind, _backward)


# -- normalization ------------------------------------------------------------------------------


def affine_or(e: Emitter, value, fill: float, like: SSAValue, shape: Sequence[int]):
    """An affine weight or bias, or the constant PyTorch means when there is none."""
    return value if value is not None else e.constant(fill, TensorType(e.element(like), list(shape)))


@converts(aten._native_batch_norm_legit_functional.default)
def batch_norm(e: Emitter, node, x, weight, bias, running_mean, running_var, training, momentum, eps):
    """(y, save_mean, save_invstd, new_running_mean, new_running_var), training mode."""
    if not training:
        raise e.fail("batch norm in evaluation mode inside a training step")
    channels = [e.shape(x)[1]]
    weight, bias = affine_or(e, weight, 1.0, x, channels), affine_or(e, bias, 0.0, x, channels)
    types = [e.type_of(node, i) for i in range(5)]
    return e.emit("rlx.batch_norm", [x, weight, bias, running_mean, running_var], types,
                  momentum=float(momentum), eps=float(eps))


@converts(aten._native_batch_norm_legit.no_stats)
def batch_norm_without_running_stats(e: Emitter, node, x, weight, bias, training, momentum, eps):
    """(y, save_mean, save_invstd) of a batch norm that tracks no running statistics
    (`track_running_stats=False`): always the batch statistics. `rlx.batch_norm` with
    stand-in running stats (0, 1) whose updates nothing reads."""
    if not training:
        raise e.fail("batch norm without running statistics in evaluation mode")
    channels = [e.shape(x)[1]]
    weight, bias = affine_or(e, weight, 1.0, x, channels), affine_or(e, bias, 0.0, x, channels)
    stats = TensorType(e.element(x), channels)
    types = [e.type_of(node, 0), e.type_of(node, 1), e.type_of(node, 2), stats, stats]
    y, mean, invstd, _, _ = e.emit("rlx.batch_norm", [x, weight, bias, e.constant(0, stats), e.constant(1, stats)],
                                   types, momentum=float(momentum), eps=float(eps))
    return y, mean, invstd


@converts(aten._native_batch_norm_legit_no_training.default)
def batch_norm_inference(e: Emitter, node, x, weight, bias, running_mean, running_var, momentum, eps):
    channels = [e.shape(x)[1]]
    weight, bias = affine_or(e, weight, 1.0, x, channels), affine_or(e, bias, 0.0, x, channels)
    y = e.emit("rlx.batch_norm_inference", [x, weight, bias, running_mean, running_var], e.type_of(node, 0),
               eps=float(eps))
    unused = OnlyFor("the saved statistics of an evaluation-mode batch norm", ())
    return y, unused, unused


@converts(aten.native_batch_norm_backward.default)
def batch_norm_backward(e: Emitter, node, grad_output, x, weight, running_mean, running_var, save_mean, save_invstd,
                        train, eps, output_mask):
    """(dx, dweight, dbias) from the saved batch statistics (training mode only)."""
    if not train:
        raise e.fail("the backward of an evaluation-mode batch norm")
    channels = [e.shape(x)[1]]
    weight = affine_or(e, weight, 1.0, x, channels)
    types = [TensorType(e.element(x), list(e.shape(x)))] + [TensorType(e.element(x), channels)] * 2
    dx, dw, db = e.emit("rlx.batch_norm_backward", [grad_output, x, weight, save_mean, save_invstd], types,
                        eps=float(eps))
    return tuple(value if wanted else None for value, wanted in zip((dx, dw, db), output_mask))


@converts(aten.native_layer_norm.default)
def layer_norm(e: Emitter, node, x, normalized_shape, weight, bias, eps):
    """(y, mean, rstd) over the last len(normalized_shape) dims."""
    weight = affine_or(e, weight, 1.0, x, normalized_shape)
    bias = affine_or(e, bias, 0.0, x, normalized_shape)
    types = [e.type_of(node, i) for i in range(3)]
    return e.emit("rlx.layer_norm", [x, weight, bias], types, normalized_rank=len(normalized_shape), eps=float(eps))


@converts(aten.native_layer_norm_backward.default)
def layer_norm_backward(e: Emitter, node, grad_output, x, normalized_shape, mean, rstd, weight, bias, output_mask):
    weight = affine_or(e, weight, 1.0, x, normalized_shape)
    types = [TensorType(e.element(x), list(e.shape(x)))] + [TensorType(e.element(x), list(normalized_shape))] * 2
    dx, dw, db = e.emit("rlx.layer_norm_backward", [grad_output, x, mean, rstd, weight], types)
    return tuple(value if wanted else None for value, wanted in zip((dx, dw, db), output_mask))


# -- softmax and the NLL loss ----------------------------------------------------------------------------


@converts(aten._log_softmax.default)
def log_softmax(e: Emitter, node, x, dim, half_to_float):
    return e.emit("rlx.log_softmax", [x], e.type_of(node), dim=dim_index(dim, len(e.shape(x))))


@converts(aten._softmax.default)
def softmax(e: Emitter, node, x, dim, half_to_float):
    return e.emit("rlx.softmax", [x], e.type_of(node), dim=dim_index(dim, len(e.shape(x))))


@converts(aten._log_softmax_backward_data.default)
def log_softmax_backward(e: Emitter, node, grad_output, output, dim, input_dtype):
    return e.emit("rlx.log_softmax_backward", [grad_output, output], e.type_of(node),
                  dim=dim_index(dim, len(e.shape(output))))


@converts(aten._softmax_backward_data.default)
def softmax_backward(e: Emitter, node, grad_output, output, dim, input_dtype):
    return e.emit("rlx.softmax_backward", [grad_output, output], e.type_of(node),
                  dim=dim_index(dim, len(e.shape(output))))


def class_weights(e: Emitter, weight, logp):
    """NLL's class weights, or ones when PyTorch has none."""
    classes = e.shape(logp)[1] if len(e.shape(logp)) > 1 else e.shape(logp)[0]
    return affine_or(e, weight, 1.0, logp, [classes])


@converts(aten.nll_loss_forward.default, aten.nll_loss2d_forward.default)
def nll_loss(e: Emitter, node, logp, target, weight, reduction, ignore_index):
    """(loss, total_weight)."""
    return e.emit("rlx.nll_loss", [logp, target, class_weights(e, weight, logp)], [e.type_of(node, 0), e.type_of(node, 1)],
                  reduction=REDUCTIONS[reduction], ignore_index=ignore_index)


@converts(aten.nll_loss_backward.default, aten.nll_loss2d_backward.default)
def nll_loss_backward(e: Emitter, node, grad_output, logp, target, weight, reduction, ignore_index, total_weight):
    return e.emit("rlx.nll_loss_backward", [grad_output, logp, target, class_weights(e, weight, logp), total_weight],
                  e.type_of(node), reduction=REDUCTIONS[reduction], ignore_index=ignore_index)


SUPPORTED = frozenset(CONVERTERS)
"""Every ATen op the importer maps: what the decomposition table keeps whole."""
