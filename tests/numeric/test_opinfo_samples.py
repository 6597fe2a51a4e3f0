"""PyTorch's own OpInfo samples of every conv and pool op, in RLX, against PyTorch.

`opinfo_translate` turns each sample of `op_db` (conv, conv_transpose, max/avg/adaptive
pools in 1-D, 2-D and 3-D, and unfold) into RLX functions: the forward op and every
gradient. Here:

- `test_every_opinfo_sample_is_expressible`: every sample of every OpInfo, in f32 and f64,
  is translated and each of its functions parses and verifies. The bar is 100%.
- `test_opinfo_sample_matches_pytorch`: a sample's functions compiled and run on the
  sample's own inputs and a random cotangent; the forward against PyTorch's result and
  every gradient against `torch.autograd.grad`, through `oracle.py`'s error model (max and
  copies exactly). One module per OpInfo and dtype, compiled once per session: each
  distinct function is lowered on its own, so a function we cannot lower yet is reported
  for its samples and does not take the others down, and the lowered functions are built
  as one library.

Which samples run natively: the OpInfo database has 6,478 samples here (max_pool2d alone
1,440, a product of every option), ~860 distinct functions per dtype, and a cold native
build costs ~0.3 s per function on the CI machine. So by default (CI) each OpInfo runs a
greedy cover of its samples: samples are added until every option value that occurs in the
OpInfo (each property value, each input shape, unbatched, empty batch, bias,
return_indices) is covered, in alternating dtypes, both dtypes at least once.
`RLX_MLIR_OPINFO=all` runs every sample in both dtypes (minutes of build time).

A sample whose op does not parse yet, or that our passes refuse to lower yet (an
`InternalRewriteError`: no pattern, or a pattern's own check), is an xfail naming the op
and the diagnostic. One that a pass rewrites into IR that does not verify, whose lowered IR
does not build, or whose numbers differ, fails, except the known defect of static
zero-size dimensions (see KNOWN_DEFECTS).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from oracle import assert_exact, assert_within_bound
from numeric.opinfo_translate import DTYPES, Function, Sample, all_samples, one_thread, opinfos, samples

MODE = os.environ.get("RLX_MLIR_OPINFO", "ci")
assert MODE in ("ci", "all"), f"RLX_MLIR_OPINFO must be 'ci' or 'all', not {MODE!r}"

# A build failure matching one of these is an xfail with its reason instead of a failure.
KNOWN_DEFECTS = [
    (
        re.compile(r"tensor<(?:\d+x)*0x"),
        re.compile(r"offset \d+ is out-of-bounds"),
        "known defect: with a static zero-size dimension our lowering emits a strided "
        "tensor.insert_slice that mlir-opt 22 rejects ('offset 0 is out-of-bounds: 0 >= 0'); "
        "seen for conv2d_backward_input, conv_transpose2d and max_pool2d_backward",
    ),
]


# --------------------------------------------------------------------------------------
# Which samples run natively
# --------------------------------------------------------------------------------------

_ATTR = re.compile(r"(\w+) (\[[^\]]*\]|-?\w+)")


def features(sample: Sample) -> set[str]:
    """The option values a sample exercises: every property value, shapes, notes."""
    out = {f"note:{n}" for n in sample.notes}
    x = sample.arrays.get("x")
    if x is not None:
        out.add(f"x:{x.shape[1:]}")
        out.add("batch:0" if x.shape[0] == 0 else "batch:1" if x.shape[0] == 1 else "batch:>1")
    for f in sample.functions:
        out.add(f"op:{f.op}")
        out.update(f"{f.role}:{name}={value}" for name, value in _ATTR.findall(f.attrs))
    return out


@functools.lru_cache(maxsize=None)
def ci_selection(opinfo: str) -> tuple[tuple[str, int], ...]:
    """(dtype, index) pairs: a greedy cover of the OpInfo's option values, dtypes alternating."""
    pool = [s for s in samples(opinfo, "f64") if s.expressible]
    uncovered = set().union(*(features(s) for s in pool)) if pool else set()
    chosen: list[int] = []
    while uncovered:
        best = max(pool, key=lambda s: (len(features(s) & uncovered), -s.index))
        chosen.append(best.index)
        uncovered -= features(best)
    chosen.sort()
    picks = [("f64" if i % 2 == 0 else "f32", index) for i, index in enumerate(chosen)]
    if len(picks) == 1:
        picks.append(("f32", chosen[0]))
    return tuple(picks)


def selected() -> list[tuple[str, str, int]]:
    if MODE == "all":
        return [(s.opinfo, s.dtype, s.index) for s in all_samples()]
    return [(name, dtype, index) for name in opinfos() for dtype, index in ci_selection(name)]


# --------------------------------------------------------------------------------------
# One module per OpInfo and dtype
# --------------------------------------------------------------------------------------


@dataclass
class Problem:
    kind: str  # "parse" (the op or a property does not parse yet), "lowering", "build"
    function: Function
    message: str


@dataclass
class Group:
    native: object = None
    symbols: dict[str, str] = field(default_factory=dict)  # Function.key -> symbol
    problems: dict[str, Problem] = field(default_factory=dict)


def _first_line(error: Exception) -> str:
    lines = [line for line in str(error).splitlines() if "error:" in line] or str(error).splitlines() or [""]
    return f"{type(error).__name__}: {lines[0].strip()[:300]}"


def _lower_one(ctx, text: str) -> ModuleOp:
    from rlx_mlir.ir import parse_module, verify_pass_output
    from rlx_mlir.transforms.convert_rlx_to_linalg import ConvertRlxToLinalgPass
    from rlx_mlir.transforms.decompose_backward import DecomposeBackwardPass

    module = parse_module(ctx, text)
    for pass_ in (DecomposeBackwardPass(), ConvertRlxToLinalgPass()):
        pass_.apply(ctx, module)
        verify_pass_output(module, pass_.name)
    return module


def _merge(modules: list[ModuleOp]) -> ModuleOp:
    merged = ModuleOp([])
    for module in modules:
        for op in list(module.body.block.ops):
            assert isinstance(op, func.FuncOp)
            op.detach()
            merged.body.block.add_op(op)
    return merged


_groups: dict[tuple[str, str], Group] = {}


def group(opinfo: str, dtype: str, wanted: frozenset[int]) -> Group:
    """The compiled module of the wanted samples' distinct functions (built once)."""
    if (opinfo, dtype) in _groups:
        return _groups[(opinfo, dtype)]
    from rlx_mlir.backend import compile_module
    from rlx_mlir.backend.interface import prepare
    from rlx_mlir.ir import DiagnosticError, make_context, parse_module

    ctx = make_context()
    result = Group()
    distinct: dict[str, Function] = {}
    for s in samples(opinfo, dtype):
        if s.index in wanted:
            for f in s.functions:
                distinct.setdefault(f.key, f)
    lowered: dict[str, ModuleOp] = {}
    for number, (key, f) in enumerate(distinct.items()):
        symbol = f"{f.role}_{number}"
        text = f.body(symbol)
        try:
            parse_module(ctx, text)
        except DiagnosticError as error:
            result.problems[key] = Problem("parse", f, _first_line(error))
            continue
        try:
            lowered[key] = _lower_one(ctx, text)
        except Exception as error:  # noqa: BLE001 - every failure is reported per sample
            # A pass that refuses the op (no pattern, or a pattern's own check) has not
            # lowered it yet; a pass that rewrote it into IR that does not verify is a bug.
            kind = "lowering" if type(error).__name__ == "InternalRewriteError" else "build"
            result.problems[key] = Problem(kind, f, _first_line(error))
            continue
        result.symbols[key] = symbol
    if lowered:
        try:
            result.native = compile_module(_merge([m.clone() for m in lowered.values()]))
        except Exception:  # noqa: BLE001 - find the functions that break the build
            for key, module in list(lowered.items()):
                try:
                    prepare(module)
                except Exception as error:  # noqa: BLE001
                    result.problems[key] = Problem("build", distinct[key], _first_line(error))
                    del lowered[key], result.symbols[key]
            try:
                result.native = compile_module(_merge(list(lowered.values()))) if lowered else None
            except Exception as error:  # noqa: BLE001
                for key in lowered:
                    result.problems[key] = Problem("build", distinct[key], _first_line(error))
                result.symbols.clear()
    _groups[(opinfo, dtype)] = result
    return result


# --------------------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------------------


def check(sample: Sample, f: Function, native) -> None:
    inputs = [sample.arrays[a] for a in f.args]
    got = native(*inputs)
    label = f"{sample.id} {f.role} ({f.op}{f.attrs})"
    with one_thread():
        if f.exact:
            want = f.oracle(*(torch.from_numpy(a) for a in inputs))
            try:
                assert_exact(got, want, dtype=got.dtype)
            except AssertionError as error:
                raise AssertionError(f"{label}: {error}") from None
            return
        # PyTorch in float64 on the same inputs; A = |op(|inputs|)| (a negative
        # divisor_override makes the coefficients negative, hence the outer abs).
        upcast = [torch.from_numpy(np.asarray(a, np.float64)) for a in inputs]
        absolute = [t if i in f.selects else t.abs() for i, t in enumerate(upcast)]
        want, magnitude = f.oracle(*upcast), f.oracle(*absolute).abs()
    assert_within_bound(got, want, magnitude, dtype=got.dtype, label=label)


SELECTED = selected()
WANTED: dict[tuple[str, str], frozenset[int]] = {}
for _name, _dtype, _index in SELECTED:
    WANTED[(_name, _dtype)] = WANTED.get((_name, _dtype), frozenset()) | {_index}


@pytest.mark.parametrize(("opinfo", "dtype", "index"), SELECTED, ids=[f"{n}-{d}-{i}" for n, d, i in SELECTED])
def test_opinfo_sample_matches_pytorch(opinfo, dtype, index):
    sample = samples(opinfo, dtype)[index]
    assert sample.expressible, f"{sample.id} ({sample.description}) cannot be expressed: {sample.reason}"
    built = group(opinfo, dtype, WANTED[(opinfo, dtype)])
    problems = [built.problems[f.key] for f in sample.functions if f.key in built.problems]
    # Every function that built is checked, whatever happened to the others.
    for f in sample.functions:
        if f.key in built.symbols:
            check(sample, f, built.native[built.symbols[f.key]])
    failures, pending = [], []
    for p in problems:
        defect = next(
            (why for types, error, why in KNOWN_DEFECTS if types.search(p.function.key) and error.search(p.message)),
            None,
        )
        if p.kind == "build" and defect is None:
            failures.append(f"{p.function.role} ({p.function.op}): {p.message}\n{p.function.body('f')}")
        else:
            pending.append(defect or f"{p.function.op} {'does not parse' if p.kind == 'parse' else 'is not lowered'}"
                           f" yet: {p.message}")
    assert not failures, f"{sample.id} ({sample.description}):\n" + "\n".join(failures)
    if pending:
        pytest.xfail("; ".join(dict.fromkeys(pending)))


# --------------------------------------------------------------------------------------
# Coverage: every sample is expressible
# --------------------------------------------------------------------------------------


def test_every_opinfo_sample_is_expressible():
    """100% of the samples translate, and each of their functions parses and verifies."""
    from rlx_mlir.ir import DiagnosticError, make_context, parse_module

    assert set(opinfos()) == {
        *(f"{kind}{r}d" for kind in ("conv", "conv_transpose", "max_pool", "avg_pool", "adaptive_avg_pool",
                                     "adaptive_max_pool") for r in (1, 2, 3)),
        "unfold",
    }, "an OpInfo of OPINFOS is missing from this torch's op_db"
    ctx = make_context()
    verdict: dict[str, str | None] = {}
    missing: dict[str, list[str]] = {}
    total = 0
    for sample in all_samples():
        total += 1
        why = sample.reason
        for f in sample.functions if why is None else ():
            if f.key not in verdict:
                try:
                    parse_module(ctx, f.body("f"))
                    verdict[f.key] = None
                except DiagnosticError as error:
                    verdict[f.key] = f"{f.op}: {_first_line(error)}"
            why = why or verdict[f.key]
        if why is not None:
            missing.setdefault(why, []).append(sample.id)
    lines = [f"{len(ids)} samples, e.g. {', '.join(ids[:3])}: {why}" for why, ids in missing.items()]
    unexpressed = sum(len(ids) for ids in missing.values())
    assert not missing, f"{unexpressed} of {total} samples cannot be expressed:\n" + "\n".join(lines)


def test_ci_selection_covers_every_option_value():
    """The default run's samples exercise every option value of every OpInfo."""
    for name in opinfos():
        pool = [s for s in samples(name, "f64") if s.expressible]
        everything = set().union(*(features(s) for s in pool))
        covered = set().union(*(features(samples(name, "f64")[i]) for _, i in ci_selection(name)))
        assert covered == everything, (name, everything - covered)
        assert {d for d, _ in ci_selection(name)} == set(DTYPES), name
