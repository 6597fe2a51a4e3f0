"""`rlx-import-torch MODULE:CALLABLE --input 2x3x224x224 [--target int:1000] -o step.mlir`.

Writes the RLX training step (forward, PyTorch's backward, cross-entropy loss) of the model
that `CALLABLE()` returns, in training mode, for a random input of the given shape and
class targets in [0, 1000). The batch is dynamic (`?`) where the graph allows it, as
`export_training_step`'s default; `--static-batch` keeps the input's. `--dtype f64`
exports the model in double precision. On bad input (an ATen op RLX lacks, a module that
cannot be imported) it prints one line and exits 1, and writes no file.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys

from rlx_mlir.errors import UserValueError
from rlx_mlir.tools.cli import parse_arguments, run_tool, write_output

TOOL = "rlx-import-torch"


def parse_shape(text: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\d+(x\d+)*", text):
        raise argparse.ArgumentTypeError(f"expected a shape such as 2x3x224x224, got '{text}'")
    return tuple(int(size) for size in text.split("x"))


def parse_target(text: str) -> int:
    match = re.fullmatch(r"int:(\d+)", text)
    if not match or int(match[1]) < 1:
        raise argparse.ArgumentTypeError(f"expected int:CLASSES (class indices below CLASSES), got '{text}'")
    return int(match[1])


def load_callable(spec: str):
    """`package.module:function` -> the function (the current directory is importable)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise UserValueError(f"expected MODULE:CALLABLE, got '{spec}'")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise UserValueError(f"cannot import module '{module_name}': {error}") from None
    target = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise UserValueError(f"module '{module_name}' has no attribute '{attribute}'")
        target = getattr(target, part)
    if not callable(target):
        raise UserValueError(f"'{spec}' is not callable")
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.splitlines()[0].strip("`"))
    parser.add_argument("model", metavar="MODULE:CALLABLE", help="a callable that returns the torch.nn.Module")
    parser.add_argument("--input", type=parse_shape, required=True, help="the input's shape, e.g. 2x3x224x224")
    parser.add_argument("--target", type=parse_target, default=1000, metavar="int:CLASSES",
                        help="class-index targets below CLASSES (default: int:1000)")
    parser.add_argument("--dtype", choices=("f32", "f64"), default="f32", help="the model's precision (default f32)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the example input and targets")
    parser.add_argument("--static-batch", action="store_true",
                        help="export the input's batch size, not a dynamic batch (`?`)")
    parser.add_argument("-o", "--output", help="output path ('-' or omitted: stdout)")
    args = parse_arguments(parser, argv)
    if isinstance(args, int):
        return args

    def body() -> int:
        import torch  # torch is optional: only this tool needs it, so it is imported when run

        from rlx_mlir.torch.step import DYNAMIC_BATCH, export_training_step  # imports torch, as above

        factory = load_callable(args.model)
        model = factory()
        if not isinstance(model, torch.nn.Module):
            raise UserValueError(f"'{args.model}' returned {type(model).__name__}, not a torch.nn.Module")
        dtype = torch.float64 if args.dtype == "f64" else torch.float32
        model = model.to(dtype).train()
        generator = torch.Generator().manual_seed(args.seed)
        x = torch.randn(args.input, generator=generator, dtype=dtype)
        target = torch.randint(0, args.target, (args.input[0],), generator=generator)
        step = export_training_step(model, (x, target), loss_fn=torch.nn.functional.cross_entropy,
                                    dynamic_shapes=None if args.static_batch else DYNAMIC_BATCH)
        write_output(args.output, step.mlir)
        return 0

    return run_tool(TOOL, body)


if __name__ == "__main__":
    sys.exit(main())
