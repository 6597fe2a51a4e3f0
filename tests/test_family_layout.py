"""One family name everywhere: an op's definition, lowering and VJP rule sit under it.

An op defined in `dialects/<family>.py` (or in the package `dialects/<family>/`) is lowered by the patterns of
`transforms/<family>/` (its `populate_forward` / `populate_backward`, the two functions
every family package exposes) and differentiated by a rule of `autodiff/<family>.py`. A
newcomer who knows one of the three finds the other two by the name alone.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

import rlx_mlir.autodiff  # noqa: F401  (registers every rule)
from rlx_mlir.autodiff.rules import RULES
from rlx_mlir.dialects import rlx
from rlx_mlir.transforms import families
from rlx_mlir.transforms.options import LoweringOptions

OPS = list(rlx.RLX.operations)


def family_of(op) -> str:
    module = op.__module__
    assert module.startswith("rlx_mlir.dialects."), module
    return module.split(".")[2]  # dialects/<family>.py, or a module of the package dialects/<family>/


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_lowering_and_rule_under_the_definitions_family(op):
    family = family_of(op)
    lowering = importlib.import_module(f"rlx_mlir.transforms.{family}")
    assert callable(lowering.populate_forward) and callable(lowering.populate_backward)
    assert op in RULES, f"{op.name} has no VJP rule"
    assert RULES[op].__module__ == f"rlx_mlir.autodiff.{family}"


def test_every_family_package_has_the_same_two_populate_functions():
    for family in families.FAMILIES:
        for populate in (family.populate_forward, family.populate_backward):
            assert list(inspect.signature(populate).parameters) == ["patterns", "options"], family.__name__
            patterns = []
            populate(patterns, LoweringOptions())


def test_the_passes_populate_every_defining_family():
    defining = {family_of(op) for op in OPS}
    populated = {family.__name__.rsplit(".", 1)[1] for family in families.FAMILIES}
    assert defining <= populated
