"""Reading an ``%%agent`` cell: its option line and its prompt.

Everything here is pure: it takes strings and a namespace and returns a
:class:`CellOptions` or raises :class:`~IPython.core.error.UsageError` with a message a
notebook user can act on. Nothing runs a model.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from IPython.core.error import UsageError

from ..core._doc_links import link_page_mentions
from ..core.errors import SetupError
from ..engine.settings import Flag as SettingFlag
from ..engine.settings import Setting

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

__all__ = ["FLAGS", "USAGE", "CellOptions", "Flag", "HelpRequested", "expand_variables", "fill_prompt", "parse_options"]


def _names(value: str) -> list[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected one or more names separated by commas")
    return names


def _url(value: str) -> str:
    """``value`` if it is an ``http://`` or ``https://`` address with a host, else an error
    naming it (a URL without its scheme reached the provider as a request that cannot be made)."""
    parts = urllib.parse.urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an http:// or https:// address (e.g. http://127.0.0.1:11434/v1)"
        )
    return value


@dataclass(frozen=True)
class Flag:
    """One ``%%agent`` option: how it is written, what it means, and where its value goes.

    ``metavar`` is the value's name in the usage (``None``: a switch, which stores
    ``switch_value`` when given). ``parse`` turns the text into the value (by default the
    value is the text). A flag with a ``run_option`` sets that keyword of
    ``Runtime.prepare`` directly; the others are read by the cell itself (``field`` names
    the :class:`CellOptions` attribute).
    """

    names: tuple[str, ...]
    help: str
    metavar: str | None = None
    parse: Callable[[str], Any] = str
    run_option: str | None = None
    switch_value: object = True

    @property
    def field(self) -> str:
        return self.names[-1].lstrip("-").replace("-", "_")

    @property
    def usage(self) -> str:
        return f"[{self.names[0]}{' ' + self.metavar if self.metavar else ''}]"


def _setting_flags() -> tuple[Flag, ...]:
    """A flag for every run setting declared with one (:mod:`openprogram_jupyter.engine.settings`):
    its value goes to the run option of the same name, where the keyword's check applies."""
    from ..engine.settings import SETTINGS

    return tuple(
        Flag(
            (flag.name,),
            _help(name, setting, flag),
            flag.metavar,
            _argument(name, setting),
            run_option=name,
            switch_value=flag.switch_value,
        )
        for name, setting in SETTINGS.items()
        if (flag := setting.flag) is not None
    )


def _help(name: str, setting: Setting, flag: SettingFlag) -> str:
    """A setting's doc as its flag's help; a switch says what it sets (``--no-parallel``)."""
    if flag.metavar is not None:
        return setting.doc
    return f"sets {name}={flag.switch_value!r} (default {setting.default!r}: {setting.doc})"


def _argument(name: str, setting: Setting) -> Callable[[str], Any]:
    """The flag's text parsed, then checked as the keyword ``name`` is; either's complaint
    becomes the usage error."""
    assert setting.flag is not None

    def convert(text: str) -> Any:
        try:
            return setting.check(name, setting.flag.parse(text))  # type: ignore[union-attr]
        except (ValueError, SetupError) as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


# The cell's own flags (what runs where, and how it is kept), then one per run setting.
FLAGS: tuple[Flag, ...] = (
    Flag(
        ("-m", "--model"),
        "model string or the name of a notebook variable holding a model; A,B runs the cell on each model side by side",
        "MODEL[,MODEL]",
    ),
    Flag(("-o", "--output"), "store the Run (or, with --background, the handle) in VAR", "VAR"),
    Flag(("-s", "--session"), "continue the named conversation", "SESSION"),
    Flag(("--new",), "start the session (or this cell) afresh"),
    Flag(("--tools",), "only these tools (names, comma-separated)", "a,b", _names),
    Flag(("--mcp",), "the tools of these MCP servers (op.mcp names or variables), with --tools' ones", "a,b", _names),
    Flag(("--toolset",), "a named toolset, or 'none' for no tools", "NAME|none", run_option="toolset"),
    Flag(("--allow",), "keep only these tools of the menu", "a,b", _names, run_option="tools_allow"),
    Flag(("--deny",), "remove these tools from the menu", "a,b", _names, run_option="tools_deny"),
    Flag(("--background",), "return a handle at once; the run goes on"),
    Flag(("--keep-going",), "a run that ends in an error does not fail the cell (Run All carries on)"),
    Flag(("--choices",), "end with a pick among the options in notebook variable VAR; -o stores the result", "VAR"),
    Flag(("--record",), "save each model reply to a JSON cassette (replay:FILE)", "FILE"),
    Flag(
        ("--base-url",),
        "the endpoint of the -m model string, e.g. a local server's http://127.0.0.1:11434/v1",
        "URL",
        _url,
    ),
    *_setting_flags(),
)


def _usage(flags: tuple[Flag, ...], width: int = 88) -> str:
    lines, line = [], "%%agent"
    for flag in flags:
        if len(line) + 1 + len(flag.usage) > width:
            lines.append(line)
            line = " " * len("%%agent")
        line += " " + flag.usage
    lines.append(line)
    return "\n".join(
        [*lines, "The prompt. {name} and {obj.attr} are filled in from the notebook; {{ and }} are literal braces."]
    )


USAGE = _usage(FLAGS)


def flags_markdown_table() -> str:
    """Every ``%%agent`` flag as the Markdown table of docs/reference/agent-flags.md (a
    test checks they agree): the flag as written with its value's name, and its help.
    A flag that sets a run setting links to docs/settings.md, and a page its help names is
    a link."""
    rows = ["| flag | what it does |", "|---|---|"]
    for flag in FLAGS:
        written = ", ".join(f"`{name}{' ' + flag.metavar if flag.metavar else ''}`" for name in flag.names)
        meaning = flag.help
        if flag.run_option is not None and flag.run_option in _setting_names():
            meaning += f" ([`{flag.run_option}`](../settings.md))"
        cells = (written, link_page_mentions(meaning, prefix="../"))
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


def _setting_names() -> frozenset[str]:
    from ..engine.settings import SETTINGS

    return frozenset(SETTINGS)


@dataclass
class CellOptions:
    """The parsed option line. ``None`` means "not given" (the configured default applies).

    ``run_options`` holds the values of the flags that set a ``Runtime.prepare`` keyword
    directly; the other fields are read by the cell itself.
    """

    model: str | None = None
    output: str | None = None
    session: str | None = None
    new: bool = False
    tools: list[str] | None = None
    mcp: list[str] | None = None
    background: bool = False
    keep_going: bool = False
    choices: str | None = None
    record: str | None = None
    base_url: str | None = None
    run_options: dict[str, Any] = field(default_factory=dict)


class HelpRequested(Exception):
    """``-h`` / ``--help`` was given: the cell prints ``text`` (every flag and its help) as
    its output and runs nothing."""

    def __init__(self, text: str) -> None:
        super().__init__("%%agent -h")
        self.text = text


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"%%agent: {message} (%%agent -h lists every option)")

    def print_help(self, file: Any = None) -> NoReturn:
        raise HelpRequested(self.format_help())


def _build_parser() -> _Parser:
    parser = _Parser(prog="%%agent", add_help=True, allow_abbrev=False)
    for flag in FLAGS:
        help = flag.help.replace("%", "%%")  # argparse formats help with %: "%agent" must stay text
        if flag.metavar is None:
            parser.add_argument(
                *flag.names,
                dest=flag.field,
                action="store_const",
                const=flag.switch_value,
                default=argparse.SUPPRESS,
                help=help,
            )
        else:
            parser.add_argument(
                *flag.names,
                dest=flag.field,
                metavar=flag.metavar,
                type=flag.parse,
                default=argparse.SUPPRESS,
                help=help,
            )
    return parser


_PARSER = _build_parser()


def expand_variables(shell: InteractiveShell, line: str) -> str:
    """``line`` expanded as IPython expands a magic's line before the magic sees it
    (``InteractiveShell.var_expand``): ``$name`` and ``{expression}`` from the notebook's
    namespace, ``$$`` a literal ``$``; a line it cannot expand is kept as written. The
    awaited form of a cell (:mod:`._transformer`) is a call IPython does not expand, so it
    calls this; the blocking form is expanded by IPython itself."""
    # A depth past the stack makes var_expand use the notebook's namespace alone, not this
    # function's locals (which would turn $line into the line itself).
    return shell.var_expand(line, depth=sys.getrecursionlimit())


def parse_options(line: str) -> CellOptions:
    """Parse the text after ``%%agent``.

    Unknown options, a missing value, a ``--base-url`` that is not an http(s) address,
    ``--tools`` together with ``--toolset``, ``-o`` with a name that is not an identifier,
    or ``--choices`` with ``--background`` raise ``UsageError`` naming the problem and
    showing the usage; ``-h`` / ``--help`` raises :class:`HelpRequested`.
    """
    try:
        argv = shlex.split(line)
    except ValueError as error:
        raise UsageError(f"%%agent: cannot read the option line ({error}); check its quotes") from None
    given = vars(_PARSER.parse_args(argv))
    if "tools" in given and "toolset" in given:
        raise UsageError("%%agent: give --tools or --toolset, not both")
    if "mcp" in given and "toolset" in given:
        raise UsageError(
            "%%agent: give --mcp or --toolset, not both (an MCP server's tools are also the toolset named after it)"
        )
    if given.get("output") is not None and not given["output"].isidentifier():
        raise UsageError(f"%%agent: -o needs a variable name, got {given['output']!r}")
    if "choices" in given and given.get("background"):
        raise UsageError("%%agent: --choices waits for the decision; it cannot run in the --background")
    run_options = {
        flag.run_option: given.pop(flag.field) for flag in FLAGS if flag.run_option is not None and flag.field in given
    }
    return CellOptions(run_options=run_options, **given)


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
