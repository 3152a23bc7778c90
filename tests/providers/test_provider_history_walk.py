"""The OpenAI SDK validates a request's arguments by walking them against its typed request
schema (``openai._utils._transform``) on every call. Walking the history costs more than
everything else a round does and grows with it, so ours hands the history over in
``extra_body``, which is sent as it is (``models/openai_chat.untransformed``). The bodies
the server receives are the same (``test_provider_wire.py`` compares them field by field)."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

from .cases import CASES, make_tools

OPENAI_CASES = [c for c in CASES if c.prefix in ("openai", "openai-responses")]


async def _transform_calls(server, case, monkeypatch, rounds: int) -> int:
    from openai._utils import _transform

    calls = 0
    walk = _transform._async_transform_recursive

    async def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return await walk(*args, **kwargs)

    monkeypatch.setattr(_transform, "_async_transform_recursive", counted)
    server.script(*[Turn(calls=[Call("add", {"a": n, "b": 1})]) for n in range(rounds - 1)], Turn(text="done"))
    run = await case.runtime(server).arun("Add one at a time.", tools=make_tools(), max_iterations=None)
    assert run.stop_reason == "stop", run.error
    assert run.rounds == rounds
    monkeypatch.setattr(_transform, "_async_transform_recursive", walk)
    return calls


@pytest.mark.parametrize("case", OPENAI_CASES, ids=[c.prefix for c in OPENAI_CASES])
async def test_the_sdk_does_not_walk_the_history_so_a_rounds_cost_does_not_grow_with_it(server, case, monkeypatch):
    short = await _transform_calls(server, case, monkeypatch, 3)
    long = await _transform_calls(server, case, monkeypatch, 30)
    # Walking the history makes the calls grow with the square of the rounds (about 10×
    # per round here); without it each round walks the same small arguments.
    assert long / 30 <= 1.2 * short / 3, (short, long)
