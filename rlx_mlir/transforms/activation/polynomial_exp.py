"""exp(x) in f32 from arith ops only, so that the loop around it vectorizes.

`math.exp` becomes LLVM's `llvm.exp` intrinsic, which LLVM's loop vectorizer widens only
with a vector math library; without one the loop stays scalar and calls `expf` once per
element. GELU and the logistic activations spent most of their time in those calls (a
GPT step's GELU forward and backward: 88 ms on 8 x 256 x 1536 f32, 2 threads; 34 ms with
this body). It is the textbook reduction, every step a vector instruction:

    x' = clamp(x, -104, 89)                # beyond: exp is 0 or inf in f32 either way
    n  = roundeven(x' log2 e)              # an integer, |n| <= 150
    r  = (x' - n ln2_hi) - n ln2_lo         # |r| <= ln2 / 2; n ln2_hi is exact (Cody-Waite)
    p  = sum_{k <= 7} r^k / k!              # Horner; the truncation is 5e-9 relative
    exp(x) = (p 2^n1) 2^n2,  n1 = n >> 1, n2 = n - n1

The scale is two factors 2^n1, 2^n2 built from their exponent bits, each a normal number
for every n in range, so a result in the subnormal range is rounded once, by the last
product. NaN stays NaN (the clamp propagates it and a select returns x). Other float
types keep `math.exp` (f64 is not a vector hot path, and its libm call is exact to 1 ulp).

Attention's softmax keeps `math.exp`: its weights were measured 10% slower with this body
(the block loop's time goes elsewhere, and the longer body cost more than the calls).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import Float32Type, i32
from xdsl.ir import SSAValue

from rlx_mlir.transforms.builders import RegionBuilder

LN2_HI = 0.693359375
"""ln 2 to 9 significant bits: n * LN2_HI is exact in f32 for |n| < 2^15."""
LN2_LO = math.log(2.0) - LN2_HI
"""The rest of ln 2 (-2.12194440e-4)."""
TAYLOR_DEGREE = 7
"""exp(r) to r^7 / 7!: the first omitted term is below 0.1 ulp of f32 for |r| <= ln2 / 2."""
F32_EXPONENT_BIAS, F32_MANTISSA_BITS = 127, 23
CLAMP_LOW, CLAMP_HIGH = -104.0, 89.0
"""exp(-104) is below half the smallest f32 subnormal (rounds to 0); exp(89) overflows."""


def exp(r: RegionBuilder, x: SSAValue) -> SSAValue:
    """exp(x): the vectorizable reduction for f32 (module docstring), `math.exp` otherwise."""
    if not isinstance(x.type, Float32Type):
        return r.value(math_dialect.ExpOp(x))
    f32 = x.type
    clamped = r.value(arith.MinimumfOp(r.value(arith.MaximumfOp(x, r.constant(CLAMP_LOW, f32))),
                                       r.constant(CLAMP_HIGH, f32)))
    n = r.value(math_dialect.RoundEvenOp(r.mul(clamped, r.constant(1.0 / math.log(2.0), f32))))
    reduced = r.sub(r.sub(clamped, r.mul(n, r.constant(LN2_HI, f32))), r.mul(n, r.constant(LN2_LO, f32)))
    p = r.constant(1.0 / math.factorial(TAYLOR_DEGREE), f32)
    for k in range(TAYLOR_DEGREE - 1, -1, -1):
        p = r.add(r.mul(p, reduced), r.constant(1.0 / math.factorial(k), f32))
    whole = r.value(arith.FPToSIOp(n, i32))
    half = r.value(arith.ShRSIOp(whole, r.constant(1, i32)))
    scaled = r.mul(r.mul(p, _power_of_two(r, half)), _power_of_two(r, r.sub(whole, half)))
    return r.select(r.cmpf("uno", x, x), x, scaled)


def _power_of_two(r: RegionBuilder, k: SSAValue) -> SSAValue:
    """2^k as f32 from its exponent bits, for -126 <= k <= 127."""
    bits = r.value(arith.ShLIOp(r.add(k, r.constant(F32_EXPONENT_BIAS, i32)), r.constant(F32_MANTISSA_BITS, i32)))
    return r.value(arith.BitcastOp(bits, Float32Type()))
