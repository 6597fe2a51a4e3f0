"""The IRDL description of RLX: generated from the Python definitions, loaded by upstream MLIR.

`dialects/rlx.irdl.mlir` is committed so that mlir-opt users need no Python. These tests
keep it equal to what `rlx_mlir.tools.gen_irdl` generates, and check that mlir-opt, given
it, accepts what rlx-opt prints for every op and rejects an op that lacks an attribute.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def

from rlx_mlir.dialects import rlx
from rlx_mlir.tools import gen_irdl

REPO = Path(__file__).resolve().parent.parent
IRDL_FILE = REPO / "dialects" / "rlx.irdl.mlir"
EVERY_OP = sorted((REPO / "lit_tests" / "dialect").glob("*roundtrip.mlir"))
"""The round-trip lit files: `roundtrip.mlir` (conv, pool, matmul) and one per import family."""
OPS = [op for op in rlx.RLX.operations]


def _short(op) -> str:
    return op.name.removeprefix("rlx.")


@pytest.fixture(scope="module")
def mlir_opt() -> str:
    from rlx_mlir.backend.toolchain import ToolchainError, find_tool

    try:
        return str(find_tool("mlir-opt").path)
    except ToolchainError as error:
        pytest.skip(f"no mlir-opt: {error}")


@pytest.fixture(scope="module")
def generic_every_op() -> str:
    """rlx-opt's generic form, properties as attributes, of the round-trip files (every op),
    as split input (`// -----` between modules)."""
    outputs = []
    for path in EVERY_OP:
        done = subprocess.run(
            [sys.executable, "-m", "rlx_mlir.tools.rlx_opt", str(path), "--split-input-file",
             "--print-op-generic", "--print-no-properties"],
            capture_output=True, text=True, timeout=120,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    return "\n// -----\n".join(outputs)


def _run_mlir_opt(mlir_opt: str, text: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [mlir_opt, f"--irdl-file={IRDL_FILE}", "--split-input-file", "-"],
        input=text, capture_output=True, text=True, timeout=120,
    )


# -- the committed file is the generated one ------------------------------------------------


def test_committed_irdl_is_fresh():
    committed = IRDL_FILE.read_text() if IRDL_FILE.exists() else "<missing>"
    assert committed == gen_irdl.generate(), (
        f"{IRDL_FILE.relative_to(REPO)} is stale: the RLX dialect changed. Regenerate it with\n"
        f"    {gen_irdl.COMMAND}\n"
        "and commit the result."
    )


def test_generator_cli_writes_the_same_text(tmp_path):
    out = tmp_path / "rlx.irdl.mlir"
    done = subprocess.run(
        [sys.executable, "-m", "rlx_mlir.tools.gen_irdl", "-o", str(out)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text() == gen_irdl.generate()


@pytest.mark.parametrize("op", OPS, ids=_short)
def test_every_op_is_described_with_all_its_properties(op):
    text = gen_irdl.generate()
    match = re.search(rf"irdl\.operation @{_short(op)} \{{(.*?)\n  \}}", text, re.S)
    assert match, f"no irdl.operation @{_short(op)}"
    body = match.group(1)
    listed = re.findall(r'^\s+"(\w+)" = %', body, re.M)
    assert listed == list(op.property_kinds())
    operands = re.search(r"irdl\.operands\((.*)\)", body)
    names = re.findall(r"(\w+): (?:variadic |optional )?%", operands.group(1)) if operands else []
    assert names == list(op.operand_names())


def test_bool_properties_accept_exactly_true_and_false():
    body = gen_irdl.generate().split("irdl.operation @avg_pool2d ")[1].split("irdl.operation")[0]
    assert "irdl.is true" in body and "irdl.is false" in body
    for flag in ("ceil_mode", "count_include_pad"):
        assert re.search(rf"%{flag} = irdl.any_of\(%true(_\d+)?, %false(_\d+)?\)", body), flag


def test_generator_rejects_a_property_of_no_known_kind():
    @irdl_op_definition
    class Mistyped(rlx.RlxOp):  # an i32 integer: no RLX property kind stores one
        name = "drift.mistyped"
        input = operand_def(rlx.FLOAT_TENSOR)
        result = result_def(rlx.FLOAT_TENSOR)
        groups = prop_def(IntegerAttr.constr(type=i32))

    with pytest.raises(gen_irdl.IrdlGenerationError, match="drift.mistyped: a property has a constraint that is no RLX"):
        gen_irdl.generate(Dialect("drift", [Mistyped]))


# -- upstream mlir-opt loads it ------------------------------------------------------------------


def test_irdl_file_parses_in_mlir_opt(mlir_opt):
    done = subprocess.run([mlir_opt, str(IRDL_FILE)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_mlir_opt_accepts_rlx_opt_generic_output_of_every_op(mlir_opt, generic_every_op):
    for op in OPS:
        assert f'"{op.name}"(' in generic_every_op, f"no round-trip file has {op.name}"
    done = _run_mlir_opt(mlir_opt, generic_every_op)
    assert done.returncode == 0, done.stderr
    for op in OPS:
        assert f'"{op.name}"(' in done.stdout


@pytest.mark.parametrize("op", [op for op in OPS if op.property_kinds()], ids=_short)
def test_mlir_opt_rejects_an_op_without_an_attribute(mlir_opt, generic_every_op, op):
    dropped = list(op.property_kinds())[-1]
    lines = generic_every_op.splitlines()
    index = next(i for i, line in enumerate(lines) if f'"{op.name}"(' in line)
    value = r"(array<[^>]*>|true|false|-?\d+ : i64|[-+.0-9e]+ : f64|\"[^\"]*\")"
    # The last of several attributes follows ", "; an op's only attribute fills the braces.
    edited, count = re.subn(rf"(, {dropped} = {value}|\{{{dropped} = {value}\}})", lambda m: "" if m.group(0).startswith(",") else "{}", lines[index])
    assert count == 1, lines[index]
    lines[index] = edited
    done = _run_mlir_opt(mlir_opt, "\n".join(lines))
    assert done.returncode != 0
    assert f"error: '{op.name}' op attribute \"{dropped}\" is expected but not provided" in done.stderr
