"""The top-level function headers of mlir-opt's generic output: read, and edited in place.

:func:`read_functions` parses, with xDSL's parser, only the properties and attributes of
the top-level ``func.func`` ops of a module printed by ``mlir-opt --mlir-print-op-generic
--mlir-print-local-scope``. Regions, other ops' properties and attributes, and locations are
skipped as balanced tokens, never interpreted: what xDSL 0.75 cannot read there (hex floats
in dense constants, dialects it does not know, location forms) cannot mislead or stop it.

An edit replaces a span of that text. Only header entries are re-printed (by xDSL), so the
bodies reach the next tool byte for byte as mlir-opt printed them.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, StringAttr
from xdsl.dialects.func import Func
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

# (start, end, replacement) over the text the headers were read from.
Edit = tuple[int, int, str]


@dataclass
class FunctionHeader:
    """A top-level func.func: its parsed header and where each part of it is in the text."""

    properties: dict[str, Attribute]
    # The text span of each ``name = value`` property entry.
    property_spans: dict[str, tuple[int, int]]
    attributes: dict[str, Attribute] = field(default_factory=dict)
    # Just after the ``{`` of the attribute dictionary, or after the region list if none.
    attributes_at: int = 0
    has_attributes: bool = False

    @property
    def name(self) -> str:
        name = self.properties["sym_name"]
        assert isinstance(name, StringAttr)
        return name.data

    def set_property(self, name: str, value: Attribute) -> Edit:
        """Replace (or add) the property ``name``."""
        entry = f"{name} = {print_attribute(value)}"
        if name in self.property_spans:
            return (*self.property_spans[name], entry)
        # sym_name and function_type are always there: insert before the first entry.
        start = min(start for start, _ in self.property_spans.values())
        return (start, start, entry + ", ")

    def add_attribute(self, name: str) -> Edit | None:
        """Add the unit attribute ``name`` unless it is there; None if it is."""
        if name in self.attributes:
            return None
        at = self.attributes_at
        return (at, at, f"{name}, " if self.has_attributes else f" {{{name}}}")


def apply(text: str, edits: list[Edit]) -> str:
    """``text`` with non-overlapping ``edits`` made."""
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def print_attribute(attr: Attribute) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_attribute(attr)
    return stream.getvalue()


def read_functions(text: str) -> list[FunctionHeader]:
    """The headers of the top-level functions of the ``builtin.module`` in ``text``."""
    return _HeaderReader(text).functions()


@functools.cache
def _header_context() -> Context:
    """Only builtin and func are needed to read function headers."""
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    return ctx


class _HeaderReader(Parser):
    """A parser that walks the top level of a generic module (see the module docstring)."""

    def __init__(self, text: str) -> None:
        super().__init__(_header_context(), text)
        self.end = 0  # end offset of the last consumed token

    def _consume_token(self, expected_kind: MLIRTokenKind | None = None) -> MLIRToken:
        token = super()._consume_token(expected_kind)
        self.end = token.span.end
        return token

    def functions(self) -> list[FunctionHeader]:
        if self.parse_str_literal("module") != "builtin.module":
            self.raise_error("expected a builtin.module")
        self.parse_op_args_list()
        self._skip_properties()
        self.parse_punctuation("(")
        self.parse_punctuation("{")
        headers = []
        while self.parse_optional_punctuation("}") is None:
            header = self._top_level_op()
            if header is not None:
                headers.append(header)
        return headers

    def _top_level_op(self) -> FunctionHeader | None:
        """One generic op: ``"name"() <{...}> ({...}) {...} : () -> () loc(...)``."""
        name = self.parse_str_literal("operation name")
        self.parse_op_args_list()
        header = self._function_properties() if name == "func.func" else None
        if header is None:
            self._skip_properties()
        self._skip_balanced(MLIRTokenKind.L_PAREN, MLIRTokenKind.R_PAREN)
        if header is None:
            self._skip_balanced(MLIRTokenKind.L_BRACE, MLIRTokenKind.R_BRACE)
        else:
            header.attributes_at = self.end
            if self._current_token.kind == MLIRTokenKind.L_BRACE:
                header.attributes_at = self.pos + 1
                header.has_attributes = True
                header.attributes = self.parse_optional_attr_dict()
        self.parse_punctuation(":")
        self.parse_function_type()
        if self.parse_optional_characters("loc"):
            self._skip_balanced(MLIRTokenKind.L_PAREN, MLIRTokenKind.R_PAREN)
        return header

    def _function_properties(self) -> FunctionHeader:
        """``<{name = value, ...}>`` with the span of each entry."""
        self.parse_punctuation("<")
        self.parse_punctuation("{")
        properties: dict[str, Attribute] = {}
        spans: dict[str, tuple[int, int]] = {}
        while True:
            start = self.pos
            key, value = self._parse_attribute_entry()
            properties[key], spans[key] = value, (start, self.end)
            if self.parse_optional_punctuation(",") is None:
                break
        self.parse_punctuation("}")
        self.parse_punctuation(">")
        return FunctionHeader(properties, spans)

    def _skip_properties(self) -> None:
        if self.parse_optional_punctuation("<") is not None:
            self._skip_balanced(MLIRTokenKind.L_BRACE, MLIRTokenKind.R_BRACE)
            self.parse_punctuation(">")

    def _skip_balanced(self, opening: MLIRTokenKind, closing: MLIRTokenKind) -> None:
        """Skip the group the current token opens, if it is ``opening``, to its close.

        Only ``opening`` and ``closing`` are counted: each kind of bracket is balanced on
        its own in MLIR syntax, and a string is one token.
        """
        if self._current_token.kind != opening:
            return
        depth = 0
        while True:
            kind = self._consume_token().kind
            if kind == MLIRTokenKind.EOF:
                self.raise_error("unexpected end of input")
            depth += (kind == opening) - (kind == closing)
            if depth == 0:
                return
