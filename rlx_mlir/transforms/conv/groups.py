"""The group loop of grouped convolutions, written once in each gradient formula.

Shared by the weight- and input-gradient patterns: both write their formulas with a group
loop `g` and group axes, which `ConvGroups` drops when `groups == 1` so that ungrouped IR is
the plain NCHW contraction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, affine_map, shape_of


def multiply_accumulate(r: RegionBuilder, a: SSAValue, b: SSAValue, acc: SSAValue) -> SSAValue:
    return r.add(acc, r.mul(a, b))


def copy_value(_r: RegionBuilder, value: SSAValue, _out: SSAValue) -> SSAValue:
    return value


@dataclass(frozen=True)
class ConvGroups:
    """The group loop `g`, written once in each formula and left out when `groups == 1`.

    Formulas are written with `g` as loop dimension 0 and with a group axis in the
    operands that `split` made. With one group, `split`/`merge` are no-ops, `maps` drops
    loop `g` and every map result that is exactly `g`, and `iterators` drops g's letter,
    so the ungrouped IR is the plain NCHW contraction.
    """

    count: int

    @property
    def grouped(self) -> bool:
        return self.count > 1

    def split(self, b: TensorBuilder, value: SSAValue, axis: int) -> SSAValue:
        """Channels `axis` -> (G, channels/G)."""
        if not self.grouped:
            return value
        shape = list(shape_of(value))
        shape[axis : axis + 1] = [self.count, shape[axis] // self.count]
        reassociation = [[i] for i in range(axis)] + [[axis, axis + 1]]
        reassociation += [[i + 1] for i in range(axis + 1, len(shape) - 1)]
        return b.expand_shape(value, reassociation, shape)

    def merge(self, b: TensorBuilder, value: SSAValue, axis: int) -> SSAValue:
        """(G, channels/G) at `axis` -> channels."""
        if not self.grouped:
            return value
        rank = len(shape_of(value))
        reassociation = [[i] for i in range(axis)] + [[axis, axis + 1]]
        reassociation += [[i] for i in range(axis + 2, rank)]
        return b.collapse_shape(value, reassociation)

    def shape(self, shape: Sequence[int], axis: int) -> list[int]:
        """A shape written with the group axis at `axis`, without it for one group."""
        return list(shape) if self.grouped else [s for i, s in enumerate(shape) if i != axis]

    def maps(self, *specs: Callable[..., tuple]) -> list[AffineMap]:
        maps = [affine_map(spec) for spec in specs]
        if self.grouped:
            return maps
        g = AffineDimExpr(0)
        kept = [m.drop_results([result == g for result in m.results]) for m in maps]
        return [m.drop_dims([dim == 0 for dim in range(m.num_dims)]) for m in kept]

    def iterators(self, letters: str) -> str:
        return letters if self.grouped else letters[1:]
