"""Boolean tensors stored as bytes: `tensor<...xi1>` becomes `tensor<...xi8>` before mlir-opt.

MLIR 22's memref-to-LLVM lowering asserts (`getWidth() >= 8` in its store lowering) on
every `memref.store` of an i1, so a function that keeps any boolean tensor in memory (a
comparison's result, an attention mask, `where`'s condition) crashes every native
pipeline. IREE does the same as here, for the same reason (its type propagation stores
i1 as i8): each boolean tensor is stored one byte per element, 0 or 1, and every scalar
that enters or leaves such a tensor is converted at that point:

- a `linalg` body reads a stored byte as `trunci` to i1, and stores an i1 as `extui`;
- `tensor.extract` of a byte is truncated, `tensor.insert` / `tensor.from_elements` /
  `linalg.fill` / a `tensor.pad` value of an i1 is extended;
- a dense i1 constant becomes the same 0/1 bytes;
- ops that only move elements (slices, reshapes, `scf.for` iter_args, calls, returns,
  transposes, broadcasts) just change their types.

The function boundary changes too: a boolean argument or result is an i8 buffer, marked
`rlx_mlir.boolean` so that the runtime passes and returns NumPy `bool` arrays (whose bytes
are the same 0/1). Only the native backend applies this; `--convert-rlx-to-linalg` keeps
i1, which mlir-opt and IREE take as it is.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, tensor
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    TensorType,
    UnitAttr,
    i1,
    i8,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

BOOLEAN_ATTR = "rlx_mlir.boolean"
"""Argument / result attribute: this i8 buffer holds a boolean tensor (0 or 1 per byte)."""


def is_boolean_tensor(type_: Attribute) -> bool:
    return isinstance(type_, TensorType) and type_.element_type == i1


def as_bytes(type_: Attribute) -> Attribute:
    """`tensor<...xi1>` as `tensor<...xi8>`; any other type unchanged."""
    if is_boolean_tensor(type_):
        return TensorType(i8, type_.get_shape(), type_.encoding)
    return type_


def has_boolean_tensors(module: Operation) -> bool:
    return any(is_boolean_tensor(v.type) for op in module.walk() for v in (*op.results, *_block_args(op)))


def store_booleans_as_bytes(module: ModuleOp) -> None:
    """Rewrite `module` in place (module docstring)."""
    for op in list(module.walk()):
        _retype(op)


def _block_args(op: Operation):
    for region in op.regions:
        for block in region.blocks:
            yield from block.args


def _retype(op: Operation) -> None:
    """Change `op`'s boolean tensor results and region arguments to bytes, with the
    scalar conversions its kind needs. `module.walk()` visits an op before its regions and
    producers before users, so operands and enclosing block arguments are bytes already."""
    if isinstance(op, func.FuncOp):
        _retype_function(op)
        return
    if isinstance(op, arith.ConstantOp) and is_boolean_tensor(op.result.type):
        _retype_constant(op)
        return
    if isinstance(op, tensor.ExtractOp) and _holds_bytes(op.tensor) and op.result.type == i1:
        _narrow_uses(Rewriter.replace_value_with_new_type(op.result, i8), InsertPoint.after(op))
        return
    if isinstance(op, linalg.FillOp) and _holds_bytes(op.outputs[0]):
        _retype_fill(op)
    elif isinstance(op, _STRUCTURED) and op.regions and op.regions[0].blocks:
        _retype_body(op)
    elif isinstance(op, tensor.InsertOp) and _holds_bytes(op.dest):
        _extend_operand(op, 0)
    elif isinstance(op, tensor.FromElementsOp) and is_boolean_tensor(op.result.type):
        for index in range(len(op.operands)):
            _extend_operand(op, index)
    elif isinstance(op, tensor.PadOp) and is_boolean_tensor(op.result.type):
        _extend_operand(op.regions[0].block.last_op, 0)
    for result in list(op.results):
        if is_boolean_tensor(result.type):
            Rewriter.replace_value_with_new_type(result, as_bytes(result.type))
    for block_arg in list(_block_args(op)):
        if is_boolean_tensor(block_arg.type):
            Rewriter.replace_value_with_new_type(block_arg, as_bytes(block_arg.type))


_STRUCTURED = tuple(
    cls for cls in vars(linalg).values()
    if isinstance(cls, type) and issubclass(cls, Operation) and cls.__name__.endswith("Op")
    and cls not in (linalg.YieldOp, linalg.IndexOp)
)
"""The linalg ops whose body reads and writes elements of their operands."""


def _holds_bytes(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and value.type.element_type == i8


def _retype_function(op: func.FuncOp) -> None:
    inputs, outputs = op.function_type.inputs.data, op.function_type.outputs.data
    if not any(map(is_boolean_tensor, (*inputs, *outputs))):
        return
    op.arg_attrs = _marked(op.arg_attrs, inputs)
    op.res_attrs = _marked(op.res_attrs, outputs)
    if op.body.blocks:
        for arg in list(op.body.block.args):
            if is_boolean_tensor(arg.type):
                Rewriter.replace_value_with_new_type(arg, as_bytes(arg.type))
    op.function_type = FunctionType.from_lists([as_bytes(t) for t in inputs], [as_bytes(t) for t in outputs])


def _marked(attrs: ArrayAttr | None, types) -> ArrayAttr:
    dicts = [dict(d.data) for d in attrs.data] if attrs is not None else [{} for _ in types]
    for entry, type_ in zip(dicts, types):
        if is_boolean_tensor(type_):
            entry[BOOLEAN_ATTR] = UnitAttr()
    return ArrayAttr([DictionaryAttr(d) for d in dicts])


def _retype_constant(op: arith.ConstantOp) -> None:
    value = op.value
    assert isinstance(value, DenseIntOrFPElementsAttr)
    bytes_type = as_bytes(op.result.type)
    values = [int(bool(v)) for v in value.get_values()]
    replacement = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(bytes_type, values), bytes_type)
    Rewriter.replace_op(op, replacement)


def _ins_outs(op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
    """A structured op on tensors: its last operands are its inits, one per result, and its
    body's arguments are its operands' elements in order (whatever each op calls them)."""
    operands, inits = list(op.operands), len(op.results)
    return operands[: len(operands) - inits], operands[len(operands) - inits:]


def _retype_body(op: Operation) -> None:
    """A structured op's body: each byte operand's block argument becomes an i8 read back
    by `trunci`; each i1 yielded into a byte output is stored by `extui`."""
    block: Block = op.regions[0].block
    ins, outs = _ins_outs(op)
    for operand, arg in zip([*ins, *outs], list(block.args)):
        if arg.type == i1 and _holds_bytes(operand):
            _narrow_uses(Rewriter.replace_value_with_new_type(arg, i8), InsertPoint.at_start(block))
    terminator = block.last_op
    for index, output in enumerate(outs):
        if _holds_bytes(output):
            _extend_operand(terminator, index)


def _retype_fill(op: linalg.FillOp) -> None:
    """`linalg.fill` of an i1 into bytes fills with the extended byte (a signed cast in
    its body would store true as 0xFF, which is not a NumPy bool)."""
    _extend_operand(op, 0)
    for arg in list(op.regions[0].block.args):
        if arg.type == i1:
            Rewriter.replace_value_with_new_type(arg, i8)


def _narrow_uses(wide: SSAValue, at: InsertPoint) -> None:
    """Every use of `wide` (an i8 that was an i1) reads `trunci` of it, inserted `at`."""
    uses = list(wide.uses)
    if not uses:
        return
    narrow = arith.TruncIOp(wide, i1)
    Rewriter.insert_op(narrow, at)
    for use in uses:
        use.operation.operands[use.index] = narrow.result


def _extend_operand(op: Operation, index: int) -> None:
    value = op.operands[index]
    if value.type != i1:
        return
    wide = arith.ExtUIOp(value, i8)
    Rewriter.insert_op(wide, InsertPoint.before(op))
    op.operands[index] = wide.result


