"""Stride phases: which taps of which windows reach a cell.

A strided window reads the cells of one residue modulo the stride with a fixed subset of
its taps, so a strided conv, its input gradient and a pool's gradient each split into
stride-1 problems, one per phase.
"""

from __future__ import annotations

import math
from dataclasses import dataclass



def phase_taps(phase: int, kernel: int, stride: int, padding: int, dilation: int = 1) -> list[tuple[int, int]]:
    """The pairs (k, d), k increasing, by which every cell `i*S + phase` is tap `k` of window `i + d`.

    Window `o` reads the cells `o*S - P + k*D` for taps `0 <= k < K`, so cell `i*S + phase`
    is tap k of window `o = i + d` exactly when `phase + P - k*D = d*S`: the taps with
    `(phase + P - k*D) % S == 0`, with `d = (phase + P - k*D) / S`, the same for every i.
    A pool's windows (D = 1) and the adjoint of a conv's (dx gathering from dy) alike.
    """
    return [
        (k, (phase + padding - k * dilation) // stride)
        for k in range(kernel)
        if (phase + padding - k * dilation) % stride == 0
    ]


@dataclass(frozen=True)
class AxisPhase:
    """The dx rows `start, start + s, start + 2s, ...` (`count` of them) along one axis of a
    conv's input gradient.

    Row `i = s*q + start` receives the taps `k` with `(start + p - k*d) % s == 0`, which
    are `taps` (ascending, `step = s / gcd(s, d)` apart), each from dy row
    `o = q + e - t*d'` for the t-th tap, with `e = (start + p - taps[0]*d) / s` and
    `d' = d / gcd(s, d)` (`phase_taps`). Read in reverse tap order that is a stride-1
    correlation:

        dx[s*q + start] = sum_t dyw[q + t*d'] * w[taps[T-1-t]]

    of the dy window `dyw` = dy padded low by `low = (T-1)*d' - e` (cropped where
    negative), `count + (T-1)*d'` long.
    """

    start: int
    count: int
    taps: tuple[int, ...]
    dilation: int
    low: int

    @property
    def window(self) -> int:
        """Length of the dy window the phase reads."""
        return self.count + (len(self.taps) - 1) * self.dilation

    @staticmethod
    def split(size: int, kernel: int, stride: int, padding: int, dilation: int) -> list[AxisPhase]:
        """The phases of an axis of `size` dx rows; those no tap reaches are left out (their
        rows get no gradient)."""
        sub_dilation = dilation // math.gcd(stride, dilation)
        phases = []
        for start in range(min(stride, size)):
            reached = phase_taps(start, kernel, stride, padding, dilation)
            if not reached:
                continue
            (_, first_dy_row), *_ = reached
            phases.append(
                AxisPhase(
                    start=start,
                    count=-(-(size - start) // stride),
                    taps=tuple(k for k, _ in reached),
                    dilation=sub_dilation,
                    low=(len(reached) - 1) * sub_dilation - first_dy_row,
                )
            )
        return phases

    def high(self, out: int) -> int:
        """High padding of dy (negative: cropped) for this phase's window."""
        return self.window - self.low - out


@dataclass(frozen=True)
class StridePhase:
    """The taps of one axis of a strided conv's kernel that read input rows of one residue.

    Output row `o` reads padded input row `s*o + d*k` for tap `k`. Writing `d*k = s*q + r`
    (`r = d*k mod s`), that row is `s*(o + q) + r`: the taps of residue `r` read only the
    rows `r, r + s, r + 2s, ...`, i.e. the phase `x_r[i] = xpad[s*i + r]`, at `o + q`. They
    are `taps` (ascending, `s / gcd(s, d)` apart), at positions `offset, offset + d', ...`
    with `d' = d / gcd(s, d)`, so one phase is the stride-1 correlation

        y[o] += sum_t x_r[offset + o + t*d'] * w[taps[t]]

    over `rows(out)` rows of `x_r` from row `offset`.
    """

    residue: int
    taps: tuple[int, ...]
    offset: int
    dilation: int

    @staticmethod
    def split(kernel: int, stride: int, dilation: int) -> list[StridePhase]:
        """The residues some tap reads (every tap in exactly one), with their taps."""
        sub_dilation = dilation // math.gcd(stride, dilation)
        phases = []
        for residue in range(stride):
            taps = tuple(k for k in range(kernel) if dilation * k % stride == residue)
            if taps:
                phases.append(StridePhase(residue, taps, dilation * taps[0] // stride, sub_dilation))
        return phases

    @property
    def tap_step(self) -> int:
        """Kernel index between consecutive taps: `s / gcd(s, d)`."""
        return self.taps[1] - self.taps[0] if len(self.taps) > 1 else 1

    def rows(self, out: int) -> int:
        """Rows of the phase that `out` output rows read."""
        return out + (len(self.taps) - 1) * self.dilation

    def first_row(self, stride: int) -> int:
        """The padded input row of the phase's first row read: `s*offset + r`."""
        return stride * self.offset + self.residue
