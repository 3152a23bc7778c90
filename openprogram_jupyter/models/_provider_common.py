"""What every remote provider shares: the model base with its retry loop, the retry
policy, error messages without secrets, and usage with cost. (The transcript helpers
that keep exactly one result per call are in :mod:`._history`.)

Each provider subclasses :class:`ProviderModel` and supplies three things: ``_attempt``
(one request: open the stream and translate it into builder calls, raising on any
failure), ``_classify`` (an exception → :class:`ProviderError`) and, optionally, notices
about controls it cannot express (yielded before the request). :meth:`ProviderModel.stream`
owns the rest: retries, the error message, and closing the stream on cancel.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import operator
import os
import time
from abc import abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from contextlib import aclosing
from typing import Any, TypeVar

from ..core._install import missing_dependency_message
from ..core._json import JsonObject
from ..core._key_sources import origin_of
from ..core._secrets import mask, remember
from ..core.errors import PROVIDER_SAID, ProviderError
from ..core.events import AssistantUpdate, RetryWait
from ..core.messages import ReplyError, Usage, UserMessage
from ._incremental import HistoryMemo
from ._loop_clients import LoopClients
from ._provider_errors import (
    RetryPolicy,
    retry_reason,
    wait_text,
)
from ._strict_schema import drop_absent_nulls
from .base import MessageBuilder, Model, ModelRequest
from .pricing import cost_of

__all__ = [
    "ProviderError",
    "ProviderModel",
    "make_usage",
    "require_module",
    "sampling_fields",
    "scrub_secrets",
]


# -- secrets ---------------------------------------------------------------------------


def scrub_secrets(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every given secret, every secret known now (:mod:`.._secrets`: each
    ``api_key=`` given, the registry's key variables' values) and anything shaped like an
    API key masked as ``***``."""
    return mask(text, secrets)


# -- the model base --------------------------------------------------------------------

_Twin = TypeVar("_Twin", bound="ProviderModel")


class ProviderModel(Model):
    """A remote model: ``stream`` = notices, then attempts with retries, then ``fail``.

    Subclasses set ``provider`` and ``key_variables`` (from their
    :class:`~openprogram_jupyter.models._provider_info.ProviderInfo`) and implement
    ``_attempt`` and ``_classify``. ``api_key`` is held privately, never shown by
    ``repr``, and known as a secret from the start (:func:`.._secrets.remember`): every
    message of every run masks it, as it masks the values of every provider's key
    variables set in the environment.
    """

    provider: str = "provider"
    key_variables: tuple[str, ...] = ()

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        if not model_id:
            raise ValueError(f"{self.provider}: a model id is required, e.g. '{self.provider}:MODEL'")
        self.model_id = model_id
        self.name = f"{self.provider}:{model_id}"
        self.base_url = base_url
        self.retry = retry or RetryPolicy()
        self._history = HistoryMemo()  # what the last round built, for the next to reuse
        self.__api_key = api_key
        remember(api_key)
        self._clients = LoopClients(self._make_client)

    @property
    def _api_key(self) -> str | None:
        return self.__api_key

    def _client(self) -> Any:
        """The SDK client for the running event loop, made on first use (connection pools
        belong to one loop, and each synchronous run may bring its own). It is closed on its
        own loop when that loop shuts down or this model and its twins are collected
        (:mod:`._loop_clients`), so no SDK finalizer later tries to close it on a loop that
        is gone."""
        return self._clients.for_running_loop()

    def _make_client(self) -> Any:
        """Import the SDK and build a client (the SDK loads here, never at import)."""
        raise NotImplementedError

    def for_another_run(self: _Twin) -> _Twin:
        """This model for one more run beside those already using it: the same model id,
        key, base URL, retry policy and SDK clients (one per event loop, made once and
        shared), with its own memo of what its last round built. Runs side by side on one
        event loop (``op.evaluate``) then make no client each — building one loads the TLS
        certificates, about 20 ms that hold up every run on the loop — and never reset each
        other's memo."""
        twin = copy.copy(self)
        twin._history = HistoryMemo()  # noqa: SLF001 - a copy of this very class
        return twin

    _warm_up_resource: str = ""
    """The client attribute path a round calls (``"chat.completions"``): SDKs load it lazily."""

    def warm_up(self) -> None:
        """Load the SDK and what translating a request needs, so the first run does not
        wait for them (the notebook calls it on a background thread after ``%load_ext``).
        Builds a client that is never used and a request body that is never sent."""
        client = self._make_client()
        if self._warm_up_resource:
            operator.attrgetter(self._warm_up_resource)(client)
        self._prepare(ModelRequest(messages=[UserMessage(content="warm-up")]))

    def _secrets(self) -> list[str | None]:
        return [self.__api_key, *(os.environ.get(name) for name in self.key_variables)]

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        """Stream one reply. Retries only while nothing has streamed, announcing each wait
        with a ``retry_wait`` update before it sleeps; never raises for a provider failure
        (``out.fail``); lets ``CancelledError`` through after closing the connection (a
        cancel during a wait ends the sleep at once)."""
        try:
            payload, notices = self._prepare(request)
        except ValueError as error:  # a request we cannot translate (bad image, ...)
            out.fail(*self._format_error(ProviderError(str(error), kind="bad_request"), 0))
            if request.wire is not None:
                request.wire.not_sent(scrub_secrets(str(error), self._secrets()))
            return
        if request.wire is not None:
            request.wire.request(self._wire_body(payload), self.provider, self._secrets())
            out.wire = request.wire
        for notice in notices:
            yield out.notice(f"{self.name}: {notice}")
        retry_number = 0
        while True:
            streamed = False
            if request.wire is not None:
                request.wire.attempt()
            try:
                async with aclosing(self._attempt(payload, out)) as updates:
                    async for update in updates:
                        streamed = True
                        yield update
                read_strict_nulls(out, request.tools)
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every provider failure ends as a message
                failure = exc if isinstance(exc, ProviderError) else self._classify(exc)
                if request.wire is not None:
                    request.wire.failed(
                        status=failure.status, code=failure.code, message=failure.message, body=failure.body
                    )
            wait = None if streamed else self.retry.wait_before(retry_number, failure)
            if wait is None:
                too_long = not streamed and self.retry.waits_too_long(retry_number, failure)
                out.fail(*self._format_error(failure, retry_number, refused_wait=too_long))
                return
            yield out.retry_wait(self._retry_wait(failure, wait, retry_number + 1))
            await asyncio.sleep(wait)
            retry_number += 1

    def _retry_wait(self, failure: ProviderError, wait: float, retry: int) -> RetryWait:
        return RetryWait(
            seconds=wait,
            until=time.time() + wait,
            retry=retry,
            max_retries=self.retry.max_retries,
            reason=retry_reason(failure),
            message=scrub_secrets(failure.message, self._secrets()),
        )

    def _format_error(
        self, error: ProviderError, retries: int, *, refused_wait: bool = False
    ) -> tuple[str, None, ReplyError]:
        """The failed reply's text and fields (as ``out.fail`` takes them, no usage):
        ``<model> failed, HTTP <status>, <code>: <message> (after N retries)``, with
        ``refused_wait`` the wait the server asked for that was longer than
        ``max_retry_after``, for refused credentials where they came from
        (:meth:`_refused_key_hint`), then the SDK's own words; every secret masked."""
        parts = [f"{self.name} failed"]
        if error.status is not None:
            parts.append(f"HTTP {error.status}")
        if error.code:
            parts.append(str(error.code))
        summary = ", ".join(parts) + f": {error.message or 'no message'}"
        if retries:
            summary += f" (after {retries} {'retry' if retries == 1 else 'retries'})"
        if refused_wait and error.retry_after is not None:
            summary += (
                f"; the server asked to wait {wait_text(error.retry_after)} before trying again, longer "
                f"than max_retry_after ({wait_text(self.retry.max_retry_after)}), so the round ended "
                "without waiting"
            )
        if error.kind == "auth":
            summary += self._refused_key_hint()
        secrets = self._secrets()
        summary = scrub_secrets(summary, secrets)
        detail = scrub_secrets(error.detail, secrets) if error.detail else None
        fields = ReplyError(
            kind=error.kind,
            summary=summary,
            detail=detail,
            status=error.status,
            code=error.code,
            retryable=error.retryable,
            provider=self.provider,
        )
        return (summary if detail is None else summary + PROVIDER_SAID + detail), None, fields

    def _refused_key_hint(self) -> str:
        """For credentials the provider refused (HTTP 401/403), which key to check: the first
        of its key variables that is set — and, if a key was given, holds that key — with
        where its value came from (:func:`.._key_sources.origin_of`); else the ``api_key=``
        given to the model; empty when there is neither."""
        for name in self.key_variables:
            value = os.environ.get(name)
            if value and self.__api_key in (None, value):
                return f"; check the key in {name} ({origin_of(name)})"
        return "; check the api_key= given to the model" if self.__api_key else ""

    def _usage(self, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> Usage:
        return make_usage(self.name, input, output, cache_read, cache_write)

    def wire_request(self, request: ModelRequest) -> tuple[JsonObject, list[str]]:
        """The JSON body this model would send for ``request``, built offline by its own
        request code (nothing is sent), and the notices the round would print, each as
        :meth:`stream` words it (``"<model>: <notice>"``)."""
        payload, notices = self._prepare(request)
        return self._wire_body(payload), [f"{self.name}: {notice}" for notice in notices]

    def _wire_body(self, payload: Any) -> JsonObject:
        """The JSON body that goes on the wire for ``payload`` (the SDK is given
        ``payload`` as keyword arguments and sends it as it is, unless a provider says
        otherwise)."""
        return dict(payload)

    @abstractmethod
    def _prepare(self, request: ModelRequest) -> tuple[Any, list[str]]:
        """The request payload for this round, and notices about degraded controls."""

    @abstractmethod
    def _attempt(self, payload: Any, out: MessageBuilder) -> AsyncGenerator[AssistantUpdate, None]:
        """One request: stream into ``out`` and ``finish`` it, or raise. An async generator:
        :meth:`stream` closes it, and with it the connection, when the round is cancelled."""

    @abstractmethod
    def _classify(self, exc: Exception) -> ProviderError:
        """Turn an SDK or transport exception into a :class:`ProviderError`."""


def read_strict_nulls(out: MessageBuilder, tools: list[JsonObject]) -> None:
    """In the reply's calls to strict tools, each ``null`` that stands for an optional
    argument not given (strict mode makes optional properties required and nullable) is
    removed, so the tool's own default applies (:func:`._strict_schema.drop_absent_nulls`)."""
    strict = {spec["name"]: spec.get("parameters") or {} for spec in tools if spec.get("strict")}
    if not strict:
        return
    for call in out.message.tool_calls:
        if call.name in strict:
            drop_absent_nulls(call.arguments, strict[call.name])


def require_module(module: str, provider: str, extra: str | None = None) -> None:
    """Check (without importing it: the SDK loads on the first run) that ``module`` is
    installed; if not, raise the ``ValueError`` :func:`resolve_model` gives for a missing
    optional dependency, with the ``pip install`` line of ``extra`` (default: the extra
    named like ``provider``) that fixes it."""
    if importlib.util.find_spec(module) is None:
        raise ValueError(missing_dependency_message(provider, module, extra))


def make_usage(model_name: str, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> Usage:
    """A :class:`Usage` with ``total_tokens`` summed and ``cost`` from the price table."""
    usage = Usage(
        input=max(0, input or 0),
        output=max(0, output or 0),
        cache_read=max(0, cache_read or 0),
        cache_write=max(0, cache_write or 0),
    )
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    usage.cost = cost_of(model_name, usage)
    return usage


def sampling_fields(
    request: ModelRequest,
    provider: str,
    *,
    temperature: str | None,
    stop: str | None,
    max_temperature: float = 2.0,
) -> tuple[JsonObject, list[str]]:
    """The request's ``temperature`` and ``stop_sequences`` under the provider's field names
    (``temperature`` / ``stop``: ``None`` where the provider, or this request, takes none),
    and a notice for each that was asked for and not sent; a temperature above the
    provider's ``max_temperature`` is sent as that maximum, saying so."""
    fields: JsonObject = {}
    notices: list[str] = []
    if request.temperature is not None:
        if temperature is None:
            notices.append(f"{provider} takes no temperature here: temperature={request.temperature:g} was not sent")
        elif request.temperature > max_temperature:
            fields[temperature] = max_temperature
            notices.append(
                f"{provider} takes a temperature from 0 to {max_temperature:g}: "
                f"temperature={request.temperature:g} was sent as {max_temperature:g}"
            )
        else:
            fields[temperature] = request.temperature
    if request.stop_sequences:
        if stop is None:
            notices.append(
                f"{provider} takes no stop sequences: stop_sequences={list(request.stop_sequences)!r} were not sent"
            )
        else:
            fields[stop] = list(request.stop_sequences)
    return fields, notices
