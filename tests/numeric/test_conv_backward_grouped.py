"""Grouped and depthwise convolution gradients against PyTorch (`torch.nn.grad`).

The configurations exercise `conv_backward_grouped` (the weight gradient's row partials,
and the declines that leave an op to the general patterns) and the backend's grouped-conv
schedule (rows cut into 8-wide chunks: whole chunks, a partial last chunk, rows shorter
than a chunk; padded inputs or none; a dynamic batch). Both gradients are compiled with the
`direct` formulations, the ones the grouped patterns apply to.
"""

from __future__ import annotations

import numpy as np
import pytest

from numeric.test_conv_backward import Conv, lower

F64 = np.float64
F16 = np.float16
GROUPED = [
    Conv(2, 8, 8, (16, 16), (3, 3), padding=(1, 1), groups=8, tag="depthwise-two-chunks"),
    Conv(1, 4, 4, (12, 12), (3, 3), padding=(1, 1), groups=4, tag="depthwise-partial-chunk"),
    Conv(3, 4, 4, (7, 5), (3, 3), padding=(1, 1), groups=4, tag="depthwise-row-below-chunk"),
    Conv(2, 4, 8, (10, 19), (3, 3), padding=(1, 1), groups=4, tag="channel-multiplier2"),
    Conv(2, 3, 9, (9, 12), (1, 1), groups=3, tag="multiplier3-1x1-unpadded"),
    Conv(2, 8, 4, (11, 20), (3, 2), padding=(1, 0), dilation=(2, 1), groups=2, tag="rect-dilated"),
    Conv(2, 8, 8, (13, 18), (2, 3), stride=(2, 1), padding=(0, 1), dilation=(1, 2), groups=4, tag="row-stride2"),
    Conv(2, 6, 6, (12, 17), (3, 3), stride=(2, 2), padding=(1, 1), groups=6, tag="depthwise-stride2"),
    Conv(1, 6, 12, (9, 10), (3, 3), stride=(1, 2), padding=(2, 1), groups=3, tag="column-stride2"),
    Conv(2, 32, 32, (6, 9), (3, 3), padding=(1, 1), groups=2, tag="wide-groups-general"),
    Conv(3, 8, 16, (10, 16), (3, 3), padding=(1, 1), groups=8, dtype=F64, tag="multiplier2"),
    Conv(2, 4, 4, (9, 9), (3, 3), padding=(1, 1), groups=4, dtype=F16, tag="depthwise"),
    Conv(3, 8, 8, (10, 11), (3, 3), padding=(1, 1), groups=8, dynamic_batch=True, tag="depthwise"),
    Conv(2, 6, 12, (9, 16), (3, 2), stride=(2, 1), padding=(1, 1), groups=3, dtype=F64, dynamic_batch=True),
    # Column strides > 1: one stride-1 row-partials gradient per column phase of x.
    Conv(2, 6, 6, (11, 13), (3, 3), stride=(3, 3), padding=(1, 1), groups=6, dtype=F64, tag="depthwise-stride3-odd"),
    Conv(1, 4, 4, (12, 15), (3, 3), stride=(2, 2), padding=(2, 2), dilation=(2, 2), groups=4, dtype=F64, tag="stride2-dilation2-one-phase"),
    Conv(2, 4, 8, (9, 17), (5, 5), stride=(3, 3), padding=(2, 2), dilation=(2, 2), groups=4, dtype=F64, tag="stride3-dilation2-uneven-taps"),
    Conv(2, 3, 3, (5, 1), (3, 3), stride=(2, 2), padding=(1, 1), groups=3, dtype=F64, tag="phase-reading-only-padding"),
    Conv(3, 8, 8, (14, 14), (3, 3), stride=(2, 2), padding=(1, 1), groups=8, dynamic_batch=True, tag="depthwise-stride2"),
]
FORMS = ("w_direct", "i_direct")


def _name(form: str, index: int) -> str:
    return f"grouped_{form}_{index}"


@pytest.fixture(scope="module")
def grouped_module(compile_rlx):
    functions = {
        _name(form, i): (form, cfg.function(form, _name(form, i)))
        for i, cfg in enumerate(GROUPED)
        for form in FORMS
    }
    return compile_rlx(lower(functions))


@pytest.mark.parametrize("formulation", FORMS)
@pytest.mark.parametrize("index", range(len(GROUPED)), ids=[str(c) for c in GROUPED])
def test_grouped_conv2d_backward_matches_pytorch(index, formulation, grouped_module):
    GROUPED[index].check(grouped_module, formulation, _name(formulation, index))


def test_grouped_dynamic_batch_takes_any_batch(compile_rlx):
    """One compiled dynamic-batch depthwise function per gradient, called with batches 1, 2 and 5."""
    shape = dict(c=4, f=8, hw=(9, 12), kernel=(3, 3), padding=(1, 1), groups=4, dynamic_batch=True)
    functions = {form: (form, Conv(1, **shape).function(form, form)) for form in FORMS}
    native = compile_rlx(lower(functions))
    for batch in (1, 2, 5):
        for form in FORMS:
            Conv(batch, **shape).check(native, form, form, seed=batch)


def _op_count(cfg: Conv, formulation: str) -> int:
    module = lower({"f": (formulation, cfg.function(formulation, "f"))})
    return sum(1 for _ in module.walk())


@pytest.mark.parametrize("formulation", FORMS)
def test_grouped_ir_size_does_not_depend_on_input_size(formulation):
    small = Conv(2, 8, 8, (8, 8), (3, 3), padding=(1, 1), groups=8)
    large = Conv(2, 8, 8, (224, 224), (3, 3), padding=(1, 1), groups=8)
    assert _op_count(small, formulation) == _op_count(large, formulation)


@pytest.mark.parametrize("formulation", FORMS)
@pytest.mark.parametrize("stride", [(1, 1), (2, 2)], ids=["stride1", "stride2"])
def test_grouped_schedule_vectorizes_rows(formulation, stride):
    """The grouped-conv schedule applies: the row chunks become vectors of the host's f32
    lanes (8 on AVX2, 16 on AVX-512), so no fallback left them scalar (at stride 2 too:
    the weight gradient's column phases are stride-1 rows)."""
    from rlx_mlir.backend import emit
    from rlx_mlir.backend.machine import machine_params

    cfg = Conv(2, 8, 8, (24, 32), (3, 3), stride=stride, padding=(1, 1), groups=8)
    module = lower({"f": (formulation, cfg.function(formulation, "f"))})
    assert f"vector<{machine_params().f32_lanes}xf32>" in emit(module, "llvm-mlir", "optimizing")
