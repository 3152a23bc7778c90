"""A loopback imitation of the OpenAI (Chat Completions and Responses), Anthropic,
Gemini and Bedrock streaming APIs, for tests that drive the real clients.

    from tests.fakeserver import Call, FakeServer, Turn

    with FakeServer() as server:
        server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})]), Turn(text="3"))
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="sk-test")
        ...
        server.requests[0].body       # what the client sent

Nothing listens beyond 127.0.0.1. See ``server.py`` for routes and ``script.py`` for the
turn and its failure modes.
"""

from .script import Call, Search, Turn
from .server import Close, FakeServer, Recorded
from .wire import Reject, Wire
from .wire_bedrock import event_frame

__all__ = ["Call", "Close", "FakeServer", "Recorded", "Reject", "Search", "Turn", "Wire", "event_frame"]
