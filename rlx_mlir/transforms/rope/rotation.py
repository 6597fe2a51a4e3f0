"""`rlx.rope` and `rlx.rope_backward` as one all-parallel `linalg.generic` each.

The last axis D of x and of the tables is viewed as its pairs (`tensor.expand_shape`):
[..., 2, D/2] for `rotate_half` (element j pairs with j + D/2) and [..., D/2, 2] for
`interleaved` (2i with 2i + 1). In that view a loop k in {0, 1} says which member of its
pair an element is. Each point reads both members of its pair, v[0] and v[1] (maps with
the constant 0 or 1 at k: no modulo, no gather), and selects its own, v[k], and its
partner, v[p] with p = 1 - k. (A map k -> 1 - k reads the partner directly, but IREE's
tiling refuses a negative coefficient in an indexing map.) Both layouts then share one
body:

    rot(v)[k]  = k == 0 ? -v[p] : v[p]
    y[k]       = x[k] * cos[k] + rot(x)[k] * sin[k]             (rope)
    dx[k]      = dy[k] * cos[k] - rot(dy * sin)[k]               (rope_backward)
               = dy[k] * cos[k] + (k == 0 ? dy[p] * sin[p] : -(dy[p] * sin[p]))

and the result is collapsed back to [..., D]. The tables broadcast as PyTorch broadcasts
them: their dims align with x's trailing dims and a unit dim is read at 0. The products
are rounded as the reference's `x * cos + rotate_half(x) * sin` rounds them (negation is
exact). The IR does not grow with any size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import rope
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, element_type_of, shape_of


@dataclass(frozen=True)
class PairLoops:
    """The loops (*lead, a, b) over x viewed as pairs: (k, i) for rotate_half, (i, k) for interleaved."""

    rank: int
    """x's rank; the view and the loops have one more."""
    interleaved: bool

    @staticmethod
    def of(op: rope.RopeOp | rope.RopeBackwardOp) -> PairLoops:
        return PairLoops(len(shape_of(op.result)), op.layout == "interleaved")

    @property
    def pair_axis(self) -> int:
        """The loop k: which member of its pair an element is."""
        return self.rank if self.interleaved else self.rank - 1

    def view(self, b: TensorBuilder, value: SSAValue) -> SSAValue:
        """[..., D] as [..., 2, D/2] or [..., D/2, 2]."""
        shape = shape_of(value)
        last = len(shape) - 1
        half = shape[-1] // 2
        pairs = (half, 2) if self.interleaved else (2, half)
        groups = [[axis] for axis in range(last)] + [[last, last + 1]]
        return b.expand_shape(value, groups, (*shape[:-1], *pairs))

    def element(self, member: int | None = None) -> AffineMap:
        """x at each loop point, or at the given member (0 or 1) of its pair."""
        k = self.pair_axis
        return dims_map(self.rank + 1, lambda d: tuple(member if axis == k and member is not None else e for axis, e in enumerate(d)))

    def table(self, table: SSAValue, x: SSAValue, member: int | None = None) -> AffineMap:
        """A broadcast table (viewed as pairs): its dims align with the loops' trailing ones,
        a unit dim where x's is not unit read at 0."""
        table_shape, x_shape = shape_of(table), shape_of(x)
        skipped = len(x_shape) - len(table_shape)
        full = self.element(member)

        def results(d):
            picked = full.results[skipped:]
            return tuple(
                0 if axis < len(table_shape) - 1 and table_shape[axis] == 1 and x_shape[skipped + axis] != 1 else e
                for axis, e in enumerate(picked)
            )

        return dims_map(self.rank + 1, results)

    def rewrite(self, op, rewriter: PatternRewriter, rotated: SSAValue, body: Callable[..., SSAValue]) -> None:
        """Replace `op` by `body(r, first, v, v_partner, cos, sin, sin_partner)` over the pair
        view of `rotated`; `first` is k == 0."""
        b = TensorBuilder(rewriter, op)
        v = self.view(b, rotated)
        cos, sin = self.view(b, op.cos), self.view(b, op.sin)

        def pairwise(r: RegionBuilder, v0, v1, c, s0, s1, _out):
            first = self.first(r)
            own, partner = r.select(first, v0, v1), r.select(first, v1, v0)
            return body(r, first, own, partner, c, r.select(first, s0, s1), r.select(first, s1, s0))

        y = b.generic(
            ins=[v, v, cos, sin, sin],
            init=b.empty(shape_of(v), element_type_of(v), like=v),
            maps=[
                self.element(0), self.element(1), self.table(op.cos, rotated),
                self.table(op.sin, rotated, 0), self.table(op.sin, rotated, 1), self.element(),
            ],
            iterators="p" * (self.rank + 1),
            body=pairwise,
        )
        last = self.rank - 1
        rewriter.replace(op, [], [b.collapse_shape(y, [[axis] for axis in range(last)] + [[last, last + 1]])])

    def first(self, r: RegionBuilder) -> SSAValue:
        """k == 0: the member of its pair whose rotation takes the partner negated."""
        return r.cmpi("eq", r.loop_index(self.pair_axis), r.index(0))


def negated(r: RegionBuilder, value: SSAValue) -> SSAValue:
    return r.value(arith.NegfOp(value))


class RopeToLinalg(RewritePattern):
    """y[k] = x[k] * cos[k] + (k == 0 ? -x[p] : x[p]) * sin[k]"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rope.RopeOp, rewriter: PatternRewriter):
        def rotation(r: RegionBuilder, first, x, x_partner, c, s, _s_partner):
            rotated = r.select(first, negated(r, x_partner), x_partner)
            return r.add(r.mul(x, c), r.mul(rotated, s))

        PairLoops.of(op).rewrite(op, rewriter, op.input, rotation)


class RopeBackwardToLinalg(RewritePattern):
    """dx[k] = dy[k] * cos[k] + (k == 0 ? dy[p] * sin[p] : -(dy[p] * sin[p]))"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: rope.RopeBackwardOp, rewriter: PatternRewriter):
        def transposed(r: RegionBuilder, first, dy, dy_partner, c, _s, s_partner):
            term = r.mul(dy_partner, s_partner)
            return r.add(r.mul(dy, c), r.select(first, term, negated(r, term)))

        PairLoops.of(op).rewrite(op, rewriter, op.grad_output, transposed)
