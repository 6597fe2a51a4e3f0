"""The lowering of the layout_backward ops (being written)."""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern


def patterns() -> list[RewritePattern]:
    return []
