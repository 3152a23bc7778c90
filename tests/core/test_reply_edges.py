"""What a round sends and keeps at its edges (docs/testing.md, "Mutation tool",
``engine/_reply.py``): pictures sent or left out as the run asks, the compaction threshold
taken from the model's own window, a model that compacts itself never compacted by the
package, a compaction point after which an earlier reply's count is not trusted, the end
of a reply held back by the masking shown when the reply ends, and calls written as text
in a failed or stopped reply never run."""

from __future__ import annotations

from PIL import Image

import openprogram_jupyter as op
from openprogram_jupyter.core._secrets import MASK

from .conftest import call

GROQ_SHAPED = "gsk_live4Q9zXbT2mW7pLr8sVn3yHc6JdE"  # made up; only its value can mask it
WRITTEN = '<tool_call>{"name": "delete", "arguments": {"path": "/"}}</tool_call>'


def swatch_tool():
    @op.function(register_globally=False)
    def swatch() -> object:
        """A swatch."""
        return Image.new("RGB", (8, 8), (0, 0, 255))

    return swatch


def echo_tool():
    @op.function(register_globally=False)
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    return echo


def _result_blocks(request: op.ModelRequest) -> list[str]:
    result = next(m for m in request.messages if isinstance(m, op.ToolResultMessage))
    return [type(block).__name__ for block in result.content]


def test_a_tool_s_picture_reaches_the_model_unless_the_run_says_it_takes_none():
    shown = op.ScriptedModel([call("swatch"), "done"])
    op.Runtime(model=shown).run("Show it.", tools=[swatch_tool()])
    noted = op.ScriptedModel([call("swatch"), "done"])
    op.Runtime(model=noted).run("Show it.", tools=[swatch_tool()], images_to_model=False)
    assert "ImageContent" in _result_blocks(shown.requests[1])
    assert _result_blocks(noted.requests[1]) == ["TextContent"]
    note = next(m for m in noted.requests[1].messages if isinstance(m, op.ToolResultMessage)).text
    assert "an image was left out here" in note


class SelfCompactingModel(op.ScriptedModel):
    """A scripted model with a window of its own that compacts the conversation itself."""

    native_compaction = True
    context_window = 10_000


def _usage(tokens: int) -> op.Usage:
    return op.Usage(input=tokens, output=10, total_tokens=tokens + 10)


def _compactions(run: op.Run) -> list[op.CompactionEvent]:
    return [e for e in run.events if e.type == "compaction"]


def test_a_model_that_compacts_itself_is_sent_its_own_window_s_threshold_when_the_run_names_none():
    model = SelfCompactingModel(["done"])
    op.Runtime(model=model).run("Hi.", compact="provider")
    assert model.requests[0].provider_compaction == 8_000


def test_a_model_that_compacts_itself_is_never_compacted_by_the_package_past_the_threshold():
    big = op.AssistantMessage(content=[call("echo", text="a")], usage=_usage(9_500))
    model = SelfCompactingModel([big, "done"])
    run = op.Runtime(model=model).run("Echo.", tools=[echo_tool()], compact="provider")
    assert _compactions(run) == [] and run.text == "done"
    assert [r.provider_compaction for r in model.requests] == [8_000, 8_000]


def test_after_a_compaction_an_earlier_reply_s_count_is_not_trusted_for_the_next_request():
    # The second reply counted 1,200 input tokens, past the whole window of 1,000; once the
    # rounds before it are summarised, the request is estimated from its text (a few
    # tokens), so it is neither compacted again nor refused as too big.
    first = op.AssistantMessage(content=[call("echo", text="a")], usage=_usage(100))
    second = op.AssistantMessage(content=[call("echo", text="b")], usage=_usage(1_200))
    model = op.ScriptedModel([first, second, "summary of the first round", "done"])
    run = op.Runtime(model=model).run("Echo.", tools=[echo_tool()], compact=0.5, keep_last=1, context_window=1_000)
    assert run.stop_reason == "stop" and run.text == "done"
    (started, done) = _compactions(run)
    assert started.compaction is None and done.compaction is not None
    assert done.compaction.tokens_before > 1_000
    assert done.compaction.tokens_after is not None and done.compaction.tokens_after < 100


def test_the_end_of_a_reply_held_back_as_a_possible_secret_is_shown_when_the_reply_ends(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", GROQ_SHAPED)
    run = op.Runtime(model=op.ScriptedModel(["a line ending gsk_li"])).run("go")
    updates = [e for e in run.events if e.type == "message_update" and e.update.kind == "text_delta"]
    assert "".join(e.update.delta for e in updates) == run.text == "a line ending gsk_li"
    assert updates[-1].update.delta == "gsk_li"
    assert all(e.message is run.messages[-1] for e in updates)


def test_a_held_back_end_that_completes_a_secret_is_shown_masked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", GROQ_SHAPED)
    run = op.Runtime(model=op.ScriptedModel([f"the key {GROQ_SHAPED}"])).run("go")
    deltas = [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "text_delta"]
    assert "".join(deltas) == run.text == f"the key {MASK}"


def _deleted_after(stop_reason: str) -> list[str]:
    ran: list[str] = []

    @op.function(register_globally=False)
    def delete(path: str) -> str:
        """Delete."""
        ran.append(path)
        return "deleted"

    reply = op.AssistantMessage(
        content=[op.TextContent(text=f"Cleaning up. {WRITTEN}")], stop_reason=stop_reason, error_message="cut"
    )
    run = op.Runtime(model=op.ScriptedModel([reply, "done"])).run("go", tools=[delete], text_tool_calls=True)
    assert run.messages[1].tool_calls == []
    return ran


def test_a_call_written_as_text_in_a_failed_or_stopped_reply_never_runs():
    assert _deleted_after("error") == []
    assert _deleted_after("aborted") == []


def test_the_answer_round_at_a_limit_is_measured_for_compaction_as_it_is_sent():
    # Nothing can be compacted (every round is kept), so the round is sent as measured: the
    # size the compaction reports is the answer round's own, its system prompt saying why.
    from openprogram_jupyter.engine._context import request_tokens

    model = op.ScriptedModel([call("echo", text="a"), call("echo", text="b"), "answer"])
    run = op.Runtime(model=model).run(
        "Echo.", tools=[echo_tool()], compact=0.001, context_window=10_000, keep_last=10, max_iterations=2
    )
    last = model.requests[-1]
    assert last.tool_choice == "none" and "Do not call any tool" in last.system
    measured = [e.tokens for e in _compactions(run) if e.round == len(model.requests)]
    assert measured and measured[0] == request_tokens(last)
