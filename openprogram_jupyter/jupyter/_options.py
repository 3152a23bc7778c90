"""Reading an ``%%agent`` cell: its option line and its prompt.

Everything here is pure: it takes strings and a namespace and returns a
:class:`CellOptions` or raises :class:`~IPython.core.error.UsageError` with a message a
notebook user can act on. Nothing runs a model.
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from IPython.core.error import UsageError

__all__ = ["USAGE", "CellOptions", "fill_prompt", "parse_options"]

USAGE = """\
%%agent [-m MODEL] [-o VAR] [-s SESSION | --new] [--tools a,b] [--toolset NAME|none]
        [--allow a,b] [--deny a,b] [--tool-choice auto|required|none|NAME]
        [--no-parallel] [--max-iterations N|none] [--system TEXT] [--background]
        [--choices VAR] [--record FILE]
The prompt. {name} and {obj.attr} are filled in from the notebook; {{ and }} are literal braces."""


@dataclass
class CellOptions:
    """The parsed option line. ``None`` means "not given" (the configured default applies)."""

    model: str | None = None
    output: str | None = None
    session: str | None = None
    new: bool = False
    tools: list[str] | None = None
    toolset: str | None = None
    allow: list[str] | None = None
    deny: list[str] | None = None
    tool_choice: str | None = None
    parallel: bool | None = None
    max_iterations: int | None = None
    no_cap: bool = False
    system: str | None = None
    background: bool = False
    choices: str | None = None
    record: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"%%agent: {message}\n\n{USAGE}")

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        # Only -h/--help exits; show the usage as an error-free message.
        raise UsageError(USAGE)


def _names(value: str) -> list[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected one or more names separated by commas")
    return names


def _iterations(value: str) -> int | None:
    if value.lower() in ("none", "0", "inf", "unlimited"):
        return None
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number or 'none', got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected a positive number or 'none', got {value!r}")
    return number


def _build_parser() -> _Parser:
    parser = _Parser(prog="%%agent", add_help=True, allow_abbrev=False)
    parser.add_argument("-m", "--model", help="model string or the name of a notebook variable holding a model")
    parser.add_argument("-o", "--output", metavar="VAR", help="store the Run (or, with --background, the handle) in VAR")
    parser.add_argument("-s", "--session", metavar="NAME", help="continue the named conversation")
    parser.add_argument("--new", action="store_true", help="start the session (or this cell) afresh")
    parser.add_argument("--tools", type=_names, help="only these tools (names, comma-separated)")
    parser.add_argument("--toolset", help="a named toolset, or 'none' for no tools")
    parser.add_argument("--allow", type=_names, help="keep only these tools of the menu")
    parser.add_argument("--deny", type=_names, help="remove these tools from the menu")
    parser.add_argument("--tool-choice", dest="tool_choice", help="auto, required, none, or a tool name")
    parser.add_argument("--no-parallel", dest="no_parallel", action="store_true", help="at most one pick per round")
    parser.add_argument("--max-iterations", dest="max_iterations", type=_iterations, default=argparse.SUPPRESS,
                        help="cap on rounds (a number, or 'none')")
    parser.add_argument("--system", help="system prompt for this run")
    parser.add_argument("--background", action="store_true", help="return a handle at once; the run goes on")
    parser.add_argument("--choices", metavar="VAR",
                        help="end with a pick among the options in notebook variable VAR; -o stores the result")
    parser.add_argument("--record", metavar="FILE", help="save each model reply to a JSON cassette (replay:FILE)")
    return parser


_PARSER = _build_parser()


def parse_options(line: str) -> CellOptions:
    """Parse the text after ``%%agent``.

    Unknown options, a missing value, ``--tools`` together with ``--toolset``, or
    ``--session`` with a name that is not an identifier raise ``UsageError`` naming the
    problem and showing the usage.
    """
    try:
        argv = shlex.split(line)
    except ValueError as error:
        raise UsageError(f"%%agent: cannot read the option line ({error}); check its quotes\n\n{USAGE}") from None
    namespace = _PARSER.parse_args(argv)
    if namespace.tools is not None and namespace.toolset is not None:
        raise UsageError("%%agent: give --tools or --toolset, not both")
    if namespace.output is not None and not namespace.output.isidentifier():
        raise UsageError(f"%%agent: -o needs a variable name, got {namespace.output!r}")
    if namespace.choices is not None and namespace.background:
        raise UsageError("%%agent: --choices waits for the decision; it cannot run in the --background")
    given_cap = "max_iterations" in vars(namespace)
    return CellOptions(
        model=namespace.model,
        output=namespace.output,
        session=namespace.session,
        new=namespace.new,
        tools=namespace.tools,
        toolset=namespace.toolset,
        allow=namespace.allow,
        deny=namespace.deny,
        tool_choice=namespace.tool_choice,
        parallel=False if namespace.no_parallel else None,
        max_iterations=namespace.max_iterations if given_cap else None,
        no_cap=given_cap and namespace.max_iterations is None,
        system=namespace.system,
        background=namespace.background,
        choices=namespace.choices,
        record=namespace.record,
    )


# -- the prompt template -----------------------------------------------------------------

# A placeholder starts with a letter or underscore right after "{"; anything else after a
# brace ({"a": 1}, { x }, {0}) is ordinary text, so JSON in a prompt needs no escaping.
_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][^{}\n]*)\}")
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def fill_prompt(template: str, namespace: Mapping[str, Any]) -> str:
    """Replace ``{name}`` and ``{obj.attr}`` with ``str()`` of their values.

    Only names and attribute chains are looked up — never evaluated as code. ``{{`` and
    ``}}`` are literal braces. A ``{`` that is not followed by a letter or ``_`` is left
    alone (JSON examples stay as written). A placeholder that is not a plain dotted name
    (``{x[0]}``, ``{f()}``), names nothing in the namespace, reaches a missing attribute or
    a private one (``_x``) raises ``UsageError`` naming it.
    """

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        expression = match.group(1)
        if not _DOTTED.fullmatch(expression):
            raise UsageError(
                f"%%agent: {{{expression}}} in the prompt is not a name or attribute; only "
                "{name} and {obj.attr} are filled in (nothing is evaluated). "
                "Write {{ and }} for literal braces."
            )
        head, *attributes = expression.split(".")
        if head not in namespace:
            raise UsageError(
                f"%%agent: the prompt uses {{{expression}}} but no variable {head!r} is defined "
                "in the notebook (write {{ and }} for literal braces)"
            )
        value = namespace[head]
        path = head
        for attribute in attributes:
            if attribute.startswith("_"):
                raise UsageError(f"%%agent: {{{expression}}}: private attribute {attribute!r} is not filled in")
            try:
                value = getattr(value, attribute)
            except AttributeError:
                raise UsageError(
                    f"%%agent: the prompt uses {{{expression}}} but {path} "
                    f"({type(value).__name__}) has no attribute {attribute!r}"
                ) from None
            path += f".{attribute}"
        return str(value)

    return _TOKEN.sub(replace, template)
