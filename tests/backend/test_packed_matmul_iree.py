"""IREE compiles and runs the packed form of a matrix product, and it matches PyTorch.

The packed schedule (`schedules/matmul.mlir`) rewrites `linalg.matmul` into upstream ops:
`linalg.pack` of both operands into the host's register tiles (the params library's
`@pack_matmul_register_tiles` / `@pack_f64_matmul_register_tiles`), B's panels transposed
outermost, a transpose feeding B folded into its pack, the packed contraction, and
`linalg.unpack`. Here that tensor-level form, before any tiling or bufferization, is what
IREE gets: users hand our linalg to IREE, so the packed ops must mean to IREE what they mean
to us. Partial tiles (257 rows, 131 terms) exercise the padding inside the packs.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from iree_runtime import FLAGS, require_iree
from oracle import assert_matches
from rlx_mlir.backend import toolchain
from rlx_mlir.backend.machine import machine_params
from rlx_mlir.backend.schedules import params_library

compiler, runtime = require_iree()

PACK_ONLY = """
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @{pack}(%op: !transform.any_op {{transform.consumed}}) -> !transform.op<"linalg.generic">
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.consumed}}) {{
    %mm = transform.structured.match ops{{["linalg.matmul"]}} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.include @{pack} failures(propagate) (%mm) : (!transform.any_op) -> !transform.op<"linalg.generic">
    %pb = transform.get_producer_of_operand %p[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
    %p2, %pb2, %un = transform.structured.pack_transpose %pb with_compute_op(%p) outer_perm = [1, 0]
        : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)
    %fn = transform.get_parent_op %p2 {{op_name = "func.func"}} : (!transform.op<"linalg.generic">) -> !transform.any_op
    transform.apply_patterns to %fn {{
      transform.apply_patterns.tensor.fold_into_pack_and_unpack
    }} : !transform.any_op
    transform.yield
  }}
}}
"""


def product(m: int, k: int, n: int, dtype: str, transposed_b: bool) -> str:
    """`f(a, b) = a @ b` as linalg on tensors; with `transposed_b`, b is stored N x K and
    transposed by a `linalg.transpose` feeding the product (A·Bᵀ)."""
    a, y, b_stored = f"tensor<{m}x{k}x{dtype}>", f"tensor<{m}x{n}x{dtype}>", (n, k) if transposed_b else (k, n)
    b = f"tensor<{k}x{n}x{dtype}>"
    lines = []
    operand = "%b"
    if transposed_b:
        lines += [
            f"  %e = tensor.empty() : {b}",
            f"  %bt = linalg.transpose ins(%b : tensor<{b_stored[0]}x{b_stored[1]}x{dtype}>) outs(%e : {b}) permutation = [1, 0]",
        ]
        operand = "%bt"
    lines += [
        f"  %zero = arith.constant 0.0 : {dtype}",
        f"  %init = tensor.empty() : {y}",
        f"  %c = linalg.fill ins(%zero : {dtype}) outs(%init : {y}) -> {y}",
        f"  %y = linalg.matmul ins(%a, {operand} : {a}, {b}) outs(%c : {y}) -> {y}",
        f"  return %y : {y}",
    ]
    body = "\n".join(lines)
    return f"func.func @f(%a: {a}, %b: tensor<{b_stored[0]}x{b_stored[1]}x{dtype}>) -> {y} {{\n{body}\n}}\n"


def packed(text: str, dtype: str, tmp_path) -> str:
    pack = "pack_matmul_register_tiles" if dtype == "f32" else "pack_f64_matmul_register_tiles"
    script = tmp_path / "pack.mlir"
    script.write_text(PACK_ONLY.format(pack=pack))
    libraries = f"{params_library(machine_params())},{script}"
    return toolchain.run(
        "mlir-opt",
        [str(toolchain.find_tool("mlir-opt").path), f"--transform-preload-library=transform-library-paths={libraries}",
         "--transform-interpreter", "--canonicalize", "-"],
        input=text,
    )


@pytest.mark.parametrize("transposed_b", [False, True], ids=["ab", "abt"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_iree_runs_the_packed_product_like_pytorch(dtype, transposed_b, tmp_path):
    m, k, n = 257, 131, 259
    ir = packed(product(m, k, n, dtype, transposed_b), dtype, tmp_path)
    assert "linalg.pack" in ir and "linalg.unpack" in ir and "linalg.matmul" not in ir
    assert "linalg.transpose" not in ir  # absorbed by B's pack
    flatbuffer = compiler.compile_str(ir, target_backends=["llvm-cpu"], extra_args=list(FLAGS))
    context = runtime.SystemContext(config=runtime.Config("local-sync"))
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, flatbuffer))
    rng = np.random.default_rng(0)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    a = rng.standard_normal((m, k)).astype(np_dtype)
    b = rng.standard_normal((n, k) if transposed_b else (k, n)).astype(np_dtype)
    got = context.modules.module["f"](a, b).to_host()
    reference = (lambda a, b: a @ b.t()) if transposed_b else torch.matmul
    assert_matches(got, reference, (a, b))
