"""The activation ops of the PyTorch import (issue 15): being written; see README's dialect reference."""

from __future__ import annotations

FORWARD_OPS: tuple = ()
BACKWARD_OPS: tuple = ()
