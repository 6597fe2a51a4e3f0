"""Matrix products: `rlx.matmul`, plain or batched."""

from __future__ import annotations

from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from rlx_mlir.dialects.base import SIGNATURE, RlxOp, expect_same_batch, rlx_op_definition
from rlx_mlir.dialects.properties import FLOAT_TENSOR
from rlx_mlir.dialects.tensors import tensor_type


@rlx_op_definition
class MatmulOp(RlxOp):
    """`[M,K] x [K,N] -> [M,N]`, or batched `[B,M,K] x [B,K,N] -> [B,M,N]`."""

    name = "rlx.matmul"

    lhs = operand_def(FLOAT_TENSOR)
    rhs = operand_def(FLOAT_TENSOR)

    assembly_format = f"$lhs `,` $rhs {SIGNATURE}"

    def batched_values(self) -> set[str]:
        # [B,M,K] x [B,K,N]: B leads all three; [M,K] x [K,N]: only M (the rows) may vary.
        return {"lhs", "rhs", "result"} if tensor_type(self.rhs).get_num_dims() == 3 else {"lhs", "result"}

    def verify_shapes(self) -> None:
        a = self.shape_of(0, (2, 3))
        b = self.shape_of(1, (2, 3))
        if len(a) != len(b):
            raise VerifyException(f"expected lhs and rhs of equal rank, got {len(a)} and {len(b)}")
        if len(a) == 3:
            expect_same_batch(a, "lhs", b, "rhs")
        if a[-1] != b[-2]:
            raise VerifyException(
                f"expected the contraction sizes to agree: lhs {self.lhs.type} has {a[-1]} columns, "
                f"rhs {self.rhs.type} has {b[-2]} rows"
            )
        self.shape_of(-1, len(a))
        self.expect_result_shape((*a[:-1], b[-1]))
