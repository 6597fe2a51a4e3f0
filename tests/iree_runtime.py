"""IREE as a second backend for the tests: compile our linalg with `iree-compile` (llvm-cpu) and
call its functions with NumPy arrays through `iree.runtime`.

`IreeModule.compile(module)` compiles a module of many functions once, printed as
`rlx-opt` prints it. When IREE rejects some
of them, their diagnostics are kept per function (each error's line falls inside one
`func.func` of the text) and the module is compiled again without them, so one bad
function fails its own test and not its neighbours'.

IREE is optional for a developer (`require_iree` skips) but not in CI, which installs it
with the `test` extra: there a missing IREE fails.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

FLAGS = (
    # A target every x86-64 machine runs and whose code does not depend on the host: the
    # test checks what our IR means, not how fast IREE runs it (benchmarks/ uses `host`).
    # Baseline x86-64 has no FMA, so rounding does not change from one CI machine to the next.
    "--iree-llvmcpu-target-cpu=generic",
    # IREE demotes f64 to f32 by default; our f64 functions are checked at f64.
    "--iree-input-demote-f64-to-f32=false",
    # Our IR has no constant tensors to fold; without it IREE skips a JIT compile per module.
    "--iree-opt-const-eval=false",
    # Our pool gathers pass tensor.empty as a shape-only input (it bounds the window loops;
    # the body never uses it) and as an init that the first step replaces
    # (`select(first, 0, acc)`); IREE warns about each such generic.
    "--iree-global-opt-enable-warn-on-uninitialized-values=false",
)

_ERROR_LINE = re.compile(r"^\S*?:(\d+):\d+: error: ", re.MULTILINE)
_FUNC_START = re.compile(r"^\s*func\.func (?:public |private )?@([\w$.]+)\(", re.MULTILINE)


def require_iree():
    """`(iree.compiler, iree.runtime)`; skips the caller's module without IREE, fails it in CI."""
    try:
        import iree.compiler as compiler
        import iree.runtime as runtime
    except ImportError as error:
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"CI installs IREE with the `test` extra, but it cannot be imported: {error}", pytrace=False)
        pytest.skip(f"IREE is not installed (pip install -e '.[test]'): {error}", allow_module_level=True)
    return compiler, runtime


def function_spans(text: str) -> dict[str, tuple[int, int]]:
    """`{name: (first line, last line)}` (1-based) of the top-level functions of `text`."""
    starts = [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _FUNC_START.finditer(text)]
    last = text.count("\n") + 1
    return {name: (line, (starts[i + 1][0] - 1) if i + 1 < len(starts) else last) for i, (line, name) in enumerate(starts)}


def errors_by_function(diagnostics: str, spans: dict[str, tuple[int, int]]) -> dict[str, str]:
    """The diagnostics of each function an `error:` line points into; {} if one points elsewhere."""
    blocks: dict[str, list[str]] = {}
    matches = list(_ERROR_LINE.finditer(diagnostics))
    for i, match in enumerate(matches):
        line = int(match.group(1))
        owner = next((name for name, (lo, hi) in spans.items() if lo <= line <= hi), None)
        if owner is None:
            return {}
        end = matches[i + 1].start() if i + 1 < len(matches) else len(diagnostics)
        block = diagnostics[match.start():end].split("\n\nInvoked with:")[0]
        blocks.setdefault(owner, []).append(block.strip())
    return {name: "\n".join(block) for name, block in blocks.items()}


@dataclass
class IreeModule:
    """Functions compiled by IREE (`module[name](*arrays)`) and the ones it rejected (`errors`)."""

    functions: object | None
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def compile(cls, module: ModuleOp, max_rounds: int = 3) -> IreeModule:
        """`module` as `rlx-opt` prints it, compiled by IREE; rejected functions are dropped."""
        compiler, runtime = require_iree()
        module = module.clone()
        errors: dict[str, str] = {}
        for _ in range(max_rounds):
            if not module.body.block.ops:
                return cls(None, errors)
            text = str(module)
            try:
                flatbuffer = compiler.compile_str(text, target_backends=["llvm-cpu"], extra_args=list(FLAGS))
                break
            except compiler.CompilerToolError as error:
                found = errors_by_function(str(error), function_spans(text))
                if not found:
                    raise
                errors.update(found)
                for op in list(module.body.block.ops):
                    if isinstance(op, func.FuncOp) and op.sym_name.data in found:
                        module.body.block.erase_op(op)
        else:
            raise AssertionError(f"IREE still rejects the module after dropping {sorted(errors)}")
        # local-sync: no worker threads on a machine whose cores other test runs share.
        config = runtime.Config("local-sync")
        context = runtime.SystemContext(config=config)
        context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, flatbuffer))
        return cls(context.modules.module, errors)

    def __getitem__(self, name: str):
        if name in self.errors:
            pytest.fail(f"IREE rejects @{name}:\n{self.errors[name]}", pytrace=False)
        function = self.functions[name]

        def call(*arrays: np.ndarray):
            result = function(*arrays)
            if isinstance(result, (tuple, list)):
                return tuple(r.to_host() for r in result)
            return result.to_host()

        return call
