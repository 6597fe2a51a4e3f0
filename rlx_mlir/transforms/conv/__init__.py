"""The convolution family as linalg: `rlx.conv*`, `rlx.conv_transpose*`, `rlx.im2col*` and their gradients.

Forward (`forward`, `transpose`, `stride_phases`, `narrow_rows`, `disjoint_windows`, `im2col`): see
those modules. Backward:

For `y = conv2d(x, w)` with stride s, padding p, dilation d and `groups` G
(x [N,C,H,W], w [F,C/G,KH,KW], dy [N,F,Ho,Wo]):

    dw[f, c, kh, kw] = sum_{n, ho, wo} dy[n, f, ho, wo] * xpad[n, c, ho*s + kh*d, wo*s + kw*d]
    dx[n, c, h, w]   = sum_{f, kh, kw} dyp[n, f, h + (KH-1-kh)*d, w + (KW-1-kw)*d] * w[f, c, kh, kw]
                     = sum_{f, kh, kw} dyp[n, f, h + kh*d, w + kw*d] * wflip[c, f, kh, kw]

where `xpad` is x zero-padded by p and `dyp` is dy with s - 1 zeros between cells, padded
by `d*(k-1) - p` low and `d*(k-1) - p + output_padding` high (cropped where negative) so
that dx has exactly the declared size. Each is written with a group loop `g`: channel axes
are split by `expand_shape` into (G, channels/G) and joined again by `collapse_shape`;
with `groups == 1` the group loop and the group axes are left out (`groups.ConvGroups`).

Every output is indexed by loop dimensions only, every size and offset is a constant of
the op's geometry (the batch may be dynamic), so the IR is the same size for any tensor
size and the work is linear in it. Accumulation is in the op's element type.

Formulations (pass options), in `backward_weight` and `backward_input`; with
`direct`, grouped convolutions first try the forms of `grouped_backward`:
- `conv-weight=direct`: `ConvBackwardWeightDirect`, the dw formula as one contraction over
  channels-last copies of x and dy (an outer product of channel rows per (n, ho, wo)).
- `conv-weight=im2col`: `ConvBackwardWeightIm2col`, RLX's im2col + matmul with dy's batch
  axis moved before the flatten, optionally chunked over rows.
- `conv-input=direct`: `ConvBackwardInputDirect`, the dx formula split by stride phase:
  each phase of dx is an upstream stride-1 forward conv of dy with a sub-kernel of the
  flipped, channel-swapped weight, inserted with a strided `tensor.insert_slice`, so no
  multiply-add reads one of dyp's inserted zeros.
- `conv-input=transpose`: `ConvBackwardInputTranspose`, RLX's route: a transposed conv of
  dy with the solved output_padding (`transpose.conv_transpose2d`).

Padding may be given per side: every 2-D form reads `Window.low`/`high` (x padded per
side; the phases start from the low padding; dx's size is the declared result).

Other spatial ranks (3-D) have one formulation each, whatever the options say: the same
formulas written once for every rank as gather-form generics, `ConvBackwardWeightGather`
(`weight_gradient`) and `ConvBackwardInputGather` (stride phases over `correlate`), which
are registered after the 2-D patterns. A pointwise weight gradient over single cells (a
linear layer's over a dynamic batch) is one matrix product, before every other form
(`pointwise_weight`). The transposed conv's gradients,
`rlx.conv_transpose{2,3}d_backward_{input,weight}`, are `transpose_backward`'s.

The measurements that chose these forms are in `docs/conv-backward-notes.md`.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.conv.backward_input import (
    ConvBackwardInputDirect,
    ConvBackwardInputGather,
    ConvBackwardInputTranspose,
)
from rlx_mlir.transforms.conv.backward_weight import (
    ConvBackwardWeightDirect,
    ConvBackwardWeightGather,
    ConvBackwardWeightIm2col,
)
from rlx_mlir.transforms.conv.forward import ConvToLinalg, ConvTransposeToLinalg
from rlx_mlir.transforms.conv.grouped_backward import GroupedConvBackwardWeightRows
from rlx_mlir.transforms.conv.im2col import Im2colToLinalg
from rlx_mlir.transforms.conv.pointwise_weight import PointwiseConvBackwardWeight
from rlx_mlir.transforms.conv.transpose_backward import ConvTransposeBackwardInput, ConvTransposeBackwardWeight
from rlx_mlir.transforms.options import LoweringOptions


def populate_forward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """`rlx.conv{2,3}d` (strided 2-D by `options.strided_conv`), `rlx.conv_transpose{2,3}d`, `rlx.im2col{,3d}`."""
    patterns += [ConvToLinalg(options.strided_conv), ConvTransposeToLinalg(), Im2colToLinalg()]


def populate_backward(patterns: list[RewritePattern], options: LoweringOptions) -> None:
    """The conv and transposed-conv gradients: the 2-D ones in the chosen formulations
    first (the grouped rows form before them with `conv-weight=direct`), then the
    rank-generic ones that take every other rank."""
    patterns.append(PointwiseConvBackwardWeight())
    if options.conv_weight == "direct":
        patterns += [GroupedConvBackwardWeightRows(), ConvBackwardWeightDirect()]
    else:
        patterns.append(ConvBackwardWeightIm2col(options.im2col_max_elements))
    patterns.append(ConvBackwardInputDirect() if options.conv_input == "direct" else ConvBackwardInputTranspose())
    patterns += [
        ConvBackwardWeightGather(),
        ConvBackwardInputGather(),
        ConvTransposeBackwardInput(),
        ConvTransposeBackwardWeight(),
    ]
