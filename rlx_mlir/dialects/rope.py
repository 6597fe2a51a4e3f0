"""Rotary position embedding (RoPE) and its gradient: the elementwise rotation of pairs.

PyTorch has no RoPE op; the reference is the formula the model code writes, in one of
two pairings (`layout`):
- `rotate_half` (HF Llama, GPT-NeoX): element j is paired with j + D/2,
  `rotate_half(x) = cat(-x[..., D/2:], x[..., :D/2])`;
- `interleaved` (GPT-J, Meta's original Llama): element 2i is paired with 2i + 1,
  `rotate_every_two(x) = stack(-x[..., 1::2], x[..., ::2], -1).flatten(-2)`.
With `rot` the layout's pairing, both models compute `y = x * cos + rot(x) * sin`.

The tables are full width, [..., T, D], as the reference implementations pass them: HF
Llama's `cos = cat(freqs, freqs).cos()` (each angle twice, once per half) and GPT-J's
`duplicate_interleave` (each angle twice, side by side). A [T, D/2] table of angles is
the importer's to widen. The tables broadcast against x as PyTorch broadcasts them
(trailing dims aligned; `[T, D]`, `[1, 1, T, D]`, `[B, 1, T, D]` for x [B, H, T, D]), so
the op is the formula whatever the tables hold, and its gradients in cos and sin are
defined (`autodiff/rope.py`): sums over the broadcast of `dy * x` and `dy * rot(x)`.

- `rlx.rope`: y = x * cos + rot(x) * sin.
- `rlx.rope_backward`: dx = dy * cos - rot(dy * sin), the transposed rotation
  (rot's transpose is -rot), so that rope_backward(rope's cotangent) is x's cotangent.
"""

from __future__ import annotations

from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOp, rlx_op_definition
from rlx_mlir.dialects.properties import FLOAT_TENSOR, expect_choice, string_property
from rlx_mlir.dialects.tensors import shape_of

ROPE_LAYOUTS = ("rotate_half", "interleaved")
"""Which elements of the last axis form a rotated pair: (j, j + D/2), or (2i, 2i + 1)."""


class _RopeOp(RlxOp):
    """A rotation of x's (or dy's) last axis by the [..., T, D] tables cos and sin."""

    layout = string_property("rotate_half")

    def rotated_name(self) -> str:
        return self.operand_names()[0]

    def batched_values(self) -> set[str]:
        return {self.rotated_name(), "result"}

    def verify_shapes(self) -> None:
        expect_choice("layout", self.layout, ROPE_LAYOUTS)
        name = self.rotated_name()
        value = getattr(self, name)
        x = shape_of(value)
        if len(x) < 2 or x[-1] % 2:
            raise VerifyException(
                f"expected the {name} to have rank at least 2 ([..., T, D]) and an even last dim D "
                f"(the rotated pairs), got {value.type}"
            )
        if shape_of(self.result) != x:
            raise VerifyException(f"expected the result to have the {name}'s type {value.type}, got {self.result.type}")
        if self.cos.type != self.sin.type:
            raise VerifyException(f"expected cos and sin to have one type, got {self.cos.type} and {self.sin.type}")
        table = shape_of(self.cos)
        aligned = x[len(x) - len(table):]
        if (
            len(table) > len(x)
            or not table
            or table[-1] != x[-1]
            or any(t not in (1, d) for t, d in zip(table, aligned))
        ):
            raise VerifyException(
                f"expected the cos and sin tables to broadcast to the {name} {value.type} with its last dim "
                f"(full-width [..., T, D] tables, each angle twice), got {self.cos.type}"
            )


@rlx_op_definition
class RopeOp(_RopeOp):
    """`y = x * cos + rot(x) * sin`, rot the layout's pairing (module docstring)."""

    name = "rlx.rope"

    input = operand_def(FLOAT_TENSOR)
    cos = operand_def(FLOAT_TENSOR)
    sin = operand_def(FLOAT_TENSOR)

    assembly_format = f"$input `,` $cos `,` $sin (`layout` $layout^)? {SIGNATURE}"


@rlx_op_definition
class RopeBackwardOp(_RopeOp):
    """`dx = dy * cos - rot(dy * sin)`: the transpose of rope's rotation, applied to dy."""

    name = "rlx.rope_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    cos = operand_def(FLOAT_TENSOR)
    sin = operand_def(FLOAT_TENSOR)

    assembly_format = f"$grad_output `,` $cos `,` $sin (`layout` $layout^)? {SIGNATURE}"


FORWARD_OPS: tuple = (RopeOp,)
BACKWARD_OPS: tuple = (RopeBackwardOp,)
