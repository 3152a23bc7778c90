"""Where Python cannot start threads (Pyodide, ``sys.platform == "emscripten"``; the real
one is driven by tests/pyodide): a tool body runs on the event loop's thread, and the sync
entry points, which run the loop on a worker thread, refuse naming ``arun``."""

from __future__ import annotations

import asyncio
import sys
import threading
import types

import pytest

import openprogram_jupyter as op

from .conftest import call


@pytest.fixture
def threadless(monkeypatch):
    """sys.platform as Pyodide's, and Thread.start failing as it does there; the names of
    the threads something tried to start."""
    monkeypatch.setattr(sys, "platform", "emscripten")
    tried = []

    def start(thread):
        tried.append(thread.name)
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", start)
    return tried


async def test_an_awaited_run_calls_its_sync_tools_on_the_loops_own_thread(threadless):
    ran_on = []

    @op.function
    def where(city: str) -> str:
        """Which thread the tool body ran on."""
        ran_on.append(threading.current_thread())
        return f"{city}: ok"

    run = await op.Runtime(model=op.ScriptedModel([call("where", city="Oslo"), "done"])).arun("go", tools=[where])

    assert run.stop_reason == "stop"
    assert ran_on == [threading.current_thread()]
    op.check(run).returned("where", "Oslo: ok")
    assert threadless == []


@pytest.mark.parametrize("entry", ["run", "exec", "start"])
def test_the_sync_entry_points_refuse_naming_arun_before_anything_runs(threadless, entry):
    """With no running loop; and run / exec refuse even on one, where start makes a task."""
    model = op.ScriptedModel(["never sent"])
    runtime = op.Runtime(model=model)

    with pytest.raises(op.SetupError) as refused:
        getattr(runtime, entry)("go")

    assert str(refused.value) == (
        "Runtime.run needs a worker thread, and this Python (emscripten: Pyodide, as in JupyterLite, "
        "or WASI) cannot start one; use await runtime.arun(...)"
    )
    assert threadless == []
    assert runtime.last_run is None


def test_load_ext_starts_no_warm_up_thread_in_a_kernel_that_has_none(threadless, monkeypatch):
    from openprogram_jupyter.jupyter import _warm_up

    monkeypatch.setattr(_warm_up, "_running", None)
    monkeypatch.delenv("OPENPROGRAM_WARM_UP", raising=False)
    shell = types.SimpleNamespace(kernel=object())  # all the warm-up asks of a kernel's shell

    assert _warm_up.start_warm_up(shell, magics=None, runtime=None) is None
    assert threadless == []


async def test_start_on_a_running_loop_is_a_task_that_returns_at_once_and_runs_to_its_end(threadless):
    model = op.ScriptedModel(["The answer."], delay=0.01)

    handle = op.Runtime(model=model).start("go")

    assert handle.done is False
    with pytest.raises(op.SetupError) as refused:
        handle.wait()  # it would block the loop the run is a task of
    assert str(refused.value) == (
        "RunHandle.wait before the run ends needs threads; await asyncio.sleep until handle.done"
    )
    for _ in range(500):
        if handle.done:
            break
        await asyncio.sleep(0.01)
    run = handle.wait()
    assert (run.stop_reason, run.text) == ("stop", "The answer.")
    assert threadless == []


async def test_a_started_task_stops_when_aborted(threadless):
    model = op.ScriptedModel(["A long answer that streams slowly, word by word, to its end."], delay=0.05)

    handle = op.Runtime(model=model).start("go")
    await asyncio.sleep(0.12)
    handle.abort()
    for _ in range(500):
        if handle.done:
            break
        await asyncio.sleep(0.01)

    run = handle.wait()
    assert run.stop_reason == "aborted"
    assert run.text != "A long answer that streams slowly, word by word, to its end."


@pytest.mark.parametrize("entry", ["run", "exec"])
async def test_run_and_exec_refuse_on_a_running_loop_too_starting_nothing(threadless, entry):
    model = op.ScriptedModel(["never sent"])
    runtime = op.Runtime(model=model)

    with pytest.raises(op.SetupError, match=r"^Runtime\.run needs a worker thread"):
        getattr(runtime, entry)("go")
    await asyncio.sleep(0.05)

    assert runtime.last_run is None  # a run started as a task would be there by now
