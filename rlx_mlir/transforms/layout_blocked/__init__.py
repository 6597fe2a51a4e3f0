"""Channel-blocked layouts (``N, C/B, H, W, B``), an opt-in experiment beside the default
NCHW lowering: the stride-1 conv and its gradients as kernels on blocked tensors
(:mod:`.kernels`), scheduled by ``backend/schedules/blocked-conv.mlir`` (:mod:`.compile`).
The measurements that decide whether the layout is rolled out are in docs/blocked-layouts.md.
"""

from rlx_mlir.transforms.layout_blocked.kernels import DIRECTIONS, BlockedConv

__all__ = ["DIRECTIONS", "BlockedConv"]
