"""The six gating layers (docs/tools.md, gating), resolve_menu / Menu, and Registry.explain."""

from types import SimpleNamespace

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools import ArgumentError, ToolContext, resolve_menu
from openprogram_jupyter.tools.registry import default_registry


def tool(name: str, doc: str = "Does a thing.", **options):
    """Register a no-argument tool called ``name`` with ``options``."""

    def body() -> str:
        return name

    body.__name__ = name
    body.__doc__ = doc
    return op.function(**options)(body)


def menu_names(**arguments) -> list[str]:
    return resolve_menu(default_registry, **arguments).names


def hidden_by(name: str, **arguments) -> tuple:
    report = {r.name: r for r in default_registry.explain(**arguments)}[name]
    return report.layer, report.hidden_by


def context() -> ToolContext:
    return ToolContext(tool_call_id="c", tool_name="tool_search", run_id="r", depth=0, runtime=None)


# -- zero configuration ----------------------------------------------------------------


def test_registered_tools_are_all_on_the_default_menu():
    tool("a"), tool("b")
    assert menu_names() == ["a", "b"]


def test_explain_reports_a_visible_tool_as_not_hidden():
    tool("a")
    assert hidden_by("a") == (None, None)


# -- layer 1: available_if ---------------------------------------------------------------


def test_layer1_available_if_false_never_registers():
    tool("gpu_job", available_if=False)
    assert "gpu_job" not in default_registry and menu_names() == []


def test_layer1_available_if_callable_is_decided_once_at_decoration():
    calls = []
    tool("a", available_if=lambda: calls.append(1) or True)
    menu_names(), menu_names()
    assert calls == [1]


def test_layer1_explain_names_available_if():
    tool("gpu_job", available_if=False)
    assert hidden_by("gpu_job") == ("1", "available_if: false at decoration")


def test_layer1_unavailable_redecoration_removes_the_earlier_tool():
    tool("job")
    tool("job", available_if=False)
    assert "job" not in default_registry


# -- layer 2: expose=False ---------------------------------------------------------------


def test_layer2_unexposed_tool_is_off_the_menu_but_callable_from_python():
    internal = tool("internal", expose=False)
    tool("public")
    assert menu_names() == ["public"]
    assert internal() == "internal"


def test_layer2_explain_names_expose():
    tool("internal", expose=False)
    assert hidden_by("internal") == ("2", "expose=False")


# -- layer 2b: toolset presets -----------------------------------------------------------


def test_layer2b_toolset_takes_only_the_tools_tagged_with_it():
    tool("read", toolset="files"), tool("write", toolset=["files", "admin"]), tool("chat")
    assert menu_names(toolset="files") == ["read", "write"]
    assert menu_names(toolset="admin") == ["write"]


def test_layer2b_tagged_tools_are_still_on_the_default_menu():
    tool("read", toolset="files"), tool("chat")
    assert menu_names() == ["read", "chat"]


def test_layer2b_toolset_still_applies_layers_2_to_4():
    tool("read", toolset="files"), tool("secret", toolset="files", expose=False)
    assert menu_names(toolset="files") == ["read"]


def test_unknown_toolset_is_a_clear_error_listing_known_ones():
    tool("read", toolset="files")
    with pytest.raises(ValueError, match=r"unknown toolset 'fils'; known toolsets: files \(or 'none'\)"):
        resolve_menu(default_registry, toolset="fils")


def test_toolset_none_gives_an_empty_menu():
    tool("a"), tool("b", toolset="x")
    menu = resolve_menu(default_registry, toolset="none")
    assert menu.names == [] and menu.specs() == []


def test_layer2b_explain_names_the_toolset():
    tool("read", toolset="files"), tool("chat")
    assert hidden_by("chat", toolset="files") == ("2b", "toolset: not in toolset 'files'")


# -- layer 3: unsafe_in ------------------------------------------------------------------


def test_layer3_unsafe_tool_is_hidden_for_that_source_only():
    tool("shell", unsafe_in=["web", "email"]), tool("search")
    assert menu_names(tools_source="web") == ["search"]
    assert menu_names(tools_source="notebook") == ["shell", "search"]
    assert menu_names() == ["shell", "search"]


def test_layer3_explain_names_unsafe_in():
    tool("shell", unsafe_in="web")
    assert hidden_by("shell", tools_source="web") == ("3", "unsafe_in: hidden when tools_source='web'")


# -- layer 4: check_fn, requires_env, can_use ---------------------------------------------


def test_layer4_missing_environment_variable_hides_the_tool(monkeypatch):
    monkeypatch.delenv("OPJ_TEST_TOKEN", raising=False)
    tool("deploy", requires_env="OPJ_TEST_TOKEN")
    assert menu_names() == []
    monkeypatch.setenv("OPJ_TEST_TOKEN", "t")
    assert menu_names() == ["deploy"]


def test_layer4_empty_environment_variable_counts_as_missing(monkeypatch):
    monkeypatch.setenv("OPJ_TEST_TOKEN", "")
    tool("deploy", requires_env=["OPJ_TEST_TOKEN"])
    assert hidden_by("deploy") == ("4", "requires_env: OPJ_TEST_TOKEN not set")


def test_layer4_check_fn_is_asked_every_time_the_menu_is_built():
    state = {"up": False}
    tool("query_db", check_fn=lambda: state["up"])
    assert menu_names() == []
    state["up"] = True
    assert menu_names() == ["query_db"]


def test_layer4_check_fn_that_raises_hides_the_tool():
    tool("query_db", check_fn=lambda: 1 / 0)
    assert hidden_by("query_db") == ("4", "check_fn returned false")


def test_layer4_can_use_receives_the_runtime():
    seen = []
    runtime = SimpleNamespace(tools_deny=())
    tool("admin", can_use=lambda rt: seen.append(rt) or False)
    assert menu_names(runtime=runtime) == []
    assert seen == [runtime]
    assert hidden_by("admin", runtime=runtime) == ("4", "can_use returned false")


def test_layer4_can_use_may_take_no_arguments():
    tool("admin", can_use=lambda: True)
    assert menu_names() == ["admin"]


def test_layer4_can_use_without_an_inspectable_signature_is_called_without_arguments():
    tool("admin", can_use=bool)  # bool() is False; inspect.signature(bool) raises
    assert hidden_by("admin") == ("4", "can_use returned false")


# -- layer 5: tools_allow / tools_deny / session deny ------------------------------------


def test_layer5_allow_list_keeps_only_the_named_tools():
    tool("a"), tool("b"), tool("c")
    assert menu_names(tools_allow=["c", "a"]) == ["a", "c"]


def test_layer5_empty_allow_list_allows_nothing():
    tool("a")
    assert menu_names(tools_allow=[]) == []


def test_layer5_deny_list_removes_the_named_tools():
    tool("a"), tool("b")
    assert menu_names(tools_deny=["a"]) == ["b"]


def test_layer5_session_deny_list_applies():
    tool("a"), tool("b")
    assert menu_names(session_deny=["b"]) == ["a"]


def test_unknown_allow_name_is_a_clear_error():
    tool("search")
    with pytest.raises(ValueError, match=r"tools_allow names unknown tool\(s\): serch; known tools: search"):
        resolve_menu(default_registry, tools_allow=["serch"])


def test_unknown_deny_name_is_a_clear_error():
    tool("search")
    with pytest.raises(ValueError, match=r"tools_deny names unknown tool\(s\): serch"):
        resolve_menu(default_registry, tools_deny=["serch"])


def test_denying_a_tool_that_exists_but_is_hidden_is_not_an_error():
    tool("internal", expose=False), tool("gpu", available_if=False)
    assert menu_names(tools_deny=["internal", "gpu"]) == []


def test_layer5_explain_names_allow_deny_and_session_lists():
    tool("a"), tool("b"), tool("c")
    assert hidden_by("a", tools_allow=["b"]) == ("5", "tools_allow: not in the allow list")
    assert hidden_by("a", tools_deny=["a"]) == ("5", "tools_deny: in this call's deny list")
    assert hidden_by("c", runtime=SimpleNamespace(tools_deny=["c"]))[0] == "5"


# -- explicit tools=[...] ------------------------------------------------------------------


def test_explicit_tools_bypass_layers_2_to_4():
    unexposed = tool("internal", expose=False)
    unsafe = tool("shell", unsafe_in="web")
    broken = tool("db", check_fn=lambda: False)
    menu = resolve_menu(default_registry, tools=[unexposed, unsafe, broken], tools_source="web")
    assert menu.names == ["internal", "shell", "db"] and menu.explicit


def test_explicit_tools_do_not_bypass_layer5():
    a, b = tool("a"), tool("b")
    assert menu_names(tools=[a, b], tools_deny=["a"]) == ["b"]
    assert menu_names(tools=[a, b], tools_allow=["a"]) == ["a"]
    assert menu_names(tools=[a, b], session_deny=["b"]) == ["a"]


def test_explicit_tools_need_not_be_registered():
    def helper() -> str:
        """Help."""
        return "h"

    assert menu_names(tools=[helper]) == ["helper"]


def test_explicit_empty_tools_list_is_an_empty_menu_unlike_none():
    tool("a")
    assert menu_names(tools=[]) == [] and menu_names(tools=None) == ["a"]


def test_tools_and_toolset_together_are_a_clear_error():
    a = tool("a", toolset="x")
    with pytest.raises(ValueError, match=r"pass tools=\[...\] or toolset=..., not both"):
        resolve_menu(default_registry, tools=[a], toolset="x")


# -- layer 6: defer=True and tool_search ---------------------------------------------------


def test_layer6_deferred_tool_is_only_in_tool_searchs_catalog():
    tool("translate", "Translate text between languages.\n\nLong details.", defer=True)
    tool("add")
    menu = resolve_menu(default_registry)
    specs = {spec["name"]: spec for spec in menu.specs()}
    assert sorted(specs) == ["add", "tool_search"]
    assert "- translate: Translate text between languages." in specs["tool_search"]["description"]
    assert "Long details." not in specs["tool_search"]["description"]
    assert menu.pending_deferred == ["translate"]


def test_no_deferred_tool_means_no_tool_search():
    tool("add")
    assert "tool_search" not in menu_names()


async def test_tool_search_loads_the_matching_schema_for_the_next_round():
    tool("translate", "Translate text between languages.", defer=True)
    tool("summarize", "Summarize a document.", defer=True)
    menu = resolve_menu(default_registry)
    search = menu.get("tool_search")
    answer = await search.call(search.validate({"query": "languages"}), context())
    assert answer == "Loaded: translate. You can call them from your next turn."
    assert [spec["name"] for spec in menu.specs()] == ["translate", "tool_search"]
    assert menu.pending_deferred == ["summarize"]


async def test_tool_search_by_exact_name_loads_only_that_tool():
    tool("read", "Read a file.", defer=True), tool("read_all", "Read every file.", defer=True)
    menu = resolve_menu(default_registry)
    await menu.get("tool_search").call({"query": "read"}, context())
    assert menu.pending_deferred == ["read_all"]


async def test_tool_search_with_no_match_lists_the_deferred_tools():
    tool("translate", defer=True)
    menu = resolve_menu(default_registry)
    answer = await menu.get("tool_search").call({"query": "weather"}, context())
    assert answer == "No deferred tool matches 'weather'. Deferred tools: translate."
    assert menu.pending_deferred == ["translate"]


async def test_tool_search_stays_on_the_menu_after_everything_is_loaded():
    tool("translate", defer=True)
    menu = resolve_menu(default_registry)
    await menu.get("tool_search").call({"query": "translate"}, context())
    assert [spec["name"] for spec in menu.specs()] == ["translate", "tool_search"]


def test_tool_search_arguments_are_validated():
    tool("translate", defer=True)
    search = resolve_menu(default_registry).get("tool_search")
    with pytest.raises(ArgumentError) as caught:
        search.validate({"q": "x"})
    assert sorted(caught.value.fields) == ["q", "query"]


def test_deferred_tool_is_reachable_by_name_before_it_is_loaded():
    translate = tool("translate", defer=True)
    assert resolve_menu(default_registry).get("translate") is translate


def test_explicitly_listed_deferred_tool_is_still_deferred():
    translate = tool("translate", defer=True)
    menu = resolve_menu(default_registry, tools=[translate])
    assert [spec["name"] for spec in menu.specs()] == ["tool_search"]


def test_denied_deferred_tool_leaves_no_tool_search_behind():
    tool("translate", defer=True), tool("add")
    assert menu_names(tools_deny=["translate"]) == ["add"]


def test_user_tool_named_tool_search_is_a_clear_error_when_defined():
    with pytest.raises(op.SchemaError, match="'tool_search' is reserved for the package's own tool search"):
        tool("tool_search")
    tool("translate", defer=True)
    assert resolve_menu(default_registry).names == ["translate", "tool_search"]


def test_layer6_explain_names_defer():
    tool("translate", defer=True)
    assert hidden_by("translate")[0] == "6"


# -- explain -------------------------------------------------------------------------------


def test_explain_lists_visible_tools_first_then_hidden_ones_each_with_the_first_layer():
    tool("b"), tool("a"), tool("internal", expose=False, unsafe_in="web"), tool("gone", available_if=False)
    reports = default_registry.explain(tools_source="web")
    assert [(r.name, r.layer) for r in reports] == [("a", None), ("b", None), ("gone", "1"), ("internal", "2")]


def test_explain_rejects_the_same_typos_as_resolve_menu():
    tool("a")
    with pytest.raises(ValueError, match="unknown toolset"):
        default_registry.explain(toolset="nope")
    with pytest.raises(ValueError, match="tools_deny names unknown tool"):
        default_registry.explain(tools_deny=["nope"])


def test_an_empty_registry_given_to_a_runtime_is_used_not_swapped_for_the_default():
    tool("a")
    empty = op.tools.Registry()
    runtime = op.Runtime(model=op.ScriptedModel(["done"]), registry=empty)
    assert runtime.registry is empty
    assert resolve_menu(runtime.registry).names == []


def test_explain_with_toolset_none_reports_every_tool_hidden_by_the_preset():
    tool("a"), tool("b", toolset="x")
    assert {r.name: (r.layer, r.hidden_by) for r in default_registry.explain(toolset="none")} == {
        "a": ("2b", "toolset 'none': no tools"),
        "b": ("2b", "toolset 'none': no tools"),
    }
