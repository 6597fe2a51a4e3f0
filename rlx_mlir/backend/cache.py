"""Content-addressed on-disk cache of compiled shared libraries.

An entry is two files in the cache directory:

- ``<key>.json``: metadata (the library's file name and SHA-256, function signatures);
- ``<key>.<sha256[:16]>.so``: the library, named after its own content, so a file that
  passed verification is never replaced underneath a process that is about to load it.

A *record* (``<key>.record``, :func:`store_record` / :func:`load_record`) is a small
JSON document published the same way, with no library of its own: the compile memo of
:mod:`rlx_mlir.compile_memo` keeps there which libraries a source compiled to.

The key hashes everything that determines the machine code: the input IR, the pipeline's
flags, the tool versions, the runtime library location (it is baked in as an rpath) and
the host CPU (code is generated with ``-mcpu=native``).

Writers build in a private temporary directory inside the cache directory and publish with
``os.replace`` (library first, metadata last), so concurrent processes never see a
half-written file: a reader either finds complete metadata pointing at a complete library
or no entry. A library whose checksum does not match its metadata (truncated, corrupted)
counts as a miss and is rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rlx_mlir.backend.machine import llvm_host_cpu

CACHE_DIR_ENV = "RLX_MLIR_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$RLX_MLIR_CACHE_DIR``, else ``$XDG_CACHE_HOME/rlx-mlir``, else ``~/.cache/rlx-mlir``."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "rlx-mlir"


def cache_dir() -> Path:
    """The usable cache directory, created with mode 0o700.

    If the configured directory cannot be created or written, warn and use a private
    temporary directory for the rest of the process: compiling must not fail just because
    caching is impossible.
    """
    wanted = default_cache_dir()
    try:
        wanted.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=wanted, prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
        return wanted
    except OSError as err:
        return _fallback_dir(str(wanted), str(err))


@functools.cache
def _fallback_dir(wanted: str, reason: str) -> Path:
    fallback = Path(tempfile.mkdtemp(prefix="rlx-mlir-cache-"))
    warnings.warn(
        f"rlx-mlir: cache directory {wanted} is not writable ({reason}); using {fallback}"
        f" for this process. Set {CACHE_DIR_ENV} to a writable directory to keep"
        " compiled libraries between runs.",
        stacklevel=3,
    )
    return fallback


@functools.cache
def host_identity() -> str:
    """What makes ``-mcpu=native`` code specific to this machine.

    LLVM's view of the host CPU (from ``llc --version``) plus the CPU model and feature
    flags from ``/proc/cpuinfo`` when available.
    """
    host = llvm_host_cpu()
    host_cpu = [f"Host CPU: {host}"] if host else []
    cpuinfo: list[str] = []
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("model name", "flags")) and line not in cpuinfo:
                    cpuinfo.append(line.strip())
    except OSError:
        pass
    return "\n".join([platform.machine(), *host_cpu, *cpuinfo])


def make_key(*parts: str) -> str:
    """SHA-256 over ``parts``, unambiguous about where one part ends."""
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def lookup(directory: Path, key: str) -> tuple[Path, dict[str, Any]] | None:
    """The verified library and metadata stored under ``key``, or None."""
    try:
        metadata = json.loads((directory / f"{key}.json").read_text())
        library = directory / metadata["library"]
        if _sha256(library) != metadata["sha256"]:
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return library, metadata


def publish(
    directory: Path,
    key: str,
    build: Callable[[Path], Path],
    metadata: dict[str, Any],
) -> Path:
    """Run ``build(workdir) -> library`` and atomically store the result under ``key``."""
    with tempfile.TemporaryDirectory(dir=directory, prefix=".build-") as tmp:
        workdir = Path(tmp)
        built = build(workdir)
        digest = _sha256(built)
        library = directory / f"{key}.{digest[:16]}.so"
        os.replace(built, library)
        meta_tmp = workdir / "metadata.json"
        meta_tmp.write_text(json.dumps({**metadata, "library": library.name, "sha256": digest}))
        os.replace(meta_tmp, directory / f"{key}.json")
    return library


def load_record(directory: Path, key: str) -> dict[str, Any] | None:
    """The record stored under ``key`` (:func:`store_record`), or None."""
    try:
        record = json.loads((directory / f"{key}.record").read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def store_record(directory: Path, key: str, record: dict[str, Any]) -> None:
    """Atomically store ``record`` under ``key``: a reader sees the old record, the new one
    or none, never part of one."""
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".record-")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(record, f)
        os.replace(tmp, directory / f"{key}.record")
    except BaseException:
        os.unlink(tmp)
        raise
