// RUN: rlx-opt %s --decompose-backward | mlir-opt --transform-preload-library=transform-library-paths=%schedules --transform-interpreter | FileCheck %s

// layer_norm_backward over a dynamic batch of rows ([?, 256, 384], the GPT step's): its
// statistics are read as [?, 256] views, so every row op is a projected-permutation generic
// and is split in 2 along the rows, each part reading subviews: the row sums of g and of
// g * xhat, and dx.
// CHECK-LABEL: func.func @layer_norm_backward_rows
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%subview
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%subview
// CHECK:       scf.forall (%{{.*}}) in (2)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%subview
// CHECK:       return
func.func @layer_norm_backward_rows(%dy: tensor<?x256x384xf32>, %x: tensor<?x256x384xf32>, %m: tensor<?x256x1xf32>, %r: tensor<?x256x1xf32>, %w: tensor<384xf32>) -> (tensor<?x256x384xf32>, tensor<384xf32>, tensor<384xf32>) {
  %dx, %dw, %db = rlx.layer_norm_backward %dy, %x, %m, %r, %w : (tensor<?x256x384xf32>, tensor<?x256x384xf32>, tensor<?x256x1xf32>, tensor<?x256x1xf32>, tensor<384xf32>) -> (tensor<?x256x384xf32>, tensor<384xf32>, tensor<384xf32>)
  return %dx, %dw, %db : tensor<?x256x384xf32>, tensor<384xf32>, tensor<384xf32>
}
