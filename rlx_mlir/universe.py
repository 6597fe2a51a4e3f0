"""The xDSL plugin entry point: lets plain `xdsl-opt` see the RLX dialect and passes.

Registered under the `xdsl.universe` entry-point group in pyproject.toml. `rlx-opt` gets
the same registrations through xDSL's multiverse, so nothing is registered twice.

Each entry is a loader, and each loader imports inside its body: xDSL's `Universe` takes
callables so that `xdsl-opt` loads a plugin's dialect or pass only when a run names it,
and every xDSL tool start-up does not pay for importing our whole compiler.
"""

from xdsl.universe import Universe


def _rlx_dialect():
    from rlx_mlir.dialects.rlx import RLX

    return RLX


def _decompose_backward():
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    return DecomposeBackwardPass


def _convert_rlx_to_linalg():
    from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass

    return ConvertRlxToLinalgPass


def _autodiff():
    from rlx_mlir.autodiff import AutodiffPass

    return AutodiffPass


def _jvp():
    from rlx_mlir.autodiff.forward import JvpPass

    return JvpPass


def _outline_kernels():
    from rlx_mlir.transforms.outline_kernels import OutlineKernelsPass

    return OutlineKernelsPass


RLX_UNIVERSE = Universe(
    all_dialects={"rlx": _rlx_dialect},
    all_passes={
        "decompose-backward": _decompose_backward,
        "convert-rlx-to-linalg": _convert_rlx_to_linalg,
        "autodiff": _autodiff,
        "jvp": _jvp,
        "outline-kernels": _outline_kernels,
    },
)
