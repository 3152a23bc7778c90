"""A judge's cassette keyed by the row it graded, so judges can grade side by side.

Judges of an evaluation grade concurrently and finish in any order; a cassette kept in the
order of its rounds would replay a verdict on the wrong row. Here every round carries the
key of the grading it belongs to — an evaluation row's ``(prompt, model, variant,
repeat)``, or ``["call", n]`` for the n-th direct ``judge(run)`` — in its request summary
(``"request": {"tools": [], "last_user_text": ..., "key": [...]}``), and replaying gives
each grading the rounds recorded under its own key, whatever order they are asked in.

The file is an ordinary cassette (docs/replay.md), its rounds sorted by key, so the same
evaluation writes the same file whatever order its judges finished in.
"""

from __future__ import annotations

import copy
import json
import math
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ...core._json import JsonObject
from ...core.events import AssistantUpdate
from ...models import Model
from ...models.base import MessageBuilder, ModelRequest
from ...models.replay import RecordingModel, ReplayModel, save_cassette

__all__ = ["JudgeTape", "keyed_replay", "replay_is_keyed"]

Key = list[Any]
_SAVE_EVERY_SECONDS = 0.5  # a judge that grades thousands of rows does not rewrite the file after each


class JudgeTape:
    """Where a judge records: ``recorder(key, model)`` wraps the model of one grading;
    each of its rounds is kept under ``key``. The file is rewritten (atomically) at most
    every half second while verdicts come in, and by :meth:`flush`."""

    def __init__(self, path: str | os.PathLike[str], model_name: str) -> None:
        self.path = Path(path)
        self.model_name = model_name
        self._rounds: dict[str, list[JsonObject]] = {}
        self._lock = threading.Lock()
        self._saved_at = -math.inf  # never: the first verdict is written at once (monotonic time may start near 0)

    def recorder(self, key: Key, model: Model) -> Model:
        """``model`` for the grading under ``key``: it streams as ``model`` and records here."""
        return _KeyedRecording(model, self, key)

    def put(self, key: Key, rounds: list[JsonObject]) -> None:
        """Keep ``rounds`` as the grading under ``key`` (replacing what it had)."""
        with self._lock:
            self._rounds[json.dumps(key, ensure_ascii=False)] = [
                {**entry, "request": {**entry["request"], "key": key}} for entry in rounds
            ]
            due = time.monotonic() - self._saved_at >= _SAVE_EVERY_SECONDS
        if due:
            self.flush()

    def flush(self) -> None:
        """Write every round recorded so far, sorted by key, numbered in that order."""
        with self._lock:
            ordered = [entry for name in sorted(self._rounds) for entry in self._rounds[name]]
            rounds = [{**entry, "round": number} for number, entry in enumerate(ordered, 1)]
            self._saved_at = time.monotonic()
            save_cassette(self.path, self.model_name, rounds)


class _KeyedRecording(RecordingModel):
    """A :class:`RecordingModel` that hands its rounds to a :class:`JudgeTape` under one key."""

    def __init__(self, inner: Model, tape: JudgeTape, key: Key) -> None:
        super().__init__(inner, tape.path)
        self._tape = tape
        self._key = key

    def _save(self) -> None:
        self._tape.put(self._key, self.rounds)


def replay_is_keyed(model: ReplayModel) -> bool:
    """True when every round of the cassette carries a key (it was recorded by a judge)."""
    return bool(model.rounds) and all("key" in request for request, _ in model.rounds)


def keyed_replay(model: ReplayModel, key: Key) -> Model:
    """A replay of the rounds recorded under ``key`` alone. With none, a model whose
    round fails saying the cassette holds no verdict for that key."""
    rounds = [(request, reply) for request, reply in model.rounds if request.get("key") == key]
    if not rounds:
        return _NoVerdict(model, key)
    mine = copy.copy(model)
    mine.rounds, mine.played = rounds, 0
    return mine


class _NoVerdict(Model):
    """What a keyed replay gives a row it holds no verdict for: a failed round saying so."""

    def __init__(self, replay: ReplayModel, key: Key) -> None:
        self.name = replay.name
        self._path = replay.path
        self._key = key

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        out.fail(
            f"replay {self._path}: the recording holds no verdict for {json.dumps(self._key, ensure_ascii=False)}"
            " — it graded other runs (another prompt, model, variant or repeat)",
            kind="replay",
        )
        return
        yield  # an async generator that yields nothing
