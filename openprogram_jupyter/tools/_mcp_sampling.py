"""An MCP server's ``sampling/createMessage`` answered by the model of the run whose call is
in flight.

A server asks the client's model for a reply while one of its tools runs. The reply is a
nested run of the calling run's Runtime, started inside that call (:class:`Samplers` hands
the request to the call that registered last, as a run's calls go one after another): it
shows in the call's card as the call's nested run, its tokens and cost count in the run's
usage (and toward ``max_cost`` / ``max_tokens``), and it inherits the run's context — its
approvers and deny lists, depth cap and Stop. It runs no tool (``tools=[]``). The server's
``systemPrompt`` is the nested run's system prompt and its messages the conversation;
what is not text in them (an image, audio) is a one-line note.

With no call of that server in flight in a run, the request is refused with an error
saying so. The SDK's reply types are built here, imported only when a request comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..core._json import JsonObject

__all__ = ["Sample", "Samplers", "sampling_conversation"]

Sample = Callable[[JsonObject], JsonObject]
"""Answers one request's params (as JSON) with ``{"text", "model", "stop_reason"}``, on a
worker thread; raises with the reason it cannot."""

_STOP_REASONS = {"stop": "endTurn", "length": "maxTokens"}


class Samplers:
    """Who answers one connection's sampling requests: the call in flight that registered
    last (:meth:`answering`)."""

    def __init__(self, server: Callable[[], str]) -> None:
        self._server = server
        self._lock = threading.Lock()
        self._samplers: list[Sample] = []

    @contextlib.contextmanager
    def answering(self, sample: Sample) -> Iterator[None]:
        """While the block runs, sampling requests are answered with ``sample``."""
        with self._lock:
            self._samplers.append(sample)
        try:
            yield
        finally:
            with self._lock:
                self._samplers.remove(sample)

    async def reply(self, context: Any, params: Any) -> Any:
        """The SDK's ``CreateMessageResult`` for ``params``, or its ``ErrorData`` saying why not."""
        from mcp.types import CreateMessageResult, ErrorData, TextContent

        with self._lock:
            sample = self._samplers[-1] if self._samplers else None
        if sample is None:
            return ErrorData(
                code=-1,
                message=f"{self._server()} asked for a model reply while none of its tools was running in a run; "
                "the notebook answers sampling only during a run's call",
            )
        asked = params.model_dump(mode="json", by_alias=False, exclude_none=True)
        try:
            answer = await asyncio.to_thread(sample, asked)
        except Exception as error:  # said to the server in words: the tool may handle it
            return ErrorData(code=-1, message=f"the notebook's model did not answer: {error}")
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=str(answer["text"])),
            model=str(answer["model"]),
            stop_reason=_STOP_REASONS.get(str(answer["stop_reason"]), str(answer["stop_reason"])),
        )


def sampling_conversation(params: JsonObject) -> tuple[str | None, list[tuple[str, str]]]:
    """A request's system prompt and its messages as ``(role, text)`` pairs, in order; a
    block that is not text is ``[image image/png]``-style note."""
    system = params.get("system_prompt")
    turns = []
    for message in params.get("messages") or []:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        text = "\n".join(_block_text(block) for block in blocks if isinstance(block, dict))
        turns.append((str(message.get("role") or "user"), text))
    return (system if isinstance(system, str) else None), turns


def _block_text(block: JsonObject) -> str:
    if block.get("type") == "text":
        return str(block.get("text") or "")
    return f"[{block.get('type')} {block.get('mime_type') or ''}]".replace(" ]", "]")
