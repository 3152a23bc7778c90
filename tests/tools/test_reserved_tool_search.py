"""The name ``tool_search`` is the package's own tool search (docs/tools.md, "Deferred
tools"): no tool of the user's may hold it, however it is made, so no run, fork, rerun or
written test mistakes one for the other (forks and reruns leave the package's search out,
the menu adds it again)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools import ToolContext
from openprogram_jupyter.tools._mcp_listing import listing
from openprogram_jupyter.tools.base import Tool, ToolOptions
from openprogram_jupyter.tools.menu import Menu
from openprogram_jupyter.tools.registry import Registry

RESERVED = "'tool_search' is reserved for the package's own tool search"


class OwnSearch(Tool):
    """A tool class of the user's own, named like the package's search."""

    name = "tool_search"
    description = "Search the user's documents."

    def __init__(self) -> None:
        self.parameters = {"type": "object", "properties": {}}
        self.options = ToolOptions()

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return dict(arguments)

    async def call(self, kwargs: dict[str, Any], context: ToolContext) -> str:
        return "found"


def echo(text: str) -> str:
    """Say it back."""
    return text


def test_a_function_named_tool_search_is_refused_when_defined():
    def tool_search(query: str) -> str:
        """Search my documents."""
        return query

    with pytest.raises(op.SchemaError, match=RESERVED + r".*pass name=\.\.\."):
        op.function(register_globally=False)(tool_search)


def test_a_function_given_the_name_tool_search_is_refused_when_defined():
    with pytest.raises(op.SchemaError, match=RESERVED):
        op.function(name="tool_search", register_globally=False)(echo)


def test_a_dict_tool_named_tool_search_is_refused():
    entry = {"spec": {"name": "tool_search", "description": "Mine."}, "execute": lambda: "found"}
    runtime = op.Runtime(model=op.ScriptedModel(["done"]))
    with pytest.raises(op.SetupError, match=RESERVED + r".*rename it"):
        runtime.run("Go.", tools=[entry])


def test_a_tool_class_named_tool_search_is_refused_on_a_menu_with_no_deferred_tool():
    with pytest.raises(op.SetupError, match=RESERVED + r".*rename it"):
        Menu([OwnSearch()], explicit=True)


def test_a_tool_class_named_tool_search_is_refused_by_a_registry():
    registry = Registry()
    with pytest.raises(op.SetupError, match=RESERVED):
        registry.register(OwnSearch())
    assert "tool_search" not in registry


def test_a_run_given_a_tool_named_tool_search_fails_before_the_model_is_asked():
    model = op.ScriptedModel(["done"])
    with pytest.raises(op.SetupError, match=RESERVED):
        op.Runtime(model=model).run("Go.", tools=[OwnSearch(), op.function(register_globally=False)(echo)])
    assert model.requests == []


def test_a_fork_given_a_tool_named_tool_search_fails_instead_of_dropping_it():
    run = op.Runtime(model=op.ScriptedModel(["done"])).run("Go.", tools=[op.function(register_globally=False)(echo)])
    live = op.ScriptedModel(["again"])
    with pytest.raises(op.SetupError, match=RESERVED):
        run.fork(1, model=live, tools=[OwnSearch()])
    assert live.requests == []


def test_a_rerun_given_a_tool_named_tool_search_fails_instead_of_dropping_it():
    run = op.Runtime(model=op.ScriptedModel(["done"])).run("Go.", tools=[op.function(register_globally=False)(echo)])
    with pytest.raises(op.SetupError, match=RESERVED):
        run.rerun(tools=[OwnSearch()])


def remote(name: str) -> SimpleNamespace:
    return SimpleNamespace(name=name)


@pytest.mark.parametrize(("prefix", "remote_name"), [("", "tool_search"), ("tool_", "search")])
def test_a_server_tool_whose_name_here_would_be_tool_search_is_left_off_saying_why(prefix, remote_name):
    made = listing(prefix, [remote(remote_name), remote("fetch")], [], lambda r, name: SimpleNamespace(name=name))
    assert [tool.name for tool in made.tools] == [f"{prefix}fetch"]
    assert made.left_off == {
        remote_name: "its name here would be 'tool_search', the package's own tool search; "
        "connect the server with a prefix (op.mcp(..., prefix='docs_')) to offer it"
    }


def test_a_server_tool_named_tool_search_under_the_server_s_prefix_is_offered():
    made = listing("docs_", [remote("tool_search")], [], lambda r, name: SimpleNamespace(name=name))
    assert [tool.name for tool in made.tools] == ["docs_tool_search"] and made.left_off == {}
