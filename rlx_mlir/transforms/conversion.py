"""How an RLX pass applies its patterns: a full conversion of the ops it owns, then tidy IR.

As MLIR's `applyFullConversion`: the ops a pass owns are illegal after it, and the pass
fails if one survives, instead of handing the next stage IR it cannot read. An owned op
can survive in two ways, and the error says which:
- the op is not valid (its verifier fails: input read with `--disable-verify`, or built
  in Python without verifying). The patterns assume verified ops (they would emit IR of
  the wrong shape), so every owned op is verified first and a failure is the user's
  error, located at the op: `file:line:col: error: failed to legalize operation
  'rlx.max_pool2d_backward': expected ...`.
- no pattern rewrote a valid op, or a pattern failed on it: every configuration the
  verifiers accept has a pattern, so this is our bug, an `InternalRewriteError` naming the
  op, its location and the pass (the tools report it as an internal error). Below its
  first line it lists why each pattern declined the op: a pattern that leaves an op to the
  next one for a reason says so with `decline(op, reason)`, as MLIR's
  `notifyMatchFailure`.

After the rewrite each block the pass wrote into holds one `arith.constant` per value,
at its top, and one `tensor.dim` per (tensor, axis): patterns emit their own constants
and sizes next to each op, which hand-written MLIR would not repeat. Only these two pure,
region-free ops are shared. Tensors (`tensor.empty`, fills) are never merged, since which
buffer each contraction writes is the schedules' and bufferization's business. A constant
in a `linalg.generic` body stays in that body (shared with its siblings there), so every
body reads as before.

Why not xDSL's `cse` (which `--autodiff` uses on RLX): measured on the lit inputs, it
would merge `tensor.empty` ops (558 -> 447) and the arithmetic inside generic bodies
(selects, index casts: the pool schedules recognise generics by their bodies), and it does
not hoist constants. Sharing only constants and dims is the part of it that is wanted here.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import FloatAttr
from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern

from rlx_mlir.ir import DiagnosticError, format_location, verify_op


class InternalRewriteError(RuntimeError):
    """A pass left, or failed on, a valid op it owns: a bug in rlx-mlir, not in the input."""


_declined: ContextVar[dict[Operation, dict[str, str]] | None] = ContextVar("declined", default=None)
"""While a full conversion runs: for each op a pattern declined, the reason by pattern."""

_pattern: ContextVar[str] = ContextVar("pattern", default="")
"""The name of the pattern being offered an op, for `decline`."""


def decline(op: Operation, reason: str) -> None:
    """Say why the calling pattern leaves `op` to the next pattern; it then returns.

    Written `return decline(op, "...")` where a pattern does not handle a configuration.
    Outside a full conversion it does nothing; inside one, the reason is kept with the op
    and listed if no pattern rewrites it.
    """
    reasons = _declined.get()
    if reasons is not None:
        reasons.setdefault(op, {})[_pattern.get()] = reason


def apply_full_conversion(
    module: Operation, patterns: Sequence[RewritePattern], owned: tuple[type[Operation], ...], pass_name: str
) -> None:
    """Rewrite every op of the `owned` types with `patterns` (in priority order), or raise.

    Raises DiagnosticError for an owned op that does not verify (nothing is rewritten
    then), InternalRewriteError for a valid one that a pattern failed on or none rewrote.
    """
    targets = [op for op in module.walk() if isinstance(op, owned)]
    for op in targets:
        try:
            verify_op(op)
        except DiagnosticError as error:
            reason = error.message.removeprefix(f"'{op.name}' op ")
            raise DiagnosticError(f"failed to legalize operation '{op.name}': {reason}", error.location) from None
    blocks = {op.parent_block() for op in targets} - {None}
    declined: dict[Operation, dict[str, str]] = {}
    applier = _Located(GreedyRewritePatternApplier([_Named(p) for p in patterns]), owned, pass_name)
    token = _declined.set(declined)
    try:
        PatternRewriteWalker(applier).rewrite_module(module)  # type: ignore[arg-type]
    finally:
        _declined.reset(token)
    for op in module.walk():
        if isinstance(op, owned):
            reasons = "".join(f"\n  {name} declined: {reason}" for name, reason in declined.get(op, {}).items())
            raise InternalRewriteError(
                f"{_where(op)}failed to legalize operation '{op.name}': {pass_name} has a pattern for "
                f"every valid configuration, but none rewrote this one{reasons}"
            )
    for block in blocks:
        share_constants(block)  # type: ignore[arg-type]


class _Named(RewritePattern):
    """A pattern of the pass, run with its name known to `decline`."""

    def __init__(self, pattern: RewritePattern):
        self.pattern = pattern

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        token = _pattern.set(type(self.pattern).__name__)
        try:
            self.pattern.match_and_rewrite(op, rewriter)
        finally:
            _pattern.reset(token)


class _Located(RewritePattern):
    """The pass's patterns, offered the owned ops only, with a failure reported at the op."""

    def __init__(self, inner: RewritePattern, owned: tuple[type[Operation], ...], pass_name: str):
        self.inner, self.owned, self.pass_name = inner, owned, pass_name

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, self.owned):
            return
        where, name = _where(op), op.name
        try:
            self.inner.match_and_rewrite(op, rewriter)
        except (DiagnosticError, InternalRewriteError):
            raise
        except Exception as error:
            raise InternalRewriteError(
                f"{where}{self.pass_name} failed on a valid '{name}': {type(error).__name__}: {error}"
            ) from error


def _where(op: Operation) -> str:
    location = format_location(op)
    return f"{location}: " if location else ""


# -- one constant per value --------------------------------------------------------------


def share_constants(block: Block, hoist: bool = True) -> None:
    """One `arith.constant` per (value, type) in `block`, and one `tensor.dim` per (tensor,
    axis): later duplicates are replaced by the first. With `hoist`, the constants move to
    the top of `block`, in the order they first appear; the blocks of regions nested in it
    are shared in place (a `linalg.generic` body keeps its constants)."""
    constants: dict[tuple, Operation] = {}
    dims: dict[tuple, Operation] = {}
    top = block.first_op  # hoisted constants go before it
    for op in list(block.ops):
        for region in op.regions:
            for inner in region.blocks:
                share_constants(inner, hoist=False)
        if isinstance(op, arith.ConstantOp):
            kept = constants.setdefault(_constant_key(op), op)
            if kept is not op:
                if op is top:  # it is erased: later constants go before the op after it
                    top = op.next_op
                _replace(op, kept)
            elif op is top:
                top = op.next_op
            elif hoist:
                op.detach()
                block.insert_op_before(op, top)  # type: ignore[arg-type]
        elif isinstance(op, tensor.DimOp):
            kept = dims.setdefault((op.source, op.index), op)
            if kept is not op:
                if op is top:
                    top = op.next_op
                _replace(op, kept)


def _constant_key(op: arith.ConstantOp) -> tuple:
    """Equal for the same value and type only: a float by its bits (0.0 and -0.0 differ)."""
    value = op.value
    if isinstance(value, FloatAttr):
        return (value.value.data.hex(), value.type)
    return (value, op.result.type)


def _replace(op: Operation, kept: Operation) -> None:
    op.results[0].replace_all_uses_with(kept.results[0])
    op.detach()
    op.erase()
