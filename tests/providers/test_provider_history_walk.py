"""The OpenAI and Anthropic SDKs walk a request's arguments on every call, against their
typed request schema (``openai._utils._transform``; older ``anthropic`` releases too) or
copying every container of the body (``anthropic._utils._prepare``). Walking the history
costs more than everything else a round does and grows with it, so ours hands it over
unwalked, as a body we encode ourselves and the SDK's ``post`` sends as it is
(``models/openai_chat.OpenAIChatModel._send``, ``models/anthropic._send``). The bodies the server receives are the same
(``test_provider_wire.py`` compares them field by field)."""

from __future__ import annotations

import importlib

import pytest
from fakeserver import Call, Turn

from .cases import CASES, make_tools

WALKED_CASES = [c for c in CASES if c.prefix in ("openai", "openai-responses", "anthropic")]

# (module, function) the SDK calls once per container it walks, newest layout first
_WALKS = {
    "openai": [("openai._utils._transform", "_async_transform_recursive")],
    "anthropic": [
        ("anthropic._utils._prepare", "copy_mapping"),
        ("anthropic._utils._transform", "_async_transform_recursive"),
    ],
}


def _walk_function(sdk: str) -> tuple[object, str]:
    for module_name, name in _WALKS[sdk]:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if hasattr(module, name):
            return module, name
    pytest.fail(f"none of {_WALKS[sdk]} found in this {sdk} release: update the test")


async def _walk_calls(server, case, monkeypatch, rounds: int) -> int:
    module, name = _walk_function("anthropic" if case.prefix == "anthropic" else "openai")
    calls = 0
    walk = getattr(module, name)

    def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return walk(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    server.script(*[Turn(calls=[Call("add", {"a": n, "b": 1})]) for n in range(rounds - 1)], Turn(text="done"))
    run = await case.runtime(server).arun("Add one at a time.", tools=make_tools(), max_iterations=None)
    assert run.stop_reason == "stop", run.error
    assert run.rounds == rounds
    monkeypatch.setattr(module, name, walk)
    return calls


@pytest.mark.parametrize("case", WALKED_CASES, ids=[c.prefix for c in WALKED_CASES])
async def test_the_sdk_does_not_walk_the_history_so_a_rounds_cost_does_not_grow_with_it(server, case, monkeypatch):
    short = await _walk_calls(server, case, monkeypatch, 3)
    long = await _walk_calls(server, case, monkeypatch, 30)
    # Walking the history makes the calls grow with the square of the rounds (about 10×
    # per round here); without it each round walks the same small arguments.
    assert long / 30 <= 1.2 * short / 3, (short, long)


class _Answer(dict):
    """A stand-in for ``_incremental._RAW_BODIES`` giving one answer for every client."""

    def __init__(self, answer: bool) -> None:
        super().__init__()
        self.answer = answer

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: object) -> bool:
        return self.answer


RAW_CASES = [c for c in CASES if c.prefix in ("openai", "openai-responses", "anthropic")]


@pytest.mark.parametrize("case", RAW_CASES, ids=[c.prefix for c in RAW_CASES])
async def test_an_sdk_whose_post_takes_no_content_sends_the_same_bodies_and_reads_the_same_replies(
    server, case, monkeypatch
):
    from openprogram_jupyter.models import _incremental

    outcomes = []
    for raw in (True, False):
        monkeypatch.setattr(_incremental, "_RAW_BODIES", _Answer(raw))
        server.requests.clear()
        server.script(
            Turn(calls=[Call("add", {"a": 1, "b": 2}, id="call_1")]),
            Turn(text="Thinking aloud.", calls=[Call("add", {"a": 3, "b": 4}, id="call_2")]),
            Turn(text="Sums: 3 and 7."),
        )
        run = await case.runtime(server).arun("Add.", tools=make_tools(), max_iterations=None)
        assert run.stop_reason == "stop", run.error
        outcomes.append(
            ([r.body for r in server.requests], run.text, [r.text for r in run.tool_results], run.usage.input)
        )
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1:3] == ("Sums: 3 and 7.", ["3.0", "7.0"])
