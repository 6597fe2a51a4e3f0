"""The elementwise ops, reductions and addmm, lowered and run natively, against PyTorch 2.13.

Every configuration is one function of one module per element type (compiled once per
session); its test id names the op, the shapes and the dtype. A `?` batch runs with two
batch sizes.

Error bounds, and why:
- add, sub, mul, div, maximum, minimum, neg, abs: exact against PyTorch in the SAME
  dtype (each is one IEEE operation, correctly rounded in both; NaN/inf at the same
  places).
- sqrt: exact against the correctly rounded square root (IEEE `sqrt`, NumPy's), and within
  1 ulp of PyTorch's: PyTorch 2.13's CPU sqrt is NOT correctly rounded (measured: 17% of
  f32 and 1.3% of f64 results of 1e5 random inputs differ from the IEEE root by 1 ulp,
  each time PyTorch being the farther one), ours is `llvm.sqrt` (sqrtss/sqrtsd). Signed zeros are not compared (`assert_array_equal` has -0 == 0): torch's
  scalar and vectorised maximum disagree on max(-0, +0) themselves.
- integer add/sub/mul/maximum/minimum/sum: exact, two's-complement wrap included.
- exp, log, tanh, erf, rsqrt: within ULPS[op] units in the last place of the result,
  against the float64 oracle (`ulps`): the lowering calls libm (expf, logf, tanhf, erff,
  their f64 twins) or divides 1 by a correctly rounded sqrt, and PyTorch uses its own
  (Sleef) approximations, so neither is PyTorch's bits. Measured worst over these inputs
  (standard normal scaled, plus boundary values): see ULPS's comment.
- sum, mean, addmm: the oracle's sum-of-products model (`tests/oracle.py`), A = the op on
  |inputs| (mean and addmm with beta, alpha >= 0 have non-negative coefficients).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from oracle import assert_exact, assert_matches, assert_same_non_finite

FLOATS = {"f32": np.float32, "f64": np.float64}
INTS = {"i64": np.int64, "i32": np.int32}
NUMPY = {**FLOATS, **INTS}

# |got - want64| / ulp(want) bounds. Measured worst on 2e5 inputs per op and dtype (exp on
# U(-100, 88), log and rsqrt on |N(0,16)| * e**U(-30, 30), tanh and erf on N(0, 16)),
# ours / PyTorch's own same-dtype result:
#   f32: exp 0.50/0.56, log 0.79/0.80, tanh 2.04/0.51, erf 0.85/0.72, rsqrt 1.48/1.48
#   f64: exp 1.00/0, log 1.00/0, tanh 2.00/0, erf 1.00/0, rsqrt 0/0
# (f64's reference is PyTorch's own f64 result, itself ~1 ulp off, whence the whole ulps).
# tanh calls libm's tanhf/tanh (glibc documents 2 ulps); rsqrt is 1/sqrt, two roundings
# (<= 1.5 ulps). Each bound is the measured worst plus at least half an ulp.
ULPS = {"exp": 1.5, "log": 1.5, "tanh": 3.0, "erf": 1.5, "rsqrt": 2.0}


def _type(shape, element: str, dynamic: bool = False) -> str:
    dims = ["?" if dynamic and i == 0 else str(d) for i, d in enumerate(shape)]
    return f"tensor<{''.join(d + 'x' for d in dims)}{element}>"


def _label(shape) -> str:
    return "x".join(map(str, shape)) or "0d"


@dataclass(frozen=True)
class Case:
    """One RLX op in a function, its inputs' shapes and its oracle."""

    op: str
    shapes: tuple[tuple[int, ...], ...]
    result: tuple[int, ...]
    element: str = "f32"
    attrs: str = ""
    dynamic: tuple[bool, ...] = ()
    """Which operands (and, if any, the result) have a `?` leading dim."""
    tag: str = ""

    def __str__(self) -> str:
        dyn = "_dyn" if any(self.dynamic) else ""
        extra = f"_{self.tag}" if self.tag else ""
        attrs = re.sub(r"\W+", "_", self.attrs).strip("_")
        return f"{self.op}_{'_'.join(map(_label, self.shapes))}{'_' + attrs if attrs else ''}{extra}{dyn}_{self.element}"

    @property
    def symbol(self) -> str:
        return re.sub(r"\W", "_", str(self))

    @property
    def np_dtype(self):
        return NUMPY[self.element]

    def is_dynamic(self, index: int) -> bool:
        return bool(self.dynamic) and self.dynamic[index]

    def function(self) -> str:
        types = [_type(s, self.element, self.is_dynamic(i)) for i, s in enumerate(self.shapes)]
        result = _type(self.result, self.element, any(self.dynamic) and self.result_is_batched())
        args = [f"%a{i}" for i in range(len(self.shapes))]
        params = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
        return (
            f"func.func @{self.symbol}({params}) -> {result} {{\n"
            f"  %y = rlx.{self.op} {', '.join(args)}{self.attrs} : ({', '.join(types)}) -> {result}\n"
            f"  return %y : {result}\n}}\n"
        )

    def result_is_batched(self) -> bool:
        return True

    def batches(self) -> list[int | None]:
        return [None] if not any(self.dynamic) else [self.shapes[self.dynamic.index(True)][0], 5]

    def input_shapes(self, batch: int | None) -> list[tuple[int, ...]]:
        return [(batch, *s[1:]) if batch is not None and self.is_dynamic(i) else s for i, s in enumerate(self.shapes)]


# -- the module per element type, compiled once -------------------------------------------------

_MODULES: dict[str, object] = {}


def module_for(case: Case, compile_rlx):
    key = case.element
    if key not in _MODULES:
        text = "".join(c.function() for c in ALL_CASES if c.element == key)
        _MODULES[key] = compile_rlx(text)
    return _MODULES[key]


def _random(rng, shape, dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return np.asarray(rng.integers(-50, 50, size=shape)).astype(dtype)
    return np.asarray(rng.standard_normal(shape)).astype(dtype)


# -- binary ops -------------------------------------------------------------------------------

BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "maximum": torch.maximum, "minimum": torch.minimum,
}
BROADCASTS = [
    ((2, 3), (2, 3), (2, 3)),
    ((2, 3), (), (2, 3)),          # a Python scalar, as the importer passes it
    ((), (2, 3), (2, 3)),
    ((4, 1, 3), (2, 1), (4, 2, 3)),  # both expand, rhs lacks the leading dim
    ((3,), (2, 3), (2, 3)),
    ((2, 1, 1, 3), (1, 4, 2, 1), (2, 4, 2, 3)),
    ((), (), ()),
]
# The conv bias `y + b.reshape(C, 1, 1)` with a dynamic batch, and a [1, C] row.
DYNAMIC_BROADCASTS = [((3, 4, 2, 2), (4, 1, 1), (3, 4, 2, 2), (True, False)),
                      ((3, 4), (1, 4), (3, 4), (True, False)),
                      ((3, 4), (3, 4), (3, 4), (True, True))]

BINARY_CASES = [
    Case(op, (a, b), r, element)
    for element in FLOATS
    for op in BINARY
    for a, b, r in BROADCASTS
] + [
    Case(op, (a, b), r, element, dynamic=dyn)
    for element in FLOATS
    for op in BINARY
    for a, b, r, dyn in DYNAMIC_BROADCASTS
]

INTEGER_CASES = [
    Case(op, (a, b), r, element)
    for element in INTS
    for op in ("add", "sub", "mul", "maximum", "minimum")
    for a, b, r in [((2, 3), (), (2, 3)), ((), (), ()), ((4, 1, 3), (2, 1), (4, 2, 3))]
]

# Every pair of the IEEE special values, lhs and rhs: NaN, +-inf, +-0, finite.
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 3e38])
SPECIAL_CASES = [Case(op, ((64,), (64,)), (64,), element, tag="specials") for element in FLOATS for op in BINARY]


def binary_inputs(case: Case, batch) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = case.input_shapes(batch)
    if case.tag == "specials":
        pairs = np.array(np.meshgrid(SPECIALS, SPECIALS)).reshape(2, -1).astype(case.np_dtype)
        return [pairs[0], pairs[1]]
    inputs = [_random(rng, s, case.np_dtype) for s in shapes]
    if case.op == "div" or case.op in ("maximum", "minimum"):
        for x in inputs:  # ties and zeros where the shape allows
            x.reshape(-1)[::3] = 0
    return inputs


@pytest.mark.parametrize("case", BINARY_CASES + SPECIAL_CASES, ids=str)
def test_binary_matches_pytorch_exactly(case, compile_rlx):
    module = module_for(case, compile_rlx)
    for batch in case.batches():
        inputs = binary_inputs(case, batch)
        with np.errstate(all="ignore"):
            got = module[case.symbol](*inputs)
        want = BINARY[case.op](*(torch.from_numpy(np.asarray(x)) for x in inputs))
        assert_exact(got, want, dtype=case.np_dtype)


@pytest.mark.parametrize("pipeline", ["plain", "o3"])
def test_nan_propagation_in_the_unscheduled_pipelines(pipeline, compile_rlx):
    """max/min/div of every special pair through the scalar (plain) and LLVM-vectorized (o3)
    lowerings: `arith.maximumf` becomes `llvm.maximum`, on x86 vmaxss + vcmpunordss +
    vblendvps, which returns NaN when either side is NaN, as torch.maximum."""
    cases = [c for c in SPECIAL_CASES if c.element == "f32" and c.op in ("maximum", "minimum", "div")]
    module = compile_rlx("".join(c.function() for c in cases), pipeline)
    for case in cases:
        inputs = binary_inputs(case, None)
        got = module[case.symbol](*inputs)
        assert_exact(got, BINARY[case.op](*(torch.from_numpy(x) for x in inputs)), dtype=case.np_dtype)


@pytest.mark.parametrize("case", INTEGER_CASES, ids=str)
def test_integer_binary_matches_pytorch_exactly(case, compile_rlx):
    module = module_for(case, compile_rlx)
    inputs = binary_inputs(case, None)
    got = module[case.symbol](*inputs)
    assert_exact(got, BINARY[case.op](*(torch.from_numpy(np.asarray(x)) for x in inputs)), dtype=case.np_dtype)


WRAP_CASES = [Case(op, ((4,), (4,)), (4,), "i64", tag="wrap") for op in ("add", "sub", "mul")]


@pytest.mark.parametrize("case", WRAP_CASES, ids=str)
def test_integer_overflow_wraps_as_pytorch(case, compile_rlx):
    big = np.iinfo(np.int64)
    lhs = np.array([big.max, big.min, big.max, 3], np.int64)
    rhs = np.array([1, 1, 2, -big.max], np.int64)
    got = module_for(case, compile_rlx)[case.symbol](lhs, rhs)
    assert_exact(got, BINARY[case.op](torch.from_numpy(lhs), torch.from_numpy(rhs)), dtype=np.int64)


# -- unary ops --------------------------------------------------------------------------------

UNARY = {
    "neg": torch.neg, "abs": torch.abs, "sqrt": torch.sqrt, "exp": torch.exp, "log": torch.log,
    "rsqrt": torch.rsqrt, "tanh": torch.tanh, "erf": torch.erf,
}
EXACT_UNARY = {"neg", "abs"}
UNARY_SHAPES = [((3, 5, 7), False), ((), False), ((6, 33), True)]
UNARY_CASES = [
    Case(op, (shape,), shape, element, dynamic=(dyn,) if dyn else ())
    for element in FLOATS
    for op in UNARY
    for shape, dyn in UNARY_SHAPES
]
# Boundary values: NaN, +-inf, +-0, the subnormal range, the overflow and saturation edges.
UNARY_SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 1e-30, 88.7, 89.0, -103.0, -104.0,
                  709.0, 710.0, -745.0, 9.0, -9.0, 20.0, -20.0, 1.0, -1.0, 1e30, 3.4e38]


def unary_inputs(case: Case, batch) -> np.ndarray:
    (shape,) = case.input_shapes(batch)
    rng = np.random.default_rng(1)
    x = np.asarray(rng.standard_normal(shape) * 4).astype(case.np_dtype)
    flat = x.reshape(-1)
    if case.op in ("log", "sqrt", "rsqrt"):
        flat[:] = np.abs(flat) * np.exp(rng.uniform(-20, 20, flat.shape))
    if flat.size > len(UNARY_SPECIALS):
        with np.errstate(over="ignore"):
            flat[: len(UNARY_SPECIALS)] = np.array(UNARY_SPECIALS).astype(case.np_dtype)
    return x


def ulps(got: np.ndarray, want64: np.ndarray, dtype) -> np.ndarray:
    """|got - want| in units of the last place of the correctly rounded result (finite want)."""
    rounded = want64.astype(dtype)
    spacing = np.spacing(np.abs(rounded)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want64) / spacing


@pytest.mark.parametrize("case", UNARY_CASES, ids=str)
def test_unary_matches_pytorch(case, compile_rlx):
    module = module_for(case, compile_rlx)
    for batch in case.batches():
        x = unary_inputs(case, batch)
        with np.errstate(all="ignore"):
            got = module[case.symbol](x)
        if case.op in EXACT_UNARY:
            assert_exact(got, UNARY[case.op](torch.from_numpy(x)), dtype=case.np_dtype)
            continue
        if case.op == "sqrt":
            with np.errstate(invalid="ignore"):
                assert_exact(got, np.sqrt(x), dtype=case.np_dtype)
            torch_sqrt = torch.sqrt(torch.from_numpy(x)).numpy().astype(np.float64)
            finite = np.isfinite(torch_sqrt)
            assert float(ulps(got[finite], torch_sqrt[finite], case.np_dtype).max(initial=0.0)) <= 1.0
            continue
        want64 = UNARY[case.op](torch.from_numpy(x.astype(np.float64))).numpy()
        with np.errstate(over="ignore"):
            rounded = want64.astype(case.np_dtype)  # the correctly rounded value may overflow
        assert_same_non_finite(got, rounded, str(case))
        finite = np.isfinite(rounded)
        worst = float(ulps(got[finite], want64[finite], case.np_dtype).max(initial=0.0))
        assert worst <= ULPS[case.op], f"{case}: {worst:.3g} ulps > {ULPS[case.op]}"


# -- reductions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReductionCase(Case):
    dims: tuple[int, ...] = ()
    keepdim: bool = False

    def result_is_batched(self) -> bool:
        return self.keepdim or 0 not in self.dims


def _reduction(op, shape, dims, keepdim=False, element="f32", dynamic=False):
    result = tuple(1 if a in dims else s for a, s in enumerate(shape)) if keepdim else tuple(
        s for a, s in enumerate(shape) if a not in dims
    )
    attrs = f" dims [{', '.join(map(str, dims))}]" + (" keepdim true" if keepdim else "")
    return ReductionCase(op, (shape,), result, element, attrs, (True,) if dynamic else (), dims=dims, keepdim=keepdim)


REDUCTION_CASES = [
    _reduction(op, shape, dims, keepdim, element, dynamic)
    for element in FLOATS
    for op in ("sum", "mean")
    for shape, dims, keepdim, dynamic in [
        ((2, 3, 4), (1,), False, False),
        ((2, 3, 4), (0, 2), True, False),
        ((2, 3, 4), (0, 1, 2), False, False),   # to 0-d
        ((2, 3, 4), (0, 1, 2), True, False),    # to [1, 1, 1]
        ((4, 3, 8, 8), (0, 2, 3), False, False),  # a conv bias's gradient
        ((5, 7), (1,), True, True),
        ((5, 7), (0,), False, True),            # over a dynamic batch: mean reads its count
        ((0, 3), (0,), False, False),           # empty: sum 0, mean NaN
        ((64, 4096), (1,), False, False),       # a long sum
    ]
] + [_reduction("sum", (2, 3, 4), (0, 2), True, "i64"), _reduction("sum", (6, 5), (0, 1), False, "i64")]


@pytest.mark.parametrize("case", REDUCTION_CASES, ids=str)
def test_reduction_matches_pytorch(case, compile_rlx):
    module = module_for(case, compile_rlx)
    op = torch.sum if case.op == "sum" else torch.mean
    for batch in case.batches():
        (shape,) = case.input_shapes(batch)
        x = _random(np.random.default_rng(2), shape, case.np_dtype)
        with np.errstate(all="ignore"):
            got = module[case.symbol](x)
        if case.element in INTS:
            assert_exact(got, op(torch.from_numpy(x), case.dims, case.keepdim), dtype=case.np_dtype)
        else:
            assert_matches(got, lambda t: op(t, case.dims, case.keepdim), [x], label=str(case))


# -- addmm ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddmmCase(Case):
    beta: float = 1.0
    alpha: float = 1.0
    nan_bias: bool = False
    inf_lhs: bool = False


def _addmm(bias, m, k, n, beta=1.0, alpha=1.0, element="f32", dynamic=False, nan_bias=False, inf_lhs=False):
    attrs = (f" beta {beta!r}" if beta != 1.0 else "") + (f" alpha {alpha!r}" if alpha != 1.0 else "")
    dyn = (len(bias) == 2 and bias[0] == m, True, False) if dynamic else ()
    return AddmmCase("addmm", (bias, (m, k), (k, n)), (m, n), element, attrs, dyn,
                     tag="nanbias" if nan_bias else "inflhs" if inf_lhs else "", beta=beta, alpha=alpha,
                     nan_bias=nan_bias, inf_lhs=inf_lhs)


ADDMM_CASES = [
    case
    for element in FLOATS
    for case in [
        _addmm((5,), 3, 4, 5, element=element),          # nn.Linear's bias
        _addmm((3, 5), 3, 4, 5, element=element),
        _addmm((1, 5), 3, 4, 5, element=element),
        _addmm((3, 1), 3, 4, 5, element=element),
        _addmm((), 3, 4, 5, element=element),
        _addmm((5,), 3, 4, 5, 0.5, 2.0, element=element),
        _addmm((3, 5), 3, 4, 5, 1.0, 0.25, element=element),
        _addmm((5,), 3, 4, 5, 0.0, 1.0, element=element, nan_bias=True),  # beta 0 ignores NaN
        _addmm((5,), 3, 4, 5, 0.0, 3.0, element=element, nan_bias=True),
        _addmm((5,), 3, 4, 5, 0.5, 0.0, element=element, inf_lhs=True),  # alpha 0 ignores inf
        _addmm((5,), 3, 0, 5, element=element),          # empty contraction: the bias
        _addmm((5,), 3, 0, 5, 2.0, 1.0, element=element),
        _addmm((5,), 3, 16, 5, element=element, dynamic=True),
        _addmm((3, 5), 3, 16, 5, 0.5, 1.0, element=element, dynamic=True),
    ]
]


@pytest.mark.parametrize("case", ADDMM_CASES, ids=str)
def test_addmm_matches_pytorch(case, compile_rlx):
    module = module_for(case, compile_rlx)
    for batch in case.batches():
        rng = np.random.default_rng(3)
        inputs = [_random(rng, s, case.np_dtype) for s in case.input_shapes(batch)]
        if case.nan_bias:
            inputs[0][...] = np.nan
        if case.inf_lhs:
            inputs[1][0, 0] = np.inf
        got = module[case.symbol](*inputs)
        assert_matches(
            got, lambda c, a, b: torch.addmm(c, a, b, beta=case.beta, alpha=case.alpha), inputs, label=str(case)
        )


ALL_CASES = [*BINARY_CASES, *SPECIAL_CASES, *INTEGER_CASES, *WRAP_CASES, *UNARY_CASES, *REDUCTION_CASES, *ADDMM_CASES]
