"""Transform-dialect schedules used by the lowering pipelines, as package data.

``main.mlir`` is the entry point; ``common.mlir`` holds the steps several op kinds share;
``params.mlir`` the machine parameters; each other file is the library of one op kind (see
``pipelines.SCHEDULE_LIBRARIES``). The compile cache keys on each file's contents, so an
edit rebuilds.

The machine parameters are set in :mod:`rlx_mlir.backend.machine` and nowhere else: the
libraries read them from ``params.mlir`` (named sequences returning
``!transform.param<i64>``), which is ``params.mlir.in`` rendered by :func:`render_params`.
The checked-in ``params.mlir`` is the rendering of :data:`machine.PARAMS
<rlx_mlir.backend.machine.PARAMS>` (a test checks it); ``python -m
rlx_mlir.backend.schedules --render`` rewrites it.

The pipelines preload the rendering for the machine they compile for, written by
:func:`params_library` to a file named by its contents.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from string import Template

from rlx_mlir.backend.machine import PARAMS, SHORT_LANES, MachineParams, conv_weight_rows

SCHEDULES_DIR = Path(__file__).resolve().parent
PARAMS_FILE = SCHEDULES_DIR / "params.mlir"
PARAMS_TEMPLATE = SCHEDULES_DIR / "params.mlir.in"
"""``params.mlir`` with ``${name}`` placeholders (:class:`string.Template`) for the values."""

def render_params(params: MachineParams = PARAMS) -> str:
    """The text of ``params.mlir`` for ``params``."""
    return Template(PARAMS_TEMPLATE.read_text()).substitute(
        threads=params.threads,
        lanes=params.f32_lanes,
        lanes_x2=2 * params.f32_lanes,
        short=min(params.f32_lanes, SHORT_LANES),
        full_width_fma=int(params.full_width_fma),
        lanes_and_a_half=params.f32_lanes + params.f32_lanes // 2,
        weight_rows=conv_weight_rows(params),
    )


def params_library(params: MachineParams) -> Path:
    """A file holding :func:`render_params` of ``params``, for the schedules to preload.

    The checked-in ``params.mlir`` when ``params`` renders to it; otherwise a file named
    by its contents' digest in a private temporary directory, written atomically (several
    processes may compile at once).
    """
    text = render_params(params)
    if PARAMS_FILE.read_text() == text:
        return PARAMS_FILE
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    directory = Path(tempfile.gettempdir()) / f"rlx-mlir-schedule-params-{os.getuid()}"
    directory.mkdir(mode=0o700, exist_ok=True)
    path = directory / f"params-{digest}.mlir"
    if not (path.is_file() and path.read_text() == text):
        fd, partial = tempfile.mkstemp(dir=directory, prefix=".params-")
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(partial, path)
    return path
