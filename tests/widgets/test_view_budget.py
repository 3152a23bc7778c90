"""The live header's budget meter: what a run has spent of its max_cost / max_tokens."""

from __future__ import annotations

from openprogram_jupyter.core.events import AgentStartEvent, MessageEndEvent, MessageStartEvent, TurnStartEvent
from openprogram_jupyter.core.messages import AssistantMessage, TextContent, Usage
from openprogram_jupyter.jupyter._view import RunView

RUN = "run_budget"
AMBER = "#9a6700"


def reply(cost: float, tokens: int = 100) -> list:
    message = AssistantMessage(
        content=[TextContent(text="…")], usage=Usage(input=tokens, total_tokens=tokens, cost=cost)
    )
    return [MessageStartEvent(run_id=RUN, message=message), MessageEndEvent(run_id=RUN, message=message)]


def meter(view: RunView) -> str:
    header = view.header.value
    start = header.index('class="openprogram-meter"')
    return header[start : header.index("</span>", start)]


def test_the_meter_shows_the_spend_and_turns_amber_at_eighty_percent(recorder):
    view = RunView()
    view.feed(AgentStartEvent(run_id=RUN, model="openai:gpt-4.1-mini", max_cost=0.05))
    view.feed(TurnStartEvent(run_id=RUN, turn=1))
    for event in reply(0.03):
        view.feed(event)
    view.tick(force=True)
    assert "$0.0300 of $0.05" in meter(view) and AMBER not in meter(view)

    view.feed(TurnStartEvent(run_id=RUN, turn=2))
    for event in reply(0.011):
        view.feed(event)
    view.tick(force=True)
    assert "$0.0410 of $0.05" in meter(view) and AMBER in meter(view)


def test_a_token_budget_is_metered_and_no_budget_shows_no_meter(recorder):
    view = RunView()
    view.feed(AgentStartEvent(run_id=RUN, model="m", max_tokens=1000))
    for event in reply(0.0, tokens=850):
        view.feed(event)
    view.tick(force=True)
    assert "850 of 1,000 tokens" in meter(view) and AMBER in meter(view)

    plain = RunView()
    plain.feed(AgentStartEvent(run_id=RUN, model="m"))
    plain.tick(force=True)
    assert "openprogram-meter" not in plain.header.value
