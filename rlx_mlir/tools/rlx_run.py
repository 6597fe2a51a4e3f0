"""`rlx-run FILE.mlir -e FUNC`: compile, run one function on NumPy data, show the results.

Inputs come from `.npy` files (one per argument, in order), one `.npz` file (arrays in
argument order, or named arg0, arg1, ...), or seeded random data (`--seed`, with
`--batch` for a dynamic batch dimension). Results go to an `.npz` file (`-o`) and/or are
printed in a stable text form that FileCheck tests can match, like MLIR's integration
tests that print memrefs:

    result 0: tensor<2x3xf32>
    [[1, 2, 3],
     [4, 5, 6]]
"""

from __future__ import annotations

import argparse
import io
import sys

import numpy as np

from rlx_mlir.backend import compile_module
from rlx_mlir.errors import UserValueError
from rlx_mlir.tools.cli import add_pipeline_option, lower_source, parse_arguments, read_source, run_tool, write_output

TOOL = "rlx-run"


def format_result(index: int, array: np.ndarray, mlir_type: str) -> str:
    """A stable rendering: `%.6g` numbers, full arrays (no summarising), one header line.

    The header shows the actual shape, so a dynamic batch prints as the size it ran with.
    """
    element = mlir_type.rstrip(">").rsplit("x", 1)[-1]
    mlir_type = f"tensor<{'x'.join(str(d) for d in array.shape)}x{element}>"
    body = np.array2string(
        array, threshold=sys.maxsize, max_line_width=100, separator=", ",
        formatter={"float_kind": lambda v: f"{v:.6g}", "int_kind": str, "bool": lambda v: str(int(v))},
    )
    return f"result {index}: {mlir_type}\n{body}\n"


def load_inputs(paths: list[str], specs, seed: int, batch: int | None) -> list[np.ndarray]:
    """The arrays to call with; anything wrong with the files or sizes is the user's error."""
    try:
        return _load_inputs(paths, specs, seed, batch)
    except UserValueError:
        raise
    except (ValueError, TypeError, KeyError, EOFError) as error:  # np.load on a file that is no array, --batch -1
        raise UserValueError(f"cannot read the inputs: {error}") from None


def _load_inputs(paths: list[str], specs, seed: int, batch: int | None) -> list[np.ndarray]:
    if len(paths) == 1 and paths[0].endswith(".npz"):
        with np.load(paths[0]) as archive:
            names = list(archive.files)
            named = [f"arg{i}" for i in range(len(specs))]
            order = named if all(n in archive.files for n in named) else names
            return [archive[n] for n in order]
    if paths:
        return [np.load(path) for path in paths]
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in specs:
        if any(d is None for d in spec.shape) and batch is None:
            raise UserValueError("the function has a dynamic dimension: give its size with --batch")
        shape = tuple(batch if d is None else d for d in spec.shape)
        if np.issubdtype(spec.dtype, np.floating):
            arrays.append(rng.standard_normal(shape).astype(spec.dtype))
        else:
            arrays.append(rng.integers(-8, 8, size=shape).astype(spec.dtype))
    return arrays


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.splitlines()[0])
    parser.add_argument("input", help="MLIR file with RLX or linalg-on-tensors IR ('-' for stdin)")
    parser.add_argument("-e", "--entry", required=True, help="the function to run")
    parser.add_argument("--inputs", nargs="*", default=[], help=".npy files (one per argument) or one .npz")
    parser.add_argument("--seed", type=int, default=0, help="seed for random inputs (default 0)")
    parser.add_argument("--batch", type=int, help="size of a dynamic batch dimension for random inputs")
    parser.add_argument("-o", "--output", help="write the results to this .npz (result0, result1, ...)")
    parser.add_argument("--print", action="store_true", help="print the results (default when no -o)")
    add_pipeline_option(parser)
    args = parse_arguments(parser, argv)
    if isinstance(args, int):
        return args

    def body() -> int:
        text, name = read_source(args.input)
        native = compile_module(lower_source(text, name), args.pipeline)
        if args.entry not in native:
            raise UserValueError(f"no function '{args.entry}' in {name}; functions: {', '.join(native) or 'none'}")
        function = native[args.entry]
        signature = function.signature
        inputs = load_inputs(args.inputs, signature.inputs, args.seed, args.batch)
        results = function(*inputs)
        results = results if isinstance(results, tuple) else (() if results is None else (results,))
        if args.output:
            buffer = io.BytesIO()
            np.savez(buffer, **{f"result{i}": r for i, r in enumerate(results)})
            write_output(args.output, buffer.getvalue())
        if args.print or not args.output:
            for i, (array, spec) in enumerate(zip(results, signature.results)):
                sys.stdout.write(format_result(i, array, spec.mlir_type))
        return 0

    return run_tool(TOOL, body)


if __name__ == "__main__":
    sys.exit(main())
