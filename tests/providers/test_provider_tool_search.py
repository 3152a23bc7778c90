"""``tool_search="provider"``: the deferred tools found by the provider's own tool search
where it has one (Anthropic's tool search tool, OpenAI Responses' ``tool_search``), each
deferred tool declared with ``defer_loading: true``; the search's blocks kept in the reply
and sent back next round as they came; a notice naming what was searched and loaded.
Elsewhere (Chat Completions, Gemini, Bedrock) a one-line notice, and the package's own
``tool_search`` tool runs. Asserted on the bodies the loopback server received, with the
real SDK clients."""

from __future__ import annotations

import pytest
from fakeserver import Call, Search, Turn

import openprogram_jupyter as op

from .cases import CASES

BY_PREFIX = {case.prefix: case for case in CASES}


def search_tools() -> list[op.Tool]:
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    def weather(city: str) -> str:
        """The weather in a city."""
        return f"Sunny in {city}."

    def forecast(city: str, days: int) -> str:
        """The forecast for a city."""
        return f"{days} sunny days in {city}."

    return [
        op.function(add, register_globally=False),
        op.function(weather, register_globally=False, defer=True),
        op.function(forecast, register_globally=False, defer=True),
    ]


def notices(run: op.Run) -> list[str]:
    return [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]


async def test_anthropic_declares_deferred_tools_and_its_search_tool(server):
    server.script(
        Turn(search=Search("weather in a city", ["weather"]), calls=[Call("weather", {"city": "Oslo"}, id="toolu_w")]),
        Turn(text="Sunny."),
    )
    run = (
        await BY_PREFIX["anthropic"]
        .runtime(server)
        .arun("Weather in Oslo?", tools=search_tools(), tool_search="provider")
    )
    assert run.stop_reason == "stop", run.error
    assert run.rounds == 2
    first, second = (r.body for r in server.requests)
    assert [{k: t[k] for k in ("name", "defer_loading") if k in t} for t in first["tools"]] == [
        {"name": "add"},
        {"name": "weather", "defer_loading": True},
        {"name": "forecast", "defer_loading": True},
        {"name": "tool_search_tool_bm25"},
    ]
    assert first["tools"][-1] == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
        "cache_control": {"type": "ephemeral"},
    }
    assert second["tools"] == first["tools"], "the same list every round: the prompt cache stays"
    sent_back = second["messages"][1]["content"]
    use_id = sent_back[0]["id"]
    assert sent_back == [
        {
            "type": "server_tool_use",
            "id": use_id,
            "name": "tool_search_tool_bm25",
            "input": {"query": "weather in a city"},
        },
        {
            "type": "tool_search_tool_result",
            "tool_use_id": use_id,
            "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [{"type": "tool_reference", "tool_name": "weather"}],
            },
        },
        {"type": "tool_use", "id": "toolu_w", "name": "weather", "input": {"city": "Oslo"}},
    ]
    said = [n.removeprefix(f"{BY_PREFIX['anthropic'].model}: ") for n in notices(run)]
    assert said == ['Anthropic\'s tool search: searched for "weather in a city", loaded weather']


async def test_openai_responses_declares_deferred_tools_and_its_search_tool(server):
    case = BY_PREFIX["openai-responses"]
    server.script(
        Turn(search=Search("weather", ["weather"]), calls=[Call("weather", {"city": "Oslo"}, id="call_w")]),
        Turn(text="Sunny."),
    )
    run = await case.runtime(server).arun("Weather in Oslo?", tools=search_tools(), tool_search="provider")
    assert run.stop_reason == "stop", run.error
    assert run.rounds == 2
    first, second = (r.body for r in server.requests)
    assert [{k: t[k] for k in ("type", "name", "defer_loading") if k in t} for t in first["tools"]] == [
        {"type": "function", "name": "add"},
        {"type": "function", "name": "weather", "defer_loading": True},
        {"type": "function", "name": "forecast", "defer_loading": True},
        {"type": "tool_search"},
    ]
    assert second["tools"] == first["tools"]
    call, output, function_call = second["input"][1:4]
    assert call == {
        "type": "tool_search_call",
        "id": call["id"],
        "call_id": call["call_id"],
        "execution": "server",
        "status": "completed",
        "arguments": {"query": "weather"},
    }
    weather = {k: v for k, v in first["tools"][1].items() if k != "defer_loading"}
    assert output == {
        "type": "tool_search_output",
        "id": output["id"],
        "call_id": call["call_id"],
        "execution": "server",
        "status": "completed",
        "tools": [weather],
    }
    assert function_call["type"] == "function_call" and function_call["name"] == "weather"
    said = [n.removeprefix(f"{case.model}: ") for n in notices(run)]
    assert said == ['OpenAI Responses\' tool search: searched for "weather", loaded weather']


WITHOUT_SEARCH = {"openai": "OpenAI Chat Completions", "gemini": "Gemini", "bedrock": "Bedrock"}


def declared(prefix: str, body: dict) -> list[str]:
    """The tool names the request declares."""
    if prefix == "openai":
        return [t["function"]["name"] for t in body.get("tools", [])]
    if prefix == "gemini":
        return [d["name"] for t in body.get("tools", []) for d in t["functionDeclarations"]]
    return [t["toolSpec"]["name"] for t in body.get("toolConfig", {}).get("tools", []) if "toolSpec" in t]


@pytest.mark.parametrize("prefix", list(WITHOUT_SEARCH))
async def test_a_provider_without_tool_search_says_so_and_the_package_s_own_search_runs(prefix, server):
    case = BY_PREFIX[prefix]
    server.script(
        Turn(calls=[Call("tool_search", {"query": "weather"}, id="c1")]),
        Turn(calls=[Call("weather", {"city": "Oslo"}, id="c2")]),
        Turn(text="Sunny."),
    )
    run = await case.runtime(server).arun("Weather in Oslo?", tools=search_tools(), tool_search="provider")
    assert run.stop_reason == "stop", run.error
    assert [declared(prefix, r.body) for r in server.requests] == [
        ["add", "tool_search"],
        ["add", "weather", "tool_search"],
        ["add", "weather", "tool_search"],
    ]
    said = [n.removeprefix(f"{case.model}: ") for n in notices(run)]
    assert (
        said
        == [
            f"{WITHOUT_SEARCH[prefix]} has no tool search of its own: the package's tool_search tool finds the "
            "2 deferred tools instead (tool_search='provider' asked)"
        ]
        * 3
    )


@pytest.mark.parametrize("prefix", ["anthropic", "openai-responses", *WITHOUT_SEARCH])
async def test_the_local_default_sends_the_package_s_search_tool_and_says_nothing(prefix, server):
    case = BY_PREFIX[prefix]
    server.script(Turn(text="Hi."))
    run = await case.runtime(server).arun("Hi.", tools=search_tools())
    body = server.requests[0].body
    names = declared(prefix, body) if prefix in WITHOUT_SEARCH else [t["name"] for t in body["tools"]]
    assert names == ["add", "tool_search"]
    assert notices(run) == []


def test_tool_search_takes_local_or_provider_only():
    with pytest.raises(op.SetupError, match=r"tool_search must be one of 'local', 'provider', got 'server'"):
        op.Runtime(model=op.ScriptedModel([]), tool_search="server")


async def test_what_was_searched_shows_in_the_transcript_as_text_never_markup(server):
    query = '<img src=x onerror="alert(1)"> weather'
    server.script(
        Turn(search=Search(query, ["weather"]), calls=[Call("weather", {"city": "Oslo"}, id="toolu_w")]),
        Turn(text="Sunny."),
    )
    runtime = BY_PREFIX["anthropic"].runtime(server)
    run = await runtime.arun("Weather in Oslo?", tools=search_tools(), tool_search="provider")
    assert run.stop_reason == "stop", run.error
    html = run._repr_html_()
    assert "<img" not in html
    assert "searched for &quot;&lt;img src=x onerror=\\&quot;alert(1)\\&quot;&gt; weather&quot;, loaded weather" in html
    assert 'searched for "<img src=x onerror=\\"alert(1)\\"> weather", loaded weather' in repr(run)
    assert "thinking" not in repr(run), "the kept search blocks have nothing to show"


async def test_a_failed_anthropic_search_says_why_and_is_sent_back_as_it_came(server):
    case = BY_PREFIX["anthropic"]
    server.script(
        Turn(search=Search("weather", error="unavailable"), text="I could not find a tool."), Turn(text="Ok.")
    )
    runtime = case.runtime(server)
    session = await runtime.arun("Weather in Oslo?", tools=search_tools(), tool_search="provider")
    assert session.stop_reason == "stop", session.error
    said = [n.removeprefix(f"{case.model}: ") for n in notices(session)]
    assert said == ['Anthropic\'s tool search: searched for "weather", which failed (unavailable): no tool was loaded']
    follow_up = await runtime.arun(
        "Try again.", tools=search_tools(), tool_search="provider", messages=session.messages
    )
    assert follow_up.stop_reason == "stop", follow_up.error
    sent_back = server.requests[1].body["messages"][1]["content"]
    assert [block["type"] for block in sent_back] == ["server_tool_use", "tool_search_tool_result", "text"]
    assert sent_back[1]["content"] == {"type": "tool_search_tool_result_error", "error_code": "unavailable"}
