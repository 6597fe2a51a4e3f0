"""Workarounds for xDSL 0.75, each beside the behaviour it works around.

Each entry says what xDSL does, what we need instead and when it can go: on an xDSL
upgrade, run the check named in its note; where xDSL has been fixed, delete the entry
and write its call sites the plain way. Nothing else in rlx_mlir works around xDSL.

A trap with no entry, because no map needs it: xDSL 0.75's `AffineExpr.__rsub__` returns
`expr - value`, so `3 - d0` in a map lambda silently builds `d0 - 3`. Our maps never hold
a negative coefficient anyway (upstream tiling asserts on one and IREE mis-tiles it; a
flip is read with `tensor.extract`, as `conv_transpose.flipped_kernel` does).
"""

from __future__ import annotations

import re

from xdsl.dialects import arith
from xdsl.dialects import math as xdsl_math
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Dialect
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure, SameOperandsAndResultType
from xdsl.utils.mlir_lexer import MLIRLexer

# -- the lexer: string literals in linear time ------------------------------------------------


class LinearTimeLexer(MLIRLexer):
    """xDSL's lexer without its exponential case.

    xDSL 0.75 matches a string literal with `"(?:[^"...]+|escape)*"`: a `+` inside a `*`.
    On a quote that is never closed on its line, the regex engine tries every way of
    splitting the rest of the line and a one-character typo hangs the parser. The same
    language, one character per repetition, fails in linear time.

    Drop when `MLIRLexer._unescaped_characters_regex` has no nested repetition (the
    `unclosed-quote-hang` case of `tests/test_fuzz_rlx_opt.py` then passes with plain
    `MLIRLexer`).
    """

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


# -- linalg.pooling_nchw_max: upstream's body ------------------------------------------------


def set_pooling_max_body(pool: linalg.PoolingNchwMaxOp) -> None:
    """Give `pool` upstream's body: `yield max(acc, in)` over (in, window, acc).

    xDSL 0.75 builds this op's hidden region as `max(in, window)`: it reads the shape-only
    window operand instead of the accumulator. The custom form never prints the region,
    but the generic form (what the backend hands to mlir-opt) does, so a max-pool lowered
    by us would read an uninitialised window tensor.

    Drop when xDSL's `PoolingNchwMaxOp` body uses its third block argument
    (`lit_tests/convert-rlx-to-linalg/max-pool2d-generic-body.mlir` then passes without
    this).
    """
    block = Block(arg_types=[operand.type.element_type for operand in pool.operands])  # type: ignore[attr-defined]
    value, _window, acc = block.args
    largest = arith.MaximumfOp(acc, value)
    block.add_ops([largest, linalg.YieldOp(largest.result)])
    body = pool.regions[0]
    for old in list(body.blocks):
        body.detach_block(old).erase()
    body.add_block(block)


# -- math.erfc -----------------------------------------------------------------------------


@irdl_op_definition
class ErfcOp(xdsl_math.FloatingPointLikeUnaryMathOperation):
    """`math.erfc`, upstream MLIR's complementary error function (lowered to libm's erfc).

    xDSL 0.75's math dialect lacks it, and a user's input may hold it (our lowerings no
    longer emit it: IREE rejects it, so gelu evaluates its erfc tail from `math.exp`).
    This is upstream's name and syntax, so the printed IR is what mlir-opt expects; `MATH`
    is xDSL's math dialect with it, which `ir.make_context` and rlx-opt register.

    Drop when `xdsl.dialects.math` has `ErfcOp` (then `import_math_erfc` in
    `tests/test_activation_lowering.py` parses with plain xDSL).
    """

    name = "math.erfc"

    traits = traits_def(Pure(), SameOperandsAndResultType())


MATH = Dialect("math", [*xdsl_math.Math.operations, ErfcOp], [*xdsl_math.Math.attributes])
