"""What a document's prose and comments claim about its examples, checked after the
document has run, on the names it left in its namespace (and the loopback server it ran
against, if any).

Outputs a document shows are ``>>>`` doctests, which Sybil compares itself; these are the
claims written in words beside code (``# 2b: only read_file``), stated here by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _sent(runtime: Any, request: int) -> list[str]:
    return [spec["name"] for spec in runtime.model.requests[request].tools]


def _tool_results(run: Any) -> list[str]:
    import openprogram_jupyter as op

    return [m.content[0].text for m in run.messages if isinstance(m, op.ToolResultMessage)]


def tools_md(ns: dict[str, Any], server: Any) -> None:
    import openprogram_jupyter as op

    gated = ns["gated"]
    assert _sent(gated, 0) == ["add", "place", "read_file", "delete_file", "tool_search"]  # default menu
    assert _sent(gated, 1) == ["read_file"]  # toolset="files"
    assert _sent(gated, 2) == ["read_file"]  # tools_source="web" + allow
    assert _sent(gated, 3) == ["normalize"]  # tools=[normalize]
    assert "add_numbers" not in op.default_registry and ns["add_numbers"].options.cache
    assert list(ns["crunch"].spec["parameters"]["properties"]) == ["n"]  # ctx is left out
    weather_run = ns["rt"].last_run
    assert (_tool_results(weather_run), weather_run.text) == (["Sunny in Oslo"], "Sunny.")
    assert list(ns["research"].spec["parameters"]["properties"]) == ["topic"]  # runtime is hidden


def readme_md(ns: dict[str, Any], server: Any) -> None:
    cell_run = ns["runtime"].last_run  # the %%agent cell, on the offline model
    assert [r.tool_name for r in cell_run.tool_results] == ["add"] and cell_run.stop_reason == "stop"
    assert ns["run"].stop_reason == "stop" and "offline" in ns["text"]


def replay_md(ns: dict[str, Any], server: Any) -> None:
    cassette = json.loads(Path("cassettes/run.json").read_text())  # in the test's scratch folder
    assert cassette["model"] == "openai:gpt-4.1-mini" and len(server.requests) == 2  # recorded live
    assert [r["request"]["tools"] for r in cassette["rounds"]] == [["temperature"], ["temperature"]]
    assert [r.text for r in ns["rt"].last_run.tool_results] == ["31.0"]  # the replay ran the tool again
    assert len(server.requests) == 2  # and sent nothing


def wire_md(ns: dict[str, Any], server: Any) -> None:
    run = ns["run"]
    assert [run.wire(n)[0] for n in (1, 2)] == server.bodies("anthropic")  # "the body as sent"
    assert run.wire(1)[1]["attempts"] == 1 and run.wire(1)[1]["errors"] == []
    openai = ns["lesson_run"].request_as(2, "openai")["messages"]
    assert [m["role"] for m in openai][-2:] == ["assistant", "tool"] and openai[-2]["tool_calls"]
    anthropic = ns["lesson_run"].request_as(2, "anthropic")["messages"]
    assert anthropic[-1]["role"] == "user" and anthropic[-1]["content"][0]["type"] == "tool_result"
    assert anthropic[-2]["content"][-1]["type"] == "tool_use"


CLAIMS: dict[str, Callable[[dict[str, Any], Any], None]] = {
    "README.md": readme_md,
    "tools.md": tools_md,
    "replay.md": replay_md,
    "wire.md": wire_md,
}
