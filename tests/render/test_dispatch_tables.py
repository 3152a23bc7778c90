"""Every event type and every node kind has a handler in every consumer that must show it.

The registries are closed sets: ``EVENT_TYPES`` (built from the event classes),
``UPDATE_KINDS`` and ``NODE_KINDS``. Each consumer dispatches through an explicit table;
these tests fail, naming the consumer and the kind, when a table does not cover its
registry — so a new event or node cannot be dropped silently by one view.
"""

from __future__ import annotations

from typing import get_args

import pytest
from sample_models import NoticingModel

import openprogram_jupyter as op
from openprogram_jupyter.core._dispatch import UnhandledKindError
from openprogram_jupyter.core.events import EVENT_TYPES, UPDATE_KINDS, AgentEvent, AgentStartEvent, Event, EventHandlers
from openprogram_jupyter.jupyter._view import WIDGET_OF
from openprogram_jupyter.render import render_bundle
from openprogram_jupyter.render.html import HTML_OF
from openprogram_jupyter.render.markdown import MARKDOWN_OF
from openprogram_jupyter.render.plain import PLAIN_OF
from openprogram_jupyter.render.tree import (
    EVENT_HANDLERS,
    NODE_KINDS,
    UPDATE_HANDLERS,
    NodeHandlers,
    RoundItem,
    RunNode,
    TimelineItem,
    TreeBuilder,
    tree_of,
)
from openprogram_jupyter.tools.registry import Registry

NODE_TABLES = {"live view": WIDGET_OF, "html": HTML_OF, "markdown": MARKDOWN_OF, "plain": PLAIN_OF}


# -- the registries -------------------------------------------------------------------


def test_event_types_map_each_declared_type_literal_to_its_class():
    assert list(EVENT_TYPES.values()) == list(get_args(AgentEvent))
    for name, cls in EVENT_TYPES.items():
        assert cls.model_fields["type"].default == name
        assert get_args(cls.model_fields["type"].annotation) == (name,)
        assert issubclass(cls, Event)


def test_node_kinds_are_exactly_what_a_timeline_or_a_round_can_hold():
    assert set(NODE_KINDS.values()) == set(get_args(TimelineItem)) | set(get_args(RoundItem))


# -- every table covers its registry --------------------------------------------------


@pytest.mark.parametrize("event_type", list(EVENT_TYPES))
def test_the_tree_folds_every_event_type(event_type):
    assert event_type not in EVENT_HANDLERS.missing(), f"TreeBuilder has no handler for {event_type}"


@pytest.mark.parametrize("kind", UPDATE_KINDS)
def test_the_tree_folds_or_deliberately_ignores_every_update_kind(kind):
    assert kind in UPDATE_HANDLERS, f"TreeBuilder has no entry for AssistantUpdate kind {kind!r}"


def test_the_update_table_names_only_real_update_kinds():
    assert set(UPDATE_HANDLERS) == set(UPDATE_KINDS)


@pytest.mark.parametrize("kind", list(NODE_KINDS))
@pytest.mark.parametrize("consumer", list(NODE_TABLES))
def test_every_view_draws_every_node_kind(consumer, kind):
    table = NODE_TABLES[consumer]
    assert table.registry is NODE_KINDS
    assert kind not in table.missing(), f"the {consumer} has no drawing function for {kind}"
    assert table.handler_for(object.__new__(NODE_KINDS[kind])) is not None, f"the {consumer} ignores {kind}"


# -- uncovered kinds are loud ---------------------------------------------------------


def test_an_object_that_is_not_a_registered_event_is_an_error_not_a_silent_drop():
    class StrayEvent(Event):
        type: str = "stray"

    with pytest.raises(UnhandledKindError, match="StrayEvent"):
        TreeBuilder().apply(StrayEvent(run_id="r"))
    with pytest.raises(UnhandledKindError):
        TreeBuilder().apply(object())  # type: ignore[arg-type]


def test_a_table_without_an_entry_raises_for_that_class_and_lists_it_as_missing():
    table: EventHandlers[object] = EventHandlers("a test table", {AgentStartEvent: "start"})
    assert table.handler_for(AgentStartEvent(run_id="r")) == "start"
    assert "turn_start" in table.missing() and "agent_start" not in table.missing()
    with pytest.raises(UnhandledKindError, match="a test table has no handler for event type TurnStartEvent"):
        table.handler_for(EVENT_TYPES["turn_start"](run_id="r", turn=1))


def test_ignored_classes_get_no_handler_and_count_as_covered():
    ignored = [cls for name, cls in EVENT_TYPES.items() if name != "agent_start"]
    table: EventHandlers[object] = EventHandlers("a test table", {AgentStartEvent: "start"}, ignored=ignored)
    assert table.missing() == []
    assert table.handler_for(EVENT_TYPES["turn_start"](run_id="r", turn=1)) is None


def test_a_table_naming_a_class_outside_its_registry_cannot_be_built():
    with pytest.raises(TypeError, match="not a registered node kind: RunNode"):
        NodeHandlers("a test table", {RunNode: print})
    with pytest.raises(TypeError, match="both handled and ignored"):
        EventHandlers("a test table", {AgentStartEvent: print}, ignored=[AgentStartEvent])


def test_a_subclass_of_a_registered_event_is_handled_like_its_base():
    class TaggedStart(AgentStartEvent):
        pass

    builder = TreeBuilder()
    builder.apply(TaggedStart(run_id="r", model="m"))
    assert builder.root is not None and builder.root.model == "m"


# -- a run with every event type and every node kind, through every static view -------


def _run_with_every_kind() -> op.Run:
    registry = Registry()

    @op.function(registry=registry)
    def report(context: op.ToolContext) -> str:
        """Report progress."""
        context.report("halfway")
        return "reported"

    return op.Runtime(model=NoticingModel(), registry=registry).run("go", tools=[report])


def test_a_run_with_every_event_type_and_node_kind_shows_each_in_every_format():
    run = _run_with_every_kind()
    # a rerun's divergence (below) and a compaction (core/test_compaction.py) have runs of their own
    assert {event.type for event in run.events} == set(EVENT_TYPES) - {"divergence", "compaction"}
    tree = tree_of(run)
    round_ = tree.rounds[0]
    kinds = {type(item).__name__ for item in [*tree.timeline, *round_.items]}
    assert kinds == set(NODE_KINDS)
    bundle = render_bundle(run)
    for mime, text in bundle.items():
        assert "parallel_tool_calls=False" in text, mime  # the notice
        assert "rate limited (HTTP 429) — waited 0.00 s, then retried (retry 1 of 3)" in text, mime  # the wait
        assert "report" in text and "reported" in text, mime  # the call and its result
        assert "all reported" in text, mime  # the final text
        assert "go" in text, mime  # the prompt
    assert "let me report" in bundle["text/html"] and "let me report" in bundle["text/markdown"]
    assert "(thinking: let me report)" in bundle["text/plain"]


def test_a_rerun_that_diverges_shows_where_in_every_format():
    """The one event type a run does not emit: a rerun's divergence."""
    run = _run_with_every_kind()

    def report(context: op.ToolContext) -> str:
        """Report progress."""
        return "reported differently"

    rerun = run.rerun(tools=[report])
    assert "divergence" in {event.type for event in rerun.events}
    for mime, text in render_bundle(rerun).items():
        assert "differs from the recording" in text and "reported differently" in text, mime
        assert "round 1 (report): report returned a different result" in text, mime
