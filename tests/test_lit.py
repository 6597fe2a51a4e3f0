"""Runs the lit + FileCheck suite, so the README's one test command covers it."""

import os
import subprocess
import sys
from pathlib import Path

LIT_DIR = Path(__file__).resolve().parent.parent / "lit_tests"


def test_lit_suite_passes(tmp_path):
    env = dict(os.environ)
    env.setdefault("RLX_MLIR_CACHE_DIR", str(tmp_path / "cache"))
    result = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-sv", str(LIT_DIR)],
        capture_output=True, text=True, env=env, timeout=1500,
    )
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
