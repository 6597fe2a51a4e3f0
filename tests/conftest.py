"""Shared fixtures: a private compile cache for the session and RLX -> native compilation."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _private_compile_cache(tmp_path_factory):
    """Every test session builds into its own cache unless RLX_MLIR_CACHE_DIR is set."""
    if "RLX_MLIR_CACHE_DIR" not in os.environ:
        os.environ["RLX_MLIR_CACHE_DIR"] = str(tmp_path_factory.mktemp("rlx-mlir-cache"))
    yield


@pytest.fixture(scope="session")
def compile_rlx():
    """`compile_rlx(mlir_text)["f"](*arrays)`: the public `rlx_mlir.compile` path."""
    import rlx_mlir

    return rlx_mlir.compile
