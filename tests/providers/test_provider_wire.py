"""``Runtime(capture_wire=True)`` against the loopback server with the real SDKs: what
``run.wire(n)`` says was sent is what the server received, with no secret in it."""

from __future__ import annotations

import dataclasses
import json

import pytest
from fakeserver import Call, Turn
from fakeserver.wire_bedrock import decode_frame

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES, SECRET, make_tools


def _script(server):
    server.script(
        Turn(text="Let me compute.", calls=[Call("add", {"a": 2, "b": 3}), Call("mul", {"a": 4, "b": 5})]),
        Turn(calls=[Call("add", {"a": 5, "b": 20})]),
        Turn(text="The answer is 25."),
    )


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_captured_request_is_the_body_the_server_received(case, server):
    _script(server)
    run = await case.runtime(server, capture_wire=True).arun(f"Compute things. Never say {SECRET}.", tools=make_tools())
    assert run.stop_reason == "stop", run.error
    assert len(server.requests) == 3
    for number, recorded in enumerate(server.requests, start=1):
        request, reply = run.wire(number)
        received = recorded.body  # json.loads of the bytes the server read
        # the prompt held the secret: masked on both sides' account, so compare with it masked
        assert request == json.loads(json.dumps(received).replace(SECRET, "***"))
        assert reply["frames"], "the frames as received are kept"
        assert reply["final"] is not None
        captured = json.dumps([request, reply])
        assert SECRET not in captured


async def test_a_key_made_known_after_the_capture_is_masked_when_the_round_is_read(server):
    from openprogram_jupyter.core._secrets import remember

    later = "later-known-token-4f9e2a7c1d"  # not a secret while the run is captured
    server.script(Turn(text="Noted."))
    run = await CASES[0].runtime(server, capture_wire=True).arun(f"Keep {later} for me.", tools=make_tools())
    assert later in json.dumps(run.wire(1)[0])
    remember(later)  # e.g. the user pasted it as an api_key= afterwards
    request, reply = run.wire(1)
    assert later not in json.dumps(request) and later not in json.dumps(reply)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_final_reply_folds_the_streamed_text_and_calls(case, server):
    _script(server)
    run = await case.runtime(server, capture_wire=True).arun("Compute.", tools=make_tools())
    first = json.dumps(run.wire(1)[1]["final"])
    assert "Let me compute." in first and "add" in first and "mul" in first
    assert "The answer is 25." in json.dumps(run.wire(3)[1]["final"])


async def test_wire_without_capture_says_to_pass_capture_wire(server):
    _script(server)
    run = await CASES[0].runtime(server).arun("Compute.", tools=make_tools())
    with pytest.raises(ValueError, match="capture_wire=True"):
        run.wire(1)


async def test_wire_of_an_uncaptured_round_names_the_valid_rounds(server):
    _script(server)
    run = await CASES[0].runtime(server, capture_wire=True).arun("Compute.", tools=make_tools())
    with pytest.raises(ValueError, match="1 to 3"):
        run.wire(4)
    with pytest.raises(ValueError, match="1 to 3"):
        run.wire(0)


class _Recording(op.Model):
    """A provider model whose every request is kept (what ``ScriptedModel.requests`` keeps)."""

    def __init__(self, inner: op.Model) -> None:
        self.inner, self.name, self.requests = inner, inner.name, []

    def stream(self, request, out):
        # A copy: the loop goes on appending to the request's list of messages.
        self.requests.append(dataclasses.replace(request, messages=list(request.messages)))
        return self.inner.stream(request, out)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_wire_preview_builds_offline_the_body_the_provider_sends(case, server):
    _script(server)
    runtime = case.runtime(server)
    recording = _Recording(runtime.model)
    run = await op.Runtime(model=recording).arun("Compute.", tools=make_tools())
    assert run.stop_reason == "stop", run.error
    for request, recorded in zip(recording.requests, server.requests, strict=True):
        assert op.wire_preview(request, case.model) == recorded.body


def test_wire_preview_refuses_what_has_no_wire():
    with pytest.raises(TypeError, match="needs a ModelRequest"):
        op.wire_preview({"messages": []}, "openai:gpt-4.1-mini")


def test_side_by_side_shows_each_body_in_its_column_escaped():
    shown = op.side_by_side({"OpenAI": {"a": "<b>"}, "Anthropic": {"b": 2}})._repr_mimebundle_()
    html = shown["text/html"]
    assert html.count("<td") == 2 and "&lt;b&gt;" in html and "<b>" not in html
    assert shown["text/plain"].startswith("== OpenAI\n{")


def _sent_events(recorded) -> list[dict]:
    """The frames the server sent for ``recorded``, as the JSON each carries: an SSE
    frame's ``data`` (not OpenAI's ``[DONE]``, which is no JSON), an event-stream frame's
    payload under its event type, as botocore hands events over."""
    if recorded.wire == "bedrock":
        events = []
        for frame in recorded.frames:
            headers, payload = decode_frame(frame)
            data = json.loads(payload)
            data.pop("p")  # AWS's padding field, which botocore does not hand over (it is not in the API model)
            events.append({headers[":event-type"]: data})
        return events
    lines = [line for frame in recorded.frames for line in frame.decode().splitlines() if line.startswith("data: ")]
    events = [json.loads(line[6:]) for line in lines if line != "data: [DONE]"]
    # The anthropic SDK drops keep-alive pings before it hands events over (docs/wire.md says so).
    return [event for event in events if event.get("type") != "ping"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_kept_frames_are_the_frames_the_server_sent(case, server):
    _script(server)
    run = await case.runtime(server, capture_wire=True).arun("Compute.", tools=make_tools())
    assert run.stop_reason == "stop", run.error
    for number, recorded in enumerate(server.requests, start=1):
        sent = _sent_events(recorded)
        assert sent
        assert run.wire(number)[1]["frames"] == sent


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_request_as_its_own_provider_is_the_body_sent(case, server):
    _script(server)
    run = await case.runtime(server, capture_wire=True).arun("Compute.", tools=make_tools())
    for number, recorded in enumerate(server.requests, start=1):
        assert run.request_as(number, case.model) == run.wire(number)[0] == recorded.body


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_scripted_run_of_the_same_conversation_rebuilds_the_bodies_the_provider_received(case, server):
    _script(server)
    live = await case.runtime(server, capture_wire=True).arun("Compute.", tools=make_tools())
    assert live.stop_reason == "stop", live.error
    replies = [m for m in live.messages if isinstance(m, op.AssistantMessage)]
    scripted = await op.Runtime(model=op.ScriptedModel(replies), capture_wire=True).arun("Compute.", tools=make_tools())
    assert scripted.stop_reason == "stop", scripted.error
    assert [scripted.request_as(n, case.model) for n in (1, 2, 3)] == server.bodies()


def _offline_run() -> op.Run:
    """The teaching notebook's kind of run: the offline model, no key, no network."""
    add = make_tools()[0]
    return op.Runtime(model="offline", capture_wire=True).run("What is 2 + 3?", tools=[add])


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_an_offline_runs_round_rebuilt_for_a_provider_is_a_request_that_provider_accepts(case, server):
    run = _offline_run()
    assert run.rounds == 2
    body = run.request_as(2, case.model)
    assert server.wires[case.prefix].validate(body) is None, "the loopback server rejects what the API would"
    assert server.wires[case.prefix].result_count(body) == 1


def test_request_as_takes_a_provider_prefix_for_its_default_model():
    run = _offline_run()
    from openprogram_jupyter.models.anthropic import INFO

    assert run.request_as(2, "anthropic") == run.request_as(2, INFO.default_model_name)  # the one place it is named
    with pytest.raises(ValueError, match="'bedrock' has no default model: name one, as in 'bedrock:MODEL_ID'"):
        run.request_as(2, "bedrock")
    with pytest.raises(ValueError, match="unknown provider 'acme'"):
        run.request_as(2, "acme")
    with pytest.raises(TypeError, match="sends nothing over a wire"):
        run.request_as(2, "offline")


def test_request_as_without_capture_or_past_the_run_says_why():
    with pytest.raises(ValueError, match=r"capture_wire=True"):
        op.Runtime(model="offline").run("hi").request_as(1, "openai")
    with pytest.raises(ValueError, match="round 3 was not captured; the captured rounds are 1 to 2"):
        _offline_run().request_as(3, "openai")


def test_the_teaching_cell_shows_round_2_for_openai_and_anthropic_side_by_side():
    run = _offline_run()
    shown = op.side_by_side(
        {"OpenAI": run.request_as(2, "openai"), "Anthropic": run.request_as(2, "anthropic")}
    )._repr_mimebundle_()
    openai_part, anthropic_part = shown["text/plain"].split("== Anthropic\n")
    assert '"role": "tool"' in openai_part and '"tool_result"' not in openai_part
    assert '"type": "tool_result"' in anthropic_part and '"role": "tool"' not in anthropic_part
    assert shown["text/html"].count("<td") == 2


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_failed_attempt_keeps_its_status_and_the_error_body_the_server_sent(case, server):
    server.script(
        Turn.http_error(429, "slow down, please"),
        Turn(text="Hello."),
        Turn.http_error(400, "this request is not acceptable"),
    )
    runtime = case.runtime(server, capture_wire=True)
    retried = await runtime.arun("Hi.", tools=make_tools())
    assert retried.stop_reason == "stop", retried.error
    reply = retried.wire(1)[1]
    assert reply["attempts"] == 2 and [e["attempt"] for e in reply["errors"]] == [1]
    assert reply["errors"][0]["status"] == 429 and "slow down, please" in json.dumps(reply["errors"][0]["body"])
    assert "Hello." in json.dumps(reply["final"]), "the frames are the attempt that succeeded"

    failed = await runtime.arun("Hi again.", tools=make_tools())
    assert failed.stop_reason == "error"
    request, reply = failed.wire(1)
    assert request == server.requests[-1].body
    assert reply["final"] is None and reply["frames"] == []
    (error,) = reply["errors"]
    assert error["status"] == 400 and "this request is not acceptable" in json.dumps(error["body"])


def test_a_round_whose_request_cannot_be_built_says_nothing_was_sent_and_why(server):
    bedrock = next(case for case in CASES if case.prefix == "bedrock")
    # not base64: a prompt's image is checked before the run (docs/faults.md), earlier conversation is not
    broken = op.UserMessage(content=[op.TextContent(text="Look."), op.ImageContent(data="a", mime_type="image/png")])
    seen = op.AssistantMessage(content=[op.TextContent(text="I see.")])
    run = bedrock.runtime(server, capture_wire=True).run("And now?", messages=[broken, seen], tools=[])
    assert run.stop_reason == "error" and server.requests == []
    with pytest.raises(ValueError, match=r"round 1 .* has no wire: nothing was sent: Invalid base64"):
        run.wire(1)


def _joined_strings(value) -> str:
    """Every string in ``value``, in order, run together (what joining a stream's deltas gives)."""
    if isinstance(value, str):
        return value
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return "".join(_joined_strings(item) for item in items)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_key_the_model_streams_back_in_pieces_is_masked_across_the_frames(case, server):
    """Each frame was masked alone, so a key cut into 6-character deltas survived in them:
    joining the deltas of run.wire(n)'s frames (and of %agent wire's output) gave it back."""
    server.script(
        Turn(text=f"The key is {SECRET}, as you asked.", calls=[Call("add", {"a": 1, "b": 2})], chunk_size=6),
        Turn(calls=[Call("fail", {"reason": f"{SECRET} was refused"})], chunk_size=6),
        Turn(text="Done."),
    )
    run = await case.runtime(server, capture_wire=True).arun("Say it.", tools=make_tools())
    assert run.stop_reason == "stop", run.error
    for number in (1, 2):
        _, reply = run.wire(number)
        frames = reply["frames"]
        assert frames
        for field_values in _streams(frames):
            assert SECRET not in "".join(field_values)
        assert SECRET not in _joined_strings(reply["final"])
    assert "***" in _joined_strings(run.wire(1)[1]["frames"])


def _streams(frames):
    """The strings at each place across the frames, in order (one list per place)."""
    places: dict = {}

    def walk(value, path):
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            if isinstance(item, str):
                places.setdefault((*path, key), []).append(item)
            else:
                walk(item, (*path, key))

    for frame in frames:
        walk(frame, ())
    return list(places.values())
