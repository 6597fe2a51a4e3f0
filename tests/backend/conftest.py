"""Shared setup for backend tests: a private compile cache for the whole session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rlx_mlir.backend import toolchain
from rlx_mlir.backend.cache import CACHE_DIR_ENV


@pytest.fixture(scope="session", autouse=True)
def session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point the compile cache at a fresh directory so tests never touch ~/.cache."""
    directory = tmp_path_factory.mktemp("rlx-mlir-cache")
    previous = os.environ.get(CACHE_DIR_ENV)
    os.environ[CACHE_DIR_ENV] = str(directory)
    yield directory
    if previous is None:
        del os.environ[CACHE_DIR_ENV]
    else:
        os.environ[CACHE_DIR_ENV] = previous


@pytest.fixture
def fresh_discovery() -> Iterator[None]:
    """Re-run tool discovery inside the test and again afterwards (env changes)."""
    toolchain.reset_discovery()
    yield
    toolchain.reset_discovery()
