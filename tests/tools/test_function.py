"""@function / @agentic_function as decorators: the object they return, its options, its
registration, and calling it as a tool (FunctionTool.call) outside the loop."""

import asyncio
import threading

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools import FunctionTool, Registry, ToolContext, as_tool
from openprogram_jupyter.tools.menu import as_tools
from openprogram_jupyter.tools.registry import default_registry

from .conftest import props


def context(**overrides) -> ToolContext:
    values = dict(tool_call_id="call_1", tool_name="t", run_id="run_1", depth=0, runtime=None)
    return ToolContext(**{**values, **overrides})


def test_decorated_function_stays_an_ordinary_callable():
    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    assert add(1, 2) == 3
    assert add(a=1, b=2) == 3
    assert add.name == "add"
    assert add.__name__ == "add" and add.__doc__ == "Add."


def test_decorator_with_options_and_without_give_the_same_kind_of_object():
    @op.function()
    def a() -> None:
        """A."""

    @op.function(timeout=3)
    def b() -> None:
        """B."""

    assert isinstance(a, FunctionTool) and isinstance(b, FunctionTool)
    assert (a.options.timeout, b.options.timeout) == (None, 3)  # the options are the ones given
    assert a() is None and b() is None and (a.name, b.name) == ("a", "b")


def test_name_option_renames_the_tool():
    @op.function(name="sum_two")
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    assert add.spec["name"] == "sum_two"
    assert "sum_two" in default_registry and "add" not in default_registry


def test_bound_method_is_a_tool_without_self_that_calls_its_instance():
    class Account:
        def __init__(self) -> None:
            self.balance = 0

        def deposit(self, amount: int) -> int:
            """Deposit money."""
            self.balance += amount
            return self.balance

    account = Account()
    tool = op.function(account.deposit)

    assert list(props(tool)) == ["amount"]
    assert tool(5) == 5 and account.balance == 5


def test_async_function_is_a_tool_and_a_coroutine_function():
    @op.function
    async def fetch(url: str) -> str:
        """Fetch."""
        return url.upper()

    assert fetch.is_async
    assert list(props(fetch)) == ["url"]
    assert asyncio.run(fetch("a")) == "A"


async def test_async_tool_call_is_awaited_on_the_running_loop():
    loop = asyncio.get_running_loop()

    @op.function
    async def where() -> bool:
        """Where."""
        return asyncio.get_running_loop() is loop

    assert await where.call({}, context()) is True


async def test_sync_tool_call_runs_on_a_daemon_worker_thread_not_the_loops():
    @op.function
    def who() -> tuple:
        """Who."""
        thread = threading.current_thread()
        return thread, thread.daemon

    thread, daemon = await who.call({}, context())
    assert thread is not threading.current_thread() and daemon


async def test_tool_context_is_injected_into_the_call_and_hidden_from_the_schema():
    seen = []

    @op.function
    def work(n: int, ctx: ToolContext) -> int:
        """Work."""
        seen.append(ctx)
        ctx.report({"done": n})
        return n

    reports = []
    given = context(_report=reports.append)
    assert list(props(work)) == ["n"]
    assert await work.call(work.validate({"n": 2}), given) == 2
    assert seen == [given] and reports == [{"done": 2}]


def test_direct_call_of_a_tool_taking_a_context_gets_a_detached_one():
    @op.function
    def work(n: int, ctx: ToolContext) -> bool:
        """Work."""
        ctx.report("ignored")
        return not ctx.cancelled.is_set()

    assert work(1) is True


def test_agentic_function_hides_runtime_and_takes_it_positionally_from_python():
    @op.agentic_function
    def research(topic: str, runtime=None) -> object:
        """Research."""
        return runtime

    marker = object()
    assert list(props(research)) == ["topic"]
    assert research("x", marker) is marker
    assert research("x", runtime=marker) is marker


def test_agentic_function_docstring_is_its_description():
    @op.agentic_function
    def research(topic: str, runtime=None) -> str:
        """Research a topic and report."""
        return topic

    assert research.description == "Research a topic and report."
    assert research.agentic


def test_redecorating_a_function_of_the_same_name_replaces_the_registry_entry():
    @op.function
    def greet(name: str) -> str:
        """Old."""
        return "old"

    first = greet

    @op.function
    def greet(name: str, loud: bool = False) -> str:  # a re-run notebook cell
        """New."""
        return "new"

    assert default_registry.get("greet") is greet and greet is not first
    assert len(default_registry) == 1
    assert list(props(default_registry.get("greet"))) == ["name", "loud"]


def test_decorating_a_tool_again_wraps_the_original_function():
    @op.function
    def f(a: int) -> int:
        """F."""
        return a

    again = op.function(f, name="g")
    assert again.fn is f.fn
    assert again(3) == 3


def test_register_globally_false_leaves_the_registry_alone():
    @op.function(register_globally=False)
    def private(a: int) -> None:
        """P."""

    assert "private" not in default_registry
    assert private.spec["name"] == "private"


def test_registry_option_registers_there_and_not_globally():
    mine = Registry()

    @op.function(registry=mine)
    def local(a: int) -> None:
        """L."""

    assert mine.get("local") is local
    assert "local" not in default_registry


def test_options_are_recorded_on_the_tool():
    @op.function(
        timeout=2.5,
        max_result_chars=500,
        cache=True,
        requires_approval=True,
        defer=True,
        toolset="files",
        unsafe_in=["web", "email"],
        requires_env="HOME",
        expose=False,
    )
    def f() -> None:
        """F."""

    options = f.options
    assert (options.timeout, options.max_result_chars, options.cache) == (2.5, 500, True)
    assert (options.requires_approval, options.defer, options.expose) == (True, True, False)
    assert options.toolset == ("files",) and options.unsafe_in == ("web", "email")
    assert options.requires_env == ("HOME",)


def test_options_default_to_a_tool_that_is_plainly_usable():
    @op.function
    def f() -> None:
        """F."""

    options = f.options
    assert options.expose and not options.defer and not options.requires_approval and not options.cache
    assert options.timeout is None and options.max_result_chars is None  # the run's max_result_chars


def test_cache_option_is_set_and_each_tool_has_its_own_empty_cache():
    # (What a cached tool returns in a run: tests/core/test_tool_options_in_loop.py.)
    @op.function(cache=True)
    def f() -> None:
        """F."""

    @op.function(cache=True)
    def g() -> None:
        """G."""

    @op.function
    def h() -> None:
        """H."""

    assert f.options.cache and g.options.cache and not h.options.cache
    assert f.cache == {} and g.cache == {} and f.cache is not g.cache


@pytest.mark.parametrize("timeout", [0, -1])
def test_timeout_must_be_positive(timeout):
    with pytest.raises(ValueError, match="timeout must be positive seconds"):
        op.function(timeout=timeout)


def test_max_result_chars_below_one_hundred_is_refused():
    with pytest.raises(ValueError, match="max_result_chars must be at least 100, got 99"):
        op.function(max_result_chars=99)


def test_toolset_named_none_is_reserved():
    with pytest.raises(ValueError, match="toolset 'none' is reserved"):
        op.function(toolset=["files", "none"])


def test_decorating_something_not_callable_is_a_clear_error():
    with pytest.raises(TypeError, match="@function needs a callable"):
        op.function(name="x")(42)


def test_plain_callable_on_a_menu_becomes_an_unregistered_tool():
    def helper(a: int) -> int:
        """Help."""
        return a

    tool = as_tool(helper)
    assert isinstance(tool, FunctionTool) and tool.name == "helper"
    assert "helper" not in default_registry


def test_two_menu_entries_with_one_name_are_refused():
    def f(a: int) -> None:
        """F."""

    with pytest.raises(ValueError, match="two tools are named 'f'"):
        as_tools([f, {"spec": {"name": "f"}, "execute": lambda: None}])


def test_summary_is_the_first_line_of_the_description():
    @op.function
    def f() -> None:
        """First line.

        More.
        """

    assert f.summary == "First line."
