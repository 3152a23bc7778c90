"""Saved transcripts of huge runs stay readable and bounded in size; the Run keeps it all."""

from __future__ import annotations

import re
import types

import pytest

from openprogram_jupyter.core.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from openprogram_jupyter.render import render_bundle
from openprogram_jupyter.render._format import DEFAULT_MAX_TRANSCRIPT_CHARS


def hand_built_run(messages: list) -> types.SimpleNamespace:
    """A finished Run-like record with messages only (its tree is rebuilt from them)."""
    return types.SimpleNamespace(messages=messages, events=[], model="scripted", stop_reason="stop")


def one_reply(calls: int, *, failing: tuple[int, ...] = ()) -> types.SimpleNamespace:
    picks = [ToolCall(id=f"c{i}", name="echo", arguments={"n": i}) for i in range(calls)]
    results = [
        ToolResultMessage(
            tool_call_id=f"c{i}",
            tool_name="echo",
            content=[TextContent(text=f"echo {i}")],
            is_error=i in failing,
            status="error" if i in failing else "done",
        )
        for i in range(calls)
    ]
    return hand_built_run(
        [
            UserMessage(content="go"),
            AssistantMessage(content=picks, stop_reason="toolUse"),
            *results,
            AssistantMessage(content=[TextContent(text="all echoed")]),
        ]
    )


def many_rounds(rounds: int, result_chars: int = 10, text_chars: int = 10) -> types.SimpleNamespace:
    messages: list = [UserMessage(content="go")]
    for i in range(rounds):
        messages += [
            AssistantMessage(
                content=[
                    TextContent(text=f"step {i} " + "t" * text_chars),
                    ToolCall(id=f"c{i}", name="echo", arguments={"n": i}),
                ],
                stop_reason="toolUse",
            ),
            ToolResultMessage(tool_call_id=f"c{i}", tool_name="echo", content=[TextContent(text="r" * result_chars)]),
        ]
    messages.append(AssistantMessage(content=[TextContent(text="the final answer")]))
    return hand_built_run(messages)


def sizes(run) -> dict[str, int]:
    return {mime: len(text) for mime, text in render_bundle(run).items()}


def test_a_reply_of_10000_calls_saves_its_start_and_end_and_counts_the_rest():
    bundle = render_bundle(one_reply(10_000, failing=(5_000, 7_000)))
    for mime, text in bundle.items():
        assert "echo 0" in text and "echo 9999" in text and "all echoed" in text, mime
        assert "echo 4000" not in text, mime  # left out, but ...
        assert re.search(r"9,960 calls \(9,958 done, 2 error\) not shown here", text), mime
    # ... the calls that failed among them are listed, in a collapsed group.
    html = bundle["text/html"]
    group = html[html.index("9,960 calls") :]
    group = group[: group.index("</details>")]
    assert "(n=5000)" in group and "(n=7000)" in group and "calls that did not succeed" in group


def test_a_transcript_does_not_grow_with_the_number_of_calls_or_rounds():
    wide, wider = sizes(one_reply(1_000)), sizes(one_reply(10_000))
    long, longer = sizes(many_rounds(300)), sizes(many_rounds(2_000))
    for mime in wide:
        assert wider[mime] < wide[mime] * 1.05 and longer[mime] < long[mime] * 1.05, mime
        assert wider[mime] < 100_000 and longer[mime] < 100_000, mime
    html = render_bundle(many_rounds(2_000))["text/html"]
    assert "round 1<" in html and "round 2001<" in html and "the final answer" in html
    assert re.search(r"… 1,982 rounds, 1,982 calls \(1,982 done\) not shown here", html)


@pytest.mark.parametrize("mime", ["text/html", "text/markdown", "text/plain"])
def test_a_transcript_stays_within_its_size_budget_however_big_each_part_is(mime):
    # 40 rounds of 100,000 characters of text and a long result: 4 MB drawn whole.
    run = many_rounds(40, result_chars=50_000, text_chars=100_000)
    text = render_bundle(run)[mime]
    assert len(text) < DEFAULT_MAX_TRANSCRIPT_CHARS * 1.15  # at most one part over the budget
    assert "the final answer" in text  # the end is drawn first
    assert re.search(r"\d+ rounds, \d+ calls \(\d+ done\) not shown here", text)
