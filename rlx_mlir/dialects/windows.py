"""The window properties op families share, each declared once, and the ranks of an op.

A window is PyTorch's (kernel, stride, padding, dilation) over the spatial axes of an
`[N, C, *spatial]` tensor, read back by `SpatialOp.window()` as a `geometry.Window`. Ops
inherit the part of it they carry: xDSL collects the `prop_def` fields of every base class
into the op's definition, and the custom form of each op names every property (its
`assembly_format`, written with the fragment each window exports here), which also fixes
their order.

A family is written once, for any spatial rank; `for_ranks` makes its 1-D, 2-D and 3-D ops
(`rlx.conv1d`, `rlx.conv2d`, `rlx.conv3d`), as PyTorch, ATen and linalg name them: the
name states the layout, and each rank's defaults (`dilation [1, 1]`) have that rank's length.
It returns them as a `RankedOps`, the family's one name (`CONV`) for code written for any
rank.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import RlxOp, rlx_op_definition
from rlx_mlir.dialects.properties import SIZES, bool_property, int_property, sizes_property
from rlx_mlir.geometry import Sizes, Window, axis_names

SPATIAL_RANKS = (1, 2, 3)


class SpatialOp(RlxOp):
    """An op over `[N, C, *spatial]` tensors of one spatial rank (`SPATIAL_RANK`, set per op by `for_ranks`)."""

    SPATIAL_RANK: ClassVar[int] = 0
    RANK_DEFAULTS: ClassVar[dict[str, int]] = {}
    """Spatial properties whose default is one value repeated along every axis (`dilation`: 1)."""

    @classmethod
    def tensor_rank(cls) -> int:
        return cls.SPATIAL_RANK + 2

    def spatial_shapes(self) -> tuple[tuple[int, ...], ...]:
        """The shapes of the operands and then of the result, each checked to be `[N, C, *spatial]`."""
        return self.shapes(self.tensor_rank())

    def verify_property_lengths(self) -> None:
        rank = self.SPATIAL_RANK
        for name, kind in self.property_kinds().items():
            if kind is not SIZES:
                continue
            count = len(self.geometry_value(name))
            if name == "padding":
                if count not in (rank, 2 * rank):
                    raise VerifyException(
                        f"expected 'padding' to have {rank} values (each side alike) or {2 * rank} "
                        f"(low then high per axis), got {count}"
                    )
            elif count != rank:
                axes = ", ".join(axis_names(rank))
                values = "1 value" if rank == 1 else f"{rank} values"
                raise VerifyException(f"expected '{name}' to have {values} ({axes}), got {count}")

    def window(self) -> Window:
        """The op's window geometry, validated; the kernel comes from `kernel_size` or the weight."""
        kinds = self.property_kinds()
        kernel = self.geometry_value("kernel_size") if "kernel_size" in kinds else self.weight_kernel()
        window = Window.of(
            kernel=kernel,
            stride=self.geometry_value("stride"),
            padding=self.geometry_value("padding"),
            dilation=self.geometry_value("dilation") if "dilation" in kinds else None,
            ceil_mode=self.geometry_value("ceil_mode") if "ceil_mode" in kinds else False,
        )
        window.validate()
        return window

    def weight_kernel(self) -> Sizes:
        """The kernel size of an op whose kernel is its weight's spatial size."""
        return tuple(self.shape_of(1, self.tensor_rank())[2:])


class RankedOps:
    """The 1-D, 2-D and 3-D ops of one family, as one value: `CONV = RankedOps(Conv1dOp, Conv2dOp, Conv3dOp)`.

    Code that works for any rank names the family, not a class name spelled with a rank in
    it: `CONV.at(2)` is `Conv2dOp`, `CONV.like(op)` the conv of `op`'s spatial rank (the
    adjoint of a 3-D pool is a 3-D op), `op in CONV` asks whether an op (or op class) is
    one of them, and iterating gives the ops, lowest rank first (as `CONV.ops` holds them).
    """

    __slots__ = ("ops", "_by_rank")

    def __init__(self, *ops: type[SpatialOp]):
        self.ops: tuple[type[SpatialOp], ...] = ops
        self._by_rank = {op.SPATIAL_RANK: op for op in ops}

    def at(self, rank: int) -> type[SpatialOp]:
        """The op of spatial rank `rank` (1, 2 or 3)."""
        return self._by_rank[rank]

    def like(self, op: Operation | type[Operation]) -> type[SpatialOp]:
        """The op of this family at the spatial rank of `op` (an op or op class of any family)."""
        return self.at(op.SPATIAL_RANK)

    def __iter__(self) -> Iterator[type[SpatialOp]]:
        return iter(self.ops)

    def __len__(self) -> int:
        return len(self.ops)

    def __contains__(self, op: object) -> bool:
        return (op if isinstance(op, type) else type(op)) in self.ops

    def __repr__(self) -> str:
        return f"RankedOps({', '.join(op.__name__ for op in self.ops)})"


def for_ranks(
    family: type[SpatialOp], name: str, renamed: dict[int, tuple[str, str]] | None = None
) -> RankedOps:
    """The 1-D, 2-D and 3-D ops of `family` (`ConvNdOp`), named `name.format(rank)`
    (`"rlx.conv{}d"`) and `Conv1dOp` ... in Python, except the ranks `renamed` gives an
    (op name, class name) of their own.

    Each is `family` with its rank and the defaults of that rank's length; the family's
    docstring, written for any rank, is each op's.
    """
    ops = []
    for rank in SPATIAL_RANKS:
        op_name, class_name = (renamed or {}).get(rank, (name.format(rank), family.__name__.replace("Nd", f"{rank}d")))
        fields = {
            "name": op_name,
            "SPATIAL_RANK": rank,
            "__annotations__": {"SPATIAL_RANK": ClassVar[int]},
            "__doc__": family.__doc__,
            "__module__": family.__module__,
            "__qualname__": class_name,
        }
        for prop, value in family.RANK_DEFAULTS.items():
            fields[prop] = sizes_property(default=(value,) * rank)
        ops.append(rlx_op_definition(type(class_name, (family,), fields)))
    return RankedOps(*ops)


class WindowOp(SpatialOp):
    """A window stated by its `kernel_size`, `stride` and `padding`: the pools', im2col's."""

    kernel_size = sizes_property()
    stride = sizes_property()
    padding = sizes_property()


WINDOW = "`kernel_size` $kernel_size `stride` $stride `padding` $padding"
"""`WindowOp`'s properties in an op's custom form."""


class MaxPoolWindowOp(WindowOp):
    """A max pool's window: its `dilation` (1) and `ceil_mode` (false) as well."""

    RANK_DEFAULTS: ClassVar[dict[str, int]] = {"dilation": 1}
    dilation = sizes_property()
    ceil_mode = bool_property(default=False)


MAX_POOL_WINDOW = f"{WINDOW} (`dilation` $dilation^)? (`ceil_mode` $ceil_mode^)?"


class AvgPoolWindowOp(WindowOp):
    """An average pool's window and divisor.

    `count_include_pad` (the default) divides by the window's cells inside the padded input,
    otherwise by those inside the input; a non-zero `divisor_override` divides by itself.
    Its default 0 stands for PyTorch's `None`: PyTorch rejects a zero divisor, so no pool
    means 0, and the generic form can carry the property always.
    """

    ceil_mode = bool_property(default=False)
    count_include_pad = bool_property(default=True)
    divisor_override = int_property(default=0)


AVG_POOL_WINDOW = (
    f"{WINDOW} (`ceil_mode` $ceil_mode^)? (`count_include_pad` $count_include_pad^)?"
    " (`divisor_override` $divisor_override^)?"
)


class ConvWindowOp(SpatialOp):
    """A convolution's window over its weight: `stride`, `padding`, `dilation` (1) and `groups` (1).

    The kernel is the weight's spatial size.
    """

    RANK_DEFAULTS: ClassVar[dict[str, int]] = {"dilation": 1}
    stride = sizes_property()
    padding = sizes_property()
    dilation = sizes_property()
    groups_ = int_property(default=1, prop_name="groups")


CONV_WINDOW = "`stride` $stride `padding` $padding (`dilation` $dilation^)? (`groups` $groups^)?"


class ConvGradientWindowOp(ConvWindowOp):
    """A conv gradient's window: the forward conv's, with the `kernel_size` the gradient cannot see.

    One of the gradient's operands is not the weight, so the kernel is stated.
    """

    kernel_size = sizes_property()


CONV_GRADIENT_WINDOW = f"`kernel_size` $kernel_size {CONV_WINDOW}"

