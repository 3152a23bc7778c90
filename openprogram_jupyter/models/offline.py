"""The ``offline`` model: the whole loop working with no key and no network.

It is not a language model and says so. With tools named for the run (``tools=[...]``, a
``toolset``) it calls each of them once, with arguments read from the prompt where it can
("What is 2 + 3?" gives ``add(a=2, b=3)``: numbers, quoted strings and enum words, in
parameter order, typed by the schema; :mod:`~openprogram_jupyter.tools.prompt_arguments`)
and example values otherwise, then reports what came back. With the default full menu it calls nothing — calling
every registered tool unasked could have side effects — and lists what it could call.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from ..core.events import AssistantUpdate
from ..core.messages import ToolResultMessage, UserMessage
from ..tools._decision_options import example_pick
from ..tools.base import SEARCH_TOOL_NAME
from ..tools.examples import example_arguments
from ..tools.prompt_arguments import PromptValues, arguments_from_prompt
from .base import MessageBuilder, Model, ModelRequest
from .providers import key_variables_text

__all__ = ["OfflineModel"]

_HOW_TO_GO_ONLINE = (
    f"To use a real model, set {key_variables_text()}, or pick one "
    'explicitly: Runtime(model="openai:gpt-4.1-mini") or %%agent -m anthropic:claude-sonnet-5-5.'
)


class OfflineModel(Model):
    name = "offline"

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        results = _results_since_prompt(request.messages)
        called = {result.tool_name for result in results}
        to_call = (
            []
            if request.tool_choice == "none" or not request.menu_explicit
            else [spec for spec in request.tools if spec["name"] not in called and spec["name"] != SEARCH_TOOL_NAME]
        )
        if to_call:
            if request.parallel_tool_calls is False:
                to_call = to_call[:1]
            values = PromptValues.read(_prompt_text(request.messages))
            for spec in to_call:
                for update in out.tool_call(spec["name"], arguments_from_prompt(spec.get("parameters") or {}, values)):
                    yield update
            out.finish("toolUse")
            return
        yield out.text_delta(_final_text(request, results))
        out.finish("stop")


def _prompt_text(messages: list[Any]) -> str:
    """The text of the latest user message (the task this round answers)."""
    return next((m.text for m in reversed(messages) if isinstance(m, UserMessage)), "")


def _results_since_prompt(messages: list[Any]) -> list[ToolResultMessage]:
    results = []
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            break
        if isinstance(message, ToolResultMessage):
            results.append(message)
    return results[::-1]


def _final_text(request: ModelRequest, results: list[ToolResultMessage]) -> str:
    """The offline model's answer, as Markdown: paragraphs apart, each list one block."""
    paragraphs = ["This is the offline model: no language model ran, nothing left this machine."]
    lines: list[str] = []
    if results:
        lines.append(
            "I called each tool named for this run once, with arguments taken from the prompt where "
            "I could find them and example values otherwise:"
        )
        for message in results:
            outcome = "error" if message.is_error else "result"
            text = message.text.strip().replace("\n", " ")
            lines.append(f"- {message.tool_name}: {outcome}: {text[:200] or '(empty)'}")
    elif request.tools and request.tool_choice != "none":
        lines.append(
            "I could call these tools (example arguments shown); I call none unasked, since "
            "tools can have side effects. Name tools for the run (tools=[...] or "
            "%%agent --tools a,b) and I will call each once:"
        )
        for spec in request.tools:
            example = json.dumps(example_arguments(spec.get("parameters") or {}))
            lines.append(f"- {spec['name']}({example})")
    else:
        lines.append("This run has no tools.")
    paragraphs += ["\n".join(lines), _HOW_TO_GO_ONLINE]
    pick = _decision_pick(request.messages)
    if pick is not None:
        paragraphs.append(f"Asked to choose, I cannot weigh the options, so I take the first one:\n{pick}")
    return "\n\n".join(paragraphs)


def _decision_pick(messages: list[Any]) -> str | None:
    """The first option of the latest decision menu in the prompts (``exec(choices=...)``)."""
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            pick = example_pick(message.text)
            if pick is not None:
                return pick
    return None
