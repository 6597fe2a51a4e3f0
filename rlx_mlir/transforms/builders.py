"""Builders that hide xDSL ceremony, so a rewrite pattern shows only its formula.

`TensorBuilder` emits tensor/linalg/arith ops before the op being rewritten: typed
constants, empty/filled tensors whose dynamic batch comes from an operand, static pads,
reshapes, slices, upstream named ops, and gather-form `linalg.generic`s whose indexing
maps are written as Python lambdas:

    b.generic(
        ins=[dy, xpad], init=zeros,
        maps=[lambda f, c, kh, kw, n, ho, wo: (n, f, ho, wo),
              lambda f, c, kh, kw, n, ho, wo: (n, c, ho * sh + kh * dh, wo * sw + kw * dw),
              lambda f, c, kh, kw, n, ho, wo: (f, c, kh, kw)],
        iterators="ppppRRR",
        body=lambda r, dy_, x_, acc: r.add(acc, r.mul(dy_, x_)),
    )

`RegionBuilder` is what a body lambda receives: arithmetic that picks the float or
integer op from the operand type, `linalg.index`, `tensor.extract` and `select`.
Every op emitted carries the location of the op being rewritten, so a later diagnostic
still points at the user's source line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.dialects.llvm import FastMathFlag
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from rlx_mlir.compat import set_pooling_max_body
from rlx_mlir.dialects.tensors import is_dynamic, shape_of, tensor_type  # noqa: F401 (re-exported)

MapLike = AffineMap | Callable[..., tuple]
Shape = Sequence[int]


def affine_map(spec: MapLike) -> AffineMap:
    return spec if isinstance(spec, AffineMap) else AffineMap.from_callable(spec)


def dims_map(num_dims: int, results: Callable[..., Sequence]) -> AffineMap:
    """An affine map over `num_dims` loop dimensions, for ops of any spatial rank.

    `results` receives the dimensions as one tuple and returns the indexing expressions
    (ints are constants), so a rank-generic pattern states its formula once:

        dims_map(2 + 2 * r, lambda d: (d[0], d[1], *(d[2 + i] * s[i] + d[2 + r + i] for i in range(r))))
    """
    dims = tuple(AffineExpr.dimension(i) for i in range(num_dims))
    return AffineMap(num_dims, 0, tuple(AffineExpr.constant(e) if isinstance(e, int) else e for e in results(dims)))


def scaled(expr: AffineExpr, factor: int) -> AffineExpr:
    """`expr * factor`, left as `expr` for a factor of 1 (a unit dilation adds no term to a map)."""
    return expr if factor == 1 else expr * factor


def element_type_of(value: SSAValue) -> Attribute:
    return tensor_type(value).element_type


def _is_float(type_: Attribute) -> bool:
    return isinstance(type_, AnyFloat)


class _Emitter:
    """Inserts ops at one point, stamping them with one location."""

    def __init__(self, insert: Callable[[Operation], None], location: Attribute | None):
        self._insert = insert
        self._location = location

    def emit(self, op: Operation) -> Operation:
        if self._location is not None:
            op.location = self._location
        self._insert(op)
        return op

    def value(self, op: Operation) -> SSAValue:
        """Emit `op`, an op of one result, and return that result."""
        return self.emit(op).results[0]

    def index(self, value: int) -> SSAValue:
        return self.value(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def constant(self, value: float | int | bool, type_: Attribute) -> SSAValue:
        """A scalar constant of `type_`; floats may be +-inf or nan."""
        if isinstance(type_, IndexType):
            return self.index(int(value))
        if isinstance(type_, IntegerType):
            return self.value(arith.ConstantOp(IntegerAttr(int(value), type_)))
        return self.value(arith.ConstantOp(FloatAttr(float(value), type_)))  # type: ignore[arg-type]


def _emits(op_class: type[Operation]) -> Callable[..., SSAValue]:
    """A builder method that emits `op_class(*operands)` and returns its result."""

    def build(self: _Emitter, *operands) -> SSAValue:
        return self.value(op_class(*operands))

    build.__doc__ = f"`{op_class.name}` of the operands, in the op's own order."
    return build


class RegionBuilder(_Emitter):
    """What a `linalg.generic` body sees: scalar math picked by type, indices, extracts."""

    def __init__(self, block: Block, location: Attribute | None):
        super().__init__(block.add_op, location)
        self.block = block

    and_ = _emits(arith.AndIOp)
    or_ = _emits(arith.OrIOp)
    minui = _emits(arith.MinUIOp)
    maxui = _emits(arith.MaxUIOp)
    select = _emits(arith.SelectOp)  # (condition, if_true, if_false)
    index_cast = _emits(arith.IndexCastOp)  # (value, type)
    sitofp = _emits(arith.SIToFPOp)  # (value, type)

    def loop_index(self, dim: int) -> SSAValue:
        return self.value(linalg.IndexOp(dim))

    def _binary(self, float_op, int_op, a: SSAValue, b: SSAValue) -> SSAValue:
        op = float_op if _is_float(a.type) else int_op
        return self.value(op(a, b))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._binary(arith.AddfOp, arith.AddiOp, a, b)

    def accumulate(self, acc: SSAValue, term: SSAValue) -> SSAValue:
        """`acc + term` in a reduction whose terms may be summed in any order: for floats,
        `arith.addf` with the `reassoc` flag, so LLVM vectorizes the loop with one partial
        sum per lane (a sequential sum is one add per FP-add latency, unvectorized)."""
        if not _is_float(acc.type):
            return self.add(acc, term)
        return self.value(arith.AddfOp(acc, term, flags=arith.FastMathFlagsAttr([FastMathFlag.REASSOC])))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._binary(arith.SubfOp, arith.SubiOp, a, b)

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._binary(arith.MulfOp, arith.MuliOp, a, b)

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Float division, or unsigned integer division (callers keep indices >= 0)."""
        return self._binary(arith.DivfOp, arith.DivUIOp, a, b)

    def cmpi(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.CmpiOp(a, b, predicate))

    def cmpf(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.CmpfOp(a, b, predicate))

    def index_to_float(self, value: SSAValue, type_: Attribute) -> SSAValue:
        """An `index` count as a float of `type_` (via i64: arith has no index-to-float)."""
        return self.sitofp(self.index_cast(value, i64), type_)

    def cells_inside(self, window: SSAValue, stride: int, kernel: int, padding: int, size: int) -> SSAValue:
        """How many cells of window `window` along one axis lie in the unpadded input.

        `min(o*S + K, size + P) - max(o*S, P)` in padded coordinates, where every term is
        >= 0, so the unsigned min/max are exact. The divisor of avg-pool without
        count_include_pad, forward and backward.
        """
        start = self.mul(window, self.index(stride))
        end = self.minui(self.add(start, self.index(kernel)), self.index(size + padding))
        return self.sub(end, self.maxui(start, self.index(padding)))

    def extract(self, source: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        """`tensor.extract`: indices must be in bounds (it lowers to a plain load)."""
        return self.value(tensor.ExtractOp(source, list(indices), element_type_of(source)))

    def in_range(self, value: SSAValue, bound: SSAValue) -> SSAValue:
        """`0 <= value < bound` in one unsigned compare (a negative index wraps high)."""
        return self.cmpi("ult", value, bound)


class TensorBuilder(_Emitter):
    """Emits tensor-level ops before the op a pattern rewrites."""

    def __init__(self, rewriter: PatternRewriter, anchor: Operation):
        super().__init__(rewriter.insert, anchor.location)
        self.rewriter = rewriter

    @classmethod
    def appending_to(cls, block: Block, rewriter: PatternRewriter, anchor: Operation) -> TensorBuilder:
        """A builder that appends to `block` (the body of a loop being built) instead of
        inserting before `anchor`; its ops still carry `anchor`'s location."""
        builder = cls(rewriter, anchor)
        _Emitter.__init__(builder, block.add_op, anchor.location)
        return builder

    # -- shapes --------------------------------------------------------------------------

    def dim(self, value: SSAValue, axis: int) -> SSAValue:
        return self.value(tensor.DimOp(value, self.index(axis)))

    def dynamic_sizes(self, shape: Shape, like: SSAValue | None) -> list[SSAValue]:
        """SSA sizes for the dynamic dims of `shape`, read from the same axes of `like`."""
        dynamic_axes = [axis for axis, size in enumerate(shape) if is_dynamic(size)]
        if dynamic_axes and like is None:
            raise ValueError("a dynamic shape needs a tensor to read its sizes from")
        return [self.dim(like, axis) for axis in dynamic_axes]  # type: ignore[arg-type]

    def empty(
        self,
        shape: Shape,
        element_type: Attribute,
        like: SSAValue | None = None,
        sizes: Sequence[SSAValue] | None = None,
    ) -> SSAValue:
        """`tensor.empty`; dynamic dims take their size from the same axes of `like`, or,
        where no operand has that axis, from explicit `sizes` (in order)."""
        dynamic = list(sizes) if sizes is not None else self.dynamic_sizes(shape, like)
        return self.value(tensor.EmptyOp(dynamic, TensorType(element_type, list(shape))))

    def full(
        self,
        shape: Shape,
        element_type: Attribute,
        value: float,
        like: SSAValue | None = None,
        sizes: Sequence[SSAValue] | None = None,
    ) -> SSAValue:
        """An empty tensor filled with `value` (`linalg.fill`); dynamic dims as in `empty`."""
        return self.fill(self.empty(shape, element_type, like, sizes), value)

    def fill(self, into: SSAValue, value: float) -> SSAValue:
        """`into` with every element set to `value` (`linalg.fill`)."""
        scalar = self.constant(value, element_type_of(into))
        return self.value(linalg.FillOp([scalar], [into], [into.type]))

    def pad(self, value: SSAValue, low: Shape, high: Shape, fill: float) -> SSAValue:
        """`tensor.pad` by static amounts; returns `value` itself when nothing is padded."""
        if not any(low) and not any(high):
            return value
        source_type = tensor_type(value)
        result_type = TensorType(source_type.element_type, _padded_shape(source_type.get_shape(), low, high))
        scalar = self.constant(fill, source_type.element_type)
        body = Block(arg_types=[IndexType()] * len(low))
        body.add_op(tensor.YieldOp(scalar))
        return self.value(tensor.PadOp(value, [], [], Region(body), list(low), list(high), result_type))

    def pad_spatial(self, value: SSAValue, padding: Sequence[int], fill: float) -> SSAValue:
        """NCHW `value` padded by `padding` = (pH, pW) on both sides of H and W with `fill`."""
        return self.pad(value, (0, 0, *padding), (0, 0, *padding), fill)

    def pad_sides(self, value: SSAValue, low: Sequence[int], high: Sequence[int], fill: float) -> SSAValue:
        """`[N, C, *spatial]` `value` padded by `low` before and `high` after each spatial axis.

        A negative amount crops that side instead (a window that stops short of the end, or a
        transposed conv's padding larger than the kernel's reach), so callers can pass
        `Window.low` and `Window.reach_high(...)` as they are.
        """
        crop_low = [max(0, -v) for v in low]
        crop_high = [max(0, -v) for v in high]
        if any(crop_low) or any(crop_high):
            shape = shape_of(value)
            sizes = [shape[0], shape[1], *(shape[2 + i] - crop_low[i] - crop_high[i] for i in range(len(low)))]
            value = self.extract_slice(value, (0, 0, *crop_low), sizes)
        return self.pad(value, (0, 0, *(max(0, v) for v in low)), (0, 0, *(max(0, v) for v in high)), fill)

    def extract_slice(self, value: SSAValue, offsets: Shape, sizes: Shape, strides: Shape | None = None) -> SSAValue:
        """A static slice; a dynamic size (the batch) is read from `value`."""
        strides = strides or [1] * len(sizes)
        dynamic_sizes = iter(self.dynamic_sizes(sizes, value))
        size_operands: list[SSAValue | int] = [next(dynamic_sizes) if is_dynamic(s) else s for s in sizes]
        result_type = TensorType(element_type_of(value), list(sizes))
        return self.value(tensor.ExtractSliceOp(value, list(offsets), size_operands, list(strides), result_type))

    def insert_slice(self, source: SSAValue, dest: SSAValue, offsets: Shape, strides: Shape | None = None) -> SSAValue:
        """Insert all of `source` into `dest` at static offsets; a dynamic size (the batch) is read from `source`."""
        sizes = shape_of(source)
        op = tensor.InsertSliceOp.get(
            source,
            dest,
            static_sizes=[DYNAMIC_INDEX if is_dynamic(size) else size for size in sizes],  # MLIR's `?` marker
            static_offsets=list(offsets),
            static_strides=list(strides or [1] * len(sizes)),
            sizes=self.dynamic_sizes(sizes, source),
        )
        return self.value(op)

    def expand_shape(
        self, value: SSAValue, reassociation: Sequence[Sequence[int]], shape: Shape, sizes: Sequence[SSAValue] = ()
    ) -> SSAValue:
        """`tensor.expand_shape`. The dynamic output sizes are `sizes`, in order, when given;
        otherwise each dynamic output dim must sit alone in its group (the batch) and takes
        that group's source size."""
        dynamic: list[SSAValue] = list(sizes)
        for group_index, group in enumerate(reassociation):
            for axis in group:
                if is_dynamic(shape[axis]) and not sizes:
                    dynamic.append(self.dim(value, group_index))
        result_type = TensorType(element_type_of(value), list(shape))
        return self.value(tensor.ExpandShapeOp(value, dynamic, _reassociation_attr(reassociation), list(shape), result_type))

    def collapse_shape(self, value: SSAValue, reassociation: Sequence[Sequence[int]]) -> SSAValue:
        source_shape = shape_of(value)
        shape = []
        for group in reassociation:
            sizes = [source_shape[axis] for axis in group]
            shape.append(DYNAMIC_INDEX if any(is_dynamic(s) for s in sizes) else math.prod(sizes))
        result_type = TensorType(element_type_of(value), shape)
        op = tensor.CollapseShapeOp(operands=[value], result_types=[result_type], properties={"reassociation": _reassociation_attr(reassociation)})
        return self.value(op)

    def flat_rows(self, value: SSAValue) -> SSAValue:
        """[N, C, H, W] -> [N, C, 1, H*W], a view of a contiguous tensor: a stride-1 conv
        whose kernel is one tap computes on the image's rows as on one row, so its row is
        as long as the whole image (narrow images then still fill a vector)."""
        n, c, h, w = shape_of(value)
        return self.expand_shape(self.collapse_shape(value, [[0], [1], [2, 3]]), [[0], [1], [2, 3]], (n, c, 1, h * w))

    def unflat_rows(self, value: SSAValue, height: int, width: int) -> SSAValue:
        """The inverse of :meth:`flat_rows`: [N, C, 1, H*W] -> [N, C, H, W]."""
        n, c = shape_of(value)[:2]
        return self.expand_shape(self.collapse_shape(value, [[0], [1], [2, 3]]), [[0], [1], [2, 3]], (n, c, height, width))

    def transpose(self, value: SSAValue, permutation: Sequence[int], into: SSAValue | None = None) -> SSAValue:
        """`linalg.transpose`: result axis k is `value`'s axis `permutation[k]`. Writes into
        `into` when given (e.g. the interior slice of a padded buffer), else a new tensor."""
        if into is None:
            shape, sizes = self._permuted(value, permutation)
            into = self.empty(shape, element_type_of(value), sizes=sizes)
        return self.value(linalg.TransposeOp(value, into, DenseArrayBase.from_list(i64, list(permutation))))

    def transpose_padded(self, value: SSAValue, permutation: Sequence[int], low: Shape, high: Shape) -> SSAValue:
        """`value` transposed by `permutation` and zero-padded by `low`/`high` (per result
        axis) in one pass: the transpose writes the interior of a zero-filled tensor, which
        bufferizes in place, instead of a padded copy followed by a transposed copy."""
        if not any(low) and not any(high):
            return self.transpose(value, permutation)
        shape, sizes = self._permuted(value, permutation)
        zeros = self.full(_padded_shape(shape, low, high), element_type_of(value), 0.0, sizes=sizes)
        interior = self.extract_slice(zeros, low, shape)
        return self.insert_slice(self.transpose(value, permutation, into=interior), zeros, low)

    def _permuted(self, value: SSAValue, permutation: Sequence[int]) -> tuple[list[int], list[SSAValue]]:
        """The shape of `value` transposed by `permutation`, and SSA sizes of its dynamic dims."""
        source = shape_of(value)
        shape = [source[axis] for axis in permutation]
        return shape, [self.dim(value, axis) for axis in permutation if is_dynamic(source[axis])]

    # -- upstream named ops ----------------------------------------------------------------

    def matmul(self, lhs: SSAValue, rhs: SSAValue, init: SSAValue) -> SSAValue:
        return self.value(linalg.MatmulOp([lhs, rhs], [init], [init.type]))

    def conv_2d_nchw_fchw(self, x: SSAValue, w: SSAValue, init: SSAValue, strides: Shape, dilations: Shape) -> SSAValue:
        return self._conv(linalg.Conv2DNchwFchwOp, x, w, init, strides, dilations)

    def conv_2d_ngchw_gfchw(self, x: SSAValue, w: SSAValue, init: SSAValue, strides: Shape, dilations: Shape) -> SSAValue:
        """The grouped conv whose filter is [G, F/G, C/G, KH, KW]: PyTorch's grouped weight
        [F, C/G, KH, KW] is group-major along F, so it expands to exactly this layout."""
        return self._conv(linalg.Conv2DNgchwGfchwOp, x, w, init, strides, dilations)

    def pooling_nchw_max(self, x: SSAValue, window: Shape, init: SSAValue, strides: Shape, dilations: Shape) -> SSAValue:
        """`linalg.pooling_nchw_max` over a shape-only `window`, with upstream's body
        `max(acc, in)` (`compat.set_pooling_max_body`)."""
        shape_only = self.empty(window, element_type_of(x))
        pooled = self._conv(linalg.PoolingNchwMaxOp, x, shape_only, init, strides, dilations)
        set_pooling_max_body(pooled.owner)  # type: ignore[arg-type]
        return pooled

    def _conv(self, op_class, x, w, init, strides, dilations) -> SSAValue:
        op = op_class(
            [x, w], [init], [init.type],
            strides=_i64_elements(strides), dilations=_i64_elements(dilations),
        )
        return self.value(op)

    # -- gather-form generics ----------------------------------------------------------

    def generic(
        self,
        ins: Sequence[SSAValue],
        init: SSAValue | Sequence[SSAValue],
        maps: Sequence[MapLike],
        iterators: str,
        body: Callable[..., SSAValue | Sequence[SSAValue]],
    ) -> SSAValue:
        """A `linalg.generic`; `iterators` spells one letter per loop: p(arallel) or r(eduction).

        `body(r, *ins_scalars, *out_scalars)` returns the value(s) to yield; `r` is a
        RegionBuilder. The output maps should index by loop dimensions only (gather form).
        """
        outs = [init] if isinstance(init, SSAValue) else list(init)
        iterator_attrs = [
            IteratorTypeAttr.parallel() if letter in "pP" else IteratorTypeAttr.reduction()
            for letter in iterators
        ]
        block = Block(arg_types=[element_type_of(v) for v in (*ins, *outs)])
        region_builder = RegionBuilder(block, self._location)
        yielded = body(region_builder, *block.args)
        yielded_list = [yielded] if isinstance(yielded, SSAValue) else list(yielded)
        region_builder.emit(linalg.YieldOp(*yielded_list))
        op = linalg.GenericOp(
            list(ins), outs, Region(block),
            [AffineMapAttr(affine_map(m)) for m in maps], iterator_attrs,
            [o.type for o in outs],
        )
        self.emit(op)
        return op.results[0] if len(op.results) == 1 else op.results  # type: ignore[return-value]


def _padded_shape(shape: Shape, low: Shape, high: Shape) -> list[int]:
    """`shape` grown by `low` + `high` per axis; a dynamic size stays dynamic."""
    return [size if is_dynamic(size) else size + lo + hi for size, lo, hi in zip(shape, low, high)]


def _reassociation_attr(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(axis, i64) for axis in group]) for group in groups])


def _i64_elements(values: Shape) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), list(values))
