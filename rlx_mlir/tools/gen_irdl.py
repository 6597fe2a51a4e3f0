"""Generate `dialects/rlx.irdl.mlir`, the IRDL description of RLX, from its Python definitions.

    python -m rlx_mlir.tools.gen_irdl -o dialects/rlx.irdl.mlir

Upstream MLIR loads the result with `mlir-opt --irdl-file=dialects/rlx.irdl.mlir` and then
parses and verifies the generic form that `rlx-opt --print-op-generic --print-no-properties`
prints (IRDL-loaded ops have attributes, not properties). `tests/test_irdl.py` fails when
the committed file differs from what this module generates.

What each op gets, read from `op.get_irdl_definition()` (the kind of each property from its
constraint, `RlxOp.property_kinds`):
- operands and results: `irdl.base "!builtin.tensor"` (ranked tensors);
- `sizes` properties: `irdl.base "#builtin.dense_array"`;
- `int` properties: `irdl.base "#builtin.integer"`;
- `bool` properties: exactly `true` or `false` (`irdl.any_of` of two `irdl.is`);
- `float` and `string` properties: `irdl.base "#builtin.float"` / `"#builtin.string"`.

IRDL can only constrain the parameters of types and attributes that are themselves defined
in IRDL, so the tensor element type, the `i64` of the arrays and of `groups`, the array
length and every shape rule stay with the Python verifiers. Each use gets its own
constraint value: IRDL binds one SSA value to one attribute, so sharing `%t` between two
operands would demand that both have the same type.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

from xdsl.builder import Builder, InsertPoint
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.dialects.irdl import (
    AnyOfOp,
    AttributesOp,
    BaseOp,
    DialectOp,
    IsOp,
    OperandsOp,
    OperationOp,
    ResultsOp,
    VariadicityArrayAttr,
    VariadicityAttr,
)
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.irdl import AttrConstraint, IRDLOperation, OptionalDef, VariadicDef
from xdsl.printer import Printer

from rlx_mlir.dialects.properties import PropertyKind
from rlx_mlir.dialects.rlx import RLX, RlxOpBase
from rlx_mlir.tools.cli import write_output

COMMAND = "python -m rlx_mlir.tools.gen_irdl -o dialects/rlx.irdl.mlir"

HEADER = f"""\
// The RLX dialect for upstream MLIR: mlir-opt --irdl-file=dialects/rlx.irdl.mlir
// GENERATED from rlx_mlir/dialects/; do not edit. Regenerate with:
//   {COMMAND}
// IRDL checks each op's operands, results and required attributes and their kinds
// (tensor, i64 dense array, integer, bool). Element types, array lengths and shapes
// are checked by the Python verifiers only.
"""

# MLIR's names for the builtin bases RLX uses (xDSL names them "tensor", "array", "integer").
MLIR_BASE_NAMES: dict[type[Attribute], str] = {
    TensorType: "!builtin.tensor",
    IndexType: "!builtin.index",
    DenseArrayBase: "#builtin.dense_array",
    IntegerAttr: "#builtin.integer",
    FloatAttr: "#builtin.float",
    StringAttr: "#builtin.string",
}

# The attribute base each property kind is stored as.
KIND_BASES: dict[str, type[Attribute]] = {
    "sizes": DenseArrayBase,
    "int": IntegerAttr,
    "bool": IntegerAttr,
    "float": FloatAttr,
    "string": StringAttr,
}


class IrdlGenerationError(Exception):
    """The Python definition of an op has something the generator cannot express."""


def _attr_constraint(constr: object) -> AttrConstraint:
    """The per-value constraint inside an operand/result definition's range constraint."""
    while not isinstance(constr, AttrConstraint):
        inner = getattr(constr, "constraint", None) or getattr(constr, "constr", None)
        if inner is None:
            raise IrdlGenerationError(f"cannot find the attribute constraint in {constr!r}")
        constr = inner
    return constr


def _base_class(op: type[IRDLOperation], what: str, constr: AttrConstraint) -> type[Attribute]:
    bases = constr.get_bases()
    if bases is None or len(bases) != 1:
        raise IrdlGenerationError(f"{op.name}: {what} must have exactly one base, got {bases}")
    (base,) = bases
    if base not in MLIR_BASE_NAMES:
        raise IrdlGenerationError(f"{op.name}: {what} has base {base.__name__}, which has no MLIR name here")
    return base


def _base(builder: Builder, base: type[Attribute], hint: str) -> SSAValue:
    value = builder.insert(BaseOp(MLIR_BASE_NAMES[base])).output
    value.name_hint = hint
    return value


def _property_constraint(builder: Builder, name: str, kind: PropertyKind) -> SSAValue:
    if kind.name == "bool":
        true = builder.insert(IsOp(BoolAttr.from_bool(True))).output
        false = builder.insert(IsOp(BoolAttr.from_bool(False))).output
        true.name_hint, false.name_hint = "true", "false"
        value = builder.insert(AnyOfOp([true, false])).output
        value.name_hint = name
        return value
    return _base(builder, KIND_BASES[kind.name], name)


def _variadicity(definition: object) -> VariadicityAttr:
    if isinstance(definition, OptionalDef):
        return VariadicityAttr.OPTIONAL
    if isinstance(definition, VariadicDef):
        return VariadicityAttr.VARIADIC
    return VariadicityAttr.SINGLE


def operation_to_irdl(op: type[RlxOpBase]) -> OperationOp:
    """One `irdl.operation`: named operands and results, then every property as an attribute."""
    op_def = op.get_irdl_definition()
    try:
        kinds = op.property_kinds()
    except KeyError:
        raise IrdlGenerationError(f"{op.name}: a property has a constraint that is no RLX property kind") from None
    if op_def.attributes or op_def.regions or op_def.successors:
        raise IrdlGenerationError(f"{op.name}: only operands, results and properties are supported")

    block = Block()
    builder = Builder(InsertPoint.at_end(block))
    for group, definitions in ((OperandsOp, op_def.operands), (ResultsOp, op_def.results)):
        if not definitions:
            continue
        values = [
            _base(builder, _base_class(op, name, _attr_constraint(d.constr)), name) for name, d in definitions
        ]
        builder.insert(
            group(
                values,
                VariadicityArrayAttr(ArrayAttr(_variadicity(d) for _, d in definitions)),
                ArrayAttr(StringAttr(name) for name, _ in definitions),
            )
        )
    attributes: dict[str, SSAValue] = {}
    for name, kind in kinds.items():  # the op's declaration order, that of the custom form
        attributes[name] = _property_constraint(builder, name, kind)
    if attributes:
        builder.insert(AttributesOp.get(attributes))
    return OperationOp(Dialect.split_name(op.name)[1], Region([block]))


def dialect_to_irdl(dialect: Dialect = RLX) -> DialectOp:
    block = Block()
    for op in dialect.operations:
        if not issubclass(op, RlxOpBase):
            raise IrdlGenerationError(f"{op.name} is not an RLX op")
        block.add_op(operation_to_irdl(op))
    return DialectOp(dialect.name, Region([block]))


def generate(dialect: Dialect = RLX) -> str:
    """The text of `dialects/rlx.irdl.mlir`."""
    dialect_op = dialect_to_irdl(dialect)
    dialect_op.verify()
    lines = [HEADER, f"irdl.dialect @{dialect_op.sym_name.data} {{\n"]
    for operation in dialect_op.body.block.ops:
        # One printer per op, so constraint names restart (%input, not %input_3) in each.
        stream = io.StringIO()
        Printer(stream=stream).print_op(operation)
        lines += [f"  {line}\n" if line else "\n" for line in stream.getvalue().splitlines()]
    lines.append("}\n")
    return "".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlx_mlir.tools.gen_irdl", description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    args = parser.parse_args(argv)
    try:
        text = generate()
    except IrdlGenerationError as error:
        print(f"gen_irdl: error: {error}", file=sys.stderr)
        return 1
    if args.output == "-":
        sys.stdout.write(text)
    else:
        write_output(args.output, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
