"""Pooling gradients in gather form: every input cell sums over the windows that contain it.

    dx[n, c, *i] = sum_{o : i in window(o)} dy[n, c, *o] * share(o, i)

One pattern per formulation; each declines where it does not apply, and
`pool_backward_patterns` lists them in priority order, the general form of each op last:
- `max_pool_backward`: the max-pool patterns, by tie rule (`first`: PyTorch's first
  maximum; `all`: RLX's every tied maximum), 2-D fast paths first, then the rank-generic
  form of every 2-D and 3-D window;
- `avg_pool_backward`: the avg-pool patterns.
They share the gather forms (`pool_gather`), the framed operands (`pool_frame`) and the
window geometry (`rlx_mlir.geometry.PoolAxis`).

The work is linear in the data size and the IR has one size for any tensor size; the
batch may be dynamic. Sums and scans start at their first step (their inits are shape
only), so no zero- or -1-filled tensor is written first. The decomposed IR carries no
schedule hint: the backend's pool schedule recognises each generic by its structure
(`backend/schedules/pool.mlir`).
"""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.avg_pool_backward import AvgPool2dBackwardTiled, AvgPool2dBackwardWindows
from rlx_mlir.transforms.max_pool_backward import (
    MaxPool2dBackwardAllTiesTiled,
    MaxPool2dBackwardFirstMaxInterleaved,
    MaxPool2dBackwardFirstMaxPhases,
    MaxPool2dBackwardFirstMaxTiled,
    MaxPoolBackwardAllTiesWindows,
    MaxPoolBackwardFirstMaxWindows,
)
from rlx_mlir.transforms.options import PoolTies


def pool_backward_patterns(pool_ties: PoolTies = "first") -> list[RewritePattern]:
    """The rewrites of `rlx.max_pool{2,3}d_backward` (by tie rule) and `rlx.avg_pool2d_backward`,
    in priority order: the first pattern that applies to an op rewrites it."""
    if pool_ties == "first":
        max_pool = [
            MaxPool2dBackwardFirstMaxTiled(),
            MaxPool2dBackwardFirstMaxInterleaved(),
            MaxPool2dBackwardFirstMaxPhases(),
            MaxPoolBackwardFirstMaxWindows(),
        ]
    else:
        max_pool = [MaxPool2dBackwardAllTiesTiled(), MaxPoolBackwardAllTiesWindows()]
    return [*max_pool, AvgPool2dBackwardTiled(), AvgPool2dBackwardWindows()]
