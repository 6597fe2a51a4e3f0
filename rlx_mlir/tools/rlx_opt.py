"""`rlx-opt`: xDSL's opt tool with the RLX dialect and passes, behaving like mlir-opt.

What it adds to `xdsl-opt`:
- mlir-opt-style pass flags: `--decompose-backward`, `--convert-rlx-to-linalg=opt=value`,
  mixed freely with `-p pipeline`; passes run in command-line order.
- mlir-opt-style diagnostics: `file:line:col: error: 'op' op message`, exit code 1, no
  Python traceback. A bug of ours (an exception in a pattern, a pass whose output does not
  verify) is `rlx-opt: internal error: ...`, exit code 70; `RLX_MLIR_DEBUG=1` shows its
  traceback (see rlx_mlir.tools.cli).
- `-o FILE` is written atomically: on any error the file is left as it was.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from importlib.metadata import version
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe
from xdsl.utils.arg_spec import ArgSpecParseError
from xdsl.utils.exceptions import ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

import rlx_mlir
from rlx_mlir.backend.toolchain import ToolchainError, describe
from rlx_mlir.compat import MATH
from rlx_mlir.errors import UserValueError
from rlx_mlir.ir import DiagnosticError, LocatingParser, parse_error_diagnostic, verify_module, verify_pass_output
from rlx_mlir.tools.cli import run_tool, write_output
from rlx_mlir.universe import RLX_UNIVERSE

TOOL = "rlx-opt"


def _rlx_pass_names() -> list[str]:
    return list(RLX_UNIVERSE.all_passes)


def pass_flags_to_pipeline(argv: Sequence[str], pass_names: Sequence[str]) -> list[str]:
    """Fold `--PASS[=OPTIONS]` flags and `-p/--passes` values into one `-p` pipeline.

    mlir-opt writes options as `--pass=opt=value` or `--pass="a=1 b=2"`; xDSL's pipeline
    syntax is `pass{a=1 b=2}`. The order on the command line is the order the passes run.
    """
    rest: list[str] = []
    pipeline: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg in ("-p", "--passes"):
            value = next(args, None)
            if value is None:
                rest.append(arg)  # let argparse report the missing value
            elif value:
                pipeline.append(value)
            continue
        if arg.startswith("--passes=") or (arg.startswith("-p") and len(arg) > 2 and not arg.startswith("--")):
            value = arg.split("=", 1)[1] if arg.startswith("--passes=") else arg[2:]
            if value:
                pipeline.append(value)
            continue
        if arg.startswith("--"):
            name, _, options = arg[2:].partition("=")
            if name in pass_names:
                options = options.strip().strip('"').strip("'")
                pipeline.append(f"{name}{{{options}}}" if options else name)
                continue
        rest.append(arg)
    if pipeline:
        rest += ["-p", ",".join(pipeline)]
    return rest


@functools.cache
def _multiverse() -> Universe:
    """xDSL's dialects, passes, targets and frontends from every installed plugin."""
    return Universe.get_multiverse()


class RlxOptMain(xDSLOptMain):
    version_format = f"rlx-opt {rlx_mlir.__version__} (xDSL {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        argv = list(sys.argv[1:] if args is None else args)
        self._pass_flag_names = _rlx_pass_names()
        super().__init__(description="rlx-mlir modular optimizer driver", args=pass_flags_to_pipeline(argv, self._pass_flag_names))

    # -- registration: RLX's own entries, whether or not the plugin entry point is installed.
    # xDSL scans the installed entry points once per registry (four scans per run, ~25 ms
    # each); one scan per process is enough, which matters to callers of `main` in a loop.

    def register_all_dialects(self):
        for name, factory in _multiverse().all_dialects.items():
            # xDSL's math dialect lacks math.erfc, which user input may hold (compat.MATH).
            self.ctx.register_dialect(name, (lambda: MATH) if name == MATH.name else factory)
        for name, factory in RLX_UNIVERSE.all_dialects.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self):
        for name, factory in _multiverse().all_frontends.items():
            self.available_frontends.setdefault(name, factory)

    def register_all_passes(self):
        for name, factory in _multiverse().all_passes.items():
            self.register_pass(name, factory)
        for name, factory in RLX_UNIVERSE.all_passes.items():
            self.available_passes.setdefault(name, factory)

    def register_all_targets(self):
        for name, factory in _multiverse().all_targets.items():
            self.available_targets.setdefault(name, factory)

    def register_all_arguments(self, arg_parser):
        super().register_all_arguments(arg_parser)
        arg_parser.epilog = "RLX pass flags (mlir-opt style): " + ", ".join(
            f"--{name}[=OPTIONS]" for name in _rlx_pass_names()
        )

    # -- pipeline: verify after every pass with located diagnostics

    def setup_pipeline(self):
        def verify_after(previous: ModulePass | None, module: ModuleOp, _next: ModulePass | None) -> None:
            if previous is None or self.args.disable_verify:
                return
            # The input verified before the pass: invalid output is the pass's bug.
            verify_pass_output(module, previous.name)

        # Unknown passes and bad options are the user's: xDSL and our option checks raise
        # ValueError/TypeError (and ArgSpecParseError, a BaseException) for them. Nothing
        # of ours runs yet, so nothing else can be hiding behind these types here.
        try:
            self.pipeline = PassPipeline.parse_spec(self.available_passes, self.args.passes, verify_after)
        except (ValueError, TypeError, ArgSpecParseError) as error:
            raise UserValueError(str(error)) from None

    def prepare_input(self):
        try:
            return super().prepare_input()
        except ValueError as error:  # an unknown file extension
            raise UserValueError(str(error)) from None

    def get_input_name(self):
        return self.args.input_file or "<stdin>"

    # -- parsing with source locations

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        if (self.args.frontend or file_extension) != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        try:
            text = chunk.read().decode("utf-8")
        except UnicodeDecodeError as error:
            raise DiagnosticError(f"input is not UTF-8 text ({error.reason} at byte {error.start})", self.get_input_name()) from None
        try:  # the parser lexes its first token when it is made: that can fail too
            parser = LocatingParser(self.ctx, text, self.get_input_name(), start_offset)
            module = parser.parse_module(not self.args.no_implicit_module)
        except ParseError as error:
            raise parse_error_diagnostic(error, start_offset) from None
        if not self.args.disable_verify:
            verify_module(module)
        return module

    # -- running: collect everything, write once

    def run(self):
        target = self.args.target.split("{", 1)[0]
        if target not in self.available_targets:
            raise UserValueError(f"Unknown target '{target}'. Available targets: {list(self.available_targets)}")
        chunks, file_extension = self.prepare_input()
        pieces: list[str] = []
        for chunk, offset in chunks:
            try:
                module = self.parse_chunk(chunk, file_extension, offset)
                if module is not None:
                    self.apply_passes(module)
                    pieces.append(self.output_resulting_program(module))
            except DiagnosticError as error:
                if not (self.args.verify_diagnostics or self.args.parsing_diagnostics):
                    raise
                pieces.append(f"{error}\n")
            finally:
                chunk.close()
        write_output(self.args.output_file, "// -----\n".join(pieces))


def _version_text() -> str:
    try:
        toolchain = describe()
    except ToolchainError as error:
        toolchain = f"not found ({error})"
    return f"rlx-opt {rlx_mlir.__version__}\nxDSL {version('xdsl')}\nMLIR toolchain: {toolchain}"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--version" in args or "-v" in args:
        print(_version_text())
        return 0

    def body() -> int:
        try:
            RlxOptMain(args).run()
        except ArgSpecParseError as error:  # a BaseException in xDSL: bad pipeline text
            raise UserValueError(str(error)) from None
        except SystemExit as exit_:
            # argparse has printed its usage error (unknown flag); mlir-opt exits 1 there too
            return 0 if exit_.code in (0, None) else 1
        return 0

    return run_tool(TOOL, body)


if __name__ == "__main__":
    sys.exit(main())
