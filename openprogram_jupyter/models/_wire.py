"""Wire capture: each round's request body as sent and reply frames as received, stored
so that memory grows linearly with a run's length (``Runtime(capture_wire=True)``).

A request carries the whole history, so storing each round's body whole would cost the
square of the run's length. :class:`WireLog` instead stores every distinct message of the
provider's message list (``messages``, ``input`` or ``contents``) once, as masked compact
JSON (keys in the order sent) keyed by its SHA-256 digest, and every other top-level field
of the body the same way (the tools declared repeat every round: one copy). A round keeps
only an envelope: the field digests, how many leading messages it shares with the previous
round's list, and the digests of the messages after those. :meth:`WireLog.request`
rebuilds the whole body.

Every round, whatever its model, also keeps what the loop asked in its own terms
(:class:`AskedRequest`: the conversation's length, the system prompt, the tools, the
controls; the messages themselves are the run's, shared), so
:meth:`WireLog.request_as` can rebuild the round for any provider, offline. A round
replayed from a cassette keeps the recorded reply, and its request rebuilt for the model
the cassette was recorded from (a cassette holds only a summary of each request).

Stored per round: the envelope (a few hundred bytes plus 64 bytes per *new* message), the
asked request (a few pointers), the reply frames (linear in the reply's length) and the
error of each failed attempt. Stored once per run: each distinct message and field. So the
total is linear in the run's length: see :meth:`WireLog.stored_bytes` and docs/wire.md.

Every string is masked by value (every secret known then, :class:`.._secrets.Secrets`)
when stored, and again when read (a secret remembered later is masked too). Key shapes are
not masked, so the captured body stays equal to what went on the wire.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core._json import JsonObject, valid_text
from ..core._secrets import Secrets
from ._incremental import common_prefix
from ._json_data import to_json_data
from ._wire_preview import wire_preview
from .base import ModelRequest

__all__ = ["AskedRequest", "WireLog", "WireRecorder", "rebuilt_request", "wire_round"]


def fold_frames(provider: str, frames: list[Any]) -> JsonObject | None:
    """The final object of ``provider``'s wire format folded from ``frames`` (by its
    descriptor's ``fold_frames``; ``None`` for a provider that declares none)."""
    from .providers import provider_info

    info = provider_info(provider)
    folder = info.fold_frames if info is not None else None
    return folder(frames) if folder is not None and frames else None


def _messages_field(provider: str) -> str | None:
    """The key of ``provider``'s request body that holds the conversation (its descriptor's
    ``wire_messages``), or ``None`` when it sends nothing over a wire."""
    from .providers import provider_info

    info = provider_info(provider)
    return info.wire_messages if info is not None else None


"""The body field holding the provider's message list, by wire format."""

_DIGEST_BYTES = 64  # a hex SHA-256 digest
_ENVELOPE_BYTES = 64  # what a round's fixed fields are counted as in stored_bytes


@dataclass(frozen=True, slots=True)
class AskedRequest:
    """One round's request in the loop's own terms: a :class:`ModelRequest` without its
    wire. ``conversation`` is the run's own list of messages (shared, never copied; the
    loop only appends to it), of which the round saw the first ``length``."""

    conversation: Sequence[Any]
    length: int
    system: str | None
    tools: tuple[JsonObject, ...]
    tool_choice: Any
    parallel_tool_calls: bool | None
    menu_explicit: bool
    allowed_tools: tuple[str, ...] | None = None
    deferred_tools: tuple[JsonObject, ...] = ()
    provider_compaction: int | None = None

    def model_request(self) -> ModelRequest:
        """The round's :class:`ModelRequest` again, as the model was handed it."""
        return ModelRequest(
            messages=list(self.conversation[: self.length]),
            system=self.system,
            tools=list(self.tools),
            tool_choice=self.tool_choice,
            parallel_tool_calls=self.parallel_tool_calls,
            menu_explicit=self.menu_explicit,
            allowed_tools=None if self.allowed_tools is None else list(self.allowed_tools),
            deferred_tools=list(self.deferred_tools),
            provider_compaction=self.provider_compaction,
        )


@dataclass(slots=True)
class _Round:
    asked: AskedRequest
    provider: str = ""
    source: Literal["wire", "cassette"] = "wire"
    fields: dict[str, str] = field(default_factory=dict)  # top-level field -> digest ("": the message list)
    messages_field: str | None = None
    shared: int = 0  # leading messages equal to the previous captured round's
    previous: int | None = None
    new: list[str] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)  # masked JSON text, in arrival order
    errors: list[str] = field(default_factory=list)  # masked JSON text, one per failed attempt
    attempts: int = 0
    sent: bool = False
    recorded: str | None = None  # a replayed round: the cassette's reply (masked JSON text)
    no_request: str | None = None  # why a round has no request (a replayed or untranslatable one)


class WireRecorder:
    """What a model reports for one round. A provider: :meth:`request` once (or
    :meth:`not_sent`), then per attempt :meth:`attempt`, :meth:`frame` per stream frame and
    :meth:`failed` when the attempt fails (a retry drops the frames of the failed attempt,
    so the reply is the one the round ended with). A replayed model: :meth:`replayed`."""

    def __init__(self, log: WireLog, number: int) -> None:
        self._log, self._number = log, number
        self._secrets = Secrets.now()

    def request(self, body: JsonObject, provider: str, secrets: Iterable[str | None] = ()) -> None:
        """Store ``body``, the JSON data that goes on the wire in ``provider``'s wire
        format (a provider's prefix), masked by value."""
        self._secrets = Secrets.now(secrets)
        self._log.store_request(self._number, provider, body, self._secrets)

    def attempt(self) -> None:
        """A new attempt starts: forget the frames of the one before."""
        entry = self._log.entry(self._number)
        entry.attempts += 1
        entry.frames = []

    def frame(self, frame: object) -> None:
        """Keep one stream frame (an SDK event object or parsed JSON)."""
        self._log.entry(self._number).frames.append(self._text(frame))

    def failed(self, *, status: int | None, code: str | None, message: str, body: object = None) -> None:
        """The current attempt failed: keep the HTTP status, the provider's error type and
        message, and the error body it sent (``None`` when it sent none, as for a cut
        connection)."""
        entry = self._log.entry(self._number)
        entry.errors.append(
            self._text({"attempt": entry.attempts, "status": status, "code": code, "message": message, "body": body})
        )

    def not_sent(self, reason: str) -> None:
        """The provider could not build this round's request (``reason`` says why), so
        nothing was sent."""
        self._log.entry(self._number).no_request = f"nothing was sent: {reason}"

    def replayed(self, recorded_model: str | None, reply: Any) -> None:
        """This round's ``reply`` was played back from a cassette recorded from
        ``recorded_model``: keep it, and the request rebuilt for that model from the run's
        messages (a cassette holds none). A model the request cannot be rebuilt for leaves
        the round without one, saying why."""
        entry = self._log.entry(self._number)
        entry.recorded = self._text(reply)
        provider, _, model_id = (recorded_model or "").partition(":")
        if _messages_field(provider) is None or not model_id:
            entry.no_request = (
                f"the cassette was recorded from {recorded_model or 'an unnamed model'}, which "
                "sends nothing over a wire, so there is no request to rebuild"
            )
            return
        try:
            body = wire_preview(entry.asked.model_request(), f"{provider}:{model_id}")
        except (TypeError, ValueError) as error:
            entry.no_request = f"the request could not be rebuilt for {recorded_model}: {error}"
            return
        self._log.store_request(self._number, provider, body, self._secrets)
        entry.source, entry.attempts = "cassette", 1

    def _text(self, value: object) -> str:
        """``value`` (a frame, an error, a replayed reply: what arrived) as masked JSON text,
        any lone surrogate in it made U+FFFD (:func:`..._json.valid_text`)."""
        return valid_text(json.dumps(self._secrets.mask_data(to_json_data(value), shapes=False), ensure_ascii=False))


class WireLog:
    """One run's captured rounds (numbered from 1 as in every view)."""

    def __init__(self) -> None:
        self._blobs: dict[str, str] = {}  # digest -> masked JSON text
        self._digest_objects: dict[str, str] = {}  # digest -> the same digest, the one object kept for it
        self._rounds: dict[int, _Round] = {}
        self._last: int | None = None  # the last captured round with a message list
        self._tools: tuple[object, tuple[JsonObject, ...]] = (None, ())  # the last tools list seen, kept
        # the last request's message list, the secret forms it was masked with, its digests
        self._last_messages: tuple[list[Any], tuple[str, ...], list[str]] = ([], (), [])

    def recorder(self, number: int, request: ModelRequest) -> WireRecorder:
        """The recorder for round ``number``, which the loop asks ``request``. A round
        whose model sends nothing (a scripted or offline model) keeps only ``request``."""
        source, tools = self._tools
        if request.tools is not source:  # the menu hands out the same list while it is unchanged
            tools = tuple(request.tools)
            self._tools = (request.tools, tools)
        asked = AskedRequest(
            request.messages,
            len(request.messages),
            request.system,
            tools,
            request.tool_choice,
            request.parallel_tool_calls,
            request.menu_explicit,
            None if request.allowed_tools is None else tuple(request.allowed_tools),
            tuple(request.deferred_tools),
            request.provider_compaction,
        )
        self._rounds[number] = _Round(asked)
        return WireRecorder(self, number)

    @property
    def rounds(self) -> list[int]:
        """The rounds that have a request to show (sent, or rebuilt for a replayed round), in order."""
        return [n for n, entry in self._rounds.items() if entry.sent]

    @property
    def asked_rounds(self) -> list[int]:
        """Every round the loop asked a model, in order (whatever the model)."""
        return list(self._rounds)

    def _blob(self, value: object, secrets: Secrets) -> str:
        # Keys in the order sent (the same code builds the same message with its keys in the
        # same order, so equal messages still share one digest).
        text = json.dumps(
            secrets.mask_data(to_json_data(value), shapes=False), ensure_ascii=False, separators=(",", ":")
        )
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if digest not in self._blobs:
            self._blobs[digest] = text
            self._digest_objects[digest] = digest
        return self._digest_objects[digest]  # one object per distinct digest, however often it recurs

    def _message_digests(self, messages: list[Any], secrets: Secrets) -> tuple[list[str], int]:
        """The digests of ``messages`` (:meth:`_blob`), and how many of them lead the last
        request's digests too. The leading messages that are the same objects as those of
        the last request stored, masked with the same secrets, keep their digests from then
        (a provider reuses the messages it built, :mod:`._incremental`): else every round
        would encode and hash the whole history. The kept lists are extended in place, not
        copied (a run's rounds are stored one after another)."""
        last_messages, forms, digests = self._last_messages
        reused = common_prefix(last_messages, messages) if forms == secrets.forms else 0
        new = [self._blob(m, secrets) for m in messages[reused:]]
        shared = reused + common_prefix(digests[reused:], new)  # equal digests are one object (_blob)
        del last_messages[reused:], digests[reused:]
        last_messages += messages[reused:]
        digests += new
        self._last_messages = (last_messages, secrets.forms, digests)
        return digests, shared

    def entry(self, number: int) -> _Round:
        """What is kept of round ``number`` (its recorder writes to it)."""
        return self._rounds[number]

    def store_request(self, number: int, provider: str, body: JsonObject, secrets: Secrets) -> None:
        """Keep round ``number``'s request ``body`` (in ``provider``'s wire format), masked
        with ``secrets``: each field once, the message list as digests of its messages, the
        ones it shares with the round before kept once."""
        entry = self._rounds[number]
        entry.provider = provider
        key = _messages_field(provider)
        entry.messages_field = key if isinstance(body.get(key or ""), list) else None
        for name, value in body.items():  # the message list's place kept with an empty digest
            entry.fields[name] = "" if name == entry.messages_field else self._blob(value, secrets)
        if entry.messages_field is not None:
            digests, shared = self._message_digests(body[entry.messages_field], secrets)
            if self._last is not None:
                entry.previous, entry.shared = self._last, shared
            entry.new = digests[entry.shared :]
            self._last = number
        elif self._last is not None:
            entry.previous = self._last
        entry.sent = True

    # -- reading -------------------------------------------------------------------------

    def _digests(self, number: int) -> list[str]:
        chain: list[_Round] = []
        entry: _Round | None = self._rounds[number]
        while entry is not None:
            chain.append(entry)
            entry = self._rounds[entry.previous] if entry.previous is not None and entry.shared else None
        digests: list[str] = []
        for link in reversed(chain):
            digests = digests[: link.shared] + link.new
        return digests

    def request(self, number: int) -> JsonObject:
        """Round ``number``'s request body rebuilt whole (fields in the order sent, the
        message list in place), masked with every secret known now."""
        entry = self._rounds[number]
        body = {name: json.loads(self._blobs[digest]) if digest else None for name, digest in entry.fields.items()}
        if entry.messages_field is not None:
            body[entry.messages_field] = [json.loads(self._blobs[d]) for d in self._digests(number)]
        return Secrets.now().mask_data(body, shapes=False)

    def reply(self, number: int) -> JsonObject:
        """Round ``number``'s reply: ``provider`` (its wire format), ``source`` (``"wire"``;
        ``"cassette"`` for a replayed round), ``final`` (the frames folded into the
        provider's non-streamed response; a replayed round's recorded message), ``frames``
        (as received), ``attempts`` and ``errors`` (one per failed attempt: ``attempt``,
        ``status``, ``code``, ``message``, ``body``). A replayed round adds ``note``."""
        entry = self._rounds[number]
        frames = mask_split_secrets([json.loads(text) for text in entry.frames], Secrets.now())
        reply: JsonObject = {
            "provider": entry.provider,
            "source": entry.source,
            "final": None,
            "frames": frames,
            "attempts": entry.attempts,
            "errors": [json.loads(e) for e in entry.errors],
        }
        if entry.recorded is not None:
            reply["final"] = json.loads(entry.recorded)
            reply["note"] = (
                "replayed from a cassette: the reply is the recorded message (this package's form, not "
                "the provider's wire form); the request was rebuilt from the run's messages, because a "
                "cassette keeps only the tool names and the last user text of each request"
            )
        else:
            reply["final"] = fold_frames(entry.provider, frames)
        return Secrets.now().mask_data(reply, shapes=False)

    def request_as(self, number: int, model: str) -> JsonObject:
        """The body ``model`` (``"provider:model_id"``, or a provider's prefix for its default
        model) would be sent for round ``number``, built offline from what the loop asked
        (:func:`~._wire_preview.wire_preview`), masked with every secret known now."""
        return Secrets.now().mask_data(wire_preview(self._rounds[number].asked.model_request(), model), shapes=False)

    def new_messages(self, number: int) -> tuple[int, int]:
        """``(shared, total)``: how many leading messages round ``number`` shares with the
        round captured before it, and how many its list holds."""
        entry = self._rounds[number]
        return entry.shared, entry.shared + len(entry.new)

    def messages_field(self, number: int) -> str | None:
        """The body field of round ``number`` that holds the message list (``None``: none)."""
        return self._rounds[number].messages_field

    def changed_fields(self, number: int) -> list[str]:
        """The top-level fields of round ``number``'s body (the message list aside) that
        differ from, or were absent in, the round captured before it (all of them for the
        first)."""
        entry = self._rounds[number]
        before = self._rounds[entry.previous].fields if entry.previous is not None else {}
        return [name for name, digest in entry.fields.items() if digest and before.get(name) != digest]

    def stored_bytes(self) -> int:
        """The size of what is stored: every blob's text, each round's envelope (field
        names and digests, the new messages' digests), its frames' and errors' text and a
        replayed round's recorded reply."""
        total = sum(len(k) + len(v) for k, v in self._blobs.items())
        for entry in self._rounds.values():
            total += _ENVELOPE_BYTES + sum(len(name) + _DIGEST_BYTES for name in entry.fields)
            total += _DIGEST_BYTES * len(entry.new) + sum(map(len, entry.frames)) + sum(map(len, entry.errors))
            total += len(entry.recorded or "")
        return total

    def why_no_request(self, number: int) -> str | None:
        """Why round ``number`` has no request to show (``None`` when it has one)."""
        entry = self._rounds[number]
        if entry.sent:
            return None
        return entry.no_request or "its model sends no request over a wire (only the provider models do)"


def wire_round(log: WireLog | None, number: int, model_name: str) -> tuple[JsonObject, JsonObject]:
    """``(request, reply)`` of round ``number`` of a run whose log is ``log`` (``None``:
    the run did not capture). Raises ``ValueError`` saying why there is nothing: the run
    did not capture (pass ``capture_wire=True``), the round's model sends nothing over a
    wire (a scripted or offline model; a cassette recorded from one), or ``number`` is
    not a round of the run (naming the valid ones)."""
    _check_round(log, number)
    assert log is not None
    problem = log.why_no_request(number)
    if problem is not None:
        raise ValueError(
            f"round {number} of this run ({model_name}) has no wire: {problem}. "
            f"run.request_as({number}, 'openai') shows what a provider would be sent for it"
        )
    return log.request(number), log.reply(number)


def rebuilt_request(log: WireLog | None, number: int, model: str) -> JsonObject:
    """:meth:`WireLog.request_as` of a run's log, or ``ValueError`` saying why not (as
    :func:`wire_round`); a model that sends nothing over a wire raises ``TypeError``."""
    _check_round(log, number)
    assert log is not None
    return log.request_as(number, model)


def _check_round(log: WireLog | None, number: int) -> None:
    if log is None:
        raise ValueError(
            "this run did not capture the wire: pass capture_wire=True to the Runtime "
            "(Runtime(..., capture_wire=True), or %%agent --wire) and run again"
        )
    asked = log.asked_rounds
    if number not in asked:
        rounds = (
            f"the captured rounds are {_ranges(asked)} (numbered from 1)" if asked else "it asked the model nothing"
        )
        raise ValueError(f"round {number!r} was not captured; {rounds}")


def _ranges(numbers: list[int]) -> str:
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]} to {numbers[-1]}"
    return ", ".join(map(str, numbers))


def mask_split_secrets(frames: list[Any], secrets: Secrets) -> list[Any]:
    """``frames`` (parsed JSON, in arrival order) with every known value masked also where
    a stream cut it across frames.

    Each frame was masked alone when it arrived, so a key the model streamed back in
    pieces (``"sk-pr"``, ``"oj-ab"``…) survived in them, and joining the deltas gave it
    back. Strings at the same place in different frames (``delta.text``,
    ``choices.0.delta.tool_calls.0.function.arguments``…) are one stream: each stream is
    masked joined (:meth:`~.._secrets.Secrets.mask_pieces`) and written back, in place.
    """
    if not secrets:
        return frames
    streams: dict[tuple[Any, ...], list[tuple[Any, Any]]] = {}
    for frame in frames:
        _collect_strings(frame, (), streams)
    for places in streams.values():
        if len(places) > 1:
            masked = secrets.mask_pieces([container[key] for container, key in places])
            for (container, key), text in zip(places, masked, strict=True):
                container[key] = text
    return frames


def _collect_strings(
    value: object, path: tuple[Any, ...], streams: dict[tuple[Any, ...], list[tuple[Any, Any]]]
) -> None:
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(item, str):
            streams.setdefault((*path, key), []).append((value, key))
        else:
            _collect_strings(item, (*path, key), streams)
