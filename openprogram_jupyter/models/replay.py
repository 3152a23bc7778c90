"""Cassettes: record a model's replies to a JSON file, and play them back with no network.

``Runtime(record="run.json")`` wraps its model in :class:`RecordingModel`: every round's
reply is saved, with the tool names and the last user text of the request that produced
it. ``Runtime(model="replay:run.json")`` is :class:`ReplayModel`: it streams the recorded
replies back in order while the loop runs the real tools again, so a notebook replays a
real model's run deterministically (teaching notebooks, CI).

A cassette is readable JSON::

    {"cassette": "openprogram-jupyter", "version": 1, "model": "openai:gpt-4.1-mini",
     "rounds": [{"round": 1,
                 "request": {"tools": ["add"], "last_user_text": "What is 1 + 2?"},
                 "reply": {<the AssistantMessage, as model_dump(mode="json")>}}, ...]}

Secrets are never written: the Runtime's ``api_key``, the values of every provider's key
variables (:data:`openprogram_jupyter.models.providers.SECRET_ENV_VARS`: ``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``, ...) and anything
shaped like a key or an auth header are masked as ``***`` in every string of the file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core._files import write_atomically
from ..core._json import JsonObject
from ..core._secrets import Secrets, remember
from ..core.errors import CassetteError
from ..core.events import AssistantUpdate
from ..core.messages import AssistantMessage, UserMessage, dump_message
from ._json_depth import nesting_past
from .base import MessageBuilder, Model, ModelRequest
from .providers import SECRET_ENV_VARS, provider_info
from .scripted import ScriptedModel

__all__ = [
    "CASSETTE_VERSION",
    "MAX_NESTING",
    "CassetteError",
    "RecordingModel",
    "ReplayModel",
    "cassette_text",
    "load_cassette",
    "save_cassette",
    "scrub",
]

CASSETTE_MARK = "openprogram-jupyter"
CASSETTE_VERSION = 1
MAX_NESTING = 100
"""How deeply a cassette's JSON may nest (arrays and objects): the file's own structure
takes 7 levels down to a call's arguments, which leaves them over 90."""

# Header-shaped secrets scrub_secrets does not know: "Authorization: Basic ...", "x-api-key: ...".
_AUTH_HEADER = re.compile(
    r"(?i)\b((?:proxy-)?authorization|x-api-key|x-goog-api-key|x-amz-security-token)"
    r"([\"']?\s*[:=]\s*[\"']?)[^\"'\n,;]+"
)


def scrub(value: object, secrets: Iterable[str | None] = ()) -> Any:
    """``value`` with every string in it scrubbed (keys included), in dicts, lists and
    tuples at any depth: the given secrets, every secret known now (:mod:`.._secrets`: each
    ``api_key=`` given, the values of the provider key variables, :data:`SECRET_ENV_VARS`),
    and anything shaped like a key or an auth header. A cassette and a test ``run.to_test``
    writes are scrubbed with it, and that test scrubs each live result with it too, to
    compare it with the recorded one."""
    variables = (os.environ.get(name) for name in SECRET_ENV_VARS)  # known already; named here to be sure
    return _without_auth_headers(Secrets.now([*secrets, *variables]).mask_data(value))


def _without_auth_headers(value: object) -> Any:
    if isinstance(value, str):
        return _AUTH_HEADER.sub(r"\1\2***", value)
    if isinstance(value, dict):
        return {_without_auth_headers(k): _without_auth_headers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_auth_headers(item) for item in value]
    if type(value) is tuple:  # as Secrets.mask_data takes them: a tuple subclass is left as is
        return tuple(_without_auth_headers(item) for item in value)
    return value


def _request_summary(request: ModelRequest) -> JsonObject:
    last_user = next((m for m in reversed(request.messages) if isinstance(m, UserMessage)), None)
    return {
        "tools": [spec["name"] for spec in request.tools],
        "last_user_text": last_user.text if last_user is not None else None,
    }


class RecordingModel(Model):
    """Streams through ``inner`` unchanged and saves each finished reply to ``path``.

    The file is rewritten after every round (atomically: a crash leaves the last good
    cassette), starting fresh with the first round. A round that was stopped mid-stream
    is not saved (it is not a reply). Rounds are saved in the order they finish, which is
    the order a replay asks for them as long as runs on this Runtime do not overlap.
    """

    def __init__(self, inner: Model, path: str | os.PathLike[str], *, secrets: Iterable[str | None] = ()) -> None:
        self.inner = inner
        self.path = Path(path)
        self.name = inner.name
        self.native_compaction = inner.native_compaction  # the rounds go to the inner model as asked
        self.__secrets = [s for s in secrets if s]
        remember(*self.__secrets)
        self.rounds: list[JsonObject] = []

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        summary = _request_summary(request)
        async for update in self.inner.stream(request, out):
            yield update
        message = out.message
        if message.stop_reason not in ("error", "aborted"):  # what the loop does next, done first
            out.finish(message.stop_reason if message.stop_reason != "stop" else None)
        self.rounds.append({"round": len(self.rounds) + 1, "request": summary, "reply": dump_message(message)})
        self._save()

    def _save(self) -> None:
        save_cassette(self.path, self.inner.name, self.rounds, secrets=self.__secrets)

    def __repr__(self) -> str:
        return f"<RecordingModel {self.name} → {self.path}: {len(self.rounds)} rounds>"


def save_cassette(
    path: str | os.PathLike[str], model: str, rounds: list[JsonObject], *, secrets: Iterable[str | None] = ()
) -> None:
    """Write :func:`cassette_text` to ``path`` (its folder made), atomically: a crash leaves
    the file as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, cassette_text(model, rounds, secrets=secrets))


def cassette_text(model: str, rounds: list[JsonObject], *, secrets: Iterable[str | None] = ()) -> str:
    """The cassette of ``model`` holding ``rounds`` (``{"round", "request", "reply"}``
    each), as the JSON text of a file, every secret scrubbed (:func:`scrub`)."""
    data = scrub({"cassette": CASSETTE_MARK, "version": CASSETTE_VERSION, "model": model, "rounds": rounds}, secrets)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


class ReplayModel(Model):
    """Plays a cassette back, one recorded reply per round, streamed like a live reply.

    Built from ``"replay:FILE"`` (``model_id`` is the file path; ``api_key`` and
    ``base_url`` are ignored). The file is read and checked here: a missing, corrupt,
    truncated or foreign file raises :class:`CassetteError` naming the file and the
    problem. Each round first compares the request with the recording: if the tool
    names or the last user text differ, or the run asks for more rounds than were
    recorded, that round fails (``stop_reason="error"``) with a message saying which
    round and what differs — a replay never goes on against a different run. A round
    whose reply calls a tool the request does not offer fails the same way, naming the
    tool, before anything of it streams: a cassette runs only the run's own tools. When
    the run captures the wire, each played reply is kept with the request rebuilt for the
    model the cassette was recorded from (:meth:`~._wire.WireRecorder.replayed`).
    """

    def __init__(
        self, model_id: str, *, api_key: str | None = None, base_url: str | None = None, delay: float = 0.0
    ) -> None:
        self.path = Path(model_id)
        self.rounds, self.recorded_model = load_cassette(self.path)
        self.name = f"replay:{model_id}"
        recorded = provider_info((self.recorded_model or "").partition(":")[0])
        # as the recorded model: the requests ask for the provider's compaction as its did
        self.native_compaction = recorded is not None and recorded.native_compaction
        self.delay = delay
        self.played = 0

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        index = self.played
        self.played += 1
        if index >= len(self.rounds):
            out.fail(
                f"replay {self.path}: the cassette has {len(self.rounds)} round(s) and round {index + 1} "
                "was requested — this run asks the model more often than the recorded one did",
                kind="replay",
            )
            return
        recorded_request, reply = self.rounds[index]
        problem = _drift(recorded_request, _request_summary(request))
        if problem:
            out.fail(f"replay {self.path}: round {index + 1} drifted from the recording: {problem}", kind="replay")
            return
        refused = _calls_off_menu(reply, request)
        if refused:
            out.fail(
                f"replay {self.path}: round {index + 1} calls {refused}, not on this run's menu "
                f"[{', '.join(spec['name'] for spec in request.tools)}]; a cassette may call only "
                "the run's own tools, so nothing of this round was played",
                kind="replay",
            )
            return
        if request.wire is not None:
            request.wire.replayed(self.recorded_model, reply)
        async for update in ScriptedModel([reply], name=self.name, delay=self.delay).stream(request, out):
            yield update

    @property
    def remaining(self) -> int:
        """Recorded rounds not played yet."""
        return max(0, len(self.rounds) - self.played)

    def __repr__(self) -> str:
        return f"<ReplayModel {self.path}: {self.played}/{len(self.rounds)} rounds played>"


def _drift(recorded: JsonObject, live: JsonObject) -> str | None:
    problems = []
    if recorded.get("tools") is not None and sorted(recorded["tools"]) != sorted(live["tools"]):
        was, now = set(recorded["tools"]), set(live["tools"])
        detail = "; ".join(
            part
            for part in (
                f"missing now: {', '.join(sorted(was - now))}" if was - now else "",
                f"new now: {', '.join(sorted(now - was))}" if now - was else "",
            )
            if part
        )
        problems.append(
            f"the tools differ (recorded [{', '.join(recorded['tools'])}], now [{', '.join(live['tools'])}]; {detail})"
        )
    if "last_user_text" in recorded:
        now = live["last_user_text"]
        if not _same_text(recorded["last_user_text"], now):
            problems.append(f"the last user message differs ({_first_difference(recorded['last_user_text'], now)})")
    return "; ".join(problems) or None


def _calls_off_menu(reply: AssistantMessage, request: ModelRequest) -> str | None:
    """``"the tool 'x'"`` / ``"the tools 'x', 'y'"`` for each tool the reply calls that the
    request does not offer; ``None`` when every call is on the menu."""
    menu = {spec["name"] for spec in request.tools}
    names = list(dict.fromkeys(call.name for call in reply.tool_calls if call.name not in menu))
    if not names:
        return None
    return ("the tool " if len(names) == 1 else "the tools ") + ", ".join(repr(name) for name in names)


def _same_text(recorded: str | None, now: str | None) -> bool:
    """Equal, where each ``***`` in the recording (a masked secret) stands for any text,
    the empty text included.

    Linear in the length of both texts, however many marks there are: the text before
    the first mark must begin ``now`` and the text after the last must end it; each piece
    between them is found at its leftmost place after the one before (the leftmost
    place leaves the most room for the rest, so no other choice can match where it fails).
    """
    if recorded is None or now is None or "***" not in recorded:
        return recorded == now
    first, *middle, last = recorded.split("***")
    if not now.startswith(first):
        return False
    position = len(first)
    for piece in middle:
        found = now.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return len(now) - len(last) >= position and now.endswith(last)


def _first_difference(was: str | None, now: str | None) -> str:
    if was is None or now is None:
        return f"recorded {was!r}, now {now!r}"
    at = next((i for i, (a, b) in enumerate(zip(was, now, strict=False)) if a != b), min(len(was), len(now)))
    start = max(0, at - 20)
    return f"from character {at}: recorded {was[start : at + 40]!r}, now {now[start : at + 40]!r}"


def load_cassette(path: str | os.PathLike[str]) -> tuple[list[tuple[JsonObject, AssistantMessage]], str | None]:
    """Read a cassette: ``([(request summary, reply), ...], recorded model name)``.

    A request summary that is not an object reads as ``{}``, a model name that is not a
    string as ``None``: both are only compared and shown. Raises :class:`CassetteError`
    naming the file and what is wrong with anything else, a file nested deeper than
    :data:`MAX_NESTING` included (it is measured before it is parsed, so no reader recurses).
    """
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("cassette") != CASSETTE_MARK or not isinstance(data.get("rounds"), list):
        raise CassetteError(
            f"cassette {path} is not an openprogram-jupyter cassette "
            '(expected an object with "cassette": "openprogram-jupyter" and a "rounds" list)'
        )
    if data.get("version") != CASSETTE_VERSION:
        raise CassetteError(
            f"cassette {path} has version {data.get('version')!r}; this version reads {CASSETTE_VERSION}"
        )
    rounds = [_read_round(path, number, entry) for number, entry in enumerate(data["rounds"], 1)]
    model = data.get("model")
    return rounds, model if isinstance(model, str) else None


def _read_json(path: Path) -> Any:
    """The file's JSON value, or :class:`CassetteError` saying why there is none."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CassetteError(f"cassette {path} does not exist (record one with Runtime(record={str(path)!r}))") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CassetteError(f"cassette {path} cannot be read: {error}") from None
    too_deep = nesting_past(text, MAX_NESTING)
    if too_deep is not None:
        raise CassetteError(
            f"cassette {path} nests {too_deep.depth:,} levels deep (from line {too_deep.line} column "
            f"{too_deep.column}); a cassette may nest at most {MAX_NESTING} (corrupt, or not a recording?)"
        )
    try:
        return json.loads(text)
    except RecursionError:  # the check above keeps this from happening; a reader's error if it does
        raise CassetteError(f"cassette {path} nests too deeply to be read") from None
    except json.JSONDecodeError as error:
        truncated = error.pos >= len(text.rstrip())
        raise CassetteError(
            f"cassette {path} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
            + (" — the file ends early (truncated?)" if truncated else " (corrupt?)")
        ) from None


def _read_round(path: Path, number: int, entry: Any) -> tuple[JsonObject, AssistantMessage]:
    """Round ``number``'s request summary and reply, or :class:`CassetteError` naming the round."""
    if not isinstance(entry, dict) or not isinstance(entry.get("reply"), dict):
        raise CassetteError(f'cassette {path}, round {number}: expected an object with a "reply" object')
    request = entry["request"] if isinstance(entry.get("request"), dict) else {}
    try:
        reply = AssistantMessage.model_validate(entry["reply"])
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "(reply)"
        raise CassetteError(
            f"cassette {path}, round {number}: the reply is not a valid assistant message ({where}: {first['msg']})"
        ) from None
    return request, reply
