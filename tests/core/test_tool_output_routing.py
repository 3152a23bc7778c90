"""Where output goes while a tool runs and after (docs/tools.md, "What a tool prints,
displays and plots"): the call's own writes into its card, everyone else's to the
notebook's stream or IPython as before, with their arguments; nested calls, a run outside
IPython and a stream or display publisher someone else put in place."""

from __future__ import annotations

import sys
import threading

import pytest
from IPython.core.interactiveshell import InteractiveShell

import openprogram_jupyter as op

from .conftest import call, results


class NotebookStream:
    """Stands in for the notebook's ``sys.stdout``: records what reaches it."""

    encoding = "notebook-encoding"

    def __init__(self) -> None:
        self.written: list[str] = []
        self.flushed_after: list[str] = []  # what had been written at each flush

    def write(self, text: str) -> int:
        self.written.append(text)
        return len(text)

    def flush(self) -> None:
        self.flushed_after.append("".join(self.written))


def run_one(tool, model_steps=None) -> op.ToolResultMessage:
    model = op.ScriptedModel(model_steps or [call(tool.name), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[tool]))
    return result


def test_other_threads_write_and_flush_the_notebook_s_stream_while_a_call_runs(monkeypatch):
    notebook = NotebookStream()
    monkeypatch.setattr(sys, "stdout", notebook)

    def elsewhere() -> None:  # a thread the tool starts: not the call's context
        print("elsewhere")
        sys.stdout.flush()

    @op.function
    def tool() -> str:
        """Print, and let a thread print."""
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join(5)
        print("inside")
        return "ok"

    result = run_one(tool)
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "inside\n"}]
    assert "".join(notebook.written) == "elsewhere\n"
    assert notebook.flushed_after == ["elsewhere\n"]
    assert sys.stdout is notebook


def test_a_tool_asking_its_stream_for_attributes_gets_the_notebook_stream_s(monkeypatch):
    monkeypatch.setattr(sys, "stdout", NotebookStream())

    @op.function
    def tool() -> str:
        """Read the stream's encoding, as click or tqdm do."""
        return sys.stdout.encoding

    assert run_one(tool).text == "notebook-encoding"


def test_a_stream_the_tool_put_in_place_itself_is_left_there(monkeypatch):
    monkeypatch.setattr(sys, "stdout", sys.stdout)  # whatever the tool leaves, undone after the test
    theirs = NotebookStream()

    @op.function
    def tool() -> str:
        """Replace sys.stdout, as a logging setup might."""
        sys.stdout = theirs
        print("to their stream")
        return "ok"

    result = run_one(tool)
    assert "output" not in result.details
    assert sys.stdout is theirs and "".join(theirs.written) == "to their stream\n"


def test_a_nested_run_s_call_does_not_end_the_outer_call_s_capture():
    @op.function
    def inner() -> str:
        """Print inside the nested run."""
        print("inner")
        return "inner done"

    @op.agentic_function
    def delegate(runtime=None) -> str:
        """Print, run a nested agent, print again."""
        print("before")
        answer = runtime.exec("go", tools=[inner])
        print("after")
        return answer

    before = (sys.stdout, sys.stderr)
    model = op.ScriptedModel([call("delegate"), call("inner"), "nested answer", "outer answer"])
    run = op.Runtime(model=model).run("go", tools=[delegate, inner])
    outer = next(r for r in results(run) if r.tool_name == "delegate")
    assert outer.text == "nested answer"
    assert outer.details["output"] == [{"type": "stream", "name": "stdout", "text": "before\nafter\n"}]
    inner_end = next(e for e in run.events if e.type == "tool_execution_end" and e.depth == 1)
    assert inner_end.result.details["output"] == [{"type": "stream", "name": "stdout", "text": "inner\n"}]
    assert (sys.stdout, sys.stderr) == before


def test_outside_ipython_output_is_caught_and_no_shell_is_started(monkeypatch):
    monkeypatch.setattr(InteractiveShell, "_instance", None)  # as in a script: no shell
    assert not InteractiveShell.initialized()

    @op.function
    def tool() -> str:
        """Print."""
        print("no shell here")
        return "ok"

    result = run_one(tool)
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "no shell here\n"}]
    assert not InteractiveShell.initialized()


def test_a_display_publisher_someone_else_replaced_is_left_in_place():
    publisher = InteractiveShell.instance().display_pub
    shown: list[dict] = []

    def theirs(data, *args, **kwargs) -> None:  # another extension's publisher, set on the instance
        shown.append(dict(data))

    vars(publisher)["publish"] = theirs
    try:

        @op.function
        def tool() -> str:
            """Print."""
            print("printed")
            return "ok"

        result = run_one(tool)
        assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "printed\n"}]
        assert vars(publisher)["publish"] is theirs
    finally:
        vars(publisher).pop("publish", None)


def test_a_display_from_outside_the_call_reaches_ipython_with_all_its_arguments(monkeypatch):
    publisher = InteractiveShell.instance().display_pub
    passed_on: list[tuple] = []

    def publish(self, data, metadata=None, *args, **kwargs):  # IPython's own, recorded
        passed_on.append((dict(data), metadata))

    monkeypatch.setattr(type(publisher), "publish", publish)

    def elsewhere() -> None:
        publisher.publish({"text/plain": "from elsewhere"}, {"source": "another thread"})

    @op.function
    def tool() -> str:
        """Display, and let a thread display."""
        publisher.publish({"text/plain": "mine"})
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join(5)
        return "ok"

    result = run_one(tool)
    assert result.details["output"] == [{"type": "display", "data": {"text/plain": "mine"}}]
    assert passed_on == [({"text/plain": "from elsewhere"}, {"source": "another thread"})]


@pytest.fixture(autouse=True)
def no_publisher_left_wrapped():
    publisher = InteractiveShell.instance().display_pub
    yield
    assert "publish" not in vars(publisher), "a test left the display publisher wrapped"


def test_after_its_call_a_run_s_own_output_is_not_taken_by_that_call(monkeypatch):
    notebook = NotebookStream()
    monkeypatch.setattr(sys, "stdout", notebook)
    other_call_running, release = threading.Event(), threading.Event()

    @op.function
    def wait() -> str:
        """Keep a call (and so the routing) open in another run."""
        other_call_running.set()
        release.wait(10)
        return "waited"

    def second_round(request) -> str:  # the model's next round, in the run's own context
        print("model's round 2")
        return "done"

    other = threading.Thread(
        target=lambda: op.Runtime(model=op.ScriptedModel([call("wait"), "ok"])).run("go", tools=[wait])
    )
    other.start()
    try:
        assert other_call_running.wait(10)

        @op.function
        def quiet() -> str:
            """Print once."""
            print("in the call")
            return "ok"

        result = run_one(quiet, [call("quiet"), second_round])
    finally:
        release.set()
        other.join(10)
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "in the call\n"}]
    assert "".join(notebook.written) == "model's round 2\n"
