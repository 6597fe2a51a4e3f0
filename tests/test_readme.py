"""The commands of the README and of the reference it links, run verbatim as a new user runs
them after the README's set-up; and every link of those pages leads somewhere.

The pages are README.md, docs/*.md and benchmarks/README.md: the reference moved from the
README into docs/ keeps its commands tested. Each ```sh block runs in a fresh bash (`set -euo pipefail`) after the set-up block's lines,
in a scratch copy of the files the commands name, with a PATH that holds this Python's
bin directory and the system's but no `mlir-opt`: the wheels keep theirs inside their
packages, so `rlx-opt ... | mlir-opt` only works if the README's set-up makes it work.
Each ```python block runs with this Python. Skipped, with a reason: installing (the
suite runs in the installed environment), the test suite itself, and the benchmarks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]
BIN = Path(sys.executable).parent

BLOCK = re.compile(r"^```(sh|python)\n(.*?)^```$", re.S | re.M)
SETUP = next(text for kind, text in BLOCK.findall(README) if kind == "sh" and "pip install -e '.[test]'" in text)
# (page, kind, text) for every runnable block of every page.
BLOCKS = [(page.relative_to(ROOT).as_posix(), kind, text) for page in PAGES for kind, text in BLOCK.findall(page.read_text())]

# Lines not run, and why.
SKIPPED = {
    "pip install": "installing: this suite already runs in the installed environment",
    "pytest": "the test suite itself",
    "python -m benchmarks.": "a benchmark: minutes, and some need the bench extra",
    "torchrun": "training on several machines",
}


def skip_reason(line: str) -> str | None:
    return next((why for start, why in SKIPPED.items() if line.strip().startswith(start)), None)


def runnable(text: str) -> str:
    return "".join(line + "\n" for line in text.splitlines() if line.strip() and skip_reason(line) is None)


def fresh_path() -> str:
    """This Python's bin first, then PATH without any directory that holds an `mlir-opt`."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not Path(d, "mlir-opt").exists()]
    return os.pathsep.join([str(BIN), *dirs])


@pytest.fixture
def workdir(tmp_path) -> Path:
    """A scratch copy of what the commands read and write (examples/, dialects/)."""
    for name in ("examples", "dialects"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


def _id(block: tuple[str, str, str]) -> str:
    page, kind, text = block
    return f"{page}:{kind}:{text.splitlines()[0][:60]}"


@pytest.mark.parametrize("block", BLOCKS, ids=[_id(b) for b in BLOCKS])
def test_readme_block_runs_verbatim(block, workdir):
    page, kind, text = block
    if not (BIN / "rlx-mlir-tools").exists():
        pytest.skip("this environment's install predates the rlx-mlir-tools entry point: reinstall (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k not in ("RLX_MLIR_DEBUG", "RLX_MLIR_TOOLS_DIR", "VIRTUAL_ENV")}
    env["PATH"] = fresh_path()
    if kind == "python":
        done = subprocess.run([sys.executable, "-c", text], cwd=workdir, env=env, capture_output=True, text=True, timeout=900)
    else:
        commands = runnable(text)
        if not commands:
            pytest.skip("; ".join(sorted({skip_reason(line) for line in text.splitlines() if line.strip()})))
        script = "set -euo pipefail\n" + runnable(SETUP) + commands
        done = subprocess.run(["bash", "-c", script], cwd=workdir, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"--- {page}: {kind} ---\n{text}\n--- stderr ---\n{done.stderr[-5000:]}"


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"^```.*?^```$", "", page.read_text(), flags=re.S | re.M), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_lead_to_files_and_headings_that_exist(page):
    broken = []
    prose = re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```$", "", page.read_text(), flags=re.S | re.M))
    for target in LINK.findall(prose):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in anchors(file)):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


def test_mlir_opt_is_not_on_the_fresh_path():
    """The premise: without the set-up's second line, `| mlir-opt` would fail."""
    assert shutil.which("mlir-opt", path=fresh_path()) is None


def test_bin_dir_holds_the_tools_the_backend_uses():
    from rlx_mlir.backend.toolchain import find_tool
    from rlx_mlir.tools import rlx_mlir_tools

    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert rlx_mlir_tools.main(["--bin-dir"]) == 0
    path = out.getvalue().strip()
    for name in rlx_mlir_tools.TOOLS:
        assert shutil.which(name, path=path) == str(find_tool(name).path)
