"""Fuzzing `rlx-opt` with mutated RLX modules: a clean diagnostic or verifying output, always.

Valid modules (every op of lit_tests/dialect/roundtrip.mlir, custom and generic form, and
examples/lenet_backward.mlir) are mutated token by token: tokens dropped, duplicated,
swapped or inserted, numbers and element types changed, the type of a property's
attribute changed (`1 : i64` to `1 : i632`, `array<i64: ...>` to `array<f64: ...>`) or its
literal swapped for one of another kind (an integer for a float, a bool, a string),
tensor dimensions changed, the text truncated. Whatever comes out, `rlx-opt` must either succeed with output that parses
and verifies again, or exit 1 with an mlir-opt style `error:` diagnostic: never another
exit code, a Python traceback, an internal error or a hang. The lowering passes see the
mutants too, so the patterns meet weird but valid input.

Most examples run in-process (`rlx_opt.main`, ~50 ms each); a few go through a real
subprocess and a pipe. The examples are derandomized so CI is reproducible; set
RLX_MLIR_FUZZ_EXAMPLES=N for a longer, random run.

An internal error (exit 70, `rlx-opt: internal error: ...`) always fails: a bug of ours is
never a diagnostic (a TypeError in a pattern used to print as `rlx-opt: error:`,
exit 1, and pass). A mutant that verifies must also lower: the lowering passes succeed, no
`rlx.` op is left, and upstream mlir-opt verifies the output; a sample of those is compiled
to native code too. `test_the_oracle_catches_*` plant each kind of bug and check that the
judge fails on it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlx_mlir.backend import compile_module
from rlx_mlir.backend.compile import UnsupportedElementType
from rlx_mlir.backend.toolchain import find_tool
from rlx_mlir.errors import EXIT_INTERNAL_ERROR
from rlx_mlir.ir import DiagnosticError, make_context, parse_module
from rlx_mlir.tools import rlx_opt

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
RLX_OPT = [str(BIN / "rlx-opt")] if (BIN / "rlx-opt").exists() else [sys.executable, "-m", "rlx_mlir.tools.rlx_opt"]
LOWER = ["--decompose-backward", "--convert-rlx-to-linalg"]
LOWER_VARIANT = ["--decompose-backward=conv-weight=im2col conv-input=transpose pool-ties=all", "--convert-rlx-to-linalg"]
HANG_SECONDS = 30

EXTRA = os.environ.get("RLX_MLIR_FUZZ_EXAMPLES")


def fuzz_settings(examples: int):
    return settings(
        max_examples=int(EXTRA) if EXTRA else examples,
        derandomize=EXTRA is None,
        deadline=None,  # hangs are caught by an alarm instead (see `no_hang`)
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# -- seeds ----------------------------------------------------------------------------------------


def _without_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")) + "\n"


def _seeds() -> list[str]:
    roundtrip = _without_comments((ROOT / "lit_tests" / "dialect" / "roundtrip.mlir").read_text())
    custom = re.findall(r"^func\.func.*?^\}\n", roundtrip, re.S | re.M)
    generic = []
    for text in custom:
        stream = io.StringIO()
        from xdsl.printer import Printer

        Printer(stream=stream, print_generic_format=True).print_op(parse_module(make_context(), text))
        generic.append(stream.getvalue())
    return custom + generic + [_without_comments((ROOT / "examples" / "lenet_backward.mlir").read_text())]


SEEDS = _seeds()

# A shape such as `?x3x8x8xf32` is one token, so that dimensions can be changed one by one.
TOKEN = re.compile(r"\s+|(?:[\d?]+x)+[A-Za-z]\w*|%[\w#]+|@\w+|-?\d+(?:\.\d+)?|[A-Za-z_][\w.$-]*|->|.", re.S)
NUMBERS = ["0", "1", "2", "3", "7", "-1", "-2", "100", "65536", "4294967296", "9223372036854775807",
           "-9223372036854775808", "18446744073709551616", "1.5", "0x10"]
ELEMENT_TYPES = ["f16", "f32", "f64", "bf16", "i1", "i32", "i64", "index", "complex<f32>", "f8E4M3FN"]
ELEMENT_RE = re.compile(r"(f16|f32|f64|bf16)$")
# The type of a property's attribute (`1 : i64`, `array<i64: 1, 1>`, `1.0e-05 : f64`): a
# width MLIR accepts but a property does not (i632 and i65 also more than an array holds),
# a signedness, a float where an integer belongs and the reverse.
ATTRIBUTE_TYPES = ["i1", "i8", "i32", "i64", "i65", "i632", "si64", "ui64", "f16", "f32", "f64", "index"]
ATTRIBUTE_TYPE_RE = re.compile(r"[su]?i\d+|f\d+|bf16|index")
# A literal of another kind in place of a number or a bool.
LITERALS = ["true", "false", "1", "-1", "1.0", "0.5", '"mean"']
LITERAL_RE = re.compile(r"-?\d+(?:\.\d+)?|true|false")
DIMS = ["?", "0", "1", "2", "3", "5", "64"]
VOCAB = ["?", "x", "[", "]", "{", "}", "(", ")", ",", ":", "<", ">", "=", "->", "%x", "%w", "%y", "@f", '"',
         "rlx.conv2d", "rlx.max_pool2d", "rlx.matmul", "rlx.im2col", "func.return", "stride", "padding",
         "dilation", "groups", "kernel_size", "output_padding", "count_include_pad", "true", "false",
         "tensor<*xf32>", "tensor<2x?xf32>", "memref<2xf32>", "array<i32: 1, 1>", "array<i64: 1, 1, 1>",
         "1 : i32", "dense<1> : tensor<2xi64>", "unit", "^bb0", "loc(unknown)", "#map"]


# Token edits mostly break the syntax; number, element type and dimension changes mostly
# keep it and reach the verifiers and the passes. Weighted so that both are common.
KINDS = ["drop", "duplicate", "swap", "insert"] + ["number", "element", "dim"] * 3 + ["type", "literal"] * 2


# Edits that keep every use of a type in line with its definition: the element type or
# one shape changed everywhere. These mostly give valid modules, new to the passes.
CONSISTENT = ["element-everywhere", "shape-everywhere", "number"]

# Edits that keep a module valid more often than not: another float type everywhere, or
# another batch size (static, dynamic or 0) for every tensor that had the same batch. These
# reach the lowering passes and the backend with modules they have not seen.
VALID = ["float-everywhere", "batch-everywhere"]
FLOATS = ["f16", "f32", "f64", "bf16"]
SHAPE_RE = re.compile(r"(?:[\d?]+x)+[A-Za-z]\w*")


@st.composite
def mutants(draw, kinds: list[str] = KINDS) -> str:
    """A seed with 1 to 4 mutations, sometimes truncated."""
    tokens = TOKEN.findall(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        if not tokens:
            break
        kind = draw(st.sampled_from(kinds))
        if kind in ("element-everywhere", "float-everywhere"):
            new = draw(st.sampled_from(ELEMENT_TYPES if kind == "element-everywhere" else FLOATS))
            tokens = [ELEMENT_RE.sub(new, t) for t in tokens]
            continue
        if kind == "batch-everywhere":
            batches = sorted({t.split("x")[0] for t in tokens if SHAPE_RE.fullmatch(t) and t.count("x") == 4})
            if batches:
                old, new = draw(st.sampled_from(batches)), draw(st.sampled_from(["?", "0", "1", "3"]))
                tokens = [
                    new + t[len(old):] if SHAPE_RE.fullmatch(t) and t.count("x") == 4 and t.split("x")[0] == old else t
                    for t in tokens
                ]
            continue
        if kind == "shape-everywhere":
            shapes = sorted({t for t in tokens if re.fullmatch(r"(?:[\d?]+x)+[A-Za-z]\w*", t)})
            if shapes:
                old = draw(st.sampled_from(shapes))
                parts = old.split("x")
                parts[draw(st.integers(0, len(parts) - 2))] = draw(st.sampled_from(DIMS))
                tokens = ["x".join(parts) if t == old else t for t in tokens]
            continue
        i = draw(st.integers(0, len(tokens) - 1))
        if kind == "drop":
            del tokens[i]
        elif kind == "duplicate":
            tokens.insert(i, tokens[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif kind == "insert":
            tokens.insert(i, draw(st.sampled_from(VOCAB)))
        else:
            if kind == "number":
                where = [k for k, t in enumerate(tokens) if re.fullmatch(r"-?\d+", t)]
            elif kind == "element":
                where = [k for k, t in enumerate(tokens) if ELEMENT_RE.search(t)]
            elif kind == "type":
                where = [k for k, t in enumerate(tokens) if ATTRIBUTE_TYPE_RE.fullmatch(t)]
            elif kind == "literal":
                where = [k for k, t in enumerate(tokens) if LITERAL_RE.fullmatch(t)]
            else:
                where = [k for k, t in enumerate(tokens) if re.fullmatch(r"(?:[\d?]+x)+[A-Za-z]\w*", t)]
            if not where:
                continue
            k = draw(st.sampled_from(where))
            if kind == "number":
                tokens[k] = draw(st.sampled_from(NUMBERS))
            elif kind == "element":
                tokens[k] = ELEMENT_RE.sub(draw(st.sampled_from(ELEMENT_TYPES)), tokens[k])
            elif kind == "type":
                tokens[k] = draw(st.sampled_from(ATTRIBUTE_TYPES))
            elif kind == "literal":
                tokens[k] = draw(st.sampled_from(LITERALS))
            else:
                parts = tokens[k].split("x")
                parts[draw(st.integers(0, len(parts) - 2))] = draw(st.sampled_from(DIMS))
                tokens[k] = "x".join(parts)
    text = "".join(tokens)
    if text and draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text) - 1))]
    return text


# -- running rlx-opt and judging the outcome ------------------------------------------------------


@contextlib.contextmanager
def no_hang(seconds: int = HANG_SECONDS):
    def on_alarm(_signum, _frame):
        raise TimeoutError(f"rlx-opt did not finish within {seconds}s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def scratch():
    with tempfile.TemporaryDirectory(prefix="rlx-fuzz-") as directory:
        yield Path(directory) / "mutant.mlir"


def run_in_process(path: Path, text: str, args: list[str]) -> tuple[int, str, str]:
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    with no_hang(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = rlx_opt.main([str(path), *args])
    return code, out.getvalue(), err.getvalue()


DIAGNOSTIC = re.compile(r"^(?:\S.*:\d+:\d+|rlx-opt): error: \S", re.M)


def judge(code: int, out: str, err: str, text: str) -> None:
    """Exit 0 with output that parses and verifies again, or exit 1 with a diagnostic."""
    shown = f"\n--- input ---\n{text}\n--- stderr ---\n{err}"
    assert code != EXIT_INTERNAL_ERROR, f"internal error{shown}"
    assert code in (0, 1), f"exit code {code}{shown}"
    assert "Traceback" not in err and "internal error" not in err, shown
    if code == 1:
        assert DIAGNOSTIC.search(err), f"no error: diagnostic{shown}"
        assert out == "", f"output despite the error{shown}"
        return
    try:
        parse_module(make_context(), out, "<output>")
    except DiagnosticError as error:
        pytest.fail(f"the output does not parse and verify again: {error}{shown}\n--- output ---\n{out}")


def lower_judged(path: Path, text: str, variant: list[str]) -> str | None:
    """`judge` the lowering of `text`; if `text` verifies, it must lower completely.

    Returns the lowered output of a mutant that verifies, None for one that does not.
    """
    verified = run_in_process(path, text, [])
    judge(*verified, text)
    code, out, err = run_in_process(path, text, variant)
    judge(code, out, err, text)
    if verified[0] != 0:
        return None
    shown = f"\n--- input ---\n{text}\n--- stderr ---\n{err}"
    assert code == 0, f"the mutant verifies but does not lower ({' '.join(variant)}){shown}"
    left = sorted(set(re.findall(r"\brlx\.\w+", out)))
    assert not left, f"{', '.join(left)} left after {' '.join(variant)}{shown}\n--- output ---\n{out}"
    upstream = subprocess.run([str(find_tool("mlir-opt").path), "-"], input=out, capture_output=True, text=True, timeout=120)
    assert upstream.returncode == 0, (
        f"mlir-opt rejects the lowered output:\n{upstream.stderr}{shown}\n--- output ---\n{out}"
    )
    return out


# -- the properties -------------------------------------------------------------------------------


def test_seeds_are_valid(scratch):
    """The fuzzer starts from valid modules, so every failure is a mutation's doing."""
    assert len(SEEDS) >= 30
    for seed in SEEDS:
        code, out, err = run_in_process(scratch, seed, LOWER)
        assert code == 0, err
        assert "rlx." not in out


@fuzz_settings(examples=150)
@given(text=mutants())
def test_mutants_parse_or_fail_cleanly(scratch, text):
    judge(*run_in_process(scratch, text, []), text)


@fuzz_settings(examples=150)
@given(text=st.one_of(mutants(CONSISTENT), mutants(VALID), mutants()), variant=st.sampled_from([LOWER, LOWER_VARIANT]))
def test_mutants_lower_or_fail_cleanly(scratch, text, variant):
    lower_judged(scratch, text, variant)


@fuzz_settings(examples=15)
@given(text=mutants(VALID))
def test_mutants_that_verify_compile(scratch, text):
    """Lowered mutants are compiled with the default pipeline and loaded (a new library each).

    A refusal of an element type that compiled code cannot be called with (bf16, f8) is
    the one accepted failure, and it must be located.
    """
    out = lower_judged(scratch, text, LOWER)
    if out is None:
        return
    try:
        compile_module(out)
    except UnsupportedElementType as error:
        assert re.fullmatch(r"<input>:\d+:\d+", error.location or ""), str(error)


@fuzz_settings(examples=4)
@given(text=mutants())
def test_mutants_through_a_real_process_and_a_pipe(text):
    """The installed tool: exit code, stderr and no hang (a subprocess timeout); output piped back in."""
    env = {k: v for k, v in os.environ.items() if k != "RLX_MLIR_DEBUG"}
    first = subprocess.run([*RLX_OPT, *LOWER], input=text, capture_output=True, text=True, timeout=120, env=env)
    judge(first.returncode, first.stdout, first.stderr, text)
    if first.returncode == 0:
        again = subprocess.run(RLX_OPT, input=first.stdout, capture_output=True, text=True, timeout=120, env=env)
        assert again.returncode == 0, again.stderr


# -- what the fuzzer found, kept as plain regression cases ----------------------------------------

FOUND = [
    # xDSL's string-literal regex backtracked exponentially on an unclosed quote: a hang.
    pytest.param(
        SEEDS[-1].replace("tensor<?x3x32x32xf32>, %w", 'tensor<"x3x32x32xf32>, %w', 1),
        r"^{path}:\d+:\d+: error: End of file reached before closing string literal\.$",
        id="unclosed-quote-hang",
    ),
    # The parser lexes its first token when it is made, outside the error handling: a traceback.
    pytest.param('"', r"^{path}:1:1: error: End of file reached before closing string literal\.$", id="lone-quote"),
    # An integer out of range raised ValueError while parsing: an error without a location.
    pytest.param(
        SEEDS[0].replace("stride [1, 1]", "stride [1, 99999999999999999999]"),
        r"^{path}:2:\d+: error: 'rlx.conv2d' op an array element is out of range for its element type",
        id="integer-out-of-range-located",
    ),
    # xDSL cannot pack array elements wider than 64 bits (valid MLIR): NotImplementedError, exit 70.
    pytest.param(
        SEEDS[len(SEEDS) // 2].replace("array<i64", "array<i632", 1),
        r"^{path}:\d+:\d+: error: '[\w.]+' op expected array elements of at most 64 bits, got an array<i632: \.\.\.>$",
        id="wide-array-element-located",
    ),
    # xDSL's message fragment " in block definition" printed as `error:  in block definition`.
    pytest.param(
        'func.func @f() {\n^bb0:\n  func.return\n}\n"builtin.module"() ({<^bb0:\n}) : () -> ()\n',
        r"^{path}:5:\d+: error: unexpected '<' in block definition$",
        id="fragment-message",
    ),
]


@pytest.mark.parametrize("text, pattern", FOUND)
def test_found_by_fuzzing(scratch, text, pattern):
    code, out, err = run_in_process(scratch, text, [])
    judge(code, out, err, text)
    assert code == 1
    assert re.search(pattern.format(path=re.escape(str(scratch))), err, re.M), err


# -- the oracle fails on each kind of bug ---------------------------------------------------------

SEED_BACKWARD = next(seed for seed in SEEDS if "rlx.conv2d_backward_weight" in seed)


def test_the_oracle_catches_an_exception_in_a_pattern(scratch, monkeypatch):
    """A pattern raising TypeError used to pass as `rlx-opt: error: unsupported operand ...`."""
    from rlx_mlir.transforms.conv import backward_weight as conv_backward_weight

    def broken(self, op, rewriter):
        return 1 + "1"

    monkeypatch.setattr(conv_backward_weight.ConvBackwardWeightDirect, "match_and_rewrite", broken)
    with pytest.raises(AssertionError, match="internal error"):
        lower_judged(scratch, SEED_BACKWARD, LOWER)


def test_the_oracle_catches_a_pass_that_leaves_an_op(scratch, monkeypatch):
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    monkeypatch.setattr(DecomposeBackwardPass, "apply", lambda self, ctx, module: None)
    with pytest.raises(AssertionError, match=r"rlx\.conv2d_backward_weight left after"):
        lower_judged(scratch, SEED_BACKWARD, LOWER)


def test_the_oracle_catches_output_mlir_opt_rejects(scratch, monkeypatch):
    """Output that xDSL verifies but upstream MLIR does not (here: an unregistered op)."""
    from xdsl.dialects import test
    from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass

    original = ConvertRlxToLinalgPass.apply

    def apply(self, ctx, module):
        original(self, ctx, module)
        module.body.block.add_op(test.TestOp())

    monkeypatch.setattr(ConvertRlxToLinalgPass, "apply", apply)
    with pytest.raises(AssertionError, match="mlir-opt rejects the lowered output"):
        lower_judged(scratch, SEED_BACKWARD, LOWER)


def test_the_oracle_catches_a_verified_mutant_that_does_not_lower(scratch, monkeypatch):
    """A pass that rejects a valid module with a clean diagnostic is still a failure to lower."""
    from xdsl.utils.exceptions import PassFailedException
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    def refuse(self, ctx, module):
        raise PassFailedException("cannot lower this")

    monkeypatch.setattr(DecomposeBackwardPass, "apply", refuse)
    with pytest.raises(AssertionError, match="verifies but does not lower"):
        lower_judged(scratch, SEED_BACKWARD, LOWER)
