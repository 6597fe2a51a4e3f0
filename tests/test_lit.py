"""Runs the lit + FileCheck suite, so the README's one test command covers it.

When lit fails, the assertion message starts with the failing tests by name (lit's own
`Failed Tests (N):`, `Unresolved Tests`, `Timed Out Tests` ... sections), then the tail
of its output: a failed CI log says which tests at a glance.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

LIT_DIR = Path(__file__).resolve().parent.parent / "lit_tests"

# lit's summary: a header such as "Failed Tests (2):" and one "  suite :: path" line per test.
_SECTION = re.compile(r"^(Failed|Unresolved|Timed Out|Unexpectedly Passed) Tests \((\d+)\):\n((?:  .*\n?)*)", re.M)


def failing_tests(output: str) -> list[str]:
    """`KIND: suite :: path` for every test in lit's summary sections of bad outcomes."""
    names = []
    for kind, _count, lines in _SECTION.findall(output):
        names += [f"{kind}: {line.strip()}" for line in lines.splitlines() if line.strip()]
    return names


def run_lit(directory: Path, env: dict[str, str]) -> tuple[int, str]:
    """lit's exit code, and a message that names the failing tests first."""
    result = subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-sv", str(directory)],
        capture_output=True, text=True, env=env, timeout=1500,
    )
    names = failing_tests(result.stdout)
    head = f"lit: {len(names)} test(s) did not pass:\n" + "".join(f"  {n}\n" for n in names) if names else ""
    if result.returncode != 0 and not names:
        head = f"lit exited {result.returncode} without naming a failing test (a configuration error?)\n"
    return result.returncode, head + "\n--- lit output (tail) ---\n" + result.stdout[-20000:] + result.stderr[-5000:]


def test_lit_suite_passes(tmp_path):
    env = dict(os.environ)
    env.setdefault("RLX_MLIR_CACHE_DIR", str(tmp_path / "cache"))
    code, message = run_lit(LIT_DIR, env)
    assert code == 0, message


def test_a_failing_lit_test_is_named_first(tmp_path):
    """A two-test suite with one failure: the message's first lines name it and only it."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "lit.cfg.py").write_text(
        "import lit.formats\n"
        "config.name = 'tiny'\n"
        "config.test_format = lit.formats.ShTest(execute_external=False)\n"
        "config.suffixes = ['.txt']\n"
    )
    (suite / "passes.txt").write_text("RUN: true\n")
    (suite / "fails.txt").write_text("RUN: false\n")
    code, message = run_lit(suite, dict(os.environ))
    assert code == 1
    assert message.splitlines()[:2] == ["lit: 1 test(s) did not pass:", "  Failed: tiny :: fails.txt"], message
