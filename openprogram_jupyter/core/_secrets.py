"""The secrets a run knows, and masking them out of any text: ``mask(text)``.

A secret is masked because its **value** is known, never because of its shape alone. The
values known are, at the moment of masking:

- every ``api_key=`` given to a Runtime or a model (:func:`remember`, called by model
  resolution and by each provider model);
- the value of every key variable the provider registry lists (``SECRET_ENV_VARS`` in
  :mod:`openprogram_jupyter.models.providers`, which hands the names over with
  :func:`watch_variables` when it loads — any run loads it), read from the environment
  each time, so a key set after the Runtime was made is known too;
- credentials a provider found elsewhere (Bedrock's secret key and session token from an
  AWS profile), which that provider :func:`remember`\\ s.

Values shorter than :data:`MIN_SECRET_LENGTH` characters are never masked: they are
placeholders (``EMPTY``, ``ollama``), not secrets, and masking them would garble ordinary
words. Each value is also found in the forms quoting it may give it (HTML-escaped,
JSON-escaped, ``repr``-escaped). Each occurrence becomes ``***``.

As an extra, text shaped like a key or a credential (:data:`SHAPES`: ``sk-…``, ``AIza…``,
``AKIA…``, ``Bearer …``, ``api_key=…``) is masked too, whatever its value.

Text that arrives in pieces (a streamed reply) is masked with :class:`StreamMask`, which
holds back the end of a piece while it could be the start of a secret.
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import threading
from collections.abc import Iterable
from typing import Any

__all__ = [
    "MASK",
    "MIN_SECRET_LENGTH",
    "PICTURE_MIMES",
    "SHAPES",
    "Secrets",
    "StreamMask",
    "mask",
    "mask_shapes",
    "remember",
    "watch_variables",
    "watched_variables",
]

MASK = "***"
"""What a masked secret becomes."""

MIN_SECRET_LENGTH = 8
"""Shorter values are never masked (placeholders such as ``EMPTY`` or ``ollama``)."""

PICTURE_MIMES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""The MIME types whose display value is the base64 of a picture's bytes (SVG is text)."""

SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsk-[A-Za-z0-9_\-*]{6,}"), "sk-***"),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{12,}"), "AIza***"),
    (re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{12,}"), r"\1***"),
    (re.compile(r"(?i)\b(bearer\s+)[^\s,;\"'()<>]+"), r"\1***"),
    # The value right after "api_key=" or "api-key: ", never the words after "api_key= ".
    (re.compile(r"(?i)\b((?:x-)?(?:goog-)?api[_-]?key[\"']?(?:=|\s*:\s*)[\"']?)[^\s,;\"'&()<>*]+"), r"\1***"),
)
"""``(pattern, replacement)``: text shaped like a key or a credential, masked as an extra."""

_CUT_MARGIN = 64
"""More than a key's shortest match in :data:`SHAPES` (and a replacement's growth) is long:
what :meth:`Secrets.mask_start` keeps beyond the characters it promises."""

_lock = threading.Lock()
_remembered: set[str] = set()
_variables: dict[str, None] = {}


def remember(*values: str | None) -> None:
    """Know ``values`` as secrets from now on, in this process (``None``, empty and short
    values are ignored). Called with every ``api_key=`` given to a Runtime or a model."""
    with _lock:
        _remembered.update(v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET_LENGTH)


def watch_variables(names: Iterable[str]) -> None:
    """Treat the values of the environment variables ``names`` as secrets (read each time
    secrets are masked). The provider registry calls this with its key variables."""
    with _lock:
        _variables.update(dict.fromkeys(names))


def watched_variables() -> tuple[str, ...]:
    """The environment variables whose values are masked, in the order they were given."""
    with _lock:
        return tuple(_variables)


class Secrets:
    """The secret values known at one moment, each in every form quoting may give it.

    ``Secrets.now(extra)`` takes what is known now (:func:`remember`, the watched
    variables' current values) plus ``extra``. ``repr`` says how many values it knows,
    never which.
    """

    __slots__ = ("forms",)

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        raw = {v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET_LENGTH}
        self.forms: tuple[str, ...] = _forms_of(frozenset(raw))
        """Every form of every value, longest first (so a longer secret is masked whole)."""

    @classmethod
    def now(cls, extra: Iterable[str | None] = ()) -> Secrets:
        with _lock:
            known = [*_remembered, *(os.environ.get(name) for name in _variables)]
        return cls([*known, *extra])

    def __bool__(self) -> bool:
        return bool(self.forms)

    def __repr__(self) -> str:
        return f"<Secrets: {len(self.forms)} form(s) known>"

    def mask_values(self, text: str) -> str:
        """``text`` with every known value (in every form) replaced by ``***``."""
        for form in self.forms:
            if form in text:
                text = text.replace(form, MASK)
        return text

    def mask(self, text: str) -> str:
        """``text`` with every known value and everything shaped like a key masked."""
        return mask_shapes(self.mask_values(text)) if text else text

    def mask_start(self, text: str, length: int) -> tuple[str, int]:
        """``(masked, end)``: ``text[:end]`` masked (:meth:`mask`), long enough that its
        first ``length`` characters are those of the whole text masked — without masking
        the whole, for a long text of which only the start is shown.

        ``end`` is ``len(text)`` (and ``masked`` is ``self.mask(text)``) or ``masked`` runs
        past ``length`` by more than any known form and any key's shortest match are long:
        a value or a key cut at ``end`` can differ from the whole's only in ``masked``'s
        last characters, never in its first ``length``. The end tried starts at ``length``
        plus twice that margin and doubles while masking leaves too little.
        """
        margin = max((len(form) for form in self.forms), default=0) + _CUT_MARGIN
        end = max(length, 0) + 2 * margin
        while end < len(text):
            masked = self.mask(text[:end])
            if len(masked) > length + margin:
                return masked, end
            end *= 2
        return self.mask(text), len(text)

    def mask_data(self, value: Any, *, shapes: bool = True) -> Any:
        """``value`` with every string in it masked (:meth:`mask`, or :meth:`mask_values`
        without ``shapes``): the strings of dicts (keys too), lists and tuples, at any
        depth, in new containers; anything else (a tuple subclass included) is returned as is.

        A string under a picture's MIME type (:data:`PICTURE_MIMES`: the base64 of its
        bytes in a display bundle) is masked for known values only: key shapes are text,
        and looking for them in tens of megabytes of base64 takes seconds."""
        if isinstance(value, str):
            return self.mask(value) if shapes else self.mask_values(value)
        if isinstance(value, dict):
            return {
                self.mask_data(k, shapes=shapes): self.mask_data(v, shapes=shapes and k not in PICTURE_MIMES)
                for k, v in value.items()
            }
        if type(value) in (list, tuple):
            return type(value)(self.mask_data(item, shapes=shapes) for item in value)
        return value

    def mask_pieces(self, pieces: list[str]) -> list[str]:
        """``pieces`` of one stream (deltas, in order) with every known value masked also
        where it is cut across pieces: the piece where an occurrence starts has ``***`` in
        its place, the pieces it runs on into lose their part of it. So joining the result
        never gives a secret back, though no single piece held one whole."""
        if not self.forms or len(pieces) < 2:
            return [self.mask_values(piece) for piece in pieces]
        joined = "".join(pieces)
        covered: list[tuple[int, int]] = []
        for form in self.forms:
            start = joined.find(form)
            while start != -1:
                covered.append((start, start + len(form)))
                start = joined.find(form, start + len(form))
        if not covered:
            return list(pieces)
        hidden = bytearray(len(joined))  # 1: part of a secret; 2: a secret's first character
        for start, end in covered:
            hidden[start:end] = b"\x01" * (end - start)
        for start, _ in covered:
            if start == 0 or hidden[start - 1] == 0:
                hidden[start] = 2
        masked, offset = [], 0
        for piece in pieces:
            out = [MASK if hidden[offset + i] == 2 else c for i, c in enumerate(piece) if hidden[offset + i] != 1]
            masked.append("".join(out))
            offset += len(piece)
        return masked

    def open_prefix(self, text: str) -> int:
        """The length of the longest end of ``text`` that begins some known form (0 if none):
        that much of it must wait for the next piece before it can be shown."""
        longest = 0
        for form in self.forms:
            for length in range(min(len(form) - 1, len(text)), longest, -1):
                if text.endswith(form[:length]):
                    longest = length
                    break
        return longest


@functools.lru_cache(maxsize=64)
def _forms_of(values: frozenset[str]) -> tuple[str, ...]:
    forms: set[str] = set()
    for value in values:
        quoted = json.dumps(value, ensure_ascii=False)[1:-1]
        forms.update((value, html.escape(value), quoted, html.escape(quoted), repr(value)[1:-1]))
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))


def mask_shapes(text: str) -> str:
    """``text`` with everything shaped like a key or a credential (:data:`SHAPES`) masked."""
    for pattern, replacement in SHAPES:
        text = pattern.sub(replacement, text)
    return text


def mask(text: str, extra: Iterable[str | None] = ()) -> str:
    """``text`` with every secret known now (and ``extra``) masked, and everything shaped
    like a key: the one function outside text goes through before it is kept or shown."""
    return Secrets.now(extra).mask(text)


class StreamMask:
    """Masks the known values out of text that arrives in pieces (a streamed reply),
    stream by stream.

    :meth:`feed` returns the part of a piece that can be shown: the text so far with every
    known value masked, minus an end that could still grow into a secret — that end waits
    for the stream's next piece. :meth:`flush` hands out what still waits, masked, when
    the streams end. A value cut across two pieces is therefore never shown in part.
    (Shapes are not masked here: a reply's text is data; views mask shapes.)
    """

    def __init__(self, secrets: Secrets) -> None:
        self.secrets = secrets
        self._waiting: dict[int, str] = {}

    def feed(self, stream: int, piece: str) -> str:
        """What of ``piece`` (on stream ``stream``) can be shown now."""
        if not self.secrets:
            return piece
        text = self.secrets.mask_values(self._waiting.pop(stream, "") + piece)
        held = self.secrets.open_prefix(text)
        if held:
            self._waiting[stream] = text[-held:]
            text = text[:-held]
        return text

    def flush(self) -> dict[int, str]:
        """What still waits, by stream, masked; afterwards nothing waits."""
        waiting, self._waiting = self._waiting, {}
        return {stream: self.secrets.mask_values(text) for stream, text in waiting.items() if text}
