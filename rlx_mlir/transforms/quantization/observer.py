"""The fused observer as linalg: `rlx.moving_average_min_max` and `rlx.choose_qparams`.

ATen's `_fused_moving_avg_obs_fq_helper` (FusedObsFakeQuant.cpp) observes x, then picks
the grid of the fake quantization from the running values, in two loops this module
writes as generics:

    batch_min[c], batch_max[c] = aminmax(x)        (over all of x, or x[c] for axis 0)
    m'[c] = observer_on ? (isinf(m[c]) ? batch_min[c] : m[c] + k * (batch_min[c] - m[c])) : m[c]
                                                    (f32, k = f32(averaging_constant))

and, per running (min, max), fbgemm's ChooseQuantizationParams (which the x86 build
calls; PyTorch's own copy, quant_utils, agrees with it on every case we compared):

    symmetric and min < 0 < max:   s' = max(|min / sqmin|, |max / sqmax|)   (f32)
                                   min, max = f32(s' * sqmin), f32(s' * sqmax)   (double)
                                   sqmin = -((qmax - qmin) / 2 + 1), sqmax = (qmax - qmin) / 2
    min, max = std::min(min, 0), std::max(max, 0)
    scale = f32((double(max) - min) / (qmax - qmin));  0 or 1 / scale = inf: 0.1
    scale < T = 6.1e-5f: scale = T and the range is widened to it (min = 0: max = T (qmax - qmin);
                         max = 0: min = -T (qmax - qmin); else both times T / scale)
    zero_point = clamp(nearbyint(z), qmin, qmax), z the zero point from the end with the
                 smaller error |q| + |v / scale| (double), or (qmin + qmax) / 2 when
                 symmetric and min < 0 < max.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import IntegerType, f32, f64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from rlx_mlir.dialects import quantization as quant
from rlx_mlir.dialects.quantization import float32
from rlx_mlir.transforms.builders import RegionBuilder, TensorBuilder, dims_map, tensor_type

SMALL_SCALE = float32(6.1e-5)
"""fbgemm's SMALL_SCALE_THRESHOLD: no scale below fp16's smallest normal."""


class MovingAverageMinMaxToLinalg(RewritePattern):
    """aminmax of x, then m' = on ? (isinf(m) ? batch : m + k (batch - m)) : m      (module docstring)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.MovingAverageMinMaxOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        rank = tensor_type(op.input).get_num_dims()
        kept = 0 if op.axis == -1 else 1
        statistics = quant.statistics_shape(op)
        into = dims_map(rank, lambda d: d[:kept])
        batch = b.generic(
            ins=[op.input],
            init=[b.full(statistics, f32, math.inf), b.full(statistics, f32, -math.inf)],
            maps=[dims_map(rank, lambda d: d), into, into],
            iterators="p" * kept + "r" * (rank - kept),
            body=lambda r, x, low, high: [r.value(arith.MinimumfOp(low, x)), r.value(arith.MaximumfOp(high, x))],
        )
        k = float32(op.averaging_constant)

        def moving_average(r: RegionBuilder, batch_value, running, on):
            first = r.cmpf("oeq", r.value(math_dialect.AbsFOp(running)), r.constant(math.inf, f32))
            step = r.add(running, r.mul(r.constant(k, f32), r.sub(batch_value, running)))
            return r.select(on, r.select(first, batch_value, step), running)

        def body(r: RegionBuilder, batch_min, batch_max, running_min, running_max, flag, *_outs):
            on = r.cmpi("ne", flag, r.constant(0, IntegerType(64)))
            return [moving_average(r, batch_min, running_min, on), moving_average(r, batch_max, running_max, on)]

        identity = dims_map(kept, lambda d: d)
        updated = b.generic(
            ins=[*batch, op.running_min, op.running_max, op.observer_on],
            init=[b.empty(statistics, f32), b.empty(statistics, f32)],
            maps=[identity] * 4 + [dims_map(kept, lambda d: (0,))] + [identity] * 2,
            iterators="p" * kept,
            body=body,
        )
        rewriter.replace(op, [], list(updated))


class ChooseQparamsToLinalg(RewritePattern):
    """(scale, zero_point)[c] = fbgemm's ChooseQuantizationParams(min[c], max[c])      (module docstring)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: quant.ChooseQparamsOp, rewriter: PatternRewriter):
        b = TensorBuilder(rewriter, op)
        channels = tensor_type(op.scale).get_shape()
        read = dims_map(1, lambda d: d[: len(tensor_type(op.running_min).get_shape())])
        identity = dims_map(1, lambda d: d)
        scale, zero_point = b.generic(
            ins=[op.running_min, op.running_max],
            init=[b.empty(channels, f32), b.empty(channels, IntegerType(32))],
            maps=[read, read, identity, identity],
            iterators="p",
            body=lambda r, low, high, *_outs: QparamsChooser(r, op).choose(low, high),
        )
        rewriter.replace(op, [], [scale, zero_point])


class QparamsChooser:
    """fbgemm's ChooseQuantizationParams as scalar arithmetic, in its f32 and f64 steps."""

    def __init__(self, r: RegionBuilder, op: quant.ChooseQparamsOp):
        self.r = r
        self.qmin, self.qmax, self.symmetric = op.quant_min, op.quant_max, op.symmetric

    def f32(self, value: float) -> SSAValue:
        return self.r.constant(float32(value), f32)

    def f64(self, value: float) -> SSAValue:
        return self.r.constant(value, f64)

    def wide(self, value: SSAValue) -> SSAValue:
        return self.r.value(arith.ExtFOp(value, f64))

    def narrow(self, value: SSAValue) -> SSAValue:
        return self.r.value(arith.TruncFOp(value, f32))

    def abs(self, value: SSAValue) -> SSAValue:
        return self.r.value(math_dialect.AbsFOp(value))

    def straddles_zero(self, low: SSAValue, high: SSAValue) -> SSAValue:
        """min < 0 < max: the case where a symmetric grid preserves sparsity."""
        r = self.r
        return r.and_(r.cmpf("olt", low, self.f32(0.0)), r.cmpf("ogt", high, self.f32(0.0)))

    def choose(self, low: SSAValue, high: SSAValue) -> list[SSAValue]:
        r = self.r
        qmin, qmax = self.qmin, self.qmax
        levels = qmax - qmin
        if self.symmetric:
            sqmin, sqmax = -(levels // 2 + 1), levels // 2
            a, c = self.abs(r.div(low, self.f32(sqmin))), self.abs(r.div(high, self.f32(sqmax)))
            widest = self.wide(r.select(r.cmpf("olt", a, c), c, a))
            straddles = self.straddles_zero(low, high)
            low = r.select(straddles, self.narrow(r.mul(widest, self.f64(sqmin))), low)
            high = r.select(straddles, self.narrow(r.mul(widest, self.f64(sqmax))), high)
        zero = self.f32(0.0)
        low = r.select(r.cmpf("olt", zero, low), zero, low)
        high = r.select(r.cmpf("olt", high, zero), zero, high)
        scale = self.narrow(r.div(r.sub(self.wide(high), self.wide(low)), self.f64(levels)))
        reciprocal = self.abs(r.div(self.f32(1.0), scale))
        degenerate = r.or_(r.cmpf("oeq", scale, zero), r.cmpf("oeq", reciprocal, self.f32(math.inf)))
        scale = r.select(degenerate, self.f32(0.1), scale)
        small = r.cmpf("olt", scale, self.f32(SMALL_SCALE))
        amplifier = r.div(self.f32(SMALL_SCALE), scale)
        low_is_zero, high_is_zero = r.cmpf("oeq", low, zero), r.cmpf("oeq", high, zero)
        widened_low = r.select(low_is_zero, low, r.select(high_is_zero, self.f32(-SMALL_SCALE * levels),
                                                          r.mul(low, amplifier)))
        widened_high = r.select(low_is_zero, self.f32(SMALL_SCALE * levels),
                                r.select(high_is_zero, high, r.mul(high, amplifier)))
        low = r.select(small, widened_low, low)
        high = r.select(small, widened_high, high)
        scale = r.select(small, self.f32(SMALL_SCALE), scale)
        return [scale, self.zero_point(low, high, scale)]

    def zero_point(self, low: SSAValue, high: SSAValue, scale: SSAValue) -> SSAValue:
        """The nudged zero point of the grid [low, high] of step `scale` (module docstring)."""
        r = self.r
        qmin, qmax = self.qmin, self.qmax
        wide_scale = self.wide(scale)
        low_steps, high_steps = r.div(self.wide(low), wide_scale), r.div(self.wide(high), wide_scale)
        from_min, from_max = r.sub(self.f64(qmin), low_steps), r.sub(self.f64(qmax), high_steps)
        min_error = r.add(self.f64(abs(qmin)), self.abs(low_steps))
        max_error = r.add(self.f64(abs(qmax)), self.abs(high_steps))
        initial = r.select(r.cmpf("olt", min_error, max_error), from_min, from_max)
        if self.symmetric:
            initial = r.select(self.straddles_zero(low, high), self.f64((qmin + qmax) / 2), initial)
        rounded = r.value(math_dialect.RoundEvenOp(initial))
        nudged = r.select(r.cmpf("olt", initial, self.f64(qmin)), self.f64(qmin),
                          r.select(r.cmpf("ogt", initial, self.f64(qmax)), self.f64(qmax), rounded))
        return r.value(arith.FPToSIOp(nudged, IntegerType(32)))
