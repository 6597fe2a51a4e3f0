"""The repository names no development machine and no tracker.

A path such as `/work/...` or `/root/...` means nothing on a user's machine, and an
"issue 11" means nothing without our tracker: a docstring or a note says what the rule
or the target is instead. Every file git tracks is read, except the measurement records
under `benchmarks/results/` (they record where they ran) and this file, whose own examples
are what the patterns must find.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root|home/[a-z_][\w-]*|Users/[\w-]+)/")
"""An absolute path on a development machine (not `~/.cache/...` or a URL's path)."""

TRACKER_REFERENCE = re.compile(r"\b(?:issue|task|ticket)s?\s+#?\d+\b|\bissue #\d+", re.IGNORECASE)
"""`issue 15`, `Issue 11's`, `task 29`, `issue #3`: our tracker's numbers."""

EXEMPT = ("benchmarks/results/", "tests/test_repository_hygiene.py")


def tracked_text_files() -> list[Path]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    files = []
    for name in names.decode().split("\0"):
        if not name or name.startswith(EXEMPT):
            continue
        path = ROOT / name
        try:
            files.append((name, path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
    return files


def offending_lines(pattern: re.Pattern) -> list[str]:
    return [
        f"{name}:{number}: {line.strip()}"
        for name, text in tracked_text_files()
        for number, line in enumerate(text.splitlines(), 1)
        if pattern.search(line)
    ]


def test_no_development_machine_path():
    assert offending_lines(MACHINE_PATH) == []


def test_no_tracker_reference():
    assert offending_lines(TRACKER_REFERENCE) == []


@pytest.mark.parametrize(
    "line, pattern, found",
    [
        ("see /work/frontend-ops.md", MACHINE_PATH, True),
        ("cached in ~/.cache/rlx-mlir", MACHINE_PATH, False),
        ("https://github.com/llvm/llvm-project/blob/main/x", MACHINE_PATH, False),
        ("(issue 15's bound)", TRACKER_REFERENCE, True),
        ("Issue 11: 100% of the samples", TRACKER_REFERENCE, True),
        ("CPUs that issue 16-lane FMAs", TRACKER_REFERENCE, True),
        ("the issue's target", TRACKER_REFERENCE, False),
    ],
)
def test_the_patterns_find_what_they_mean(line, pattern, found):
    assert bool(pattern.search(line)) == found
