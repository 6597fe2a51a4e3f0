"""The pooling family as linalg: `rlx.{max,avg}_pool*`, `rlx.adaptive_{max,avg}_pool*` and their gradients.

Forward: `forward` (max and avg pools), `adaptive` (adaptive pools). The gradients are in
gather form: every input cell sums over the windows that contain it.

    dx[n, c, *i] = sum_{o : i in window(o)} dy[n, c, *o] * share(o, i)

One pattern per formulation; each declines where it does not apply, and
`populate_backward` lists them in priority order, the general form of each op last:
- `max_backward`: the max-pool patterns, by tie rule (`first`: PyTorch's first
  maximum; `all`: RLX's every tied maximum), 2-D fast paths first, then the rank-generic
  form of every 2-D and 3-D window;
- `avg_backward`: the avg-pool patterns;
- `adaptive_backward`: the adaptive-pool patterns, the pool form where the sizes divide,
  else the gather over each cell's windows.
They share the gather forms (`gather`), the framed operands (`frame`) and the
window geometry (`rlx_mlir.geometry.PoolAxis`).

The work is linear in the data size and the IR has one size for any tensor size; the
batch may be dynamic. Sums and scans start at their first step (their inits are shape
only), so no zero- or -1-filled tensor is written first. The decomposed IR carries no
schedule hint: the backend's pool schedule recognises each generic by its structure
(`backend/schedules/pool.mlir`).
"""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.options import LoweringOptions
from rlx_mlir.transforms.pool.adaptive import AdaptiveAvgPoolToLinalg, AdaptiveMaxPoolToLinalg, AdaptivePoolEvenSplit
from rlx_mlir.transforms.pool.adaptive_backward import (
    AdaptiveAvgPoolBackwardAsPool,
    AdaptiveAvgPoolBackwardGather,
    AdaptiveMaxPoolBackwardAsPool,
    AdaptiveMaxPoolBackwardGather,
)
from rlx_mlir.transforms.pool.avg_backward import AvgPool2dBackwardTiled, AvgPool2dBackwardWindows, AvgPoolBackwardGather
from rlx_mlir.transforms.pool.forward import AvgPoolToLinalg, MaxPoolToLinalg
from rlx_mlir.transforms.pool.max_backward import (
    MaxPool2dBackwardAllTiesTiled,
    MaxPool2dBackwardFirstMaxInterleaved,
    MaxPool2dBackwardFirstMaxPhases,
    MaxPool2dBackwardFirstMaxTiled,
    MaxPoolBackwardAllTiesWindows,
    MaxPoolBackwardFirstMaxWindows,
)


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The max and avg pools, then the adaptive ones: the even split first, which turns an
    adaptive pool into a pool that the pass lowers by its fast path."""
    patterns += [
        MaxPoolToLinalg(),
        AvgPoolToLinalg(),
        AdaptivePoolEvenSplit(),
        AdaptiveMaxPoolToLinalg(),
        AdaptiveAvgPoolToLinalg(),
    ]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The rewrites of `rlx.max_pool{2,3}d_backward` (by `options.pool_ties`), of
    `rlx.avg_pool{2,3}d_backward` and of the adaptive pools' gradients, in priority
    order: the first pattern that applies to an op rewrites it."""
    if options.pool_ties == "first":
        patterns += [
            MaxPool2dBackwardFirstMaxTiled(),
            MaxPool2dBackwardFirstMaxInterleaved(),
            MaxPool2dBackwardFirstMaxPhases(),
            MaxPoolBackwardFirstMaxWindows(),
        ]
    else:
        patterns += [MaxPool2dBackwardAllTiesTiled(), MaxPoolBackwardAllTiesWindows()]
    patterns += [
        AvgPool2dBackwardTiled(),
        AvgPool2dBackwardWindows(),
        AvgPoolBackwardGather(),
        AdaptiveAvgPoolBackwardAsPool(),
        AdaptiveAvgPoolBackwardGather(),
        AdaptiveMaxPoolBackwardAsPool(options.pool_ties),
        AdaptiveMaxPoolBackwardGather(),
    ]
