"""Forward mode over one function: `@f` -> `@f_jvp`, the `jvp` pass.

`@f_jvp(<f's arguments>, <one tangent per wrt argument>) -> (<f's results>, <one tangent
per floating-point result>)` is one sweep in program order: each op is cloned, then its
JVP rule (`rules.JVP_RULES`) maps the tangents of its operands to the tangents of its
results, a linear map of the input tangents. A value that depends on no `wrt` argument has
no tangent at all (not a zero tensor), and an op none of whose operands has one is not
differentiated; a result no `wrt` argument reaches gets a zero splat. The function is then
cleaned as the VJP function is (`reverse.simplify`).

Like `@f_vjp`, `@f_jvp` holds RLX ops, `arith.constant` and `func` only, so either pass
applies to it: `--autodiff` then `--jvp="func=f_vjp"` is a Hessian-vector product
(forward over reverse), `--jvp` then `--autodiff="func=f_jvp"` is reverse over forward.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from rlx_mlir.autodiff.forward.rules import JVP_RULES, advance
from rlx_mlir.autodiff.reverse import AutodiffPass, rule_of, run_pass, simplify, target_function
from rlx_mlir.autodiff.rules import VjpBuilder, is_float_tensor

JVP_SUFFIX = "_jvp"
PASS = "jvp"


def linearize(module: ModuleOp, name: str, wrt: Sequence[int] | None = None) -> func.FuncOp:
    """Add `@NAME_jvp` to `module` (see the module docstring) and return it."""
    f, indices = target_function(module, name, JVP_SUFFIX, wrt, PASS)
    jvp_name = name + JVP_SUFFIX
    block = f.body.block
    returned = block.last_op
    assert isinstance(returned, func.ReturnOp)
    arg_types = [arg.type for arg in block.args]
    result_types = list(f.function_type.outputs.data)
    differentiable = [i for i, t in enumerate(result_types) if is_float_tensor(t)]

    jvp = func.FuncOp(
        jvp_name,
        ([*arg_types, *(arg_types[i] for i in indices)], [*result_types, *(result_types[i] for i in differentiable)]),
    )
    jvp.location = f.location
    body = jvp.body.block
    args, seeds = body.args[: len(arg_types)], body.args[len(arg_types) :]
    for new, old in zip(args, block.args):
        new.name_hint = old.name_hint
    for seed, i in zip(seeds, indices):
        seed.name_hint = f"{block.args[i].name_hint}_dot" if block.args[i].name_hint else None

    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
    tangents: dict[SSAValue, SSAValue] = {args[i]: seed for i, seed in zip(indices, seeds)}
    builder = VjpBuilder(body)
    for op in block.ops:
        if op is returned:
            continue
        clone = op.clone(value_mapper=mapping)
        body.add_op(clone)
        builder.location = op.location
        advance(builder, clone, tangents, lambda _: rule_of(op, JVP_RULES, "JVP", PASS, name))  # noqa: B023  (called at once)
    builder.location = f.location

    results = [mapping[value] for value in returned.operands]
    result_dots = [tangents.get(results[i]) or builder.zeros(result_types[i]) for i in differentiable]
    body.add_op(func.ReturnOp(*results, *result_dots))
    simplify(jvp)
    module.body.block.insert_op_after(jvp, f)
    return jvp


@dataclass(frozen=True)
class JvpPass(AutodiffPass):
    """Add `@NAME_jvp` for each function NAME of `func`: its Jacobian-vector product.

    Options, as `autodiff`'s (this pass inherits them):
    - `func`: the functions to differentiate, comma-separated (`func=f,g`).
    - `wrt`: the argument indices whose tangents `@NAME_jvp` takes, comma-separated, in
      that order (`wrt=0,2`); by default every floating-point tensor argument.

    The input is left as it was; each `@NAME_jvp` holds RLX ops, `arith.constant` and
    `func.return` only, so `jvp` and `autodiff` apply to its output. An op without a JVP
    rule, an unknown function and a bad `wrt` index are located errors.
    """

    name = PASS

    @staticmethod
    def transform(module: ModuleOp, name: str, wrt: Sequence[int] | None) -> func.FuncOp:
        return linearize(module, name, wrt)


def jvp(source, func: str | Sequence[str], wrt: Sequence[int] | None = None) -> ModuleOp:
    """`rlx_mlir.autodiff.forward.jvp`: parse (if text) and verify `source`, add `@NAME_jvp`
    for each NAME of `func` (a name, a comma-separated string or a list), return the module.

    An xDSL module is differentiated in a copy; errors in the input are `DiagnosticError`s,
    as from `rlx-opt --jvp`.
    """
    return run_pass(JvpPass, source, func, wrt)
