// The RLX dialect for upstream MLIR: mlir-opt --irdl-file=dialects/rlx.irdl.mlir
// GENERATED from rlx_mlir/dialects/; do not edit. Regenerate with:
//   python -m rlx_mlir.tools.gen_irdl -o dialects/rlx.irdl.mlir
// IRDL checks each op's operands, results and required attributes and their kinds
// (tensor, i64 dense array, integer, bool). Element types, array lengths and shapes
// are checked by the Python verifiers only.
irdl.dialect @rlx {
  irdl.operation @conv1d {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv2d {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv3d {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose1d {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %output_padding = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "output_padding" = %output_padding,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose2d {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %output_padding = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "output_padding" = %output_padding,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose3d {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %output_padding = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "output_padding" = %output_padding,
      "groups" = %groups
    }
  }
  irdl.operation @max_pool1d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "ceil_mode" = %ceil_mode
    }
  }
  irdl.operation @max_pool2d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "ceil_mode" = %ceil_mode
    }
  }
  irdl.operation @max_pool3d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "ceil_mode" = %ceil_mode
    }
  }
  irdl.operation @avg_pool1d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    %true_1 = irdl.is true
    %false_1 = irdl.is false
    %count_include_pad = irdl.any_of(%true_1, %false_1)
    %divisor_override = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "ceil_mode" = %ceil_mode,
      "count_include_pad" = %count_include_pad,
      "divisor_override" = %divisor_override
    }
  }
  irdl.operation @avg_pool2d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    %true_1 = irdl.is true
    %false_1 = irdl.is false
    %count_include_pad = irdl.any_of(%true_1, %false_1)
    %divisor_override = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "ceil_mode" = %ceil_mode,
      "count_include_pad" = %count_include_pad,
      "divisor_override" = %divisor_override
    }
  }
  irdl.operation @avg_pool3d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    %true_1 = irdl.is true
    %false_1 = irdl.is false
    %count_include_pad = irdl.any_of(%true_1, %false_1)
    %divisor_override = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "ceil_mode" = %ceil_mode,
      "count_include_pad" = %count_include_pad,
      "divisor_override" = %divisor_override
    }
  }
  irdl.operation @adaptive_avg_pool1d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_avg_pool2d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_avg_pool3d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_max_pool1d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_max_pool2d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_max_pool3d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @matmul {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @im2col1d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation
    }
  }
  irdl.operation @im2col {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation
    }
  }
  irdl.operation @im2col3d {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation
    }
  }
  irdl.operation @conv1d_backward_weight {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv2d_backward_weight {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv3d_backward_weight {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv1d_backward_input {
    %grad_output = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv2d_backward_input {
    %grad_output = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv3d_backward_input {
    %grad_output = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose1d_backward_input {
    %grad_output = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose2d_backward_input {
    %grad_output = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose3d_backward_input {
    %grad_output = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, weight: %weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose1d_backward_weight {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose2d_backward_weight {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @conv_transpose3d_backward_weight {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "groups" = %groups
    }
  }
  irdl.operation @max_pool1d_backward {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "ceil_mode" = %ceil_mode
    }
  }
  irdl.operation @max_pool2d_backward {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "ceil_mode" = %ceil_mode
    }
  }
  irdl.operation @max_pool3d_backward {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "dilation" = %dilation,
      "ceil_mode" = %ceil_mode
    }
  }
  irdl.operation @avg_pool1d_backward {
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    %true_1 = irdl.is true
    %false_1 = irdl.is false
    %count_include_pad = irdl.any_of(%true_1, %false_1)
    %divisor_override = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "ceil_mode" = %ceil_mode,
      "count_include_pad" = %count_include_pad,
      "divisor_override" = %divisor_override
    }
  }
  irdl.operation @avg_pool2d_backward {
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    %true_1 = irdl.is true
    %false_1 = irdl.is false
    %count_include_pad = irdl.any_of(%true_1, %false_1)
    %divisor_override = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "ceil_mode" = %ceil_mode,
      "count_include_pad" = %count_include_pad,
      "divisor_override" = %divisor_override
    }
  }
  irdl.operation @avg_pool3d_backward {
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kernel_size = irdl.base "#builtin.dense_array"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %ceil_mode = irdl.any_of(%true, %false)
    %true_1 = irdl.is true
    %false_1 = irdl.is false
    %count_include_pad = irdl.any_of(%true_1, %false_1)
    %divisor_override = irdl.base "#builtin.integer"
    irdl.attributes {
      "kernel_size" = %kernel_size,
      "stride" = %stride,
      "padding" = %padding,
      "ceil_mode" = %ceil_mode,
      "count_include_pad" = %count_include_pad,
      "divisor_override" = %divisor_override
    }
  }
  irdl.operation @adaptive_avg_pool1d_backward {
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_avg_pool2d_backward {
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_avg_pool3d_backward {
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_max_pool1d_backward {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_max_pool2d_backward {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_max_pool3d_backward {
    %input = irdl.base "!builtin.tensor"
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
}
