"""The tag by which the backend's pool schedule picks the loop structure of a pool generic.

`rlx_mlir/backend/schedules/pool.mlir` matches `linalg.generic` ops by the discardable
attribute `pool_schedule`:
- "rows": an all-parallel tiled gather, vectorized along its (ow, kw) rows;
- "lanes": an all-parallel generic with unit-stride reads, vectorized along the last loop;
- "interleaved": the interleaved phase gather, vectorized along j with its (b, j) pairs
  written interleaved;
- "loops": scalar loops (window scans, clamped reads).

Every pool-gradient builder tags through `scheduled`, the one place that writes the tag.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import SSAValue

SCHEDULE_ATTR = "pool_schedule"


def scheduled(result: SSAValue, how: str) -> SSAValue:
    """`result` after tagging its generic with how the backend should schedule it."""
    result.owner.attributes[SCHEDULE_ATTR] = StringAttr(how)
    return result
