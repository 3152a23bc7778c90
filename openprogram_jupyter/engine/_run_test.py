"""``run.to_test(path)``: a run written as a pytest file and the cassette it replays.

The file plays the run's recorded replies back from ``<name>.cassette.json`` beside it
(``model="replay:…"``: no network, no key) while its tools run for real, and checks with
:func:`~openprogram_jupyter.lab.check.check` what the run did: the same picks in the same order,
each running and returning (``called_in_order(..., ok=True)``), the same answer and the
same ending; a second test checks each call returns what it returned when recorded (its text, when the
call ran and the text is at most 2,000 characters; the live text masked by
:func:`~.models.replay.scrub`, as the recorded one was written, so a token or a key in a
result is compared as ``***`` and never written into the file). After
a tool change that alters a call — its schema no longer takes the recorded arguments, it
fails, it returns something else — ``pytest`` fails saying which call.

Where the tools come from, first match wins:

- ``tools_from="module"``: ``from module import find_city, ...``;
- a tool defined in a module the test can import (not the notebook's ``__main__``: a
  module in site-packages, in the test's folder, or in a folder above it) is imported
  from it — ``from shapes import area``, with the folder above put on ``sys.path`` by a
  path relative to the test file — so editing the module and running ``pytest`` again
  tests the edited tool;
- else its source is copied into the file as the notebook wrote it
  (:func:`inspect.getsource`), after ``import`` lines for the modules and importable names
  it uses (``Literal``, ``date``, a pydantic model from a package). A tool whose source
  cannot be found — an MCP tool, a lambda, a dict — raises :class:`SetupError` saying to
  name a module, and so should a tool using a helper or a value the notebook itself
  defined (the file would fail with a ``NameError`` naming it).

Everything written from the run — the prompt, arguments, results, the answer — goes
through one :class:`~._code_writer.CodeWriter`: masked as a value the way the cassette is
masked (:func:`~.models.replay.scrub`), then written as a literal built from it, or as a
one-line comment; copied tool source has known secret values masked and nothing else.

Nothing is written until everything is checked: a refused ``to_test`` leaves the folder
as it was. An existing test or cassette is not overwritten unless ``overwrite=True``
(``%agent test ... --force``). Both files are written atomically.
"""

from __future__ import annotations

import ast
import inspect
import os
import site
import sys
import sysconfig
import textwrap
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..core._code_writer import CodeWriter, is_plain_name
from ..core._engine_shapes import RunRecord
from ..core._files import write_atomically
from ..core.errors import SetupError
from ..core.messages import AssistantMessage, UserMessage, dump_message
from ..models.replay import cassette_text, scrub
from ..tools.base import SEARCH_TOOL_NAME
from .settings import DEFAULTS

if TYPE_CHECKING:
    from .spec import RunSpec

__all__ = ["write_test"]


class RecordedRun(RunRecord, Protocol):
    """A run's record with the spec it ran (its menu and settings), as :class:`~.run.Run` holds it."""

    spec: RunSpec | None


_LITERAL = (type(None), bool, int, float, str)
_RESULT_CHARS = 2000  # a longer result is checked by its call alone


def write_test(
    run: RecordedRun, path: str | os.PathLike[str], *, tools_from: str | None = None, overwrite: bool = False
) -> Path:
    """Write the test for ``run`` to ``path`` (a ``.py`` file; its folder is made) and its
    cassette beside it; return the test's path. Raises :class:`SetupError` — having
    written nothing — for a ``path`` that is not ``.py`` or is a folder, an existing file
    without ``overwrite``, an unusable ``tools_from``, a run with no prompt or no round,
    or a tool whose source cannot be written."""
    path = Path(path)
    cassette = path.with_name(path.stem + ".cassette.json")
    _check_targets(path, cassette, overwrite)
    if tools_from is not None and not all(is_plain_name(part) for part in tools_from.split(".")):
        raise SetupError(f"to_test: tools_from names a module to import the tools from, got {tools_from!r}")
    prompt = next((m for m in run.messages if isinstance(m, UserMessage)), None)
    replies = [m for m in run.messages if isinstance(m, AssistantMessage)]
    if prompt is None or not replies:
        raise SetupError(f"to_test: run {run.run_id} has no prompt and recorded round to test")
    writer = CodeWriter(scrub=scrub)
    source = _source(run, writer, prompt.text, _tools_of(run), cassette.name, tools_from, path.parent)
    recorded = cassette_text(str(run.model), _rounds(run))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(cassette, recorded)
    write_atomically(path, source)
    return path


def _check_targets(path: Path, cassette: Path, overwrite: bool) -> None:
    """Refuse, naming the path, what cannot or must not be written."""
    if path.suffix != ".py":
        raise SetupError(f"to_test: the test is a Python file; {str(path)!r} does not end in .py")
    for target in (path, cassette):
        if target.is_dir():
            raise SetupError(f"to_test: {str(target)!r} is a folder; name the test file to write")
        if target.exists() and not overwrite:
            raise SetupError(
                f"to_test: {str(target)!r} exists; pass overwrite=True (%agent test ... --force) to write over it"
            )
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise SetupError(f"to_test: {str(folder)!r} is a file, so {str(path)!r} cannot be made in it")
            return


def _tools_of(run: RecordedRun) -> dict[str, Any]:
    """The run's tools by name (``tool_search`` aside: it is the package's search, which
    the menu adds again; no other tool may be named so)."""
    menu = run.spec.menu if run.spec is not None else None
    found = {}
    for name in run.tools:
        tool = menu.get(name) if menu is not None else None
        if name != SEARCH_TOOL_NAME:
            found[name] = tool
    return found


def _rounds(run: RecordedRun) -> list[dict[str, Any]]:
    """The run's replies as cassette rounds, each with what its request held."""
    rounds: list[dict[str, Any]] = []
    last_user: str | None = None
    for message in run.messages:
        if isinstance(message, UserMessage):
            last_user = message.text
        elif isinstance(message, AssistantMessage):
            rounds.append(
                {
                    "round": len(rounds) + 1,
                    "request": {"tools": list(run.tools), "last_user_text": last_user},
                    "reply": dump_message(message),
                }
            )
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
            lines.append(_import_line(value.__name__, None, name))
            continue
        module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
        if (
            isinstance(module, str)
            and isinstance(qualname, str)
            and module not in ("__main__", "builtins")
            and all(is_plain_name(part) for part in (*module.split("."), qualname))
            and getattr(sys.modules.get(module), qualname, None) is value
        ):
            lines.append(_import_line(module, qualname, name))
    return lines


def _import_line(module: str, attribute: str | None, name: str) -> str:
    """``import module [as name]`` or ``from module import attribute [as name]``."""
    if attribute is None:
        return f"import {module}" if module == name else f"import {module} as {name}"
    return f"from {module} import {attribute}" + (f" as {name}" if attribute != name else "")


def _importable(tool: Any, test_folder: Path) -> tuple[str, str, int | None] | None:
    """Where the test can import ``tool`` from: ``(module, name, up)``, where ``up`` is how
    many folders above the test's folder must go on ``sys.path`` (``None``: none); ``None``
    when the tool is the notebook's or its module cannot be found from the test."""
    fn = getattr(tool, "fn", None)
    module_name, name = getattr(fn, "__module__", None), getattr(fn, "__name__", None)
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    file = getattr(module, "__file__", None)
    if (
        module is None
        or module_name == "__main__"
        or not isinstance(name, str)
        or not is_plain_name(name)
        or getattr(module, name, None) not in (tool, fn)
        or not isinstance(file, str)
        or not all(is_plain_name(part) for part in str(module_name).split("."))
    ):
        return None
    depth = str(module_name).count(".") + (Path(file).stem == "__init__")
    root = Path(file).resolve().parents[depth]
    folder = test_folder.resolve()
    if root == folder or root in _site_folders():
        return str(module_name), name, None
    if root in folder.parents:
        return str(module_name), name, folder.parents.index(root) + 1
    return None


def _site_folders() -> set[Path]:
    paths = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    paths.update(site.getsitepackages())
    return {Path(p).resolve() for p in paths}


def _tool_definitions(writer: CodeWriter, tools: dict[str, Any], test_folder: Path) -> tuple[list[str], list[str]]:
    """The lines that define the tools in the test (imports, copied sources) and the
    variable each tool is bound to."""
    imports: set[str] = set()
    path_lines: set[str] = set()
    sources, variables = [], []
    for name, tool in tools.items():
        found = _importable(tool, test_folder)
        if found is not None:
            module, variable, up = found
            imports.add(_import_line(module, variable, variable))
            if up is not None:
                path_lines.add(f"sys.path.insert(0, str(Path(__file__).resolve().parents[{up}]))")
        else:
            variable, source = _copied_source(writer, name, tool)
            imports.update(_imports_for(tool.fn, source))
            sources.append(source.rstrip())
        variables.append(variable)
    ordered = sorted(imports, key=lambda line: (line.startswith("from "), line))
    lines = ["# The tools: imported from their modules, or as the notebook defined them."]
    if path_lines:
        lines += ["import sys", *sorted(path_lines)]
    lines += [*ordered, "", "", "\n\n\n".join(sources)] if sources else ordered
    return lines, variables


def _copied_source(writer: CodeWriter, name: str, tool: Any) -> tuple[str, str]:
    """The variable and the source (verbatim, known secret values masked) of a tool the
    notebook defined; raises :class:`SetupError` when there is none to copy."""
    fn = getattr(tool, "fn", None)
    try:
        source = textwrap.dedent(inspect.getsource(fn)) if fn is not None else None
    except (OSError, TypeError):
        source = None
    variable = getattr(fn, "__name__", "")
    if source is None or not is_plain_name(variable) or variable == "<lambda>":
        raise SetupError(
            f"to_test: the source of the tool {name!r} cannot be written into the test; "
            "put the tools in a module and pass tools_from='module'"
        )
    return variable, writer.verbatim(source, what=f"the tool {name!r}")


def _source(
    run: RecordedRun,
    writer: CodeWriter,
    prompt: str,
    tools: dict[str, Any],
    cassette: str,
    tools_from: str | None,
    test_folder: Path,
) -> str:
    if tools_from is not None:
        variables = [name for name in tools if is_plain_name(name)]
        if len(variables) != len(tools):
            raise SetupError(
                "to_test: a tool name is not a Python name, so it cannot be imported; "
                f"tools: {', '.join(map(repr, tools))}"
            )
        definitions = [f"from {tools_from} import {', '.join(variables)}" if variables else ""]
    else:
        definitions, variables = _tool_definitions(writer, tools, test_folder)
    return "\n".join(
        [
            writer.comment(
                f"A regression test for the run {run.run_id} (model {run.model}), written by "
                "openprogram-jupyter (run.to_test)."
            ),
            "# Its model's replies are played back from the cassette beside this file (no network, no key)",
            "# while the tools run for real. After an intended change, write it again with run.to_test(path).",
            "from pathlib import Path",
            "",
            "import openprogram_jupyter as op",
            "from openprogram_jupyter import function  # noqa: F401 (for the tools' decorators)",
            "from openprogram_jupyter.models.replay import scrub",
            "",
            *definitions,
            "",
            "",
            f"CASSETTE = Path(__file__).with_name({writer.literal(cassette)})",
            f"PROMPT = {writer.literal(prompt)}",
            f"SETTINGS = {writer.literal(_settings(run))}",
            f"TOOLS = [{', '.join(variables)}]",
            "",
            "",
            *_replayed(run, writer),
            "",
            "",
            *_tests(run, writer),
        ]
    )


def _replayed(run: RecordedRun, writer: CodeWriter) -> list[str]:
    """``replayed()``, which runs the recording again; when the user answered calls in it
    (approved, denied, skipped or edited them), in step mode with an approver that gives
    each call its recorded answer, so a call refused then is refused again, never run."""
    answers = _recorded_answers(run)
    if answers is None:
        return [
            "def replayed() -> op.Run:",
            '    return op.Runtime(model=f"replay:{CASSETTE}").run(PROMPT, tools=TOOLS, **SETTINGS)',
        ]
    return [
        f"ANSWERS = {writer.literal(answers)}  # by call id: how the user answered it when recorded",
        "",
        "",
        "def recorded_answer(request):",
        '    kind, value = ANSWERS.get(request.tool_call.id, ("run", None))',
        '    if kind == "deny":',
        "        return False",
        '    if kind == "skip":',
        "        return op.skip(value)",
        '    return op.edit(**value) if kind == "edit" else True',
        "",
        "",
        "def replayed() -> op.Run:",
        '    return op.Runtime(model=f"replay:{CASSETTE}").run(PROMPT, tools=TOOLS, step=True,',
        "                                                      approve=recorded_answer, **SETTINGS)",
    ]


def _recorded_answers(run: RecordedRun) -> dict[str, list[Any]] | None:
    """How each call the user (or a policy) answered was answered — ``["deny", None]``,
    ``["skip", reason]``, ``["edit", arguments]`` — by call id; ``None`` when no call was
    asked about (every call ran as the model sent it)."""
    results = run.tool_results
    if not any("approval" in result.details for result in results):
        return None
    answers: dict[str, list[Any]] = {}
    for result in results:
        approval = result.details.get("approval")
        if result.status == "denied":
            answers[result.tool_call_id] = ["deny", None]
        elif result.status == "skipped" and approval == "skipped":
            answers[result.tool_call_id] = ["skip", result.details.get("skip_reason", "")]
        elif approval == "edited":
            answers[result.tool_call_id] = ["edit", result.details.get("edited_arguments", {})]
    return answers


def _tests(run: RecordedRun, writer: CodeWriter) -> list[str]:
    picks = [
        (call.name, dict(call.arguments))
        for message in run.messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    ]
    results = [
        (
            result.tool_name,
            result.text if len(result.text) <= _RESULT_CHARS and result.status in ("done", "error") else None,
        )
        for result in run.tool_results
    ]
    ok = all(r.status == "done" for r in run.tool_results)
    lines = [
        "def test_the_run_makes_the_same_picks_in_order_and_ends_the_same():",
        "    (op.check(replayed())",
        f"        .called_in_order({''.join(writer.literal(pick) + ', ' for pick in picks)}ok={ok!r})",
    ]
    if run.text:
        lines.append(f"        .answer_contains({writer.literal(run.text)}, case_sensitive=True)")
    lines += [
        f"        .stopped({writer.literal(run.stop_reason or 'stop')}))",
        "",
        "",
        "def test_each_call_returns_what_it_returned_when_recorded():",
        f"    recorded = {writer.literal(results)}  # None: not run, or too long to compare",
        "    results = replayed().tool_results",
        '    assert len(results) == len(recorded), f"{len(results)} results; recorded {len(recorded)}"',
        "    for number, ((name, text), result) in enumerate(zip(recorded, results), 1):",
        "        returned = scrub(result.text)  # masked as the recorded text was written",
        "        if text is not None:",
        "            assert returned == text, (",
        '                f"call {number}, {name}, returned {returned!r}; recorded {text!r}")',
        "",
    ]
    return lines


def _settings(run: RecordedRun) -> dict[str, Any]:
    """The run's settings that differ from the defaults and are plain values."""
    if run.spec is None:
        return {}
    settings: dict[str, Any] = dict(run.spec.settings)
    return {
        name: value
        for name, value in settings.items()
        if name != "step" and isinstance(value, _LITERAL) and value != DEFAULTS.get(name)
    }
