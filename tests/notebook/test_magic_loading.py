"""The extension's own lifecycle in one process: loading twice,
``%unload_ext``, the lazily loaded ``AgentMagics`` name, and a background run started where
no event loop runs (the view then ticks on a thread of its own)."""

from __future__ import annotations

import threading
import time

import pytest

import openprogram_jupyter as op
from openprogram_jupyter import jupyter as notebook_layer


def test_loading_twice_keeps_the_first_load(shell):
    magics = notebook_layer._LOADED[id(shell)]
    rewrites = [t for t in shell.input_transformers_cleanup if getattr(t, "openprogram", False)]
    shell.run_line_magic("load_ext", "openprogram_jupyter")
    shell.extension_manager.load_extension("openprogram_jupyter")
    notebook_layer.load_ipython_extension(shell)
    assert notebook_layer._LOADED[id(shell)] is magics
    assert [t for t in shell.input_transformers_cleanup if getattr(t, "openprogram", False)] == rewrites


def test_unload_removes_the_cell_rewrite(shell):
    assert any(getattr(t, "openprogram", False) for t in shell.input_transformers_cleanup)
    shell.run_line_magic("unload_ext", "openprogram_jupyter")
    assert not any(getattr(t, "openprogram", False) for t in shell.input_transformers_cleanup)
    assert id(shell) not in notebook_layer._LOADED
    shell.run_line_magic("load_ext", "openprogram_jupyter")  # the fixture's teardown expects it loaded


def test_notes_name_runs_from_the_running_shell_after_another_shell_loaded_the_extension(shell):
    """A second shell that loads the extension (a document's shell in the tests) and is put
    away again must not leave rerun and fork notes naming from its dead namespace."""
    from IPython.core.interactiveshell import InteractiveShell

    from openprogram_jupyter.core._viewer import name_of

    held = object()
    shell.user_ns["held"] = held
    InteractiveShell.clear_instance()
    other = InteractiveShell.instance()
    try:
        other.run_line_magic("load_ext", "openprogram_jupyter")
        other.user_ns["elsewhere"] = held
        assert name_of(held) == "elsewhere"
    finally:
        notebook_layer._LOADED.pop(id(other), None)
        InteractiveShell.clear_instance()
        for klass in InteractiveShell._walk_mro():
            klass._instance = shell
    assert name_of(held) == "held"
    shell.user_ns.pop("held")


def test_agent_magics_loads_on_first_use_and_other_names_are_attribute_errors():
    from openprogram_jupyter.jupyter import AgentMagics
    from openprogram_jupyter.jupyter._magics import AgentMagics as defined

    assert AgentMagics is defined
    with pytest.raises(AttributeError, match="NoSuchName"):
        notebook_layer.NoSuchName  # noqa: B018


def test_a_background_run_started_outside_an_event_loop_finishes_on_the_views_thread(shell):
    @op.function
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    shell.user_ns["add"] = add
    shell.run_cell_magic("agent", "-m offline --background -o h --tools add", "Add 2 and 3.")
    handle = shell.user_ns["h"]
    run = handle.wait(timeout=30)
    assert run.stop_reason == "stop" and [r.content for r in run.tool_results][:1]
    deadline = time.monotonic() + 30
    while any(t.name == "openprogram-view" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "openprogram-view" for t in threading.enumerate()), "the view's thread never ended"
    # the view's thread recorded the run where the notebook's runtime keeps it
    assert shell.user_ns["runtime"].last_run is run


def test_agent_commands_wait_for_a_running_warm_up_before_importing(shell, monkeypatch):
    """Two threads importing the same modules can hand one a partly initialized module, so
    ``%agent`` and ``%%agent`` start only once the warm-up's imports are done."""
    from openprogram_jupyter.jupyter import _warm_up

    for entry in (
        lambda: shell.run_line_magic("agent", "tools"),
        lambda: shell.run_cell_magic("agent", "-m offline", "Say hi."),
    ):
        release = threading.Event()
        warm_up = threading.Thread(target=release.wait, args=(5,), name=_warm_up.THREAD_NAME, daemon=True)
        warm_up.start()
        monkeypatch.setattr(_warm_up, "_running", warm_up)
        threading.Timer(0.3, release.set).start()
        entry()
        assert not warm_up.is_alive(), "the command ran while the warm-up was still importing"
