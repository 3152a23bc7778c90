"""``run.to_test(path)``: a run written as a pytest file and the cassette it replays.

The file plays the run's recorded replies back from ``<name>.cassette.json`` beside it
(``model="replay:…"``: no network, no key) while its tools run for real, and checks with
:func:`~openprogram_jupyter.check.check` what the run did: the same picks in the same order,
each running and returning (``called_in_order(..., ok=True)``), the same answer and the
same ending; a second test checks each call returns what it returned when recorded. After
a tool change that alters a call — its schema no longer takes the recorded arguments, it
fails, it returns something else — ``pytest`` fails saying which call.

The tools come from ``tools_from`` (``from mytools import find_city``) or, by default, are
written into the file from their source (:func:`inspect.getsource`, as the notebook
defined them), each after ``import`` lines for the modules and importable names its source
uses (``Literal``, ``date``, a pydantic model from a package): a tool whose source cannot be
found — an MCP tool, a lambda, a dict — raises :class:`SetupError` saying to name a module,
and so should a tool using a helper or a value the notebook itself defined (the file
would fail with a ``NameError`` naming it).

Everything written from the run — the prompt, arguments, results, the answer — is a
``repr`` literal or a comment with every non-printable character escaped
(:func:`~openprogram_jupyter._run_code._comment`), and known secrets are masked in the
file and the cassette alike.
"""

from __future__ import annotations

import ast
import inspect
import os
import sys
import textwrap
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._run_code import _comment, _is_plain_name
from ._secrets import mask
from .errors import SetupError
from .messages import AssistantMessage, UserMessage, dump_message
from .models.replay import save_cassette
from .settings import DEFAULTS

if TYPE_CHECKING:
    from .run import Run

__all__ = ["write_test"]

_LITERAL = (type(None), bool, int, float, str)
_RESULT_CHARS = 2000  # a longer result is checked by its call alone


def write_test(run: Run, path: str | os.PathLike[str], *, tools_from: str | None = None) -> Path:
    """Write the test for ``run`` to ``path`` (a ``.py`` file; its folder is made) and its
    cassette beside it; return the test's path. Raises :class:`SetupError` for a run with
    no prompt or no round, a ``path`` that is not ``.py`` or an unusable ``tools_from``."""
    path = Path(path)
    if path.suffix != ".py":
        raise SetupError(f"to_test: the test is a Python file; {str(path)!r} does not end in .py")
    if tools_from is not None and not all(_is_plain_name(part) for part in tools_from.split(".")):
        raise SetupError(f"to_test: tools_from names a module to import the tools from, got {tools_from!r}")
    prompt = next((m for m in run.messages if isinstance(m, UserMessage)), None)
    replies = [m for m in run.messages if isinstance(m, AssistantMessage)]
    if prompt is None or not replies:
        raise SetupError(f"to_test: run {run.run_id} has no prompt and recorded round to test")
    tools = _tools_of(run)
    cassette = path.with_name(path.stem + ".cassette.json")
    save_cassette(cassette, str(run.model), _rounds(run))
    source = _source(run, prompt.text, tools, cassette.name, tools_from)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(mask(source), encoding="utf-8")
    return path


def _tools_of(run: Run) -> dict[str, Any]:
    """The run's tools by name (``tool_search`` aside: the menu adds it again)."""
    menu = run.spec.menu if run.spec is not None else None
    found = {}
    for name in run.tools:
        tool = menu.get(name) if menu is not None else None
        if name != "tool_search":
            found[name] = tool
    return found


def _rounds(run: Run) -> list[dict[str, Any]]:
    """The run's replies as cassette rounds, each with what its request held."""
    rounds: list[dict[str, Any]] = []
    last_user: str | None = None
    for message in run.messages:
        if isinstance(message, UserMessage):
            last_user = message.text
        elif isinstance(message, AssistantMessage):
            rounds.append({"round": len(rounds) + 1, "request": {"tools": list(run.tools), "last_user_text": last_user},
                           "reply": dump_message(message)})
    return rounds


def _imports_for(fn: Any, source: str) -> list[str]:
    """``import`` lines for the names ``source`` uses that ``fn``'s globals bind to a module
    or to something importable by name (``Literal``, ``date``, ``BaseModel``); anything the
    notebook itself defined is left out (a tool that needs it takes ``tools_from``)."""
    used = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    lines = []
    for name in sorted(used & set(getattr(fn, "__globals__", {}))):
        value = fn.__globals__[name]
        if name in ("op", "function") or getattr(value, "__module__", None) == "openprogram_jupyter":
            continue
        if isinstance(value, types.ModuleType):
            imported = value.__name__
            lines.append(f"import {imported}" if imported == name else f"import {imported} as {name}")
            continue
        module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
        if (isinstance(module, str) and isinstance(qualname, str) and module not in ("__main__", "builtins")
                and all(_is_plain_name(part) for part in (*module.split("."), qualname))
                and getattr(sys.modules.get(module), qualname, None) is value):
            lines.append(f"from {module} import {qualname}" + (f" as {name}" if qualname != name else ""))
    return lines


def _tool_sources(tools: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """The imports the tools need, each tool's source as the notebook wrote it, and the
    variable each is bound to."""
    imports: set[str] = set()
    sources, variables = [], []
    for name, tool in tools.items():
        fn = getattr(tool, "fn", None)
        try:
            source = textwrap.dedent(inspect.getsource(fn)) if fn is not None else None
        except (OSError, TypeError):
            source = None
        variable = getattr(fn, "__name__", "")
        if source is None or not _is_plain_name(variable) or variable == "<lambda>":
            raise SetupError(f"to_test: the source of the tool {name!r} cannot be written into the test; "
                             "put the tools in a module and pass tools_from='module'")
        imports.update(_imports_for(fn, source))
        sources.append(source.rstrip())
        variables.append(variable)
    return sorted(imports, key=lambda line: (line.startswith("from "), line)), sources, variables


def _source(run: Run, prompt: str, tools: dict[str, Any], cassette: str, tools_from: str | None) -> str:
    if tools_from is not None:
        variables = [name for name in tools if _is_plain_name(name)]
        if len(variables) != len(tools):
            raise SetupError("to_test: a tool name is not a Python name, so it cannot be imported; "
                             f"tools: {', '.join(map(repr, tools))}")
        definitions = [f"from {tools_from} import {', '.join(variables)}" if variables else ""]
    else:
        imports, sources, variables = _tool_sources(tools)
        definitions = ["# The tools, as the notebook defined them.", *imports, "", "", "\n\n\n".join(sources)]
    header = _comment(f"A regression test for the run {run.run_id} (model {run.model}), written by "
                      "openprogram-jupyter (run.to_test).", "# ")
    return "\n".join([
        header,
        "# Its model's replies are played back from the cassette beside this file (no network, no key)",
        "# while the tools run for real. After an intended change, write it again with run.to_test(path).",
        "from pathlib import Path", "",
        "import openprogram_jupyter as op",
        "from openprogram_jupyter import function  # noqa: F401 (for the tools' decorators)", "",
        *definitions, "", "",
        f"CASSETTE = Path(__file__).with_name({cassette!r})",
        f"PROMPT = {prompt!r}",
        f"SETTINGS = {_settings(run)!r}",
        f"TOOLS = [{', '.join(variables)}]", "", "",
        "def replayed() -> op.Run:",
        '    return op.Runtime(model=f"replay:{CASSETTE}").run(PROMPT, tools=TOOLS, **SETTINGS)', "", "",
        *_tests(run),
    ])


def _tests(run: Run) -> list[str]:
    picks = [(call.name, dict(call.arguments)) for message in run.messages if isinstance(message, AssistantMessage)
             for call in message.tool_calls]
    results = [(result.tool_name, result.text if len(result.text) <= _RESULT_CHARS else None)
               for result in run.tool_results]
    lines = ["def test_the_run_makes_the_same_picks_in_order_and_ends_the_same():",
             "    (op.check(replayed())",
             f"        .called_in_order({', '.join(repr(pick) for pick in picks)}{', ' if picks else ''}"
             f"ok={all(r.status == 'done' for r in run.tool_results)!r})"]
    if run.text:
        lines.append(f"        .answer_contains({run.text!r}, case_sensitive=True)")
    lines += [f"        .stopped({run.stop_reason or 'stop'!r}))", "", "",
              "def test_each_call_returns_what_it_returned_when_recorded():",
              f"    recorded = {results!r}  # None: too long to compare",
              "    results = replayed().tool_results",
              '    assert len(results) == len(recorded), f"{len(results)} results; recorded {len(recorded)}"',
              "    for number, ((name, text), result) in enumerate(zip(recorded, results), 1):",
              "        if text is not None:",
              '            assert result.text == text, (',
              '                f"call {number}, {name}, returned {result.text!r}; recorded {text!r}")',
              ""]
    return lines


def _settings(run: Run) -> dict[str, Any]:
    """The run's settings that differ from the defaults and are plain values."""
    if run.spec is None:
        return {}
    settings: dict[str, Any] = dict(run.spec.settings)
    return {name: value for name, value in settings.items()
            if name != "step" and isinstance(value, _LITERAL) and value != DEFAULTS.get(name)}
