"""Attention: scaled dot-product attention and its gradient, as PyTorch's CPU flash kernel.

- `rlx.attention` [_scaled_dot_product_flash_attention_for_cpu, F.scaled_dot_product_attention]:
  q [B, H, L, E], k [B, Hkv, S, E], v [B, Hkv, S, Ev] give out [B, H, L, Ev] and
  logsumexp [B, H, L] (of q's element type, as the CPU flash op returns for f32 and f64).
- `rlx.attention_backward` [_scaled_dot_product_flash_attention_for_cpu_backward]: dq, dk,
  dv from dout, q, k, v, out and logsumexp, operands in ATen's order.

    %out, %lse = rlx.attention %q, %k, %v mask %bias scale 0.5 is_causal true
        : (tensor<?x4x8x4xf32>, tensor<?x2x8x4xf32>, tensor<?x2x8x4xf32>, tensor<8x8xf32>)
        -> (tensor<?x4x8x4xf32>, tensor<?x4x8xf32>)

Per batch b and query head h, with kv head hk = h / (H / Hkv) (grouped-query attention,
PyTorch's enable_gqa; Hkv must divide H) and the set A(i) of keys row i attends:

    s[i, j] = scale * sum_e q[i, e] k[j, e]                  for j in A(i)
    lse[i]  = log sum_{j in A(i)} exp(s[i, j])
    out[i]  = sum_{j in A(i)} exp(s[i, j] - lse[i]) v[j]

`scale` is required: PyTorch's `scale=None` means 1/sqrt(E), which the importer states.
A(i) is every key, narrowed by:
- `is_causal` (PyTorch's is_causal, upper-left aligned also when L != S): j <= i;
- `window w` (w >= 1; 0, the default, is none): a causal sliding window of the w latest
  keys, i - w < j <= i. It implies `is_causal`.
- an optional `mask` operand, PyTorch's attn_mask, broadcastable to [B, H, L, S] (its
  rank 1 to 4, each dim 1 or the full size; right-aligned): of i1, true = attend (j is
  dropped from A(i) where it is false); or of q's float type, an additive bias:
  s[i, j] += bias[i, j] (after the scale, as PyTorch adds it). The backward of a bias
  gives its gradient too, dbias = dS summed over the dims the bias broadcasts.
A row whose A(i) is empty (a mask that drops every key; a window past the keys' end,
when L > S) gives out = 0 and lse = 0, as the CPU flash kernel and
F.scaled_dot_product_attention's default CPU path give; nothing flows back from it (its
dq and dbias are 0 and it adds nothing to dk and dv).
Only the batch may be dynamic (a mask's leading dim is 1 or the batch).
"""

from __future__ import annotations

from xdsl.irdl import operand_def, opt_operand_def, opt_result_def, result_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOpBase, rlx_op_definition
from rlx_mlir.dialects.properties import ANY_TENSOR, FLOAT_TENSOR, I1, bool_property, float_property, int_property
from rlx_mlir.dialects.tensors import format_shape, is_dynamic, shape_of

MASK_FORMAT = "(`mask` $mask^)? `scale` $scale (`is_causal` $is_causal^)? (`window` $window^)?"


class AttentionBase(RlxOpBase):
    """The shapes and key sets the attention ops share."""

    scale = float_property()
    is_causal = bool_property(default=False)
    window = int_property(0)

    def heads(self) -> tuple[int, int]:
        """(H, Hkv): query heads and key/value heads."""
        return shape_of(self.query)[1], shape_of(self.key)[1]

    def group(self) -> int:
        """G = H / Hkv, the query heads that share one kv head."""
        h, hkv = self.heads()
        return h // hkv

    def causal(self) -> bool:
        """Whether keys after the query's row are masked (`is_causal`, or a window)."""
        return self.is_causal or self.window > 0

    def expect_shape(self, name: str, expected, why: str) -> None:
        value = getattr(self, name)
        got = shape_of(value)
        same = len(got) == len(expected) and all(
            g == e or (i == 0 and is_dynamic(g) and is_dynamic(e)) for i, (g, e) in enumerate(zip(got, expected))
        )
        if not same:
            raise VerifyException(
                f"expected the {name} to be tensor<{format_shape(expected)}x{value.type.element_type}> ({why}), "
                f"got {value.type}"
            )

    def check_qkv(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """q [B, H, L, E], k [B, Hkv, S, E], v [B, Hkv, S, Ev] with Hkv dividing H."""
        for name in ("query", "key", "value"):
            value = getattr(self, name)
            if len(shape_of(value)) != 4:
                raise VerifyException(f"expected the {name} to have rank 4 ([B, heads, length, head_dim]), got {value.type}")
        q, k, v = shape_of(self.query), shape_of(self.key), shape_of(self.value)
        if self.window < 0:
            raise VerifyException(f"expected 'window' to be at least 0 (0: no window), got {self.window}")
        if k[1] < 1 or q[1] % k[1] != 0:
            raise VerifyException(
                f"expected the key's heads ({k[1]}) to divide the query's heads ({q[1]}) (grouped-query attention)"
            )
        if k[3] != q[3]:
            raise VerifyException(f"expected the key's head dim to be the query's, {q[3]}, got {self.key.type}")
        if any(size == 0 for size in (*q[1:], *k[1:], *v[1:])):
            raise VerifyException(f"expected non-empty heads, lengths and head dims, got {self.query.type}, {self.key.type}")
        self.expect_shape("value", (k[0], k[1], k[2], v[3]), "the key's batch, heads and length")
        if not (q[0] == k[0] or (is_dynamic(q[0]) and is_dynamic(k[0]))):
            raise VerifyException(f"expected the key's batch to be the query's, got {self.query.type} and {self.key.type}")
        return q, k, v

    def batched_values(self) -> set[str]:
        return {name for name, _ in self.named_values()}

    def is_bias(self) -> bool:
        """Whether the mask operand is an additive float bias (not a boolean mask)."""
        return self.mask is not None and self.mask.type.element_type != I1

    def check_mask(self, q, k) -> None:
        """The mask is i1 or q's float type, and broadcasts to [B, H, L, S]."""
        if self.mask is None:
            return
        element = self.mask.type.element_type
        if element not in (I1, self.query.type.element_type):
            raise VerifyException(
                f"expected the mask to be of i1 (true: attend) or of the query's element type "
                f"{self.query.type.element_type} (an additive bias), got {self.mask.type}"
            )
        shape, full = shape_of(self.mask), (q[0], q[1], q[2], k[2])
        offset = 4 - len(shape)
        if not 0 <= offset < 4 or not all(
            size == 1 or size == full[offset + i] or (offset + i == 0 and is_dynamic(size) and is_dynamic(full[0]))
            for i, size in enumerate(shape)
        ):
            raise VerifyException(
                f"expected the mask to broadcast to [B, H, L, S] = [{format_shape(full)}] (rank 1 to 4, each dim 1 or the full size), "
                f"got {self.mask.type}"
            )


@rlx_op_definition
class AttentionOp(AttentionBase):
    """out, logsumexp = softmax(scale * q k^T over the attended keys) v, and its row log-sum-exp."""

    name = "rlx.attention"

    query = operand_def(FLOAT_TENSOR)
    key = operand_def(FLOAT_TENSOR)
    value = operand_def(FLOAT_TENSOR)
    mask = opt_operand_def(ANY_TENSOR)

    output = result_def(FLOAT_TENSOR)
    logsumexp = result_def(FLOAT_TENSOR)

    assembly_format = f"$query `,` $key `,` $value {MASK_FORMAT} {SIGNATURE}"

    def verify_shapes(self) -> None:
        q, k, v = self.check_qkv()
        self.check_mask(q, k)
        self.expect_shape("output", (q[0], q[1], q[2], v[3]), "the query's batch, heads and length, the value's head dim")
        self.expect_shape("logsumexp", q[:3], "the query's batch, heads and length")


@rlx_op_definition
class AttentionBackwardOp(AttentionBase):
    """dq, dk, dv (and dbias, for a float bias mask) of `rlx.attention`, with P = exp(s - logsumexp) recomputed and
    D[i] = sum_d dout[i, d] out[i, d]:

        dv[j] = sum_{h in group, i} P[i, j] dout[i]
        dS[i, j] = P[i, j] (sum_d dout[i, d] v[j, d] - D[i])
        dq[i] = scale sum_j dS[i, j] k[j],   dk[j] = scale sum_{h in group, i} dS[i, j] q[i]

    (dk and dv summed over the G query heads that share the kv head).
    """

    name = "rlx.attention_backward"

    grad_output = operand_def(FLOAT_TENSOR)
    query = operand_def(FLOAT_TENSOR)
    key = operand_def(FLOAT_TENSOR)
    value = operand_def(FLOAT_TENSOR)
    output = operand_def(FLOAT_TENSOR)
    logsumexp = operand_def(FLOAT_TENSOR)
    mask = opt_operand_def(ANY_TENSOR)

    grad_query = result_def(FLOAT_TENSOR)
    grad_key = result_def(FLOAT_TENSOR)
    grad_value = result_def(FLOAT_TENSOR)
    grad_bias = opt_result_def(FLOAT_TENSOR)

    assembly_format = (
        f"$grad_output `,` $query `,` $key `,` $value `,` $output `,` $logsumexp {MASK_FORMAT} {SIGNATURE}"
    )

    def verify_shapes(self) -> None:
        q, k, v = self.check_qkv()
        self.check_mask(q, k)
        if self.is_bias() != (self.grad_bias is not None):
            raise VerifyException(
                f"expected a grad_bias result exactly when the mask is a float bias, got "
                f"{'no mask' if self.mask is None else self.mask.type} and {len(self.results)} results"
            )
        if self.grad_bias is not None:
            self.expect_shape("grad_bias", shape_of(self.mask), "the bias's shape")
        out = (q[0], q[1], q[2], v[3])
        self.expect_shape("grad_output", out, "the forward's output")
        self.expect_shape("output", out, "the query's batch, heads and length, the value's head dim")
        self.expect_shape("logsumexp", q[:3], "the query's batch, heads and length")
        self.expect_shape("grad_query", q, "the query's shape")
        self.expect_shape("grad_key", k, "the key's shape")
        self.expect_shape("grad_value", v, "the value's shape")


FORWARD_OPS: tuple = (AttentionOp,)
BACKWARD_OPS: tuple = (AttentionBackwardOp,)
