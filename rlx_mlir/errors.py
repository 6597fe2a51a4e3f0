"""The two kinds of failure the tools tell apart: the user's input, or a bug of ours.

A *user error* is something the user can fix: malformed or invalid IR (located
:class:`rlx_mlir.ir.DiagnosticError`), a bad pass option, a missing file, arguments that do
not match a function's signature, a toolchain that is missing. The tools print it as one
diagnostic and exit 1.

Anything else that escapes (a ``TypeError`` in a pattern, an ``AssertionError``, a pass
producing IR that does not verify) is an *internal error*: the tools print
``TOOL: internal error: ...`` and exit :data:`EXIT_INTERNAL_ERROR`, and
``RLX_MLIR_DEBUG=1`` shows the traceback.

Code that raises a user error raises a :class:`UserError` subclass. The ``ValueError`` and
``TypeError`` flavours keep ``except ValueError`` callers of the Python API working.
"""

from __future__ import annotations

EXIT_USER_ERROR = 1
# sysexits.h EX_SOFTWARE, "an internal software error has been detected".
EXIT_INTERNAL_ERROR = 70


class UserError(Exception):
    """Input the user can fix; reported as `TOOL: error: MESSAGE`, exit 1."""


class UserValueError(UserError, ValueError):
    """A user error that is a ``ValueError`` for Python callers."""


class UserTypeError(UserError, TypeError):
    """A user error that is a ``TypeError`` for Python callers."""


class InternalError(Exception):
    """A check of ours that failed: a bug to report, not something the input did."""


class LocatedUserError(UserValueError):
    """A user error about a place in the input: printed as mlir-opt prints one.

    `file:line:col: error: message` (the tools print it without their name in front, as
    they print :class:`rlx_mlir.ir.DiagnosticError`).
    """

    def __init__(self, message: str, location: str | None):
        super().__init__(message, location)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"{self.location}: error: {self.message}" if self.location else self.message
