"""Convolution gradients as linalg: the pattern set of decompose-backward's conv options.

For `y = conv2d(x, w)` with stride s, padding p, dilation d and `groups` G
(x [N,C,H,W], w [F,C/G,KH,KW], dy [N,F,Ho,Wo]):

    dw[f, c, kh, kw] = sum_{n, ho, wo} dy[n, f, ho, wo] * xpad[n, c, ho*s + kh*d, wo*s + kw*d]
    dx[n, c, h, w]   = sum_{f, kh, kw} dyp[n, f, h + (KH-1-kh)*d, w + (KW-1-kw)*d] * w[f, c, kh, kw]
                     = sum_{f, kh, kw} dyp[n, f, h + kh*d, w + kw*d] * wflip[c, f, kh, kw]

where `xpad` is x zero-padded by p and `dyp` is dy with s - 1 zeros between cells, padded
by `d*(k-1) - p` low and `d*(k-1) - p + output_padding` high (cropped where negative) so
that dx has exactly the declared size. Each is written with a group loop `g`: channel axes
are split by `expand_shape` into (G, channels/G) and joined again by `collapse_shape`;
with `groups == 1` the group loop and the group axes are left out (`conv_groups.ConvGroups`).

Every output is indexed by loop dimensions only, every size and offset is a constant of
the op's geometry (the batch may be dynamic), so the IR is the same size for any tensor
size and the work is linear in it. Accumulation is in the op's element type.

Formulations (pass options), in `conv_backward_weight` and `conv_backward_input`; with
`direct`, grouped convolutions first try the forms of `conv_backward_grouped`:
- `conv-weight=direct`: `ConvBackwardWeightDirect`, the dw formula as one contraction over
  channels-last copies of x and dy (an outer product of channel rows per (n, ho, wo)).
- `conv-weight=im2col`: `ConvBackwardWeightIm2col`, RLX's im2col + matmul with dy's batch
  axis moved before the flatten, optionally chunked over rows.
- `conv-input=direct`: `ConvBackwardInputDirect`, the dx formula split by stride phase:
  each phase of dx is an upstream stride-1 forward conv of dy with a sub-kernel of the
  flipped, channel-swapped weight, inserted with a strided `tensor.insert_slice`, so no
  multiply-add reads one of dyp's inserted zeros.
- `conv-input=transpose`: `ConvBackwardInputTranspose`, RLX's route: a transposed conv of
  dy with the solved output_padding (`conv_transpose.conv_transpose2d`).

Padding may be given per side: every 2-D form reads `Window.low`/`high` (x padded per
side; the phases start from the low padding; dx's size is the declared result).

Other spatial ranks (3-D) have one formulation each, whatever the options say: the same
formulas written once for every rank as gather-form generics, `ConvBackwardWeightGather`
(`weight_gradient`) and `ConvBackwardInputGather` (stride phases over `correlate`), which
are registered after the 2-D patterns. The transposed conv's gradients,
`rlx.conv_transpose{2,3}d_backward_{input,weight}`, are `conv_transpose_backward`'s.

The measurements that chose these forms are in `docs/conv-backward-notes.md`.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from rlx_mlir.transforms.conv_backward_grouped import grouped_conv_backward_patterns
from rlx_mlir.transforms.conv_backward_input import (
    ConvBackwardInputDirect,
    ConvBackwardInputGather,
    ConvBackwardInputTranspose,
)
from rlx_mlir.transforms.conv_backward_weight import (
    ConvBackwardWeightDirect,
    ConvBackwardWeightGather,
    ConvBackwardWeightIm2col,
)
from rlx_mlir.transforms.conv_transpose_backward import conv_transpose_backward_patterns
from rlx_mlir.transforms.options import ConvInput, ConvWeight


def conv_backward_patterns(
    conv_weight: ConvWeight = "direct", im2col_max_elements: int = 4_194_304, conv_input: ConvInput = "direct"
) -> list[RewritePattern]:
    """The patterns for the conv and transposed-conv gradients: the 2-D ones in the chosen
    formulations first, then the rank-generic ones that take every other rank."""
    weight = ConvBackwardWeightDirect() if conv_weight == "direct" else ConvBackwardWeightIm2col(im2col_max_elements)
    input_ = ConvBackwardInputDirect() if conv_input == "direct" else ConvBackwardInputTranspose()
    return [
        *grouped_conv_backward_patterns(conv_weight, conv_input),
        weight,
        input_,
        ConvBackwardWeightGather(),
        ConvBackwardInputGather(),
        *conv_transpose_backward_patterns(),
    ]
