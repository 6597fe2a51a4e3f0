"""The stride-1 conv and its two gradients on channel-blocked layouts, as upstream MLIR text.

Layouts, with B channels per block (the f32 lanes of a vector register):

    activations  x[n, c/B, h, w, B]                       (oneDNN's nChw16c)
    forward and weight-gradient weights  w[f/B, c/B, kh, kw, Bc, Bf]   (OIhw16i16o)
    input-gradient weights  wt[c/B, f/B, kh, kw, Bf, Bc] = w[f, c, K-1-kh, K-1-kw] (flipped)

so that every kernel's innermost, vectorized axis is a block of B output channels and
no kernel transposes anything:

    forward  y[n, fo, oh, ow, fi]  += xp[n, co, oh + kh, ow + kw, ci] * w[fo, co, kh, kw, ci, fi]
    input    dx[n, co, h, w, ci]   += dyp[n, fo, h + kh, w + kw, fi] * wt[co, fo, kh, kw, fi, ci]
    weight   dw[fo, co, kh, kw, ci, fi] += xp[n, co, oh + kh, ow + kw, ci] * dy[n, fo, oh, ow, fi]

(`xp`: x zero-padded by p; `dyp`: dy zero-padded by K-1-p, the adjoint padding of a
stride-1 conv.) The input gradient is the forward kernel on the flipped, transposed
weights: its layout holds the flip, because a flipped read (`h - kh`) in an indexing map
asserts in MLIR 22's tiling ("nonpositive multiplying coefficient"). The forward and input gradient broadcast one
input value over B output channels; the weight gradient accumulates a BxB channel block
over (n, oh, ow). Each kernel's `linalg.generic` carries the attribute ``blocked_conv``
naming its register tile (``rows`` or ``block``), which ``blocked-conv.mlir`` matches.

Each function exists twice: ``<direction>_blocked`` takes and returns blocked tensors
(the steady state of a network kept blocked), ``<direction>`` takes and returns NCHW /
FCHW and packs and unpacks with `linalg.pack`/`linalg.unpack`, whose padding value pads a
channel count that B does not divide with zeros (exact: the padded channels contribute
zero products and are sliced off by the unpack).
"""

from __future__ import annotations

from dataclasses import dataclass

DIRECTIONS = ("forward", "input", "weight")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class BlockedConv:
    """A stride-1, ungrouped KxK conv with padding p, blocked by B channels.

    ``batch`` None declares the batch dynamic (``?``).
    """

    batch: int | None
    channels: int
    filters: int
    size: int
    kernel: int
    pad: int
    block: int
    element: str = "f32"

    def __post_init__(self) -> None:
        if not 0 <= self.pad <= self.kernel - 1:
            raise ValueError(f"padding {self.pad} outside [0, kernel - 1]: the adjoint padding would be negative")

    @property
    def out_size(self) -> int:
        return self.size + 2 * self.pad - self.kernel + 1

    def _n(self) -> str:
        return "?" if self.batch is None else str(self.batch)

    def _t(self, *dims) -> str:
        return "tensor<" + "x".join(str(d) for d in dims) + f"x{self.element}>"

    # Plain and blocked tensor types.
    def x_type(self) -> str:
        return self._t(self._n(), self.channels, self.size, self.size)

    def y_type(self) -> str:
        return self._t(self._n(), self.filters, self.out_size, self.out_size)

    def w_type(self) -> str:
        return self._t(self.filters, self.channels, self.kernel, self.kernel)

    def xb_type(self) -> str:
        return self._t(self._n(), _ceil_div(self.channels, self.block), self.size, self.size, self.block)

    def yb_type(self) -> str:
        return self._t(self._n(), _ceil_div(self.filters, self.block), self.out_size, self.out_size, self.block)

    def wb_type(self) -> str:
        b, k = self.block, self.kernel
        return self._t(_ceil_div(self.filters, b), _ceil_div(self.channels, b), k, k, b, b)

    def wtb_type(self) -> str:
        b, k = self.block, self.kernel
        return self._t(_ceil_div(self.channels, b), _ceil_div(self.filters, b), k, k, b, b)

    def signature(self, direction: str, blocked: bool) -> tuple[list[tuple[str, str]], str]:
        """([(argument, type)], result type) of a direction's function."""
        if blocked:
            x, y, w, wt = self.xb_type(), self.yb_type(), self.wb_type(), self.wtb_type()
        else:
            x, y, w, wt = self.x_type(), self.y_type(), self.w_type(), self.w_type()
        if direction == "forward":
            return [("x", x), ("w", w)], y
        if direction == "input":
            return [("dy", y), ("w", wt)], x
        return [("x", x), ("dy", y)], w

    def module(self) -> str:
        """A module with all six functions."""
        body = "".join(_function(self, d, blocked) for d in DIRECTIONS for blocked in (True, False))
        return "module {\n" + body + "}\n"


class _Emitter:
    """Numbered SSA lines of one function body."""

    def __init__(self, conv: BlockedConv):
        self.conv = conv
        self.lines: list[str] = []
        self.count = 0
        self.batch_value: str | None = None

    def emit(self, text: str) -> str:
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"    {name} = {text}")
        return name

    def empty(self, type_: str) -> str:
        """tensor.empty of ``type_``, sized by the batch value when the batch is dynamic."""
        dynamic = "(" + self.batch_value + ")" if "?" in type_ else "()"
        return self.emit(f"tensor.empty{dynamic} : {type_}")

    def zero(self) -> str:
        return self.emit(f"arith.constant 0.0 : {self.conv.element}")

    def fill_zero(self, type_: str) -> str:
        zero, empty = self.zero(), self.empty(type_)
        return self.emit(f"linalg.fill ins({zero} : {self.conv.element}) outs({empty} : {type_}) -> {type_}")

    def pack_activation(self, value: str, plain: str, blocked: str) -> str:
        zero, empty = self.zero(), self.empty(blocked)
        return self.emit(
            f"linalg.pack {value} padding_value({zero} : {self.conv.element}) inner_dims_pos = [1]"
            f" inner_tiles = [{self.conv.block}] into {empty} : {plain} -> {blocked}"
        )

    def unpack_activation(self, value: str, blocked: str, plain: str) -> str:
        empty = self.empty(plain)
        return self.emit(
            f"linalg.unpack {value} inner_dims_pos = [1] inner_tiles = [{self.conv.block}]"
            f" into {empty} : {blocked} -> {plain}"
        )

    def pack_weight(self, value: str, transposed: bool) -> str:
        """w[f, c, kh, kw] as [f/B, c/B, kh, kw, Bc, Bf], or (transposed) [c/B, f/B, kh, kw, Bf, Bc]."""
        conv, b = self.conv, self.conv.block
        blocked = conv.wtb_type() if transposed else conv.wb_type()
        order = "outer_dims_perm = [1, 0, 2, 3] inner_dims_pos = [0, 1]" if transposed else "inner_dims_pos = [1, 0]"
        zero, empty = self.zero(), self.empty(blocked)
        return self.emit(
            f"linalg.pack {value} padding_value({zero} : {conv.element}) {order} inner_tiles = [{b}, {b}]"
            f" into {empty} : {conv.w_type()} -> {blocked}"
        )

    def flip_kernel(self, value: str) -> str:
        """w[f, c, K-1-kh, K-1-kw]: read by index in the body, since an indexing map with
        ``K-1-kh`` asserts when tiled."""
        conv, el = self.conv, self.conv.element
        last = self.emit(f"arith.constant {conv.kernel - 1} : index")
        empty = self.empty(conv.w_type())
        return self.emit(
            "linalg.generic {indexing_maps = [affine_map<(f, c, kh, kw) -> (f, c, kh, kw)>],"
            ' iterator_types = ["parallel", "parallel", "parallel", "parallel"]}\n'
            f"        outs({empty} : {conv.w_type()}) {{\n"
            f"    ^bb0(%out: {el}):\n"
            "      %f = linalg.index 0 : index\n"
            "      %c = linalg.index 1 : index\n"
            "      %kh = linalg.index 2 : index\n"
            "      %kw = linalg.index 3 : index\n"
            f"      %rh = arith.subi {last}, %kh : index\n"
            f"      %rw = arith.subi {last}, %kw : index\n"
            f"      %e = tensor.extract {value}[%f, %c, %rh, %rw] : {conv.w_type()}\n"
            f"      linalg.yield %e : {el}\n"
            f"    }} -> {conv.w_type()}"
        )

    def unpack_weight(self, value: str) -> str:
        conv, b = self.conv, self.conv.block
        empty = self.empty(conv.w_type())
        return self.emit(
            f"linalg.unpack {value} inner_dims_pos = [1, 0] inner_tiles = [{b}, {b}]"
            f" into {empty} : {conv.wb_type()} -> {conv.w_type()}"
        )

    def pad_spatial(self, value: str, type_: str, amount: int) -> tuple[str, str]:
        """``value`` ([n, c/B, h, w, B]) zero-padded by ``amount`` on both sides of h and w."""
        if amount == 0:
            return value, type_
        dims = type_[len("tensor<") : -1].split("x")
        padded = "x".join([dims[0], dims[1], str(int(dims[2]) + 2 * amount), str(int(dims[3]) + 2 * amount), *dims[4:]])
        padded_type = f"tensor<{padded}>"
        zero = self.zero()
        low = f"[0, 0, {amount}, {amount}, 0]"
        result = self.emit(
            f"tensor.pad {value} low{low} high{low} {{\n"
            "    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index, %i4: index):\n"
            f"      tensor.yield {zero} : {self.conv.element}\n"
            f"    }} : {type_} to {padded_type}"
        )
        return result, padded_type

    def generic(self, maps: list[str], iterators: str, ins: list[tuple[str, str]], out: tuple[str, str], tile: str) -> str:
        """A multiply-accumulate ``linalg.generic`` tagged with its register tile; the body is
        one ``math.fma`` because llc does not contract a separate mulf and addf."""
        el = self.conv.element
        ins_text = ", ".join(v for v, _ in ins) + " : " + ", ".join(t for _, t in ins)
        return self.emit(
            "linalg.generic {indexing_maps = ["
            + ", ".join(f"affine_map<{m}>" for m in maps)
            + f"], iterator_types = [{iterators}]}}\n"
            f"        ins({ins_text}) outs({out[0]} : {out[1]}) attrs = {{blocked_conv = \"{tile}\"}} {{\n"
            f"    ^bb0(%a: {el}, %b: {el}, %acc: {el}):\n"
            f"      %s = math.fma %a, %b, %acc : {el}\n"
            f"      linalg.yield %s : {el}\n"
            f"    }} -> {out[1]}"
        )


_P, _R = '"parallel"', '"reduction"'
_ROWS_ITERATORS = ", ".join([_P] * 5 + [_R] * 4)
_BLOCK_ITERATORS = ", ".join([_P] * 6 + [_R] * 3)


def _rows(e: _Emitter, source: str, source_type: str, pad: int, weight: str, weight_type: str, out_type: str) -> str:
    """out[n, fo, oh, ow, fi] = sum sp[n, co, oh + kh, ow + kw, ci] * weight[fo, co, kh, kw, ci, fi],
    sp = source zero-padded by ``pad``: the forward conv, and the input gradient (source dy,
    the flipped transposed weights, the adjoint padding)."""
    padded, padded_type = e.pad_spatial(source, source_type, pad)
    out = e.fill_zero(out_type)
    dims = "(n, fo, oh, ow, fi, co, kh, kw, ci)"
    maps = [
        f"{dims} -> (n, co, oh + kh, ow + kw, ci)",
        f"{dims} -> (fo, co, kh, kw, ci, fi)",
        f"{dims} -> (n, fo, oh, ow, fi)",
    ]
    return e.generic(maps, _ROWS_ITERATORS, [(padded, padded_type), (weight, weight_type)], (out, out_type), "rows")


def _forward(e: _Emitter, x: str, w: str) -> str:
    conv = e.conv
    return _rows(e, x, conv.xb_type(), conv.pad, w, conv.wb_type(), conv.yb_type())


def _input(e: _Emitter, dy: str, wt: str) -> str:
    conv = e.conv
    return _rows(e, dy, conv.yb_type(), conv.kernel - 1 - conv.pad, wt, conv.wtb_type(), conv.xb_type())


def _weight(e: _Emitter, x: str, dy: str) -> str:
    conv = e.conv
    xp, xp_type = e.pad_spatial(x, conv.xb_type(), conv.pad)
    dw = e.fill_zero(conv.wb_type())
    dims = "(fo, co, kh, kw, ci, fi, n, oh, ow)"
    maps = [
        f"{dims} -> (n, co, oh + kh, ow + kw, ci)",
        f"{dims} -> (n, fo, oh, ow, fi)",
        f"{dims} -> (fo, co, kh, kw, ci, fi)",
    ]
    return e.generic(maps, _BLOCK_ITERATORS, [(xp, xp_type), (dy, conv.yb_type())], (dw, conv.wb_type()), "block")


def _function(conv: BlockedConv, direction: str, blocked: bool) -> str:
    args, result_type = conv.signature(direction, blocked)
    e = _Emitter(conv)
    if conv.batch is None:
        zero_index = e.emit("arith.constant 0 : index")
        batch_arg = "%dy" if direction == "input" else "%x"
        e.batch_value = e.emit(f"tensor.dim {batch_arg}, {zero_index} : {dict(args)[batch_arg[1:]]}")
    values = {name: f"%{name}" for name, _ in args}
    if not blocked:
        if "x" in values:
            values["x"] = e.pack_activation(values["x"], conv.x_type(), conv.xb_type())
        if "dy" in values:
            values["dy"] = e.pack_activation(values["dy"], conv.y_type(), conv.yb_type())
        if "w" in values and direction == "input":
            values["w"] = e.pack_weight(e.flip_kernel(values["w"]), transposed=True)
        elif "w" in values:
            values["w"] = e.pack_weight(values["w"], transposed=False)
    if direction == "forward":
        result = _forward(e, values["x"], values["w"])
        if not blocked:
            result = e.unpack_activation(result, conv.yb_type(), conv.y_type())
    elif direction == "input":
        result = _input(e, values["dy"], values["w"])
        if not blocked:
            result = e.unpack_activation(result, conv.xb_type(), conv.x_type())
    else:
        result = _weight(e, values["x"], values["dy"])
        if not blocked:
            result = e.unpack_weight(result)
    name = direction + ("_blocked" if blocked else "")
    params = ", ".join(f"%{n}: {t}" for n, t in args)
    return (
        f"  func.func @{name}({params}) -> {result_type} {{\n"
        + "\n".join(e.lines)
        + f"\n    return {result} : {result_type}\n  }}\n"
    )
