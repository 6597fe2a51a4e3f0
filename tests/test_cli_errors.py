"""How the tools end: a user error, a bug of ours, or a reader that went away.

- A user error (bad IR, a bad option, arguments that do not fit) is one diagnostic and
  exit 1, as before.
- A bug of ours (here: a pattern made to raise TypeError, or a pass made to emit IR that
  does not verify) is `TOOL: internal error: ...`, exit 70, with a hint to rerun with
  RLX_MLIR_DEBUG=1, which prints the traceback. Before, the TypeError printed as
  `rlx-opt: error: unsupported operand type(s)...`, exit 1: a crash disguised as a diagnostic.
- A closed stdout (`rlx-opt ... | head`) ends the tool as it ends mlir-opt: killed by
  SIGPIPE, nothing on stderr. Before: `rlx-opt: error: cannot access: Broken pipe`.

The bug is planted through a `sitecustomize` module on PYTHONPATH, so the installed console
scripts run exactly as a user runs them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from rlx_mlir.errors import EXIT_INTERNAL_ERROR

BIN = Path(sys.executable).parent
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "lenet_backward.mlir"

BACKWARD = """\
func.func @g(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}
"""

# The weight-gradient pattern raises what a slip in its arithmetic would.
TYPE_ERROR_IN_A_PATTERN = """
from rlx_mlir.transforms.conv import backward_weight as conv_backward_weight

def match_and_rewrite(self, op, rewriter):
    return 1 + "1"

conv_backward_weight.ConvBackwardWeightDirect.match_and_rewrite = match_and_rewrite
"""

# decompose-backward returns a function whose declared result no longer matches its return.
PASS_EMITS_INVALID_IR = """
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, TensorType, f32
from rlx_mlir.transforms import decompose_backward

original = decompose_backward.DecomposeBackwardPass.apply

def apply(self, ctx, module):
    original(self, ctx, module)
    for op in module.walk():
        if isinstance(op, func.FuncOp):
            op.function_type = FunctionType.from_lists(op.function_type.inputs.data, [TensorType(f32, [7])])

decompose_backward.DecomposeBackwardPass.apply = apply
"""

HINT = "(rerun with RLX_MLIR_DEBUG=1 for the traceback, and please report it)"


def run_tool(tool: str, *args: str, plant: str | None, tmp_path: Path, debug: bool = False, **kwargs):
    env = {k: v for k, v in os.environ.items() if k != "RLX_MLIR_DEBUG"}
    if plant is not None:
        site = tmp_path / "site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(textwrap.dedent(plant))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH")) if p)
    if debug:
        env["RLX_MLIR_DEBUG"] = "1"
    return subprocess.run([str(BIN / tool), *args], capture_output=True, text=True, timeout=600, env=env, **kwargs)


@pytest.fixture
def backward(tmp_path) -> Path:
    path = tmp_path / "backward.mlir"
    path.write_text(BACKWARD)
    return path


def tool_args(tool: str, path: Path, tmp_path: Path) -> list[str]:
    if tool == "rlx-opt":
        return [str(path), "--decompose-backward"]
    if tool == "rlx-run":
        return [str(path), "-e", "g"]
    return [str(path), "--emit=linalg", "-o", str(tmp_path / "out.mlir")]


TOOLS = ["rlx-opt", "rlx-run", "rlx-compile"]


# -- a bug of ours ----------------------------------------------------------------------------


@pytest.mark.parametrize("tool", TOOLS)
def test_type_error_in_a_pattern_is_an_internal_error(tool, backward, tmp_path):
    done = run_tool(tool, *tool_args(tool, backward, tmp_path), plant=TYPE_ERROR_IN_A_PATTERN, tmp_path=tmp_path)
    assert done.returncode == EXIT_INTERNAL_ERROR == 70, done.stderr
    # The full-conversion driver names the op and its place before the Python error.
    assert done.stderr == (
        f"{tool}: internal error: InternalRewriteError: {backward}:2:9: decompose-backward failed on a valid"
        " 'rlx.conv2d_backward_weight': TypeError: unsupported operand type(s) for +: 'int' and 'str'"
        f"\n{HINT}\n"
    )
    assert done.stdout == ""
    assert not (tmp_path / "out.mlir").exists()


@pytest.mark.parametrize("tool", TOOLS)
def test_debug_variable_shows_the_traceback_of_an_internal_error(tool, backward, tmp_path):
    done = run_tool(tool, *tool_args(tool, backward, tmp_path), plant=TYPE_ERROR_IN_A_PATTERN, tmp_path=tmp_path, debug=True)
    assert done.returncode == EXIT_INTERNAL_ERROR, done.stderr
    assert done.stderr.startswith("Traceback (most recent call last):\n"), done.stderr
    assert 'return 1 + "1"' in done.stderr  # the planted line, in the sitecustomize frame
    assert done.stderr.endswith(
        " 'rlx.conv2d_backward_weight': TypeError: unsupported operand type(s) for +: 'int' and 'str'\n"
        "(the traceback is above, and please report it)\n"
    )
    assert f"\n{tool}: internal error: InternalRewriteError: {backward}:2:9: " in done.stderr


@pytest.mark.parametrize("tool", TOOLS)
def test_pass_output_that_does_not_verify_is_an_internal_error(tool, backward, tmp_path):
    done = run_tool(tool, *tool_args(tool, backward, tmp_path), plant=PASS_EMITS_INVALID_IR, tmp_path=tmp_path)
    assert done.returncode == EXIT_INTERNAL_ERROR, done.stderr
    first, hint = done.stderr.splitlines()
    assert first.startswith(f"{tool}: internal error: ") and "does not verify" in first, first
    assert "func.return" in first or "func.func" in first, first
    assert hint == HINT


# -- user errors stay user errors -------------------------------------------------------------


@pytest.mark.parametrize(
    "tool, args, expected",
    [
        pytest.param(
            "rlx-opt", ["--decompose-backward=conv-weight=bogus"],
            "rlx-opt: error: decompose-backward: option 'conv-weight' must be one of direct, im2col; got 'bogus'\n",
            id="rlx-opt-bad-option",
        ),
        pytest.param(
            "rlx-opt", ["-p", "decompose-backward{"], None, id="rlx-opt-bad-pipeline-text",
        ),
        pytest.param("rlx-opt", ["-p", "no-such-pass"], "rlx-opt: error: Unrecognized passes: ['no-such-pass']\n",
                     id="rlx-opt-unknown-pass"),
        pytest.param("rlx-run", ["-e", "g", "--batch", "1", "--inputs", "{npy}"],
                     "rlx-run: error: g() takes 2 argument(s) (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>), got 1\n",
                     id="rlx-run-argument-count"),
        pytest.param("rlx-run", ["-e", "g", "--inputs", "{npy}", "{npy}"],
                     "rlx-run: error: g(): argument 0 (tensor<2x3x8x8xf32>) expects dtype float32, got float64\n",
                     id="rlx-run-dtype"),
        pytest.param("rlx-run", ["-e", "g", "--inputs", "{text}", "{text}"], None, id="rlx-run-input-not-an-array"),
        pytest.param("rlx-compile", ["--emit=obj"],
                     "rlx-compile: error: --emit=obj is binary: give an output file with -o\n", id="rlx-compile-binary"),
    ],
)
def test_user_errors_exit_1_with_a_diagnostic(tool, args, expected, backward, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((2, 3, 8, 8)))
    (tmp_path / "text.npy").write_text("not an array\n")
    args = [a.replace("{npy}", str(tmp_path / "x.npy")).replace("{text}", str(tmp_path / "text.npy")) for a in args]
    done = run_tool(tool, str(backward), *args, plant=None, tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{tool}: error: "), done.stderr
    if expected is not None:
        assert done.stderr == expected


def test_verify_error_stays_a_located_user_error_in_rlx_run(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(BACKWARD.replace("tensor<4x3x3x3xf32>", "tensor<4x3x2x3xf32>"))
    done = run_tool("rlx-run", str(bad), "-e", "g", plant=None, tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"{bad}:2:"), done.stderr
    assert "'rlx.conv2d_backward_weight' op" in done.stderr.splitlines()[0]


def test_a_function_name_reserved_for_the_c_interface_is_a_user_error(tmp_path):
    clash = tmp_path / "clash.mlir"
    clash.write_text(
        "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n"
        "func.func @_mlir_ciface_f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n"
    )
    done = run_tool("rlx-run", str(clash), "-e", "f", plant=None, tmp_path=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr == "rlx-run: error: function name '_mlir_ciface_f' is reserved for the C interface of 'f'\n"


# -- a reader that went away ------------------------------------------------------------------


def big_module(lines: int = 5000) -> str:
    body = "".join(f"  %v{i} = arith.addf %a, %a : f32\n" for i in range(lines))
    return f"func.func @f(%a: f32) -> f32 {{\n{body}  return %a : f32\n}}\n"


def closed_pipe(argv: list[str]) -> subprocess.CompletedProcess:
    """Run `argv` with its stdout a pipe whose reading end is closed before it writes."""
    env = {k: v for k, v in os.environ.items() if k != "RLX_MLIR_DEBUG"}
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(argv, stdout=write, stderr=subprocess.PIPE, text=True, timeout=600, env=env)
    finally:
        os.close(write)
    return done


def test_mlir_opt_ends_by_sigpipe_on_a_closed_pipe(tmp_path):
    """The behaviour the tools copy: killed by SIGPIPE, nothing on stderr."""
    from rlx_mlir.backend.toolchain import find_tool

    path = tmp_path / "big.mlir"
    path.write_text(big_module())
    done = closed_pipe([str(find_tool("mlir-opt").path), str(path)])
    assert (done.returncode, done.stderr) == (-signal.SIGPIPE, "")


def test_rlx_opt_ends_quietly_on_a_closed_pipe(tmp_path):
    path = tmp_path / "big.mlir"
    path.write_text(big_module())
    done = closed_pipe([str(BIN / "rlx-opt"), str(path)])
    assert (done.returncode, done.stderr) == (-signal.SIGPIPE, "")


def test_rlx_run_print_ends_quietly_on_a_closed_pipe():
    done = closed_pipe([str(BIN / "rlx-run"), str(EXAMPLE), "-e", "conv_block_backward", "--batch", "1", "--print"])
    assert (done.returncode, done.stderr) == (-signal.SIGPIPE, "")


def test_rlx_opt_into_head_prints_no_error(tmp_path):
    """The issue's command line, through a shell: `rlx-opt ... | head` shows only the head."""
    path = tmp_path / "big.mlir"
    path.write_text(big_module(20000))
    done = subprocess.run(
        ["bash", "-c", f'"{BIN / "rlx-opt"}" "{path}" | head -n 2'], capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0
    assert done.stdout == "builtin.module {\n  func.func @f(%a: f32) -> f32 {\n"
    assert done.stderr == ""
