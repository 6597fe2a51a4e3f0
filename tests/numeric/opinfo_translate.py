"""PyTorch's own OpInfo samples of its conv and pool ops, translated into RLX functions.

The bar: every conv and pool sample of PyTorch's OpInfo database, in 1-D, 2-D and
3-D, can be expressed in RLX (an unbatched input given as batch 1) and matches PyTorch.
This module enumerates those samples (`op_db`, CPU, float32 and float64,
`requires_grad=True`) and turns each one into the RLX functions of its forward op and of
every gradient, in the op syntax of the N-d dialect (spec: one op per family and rank,
`padding` with r values or 2r per-side values `[low..., high...]`):

| OpInfo | forward | gradients |
|---|---|---|
| `conv{r}d` | `rlx.conv{r}d` | `rlx.conv{r}d_backward_input`, `rlx.conv{r}d_backward_weight` |
| `conv_transpose{r}d` | `rlx.conv_transpose{r}d` | `rlx.conv_transpose{r}d_backward_input`, `..._backward_weight` |
| `max_pool{r}d`, `avg_pool{r}d` | `rlx.max_pool{r}d`, `rlx.avg_pool{r}d` | `rlx.*_pool{r}d_backward` |
| `adaptive_{avg,max}_pool{r}d` | `rlx.adaptive_*_pool{r}d` | `rlx.adaptive_*_pool{r}d_backward` |
| `unfold` (2-D) | `rlx.im2col` | `rlx.conv2d_backward_input` with a one-hot weight (below) |

How a sample's arguments become RLX properties:
- An unbatched input (rank r + 1) gets a leading batch of 1; PyTorch's result for it is
  the batch-1 result without that dimension (checked here for every sample).
- Arguments given positionally or by keyword, as ints, 1-tuples or r-tuples, are brought to
  r values; a pool's `stride` of `None` or `()` is its kernel size, as in PyTorch.
- Conv `padding='valid'` is 0; `padding='same'` is PyTorch's per-side split of the total
  `d*(k-1)`: `low = total // 2`, `high = total - low`. A padding whose sides differ is
  printed in the 2r per-side form, a symmetric one in the short form.
- Conv bias: left out of the RLX functions. It adds a constant per channel to y and changes
  neither dx nor dw, so the forward is compared with PyTorch's conv *without* the bias and
  the gradients are those of the sample as given; the bias gradient (dy summed over the
  batch and space) has no RLX op.
- `return_indices=True` (max pools): the values are the pool, and they are compared; the
  indices are no RLX result and are not compared.
- adaptive pools' `output_size` entries of `None` keep that input size; the output size is
  the result type.
- `unfold` is `rlx.im2col` up to layout: PyTorch's `[N, C*K, L]` is im2col's
  `[N*L, C*K]` transposed. Its gradient (col2im, PyTorch's `fold`) has no RLX op of its own;
  it is expressed as `rlx.conv2d_backward_input` of the cotangent `[N, C*K, *out]` with the
  one-hot weight `[C*K, 1, KH, KW]` and `groups = C`, since `unfold(x) = conv2d(x, onehot,
  groups=C)`.

Every result type comes from PyTorch's own output for the sample, not from our geometry, so
a verifier that disagrees with PyTorch about a size shows up as a sample that does not
parse. A sample the translator cannot express carries the reason (`Sample.reason`); none is
dropped.

The OpInfo database needs `expecttest` (imported by `torch.testing._internal.common_utils`).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F

# short name -> (family, spatial rank). The full OpInfo name is "nn.functional." + short.
OPINFOS: dict[str, tuple[str, int]] = {
    **{f"conv{r}d": ("conv", r) for r in (1, 2, 3)},
    **{f"conv_transpose{r}d": ("conv_transpose", r) for r in (1, 2, 3)},
    **{f"max_pool{r}d": ("max_pool", r) for r in (1, 2, 3)},
    **{f"avg_pool{r}d": ("avg_pool", r) for r in (1, 2, 3)},
    **{f"adaptive_avg_pool{r}d": ("adaptive_avg_pool", r) for r in (1, 2, 3)},
    **{f"adaptive_max_pool{r}d": ("adaptive_max_pool", r) for r in (1, 2, 3)},
    "unfold": ("unfold", 2),
}
DTYPES = {"f32": torch.float32, "f64": torch.float64}

# Each functional's parameters after the input, in PyTorch's positional order.
PARAMETERS = {
    "conv": ("weight", "bias", "stride", "padding", "dilation", "groups"),
    "conv_transpose": ("weight", "bias", "stride", "padding", "output_padding", "groups", "dilation"),
    "max_pool": ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"),
    "avg_pool": ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"),
    "adaptive_avg_pool": ("output_size",),
    "adaptive_max_pool": ("output_size", "return_indices"),
    "unfold": ("kernel_size", "dilation", "padding", "stride"),
}
DEFAULTS = {
    "bias": None, "stride": 1, "padding": 0, "dilation": 1, "groups": 1, "output_padding": 0,
    "ceil_mode": False, "return_indices": False, "count_include_pad": True, "divisor_override": None,
}
ELEMENT = {torch.float32: "f32", torch.float64: "f64"}


class NotExpressible(Exception):
    """A sample RLX cannot state; the message is the reason."""


# --------------------------------------------------------------------------------------
# What a translated sample is
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Function:
    """One RLX op in a function of its own, with the PyTorch oracle of its result.

    `args` names the sample arrays it takes (`x`, `w`, `dy`, ...). `oracle` takes those
    arrays as float64 tensors. `selects` are the arguments that only select (a max pool's
    x, the one-hot weight), passed to the error model unchanged; `exact` results (max,
    copy) must be PyTorch's bits.
    """

    role: str  # "forward", "grad_input", "grad_weight"
    op: str
    attrs: str
    args: tuple[str, ...]
    arg_shapes: tuple[tuple[int, ...], ...]
    result_shape: tuple[int, ...]
    element: str
    oracle: Callable[..., torch.Tensor] = field(compare=False, hash=False, repr=False)
    selects: tuple[int, ...] = ()
    exact: bool = False

    def body(self, symbol: str) -> str:
        """The function `@symbol` holding this op (its text, without the name, is the dedup key)."""
        types = [_tensor(s, self.element) for s in self.arg_shapes]
        result = _tensor(self.result_shape, self.element)
        params = ", ".join(f"%{a}: {t}" for a, t in zip(self.args, types))
        operands = ", ".join(f"%{a}" for a in self.args)
        return (
            f"func.func @{symbol}({params}) -> {result} {{\n"
            f"  %r = {self.op} {operands}{self.attrs} : ({', '.join(types)}) -> {result}\n"
            f"  return %r : {result}\n}}\n"
        )

    @property
    def key(self) -> str:
        return self.body("_")


@dataclass
class Sample:
    """One OpInfo sample: its arrays (batched), its RLX functions, or why it has none."""

    opinfo: str  # short name, e.g. "conv2d"
    index: int
    dtype: str  # "f32" | "f64"
    description: str  # the sample's input shape and arguments, as PyTorch gave them
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    functions: list[Function] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reason: str | None = None  # set when the sample cannot be expressed

    @property
    def id(self) -> str:
        return f"{self.opinfo}-{self.dtype}-{self.index}"

    @property
    def expressible(self) -> bool:
        return self.reason is None


# --------------------------------------------------------------------------------------
# Enumeration
# --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def opinfos() -> dict[str, object]:
    """Short name -> OpInfo, for every name of OPINFOS present in this torch's `op_db`."""
    from torch.testing._internal.common_methods_invocations import op_db

    found = {}
    for info in op_db:
        short = info.name.removeprefix("nn.functional.")
        if info.name.startswith("nn.functional.") and short in OPINFOS:
            assert info.variant_test_name == "", f"unexpected variant {info.name}.{info.variant_test_name}"
            assert short not in found, f"two OpInfos named {info.name}"
            found[short] = info
    return found


@contextlib.contextmanager
def one_thread():
    """PyTorch on one thread: these tensors are tiny, and on a busy 2-core machine two
    threads make a 2x2x6x6 max pool take ~10 ms instead of ~10 us (measured)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@functools.lru_cache(maxsize=None)
def samples(opinfo: str, dtype: str) -> tuple[Sample, ...]:
    """Every sample of one OpInfo in one dtype, translated (or carrying its reason)."""
    info = opinfos()[opinfo]
    # One seed for the whole list: PyTorch's per-sample reseeding (set_seed=True) costs
    # ~7 ms a sample (torch.manual_seed through dynamo), a minute over all 6,478.
    torch.manual_seed(zlib.crc32(f"{opinfo}-{dtype}".encode()))
    with one_thread(), warnings.catch_warnings():
        # padding='same' with an even kernel: PyTorch warns that it copies the input.
        warnings.filterwarnings("ignore", "Using padding='same'", UserWarning)
        out = [
            translate(info, opinfo, index, dtype, sample)
            for index, sample in enumerate(
                info.sample_inputs("cpu", DTYPES[dtype], requires_grad=True, set_seed=False)
            )
        ]
    return tuple(out)


def all_samples() -> list[Sample]:
    return [s for name in opinfos() for dtype in DTYPES for s in samples(name, dtype)]


def translate(info, opinfo: str, index: int, dtype: str, sample) -> Sample:
    family, rank = OPINFOS[opinfo]
    result = Sample(opinfo, index, dtype, _describe(sample))
    try:
        TRANSLATORS[family](result, info, rank, sample)
    except NotExpressible as reason:
        result.reason = str(reason)
        result.functions.clear()
    return result


# --------------------------------------------------------------------------------------
# Argument normalisation
# --------------------------------------------------------------------------------------


def _arguments(family: str, sample) -> dict:
    names = PARAMETERS[family]
    if len(sample.args) > len(names):
        raise NotExpressible(f"{len(sample.args)} positional arguments, {family} takes {len(names)}")
    given = dict(zip(names, sample.args))
    for key, value in sample.kwargs.items():
        if key not in names:
            raise NotExpressible(f"unknown argument {key}={value!r}")
        if key in given:
            raise NotExpressible(f"argument {key} given twice")
        given[key] = value
    defaults = {**DEFAULTS, "stride": None} if family.endswith("pool") else DEFAULTS
    return {name: given.get(name, defaults.get(name)) for name in names}


def _spatial(value, rank: int, what: str) -> tuple[int, ...]:
    """An int, a 1-tuple or an r-tuple as r ints (PyTorch's `_ntuple` and its 1-element broadcast)."""
    if isinstance(value, torch.Tensor):
        value = value.tolist()
    if isinstance(value, int):
        return (value,) * rank
    value = tuple(value)
    if len(value) == 1:
        return value * rank
    if len(value) != rank or not all(isinstance(v, int) for v in value):
        raise NotExpressible(f"{what} {value!r} is not {rank} integers")
    return value


def _batched(sample, rank: int) -> tuple[torch.Tensor, bool]:
    x = sample.input.detach()
    if x.dim() == rank + 1:
        return x.unsqueeze(0), True
    if x.dim() != rank + 2:
        raise NotExpressible(f"input of rank {x.dim()} for a {rank}-D op")
    return x, False


def _same_padding(kernel, dilation) -> tuple[tuple[int, ...], tuple[int, ...]]:
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    low = tuple(t // 2 for t in total)
    return low, tuple(t - lo for t, lo in zip(total, low))


def _array(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _padding_attr(low, high) -> str:
    return _array(low) if tuple(low) == tuple(high) else _array((*low, *high))


def _tensor(shape, element: str) -> str:
    return f"tensor<{'x'.join(str(d) for d in shape)}x{element}>"


def _numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().copy()


def _cotangent(result: Sample, shape, dtype: torch.dtype) -> np.ndarray:
    seed = zlib.crc32(result.id.encode())
    return np.random.default_rng(seed).standard_normal(shape).astype(ELEMENT_NP[dtype])


ELEMENT_NP = {torch.float32: np.float32, torch.float64: np.float64}


def _note_shapes(result: Sample, x: torch.Tensor, unbatched: bool, out_shape) -> None:
    if unbatched:
        result.notes.append("unbatched: given as batch 1")
    if x.shape[0] == 0:
        result.notes.append("empty batch")
    if any(d == 0 for d in x.shape[1:]) or any(d == 0 for d in out_shape[1:]):
        result.notes.append("zero-size dims")


def _check_faithful(result: Sample, info, sample, want_batched: torch.Tensor, unbatched: bool, extra=None) -> None:
    """Our normalised call on the batched input is the OpInfo's own call (plus a left-out bias)."""
    with torch.no_grad():
        got = info.op(sample.input, *sample.args, **sample.kwargs)
    if isinstance(got, tuple):
        got = got[0]
    mine = want_batched[0] if unbatched else want_batched
    if extra is not None:
        mine = mine + extra
    if got.shape != mine.shape or not torch.allclose(got, mine, rtol=1e-5, atol=1e-5, equal_nan=True):
        raise AssertionError(f"{result.id}: the normalised call differs from the OpInfo's: {result.description}")


def _grad(forward: Callable, wrt_shape, dtype) -> Callable:
    """d forward(z) / dz contracted with dy, where forward is linear in its argument."""

    def vjp(dy, *rest):
        z = torch.zeros(wrt_shape, dtype=dy.dtype, requires_grad=True)
        (g,) = torch.autograd.grad(forward(z, *rest), z, dy)
        return g

    return vjp


def _describe(sample) -> str:
    def show(v):
        if isinstance(v, torch.Tensor):
            return f"T{list(v.shape)}"
        if isinstance(v, (list, tuple)):
            return type(v)(show(x) for x in v)
        return v

    kw = ", ".join(f"{k}={show(v)!r}" for k, v in sample.kwargs.items())
    args = ", ".join(repr(show(a)) for a in sample.args)
    return f"input T{list(sample.input.shape)}" + (f", {args}" if args else "") + (f", {kw}" if kw else "")


# --------------------------------------------------------------------------------------
# Convolutions
# --------------------------------------------------------------------------------------


def _conv_common(result: Sample, family: str, rank: int, sample):
    a = _arguments(family, sample)
    x, unbatched = _batched(sample, rank)
    w = a["weight"].detach()
    if w.dim() != rank + 2:
        raise NotExpressible(f"weight of rank {w.dim()}")
    if not isinstance(a["groups"], int):
        raise NotExpressible(f"groups {a['groups']!r}")
    kernel = tuple(w.shape[2:])
    stride, dilation = _spatial(a["stride"], rank, "stride"), _spatial(a["dilation"], rank, "dilation")
    padding = a["padding"]
    if isinstance(padding, str):
        if family != "conv":
            raise NotExpressible(f"padding={padding!r} for a transposed conv")
        if padding == "valid":
            low = high = (0,) * rank
        elif padding == "same":
            low, high = _same_padding(kernel, dilation)
        else:
            raise NotExpressible(f"padding={padding!r}")
    else:
        low = high = _spatial(padding, rank, "padding")
    return a, x, unbatched, w, kernel, stride, dilation, low, high


def _window_attrs(stride, low, high, dilation, groups, output_padding=None, kernel=None) -> str:
    rank = len(stride)
    parts = []
    if kernel is not None:
        parts.append(f"kernel_size {_array(kernel)}")
    parts += [f"stride {_array(stride)}", f"padding {_padding_attr(low, high)}"]
    if tuple(dilation) != (1,) * rank:
        parts.append(f"dilation {_array(dilation)}")
    if output_padding is not None and tuple(output_padding) != (0,) * rank:
        parts.append(f"output_padding {_array(output_padding)}")
    if groups != 1:
        parts.append(f"groups {groups}")
    return " " + " ".join(parts)


def _bias_note(result: Sample, bias, y: torch.Tensor, rank: int):
    if bias is None:
        return None
    result.notes.append("bias left out (it adds a constant to y, changes neither dx nor dw; no RLX op for db)")
    return bias.detach().reshape(-1, *([1] * rank))


def translate_conv(result: Sample, info, rank: int, sample) -> None:
    a, x, unbatched, w, kernel, stride, dilation, low, high = _conv_common(result, "conv", rank, sample)
    groups = a["groups"]
    conv = getattr(F, f"conv{rank}d")
    torch_padding = a["padding"] if isinstance(a["padding"], str) else _spatial(a["padding"], rank, "padding")

    def forward(x, w):
        return conv(x, w, None, stride, torch_padding, dilation, groups)

    with torch.no_grad():
        y = forward(x, w)
    _check_faithful(result, info, sample, y, unbatched, _bias_note(result, a["bias"], y, rank))
    _note_shapes(result, x, unbatched, y.shape)
    dt, el = x.dtype, ELEMENT[x.dtype]
    result.arrays = dict(x=_numpy(x), w=_numpy(w), dy=_cotangent(result, tuple(y.shape), dt))
    name = f"rlx.conv{rank}d"
    window = _window_attrs(stride, low, high, dilation, groups)
    gradient = _window_attrs(stride, low, high, dilation, groups, kernel=kernel)
    xs, ws, ys = tuple(x.shape), tuple(w.shape), tuple(y.shape)
    result.functions += [
        Function("forward", name, window, ("x", "w"), (xs, ws), ys, el, forward),
        Function("grad_input", f"{name}_backward_input", gradient, ("dy", "w"), (ys, ws), xs, el,
                 lambda dy, w: _grad(lambda z: forward(z, w), xs, dt)(dy)),
        Function("grad_weight", f"{name}_backward_weight", gradient, ("x", "dy"), (xs, ys), ws, el,
                 lambda x, dy: _grad(lambda z: forward(x, z), ws, dt)(dy)),
    ]


def translate_conv_transpose(result: Sample, info, rank: int, sample) -> None:
    a, x, unbatched, w, kernel, stride, dilation, low, high = _conv_common(result, "conv_transpose", rank, sample)
    groups = a["groups"]
    output_padding = _spatial(a["output_padding"], rank, "output_padding")
    conv_t = getattr(F, f"conv_transpose{rank}d")

    def forward(x, w):
        return conv_t(x, w, None, stride, low, output_padding, groups, dilation)

    with torch.no_grad():
        y = forward(x, w)
    _check_faithful(result, info, sample, y, unbatched, _bias_note(result, a["bias"], y, rank))
    _note_shapes(result, x, unbatched, y.shape)
    dt, el = x.dtype, ELEMENT[x.dtype]
    result.arrays = dict(x=_numpy(x), w=_numpy(w), dy=_cotangent(result, tuple(y.shape), dt))
    name = f"rlx.conv_transpose{rank}d"
    xs, ws, ys = tuple(x.shape), tuple(w.shape), tuple(y.shape)
    result.functions += [
        Function("forward", name, _window_attrs(stride, low, high, dilation, groups, output_padding),
                 ("x", "w"), (xs, ws), ys, el, forward),
        Function("grad_input", f"{name}_backward_input", _window_attrs(stride, low, high, dilation, groups),
                 ("dy", "w"), (ys, ws), xs, el, lambda dy, w: _grad(lambda z: forward(z, w), xs, dt)(dy)),
        Function("grad_weight", f"{name}_backward_weight",
                 _window_attrs(stride, low, high, dilation, groups, kernel=kernel),
                 ("x", "dy"), (xs, ys), ws, el, lambda x, dy: _grad(lambda z: forward(x, z), ws, dt)(dy)),
    ]


# --------------------------------------------------------------------------------------
# Pools
# --------------------------------------------------------------------------------------


def _pool_window(a: dict, rank: int):
    kernel = _spatial(a["kernel_size"], rank, "kernel_size")
    stride = a["stride"]
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else _spatial(
        stride, rank, "stride")
    padding = _spatial(a["padding"], rank, "padding")
    return kernel, stride, padding


def _flag(name: str, value) -> str:
    return f" {name} {'true' if value else 'false'}"


def translate_max_pool(result: Sample, info, rank: int, sample) -> None:
    a = _arguments("max_pool", sample)
    x, unbatched = _batched(sample, rank)
    kernel, stride, padding = _pool_window(a, rank)
    dilation = _spatial(a["dilation"], rank, "dilation")
    ceil_mode = bool(a["ceil_mode"])
    pool = getattr(F, f"max_pool{rank}d")

    def forward(x):
        return pool(x, kernel, stride, padding, dilation, ceil_mode)

    with torch.no_grad():
        y = forward(x)
    _check_faithful(result, info, sample, y, unbatched)
    if a["return_indices"]:
        result.notes.append("return_indices: values compared, the indices are no RLX result")
    _note_shapes(result, x, unbatched, y.shape)
    dt, el = x.dtype, ELEMENT[x.dtype]
    result.arrays = dict(x=_numpy(x), dy=_cotangent(result, tuple(y.shape), dt))
    attrs = f" kernel_size {_array(kernel)} stride {_array(stride)} padding {_array(padding)}"
    if dilation != (1,) * rank:
        attrs += f" dilation {_array(dilation)}"
    if ceil_mode:
        attrs += _flag("ceil_mode", True)
    name = f"rlx.max_pool{rank}d"
    xs, ys = tuple(x.shape), tuple(y.shape)

    def backward(x, dy):
        x = x.clone().requires_grad_()
        return torch.autograd.grad(forward(x), x, dy)[0]

    result.functions += [
        Function("forward", name, attrs, ("x",), (xs,), ys, el, forward, exact=True),
        Function("grad_input", f"{name}_backward", attrs, ("x", "dy"), (xs, ys), xs, el, backward, selects=(0,)),
    ]


def translate_avg_pool(result: Sample, info, rank: int, sample) -> None:
    a = _arguments("avg_pool", sample)
    if rank == 1 and a["divisor_override"] is not None:
        raise NotExpressible("avg_pool1d has no divisor_override")
    x, unbatched = _batched(sample, rank)
    kernel, stride, padding = _pool_window(a, rank)
    ceil_mode, include, divisor = bool(a["ceil_mode"]), bool(a["count_include_pad"]), a["divisor_override"]
    pool = getattr(F, f"avg_pool{rank}d")

    def forward(x):
        if rank == 1:
            return pool(x, kernel, stride, padding, ceil_mode, include)
        return pool(x, kernel, stride, padding, ceil_mode, include, divisor)

    with torch.no_grad():
        y = forward(x)
    _check_faithful(result, info, sample, y, unbatched)
    _note_shapes(result, x, unbatched, y.shape)
    if divisor is not None and divisor < 0:
        result.notes.append(f"negative divisor_override {divisor}")
    dt, el = x.dtype, ELEMENT[x.dtype]
    result.arrays = dict(x=_numpy(x), dy=_cotangent(result, tuple(y.shape), dt))
    attrs = f" kernel_size {_array(kernel)} stride {_array(stride)} padding {_array(padding)}"
    if ceil_mode:
        attrs += _flag("ceil_mode", True)
    if not include:
        attrs += _flag("count_include_pad", False)
    if divisor is not None:
        attrs += f" divisor_override {divisor}"
    name = f"rlx.avg_pool{rank}d"
    xs, ys = tuple(x.shape), tuple(y.shape)
    result.functions += [
        Function("forward", name, attrs, ("x",), (xs,), ys, el, forward),
        Function("grad_input", f"{name}_backward", attrs, ("dy",), (ys,), xs, el, _grad(forward, xs, dt)),
    ]


def _adaptive_common(result: Sample, family: str, rank: int, sample):
    a = _arguments(family, sample)
    x, unbatched = _batched(sample, rank)
    size = a["output_size"]
    size = (size,) * rank if isinstance(size, int) else tuple(size)
    if len(size) == 1 and rank > 1:
        size = size * rank
    if len(size) != rank:
        raise NotExpressible(f"output_size {a['output_size']!r} is not {rank} entries")
    resolved = tuple(x.shape[2 + i] if s is None else s for i, s in enumerate(size))
    return a, x, unbatched, resolved


def translate_adaptive_avg_pool(result: Sample, info, rank: int, sample) -> None:
    a, x, unbatched, size = _adaptive_common(result, "adaptive_avg_pool", rank, sample)
    pool = getattr(F, f"adaptive_avg_pool{rank}d")

    def forward(x):
        return pool(x, size)

    with torch.no_grad():
        y = forward(x)
    _check_faithful(result, info, sample, y, unbatched)
    _note_shapes(result, x, unbatched, y.shape)
    dt, el = x.dtype, ELEMENT[x.dtype]
    result.arrays = dict(x=_numpy(x), dy=_cotangent(result, tuple(y.shape), dt))
    name = f"rlx.adaptive_avg_pool{rank}d"
    xs, ys = tuple(x.shape), tuple(y.shape)
    result.functions += [
        Function("forward", name, "", ("x",), (xs,), ys, el, forward),
        Function("grad_input", f"{name}_backward", "", ("dy",), (ys,), xs, el, _grad(forward, xs, dt)),
    ]


def translate_adaptive_max_pool(result: Sample, info, rank: int, sample) -> None:
    a, x, unbatched, size = _adaptive_common(result, "adaptive_max_pool", rank, sample)
    pool = getattr(F, f"adaptive_max_pool{rank}d")

    def forward(x):
        return pool(x, size)

    with torch.no_grad():
        y = forward(x)
    _check_faithful(result, info, sample, y, unbatched)
    if a["return_indices"]:
        result.notes.append("return_indices: values compared, the indices are no RLX result")
    _note_shapes(result, x, unbatched, y.shape)
    dt, el = x.dtype, ELEMENT[x.dtype]
    result.arrays = dict(x=_numpy(x), dy=_cotangent(result, tuple(y.shape), dt))
    name = f"rlx.adaptive_max_pool{rank}d"
    xs, ys = tuple(x.shape), tuple(y.shape)

    def backward(x, dy):
        x = x.clone().requires_grad_()
        return torch.autograd.grad(forward(x), x, dy)[0]

    result.functions += [
        Function("forward", name, "", ("x",), (xs,), ys, el, forward, exact=True),
        Function("grad_input", f"{name}_backward", "", ("x", "dy"), (xs, ys), xs, el, backward, selects=(0,)),
    ]


# --------------------------------------------------------------------------------------
# unfold (im2col)
# --------------------------------------------------------------------------------------


def onehot_weight(channels: int, kernel: Sequence[int], dtype) -> np.ndarray:
    """`[C*K, 1, *kernel]` with w[c*K + k, 0, *unravel(k)] = 1: conv2d(x, w, groups=C) is unfold(x)."""
    taps = int(np.prod(kernel))
    w = np.zeros((channels * taps, 1, *kernel), dtype)
    for c in range(channels):
        for k in range(taps):
            w[(c * taps + k, 0, *np.unravel_index(k, kernel))] = 1
    return w


def translate_unfold(result: Sample, info, rank: int, sample) -> None:
    a = _arguments("unfold", sample)
    x, unbatched = _batched(sample, rank)
    kernel = _spatial(a["kernel_size"], rank, "kernel_size")
    dilation, padding = _spatial(a["dilation"], rank, "dilation"), _spatial(a["padding"], rank, "padding")
    stride = _spatial(a["stride"], rank, "stride")

    def unfold(x):
        return F.unfold(x, kernel, dilation, padding, stride)

    with torch.no_grad():
        cols = unfold(x)
    _check_faithful(result, info, sample, cols, unbatched)
    n, c = x.shape[:2]
    taps = int(np.prod(kernel))
    out = tuple((x.shape[2 + i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(rank))
    assert int(np.prod(out)) == cols.shape[2]
    rows = (n * cols.shape[2], c * taps)
    _note_shapes(result, x, unbatched, (n, *rows))
    result.notes.append("gradient: rlx.conv2d_backward_input with a one-hot weight (no RLX col2im)")
    dt, el = x.dtype, ELEMENT[x.dtype]
    dy_shape = (n, c * taps, *out)
    w = onehot_weight(c, kernel, ELEMENT_NP[dt])
    result.arrays = dict(x=_numpy(x), dy=_cotangent(result, dy_shape, dt), w=w)
    xs = tuple(x.shape)

    def im2col(x):
        return unfold(x).transpose(1, 2).reshape(rows)

    def col2im(dy, w):
        return _grad(unfold, xs, dt)(dy.reshape(n, c * taps, cols.shape[2]))

    attrs = f" kernel_size {_array(kernel)} stride {_array(stride)} padding {_array(padding)}"
    if dilation != (1,) * rank:
        attrs += f" dilation {_array(dilation)}"
    gradient = f" kernel_size {_array(kernel)} stride {_array(stride)} padding {_array(padding)}"
    if dilation != (1,) * rank:
        gradient += f" dilation {_array(dilation)}"
    if c != 1:
        gradient += f" groups {c}"
    result.functions += [
        Function("forward", "rlx.im2col", attrs, ("x",), (xs,), rows, el, im2col, exact=True),
        Function("grad_input", "rlx.conv2d_backward_input", gradient, ("dy", "w"), (dy_shape, w.shape), xs, el,
                 col2im, selects=(1,)),
    ]


TRANSLATORS = {
    "conv": translate_conv,
    "conv_transpose": translate_conv_transpose,
    "max_pool": translate_max_pool,
    "avg_pool": translate_avg_pool,
    "adaptive_avg_pool": translate_adaptive_avg_pool,
    "adaptive_max_pool": translate_adaptive_max_pool,
    "unfold": translate_unfold,
}
