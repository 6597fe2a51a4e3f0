"""JVP rules: one function per op family, registered by op class, and the identities they share.

A JVP rule is the Jacobian-vector product of one op: given the op (cloned into the JVP
function, so its operands and results are the primal values) and one tangent per operand,
it returns one tangent per result, or None where the result has none (an integer or i1
result, or a derivative that is zero almost everywhere). A tangent is None when it is
known to be zero: an operand that depends on no `wrt` argument has no tangent, and no
zero tensor is ever built for it.

    @jvp_rule(*rlx.CONV)
    def conv(b, op, x_dot, w_dot):
        return (product_rule(b, op, x_dot, w_dot),)      # conv(x_dot, w) + conv(x, w_dot)

Three identities cover most ops, each stated once here:
- a multilinear op (mul, matmul, a conv, a pool's gradient in its dy) differentiates by
  the product rule: the sum over its linear operands of the op with that operand replaced
  by its tangent (`product_rule`);
- a linear op of several operands (concat) is applied to the tangents, a zero splat
  standing for a piece that has none (`jointly_linear`);
- an elementwise op without broadcasting has a diagonal Jacobian in each operand, equal to
  its transpose, so its JVP in operand i is its VJP in operand i (`diagonal`): the VJP
  rules' derivatives are reused rather than written twice.

An op whose derivative is long to write by hand (a norm's gradient, attention) is written
once more as a composition of RLX ops, and the tangents are pushed forward through that
composition by its ops' own rules (`composed`), as the reverse rules of the second order
pull cotangents back through theirs (`autodiff.attention.pull_back`).

Every value a rule builds is an RLX op (or an `arith.constant`), so the JVP function can be
differentiated again, by either mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir import Operation, SSAValue

from rlx_mlir.autodiff.rules import RULES as VJP_RULES
from rlx_mlir.autodiff.rules import VjpBuilder, is_float_tensor, registrar
from rlx_mlir.dialects import rlx

Tangent = SSAValue | None
Rule = Callable[..., Sequence[Tangent]]

JVP_RULES: dict[type[Operation], Rule] = {}
"""The JVP rule of each op class."""


def jvp_rule(*op_classes: type[Operation]) -> Callable[[Rule], Rule]:
    """Register the decorated function as the JVP rule of each of `op_classes`."""
    return registrar(JVP_RULES, "JVP", op_classes)


def advance(b: VjpBuilder, op: Operation, tangents: dict[SSAValue, SSAValue], rule_of: Callable[[Operation], Rule]) -> None:
    """Apply `op`'s rule (`rule_of(op)`) to the tangents of its operands in `tangents`, and
    enter the tangents of its float results there; an op none of whose operands has one is
    skipped, and needs no rule (a constant, an integer op).

    The one step of every forward sweep: the pass's over a function, `push_forward`'s over
    a composition.
    """
    dots = [tangents.get(operand) for operand in op.operands]
    if all(dot is None for dot in dots):
        return
    result_dots = rule_of(op)(b, op, *dots)
    if len(result_dots) != len(op.results):
        raise AssertionError(f"the JVP rule of {op.name} gave {len(result_dots)} tangents for {len(op.results)} results")
    for result, dot in zip(op.results, result_dots):
        if dot is None or not is_float_tensor(result.type):
            continue
        if dot.type != result.type:
            raise AssertionError(f"the JVP rule of {op.name} gave a tangent of {dot.type} for a result of {result.type}")
        tangents[result] = dot


def push_forward(b: VjpBuilder, ops: Sequence[Operation], seeds: dict[SSAValue, Tangent], wanted: Sequence[SSAValue]) -> list[Tangent]:
    """The tangents of `wanted` (results of `ops`) given those of the values `ops` read
    (`seeds`, None for none): the forward sweep over `ops` alone, each op by its rule."""
    tangents = {value: dot for value, dot in seeds.items() if dot is not None}
    for op in ops:
        advance(b, op, tangents, lambda op: JVP_RULES[type(op)])
    return [tangents.get(value) for value in wanted]


def composed(b: VjpBuilder, op: Operation, dots: Sequence[Tangent], compose: Callable[..., Sequence[SSAValue]]) -> tuple[Tangent, ...]:
    """The tangents of `op`'s results, `compose(b, op)` building the same results from RLX
    ops (reading `op`'s operands): the operands' tangents `dots` pushed forward through the
    ops it built. The primal values it builds are the tangents' coefficients only; the
    results themselves stay `op`'s."""
    first = b.block.last_op
    results = compose(b, op)
    ops, built = [], b.block.first_op if first is None else first.next_op
    while built is not None:
        ops.append(built)
        built = built.next_op
    return tuple(push_forward(b, ops, dict(zip(op.operands, dots)), results))


def broadcast_to(b: VjpBuilder, tangent: Tangent, like: SSAValue) -> Tangent:
    """`tangent` expanded to `like`'s shape (the tangent of a broadcast operand), None kept."""
    if tangent is None or tangent.type == like.type:
        return tangent
    return b.build(rlx.ExpandOp, [tangent], like)


def total(b: VjpBuilder, terms: Sequence[Tangent], like: SSAValue) -> Tangent:
    """The sum of the tangent terms that are not None, each broadcast to `like`; None if all are."""
    result = None
    for term in terms:
        term = broadcast_to(b, term, like)
        result = term if result is None else b.add(result, term)
    return result


def replaced(b: VjpBuilder, op: Operation, index: int, value: SSAValue) -> SSAValue:
    """`op` again, with operand `index` replaced by `value` (same properties, same result type)."""
    operands = list(op.operands)
    operands[index] = value
    return b.like(op, type(op), operands, op.results[0])


def product_rule(b: VjpBuilder, op: Operation, *tangents: Tangent, linear: Sequence[int] | None = None) -> Tangent:
    """d op(x_1, ..., x_n) = sum_i op(..., x_i_dot, ...) over the operands `linear` (default:
    all) the op is linear in; a tangent of any other operand is ignored (the op is piecewise
    constant in it: a max-pool's x in its gradient, an index)."""
    positions = range(len(tangents)) if linear is None else linear
    terms = [replaced(b, op, i, tangents[i]) for i in positions if tangents[i] is not None]
    return total(b, terms, op.results[0])


def jointly_linear(b: VjpBuilder, op: Operation, *tangents: Tangent, linear: Sequence[int] | None = None) -> Tangent:
    """d op(x_1, ..., x_n) = op(x_1_dot, ..., x_n_dot) for an op linear in the operands `linear`
    (default: all) together, a zero splat standing for a tangent that is None; the other
    operands (indices) are kept."""
    positions = range(len(tangents)) if linear is None else linear
    if all(tangents[i] is None for i in positions):
        return None
    operands = list(op.operands)
    for i in positions:
        operands[i] = b.zeros(operands[i].type) if tangents[i] is None else tangents[i]
    return b.like(op, type(op), operands, op.results[0])


def diagonal(b: VjpBuilder, op: Operation, *tangents: Tangent) -> tuple[Tangent]:
    """d y = sum_i J_i x_i_dot, each J_i diagonal (elementwise, no broadcast), so J_i = J_i^T
    and J_i x_i_dot is operand i's VJP of x_i_dot: the VJP rule, seeded with each tangent."""
    y = op.results[0]
    vjp = VJP_RULES[type(op)]
    terms = []
    for i, (x, t) in enumerate(zip(op.operands, tangents)):
        if t is None:
            continue
        if x.type != y.type:
            raise AssertionError(f"{op.name}: a diagonal JVP needs operands of the result's type, not {x.type}")
        terms.append(vjp(b, op, t)[i])
    return (total(b, terms, y),)
