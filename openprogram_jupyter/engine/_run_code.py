"""``run.to_code()``: a run's picks as Python source that calls the tools directly.

The source calls each pick the model made at the top level of the run, in order, with
its arguments (for a pick the user edited, the edited ones: that is what ran), one
variable per result — ``celsius_to_fahrenheit_1 = celsius_to_fahrenheit(celsius=-5)``.
A pick that did not run or did not return (denied, skipped, failed, stopped) becomes a
comment saying why. Running the source in the notebook that defined the tools gives the
values the run's results were made from, without any model — except for an agentic
function, whose call runs a model again (a comment says so).

Arguments are written as Python literals. A call whose arguments the tool converts (a
pydantic model or a date from JSON) passes them through the tool's own check —
``f(**f.validate({...}))`` — so the function receives what it received in the run.

Everything in the source that came from outside the notebook's code (the model's picks
and arguments, tool errors, the model's name, a replayed cassette) is untrusted: it is
written by the one :class:`~._code_writer.CodeWriter` — masked as a value, then a literal
built from it, or a one-line comment — so no text can end a literal or a comment and
start a statement. A tool is called by its bare name only when that name is a plain
identifier, else through ``op.default_registry.get(...)``. A pick whose arguments are not
plain data (an edit that passed a date) becomes a comment saying so.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..core._code_writer import CodeWriter, UnwritableValue, is_plain_name
from ..core._json import JsonObject
from ..core.messages import AssistantMessage, ToolCall, ToolResultMessage
from ..tools.registry import Registry

if TYPE_CHECKING:
    from ..core._engine_shapes import RunRecord
    from ..tools.base import Tool

__all__ = ["run_code"]

_NOT_RUN = {
    "denied": "was denied",
    "skipped": "was skipped",
    "error": "failed",
    "cancelled": "was cancelled when the run stopped",
    "interrupted": "was abandoned when the run stopped",
}


def run_code(run: RunRecord, registry: Registry) -> str:
    """The source described in the module docstring, for ``run`` (tools looked up in
    ``registry`` to know which convert their arguments or are agentic)."""
    writer = CodeWriter()
    header = [
        writer.comment(f"The picks of the run (model {run.model}), in order, as direct calls."),
        "# Run this cell to call the tools again, without any model.",
    ]
    body: list[str] = []
    counts: dict[str, int] = {}
    needs_op = False
    for round_number, tool_call, result in _picks(run.messages):
        number = counts.get(tool_call.name, 0) + 1
        lines, called = _pick_lines(
            writer,
            round_number,
            tool_call,
            result,
            registry.get(tool_call.name),
            f"{_identifier(tool_call.name)}_{number}",
        )
        body += lines
        counts[tool_call.name] = number if called else number - 1
        needs_op = needs_op or (called and not is_plain_name(tool_call.name))
    if not body:
        body.append("# The run made no tool calls.")
    return "\n".join([*header, *(["import openprogram_jupyter as op"] if needs_op else []), *body]) + "\n"


def _pick_lines(
    writer: CodeWriter,
    round_number: int,
    tool_call: ToolCall,
    result: ToolResultMessage | None,
    tool: Tool | None,
    variable: str,
) -> tuple[list[str], bool]:
    """The lines for one pick — its call, or a comment saying why it is not called — and
    whether they call it."""
    status = result.status if result is not None else None
    shown = f"round {round_number}: {tool_call.name}({_shown(tool_call.arguments)})"
    if status != "done":
        why = _NOT_RUN.get(status or "", "has no result")
        reason = _first_line(result.text) if result is not None else ""
        return [writer.comment(f"{shown} {why}" + (f": {reason}" if reason else ""))], False
    lines = []
    edited = result.details.get("edited_arguments") if result is not None else None
    arguments = edited if isinstance(edited, dict) else tool_call.arguments
    if isinstance(edited, dict):
        lines.append(
            writer.comment(
                f"round {round_number}: the model asked for {tool_call.name}"
                f"({_shown(tool_call.arguments)}); the user edited the arguments"
            )
        )
    if tool is not None and getattr(tool, "agentic", False):
        lines.append(writer.comment(f"{tool_call.name} is an agentic function: this call runs a model again"))
    callee = (
        tool_call.name
        if is_plain_name(tool_call.name)
        else f"op.default_registry.get({writer.literal(tool_call.name)})"
    )
    try:
        written = _call_arguments(writer, callee, arguments, tool)
    except UnwritableValue as error:
        return [*lines, writer.comment(f"{shown} ran, but its arguments cannot be written: {error}")], False
    return [*lines, f"{variable} = {callee}({written})"], True


def _picks(messages: Iterable[Any]) -> list[tuple[int, ToolCall, ToolResultMessage | None]]:
    messages = list(messages)
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    picks = []
    rounds = 0
    for message in messages:
        if isinstance(message, AssistantMessage):
            rounds += 1
            picks += [(rounds, call, results.get(call.id or "")) for call in message.tool_calls]
    return picks


def _call_arguments(writer: CodeWriter, callee: str, arguments: JsonObject, tool: Tool | None) -> str:
    if tool is not None and _converts(tool, arguments):
        return f"**{callee}.validate({writer.literal(arguments)})"
    return writer.keywords(arguments)


def _converts(tool: Tool, arguments: JsonObject) -> bool:
    """Whether the tool's check turns these JSON arguments into other values: a date from
    its text, a model from a dict, a string it strips — any value that compares unequal.
    An int for a float (``3 == 3.0``) counts as the same and is written as sent."""
    try:
        checked = tool.validate(dict(arguments))
    except Exception:
        return False  # it ran with them in the run; pass them as they are
    return any(checked.get(k) != v for k, v in arguments.items())


def _shown(arguments: JsonObject) -> str:
    """Arguments as a comment shows them (``repr`` is fine there: the comment is one line)."""
    return ", ".join(f"{name}={value!r}" for name, value in arguments.items())


def _identifier(name: str) -> str:
    """A variable name made from a tool's name: each character no identifier may hold
    becomes ``_``, and a name that still cannot stand alone gets ``result_`` before it."""
    text = "".join(c if ("_" + c).isidentifier() else "_" for c in name)
    return text if is_plain_name(text) else f"result_{text}"


def _first_line(text: str, limit: int = 160) -> str:
    lines = text.strip().splitlines()
    line = lines[0] if lines else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
