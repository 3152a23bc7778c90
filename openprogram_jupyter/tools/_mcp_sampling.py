"""An MCP server's ``sampling/createMessage`` answered by the model of the run whose call is
in flight.

A server asks the client's model for a reply while one of its tools runs. The reply is a
nested run of the calling run's Runtime, started inside that call (:class:`Samplers` hands
the request to the call that registered last, as a run's calls go one after another): it
shows in the call's card as the call's nested run, its tokens and cost count in the run's
usage (and toward ``max_cost`` / ``max_tokens``), and it inherits the run's context — its
approvers and deny lists, depth cap and Stop. It runs no tool (``tools=[]``).

What the request asks is what the nested run does (:func:`sampled`): ``systemPrompt`` is
its system prompt, ``maxTokens`` its ``max_output_tokens``, ``temperature`` and
``stopSequences`` its own settings of those names (a provider that takes one not says so
in a notice in the nested run), and the messages its conversation, where what is not text
(an image, audio) is a one-line note with its type and size. ``modelPreferences.hints``
choose a model only among the ``sampling_models`` the user gave ``op.mcp``
(:func:`chosen_model`); otherwise the run's own model answers. The request is the call's
governed action ``mcp_sampling:<server>`` (``ToolContext.governed_action``): the run's
approval policy allows, asks about or denies it by that name before any model is asked,
and its reply is recorded with the call's answers, so a rerun gives it back unasked.

With no call of that server in flight in a run, the request is refused with an error
saying so. The SDK's reply types are built here, imported only when a request comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core._json import JsonObject
from ..core.errors import ActionRefused, SetupError
from ..core.events import MessageEndEvent
from ..core.messages import AssistantMessage, TextContent, UserMessage
from ._mcp_results import blob_note

if TYPE_CHECKING:
    from .base import ToolContext

__all__ = [
    "Sample",
    "Samplers",
    "SamplingError",
    "SamplingRequest",
    "checked_sampling_models",
    "chosen_model",
    "sampled",
]

Sample = Callable[[JsonObject], JsonObject]
"""Answers one request's params (as JSON) with ``{"text", "model", "stop_reason"}``, on a
worker thread; raises with the reason it cannot."""


class SamplingError(Exception):
    """A sampling request this client cannot answer; its text is what the server is told."""


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
        except ActionRefused as error:
            return ErrorData(code=-1, message=f"the notebook refused the sampling request: {error}")
        except Exception as error:  # said to the server in words: the tool may handle it
            return ErrorData(code=-1, message=f"the notebook's model did not answer: {error}")
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=str(answer["text"])),
            model=str(answer["model"]),
            stop_reason=_STOP_REASONS.get(str(answer["stop_reason"]), str(answer["stop_reason"])),
        )


@dataclass(frozen=True)
class SamplingRequest:
    """What one ``sampling/createMessage`` asks, read from its params (as the SDK dumps
    them, in snake case): the system prompt, the messages as ``(role, text)`` pairs, the
    output cap, temperature and stop sequences, and the model hints in the server's order
    of preference."""

    system: str | None
    turns: tuple[tuple[str, str], ...]
    max_tokens: int | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()

    @classmethod
    def of(cls, params: JsonObject) -> SamplingRequest:
        """The request ``params`` make; a field of the wrong type counts as absent."""
        system = params.get("system_prompt")
        turns = []
        for message in params.get("messages") or []:
            content = message.get("content")
            blocks = content if isinstance(content, list) else [content]
            text = "\n".join(_block_text(block) for block in blocks if isinstance(block, dict))
            turns.append((str(message.get("role") or "user"), text))
        cap, temperature = params.get("max_tokens"), params.get("temperature")
        stops = params.get("stop_sequences")
        hints = (params.get("model_preferences") or {}).get("hints") or []
        return cls(
            system if isinstance(system, str) else None,
            tuple(turns),
            cap if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0 else None,
            float(temperature) if isinstance(temperature, (int, float)) and not isinstance(temperature, bool) else None,
            tuple(stop for stop in stops if isinstance(stop, str) and stop) if isinstance(stops, list) else (),
            tuple(str(hint["name"]) for hint in hints if isinstance(hint, dict) and hint.get("name")),
        )


def checked_sampling_models(models: object) -> tuple[Any, ...]:
    """``op.mcp``'s ``sampling_models``: a list (or tuple) of model names
    (``"anthropic:claude-haiku-4-5"``) and model objects; anything else raises
    :class:`SetupError` naming it."""
    if models is None:
        return ()
    if not isinstance(models, (list, tuple)) or not all(
        (isinstance(model, str) and model) or hasattr(model, "stream") for model in models
    ):
        raise SetupError(
            "op.mcp: sampling_models must be a list of models (names like 'anthropic:claude-haiku-4-5', "
            f"or model objects) a server's sampling requests may choose among, got {models!r}"
        )
    return tuple(models)


def chosen_model(hints: Sequence[str], allowed: Sequence[Any]) -> Any | None:
    """The allowed model the server prefers: for the first hint (in the server's order)
    that is part of an allowed model's name, the first such model; ``None`` (the run's own
    model) when no hint names one. A hint never names a model that is not in ``allowed``."""
    for hint in hints:
        for model in allowed:
            if hint in (model if isinstance(model, str) else str(getattr(model, "name", ""))):
                return model
    return None


def sampled(context: ToolContext, params: JsonObject, server: str, allowed: Sequence[Any]) -> JsonObject:
    """A sampling request of the server ``server`` answered by a nested run of the calling
    run's Runtime (or of a copy of it on the allowed model a hint chose), with no tools:
    ``{"text", "model", "stop_reason"}`` (the nested run's last reply's: ``"length"`` when
    it was cut at ``maxTokens``; ``"stop"`` for a reply a rerun gives back, whose recording
    keeps its text alone).

    It is the call's governed action ``mcp_sampling:<server>`` (``ToolContext.governed_action``),
    with the arguments ``prompt`` (the last message's text) and ``model`` (the model that
    would answer): the run's approval policy allows, asks about or denies it by that name,
    and a rerun gives back the recorded text without running the model. Raises
    :class:`SamplingError` when this call is not part of a run or the request's last
    message is not the user's; ``ActionRefused`` when it is refused; the run's own errors
    (``RunError``, the depth cap's ``RecursionError``) as they are."""
    request = SamplingRequest.of(params)
    if context.runtime is None:
        raise SamplingError("this call is not part of a run, so there is no model to answer with")
    if not request.turns or request.turns[-1][0] != "user":
        raise SamplingError("the request's last message is not the user's: there is nothing to answer")
    model = chosen_model(request.hints, allowed)
    runtime = context.runtime if model is None else context.runtime.replace(model=model)
    name = _model_name(getattr(runtime, "model", None) if model is None else model)
    prompt = request.turns[-1][1]

    ended: list[str] = ["stop"]  # the last reply's stop reason ("length": cut at maxTokens)

    def watch(event: Any) -> None:
        if type(event) is MessageEndEvent and isinstance(event.message, AssistantMessage):
            ended[0] = event.message.stop_reason

    def answer() -> str:
        history = [
            UserMessage(content=text) if role == "user" else AssistantMessage(content=[TextContent(text=text)])
            for role, text in request.turns[:-1]
        ]
        options = {"max_output_tokens": request.max_tokens, "temperature": request.temperature, "on_event": watch}
        stops = list(request.stop_sequences) or None
        return str(
            runtime.exec(prompt, tools=[], system=request.system, messages=history, stop_sequences=stops, **options)
        )

    asked = f"{server} asks the model ({name}): {prompt}"
    text = context.governed_action(f"mcp_sampling:{server}", {"prompt": prompt, "model": name}, asked, answer)
    return {"text": text, "model": name, "stop_reason": ended[0]}


def _model_name(model: Any) -> str:
    """A model's name as the server is told it: a name as given, else the object's ``name``."""
    return model if isinstance(model, str) else str(getattr(model, "name", None) or "unknown")


def _block_text(block: JsonObject) -> str:
    """A message block as text: its text, or for any other kind the one-line note a tool
    result's blob gets (:func:`._mcp_results.blob_note`: ``[audio: audio/wav, 16,044 bytes;
    not sent to the model]``)."""
    if block.get("type") == "text":
        return str(block.get("text") or "")
    data = block.get("data")
    return blob_note(str(block.get("type")), None, str(block.get("mime_type") or "unknown type"), str(data or ""))
