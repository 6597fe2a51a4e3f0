"""What the rlx-mlir command-line tools share: reading input, reporting errors, exiting.

Every tool ends an error the same way: one diagnostic on stderr (`tool: error: ...` or
`file:line:col: error: ...`), exit code 1, no Python traceback unless `RLX_MLIR_DEBUG=1`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable

from rlx_mlir.backend.toolchain import ToolchainError
from rlx_mlir.ir import DiagnosticError


def parse_arguments(parser: argparse.ArgumentParser, argv) -> argparse.Namespace | int:
    """The parsed arguments, or the exit code when argparse has already answered.

    argparse exits 2 on a usage error; mlir-opt and our tools exit 1 on every error.
    """
    try:
        return parser.parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 1


def add_pipeline_option(parser: argparse.ArgumentParser) -> None:
    from rlx_mlir.backend import PIPELINES

    parser.add_argument(
        "--pipeline", choices=sorted(PIPELINES), default=None,
        help="the backend lowering pipeline (default: optimizing-omp, or optimizing without intel-openmp)",
    )


def read_source(path: str) -> tuple[str, str]:
    """The text of `path` ("-" for stdin) and the name diagnostics should use."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    with open(path, encoding="utf-8") as stream:
        return stream.read(), path


def run_tool(tool: str, body: Callable[[], int | None]) -> int:
    try:
        return body() or 0
    except DiagnosticError as error:
        print(error, file=sys.stderr)
    except ToolchainError as error:
        print(f"{tool}: error: {error}", file=sys.stderr)
    except (ValueError, TypeError) as error:
        print(f"{tool}: error: {error}", file=sys.stderr)
    except OSError as error:
        where = f" '{error.filename}'" if error.filename else ""
        print(f"{tool}: error: cannot access{where}: {error.strerror or error}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{tool}: interrupted", file=sys.stderr)
    except Exception as error:
        if os.environ.get("RLX_MLIR_DEBUG"):
            raise
        print(
            f"{tool}: internal error: {type(error).__name__}: {error}\n"
            "(set RLX_MLIR_DEBUG=1 for a traceback, and please report it)",
            file=sys.stderr,
        )
    return 1


def write_output(path: str | None, data: str | bytes) -> None:
    """Write to stdout, or replace `path` atomically so a reader never sees half a file.

    On any failure the temporary file is removed and `path` keeps its old content.
    """
    if path is None or path == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(prefix=".rlx-mlir-", suffix=".tmp", dir=directory)
    except OSError as error:  # name the user's path, not our temporary one
        raise OSError(error.errno, error.strerror, path) from None
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as stream:
            stream.write(data)
        if os.path.exists(path):
            os.chmod(temporary, os.stat(path).st_mode & 0o777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
