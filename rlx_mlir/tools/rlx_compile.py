"""`rlx-compile FILE.mlir --emit=STAGE -o OUT`: any stage of the lowering, for downstream tools.

Stages: `linalg` (upstream dialects only: for mlir-opt, IREE, FileCheck), `llvm-mlir`
(LLVM dialect, for mlir-translate), `llvm-ir` (for llc/opt), `obj` (for a linker),
`shared` (a shared library exporting `_mlir_ciface_*` entry points).
"""

from __future__ import annotations

import argparse
import sys

from rlx_mlir.backend import PIPELINES, STAGES, emit
from rlx_mlir.tools.cli import read_source, run_tool, write_output

TOOL = "rlx-compile"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.splitlines()[0])
    parser.add_argument("input", help="MLIR file with RLX or linalg-on-tensors IR ('-' for stdin)")
    parser.add_argument("--emit", choices=STAGES, default="shared", help="the stage to stop at (default: shared)")
    parser.add_argument("--pipeline", choices=sorted(PIPELINES), default=None, help="the lowering pipeline")
    parser.add_argument("-o", "--output", help="output path ('-' or omitted: stdout, text stages only)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 1

    def body() -> int:
        from rlx_mlir.api import lower_to_linalg

        text, name = read_source(args.input)
        module = lower_to_linalg(text, name)
        kwargs = {} if args.pipeline is None else {"pipeline": args.pipeline}
        output = emit(module, args.emit, **kwargs)
        if isinstance(output, bytes) and args.output in (None, "-"):
            raise ValueError(f"--emit={args.emit} is binary: give an output file with -o")
        write_output(args.output, output)
        return 0

    return run_tool(TOOL, body)


if __name__ == "__main__":
    sys.exit(main())
