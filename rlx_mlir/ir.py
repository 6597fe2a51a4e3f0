"""Reading and checking IR the way mlir-opt does: every op knows where it came from.

xDSL's parser leaves ops without a location unless the text spells one out, and its
verifier reports an error by reprinting the whole module. Our users expect mlir-opt's
one-line diagnostics (`file:line:col: error: 'rlx.conv2d' op expected ...`), so the
parser here stamps each op with a `FileLineColLoc`, and verification walks the ops one by
one so that an error names the op that failed and its source position.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import AnyFloat, FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Input, Span

from rlx_mlir.compat import MATH, LinearTimeLexer
from rlx_mlir.dialects.rlx import RLX
from rlx_mlir.errors import InternalError


@dataclass
class DiagnosticError(Exception):
    """An error with the source position it is about, printed like mlir-opt prints one."""

    message: str
    location: str | None = None
    context: str = ""

    def __str__(self) -> str:
        head = f"{self.location}: error: {self.message}" if self.location else f"error: {self.message}"
        return head + (f"\n{self.context}" if self.context else "")


def make_context(allow_unregistered: bool = False) -> Context:
    """All of xDSL's dialects plus RLX: what `rlx-opt` and `rlx_mlir.compile` parse with."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, (lambda: MATH) if name == MATH.name else factory)
    if RLX.name not in ctx.registered_dialect_names:
        ctx.register_dialect(RLX.name, lambda: RLX)
    return ctx


def format_location(op: Operation) -> str | None:
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return None


class HexFloatParser(Parser):
    """A Parser that reads a float tensor's hexadecimal elements as MLIR does: as the bits.

    MLIR writes a float that has no decimal form (an infinity, a NaN) as its bit pattern,
    `dense<0xFF800000> : tensor<f32>` for -inf, and so does xDSL's printer. xDSL 0.75's
    parser reads such an element of a dense literal as the integer 0xFF800000 converted to
    a float (4.29e9), so an attention mask's -inf came back from a cached compile's record
    as 1.8e19 and the step's result was wrong. Scalar float attributes are read right.
    """

    def _parse_tensor_literal_element(self):
        element = super()._parse_tensor_literal_element()
        if isinstance(element.value, int) and element.span.text.lower().startswith("0x"):
            return _HexElement(element.is_negative, element.value, element.span)
        return element


@dataclass
class _HexElement(Parser._TensorLiteralElement):
    """A hexadecimal element of a tensor literal: an integer, or a float's bit pattern."""

    def to_type(self, parser, type):
        if not isinstance(type, AnyFloat):
            return super().to_type(parser, type)
        assert isinstance(self.value, int)
        if self.value.bit_length() > type.bitwidth:
            parser.raise_error("hexadecimal float constant out of range for type", at_position=self.span)  # mlir-opt's words
        return next(type.iter_unpack(self.value.to_bytes(type.compile_time_size, "little")))


class LocatingParser(HexFloatParser):
    """A Parser that gives each op it reads the file:line:col of its name, as mlir-opt does.

    The op name comes after the result list (`%y = rlx.conv2d ...`), so the position is
    taken when the result list has been read. Ops nest (regions), hence a stack.
    """

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, "", name)
        self._parser_state = ParserState(LinearTimeLexer(Input(text, name)))
        self._name = name
        self._line_offset = line_offset
        self._op_name_spans: list[Span] = []

    def _parse_op_result_list(self):
        results = super()._parse_op_result_list()
        self._op_name_spans.append(self._current_token.span)
        return results

    def parse_operation(self) -> Operation:
        depth = len(self._op_name_spans)
        try:
            op = super().parse_operation()
        except ParseError as error:
            # xDSL points an unknown op at the token after its name; mlir-opt at the name.
            spans = self._op_name_spans[depth:]
            unknown = re.fullmatch(r"Operation (\S+) is not registered", error.msg)
            if not (spans and unknown and spans[0].text.strip('"') == unknown.group(1)):
                raise
            del self._op_name_spans[depth:]
            self.raise_error(f"custom op '{unknown.group(1)}' is unknown", spans[0])
        except (ValueError, VerifyException, DiagnosticException, struct.error, NotImplementedError) as error:
            # Raised while building an attribute or the op (an integer out of range for its
            # type, say): not a ParseError, so it would carry no position. Give it the op's.
            # xDSL's declarative format packs an `[a, b]` dense array with `struct`, whose
            # error says only "argument out of range"; it cannot pack elements wider than 64
            # bits at all (`array<i632: 1>`, valid MLIR), and says "Format not implemented".
            if isinstance(error, NotImplementedError):
                wide = re.fullmatch(r"Format not implemented for (\S+)", str(error))
                if wide is None:
                    raise
                error = ValueError(f"expected array elements of at most 64 bits, got an array<{wide.group(1)}: ...>")
            if isinstance(error, struct.error):
                error = ValueError(f"an array element is out of range for its element type ({error})")
            spans, self._op_name_spans[depth:] = self._op_name_spans[depth:], []
            if not spans:
                self.raise_error(str(error))
            name = spans[0].text.strip('"')
            self.raise_error(f"'{name}' op {str(error).splitlines()[0]}", spans[0])
        name_span = self._op_name_spans.pop()
        if not isinstance(op.location, FileLineColLoc):
            where = name_span.get_location()
            op.location = FileLineColLoc(
                StringAttr(self._name), IntAttr(where.line + self._line_offset), IntAttr(where.col)
            )
        return op


def parse_error_diagnostic(error: ParseError, line_offset: int = 0) -> DiagnosticError:
    """Turn xDSL's ParseError into a located diagnostic that keeps the caret context."""
    span = replace(error.span, line_offset=line_offset)
    where = span.get_location()
    context_lines = span.print_with_context().splitlines()[1:]  # drop xDSL's location line
    message = error.msg.rstrip()
    if not message or message[0].isspace():  # a fragment such as " in block definition"
        token = error.span.text.strip()
        message = (f"unexpected '{token}'" if token else "unexpected end of input") + message
    return DiagnosticError(message, str(where), "\n".join(context_lines))


def parse_module(
    ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0
) -> ModuleOp:
    """Parse and verify `text`; raise DiagnosticError naming the first problem."""
    try:
        module = LocatingParser(ctx, text, name, line_offset).parse_module()
    except ParseError as error:
        raise parse_error_diagnostic(error, line_offset) from None
    verify_module(module)
    return module


def verify_module(module: Operation) -> None:
    """Verify op by op, parents first, so that a failure names the op and where it is."""
    for op in module.walk():
        verify_op(op)


def verify_pass_output(module: Operation, pass_name: str) -> None:
    """Verify what a pass made of verified input: IR that does not verify is the pass's bug."""
    try:
        verify_module(module)
    except DiagnosticError as error:
        raise InternalError(f"pass '{pass_name}' produced IR that does not verify: {error}") from error


def verify_op(op: Operation) -> None:
    """Verify `op` alone (not its regions); raise DiagnosticError `'name' op message` at its location."""
    try:
        op.verify(verify_nested_ops=False)
    except (VerifyException, DiagnosticException) as error:
        message = str(error).split("\n\n")[0].strip()
        if not message.startswith(f"'{op.name}'"):
            message = f"'{op.name}' op {message}"
        raise DiagnosticError(message, format_location(op)) from None
