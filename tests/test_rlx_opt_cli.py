"""`rlx-opt` as a user meets it: mlir-opt's flags, diagnostics and exit codes, atomic -o.

Every failure must exit 1 with one diagnostic on stderr (`file:line:col: error: ...` when
the error has a place in the input) and no Python traceback, and must leave an existing
`-o` file as it was. Also covers plain `xdsl-opt`, which finds RLX through the
`xdsl.universe` entry point.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rlx_mlir

BIN = Path(sys.executable).parent
RLX_OPT = [str(BIN / "rlx-opt")] if (BIN / "rlx-opt").exists() else [sys.executable, "-m", "rlx_mlir.tools.rlx_opt"]
XDSL_OPT = str(BIN / "xdsl-opt") if (BIN / "xdsl-opt").exists() else shutil.which("xdsl-opt")

VALID = """\
func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = rlx.conv2d %x, %w stride [1, 1] padding [1, 1] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}
"""

# Line 2: the result should be 1x4x8x8 for padding 1.
VERIFY_ERROR = VALID.replace("padding [1, 1] :", "padding [0, 0] :")

# Line 2: `stride [1 1]` lacks a comma.
PARSE_ERROR = VALID.replace("stride [1, 1]", "stride [1 1]")

BACKWARD = """\
func.func @g(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size [3, 3] stride [1, 1] padding [1, 1] : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}
"""


def rlx_opt(*args: str, input: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RLX_MLIR_DEBUG"}
    return subprocess.run(
        [*RLX_OPT, *args], input=input, capture_output=True, text=True, timeout=300, cwd=cwd, env=env
    )


def assert_clean_failure(done: subprocess.CompletedProcess, pattern: str) -> None:
    """Exit 1, the expected diagnostic, no traceback."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert re.search(pattern, done.stderr, re.M), done.stderr


@pytest.fixture
def write(tmp_path):
    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return _write


# -- diagnostics and exit codes -----------------------------------------------------------------


def test_valid_input_round_trips(write):
    done = rlx_opt(str(write("ok.mlir", VALID)))
    assert done.returncode == 0, done.stderr
    assert "rlx.conv2d %x, %w stride [1, 1] padding [1, 1] :" in done.stdout
    assert done.stderr == ""


def test_parse_error_is_located(write):
    path = write("bad.mlir", PARSE_ERROR)
    done = rlx_opt(str(path))
    assert_clean_failure(done, rf"^{re.escape(str(path))}:2:36: error: ']' expected$")
    assert "stride [1 1]" in done.stderr  # the source line, with a caret under the problem
    assert done.stdout == ""


def test_verify_error_is_located_and_names_the_op(write):
    path = write("bad.mlir", VERIFY_ERROR)
    done = rlx_opt(str(path))
    assert_clean_failure(
        done,
        rf"^{re.escape(str(path))}:2:\d+: error: 'rlx.conv2d' op expected the result type to be "
        r"tensor<1x4x6x6xf32> as the geometry implies, got tensor<1x4x8x8xf32>$",
    )
    assert done.stdout == ""


def test_stdin_diagnostics_name_stdin():
    done = rlx_opt(input=VERIFY_ERROR)
    assert_clean_failure(done, r"^<stdin>:2:\d+: error: 'rlx.conv2d' op expected the result type")


def test_split_input_file_reports_file_lines(write):
    text = VALID + "\n// -----\n\n" + VERIFY_ERROR
    path = write("split.mlir", text)
    done = rlx_opt(str(path), "--split-input-file")
    line = text.splitlines().index(VERIFY_ERROR.splitlines()[1]) + 1
    assert_clean_failure(done, rf"^{re.escape(str(path))}:{line}:\d+: error: 'rlx.conv2d' op")


def test_unknown_pass_in_pipeline(write):
    done = rlx_opt(str(write("ok.mlir", VALID)), "-p", "no-such-pass")
    assert_clean_failure(done, r"^rlx-opt: error: .*no-such-pass")


def test_unknown_flag(write):
    done = rlx_opt(str(write("ok.mlir", VALID)), "--no-such-flag")
    assert_clean_failure(done, r"rlx-opt: error: unrecognized arguments: --no-such-flag")


def test_bad_pass_option_value(write):
    done = rlx_opt(str(write("ok.mlir", BACKWARD)), "--decompose-backward=conv-weight=bogus")
    assert_clean_failure(
        done, r"^rlx-opt: error: decompose-backward: option 'conv-weight' must be one of direct, im2col; got 'bogus'$"
    )
    assert done.stdout == ""


@pytest.mark.parametrize("spec, option, valid, bad", [
    ("decompose-backward{pool-ties=bogus}", "pool-ties", "first, all", "bogus"),
    ("decompose-backward{conv-input=im2col}", "conv-input", "direct, transpose", "im2col"),
    ("decompose-backward{conv-weight=\"Direct\"}", "conv-weight", "direct, im2col", "Direct"),
], ids=["pool-ties", "conv-input", "quoted-conv-weight"])
def test_bad_choice_in_pipeline_names_pass_option_and_values(write, spec, option, valid, bad):
    done = rlx_opt(str(write("ok.mlir", BACKWARD)), "-p", spec)
    assert_clean_failure(
        done, rf"^rlx-opt: error: decompose-backward: option '{option}' must be one of {valid}; got '{bad}'$"
    )
    assert done.stdout == ""


def test_bad_choice_in_python_names_pass_option_and_values():
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    with pytest.raises(ValueError, match=r"^decompose-backward: option 'pool-ties' must be one of first, all; got 'any'$"):
        DecomposeBackwardPass(pool_ties="any")


def test_unknown_pass_option(write):
    done = rlx_opt(str(write("ok.mlir", BACKWARD)), "--decompose-backward=no-such-option=1")
    assert_clean_failure(done, r"^rlx-opt: error: .*no.such.option")


def test_missing_input_file(tmp_path):
    done = rlx_opt(str(tmp_path / "missing.mlir"))
    assert_clean_failure(done, r"^rlx-opt: error: cannot access '.*missing\.mlir': No such file or directory$")


def test_unwritable_output_path(write, tmp_path):
    target = tmp_path / "no-such-dir" / "out.mlir"
    done = rlx_opt(str(write("ok.mlir", VALID)), "-o", str(target))
    assert_clean_failure(done, rf"^rlx-opt: error: cannot access '{re.escape(str(target))}'")
    assert not target.parent.exists()


def test_wrong_result_count_is_a_located_parse_error(write):
    path = write("two.mlir", VALID.replace(
        "-> tensor<1x4x8x8xf32>\n  return", "-> (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)\n  return"))
    done = rlx_opt(str(path))
    assert_clean_failure(done, rf"^{re.escape(str(path))}:2:\d+: error: ")


# -- -o is written atomically ---------------------------------------------------------------------

OLD = "// previous content, must survive a failed run\n"


@pytest.mark.parametrize(
    "args, text",
    [
        pytest.param([], VERIFY_ERROR, id="verify-error"),
        pytest.param([], PARSE_ERROR, id="parse-error"),
        pytest.param(["--decompose-backward=conv-weight=bogus"], BACKWARD, id="bad-pass-option"),
        pytest.param(["-p", "no-such-pass"], VALID, id="unknown-pass"),
        pytest.param(["--split-input-file"], VALID + "// -----\n" + VERIFY_ERROR, id="second-split-chunk-fails"),
    ],
)
def test_output_file_untouched_on_failure(write, tmp_path, args, text):
    out = write("out.mlir", OLD)
    before = out.stat()
    done = rlx_opt(str(write("in.mlir", text)), "-o", str(out), *args)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert out.read_text() == OLD
    assert out.stat().st_mtime_ns == before.st_mtime_ns
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_output_file_written_on_success(write, tmp_path):
    out = write("out.mlir", OLD)
    done = rlx_opt(str(write("in.mlir", VALID)), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "rlx.conv2d" in out.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_output_file_created_when_absent(write, tmp_path):
    out = tmp_path / "new.mlir"
    done = rlx_opt(str(write("in.mlir", VALID)), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "rlx.conv2d" in out.read_text()


# -- mlir-opt style pass flags --------------------------------------------------------------------


def _pipeline(*argv: str) -> list:
    from rlx_mlir.tools.rlx_opt import RlxOptMain

    main = RlxOptMain([*argv, "in.mlir"])
    main.setup_pipeline()
    return list(main.pipeline.passes)


def test_pass_flag_with_option_parses():
    (decompose,) = _pipeline("--decompose-backward=conv-weight=im2col")
    assert decompose.name == "decompose-backward"
    assert decompose.conv_weight == "im2col"


def test_pass_flag_with_quoted_options_parses():
    (decompose,) = _pipeline('--decompose-backward="conv-weight=im2col im2col-max-elements=1024"')
    assert (decompose.conv_weight, decompose.im2col_max_elements) == ("im2col", 1024)


def test_passes_run_in_command_line_order():
    names = [p.name for p in _pipeline(
        "--convert-rlx-to-linalg", "-p", "canonicalize", "--decompose-backward=conv-weight=im2col", "-p", "cse")]
    assert names == ["convert-rlx-to-linalg", "canonicalize", "decompose-backward", "cse"]
    names = [p.name for p in _pipeline("-p", "decompose-backward", "--convert-rlx-to-linalg")]
    assert names == ["decompose-backward", "convert-rlx-to-linalg"]


def test_pass_flags_fold_into_one_pipeline():
    from rlx_mlir.tools.rlx_opt import pass_flags_to_pipeline

    names = ["decompose-backward", "convert-rlx-to-linalg"]
    argv = ["x.mlir", "--convert-rlx-to-linalg", "--passes=cse", "--decompose-backward=conv-weight=im2col", "-o", "y"]
    assert pass_flags_to_pipeline(argv, names) == [
        "x.mlir", "-o", "y", "-p", "convert-rlx-to-linalg,cse,decompose-backward{conv-weight=im2col}"]


def test_pass_flags_lower_backward_ops(write):
    """End to end; needs the passes (being written alongside these tests)."""
    done = rlx_opt(str(write("in.mlir", BACKWARD)), "--decompose-backward=conv-weight=im2col", "--convert-rlx-to-linalg")
    assert done.returncode == 0, done.stderr
    assert "rlx." not in done.stdout
    assert "linalg." in done.stdout


# -- --version and plain xdsl-opt ------------------------------------------------------------------


def test_version_names_rlx_mlir_and_the_mlir_toolchain():
    done = rlx_opt("--version")
    assert done.returncode == 0, done.stderr
    assert f"rlx-opt {rlx_mlir.__version__}" in done.stdout
    assert re.search(r"^MLIR toolchain: (MLIR 22\.\d+\.\d+|not found)", done.stdout, re.M), done.stdout


needs_xdsl_opt = pytest.mark.skipif(XDSL_OPT is None, reason="no xdsl-opt executable")


@needs_xdsl_opt
def test_plain_xdsl_opt_knows_the_rlx_dialect(write):
    done = subprocess.run([XDSL_OPT, str(write("ok.mlir", VALID))], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "rlx.conv2d %x, %w stride [1, 1] padding [1, 1] :" in done.stdout
    assert "already registered" not in done.stderr and "Traceback" not in done.stderr


@needs_xdsl_opt
def test_plain_xdsl_opt_has_the_rlx_passes(write):
    done = subprocess.run(
        [XDSL_OPT, str(write("bw.mlir", BACKWARD)), "-p", "decompose-backward"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "rlx.conv2d_backward_weight" not in done.stdout
    assert "already registered" not in done.stderr and "Traceback" not in done.stderr


def test_rlx_opt_registers_nothing_twice(write):
    """rlx-opt gets RLX both from the entry point and directly; that must not clash."""
    done = rlx_opt(str(write("bw.mlir", BACKWARD)), "-p", "decompose-backward")
    assert done.returncode == 0, done.stderr
    assert "already registered" not in done.stderr
