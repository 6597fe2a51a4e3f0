"""`rlx-opt` bad input not covered by tests/test_rlx_opt_cli.py: each exits 1 with one located
diagnostic, no traceback, and leaves `-o` untouched."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from rlx_mlir.tools import rlx_opt

UNKNOWN_OP = """\
func.func @f(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %y = rlx.conv4d %x : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return %y : tensor<1x3x8x8xf32>
}
"""


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = rlx_opt.main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("generic", [False, True], ids=["custom", "generic"])
def test_unknown_op_is_located_at_its_name(tmp_path, generic):
    text = UNKNOWN_OP.replace("rlx.conv4d %x", '"rlx.conv4d"(%x)') if generic else UNKNOWN_OP
    path = tmp_path / "in.mlir"
    path.write_text(text)
    out = tmp_path / "out.mlir"
    out.write_text("old\n")
    code, stdout, stderr = run(str(path), "-o", str(out))
    assert code == 1 and "Traceback" not in stderr
    assert stderr.splitlines()[0] == f"{path}:2:8: error: custom op 'rlx.conv4d' is unknown"
    assert out.read_text() == "old\n"


def test_directory_as_input(tmp_path):
    code, _, stderr = run(str(tmp_path))
    assert code == 1
    assert stderr == f"rlx-opt: error: cannot access '{tmp_path}': Is a directory\n"


def test_input_that_is_not_utf8(tmp_path):
    path = tmp_path / "bin.mlir"
    path.write_bytes(b"func.func @f() {\n  return\n}\n// \xff\xfe\n")
    code, _, stderr = run(str(path))
    assert code == 1
    assert re.fullmatch(rf"{re.escape(str(path))}: error: input is not UTF-8 text \(invalid start byte at byte 31\)\n", stderr)
