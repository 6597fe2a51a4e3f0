"""Reverse-mode differentiation of RLX functions, to any order: the `autodiff` pass.

`reverse` holds the machinery and the pass, `rules` the rule registry and the builder the
rules write with, and one module per op family (`conv`, `pool`, `matmul`) its rules.
Importing this package registers every rule (`families`), so that `RULES` is complete
for whoever imports any part of it.

`rlx_mlir.autodiff(source, func, wrt=None)` is the Python face of the pass. The package
and the function share that name (the issue fixes both), and importing a subpackage
binds its name on the parent, so the package itself is the function: its module is
callable (`_CallableModule`), and `rlx_mlir.autodiff(...)` works however it was imported.
"""

import sys
import types

from rlx_mlir.autodiff import families  # noqa: F401  (registers every family's rules)
from rlx_mlir.autodiff.reverse import AutodiffPass, autodiff, differentiate
from rlx_mlir.autodiff.rules import RULES, vjp_rule

__all__ = ["AutodiffPass", "autodiff", "differentiate", "RULES", "vjp_rule"]


class _CallableModule(types.ModuleType):
    def __call__(self, source, func, wrt=None):
        """`rlx_mlir.autodiff(source, func, wrt=None)`: see `reverse.autodiff`."""
        return autodiff(source, func, wrt)


sys.modules[__name__].__class__ = _CallableModule
