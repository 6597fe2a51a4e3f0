// RUN: cd %S/Inputs && %python -m rlx_mlir.tools.rlx_import_torch lit_models:conv_pool --input 2x3x8x8 --target int:64 -o %t.step.mlir
// RUN: FileCheck %s < %t.step.mlir
// RUN: cd %S/Inputs && %python -m rlx_mlir.tools.rlx_import_torch lit_models:conv_pool --input 2x3x8x8 --target int:64 --static-batch | FileCheck %s --check-prefix=STATIC
// RUN: rlx-opt %t.step.mlir --decompose-backward --convert-rlx-to-linalg | mlir-opt | FileCheck %s --check-prefix=LOWERED
// RUN: cd %S/Inputs && not %python -m rlx_mlir.tools.rlx_import_torch lit_models:cumsum --input 2x3x4 -o %t.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not test -e %t.mlir

// The training step of conv -> max pool -> flatten -> cross-entropy, in the signature's
// order: the parameter, then x and the targets; results: the loss, then the gradient.
// The batch is dynamic by default: one step for every batch.
// CHECK-LABEL: func.func @training_step(%{{.*}}: tensor<4x3x3x3xf32>, %{{.*}}: tensor<?x3x8x8xf32>, %{{.*}}: tensor<?xi64>) -> (tensor<f32>, tensor<4x3x3x3xf32>)
// CHECK:         rlx.conv2d %{{.*}}, %{{.*}} stride [1, 1] padding [1, 1]
// CHECK:         rlx.max_pool2d %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1]
// CHECK:         rlx.reshape {{.*}} -> tensor<?x64xf32>
// CHECK:         rlx.log_softmax %{{.*}} dim 1
// Cross-entropy's class weights are ones (PyTorch has none):
// CHECK:         arith.constant dense<1.000000e+00> : tensor<64xf32>
// CHECK:         rlx.nll_loss {{.*}} : (tensor<?x64xf32>, tensor<?xi64>, tensor<64xf32>) -> (tensor<f32>, tensor<f32>)
// The backward, PyTorch's ops kept whole:
// CHECK:         rlx.nll_loss_backward
// CHECK:         rlx.log_softmax_backward
// The pool's indices are not materialized: the backward recomputes the first maximum.
// CHECK:         rlx.max_pool2d_backward %{{.*}}, %{{.*}} kernel_size [3, 3] stride [2, 2] padding [1, 1]
// CHECK:         rlx.conv2d_backward_weight %{{.*}}, %{{.*}} kernel_size [3, 3] stride [1, 1] padding [1, 1]
// CHECK-NOT:     rlx.conv2d_backward_input
// CHECK:         func.return

// --static-batch: the input's batch of 2 in every type.
// STATIC-LABEL: func.func @training_step(%{{.*}}: tensor<4x3x3x3xf32>, %{{.*}}: tensor<2x3x8x8xf32>, %{{.*}}: tensor<2xi64>) -> (tensor<f32>, tensor<4x3x3x3xf32>)
// STATIC:         rlx.reshape {{.*}} -> tensor<2x64xf32>
// STATIC:         rlx.nll_loss {{.*}} : (tensor<2x64xf32>, tensor<2xi64>, tensor<64xf32>) -> (tensor<f32>, tensor<f32>)

// LOWERED-LABEL: func.func @training_step
// LOWERED-NOT:   rlx.

// BAD: rlx-import-torch: error: unsupported ATen op aten.cumsum.default (in the model (Scan), at {{.*}}lit_models.py:{{[0-9]+}}: return torch.cumsum(x, 1).flatten(1))
