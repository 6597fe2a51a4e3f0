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
  irdl.operation @add {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @sub {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @mul {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @div {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @maximum {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @minimum {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @neg {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @exp {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @log {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @sqrt {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @rsqrt {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @abs {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @tanh {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @erf {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @sum {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dims = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %keepdim = irdl.any_of(%true, %false)
    irdl.attributes {
      "dims" = %dims,
      "keepdim" = %keepdim
    }
  }
  irdl.operation @mean {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dims = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %keepdim = irdl.any_of(%true, %false)
    irdl.attributes {
      "dims" = %dims,
      "keepdim" = %keepdim
    }
  }
  irdl.operation @addmm {
    %bias = irdl.base "!builtin.tensor"
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(bias: %bias, lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %beta = irdl.base "#builtin.float"
    %alpha = irdl.base "#builtin.float"
    irdl.attributes {
      "beta" = %beta,
      "alpha" = %alpha
    }
  }
  irdl.operation @relu {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @hardtanh {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %min_val = irdl.base "#builtin.float"
    %max_val = irdl.base "#builtin.float"
    irdl.attributes {
      "min_val" = %min_val,
      "max_val" = %max_val
    }
  }
  irdl.operation @hardswish {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @hardsigmoid {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @sigmoid {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @silu {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @gelu {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %approximate = irdl.base "#builtin.string"
    irdl.attributes {
      "approximate" = %approximate
    }
  }
  irdl.operation @leaky_relu {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %negative_slope = irdl.base "#builtin.float"
    irdl.attributes {
      "negative_slope" = %negative_slope
    }
  }
  irdl.operation @batch_norm {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    %bias = irdl.base "!builtin.tensor"
    %running_mean = irdl.base "!builtin.tensor"
    %running_var = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight, bias: %bias, running_mean: %running_mean, running_var: %running_var)
    %result = irdl.base "!builtin.tensor"
    %save_mean = irdl.base "!builtin.tensor"
    %save_invstd = irdl.base "!builtin.tensor"
    %new_running_mean = irdl.base "!builtin.tensor"
    %new_running_var = irdl.base "!builtin.tensor"
    irdl.results(result: %result, save_mean: %save_mean, save_invstd: %save_invstd, new_running_mean: %new_running_mean, new_running_var: %new_running_var)
    %momentum = irdl.base "#builtin.float"
    %eps = irdl.base "#builtin.float"
    irdl.attributes {
      "momentum" = %momentum,
      "eps" = %eps
    }
  }
  irdl.operation @batch_norm_inference {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    %bias = irdl.base "!builtin.tensor"
    %running_mean = irdl.base "!builtin.tensor"
    %running_var = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight, bias: %bias, running_mean: %running_mean, running_var: %running_var)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %eps = irdl.base "#builtin.float"
    irdl.attributes {
      "eps" = %eps
    }
  }
  irdl.operation @layer_norm {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    %bias = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: %weight, bias: %bias)
    %result = irdl.base "!builtin.tensor"
    %mean = irdl.base "!builtin.tensor"
    %rstd = irdl.base "!builtin.tensor"
    irdl.results(result: %result, mean: %mean, rstd: %rstd)
    %normalized_rank = irdl.base "#builtin.integer"
    %eps = irdl.base "#builtin.float"
    irdl.attributes {
      "normalized_rank" = %normalized_rank,
      "eps" = %eps
    }
  }
  irdl.operation @rms_norm {
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, weight: optional %weight)
    %result = irdl.base "!builtin.tensor"
    %rstd = irdl.base "!builtin.tensor"
    irdl.results(result: %result, rstd: %rstd)
    %normalized_rank = irdl.base "#builtin.integer"
    %eps = irdl.base "#builtin.float"
    irdl.attributes {
      "normalized_rank" = %normalized_rank,
      "eps" = %eps
    }
  }
  irdl.operation @group_norm {
    %input = irdl.base "!builtin.tensor"
    %affine = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, affine: variadic %affine)
    %result = irdl.base "!builtin.tensor"
    %mean = irdl.base "!builtin.tensor"
    %rstd = irdl.base "!builtin.tensor"
    irdl.results(result: %result, mean: %mean, rstd: %rstd)
    %groups = irdl.base "#builtin.integer"
    %eps = irdl.base "#builtin.float"
    irdl.attributes {
      "groups" = %groups,
      "eps" = %eps
    }
  }
  irdl.operation @log_softmax {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @softmax {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @nll_loss {
    %input = irdl.base "!builtin.tensor"
    %target = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, target: %target, weight: %weight)
    %loss = irdl.base "!builtin.tensor"
    %total_weight = irdl.base "!builtin.tensor"
    irdl.results(loss: %loss, total_weight: %total_weight)
    %reduction = irdl.base "#builtin.string"
    %ignore_index = irdl.base "#builtin.integer"
    irdl.attributes {
      "reduction" = %reduction,
      "ignore_index" = %ignore_index
    }
  }
  irdl.operation @reshape {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @permute {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dims = irdl.base "#builtin.dense_array"
    irdl.attributes {
      "dims" = %dims
    }
  }
  irdl.operation @expand {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @slice {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    %start = irdl.base "#builtin.integer"
    %end = irdl.base "#builtin.integer"
    %step = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim,
      "start" = %start,
      "end" = %end,
      "step" = %step
    }
  }
  irdl.operation @concat {
    %inputs = irdl.base "!builtin.tensor"
    irdl.operands(inputs: variadic %inputs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @split {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %pieces = irdl.base "!builtin.tensor"
    irdl.results(pieces: variadic %pieces)
    %dim = irdl.base "#builtin.integer"
    %sizes = irdl.base "#builtin.dense_array"
    irdl.attributes {
      "dim" = %dim,
      "sizes" = %sizes
    }
  }
  irdl.operation @embedding {
    %weight = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    irdl.operands(weight: %weight, indices: %indices)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %padding_idx = irdl.base "#builtin.integer"
    %true = irdl.is true
    %false = irdl.is false
    %scale_grad_by_freq = irdl.any_of(%true, %false)
    irdl.attributes {
      "padding_idx" = %padding_idx,
      "scale_grad_by_freq" = %scale_grad_by_freq
    }
  }
  irdl.operation @gather {
    %input = irdl.base "!builtin.tensor"
    %index = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, index: %index)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @scatter_add {
    %input = irdl.base "!builtin.tensor"
    %index = irdl.base "!builtin.tensor"
    %src = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, index: %index, src: %src)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @index_select {
    %input = irdl.base "!builtin.tensor"
    %index = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, index: %index)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @scatter {
    %input = irdl.base "!builtin.tensor"
    %index = irdl.base "!builtin.tensor"
    %src = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, index: %index, src: %src)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @scatter_value {
    %input = irdl.base "!builtin.tensor"
    %index = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, index: %index)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    %value = irdl.base "#builtin.float"
    irdl.attributes {
      "dim" = %dim,
      "value" = %value
    }
  }
  irdl.operation @index {
    %input = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, indices: variadic %indices)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @index_put {
    %input = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    %values = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, indices: variadic %indices, values: %values)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %true = irdl.is true
    %false = irdl.is false
    %accumulate = irdl.any_of(%true, %false)
    irdl.attributes {
      "accumulate" = %accumulate
    }
  }
  irdl.operation @linear_scan {
    %coefficients = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(coefficients: %coefficients, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    %true = irdl.is true
    %false = irdl.is false
    %reverse = irdl.any_of(%true, %false)
    irdl.attributes {
      "dim" = %dim,
      "reverse" = %reverse
    }
  }
  irdl.operation @cumsum {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    %true = irdl.is true
    %false = irdl.is false
    %reverse = irdl.any_of(%true, %false)
    irdl.attributes {
      "dim" = %dim,
      "reverse" = %reverse
    }
  }
  irdl.operation @eq {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @ne {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @lt {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @le {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @gt {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @ge {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @logical_and {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @logical_or {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @logical_xor {
    %lhs = irdl.base "!builtin.tensor"
    %rhs = irdl.base "!builtin.tensor"
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @logical_not {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @any {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dims = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %keepdim = irdl.any_of(%true, %false)
    irdl.attributes {
      "dims" = %dims,
      "keepdim" = %keepdim
    }
  }
  irdl.operation @all {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dims = irdl.base "#builtin.dense_array"
    %true = irdl.is true
    %false = irdl.is false
    %keepdim = irdl.any_of(%true, %false)
    irdl.attributes {
      "dims" = %dims,
      "keepdim" = %keepdim
    }
  }
  irdl.operation @rope {
    %input = irdl.base "!builtin.tensor"
    %cos = irdl.base "!builtin.tensor"
    %sin = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, cos: %cos, sin: %sin)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %layout = irdl.base "#builtin.string"
    irdl.attributes {
      "layout" = %layout
    }
  }
  irdl.operation @fake_quantize {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %scale = irdl.base "#builtin.float"
    %zero_point = irdl.base "#builtin.integer"
    %quant_min = irdl.base "#builtin.integer"
    %quant_max = irdl.base "#builtin.integer"
    irdl.attributes {
      "scale" = %scale,
      "zero_point" = %zero_point,
      "quant_min" = %quant_min,
      "quant_max" = %quant_max
    }
  }
  irdl.operation @fake_quantize_per_channel {
    %input = irdl.base "!builtin.tensor"
    %scale = irdl.base "!builtin.tensor"
    %zero_point = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, scale: %scale, zero_point: %zero_point)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %axis = irdl.base "#builtin.integer"
    %quant_min = irdl.base "#builtin.integer"
    %quant_max = irdl.base "#builtin.integer"
    irdl.attributes {
      "axis" = %axis,
      "quant_min" = %quant_min,
      "quant_max" = %quant_max
    }
  }
  irdl.operation @fake_quantize_tensor_qparams {
    %input = irdl.base "!builtin.tensor"
    %scale = irdl.base "!builtin.tensor"
    %zero_point = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, scale: %scale, zero_point: %zero_point)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %quant_min = irdl.base "#builtin.integer"
    %quant_max = irdl.base "#builtin.integer"
    irdl.attributes {
      "quant_min" = %quant_min,
      "quant_max" = %quant_max
    }
  }
  irdl.operation @moving_average_min_max {
    %input = irdl.base "!builtin.tensor"
    %running_min = irdl.base "!builtin.tensor"
    %running_max = irdl.base "!builtin.tensor"
    %observer_on = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, running_min: %running_min, running_max: %running_max, observer_on: %observer_on)
    %new_min = irdl.base "!builtin.tensor"
    %new_max = irdl.base "!builtin.tensor"
    irdl.results(new_min: %new_min, new_max: %new_max)
    %averaging_constant = irdl.base "#builtin.float"
    %axis = irdl.base "#builtin.integer"
    irdl.attributes {
      "averaging_constant" = %averaging_constant,
      "axis" = %axis
    }
  }
  irdl.operation @choose_qparams {
    %running_min = irdl.base "!builtin.tensor"
    %running_max = irdl.base "!builtin.tensor"
    irdl.operands(running_min: %running_min, running_max: %running_max)
    %scale = irdl.base "!builtin.tensor"
    %zero_point = irdl.base "!builtin.tensor"
    irdl.results(scale: %scale, zero_point: %zero_point)
    %quant_min = irdl.base "#builtin.integer"
    %quant_max = irdl.base "#builtin.integer"
    %true = irdl.is true
    %false = irdl.is false
    %symmetric = irdl.any_of(%true, %false)
    irdl.attributes {
      "quant_min" = %quant_min,
      "quant_max" = %quant_max,
      "symmetric" = %symmetric
    }
  }
  irdl.operation @attention {
    %query = irdl.base "!builtin.tensor"
    %key = irdl.base "!builtin.tensor"
    %value = irdl.base "!builtin.tensor"
    %mask = irdl.base "!builtin.tensor"
    irdl.operands(query: %query, key: %key, value: %value, mask: optional %mask)
    %output = irdl.base "!builtin.tensor"
    %logsumexp = irdl.base "!builtin.tensor"
    irdl.results(output: %output, logsumexp: %logsumexp)
    %scale = irdl.base "#builtin.float"
    %true = irdl.is true
    %false = irdl.is false
    %is_causal = irdl.any_of(%true, %false)
    %window = irdl.base "#builtin.integer"
    irdl.attributes {
      "scale" = %scale,
      "is_causal" = %is_causal,
      "window" = %window
    }
  }
  irdl.operation @where {
    %condition = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %other = irdl.base "!builtin.tensor"
    irdl.operands(condition: %condition, input: %input, other: %other)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @masked_fill {
    %input = irdl.base "!builtin.tensor"
    %mask = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, mask: %mask)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %value = irdl.base "#builtin.float"
    irdl.attributes {
      "value" = %value
    }
  }
  irdl.operation @clamp {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %min = irdl.base "#builtin.float"
    %max = irdl.base "#builtin.float"
    irdl.attributes {
      "min" = %min,
      "max" = %max
    }
  }
  irdl.operation @tril {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %diagonal = irdl.base "#builtin.integer"
    irdl.attributes {
      "diagonal" = %diagonal
    }
  }
  irdl.operation @triu {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %diagonal = irdl.base "#builtin.integer"
    irdl.attributes {
      "diagonal" = %diagonal
    }
  }
  irdl.operation @cast {
    %input = irdl.base "!builtin.tensor"
    irdl.operands(input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @arange {
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %start = irdl.base "#builtin.float"
    %end = irdl.base "#builtin.float"
    %step = irdl.base "#builtin.float"
    irdl.attributes {
      "start" = %start,
      "end" = %end,
      "step" = %step
    }
  }
  irdl.operation @full {
    %sizes = irdl.base "!builtin.index"
    irdl.operands(sizes: variadic %sizes)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %value = irdl.base "#builtin.float"
    irdl.attributes {
      "value" = %value
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
  irdl.operation @threshold_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %threshold = irdl.base "#builtin.float"
    irdl.attributes {
      "threshold" = %threshold
    }
  }
  irdl.operation @hardtanh_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %min_val = irdl.base "#builtin.float"
    %max_val = irdl.base "#builtin.float"
    irdl.attributes {
      "min_val" = %min_val,
      "max_val" = %max_val
    }
  }
  irdl.operation @hardswish_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @hardsigmoid_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @sigmoid_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, output: %output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @silu_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @gelu_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %approximate = irdl.base "#builtin.string"
    irdl.attributes {
      "approximate" = %approximate
    }
  }
  irdl.operation @leaky_relu_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %negative_slope = irdl.base "#builtin.float"
    irdl.attributes {
      "negative_slope" = %negative_slope
    }
  }
  irdl.operation @batch_norm_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    %save_mean = irdl.base "!builtin.tensor"
    %save_invstd = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input, weight: %weight, save_mean: %save_mean, save_invstd: %save_invstd)
    %grad_input = irdl.base "!builtin.tensor"
    %grad_weight = irdl.base "!builtin.tensor"
    %grad_bias = irdl.base "!builtin.tensor"
    irdl.results(grad_input: %grad_input, grad_weight: %grad_weight, grad_bias: %grad_bias)
    %eps = irdl.base "#builtin.float"
    irdl.attributes {
      "eps" = %eps
    }
  }
  irdl.operation @batch_norm_inference_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %running_mean = irdl.base "!builtin.tensor"
    %running_var = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input, running_mean: %running_mean, running_var: %running_var, weight: optional %weight)
    %grad_input = irdl.base "!builtin.tensor"
    %grad_weight = irdl.base "!builtin.tensor"
    %grad_bias = irdl.base "!builtin.tensor"
    irdl.results(grad_input: %grad_input, grad_weight: %grad_weight, grad_bias: %grad_bias)
    %eps = irdl.base "#builtin.float"
    irdl.attributes {
      "eps" = %eps
    }
  }
  irdl.operation @layer_norm_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %mean = irdl.base "!builtin.tensor"
    %rstd = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input, mean: %mean, rstd: %rstd, weight: %weight)
    %grad_input = irdl.base "!builtin.tensor"
    %grad_weight = irdl.base "!builtin.tensor"
    %grad_bias = irdl.base "!builtin.tensor"
    irdl.results(grad_input: %grad_input, grad_weight: %grad_weight, grad_bias: %grad_bias)
  }
  irdl.operation @rms_norm_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %rstd = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input, rstd: %rstd, weight: optional %weight)
    %grad_input = irdl.base "!builtin.tensor"
    %grad_weight = irdl.base "!builtin.tensor"
    irdl.results(grad_input: %grad_input, grad_weight: optional %grad_weight)
    %normalized_rank = irdl.base "#builtin.integer"
    irdl.attributes {
      "normalized_rank" = %normalized_rank
    }
  }
  irdl.operation @group_norm_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %mean = irdl.base "!builtin.tensor"
    %rstd = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input, mean: %mean, rstd: %rstd, weight: optional %weight)
    %grad_input = irdl.base "!builtin.tensor"
    %grad_weight = irdl.base "!builtin.tensor"
    %grad_bias = irdl.base "!builtin.tensor"
    irdl.results(grad_input: %grad_input, grad_weight: %grad_weight, grad_bias: %grad_bias)
    %groups = irdl.base "#builtin.integer"
    irdl.attributes {
      "groups" = %groups
    }
  }
  irdl.operation @log_softmax_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, output: %output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @softmax_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, output: %output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim
    }
  }
  irdl.operation @nll_loss_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %target = irdl.base "!builtin.tensor"
    %weight = irdl.base "!builtin.tensor"
    %total_weight = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input, target: %target, weight: %weight, total_weight: %total_weight)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %reduction = irdl.base "#builtin.string"
    %ignore_index = irdl.base "#builtin.integer"
    irdl.attributes {
      "reduction" = %reduction,
      "ignore_index" = %ignore_index
    }
  }
  irdl.operation @slice_backward {
    %grad_output = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %dim = irdl.base "#builtin.integer"
    %start = irdl.base "#builtin.integer"
    %end = irdl.base "#builtin.integer"
    %step = irdl.base "#builtin.integer"
    irdl.attributes {
      "dim" = %dim,
      "start" = %start,
      "end" = %end,
      "step" = %step
    }
  }
  irdl.operation @embedding_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %indices = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, indices: %indices)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %padding_idx = irdl.base "#builtin.integer"
    %true = irdl.is true
    %false = irdl.is false
    %scale_grad_by_freq = irdl.any_of(%true, %false)
    irdl.attributes {
      "padding_idx" = %padding_idx,
      "scale_grad_by_freq" = %scale_grad_by_freq
    }
  }
  irdl.operation @max_pool1d_gather {
    %input = irdl.base "!builtin.tensor"
    %source = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, source: %source)
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
  irdl.operation @max_pool2d_gather {
    %input = irdl.base "!builtin.tensor"
    %source = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, source: %source)
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
  irdl.operation @max_pool3d_gather {
    %input = irdl.base "!builtin.tensor"
    %source = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, source: %source)
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
  irdl.operation @adaptive_max_pool1d_gather {
    %input = irdl.base "!builtin.tensor"
    %source = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, source: %source)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_max_pool2d_gather {
    %input = irdl.base "!builtin.tensor"
    %source = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, source: %source)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @adaptive_max_pool3d_gather {
    %input = irdl.base "!builtin.tensor"
    %source = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, source: %source)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
  }
  irdl.operation @col2im1d {
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
  irdl.operation @col2im2d {
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
  irdl.operation @col2im3d {
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
  irdl.operation @rope_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %cos = irdl.base "!builtin.tensor"
    %sin = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, cos: %cos, sin: %sin)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %layout = irdl.base "#builtin.string"
    irdl.attributes {
      "layout" = %layout
    }
  }
  irdl.operation @ste_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %kind = irdl.base "#builtin.string"
    %scale = irdl.base "#builtin.float"
    %zero_point = irdl.base "#builtin.integer"
    %quant_min = irdl.base "#builtin.integer"
    %quant_max = irdl.base "#builtin.integer"
    irdl.attributes {
      "kind" = %kind,
      "scale" = %scale,
      "zero_point" = %zero_point,
      "quant_min" = %quant_min,
      "quant_max" = %quant_max
    }
  }
  irdl.operation @fake_quantize_per_channel_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %scale = irdl.base "!builtin.tensor"
    %zero_point = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input, scale: %scale, zero_point: %zero_point)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %axis = irdl.base "#builtin.integer"
    %quant_min = irdl.base "#builtin.integer"
    %quant_max = irdl.base "#builtin.integer"
    irdl.attributes {
      "axis" = %axis,
      "quant_min" = %quant_min,
      "quant_max" = %quant_max
    }
  }
  irdl.operation @fake_quantize_tensor_qparams_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    %scale = irdl.base "!builtin.tensor"
    %zero_point = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input, scale: %scale, zero_point: %zero_point)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %quant_min = irdl.base "#builtin.integer"
    %quant_max = irdl.base "#builtin.integer"
    irdl.attributes {
      "quant_min" = %quant_min,
      "quant_max" = %quant_max
    }
  }
  irdl.operation @attention_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %query = irdl.base "!builtin.tensor"
    %key = irdl.base "!builtin.tensor"
    %value = irdl.base "!builtin.tensor"
    %output = irdl.base "!builtin.tensor"
    %logsumexp = irdl.base "!builtin.tensor"
    %mask = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, query: %query, key: %key, value: %value, output: %output, logsumexp: %logsumexp, mask: optional %mask)
    %grad_query = irdl.base "!builtin.tensor"
    %grad_key = irdl.base "!builtin.tensor"
    %grad_value = irdl.base "!builtin.tensor"
    %grad_bias = irdl.base "!builtin.tensor"
    irdl.results(grad_query: %grad_query, grad_key: %grad_key, grad_value: %grad_value, grad_bias: optional %grad_bias)
    %scale = irdl.base "#builtin.float"
    %true = irdl.is true
    %false = irdl.is false
    %is_causal = irdl.any_of(%true, %false)
    %window = irdl.base "#builtin.integer"
    irdl.attributes {
      "scale" = %scale,
      "is_causal" = %is_causal,
      "window" = %window
    }
  }
  irdl.operation @clamp_backward {
    %grad_output = irdl.base "!builtin.tensor"
    %input = irdl.base "!builtin.tensor"
    irdl.operands(grad_output: %grad_output, input: %input)
    %result = irdl.base "!builtin.tensor"
    irdl.results(result: %result)
    %min = irdl.base "#builtin.float"
    %max = irdl.base "#builtin.float"
    irdl.attributes {
      "min" = %min,
      "max" = %max
    }
  }
}
