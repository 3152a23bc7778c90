"""A round's request built from what the round before it built, so that a round's cost
does not grow with the history.

Every round sends the whole history, and most of it is what the round before sent.
:class:`HistoryMemo` (one per provider model) keeps, from the last round it built:

- the history's *closed* part — every message before the last group (the last user
  message, or the last assistant message and the results after it) — as given, and
- the provider's wire messages for that part (``step`` applied to each entry of it
  paired, :func:`._history.paired_history`).

The next round's history starts with the same message objects (the loop only appends to
its conversation), checked by identity, so only what is new is paired and converted; the
last group is converted every round, since its results are still coming in. A history
that does not start with the remembered part (another run, a fork) is built from the
start. Wire messages are never changed once built: a ``step`` that merges into the
previous message (:func:`._history.append_merged`) replaces it with a copy, and so must
anything that marks the finished list (prompt-cache points).

:meth:`HistoryMemo.encode` encodes a body whose wire messages begin with those it encoded
last (the same objects) by joining their JSON bytes, kept from then, into the rest of the
body encoded anew. The bytes are what ``json.dumps(body, ensure_ascii=False, separators=(",", ":"),
allow_nan=False)`` gives: the SDKs' own encoding.

The memo's lists are extended in place, not copied each round (every copy of a long
history's references touches thousands of objects). A model used by two runs at once stays
correct: the lists are read and extended under a lock, a caller gets a copy, and a round
whose step fails forgets them; the two runs only find less to reuse.
"""

from __future__ import annotations

import inspect
import json
import operator
import threading
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from ..core._json import JsonObject
from ..core.messages import ToolResultMessage, UserMessage
from ._history import AssistantTurn, paired_history

__all__ = ["HistoryMemo", "common_prefix", "encode_json", "join_list", "takes_raw_bodies"]

Step = Callable[[list[JsonObject], "UserMessage | AssistantTurn"], None]

_PLACEHOLDER = f"op-wire-messages-{uuid.uuid4().hex}"


def encode_json(value: Any) -> bytes:
    """``value`` as the SDKs encode a request body: UTF-8, compact, no NaN."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


class HistoryMemo:
    """What the last round built (see the module's docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # held while the lists below are read or extended
        self._sources: list[Any] = []  # the closed part of the history, as given
        self._wire: list[JsonObject] = []  # its wire messages
        self._same: JsonObject = {}
        self._items: list[object] = []  # the list encoded last
        self._parts: list[bytes] = []  # its elements' JSON

    def build(self, messages: list[Any], step: Step) -> list[JsonObject]:
        """The wire messages of ``messages``: ``step(out, entry)`` appends one paired entry's
        wire messages to ``out``, replacing (never changing) any message already in it."""
        closed = len(messages)
        while closed > 0 and isinstance(messages[closed - 1], ToolResultMessage):
            closed -= 1
        closed = max(closed - 1, 0)  # the last group starts at the last message that is not a result
        with self._lock:
            wire = self._extend(messages, closed, step)
        for entry in paired_history(messages[closed:]):
            step(wire, entry)
        return wire

    def _extend(self, messages: list[Any], closed: int, step: Step) -> list[JsonObject]:
        """Bring the memo to ``messages[:closed]`` and return a copy of its wire messages
        (``messages`` a list: its slice compares with the memo's, element by element)."""
        reused = len(self._sources)
        if reused > closed or messages[:reused] != self._sources:
            self._sources, self._wire, reused = [], [], 0
        try:
            for entry in paired_history(messages[reused:closed]):
                step(self._wire, entry)
        except BaseException:  # half-extended lists would no longer match
            self._sources, self._wire = [], []
            raise
        self._sources += messages[reused:closed]
        return list(self._wire)

    def same(self, value: JsonObject) -> JsonObject:
        """``value``, or the equal object given here last time: a message built anew each
        round (a system prompt) stays the object :meth:`encode` has already encoded."""
        if value != self._same:
            self._same = value
        return self._same

    def encode_items(self, items: list[Any], encode: Callable[[Any], bytes]) -> list[bytes]:
        """``encode`` of each of ``items``: the leading ones that are the same objects as
        those of the list encoded last keep their bytes from then; the rest are encoded now."""
        with self._lock:
            return list(self._encode_items(items, encode))

    def _encode_items(self, items: list[Any], encode: Callable[[Any], bytes]) -> list[bytes]:
        """:meth:`encode_items`, returning the memo's own list (read it under the lock)."""
        kept = common_prefix(self._items, items)
        del self._items[kept:], self._parts[kept:]
        self._parts += [encode(item) for item in items[kept:]]  # all encoded before any is kept
        self._items += items[kept:]
        return self._parts

    def encode(self, body: JsonObject, field: str) -> bytes:
        """``body`` as JSON bytes (:func:`encode_json`). Of ``body[field]`` (a list), the
        leading elements that are the same objects as those of the list encoded last keep
        their bytes from then; the rest are encoded now."""
        head, tail = encode_json({**body, field: _PLACEHOLDER}).split(b'"' + _PLACEHOLDER.encode() + b'"', 1)
        with self._lock:
            return join_list(head, self._encode_items(body[field], encode_json), b",", tail)


def join_list(head: bytes, parts: list[bytes], separator: bytes, tail: bytes) -> bytes:
    """``head + b"[" + separator.join(parts) + b"]" + tail`` in one join, the body's only
    copy of the history's bytes (joining the parts first made two, and each fresh buffer of
    a long history costs its page faults): the ends are joined to the first and last part
    for the moment of the join, and ``parts`` is left as it was."""
    if not parts:
        return head + b"[]" + tail
    first, last = parts[0], parts[-1]
    parts[0] = head + b"[" + parts[0]
    parts[-1] += b"]" + tail
    joined = separator.join(parts)
    parts[0], parts[-1] = first, last
    return joined


def common_prefix(before: Sequence[object], now: Sequence[object]) -> int:
    """How many leading elements of ``now`` are the very objects ``before`` holds there."""
    same = list(map(operator.is_, before, now))  # at C speed: no Python step per element
    return same.index(False) if False in same else len(same)


_RAW_BODIES: dict[type, bool] = {}  # SDK client class -> whether its post() takes content=


def takes_raw_bodies(client: Any) -> bool:
    """Whether ``client`` (an ``openai`` or ``anthropic`` async client) can send a body we
    encoded: its generic ``post`` takes ``content=`` (bytes sent as they are, with the
    client's headers, authentication and stream parsing). Older SDK releases cannot."""
    kind = type(client)
    if kind not in _RAW_BODIES:
        _RAW_BODIES[kind] = "content" in inspect.signature(kind.post).parameters
    return _RAW_BODIES[kind]
