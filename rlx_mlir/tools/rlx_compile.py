"""`rlx-compile FILE.mlir --emit=STAGE -o OUT`: any stage of the lowering, for downstream tools.

Stages: `linalg` (upstream dialects only: for mlir-opt, IREE, FileCheck), `llvm-mlir`
(LLVM dialect, for mlir-translate), `llvm-ir` (for llc/opt), `obj` (for a linker),
`shared` (a shared library exporting `_mlir_ciface_*` entry points).
"""

from __future__ import annotations

import argparse
import sys

from rlx_mlir.backend import STAGES, emit
from rlx_mlir.errors import UserValueError
from rlx_mlir.tools.cli import add_pipeline_option, lower_source, parse_arguments, read_source, run_tool, write_output

TOOL = "rlx-compile"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.splitlines()[0])
    parser.add_argument("input", help="MLIR file with RLX or linalg-on-tensors IR ('-' for stdin)")
    parser.add_argument("--emit", choices=STAGES, default="shared", help="the stage to stop at (default: shared)")
    add_pipeline_option(parser)
    parser.add_argument("-o", "--output", help="output path ('-' or omitted: stdout, text stages only)")
    args = parse_arguments(parser, argv)
    if isinstance(args, int):
        return args

    def body() -> int:
        text, name = read_source(args.input)
        module = lower_source(text, name)
        output = emit(module, args.emit, args.pipeline)
        if isinstance(output, bytes) and args.output in (None, "-"):
            raise UserValueError(f"--emit={args.emit} is binary: give an output file with -o")
        write_output(args.output, output)
        return 0

    return run_tool(TOOL, body)


if __name__ == "__main__":
    sys.exit(main())
