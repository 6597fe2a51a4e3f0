"""``python -m rlx_mlir.backend.schedules [--render [DIR]]``: print or write ``params.mlir``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rlx_mlir.backend.schedules import PARAMS_FILE, SCHEDULES_DIR, render_params


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


if __name__ == "__main__":
    sys.exit(main())
