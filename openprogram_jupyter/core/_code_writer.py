"""The one writer of generated Python source: every value from a run becomes a literal here.

``run.to_code()``, ``run.to_test()`` and anything later that writes Python from a run's
record go through a :class:`CodeWriter`. Everything a run recorded came from outside the
notebook's code — the model's text, picks and arguments, tool results and errors, a
cassette — and is untrusted; the writer is what keeps it data:

- **Values are masked, then written.** Every string inside a value (dict keys included)
  has each known secret and each key shape replaced by ``***``
  (:meth:`~._secrets.Secrets.mask`) *before* it becomes a literal; the literal is built
  as an :mod:`ast` node and rendered with :func:`ast.unparse`, so it evaluates to the
  masked value exactly, whatever characters it holds. Masking never touches rendered
  source, where a pattern could eat a quote or a backslash and end a literal early.
- **Non-finite floats** are written ``float("nan")``, ``float("inf")``, ``float("-inf")``
  (``repr`` would give the bare names ``nan`` and ``inf``).
- **Only plain data is written**: ``None``, bools, ints, floats, strings, bytes, and
  lists, tuples and dicts of them. Anything else raises :class:`UnwritableValue`.
- **Comments** hold masked text on one line: every character that is not printable (each
  line terminator Python or ``str.splitlines`` knows among them) is written as its escape.
- **Source copied as it is** (a tool's own code) only has known secret *values* masked,
  and must still parse afterwards.
"""

from __future__ import annotations

import ast
import keyword
import math
from collections.abc import Callable, Iterable
from typing import Any

from ._secrets import Secrets
from .errors import SetupError

__all__ = ["CodeWriter", "UnwritableValue"]


class UnwritableValue(SetupError):
    """A value that is not plain data (a date, a set, an object) cannot be a literal."""


class CodeWriter:
    """Writes literals, comments and copied source for one generated file, masking with
    the secrets known when it was made (``Secrets.now()`` by default).

    ``scrub`` replaces the masking of values and comments when a file must agree with
    another written from the same record (a test and its cassette mask alike); it takes a
    value and returns it masked, in new containers."""

    def __init__(self, secrets: Secrets | None = None, *, scrub: Callable[[object], Any] | None = None) -> None:
        self.secrets = secrets if secrets is not None else Secrets.now()
        self._scrub = scrub if scrub is not None else self.secrets.mask_data

    def masked(self, value: object) -> Any:
        """``value`` with every string in it masked (values and key shapes), in new containers."""
        return self._scrub(value)

    def literal(self, value: object) -> str:
        """Python source of a literal that evaluates to :meth:`masked` ``(value)``; raises
        :class:`UnwritableValue` for anything but plain data."""
        return ast.unparse(self.node(value))

    def node(self, value: object) -> ast.expr:
        """The :mod:`ast` expression of :meth:`literal`, to build larger statements from."""
        return _node(self.masked(value))

    def keywords(self, arguments: dict[str, Any]) -> str:
        """Call arguments for ``arguments``: ``a=1, b='x'`` when every name is a plain
        identifier, else ``**{...}``."""
        if all(is_plain_name(name) for name in arguments):
            return ", ".join(f"{name}={self.literal(value)}" for name, value in arguments.items())
        return f"**{self.literal(arguments)}"

    def comment(self, text: str, prefix: str = "# ") -> str:
        """``text`` masked, on one comment line (see the module doc)."""
        return prefix + one_line(str(self.masked(text)))

    def verbatim(self, source: str, *, what: str) -> str:
        """``source`` (Python written by the user) with known secret values masked, and
        nothing else changed; raises :class:`~.errors.SetupError` naming ``what`` if the
        masked source no longer parses."""
        masked = self.secrets.mask_values(source)
        try:
            ast.parse(masked)
        except SyntaxError:
            raise SetupError(
                f"the source of {what} holds a secret inside code that masking would break; "
                "move the secret to an environment variable"
            ) from None
        return masked


def one_line(text: str) -> str:
    """``text`` with each character that is not printable written as its escape (``\\n``,
    ``\\u2028``, ...), so it stays on one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def is_plain_name(name: str) -> bool:
    """Whether ``name`` can stand in source as a variable: an identifier, not a keyword."""
    return name.isidentifier() and not keyword.iskeyword(name)


def _node(value: object) -> ast.expr:
    if value is None or isinstance(value, bool):
        return ast.Constant(value)
    if isinstance(value, int):
        return ast.Constant(int.__index__(value))
    if isinstance(value, float):
        return _float(float.__float__(value))
    if isinstance(value, str):
        return ast.Constant(str.__str__(value))
    if isinstance(value, bytes):
        return ast.Constant(bytes(value))
    if isinstance(value, list):
        return ast.List(elts=_nodes(value), ctx=ast.Load())
    if isinstance(value, tuple):
        return ast.Tuple(elts=_nodes(value), ctx=ast.Load())
    if isinstance(value, dict):
        return ast.Dict(keys=list(_nodes(value)), values=_nodes(value.values()))
    raise UnwritableValue(
        f"a {type(value).__name__} is not plain data (None, bool, int, float, str, bytes, "
        "list, tuple, dict) and cannot be written as a literal"
    )


def _nodes(values: Iterable[object]) -> list[ast.expr]:
    return [_node(item) for item in values]


def _float(value: float) -> ast.expr:
    if math.isfinite(value):
        return ast.Constant(value)
    word = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return ast.Call(func=ast.Name("float", ast.Load()), args=[ast.Constant(word)], keywords=[])
