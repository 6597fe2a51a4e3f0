"""Reverse mode over one function: `@f` -> `@f_vjp`, the `autodiff` pass.

`@f_vjp(<f's arguments>, <one cotangent per result>) -> (<one gradient per wrt argument>)`
is built in three steps:
1. the forward body is cloned once into `@f_vjp`, so every forward value a rule reads is
   computed once (no forward op runs twice);
2. the reverse sweep walks the clone backwards and calls each op's VJP rule
   (`rules.RULES`) on the cotangents of its results. A value used several times sums its
   cotangents (`rlx.add`). Only *active* ops are differentiated: those with a result
   that has a cotangent and an operand that depends on a `wrt` argument; integer and
   index values never get one;
3. the gradients are returned, a zero splat for an argument no result depends on, and
   the function is cleaned with xDSL's passes (`simplify`): the RLX ops' canonicalization
   patterns (reshape and permute chains, commutative operand order), common-subexpression
   elimination, and dead-code elimination of every op whose result nothing reads (a
   forward value no rule needed, a cotangent of an inactive operand).

The function holds RLX ops, `arith.constant` and `func` only, so it can be
differentiated again: `--autodiff="func=f_vjp"` is the second order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce

from rlx_mlir.autodiff.rules import RULES, VjpBuilder, is_float_tensor
from rlx_mlir.ir import (
    DiagnosticError,
    format_location,
    make_context,
    parse_module,
    verify_module,
    verify_pass_output,
)

VJP_SUFFIX = "_vjp"


def _find_function(module: ModuleOp, name: str, pass_name: str = "autodiff") -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    defined = [f"@{op.sym_name.data}" for op in module.ops if isinstance(op, func.FuncOp)]
    raise DiagnosticError(
        f"{pass_name}: no function @{name} in the module (it defines {', '.join(defined) or 'none'})",
        format_location(module) or _first_location(module),
    )


def _first_location(module: ModuleOp) -> str | None:
    for op in module.walk():
        location = format_location(op)
        if location:
            return location
    return None


def _error(op: Operation, message: str) -> DiagnosticError:
    return DiagnosticError(f"'{op.name}' op {message}", format_location(op))


def _wrt_indices(f: func.FuncOp, wrt: Sequence[int] | None, pass_name: str = "autodiff") -> list[int]:
    """The arguments to differentiate: `wrt`, checked, or every float tensor argument."""
    args = f.body.block.args
    if wrt is None:
        return [i for i, arg in enumerate(args) if is_float_tensor(arg.type)]
    for i in wrt:
        if not 0 <= i < len(args):
            raise _error(
                f, f"{pass_name}: wrt index {i} is out of range: @{f.sym_name.data} has {len(args)} arguments"
            )
        if not is_float_tensor(args[i].type):
            raise _error(
                f, f"{pass_name}: wrt index {i} names argument {args[i].type}, not a floating-point tensor"
            )
    return list(wrt)


def target_function(
    module: ModuleOp, name: str, suffix: str, wrt: Sequence[int] | None, pass_name: str
) -> tuple[func.FuncOp, list[int]]:
    """The function @`name` that `pass_name` differentiates into @`name``suffix`, and the
    indices of its arguments to differentiate (`wrt`, checked, or every float tensor
    argument): a located error for a missing function, one of several blocks, a taken
    name and a bad `wrt` index. Both modes' passes ask this one question."""
    f = _find_function(module, name, pass_name)
    if len(f.body.blocks) != 1:
        raise _error(f, f"{pass_name}: @{name} must have one block, it has {len(f.body.blocks)}")
    derived = name + suffix
    if any(isinstance(op, func.FuncOp) and op.sym_name.data == derived for op in module.ops):
        raise _error(f, f"{pass_name}: @{derived} already exists")
    return f, _wrt_indices(f, wrt, pass_name)


def rule_of(op: Operation, table: dict, kind: str, pass_name: str, function: str):
    """`op`'s rule in `table` (the VJP or the JVP rules), or a located error naming the op."""
    rule = table.get(type(op))
    if rule is None:
        raise _error(op, f"has no {kind} rule: {pass_name} cannot differentiate @{function} through it")
    return rule


class _Cotangents:
    """The cotangent of each value, summed over its uses as they are reached."""

    def __init__(self, builder: VjpBuilder):
        self.builder = builder
        self.of: dict[SSAValue, SSAValue] = {}

    def add(self, value: SSAValue, cotangent: SSAValue) -> None:
        if cotangent.type != value.type:
            raise AssertionError(f"a VJP rule gave a cotangent of {cotangent.type} for a value of {value.type}")
        previous = self.of.get(value)
        self.of[value] = cotangent if previous is None else self.builder.add(previous, cotangent)


def differentiate(module: ModuleOp, name: str, wrt: Sequence[int] | None = None) -> func.FuncOp:
    """Add `@NAME_vjp` to `module` (see the module docstring) and return it."""
    f, indices = target_function(module, name, VJP_SUFFIX, wrt, "autodiff")
    vjp_name = name + VJP_SUFFIX
    block = f.body.block
    returned = block.last_op
    assert isinstance(returned, func.ReturnOp)
    arg_types = [arg.type for arg in block.args]
    result_types = list(f.function_type.outputs.data)

    vjp = func.FuncOp(vjp_name, ([*arg_types, *result_types], [arg_types[i] for i in indices]))
    vjp.location = f.location
    body = vjp.body.block
    args, seeds = body.args[: len(arg_types)], body.args[len(arg_types) :]
    for new, old in zip(args, block.args):
        new.name_hint = old.name_hint
    for seed, value in zip(seeds, returned.operands):
        seed.name_hint = f"{value.name_hint}_bar" if value.name_hint else None

    # 1. the forward, once; `active` are the values that depend on a wrt argument.
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
    active = {args[i] for i in indices}
    forward: list[Operation] = []
    for op in block.ops:
        if op is returned:
            continue
        clone = op.clone(value_mapper=mapping)
        body.add_op(clone)
        forward.append(clone)
        if any(operand in active for operand in clone.operands):
            active.update(r for r in clone.results if is_float_tensor(r.type))

    # 2. the reverse sweep.
    builder = VjpBuilder(body)
    cotangents = _Cotangents(builder)
    for value, seed in zip(returned.operands, seeds):
        value = mapping[value]
        if value in active:
            cotangents.add(value, seed)
    for op in reversed(forward):
        bars = [cotangents.of.get(r) for r in op.results]
        if all(bar is None for bar in bars):
            continue
        rule = rule_of(op, RULES, "VJP", "autodiff", name)
        builder.location = op.location
        bars = [
            bar if bar is not None or not is_float_tensor(r.type) else builder.zeros(r.type)
            for r, bar in zip(op.results, bars)
        ]
        grads = rule(builder, op, *bars)
        if len(grads) != len(op.operands):
            raise AssertionError(f"the VJP rule of {op.name} gave {len(grads)} cotangents for {len(op.operands)} operands")
        for operand, grad in zip(op.operands, grads):
            if grad is not None and operand in active:
                cotangents.add(operand, grad)
    builder.location = f.location

    # 3. the gradients, then nothing that is not read.
    gradients = [cotangents.of.get(args[i]) or builder.zeros(arg_types[i]) for i in indices]
    body.add_op(func.ReturnOp(*gradients))
    simplify(vjp)
    module.body.block.insert_op_after(vjp, f)
    return vjp


def simplify(function: func.FuncOp) -> None:
    """Canonicalize (`dialects.canonicalization`), share equal ops and erase unread ones in
    `function`, until none of them changes its size; nothing else in the module.

    The rules of each order read the forward values they need afresh (a transpose of a
    matmul operand, a zero splat, a sum along a softmax's dim), and the next order
    differentiates those reads too; sharing equal ops keeps each order's function at the
    size of its distinct computations. The rounds repeat because each pass can feed the
    other: sharing two operands may make two commutative ops equal only once their
    operands are sorted again. The arguments stay (dead-code elimination erases ops only),
    and so does every returned value (`func.return` reads it). The walker is xDSL's
    `CanonicalizePass`'s, on this function's body: the pass would rewrite the whole
    module, and the functions differentiated stay as they were.
    """
    canonicalize = PatternRewriteWalker(
        GreedyRewritePatternApplier([CanonicalizationRewritePattern()]), post_walk_func=region_dce
    )
    while True:
        size = _op_count(function)
        canonicalize.rewrite_region(function.body)
        cse(function)
        if _op_count(function) == size:
            return


def _op_count(op: Operation) -> int:
    return sum(1 for _ in op.walk())


@dataclass(frozen=True)
class AutodiffPass(ModulePass):
    """Add `@NAME_vjp` for each function NAME of `func`: its vector-Jacobian product.

    Options:
    - `func`: the functions to differentiate, comma-separated (`func=f,g`).
    - `wrt`: the argument indices to differentiate with respect to, comma-separated, in
      the order the gradients are returned (`wrt=0,2`); by default every floating-point
      tensor argument.

    The input is left as it was; each `@NAME_vjp` holds RLX ops, `arith.constant` and
    `func.return` only, so the pass applies to its own output (`func=NAME_vjp`). An op
    without a VJP rule, an unknown function and a `wrt` index out of range are located
    errors.
    """

    name = "autodiff"

    func: tuple[str, ...] = ()
    wrt: tuple[int, ...] | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        names = (self.func,) if isinstance(self.func, str) else self.func
        if not names:
            raise DiagnosticError(f"{self.name}: option 'func' names no function (func=NAME[,NAME...])")
        wrt = (self.wrt,) if isinstance(self.wrt, int) else self.wrt
        for name in names:
            self.transform(op, name, wrt)

    @staticmethod
    def transform(module: ModuleOp, name: str, wrt: Sequence[int] | None) -> func.FuncOp:
        """Add the derivative of `@name` to `module`; the forward-mode pass, whose options are
        these, overrides this alone."""
        return differentiate(module, name, wrt)


def autodiff(source, func: str | Sequence[str], wrt: Sequence[int] | None = None) -> ModuleOp:
    """`rlx_mlir.autodiff`: parse (if text) and verify `source`, add `@NAME_vjp` for each
    NAME of `func` (a name, a comma-separated string or a list), return the module.

    An xDSL module is differentiated in a copy, as `rlx_mlir.compile` treats its input.
    Errors in the input are `DiagnosticError`s, as from `rlx-opt --autodiff`.
    """
    return run_pass(AutodiffPass, source, func, wrt)


def run_pass(pass_class: type[AutodiffPass], source, func: str | Sequence[str], wrt: Sequence[int] | None) -> ModuleOp:
    """The Python face of `pass_class` (`autodiff` or `jvp`): `source` parsed (if text) or
    copied and verified, the pass run on it with these options, its output verified."""
    if isinstance(source, str):
        module = parse_module(make_context(), source, "<string>")
    else:
        assert isinstance(source, ModuleOp), f"{pass_class.name} takes MLIR text or an xDSL ModuleOp"
        module = source.clone()
        verify_module(module)
    names = tuple(func.split(",")) if isinstance(func, str) else tuple(func)
    pass_ = pass_class(func=tuple(n.strip() for n in names), wrt=None if wrt is None else tuple(wrt))
    pass_.apply(make_context(), module)
    verify_pass_output(module, pass_.name)
    return module
