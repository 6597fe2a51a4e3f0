"""Canonicalization of RLX ops: the folds xDSL's `canonicalize` pass applies to them.

As in xDSL's `arith` dialect, each op class carries a `HasCanonicalizationPatternsTrait`
that names its patterns, and `canonicalize` (`rlx-opt -p canonicalize`) applies them:

- `rlx.reshape`: reshape(reshape(x)) = reshape(x), and a reshape to x's own type is x;
- `rlx.permute`: permute(permute(x, p), q) = permute(x, [p[d] for d in q]), and the
  identity permutation is x;
- `rlx.add`, `rlx.mul`, `rlx.maximum`, `rlx.minimum` (commutative): the operand defined
  last comes first, so that `a + b` and `b + a` are one op to common-subexpression
  elimination.

Each trait is attached to one op class, and xDSL hands a trait's patterns only the ops
that carry it, so a pattern reads its op's operands and builds its replacement through
the op's own class (`type(op)`). That keeps this module free of the op modules, which
import their traits from it.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import RlxOpBase


def _located(new: Operation, old: Operation) -> Operation:
    """`new`, at `old`'s location: a diagnostic about the folded op (at the next order of
    autodiff, say) still points at the source line it came from."""
    new.location = old.location
    return new


# -- reshape ---------------------------------------------------------------------------


class ComposeReshapes(RewritePattern):
    """reshape(reshape(x)) = reshape(x): a reshape reads its operand in row-major order,
    so the inner one changes nothing the outer one sees."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        assert isinstance(op, RlxOpBase)
        inner = op.operands[0].owner
        if type(inner) is not type(op):
            return
        composed = type(op).build_with([inner.operands[0]], op.results[0].type)
        if not _verifies(composed):
            return  # a dynamic batch split by 3 then merged by 2 has no one-reshape form (2B/3)
        rewriter.replace(op, _located(composed, op))


def _verifies(op: Operation) -> bool:
    try:
        op.verify()
    except VerifyException:
        return False
    return True


class ReshapeToItsOwnType(RewritePattern):
    """reshape(x) = x when the result has x's type."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        (x,) = op.operands
        if x.type == op.results[0].type:
            rewriter.replace(op, [], [x])


class ReshapeCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (ComposeReshapes(), ReshapeToItsOwnType())


# -- permute ---------------------------------------------------------------------------


class ComposePermutes(RewritePattern):
    """permute(permute(x, p), q) = permute(x, [p[d] for d in q]): result axis k of the
    outer permute is axis q[k] of the inner's result, which is axis p[q[k]] of x."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        assert isinstance(op, RlxOpBase)
        inner = op.operands[0].owner
        if type(inner) is not type(op):
            return
        inner_dims = inner.dims
        dims = [inner_dims[d] for d in op.dims]
        rewriter.replace(op, _located(type(op).build_with([inner.operands[0]], op.results[0].type, dims=dims), op))


class IdentityPermute(RewritePattern):
    """permute(x, [0, 1, ..., n-1]) = x."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        assert isinstance(op, RlxOpBase)
        dims = list(op.dims)
        if dims == list(range(len(dims))):
            rewriter.replace(op, [], [op.operands[0]])


class PermuteCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (ComposePermutes(), IdentityPermute())


# -- commutative binary ops ---------------------------------------------------------------


def _defining_block(value: SSAValue) -> Block | None:
    return value.block if isinstance(value, BlockArgument) else value.owner.parent_block()


def _defined_before(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` is defined strictly before `b` in the block that defines both (block
    arguments first, in order; then op results, in op order). False for values of two
    blocks, which have no order to agree on."""
    block = _defining_block(a)
    if block is None or _defining_block(b) is not block:
        return False
    if isinstance(a, BlockArgument) or isinstance(b, BlockArgument):
        return isinstance(a, BlockArgument) and (not isinstance(b, BlockArgument) or a.index < b.index)
    assert isinstance(a, OpResult) and isinstance(b, OpResult)
    if a.op is b.op:
        return a.index < b.index
    # Search outwards from a, so that the cost is the distance between the two ops (xDSL's
    # `Operation.is_before_in_block` walks forward to the block's end: quadratic on a VJP body).
    later, earlier = a.op.next_op, a.op.prev_op
    while later is not None or earlier is not None:
        if later is b.op:
            return True
        if earlier is b.op:
            return False
        later = later and later.next_op
        earlier = earlier and earlier.prev_op
    return False


class SortCommutativeOperands(RewritePattern):
    """op(a, b) = op(b, a) for a commutative op; the operand defined last goes first.

    Exact for `add`, `mul`, `maximum` and `minimum`: IEEE addition and multiplication
    commute, NaN propagates either way, and broadcasting does not depend on the order of
    the shapes. Last first, as MLIR puts constants on the right: arguments and early
    values go right, and a VJP rule's `cotangent * forward value` reads as it is written.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        lhs, rhs = op.operands
        if _defined_before(lhs, rhs):
            op.operands = [rhs, lhs]
            rewriter.notify_op_modified(op)


class CommutativeCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (SortCommutativeOperands(),)
