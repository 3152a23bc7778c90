"""What the loopback server answers for the documents whose examples name a hosted model."""

from __future__ import annotations

from fakeserver import Call, Turn

# The documents whose examples name a hosted model ("openai:…", "anthropic:…"): the
# provider's base URL points at the loopback server, which plays these turns in order.
LOOPBACK_TURNS: dict[str, list[Turn]] = {
    "replay.md": [
        Turn(calls=[Call("temperature", {"city": "Cairo"})]),
        Turn(text="Cairo is warmest, at 31 °C."),
    ],
    "wire.md": [
        Turn(calls=[Call("add", {"a": 2, "b": 3})]),
        Turn(text="2 + 3 = 5."),
    ],
}
