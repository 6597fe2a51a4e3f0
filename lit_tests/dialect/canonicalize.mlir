// RUN: rlx-opt %s -p canonicalize | FileCheck %s
// RUN: rlx-opt %s -p canonicalize,cse | FileCheck %s --check-prefix=CSE

// The RLX ops' canonicalization patterns (dialects/canonicalization.py), one fold or
// non-fold per function.

// reshape(reshape(x)) = reshape(x): one reshape of x.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-NEXT:    %[[Y:.+]] = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @reshape_of_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %a = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %b = rlx.reshape %a : (tensor<6xf32>) -> tensor<3x2xf32>
  return %b : tensor<3x2xf32>
}

// A reshape to its operand's type is the operand; so is a reshape chain back to it.
// CHECK-LABEL: func.func @reshape_to_own_type
// CHECK-NEXT:    func.return %x, %x : tensor<2x3xf32>, tensor<2x3xf32>
func.func @reshape_to_own_type(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %c = rlx.reshape %b : (tensor<6xf32>) -> tensor<2x3xf32>
  return %a, %c : tensor<2x3xf32>, tensor<2x3xf32>
}

// The inner reshape stays while something else reads it; the outer one reads x.
// CHECK-LABEL: func.func @reshape_of_shared_reshape
// CHECK-NEXT:    %[[A:.+]] = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT:    %[[B:.+]] = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @reshape_of_shared_reshape(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  %a = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %b = rlx.reshape %a : (tensor<6xf32>) -> tensor<3x2xf32>
  return %a, %b : tensor<6xf32>, tensor<3x2xf32>
}

// Not folded: a reshape of another op, here a permute (which moves the elements).
// CHECK-LABEL: func.func @reshape_of_permute
// CHECK-NEXT:    %[[P:.+]] = rlx.permute %x dims [1, 0]
// CHECK-NEXT:    %[[Y:.+]] = rlx.reshape %[[P]] : (tensor<3x2xf32>) -> tensor<6xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @reshape_of_permute(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %p = rlx.permute %x dims [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %y = rlx.reshape %p : (tensor<3x2xf32>) -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// A dynamic leading dim carried through both reshapes is carried by the one left.
// CHECK-LABEL: func.func @reshape_of_reshape_dynamic
// CHECK-NEXT:    %[[Y:.+]] = rlx.reshape %x : (tensor<?x3x4xf32>) -> tensor<?x2x6xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @reshape_of_reshape_dynamic(%x: tensor<?x3x4xf32>) -> tensor<?x2x6xf32> {
  %a = rlx.reshape %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %b = rlx.reshape %a : (tensor<?x12xf32>) -> tensor<?x2x6xf32>
  return %b : tensor<?x2x6xf32>
}

// A permute undone by the next is x.
// CHECK-LABEL: func.func @permute_of_inverse_permute
// CHECK-NEXT:    func.return %x
func.func @permute_of_inverse_permute(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %a = rlx.permute %x dims [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %b = rlx.permute %a dims [2, 0, 1] : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  return %b : tensor<2x3x4xf32>
}

// permute(permute(x, p), q) = permute(x, [p[d] for d in q]): [1, 2, 0] twice is [2, 0, 1].
// CHECK-LABEL: func.func @permute_of_permute
// CHECK-NEXT:    %[[Y:.+]] = rlx.permute %x dims [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @permute_of_permute(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %a = rlx.permute %x dims [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %b = rlx.permute %a dims [1, 2, 0] : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  return %b : tensor<4x2x3xf32>
}

// The identity permutation is its operand.
// CHECK-LABEL: func.func @identity_permute
// CHECK-NEXT:    func.return %x
func.func @identity_permute(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = rlx.permute %x dims [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// Not folded: one permute that moves axes, and a permute of a reshape.
// CHECK-LABEL: func.func @permute_kept
// CHECK-NEXT:    %[[A:.+]] = rlx.permute %x dims [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[R:.+]] = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[B:.+]] = rlx.permute %[[R]] dims [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @permute_kept(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %a = rlx.permute %x dims [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = rlx.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = rlx.permute %r dims [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %a, %b : tensor<3x2xf32>, tensor<2x3xf32>
}

// A commutative op reads the operand defined last first: results in reverse op order,
// then the arguments, last first; a broadcast swaps as well (its result type does not
// change).
// CHECK-LABEL: func.func @commutative_order
// CHECK-NEXT:    %[[ADD:.+]] = rlx.add %y, %x :
// CHECK-NEXT:    %[[MUL:.+]] = rlx.mul %[[ADD]], %x :
// CHECK-NEXT:    %[[MAX:.+]] = rlx.maximum %[[MUL]], %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[MIN:.+]] = rlx.minimum %[[MAX]], %[[MUL]] :
// CHECK-NEXT:    func.return %[[MIN]]
func.func @commutative_order(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %add = rlx.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %mul = rlx.mul %x, %add : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %max = rlx.maximum %b, %mul : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %min = rlx.minimum %mul, %max : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %min : tensor<2x3xf32>
}

// Not reordered: operands already in order, a value read twice, and the ops that do not
// commute (sub, div).
// CHECK-LABEL: func.func @order_kept
// CHECK-NEXT:    %[[ADD:.+]] = rlx.add %y, %x :
// CHECK-NEXT:    %[[SQ:.+]] = rlx.mul %[[ADD]], %[[ADD]] :
// CHECK-NEXT:    %[[SUB:.+]] = rlx.sub %x, %[[SQ]] :
// CHECK-NEXT:    %[[DIV:.+]] = rlx.div %y, %[[SUB]] :
// CHECK-NEXT:    func.return %[[DIV]]
func.func @order_kept(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %add = rlx.add %y, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sq = rlx.mul %add, %add : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sub = rlx.sub %x, %sq : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %div = rlx.div %y, %sub : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %div : tensor<2x3xf32>
}

// Why the order is canonical: after it, common-subexpression elimination sees y + x and
// x + y as one op.
// CSE-LABEL: func.func @commuted_twins
// CSE-NEXT:    %[[S:.+]] = rlx.add %y, %x :
// CSE-NEXT:    %[[P:.+]] = rlx.mul %[[S]], %[[S]] :
// CSE-NEXT:    func.return %[[P]]
func.func @commuted_twins(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = rlx.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = rlx.add %y, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = rlx.mul %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %p : tensor<2x3xf32>
}
