"""The lowering of the norm ops (being written)."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern


def patterns() -> list[RewritePattern]:
    return []
