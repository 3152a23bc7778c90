"""Property tests of each provider's stream reader, through its real SDK and the loopback
server: whatever the text and the tool call's arguments hold (any Unicode, quotes,
backslashes, nesting) and however the server cuts them into frames, the reply reads back
as exactly that text and that call."""

from __future__ import annotations

import asyncio

import pytest
from fakeserver import Call, FakeServer, Turn
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models.base import ModelRequest

from .cases import CASES, FAST_RETRY, SECRET, make_tools, stream_once

TOOLS = [t.spec for t in make_tools()]
PER_PROVIDER = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# Any character a server can send (lone surrogates are made U+FFFD where text enters: their own tests).
characters = st.characters(blacklist_categories=("Cs",))
# Mostly the characters a reader could mishandle at a frame's edge: white space, quotes,
# backslashes, multi-byte ones; sometimes any.
edgy = st.sampled_from(' \n\t\r"\\{}[]:,aé日😀\u2028')
texts = st.text(edgy, min_size=1, max_size=40) | st.text(characters, min_size=1, max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(characters, max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(characters, max_size=5), inner, max_size=3),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def shared_server():
    with FakeServer() as fake:
        yield fake


@pytest.mark.parametrize("case", CASES, ids=str)
@PER_PROVIDER
@given(text=texts, reason=json_values, chunk_size=st.integers(1, 9))
@example(text=" two  spaces \n", reason={"q": '"\\ é 😀'}, chunk_size=1)
def test_a_reply_reads_back_as_the_text_and_call_sent_however_it_is_cut(case, shared_server, text, reason, chunk_size):
    server = shared_server
    base = server.openai_base_url if case.prefix.startswith("openai") else server.url
    model = resolve_model(case.model, api_key=SECRET, base_url=base)
    model.retry = FAST_RETRY
    arguments = {"reason": reason}
    server.script(Turn(text=text, calls=[Call("fail", arguments)], chunk_size=chunk_size))
    request = ModelRequest(messages=[UserMessage(content="go")], tools=TOOLS)
    _, reply = asyncio.run(stream_once(model, request))
    assert reply.error_message is None, (reply.error_message, server.rejections)
    assert reply.text == text
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("fail", arguments)]
