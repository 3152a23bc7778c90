"""Wire capture: each round's request body as sent and reply frames as received, stored
so that memory grows linearly with a run's length (``Runtime(capture_wire=True)``).

A request carries the whole history, so storing each round's body whole would cost the
square of the run's length. :class:`WireLog` instead stores every distinct message of the
provider's message list (``messages``, ``input`` or ``contents``) once, as masked canonical
JSON keyed by its SHA-256 digest, and every other top-level field of the body the same way
(the tools declared repeat every round: one copy). A round keeps only an envelope: the
field digests, how many leading messages it shares with the previous round's list, and the
digests of the messages after those. :meth:`WireLog.request` rebuilds the whole body.

Stored per round: the envelope (a few hundred bytes plus 64 bytes per *new* message) and
the reply frames (linear in the reply's length). Stored once per run: each distinct
message and field. So the total is linear in the run's length: see
:meth:`WireLog.stored_bytes` and docs/wire.md.

Every string is masked by value (every secret known then, :class:`.._secrets.Secrets`)
when stored, and again when read (a secret remembered later is masked too). Key shapes are
not masked, so the captured body stays equal to what went on the wire.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .._secrets import Secrets
from ._wire_fold import fold_frames

__all__ = ["MESSAGE_FIELDS", "WireLog", "WireRecorder", "to_json_data"]

MESSAGE_FIELDS = {"openai": "messages", "openai-responses": "input", "anthropic": "messages",
                  "gemini": "contents", "bedrock": "messages"}
"""The body field holding the provider's message list, by wire format."""

_DIGEST_BYTES = 64  # a hex SHA-256 digest


def to_json_data(value: Any) -> Any:
    """``value`` as plain JSON data: an SDK object through its ``to_dict()`` (or pydantic
    ``model_dump(mode="json")``), ``bytes`` as base64 text, containers recursively."""
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    elif hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): to_json_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_data(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(value)).decode("ascii")
    return value


@dataclass
class _Round:
    provider: str
    fields: dict[str, str] = field(default_factory=dict)  # top-level field -> digest ("": the message list)
    messages_field: str | None = None
    shared: int = 0        # leading messages equal to the previous captured round's
    previous: int | None = None
    new: list[str] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)  # masked JSON text, in arrival order
    attempts: int = 0
    sent: bool = False


class WireRecorder:
    """What a provider reports for one round: :meth:`request` once, then per attempt
    :meth:`attempt` and :meth:`frame` per stream frame (a retry drops the frames of the
    failed attempt, so the reply is the one the round ended with)."""

    def __init__(self, log: WireLog, number: int) -> None:
        self._log, self._number = log, number
        self._secrets = Secrets.now()

    def request(self, body: dict[str, Any], provider: str, secrets: Iterable[str | None] = ()) -> None:
        """Store ``body``, the JSON data that goes on the wire in ``provider``'s wire
        format (a key of :data:`MESSAGE_FIELDS`), masked by value."""
        self._secrets = Secrets.now(secrets)
        self._log._store_request(self._number, provider, body, self._secrets)

    def attempt(self) -> None:
        """A new attempt starts: forget the frames of the one before."""
        entry = self._log._rounds[self._number]
        entry.attempts += 1
        entry.frames = []

    def frame(self, frame: Any) -> None:
        """Keep one stream frame (an SDK event object or parsed JSON)."""
        data = self._secrets.mask_data(to_json_data(frame), shapes=False)
        self._log._rounds[self._number].frames.append(json.dumps(data, ensure_ascii=False))


class WireLog:
    """One run's captured rounds (numbered from 1 as in every view)."""

    def __init__(self) -> None:
        self._blobs: dict[str, str] = {}
        self._rounds: dict[int, _Round] = {}
        self._last: tuple[int, list[str]] | None = None  # the last captured round and its message digests

    def recorder(self, number: int) -> WireRecorder:
        """The recorder for round ``number`` (a round the model sends nothing for, as
        with a scripted or replayed model, stays uncaptured)."""
        self._rounds[number] = _Round("")
        return WireRecorder(self, number)

    @property
    def rounds(self) -> list[int]:
        """The rounds whose request was captured, in order."""
        return [n for n, entry in self._rounds.items() if entry.sent]

    def _blob(self, value: Any, secrets: Secrets) -> str:
        text = json.dumps(secrets.mask_data(to_json_data(value), shapes=False), ensure_ascii=False,
                          sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self._blobs.setdefault(digest, text)
        return digest

    def _store_request(self, number: int, provider: str, body: dict[str, Any], secrets: Secrets) -> None:
        entry = self._rounds[number]
        entry.provider = provider
        key = MESSAGE_FIELDS.get(provider)
        entry.messages_field = key if isinstance(body.get(key or ""), list) else None
        for name, value in body.items():  # the message list's place kept with an empty digest
            entry.fields[name] = "" if name == entry.messages_field else self._blob(value, secrets)
        if entry.messages_field is not None:
            digests = [self._blob(m, secrets) for m in body[entry.messages_field]]
            if self._last is not None:
                before = self._last[1]
                shared = 0
                while shared < min(len(before), len(digests)) and before[shared] == digests[shared]:
                    shared += 1
                entry.previous, entry.shared = self._last[0], shared
            entry.new = digests[entry.shared:]
            self._last = (number, digests)
        elif self._last is not None:
            entry.previous = self._last[0]
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
            digests = digests[:link.shared] + link.new
        return digests

    def request(self, number: int) -> dict[str, Any]:
        """Round ``number``'s request body rebuilt whole (fields in the order sent, the
        message list in place), masked with every secret known now."""
        entry = self._rounds[number]
        body = {name: json.loads(self._blobs[digest]) if digest else None for name, digest in entry.fields.items()}
        if entry.messages_field is not None:
            body[entry.messages_field] = [json.loads(self._blobs[d]) for d in self._digests(number)]
        return Secrets.now().mask_data(body, shapes=False)

    def reply(self, number: int) -> dict[str, Any]:
        """Round ``number``'s reply: ``final`` (the frames folded into the provider's
        non-streamed response shape), ``frames`` (as received) and ``attempts``."""
        entry = self._rounds[number]
        frames = [json.loads(text) for text in entry.frames]
        reply = {"provider": entry.provider, "final": fold_frames(entry.provider, frames), "frames": frames,
                 "attempts": entry.attempts}
        return Secrets.now().mask_data(reply, shapes=False)

    def new_messages(self, number: int) -> tuple[int, int]:
        """``(shared, total)``: how many leading messages round ``number`` shares with the
        round captured before it, and how many its list holds."""
        entry = self._rounds[number]
        return entry.shared, entry.shared + len(entry.new)

    def changed_fields(self, number: int) -> list[str]:
        """The top-level fields of round ``number``'s body (the message list aside) that
        differ from, or were absent in, the round captured before it (all of them for the
        first)."""
        entry = self._rounds[number]
        before = self._rounds[entry.previous].fields if entry.previous is not None else {}
        return [name for name, digest in entry.fields.items() if digest and before.get(name) != digest]

    def stored_bytes(self) -> int:
        """The size of what is stored: every blob's text, each round's envelope (field
        names and digests, the new messages' digests) and its frames' text."""
        total = sum(len(k) + len(v) for k, v in self._blobs.items())
        for entry in self._rounds.values():
            total += 64 + sum(len(name) + _DIGEST_BYTES for name in entry.fields)
            total += _DIGEST_BYTES * len(entry.new) + sum(len(f) for f in entry.frames)
        return total


def wire_round(log: WireLog | None, number: int, model_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(request, reply)`` of round ``number`` of a run whose log is ``log`` (``None``:
    the run did not capture). Raises ``ValueError`` saying why there is nothing: the run
    did not capture (pass ``capture_wire=True``), its model sends nothing over a wire (a
    replayed, scripted or offline model), or ``number`` is not a captured round (naming
    the valid ones)."""
    if log is None:
        raise ValueError("this run did not capture the wire: pass capture_wire=True to the Runtime "
                         "(Runtime(..., capture_wire=True)) and run again")
    captured = log.rounds
    if not captured:
        if model_name.startswith("replay:"):
            raise ValueError(f"{model_name} plays replies back from a cassette, which holds each reply and a "
                             "summary of its request (the tool names and the last user text), not the request "
                             "body; nothing was sent, so there is no wire to show (docs/replay.md)")
        raise ValueError(f"nothing was captured: the model {model_name} sends no request over a wire "
                         "(only the provider models do)")
    if number not in captured:
        raise ValueError(f"round {number!r} was not captured; the captured rounds are "
                         f"{_ranges(captured)} (numbered from 1)")
    return log.request(number), log.reply(number)


def _ranges(numbers: list[int]) -> str:
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]} to {numbers[-1]}"
    return ", ".join(map(str, numbers))
