"""Benchmarks of rlx-mlir's native code against PyTorch (not part of the test suite)."""
