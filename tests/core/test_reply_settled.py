"""A streamed reply is settled by the loop: a model that leaves its reply open gets it
finished (its open call closed, ``toolUse`` when it holds calls), and a reason the model
gave — ``length`` — is kept (docs/semantics.md, "Rounds")."""

from __future__ import annotations

import openprogram_jupyter as op


class UnfinishedCallModel(op.Model):
    """Streams one call of ``echo`` with its arguments in pieces, never closing the call
    or the reply; then answers in text."""

    name = "unfinished"

    def __init__(self) -> None:
        self.asked = 0

    async def stream(self, request, out):
        self.asked += 1
        if self.asked == 1:
            start = out.start_tool_call("echo", id="c1")
            yield start
            yield out.tool_call_delta(start.content_index, '{"text": ')
            yield out.tool_call_delta(start.content_index, '"hi"}')
        else:
            yield out.text_delta("done")


def echo_tool():
    @op.function
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    return echo


def test_a_reply_left_open_by_its_model_is_finished_and_its_call_runs():
    run = op.Runtime(model=UnfinishedCallModel()).run("Echo hi.", tools=[echo_tool()])
    first = run.messages[1]
    assert isinstance(first, op.AssistantMessage)
    assert first.stop_reason == "toolUse"
    assert first.tool_calls[0].arguments == {"text": "hi"}
    assert run.text == "done" and run.stop_reason == "stop"


def test_a_reply_cut_at_the_model_s_output_limit_keeps_its_reason():
    cut = op.AssistantMessage(content=[op.TextContent(text="cut")], stop_reason="length")
    run = op.Runtime(model=op.ScriptedModel([cut])).run("Hi.")
    assert run.messages[-1].stop_reason == "length"


class BrokenModel(op.Model):
    """Streams a word, then raises."""

    name = "broken"

    async def stream(self, request, out):
        yield out.text_delta("half")
        raise RuntimeError("socket closed")


def test_a_model_that_raises_mid_reply_fails_that_reply_with_its_words_and_keeps_what_streamed():
    run = op.Runtime(model=BrokenModel()).run("Hi.")
    reply = run.messages[-1]
    assert isinstance(reply, op.AssistantMessage) and reply.error is not None
    assert reply.stop_reason == "error" and run.stop_reason == "error"
    assert reply.error_message == "broken: RuntimeError: socket closed"
    assert reply.error.kind == "internal"
    assert reply.text == "half"
