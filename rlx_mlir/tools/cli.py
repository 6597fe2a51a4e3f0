"""What the rlx-mlir command-line tools share: reading input, reporting errors, exiting.

Every tool ends the same way (docs/bad-input.md has the table):

- exit 0: success;
- exit 1 (:data:`~rlx_mlir.errors.EXIT_USER_ERROR`): the input or the command line is
  wrong. One diagnostic on stderr, `file:line:col: error: ...` when it has a place in
  the input, else `tool: error: ...`; no traceback. User errors are the located
  :class:`~rlx_mlir.ir.DiagnosticError`, :class:`~rlx_mlir.errors.UserError`, a
  :class:`~rlx_mlir.backend.toolchain.ToolchainError`, xDSL's `PassFailedException`
  and file errors (`OSError`);
- exit 70 (:data:`~rlx_mlir.errors.EXIT_INTERNAL_ERROR`, sysexits' EX_SOFTWARE): a bug
  of ours, any other exception. `tool: internal error: TYPE: message`, and a hint to rerun
  with `RLX_MLIR_DEBUG=1`, which prints the traceback first;
- a closed stdout (`rlx-opt ... | head`) ends the tool quietly as it ends mlir-opt and
  cat: killed by SIGPIPE (shell status 141), nothing on stderr.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable

from xdsl.utils.exceptions import PassFailedException

from rlx_mlir.api import lower_to_linalg
from rlx_mlir.backend import PIPELINES
from rlx_mlir.backend.toolchain import ToolchainError
from rlx_mlir.errors import EXIT_INTERNAL_ERROR, EXIT_USER_ERROR, InternalError, LocatedUserError, UserError
from rlx_mlir.ir import DiagnosticError, make_context, parse_module
from rlx_mlir.transforms.conversion import InternalRewriteError

DEBUG_ENV = "RLX_MLIR_DEBUG"
# What a shell reports for a process killed by SIGPIPE, as mlir-opt and cat are.
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE


def parse_arguments(parser: argparse.ArgumentParser, argv) -> argparse.Namespace | int:
    """The parsed arguments, or the exit code when argparse has already answered.

    argparse exits 2 on a usage error; mlir-opt and our tools exit 1 on every error.
    """
    try:
        return parser.parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 1


def add_pipeline_option(parser: argparse.ArgumentParser) -> None:
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


def lower_source(text: str, name: str):
    """Parse and verify `text` (errors: the user's), then lower it to linalg (errors: ours).

    The input has verified before the passes run, so a pass whose output does not verify
    is a bug of ours, reported as an internal error rather than as the user's diagnostic.
    """
    return lower_to_linalg(parse_module(make_context(), text, name))


def run_tool(tool: str, body: Callable[[], int | None]) -> int:
    """Run `body`; turn what it raises into one diagnostic and an exit code (module docstring)."""
    try:
        return body() or 0
    except DiagnosticError as error:
        print(error, file=sys.stderr)
    except LocatedUserError as error:
        print(error if error.location else f"{tool}: error: {error}", file=sys.stderr)
    except (UserError, ToolchainError, PassFailedException) as error:
        print(f"{tool}: error: {error}", file=sys.stderr)
    except BrokenPipeError:
        return broken_pipe()
    except OSError as error:
        where = f" '{error.filename}'" if error.filename else ""
        print(f"{tool}: error: cannot access{where}: {error.strerror or error}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{tool}: interrupted", file=sys.stderr)
    except Exception as error:
        return internal_error(tool, error)
    return EXIT_USER_ERROR


def internal_error(tool: str, error: BaseException) -> int:
    """Report a bug of ours: the traceback under RLX_MLIR_DEBUG=1, then one line and the hint."""
    debug = os.environ.get(DEBUG_ENV, "") not in ("", "0")
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    kind = "" if isinstance(error, InternalError) else f"{type(error).__name__}: "
    first, *details = str(error).splitlines() or [""]
    # A conversion that left an op lists why each pattern declined it: what a report needs.
    reasons = "".join(f"{line}\n" for line in details) if isinstance(error, InternalRewriteError) else ""
    hint = "the traceback is above" if debug else f"rerun with {DEBUG_ENV}=1 for the traceback"
    print(f"{tool}: internal error: {kind}{first}\n{reasons}({hint}, and please report it)", file=sys.stderr)
    return EXIT_INTERNAL_ERROR


def broken_pipe() -> int:
    """The reader of stdout went away: end quietly, as mlir-opt and cat do.

    Nothing more can be written, so stdout is pointed at /dev/null (Python would otherwise
    complain when it flushes at exit). When the closed stream is this process's own stdout
    the process ends by SIGPIPE, as theirs do; an in-process caller that redirected
    stdout gets the shell's status for it, 141.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
    if sys.stdout is sys.__stdout__ and hasattr(signal, "SIGPIPE"):
        sys.stderr.flush()
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
    return EXIT_BROKEN_PIPE


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
