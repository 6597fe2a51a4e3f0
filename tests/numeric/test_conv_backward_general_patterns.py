"""The general conv-gradient patterns on grouped convolutions, against PyTorch.

decompose-backward tries the grouped/depthwise patterns (`conv_backward_grouped`) first,
so with the default options the general `ConvBackwardWeightDirect` and
`ConvBackwardInputDirect` never see a grouped op. They still must be right for any op those
patterns decline: here they are applied alone, to every grouped configuration of the
matrix in `test_conv_backward`.
"""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from rlx_mlir.ir import make_context, parse_module
from rlx_mlir.transforms.conv.backward_input import ConvBackwardInputDirect
from rlx_mlir.transforms.conv.backward_weight import ConvBackwardWeightDirect
from numeric.test_conv_backward import MATRIX

GROUPED = [cfg for cfg in MATRIX if cfg.groups > 1]


def general_patterns_only(text: str) -> ModuleOp:
    module = parse_module(make_context(), text)
    patterns = GreedyRewritePatternApplier([ConvBackwardWeightDirect(), ConvBackwardInputDirect()])
    PatternRewriteWalker(patterns).rewrite_module(module)
    return module


@pytest.fixture(scope="module")
def native(compile_rlx):
    text = "".join(
        cfg.function(form, f"{form}_{i}") for i, cfg in enumerate(GROUPED) for form in ("w_direct", "i_direct")
    )
    return compile_rlx(general_patterns_only(text))


@pytest.mark.parametrize("formulation", ["w_direct", "i_direct"])
@pytest.mark.parametrize("index", range(len(GROUPED)), ids=[str(c) for c in GROUPED])
def test_general_pattern_on_grouped_conv_matches_pytorch(index, formulation, native):
    GROUPED[index].check(native, formulation, f"{formulation}_{index}")
