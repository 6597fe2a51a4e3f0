"""Faults around the compiler: broken toolchains, odd paths, shared caches, long-running use.

Already covered elsewhere (not repeated here): damaged cached libraries and metadata
(tests/backend/test_compile_cache.py::test_damaged_library_is_rebuilt, ...metadata_is_rebuilt),
a cache path that cannot be created (...::test_unwritable_cache_dir_falls_back_with_warning),
threads building one module (...::test_concurrent_builds_of_one_module_all_succeed), a missing
tool or a wrong version found by discovery (tests/backend/test_toolchain.py), a tool that
times out (...::test_run_reports_missing_executable_and_timeout), threads calling one linalg
function and its memory over many calls (tests/backend/test_runtime.py::test_concurrent_calls,
...::test_no_leak_over_many_calls).
"""

from __future__ import annotations

import gc
import json
import os
import shlex
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import rlx_mlir
from rlx_mlir.backend import toolchain
from rlx_mlir.backend.cache import CACHE_DIR_ENV
from rlx_mlir.backend.toolchain import TOOLS_DIR_ENV, ToolchainError

BIN = Path(sys.executable).parent
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "lenet_backward.mlir"
ODD = "dir with spaces, 'single' and \"double\" quotes"

POOL = """
func.func @pool(%x: tensor<?x2x4x4xf32>) -> tensor<?x2x2x2xf32> {
  %y = rlx.max_pool2d %x kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x2x4x4xf32>) -> tensor<?x2x2x2xf32>
  return %y : tensor<?x2x2x2xf32>
}
"""

# Each fake answers `--version` like a 22.x LLVM tool, then misbehaves.
FAKES = {
    "exits-non-zero": "echo 'fake: cannot handle this input' >&2\nexit 3",
    "crashes": "echo 'fake: about to crash' >&2\nkill -SEGV $$",
    "garbled-stderr": "printf 'fake: \\377\\376 bad bytes\\n' >&2\nexit 1",
}
EXPECTED_HEAD = {
    "exits-non-zero": "failed (exit code 3)",
    "crashes": "crashed: killed by SIGSEGV",
    "garbled-stderr": "failed (exit code 1)",
}
EXPECTED_STDERR = {
    "exits-non-zero": "fake: cannot handle this input",
    "crashes": "fake: about to crash",
    "garbled-stderr": "fake: \ufffd\ufffd bad bytes",
}


def run_tool(tool: str, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
    full_env = {k: v for k, v in os.environ.items() if k != "RLX_MLIR_DEBUG"}
    full_env.update(env or {})
    return subprocess.run(
        [str(BIN / tool), *args], capture_output=True, text=True, timeout=300, env=full_env, cwd=cwd
    )


@pytest.fixture
def tools_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[callable]:
    """`make(fake_tool=None, behaviour=None)`: a tools dir (odd name) of links to the real tools."""

    def make(fake: str | None = None, behaviour: str = "", version: str = "22.1.8") -> Path:
        directory = tmp_path / ODD / "bin"
        directory.mkdir(parents=True, exist_ok=True)
        for name in ("mlir-opt", "mlir-translate", "opt", "llc"):
            path = directory / name
            if path.exists() or path.is_symlink():
                path.unlink()
            if name == fake:
                path.write_text(
                    "#!/bin/sh\n"
                    f'if [ "$1" = "--version" ]; then echo "LLVM version {version}"; exit 0; fi\n'
                    f"{behaviour}\n"
                )
                path.chmod(0o755)
            else:
                path.symlink_to(toolchain.find_tool(name).path)
        monkeypatch.setenv(TOOLS_DIR_ENV, str(directory.parent))
        toolchain.reset_discovery()
        return directory

    toolchain.reset_discovery()
    yield make
    monkeypatch.delenv(TOOLS_DIR_ENV, raising=False)
    toolchain.reset_discovery()


# -- a broken toolchain ---------------------------------------------------------------------------


@pytest.mark.parametrize("fake", ["mlir-translate", "llc"])
@pytest.mark.parametrize("behaviour", sorted(FAKES))
def test_failing_tool_names_stage_command_and_stderr(tools_dir, fake, behaviour):
    directory = tools_dir(fake, FAKES[behaviour])
    with pytest.raises(ToolchainError) as info:
        rlx_mlir.compile(POOL + f"// {fake} {behaviour}\n")  # a new cache entry
    stage, _, rest = str(info.value).partition(" ")
    head, command, stderr_label, *stderr = rest.split("\n")
    assert stage == fake
    assert head == EXPECTED_HEAD[behaviour]
    argv = shlex.split(command.removeprefix("command: "))
    assert argv[0] == str(directory / fake)  # the odd path, quoted so it can be pasted in a shell
    assert stderr_label == "stderr:"
    assert stderr == [EXPECTED_STDERR[behaviour]]


def test_failing_tool_through_the_cli(tools_dir, tmp_path):
    directory = tools_dir("mlir-translate", FAKES["exits-non-zero"])
    out = tmp_path / "out.so"
    done = run_tool("rlx-compile", str(EXAMPLE), "--emit=shared", "-o", str(out))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr == (
        "rlx-compile: error: mlir-translate failed (exit code 3)\n"
        f"command: {shlex.join([str(directory / 'mlir-translate'), '--mlir-to-llvmir', '-'])}\n"
        "stderr:\nfake: cannot handle this input\n"
    )
    assert not out.exists()


def test_wrong_version_through_the_cli(tools_dir):
    directory = tools_dir("mlir-opt", "exit 0", version="18.1.3")
    done = run_tool("rlx-run", str(EXAMPLE), "-e", "conv_block_backward", "--batch", "1")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("rlx-run: error: mlir-opt: no MLIR/LLVM 22.x executable found")
    assert f"rejected wrong versions: {directory / 'mlir-opt'} (version 18.1.3)" in done.stderr
    version = run_tool("rlx-opt", "--version")
    assert version.returncode == 0
    assert "MLIR toolchain: not found (mlir-opt: no MLIR/LLVM 22.x executable found" in version.stdout


def test_tools_not_installed_through_the_cli(tmp_path):
    empty = tmp_path / ODD
    empty.mkdir()
    done = run_tool("rlx-compile", str(EXAMPLE), "--emit=linalg", env={TOOLS_DIR_ENV: str(empty)})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(
        f"rlx-compile: error: mlir-opt: no MLIR/LLVM 22.x executable found; looked in {TOOLS_DIR_ENV}={empty}"
    )


# -- paths with spaces and quotes (no shell anywhere) ---------------------------------------------


def test_odd_paths_for_input_output_and_cache(tmp_path):
    work = tmp_path / ODD
    work.mkdir()
    source = work / "in put 'x'.mlir"
    source.write_text(POOL)
    cache = work / "cache dir"
    env = {CACHE_DIR_ENV: str(cache)}

    lowered = work / 'low "er" ed.mlir'
    done = run_tool("rlx-opt", str(source), "--convert-rlx-to-linalg", "-o", str(lowered), env=env)
    assert done.returncode == 0, done.stderr
    assert "linalg.pooling_nchw_max" in lowered.read_text()

    library = work / "lib 'x'.so"
    done = run_tool("rlx-compile", str(source), "--emit=shared", "-o", str(library), env=env)
    assert done.returncode == 0, done.stderr
    assert library.read_bytes()[:4] == b"\x7fELF"

    inputs = work / "in 'puts'.npz"
    x = np.arange(2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4)
    np.savez(inputs, arg0=x)
    results = work / 'out "1".npz'
    done = run_tool("rlx-run", str(source), "-e", "pool", "--inputs", str(inputs), "-o", str(results), env=env)
    assert done.returncode == 0, done.stderr
    with np.load(results) as archive:
        np.testing.assert_array_equal(archive["result0"], x.reshape(2, 2, 2, 2, 2, 2).max(axis=(3, 5)))
    assert cache.stat().st_mode & 0o777 == 0o700
    assert len(list(cache.glob("*.json"))) == 1


# -- the compile cache ----------------------------------------------------------------------------

WORKER = textwrap.dedent(
    """
    import hashlib, json, sys
    import numpy as np
    import rlx_mlir
    from rlx_mlir.backend.compile import last_compile_was_cache_hit
    module = rlx_mlir.compile(sys.stdin.read())
    x = np.arange(3 * 2 * 4 * 4, dtype=np.float32).reshape(3, 2, 4, 4)
    out = module["pool"](x)
    print(json.dumps([str(module.path), hashlib.sha256(out.tobytes()).hexdigest(), last_compile_was_cache_hit()]))
    """
)


def test_processes_compiling_one_module_at_once_agree(tmp_path):
    cache = tmp_path / ODD / "cache"
    env = {k: v for k, v in os.environ.items() if k != "RLX_MLIR_DEBUG"}
    env[CACHE_DIR_ENV] = str(cache)
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(4)
    ]
    for p in procs:
        p.stdin.write(POOL)
        p.stdin.close()
    outputs = []
    for p in procs:
        stdout, stderr = p.stdout.read(), p.stderr.read()
        assert p.wait(timeout=300) == 0, stderr
        outputs.append(json.loads(stdout))
    paths, digests = {o[0] for o in outputs}, {o[1] for o in outputs}
    assert len(paths) == 1 and len(digests) == 1, outputs
    assert Path(paths.pop()).parent == cache
    assert len(list(cache.glob("*.json"))) == 1 and len(list(cache.glob("*.so"))) == 1
    assert not list(cache.glob(".build-*")), "no temporary build directory is left behind"
    assert cache.stat().st_mode & 0o777 == 0o700


def _read_only_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "read-only cache"
    directory.mkdir()
    directory.chmod(0o500)
    return directory


@pytest.mark.parametrize(
    "where",
    [
        pytest.param(lambda tmp: Path("/proc"), id="existing-read-only-filesystem"),
        pytest.param(
            _read_only_dir, id="mode-0500",
            marks=pytest.mark.skipif(os.geteuid() == 0, reason="root writes to a mode 0500 directory"),
        ),
    ],
)
def test_read_only_cache_dir_falls_back_to_a_private_temp_dir(tmp_path, monkeypatch, where):
    directory = where(tmp_path)
    monkeypatch.setenv(CACHE_DIR_ENV, str(directory))
    with pytest.warns(UserWarning, match=rf"cache directory {directory} is not writable .*; using .* for this process"):
        module = rlx_mlir.compile(POOL + f"// {where}\n")
    fallback = module.path.parent
    assert not fallback.is_relative_to(directory)
    assert fallback.stat().st_mode & 0o777 == 0o700
    x = np.random.default_rng(0).standard_normal((2, 2, 4, 4)).astype(np.float32)
    np.testing.assert_array_equal(module["pool"](x), x.reshape(2, 2, 2, 2, 2, 2).max(axis=(3, 5)))


# -- long-running use: memory and threads ---------------------------------------------------------


@pytest.fixture(scope="module")
def lenet():
    return rlx_mlir.compile(EXAMPLE.read_text())["conv_block_backward"]


def _lenet_inputs(batch: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = [(batch, 3, 32, 32), (16, 3, 3, 3), (batch, 16, 32, 32), (batch, 16, 16, 16)]
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


POOL_BACKWARD = """
func.func @pool_backward(%x: tensor<?x8x32x32xf32>, %dy: tensor<?x8x16x16xf32>) -> tensor<?x8x32x32xf32> {
  %dx = rlx.max_pool2d_backward %x, %dy kernel_size [2, 2] stride [2, 2] padding [0, 0] : (tensor<?x8x32x32xf32>, tensor<?x8x16x16xf32>) -> tensor<?x8x32x32xf32>
  return %dx : tensor<?x8x32x32xf32>
}
"""


def test_memory_stays_flat_over_many_calls_and_refusals():
    """1 MiB per result: 200 leaked results would add 200 MiB; refused calls must not leak either."""
    function = rlx_mlir.compile(POOL_BACKWARD)["pool_backward"]
    rng = np.random.default_rng(0)
    x, dy = rng.standard_normal((32, 8, 32, 32), np.float32), rng.standard_normal((32, 8, 16, 16), np.float32)
    for _ in range(10):
        function(x, dy)
    gc.collect()
    before = _rss_bytes()
    for _ in range(200):
        dx = function(x, dy)
        with pytest.raises(ValueError, match="must have the same batch size"):
            function(x, dy[:31])
        with pytest.raises(TypeError, match="takes 2 argument"):
            function(x)
    assert dx.shape == x.shape
    del dx
    gc.collect()
    assert _rss_bytes() - before < 48 * 2**20


def test_threads_with_different_batches_share_one_function(lenet):
    cases = [_lenet_inputs(batch, seed) for seed, batch in enumerate([1, 2, 3, 5, 0, 4, 2, 1])]
    expected = [lenet(*args) for args in cases]
    failures: list[str] = []
    start = threading.Barrier(len(cases))

    def worker(i: int) -> None:
        start.wait()
        for _ in range(15):
            dx, dw = lenet(*cases[i])
            if not (np.array_equal(dx, expected[i][0]) and np.array_equal(dw, expected[i][1])):
                failures.append(f"thread {i} (batch {len(cases[i][0])})")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not failures
