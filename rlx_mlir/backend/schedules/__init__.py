"""Transform-dialect schedules used by the lowering pipelines, as package data.

``main.mlir`` is the entry point; ``common.mlir`` holds the steps several op kinds share;
``params.mlir`` the machine parameters; each other file is the library of one op kind (see
``pipelines.SCHEDULE_LIBRARIES``). The compile cache keys on each file's contents, so an
edit rebuilds.

The machine parameters are set here, in :data:`PARAMS`, and nowhere else: the libraries
read them from ``params.mlir`` (named sequences returning ``!transform.param<i64>``),
which is their rendering by :func:`render_params`. The checked-in ``params.mlir`` is the
rendering of :data:`PARAMS` (a test checks it); ``python -m rlx_mlir.backend.schedules
--render`` rewrites it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

SCHEDULES_DIR = Path(__file__).resolve().parent
PARAMS_FILE = SCHEDULES_DIR / "params.mlir"


@dataclass(frozen=True)
class MachineParams:
    """What the schedules assume of the machine.

    ``threads``: how many ``scf.forall`` iterations a scheduled op's outer loop is split
    into (OpenMP runs one per thread with ``optimizing-omp``); 2, the cores of the
    machines these schedules were tuned on. ``f32_lanes``: f32 elements in one vector
    register, the width of the vectorized rows and register tiles; 8 (AVX2 ymm), which
    also runs on the AVX-512 machines measured.
    """

    threads: int = 2
    f32_lanes: int = 8


PARAMS = MachineParams()
"""The parameters the pipelines' schedules use."""


def render_params(params: MachineParams = PARAMS) -> str:
    """The text of ``params.mlir`` for ``params``."""
    return _PARAMS_TEMPLATE.format(
        threads=params.threads, lanes=params.f32_lanes, lanes_x2=2 * params.f32_lanes
    )


_PARAMS_TEMPLATE = """\
// Schedule library of the `optimizing` pipelines: the machine parameters, as named sequences
// returning !transform.param<i64> that the other libraries include. Generated from
// rlx_mlir/backend/schedules/__init__.py (PARAMS): edit the values there and run
// `python -m rlx_mlir.backend.schedules --render`.
module attributes {{transform.with_named_sequence}} {{

  // Iterations of a scheduled op's scf.forall: its threads.
  transform.named_sequence @num_threads() -> !transform.param<i64> {{
    %p = transform.param.constant {threads} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // f32 elements per vector register.
  transform.named_sequence @f32_lanes() -> !transform.param<i64> {{
    %p = transform.param.constant {lanes} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // Two vector registers of f32.
  transform.named_sequence @f32_lanes_x2() -> !transform.param<i64> {{
    %p = transform.param.constant {lanes_x2} : i64 -> !transform.param<i64>
    transform.yield %p : !transform.param<i64>
  }}

  // %op split along dimension 3 into chunks of whole vectors, then of halving widths
  // (56 = 7*{lanes}; 28 = 3*{lanes} + 4 for {lanes} lanes): each chunk with its tile width. The
  // target size of continuous_tile_sizes is an attribute, not a param, in MLIR 22.
  transform.named_sequence @split_dim3_in_vector_chunks(%op: !transform.any_op {{transform.consumed}})
      -> (!transform.any_op, !transform.param<i64>) {{
    %widths, %ends = transform.structured.continuous_tile_sizes %op {{ dimension = 3, target_size = {lanes} }}
        : (!transform.any_op) -> !transform.param<i64>
    %chunks = transform.structured.split %op after %ends {{ dimension = 3, multiway }}
        : !transform.any_op, !transform.param<i64>
    transform.yield %chunks, %widths : !transform.any_op, !transform.param<i64>
  }}
}}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rlx_mlir.backend.schedules",
        description="Render params.mlir from the machine parameters in PARAMS.",
    )
    parser.add_argument(
        "--render",
        metavar="DIR",
        nargs="?",
        const=str(SCHEDULES_DIR),
        help="write params.mlir into DIR (default: the package's own copy)",
    )
    args = parser.parse_args(argv)
    if args.render is None:
        print(render_params(), end="")
    else:
        (Path(args.render) / PARAMS_FILE.name).write_text(render_params())
    return 0
