"""Grouped and depthwise convolution gradients in forms the backend schedules well.

Patterns here run before the general ones of `conv_backward_weight`/`conv_backward_input`
and decline (leave the op) where they do not apply, so an op they do not take is
decomposed by the general formulation.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern


def grouped_conv_backward_patterns(conv_weight: str, conv_input: str) -> list[RewritePattern]:
    """The grouped/depthwise patterns for the chosen formulations (none yet)."""
    return []
