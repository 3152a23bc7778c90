"""``%%agent`` read and run inside one process (no kernel): options, prompt, model choice."""

from __future__ import annotations

import json
import os

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._options import fill_prompt, parse_options
from openprogram_jupyter.jupyter._transformer import CELL_FUNCTION, make_transformer


@pytest.fixture(autouse=True)
def _fresh_registry(clean_registry):
    yield


def magics(shell):
    from openprogram_jupyter.jupyter import _LOADED

    return _LOADED[id(shell)]


# -- the option line ------------------------------------------------------------------------


def test_every_documented_option_is_read():
    options = parse_options(
        "-m openai:gpt-4.1-mini -o out -s chat --new --tools a,b --allow a --deny b "
        "--tool-choice required --no-parallel --max-iterations 5 --system 'Be brief.' --background"
    )
    assert (options.model, options.output, options.session, options.new) == ("openai:gpt-4.1-mini", "out", "chat", True)
    assert (options.tools, options.background) == (["a", "b"], True)
    assert options.run_options == {
        "tools_allow": ["a"],
        "tools_deny": ["b"],
        "tool_choice": "required",
        "parallel_tool_calls": False,
        "max_iterations": 5,
        "system": "Be brief.",
    }


def test_every_flag_is_in_the_usage_and_the_parser():
    # The usage, the parser and the run options are generated from one table.
    from openprogram_jupyter.jupyter._options import FLAGS, USAGE

    for flag in FLAGS:
        assert flag.usage in USAGE
        value = (
            ""
            if flag.metavar is None
            else " 300"  # a whole number every numeric flag takes (--max-result-chars: at least 100)
            if flag.metavar.startswith(("N", "DOLLARS"))
            else " 0.8"
            if flag.metavar.startswith("FRACTION")
            else " high"
            if flag.metavar.startswith("low|")
            else " provider"
            if flag.metavar == "local|provider"
            else " http://x"
            if flag.metavar == "URL"
            else " x"
        )
        parsed = parse_options(flag.names[0] + value)
        if flag.run_option is not None:
            assert flag.run_option in parsed.run_options, flag
        else:
            assert getattr(parsed, flag.field) not in (None, False), flag


def test_limits_and_text_tools_reach_the_run_options():
    options = parse_options("--max-cost $0.05 --max-tokens 20,000 --no-finish-at-limit --text-tools")
    assert options.run_options == {
        "max_cost": 0.05,
        "max_tokens": 20000,
        "finish_at_limit": False,
        "text_tool_calls": True,
    }


def test_max_iterations_none_means_no_cap():
    assert parse_options("--max-iterations none").run_options == {"max_iterations": None}
    assert parse_options("--max-iterations 0").run_options == {"max_iterations": 0}


@pytest.mark.parametrize(
    "line, words",
    [
        ("--frobnicate", "unrecognized arguments: --frobnicate"),
        ("-m", "expected one argument"),
        ("--max-iterations lots", "expected a whole number of rounds or 'none'"),
        ("--tools a --toolset b", "--tools or --toolset, not both"),
        ("-o 1abc", "-o needs a variable name"),
        ("--system 'unclosed", "check its quotes"),
        ("--max-cost cheap", "expected an amount in dollars such as 0.05, got 'cheap'"),
        ("--max-cost 0", "argument --max-cost: max_cost must be a positive number (dollars) or None, got 0.0"),
        ("--max-tokens -5", "argument --max-tokens: max_tokens must be a positive int or None, got -5"),
        ("--max-tool-calls 0", "argument --max-tool-calls: max_tool_calls must be a positive int or None, got 0"),
        ("--tool-choice ''", "argument --tool-choice: tool_choice='' is not valid"),
    ],
)
def test_bad_options_say_what_is_wrong(line, words):
    with pytest.raises(UsageError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_options(line)


# -- the prompt ------------------------------------------------------------------------------


def test_names_and_attributes_are_filled_and_double_braces_escape():
    class Point:
        x = 3

    filled = fill_prompt('Add {n} to {p.x}; keep {{literal}} and JSON {"a": 1}.', {"n": 4, "p": Point()})
    assert filled == 'Add 4 to 3; keep {literal} and JSON {"a": 1}.'


@pytest.mark.parametrize(
    "template, words",
    [
        ("use {missing}", "no variable 'missing'"),
        ("use {p.nope}", "has no attribute 'nope'"),
        ("use {p._secret}", "private attribute"),
        ("use {p[0]}", "not a name or attribute"),
        ("use {f()}", "not a name or attribute"),
    ],
)
def test_a_placeholder_that_names_nothing_is_a_clear_error(template, words):
    class P:
        _secret = 1

    with pytest.raises(UsageError, match=words):
        fill_prompt(template, {"p": P(), "f": print})


def test_nothing_in_a_placeholder_is_evaluated():
    called = []

    class Trap:
        def __getattr__(self, name):
            called.append(name)
            raise AttributeError(name)

    with pytest.raises(UsageError):
        fill_prompt("{t.__import__('os')}", {"t": Trap()})
    assert called == []


# -- the cell rewrite --------------------------------------------------------------------------


class KernelLike:
    kernel = object()
    autoawait = True

    def __init__(self):
        from IPython.core.async_helpers import _asyncio_runner

        self.loop_runner = _asyncio_runner


def test_an_agent_cell_becomes_an_awaited_call():
    transform = make_transformer(KernelLike())
    lines = ["%%agent -m offline -o r\n", "Add {x} and 2.\n"]
    assert transform(lines) == [f"await {CELL_FUNCTION}('-m offline -o r', 'Add {{x}} and 2.\\n')\n"]


def test_other_cells_and_autoawait_off_are_left_alone():
    shell = KernelLike()
    transform = make_transformer(shell)
    assert transform(["%%agentx\n", "y\n"]) == ["%%agentx\n", "y\n"]
    assert transform(["x = 1\n"]) == ["x = 1\n"]
    shell.autoawait = False
    assert transform(["%%agent\n", "hi\n"]) == ["%%agent\n", "hi\n"]


def test_terminal_ipython_keeps_the_plain_magic():
    class Terminal(KernelLike):
        kernel = None

    assert make_transformer(Terminal())(["%%agent\n", "hi\n"]) == ["%%agent\n", "hi\n"]


# -- the magic in a terminal shell ----------------------------------------------------------------


def test_load_ext_puts_a_ready_runtime_in_the_namespace(shell):
    assert isinstance(shell.user_ns["runtime"], op.Runtime)
    assert "agent" in shell.magics_manager.magics["cell"]
    assert "agent" in shell.magics_manager.magics["line"]


def test_the_plain_magic_runs_and_stores_the_run(shell, capsys):
    shell.user_ns["m"] = op.ScriptedModel(["The answer is 42."])
    shell.user_ns["x"] = 40
    result = shell.run_cell("%%agent -m m -o r\nAdd {x} and 2.")
    assert result.success, result.error_in_exec
    run = shell.user_ns["r"]
    assert run.stop_reason == "stop" and run.text == "The answer is 42."
    assert run.messages[0].text == "Add 40 and 2."
    assert shell.user_ns["runtime"].last_run is run
    assert "The answer is 42." in capsys.readouterr().out  # the transcript, printed once at the end


def test_offline_default_says_so(shell, capsys, monkeypatch):
    monkeypatch.setattr(shell.magics_manager.registry["AgentMagics"].runtimes, "offline_noted", False)  # a new notebook
    result = shell.run_cell("%%agent -o r --toolset none\nHello?")
    assert result.success, result.error_in_exec
    out = capsys.readouterr().out
    assert "built-in offline model" in out
    assert shell.user_ns["r"].model == "offline"


def test_the_offline_note_is_given_in_full_once_then_short(shell, capsys, monkeypatch):
    for name in ("OPENPROGRAM_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(shell.magics_manager.registry["AgentMagics"].runtimes, "offline_noted", False)  # a new notebook
    shell.run_cell("%%agent --toolset none\nHello?")
    first = capsys.readouterr().out
    shell.run_cell("%%agent --toolset none\nHello again?")
    second = capsys.readouterr().out
    assert "Set OPENAI_API_KEY" in first and "Set OPENAI_API_KEY" not in second
    assert "Offline model (no provider key set)." in second


def test_config_model_is_used_when_no_m(shell):
    agent = magics(shell)
    shell.run_line_magic("config", "AgentMagics.model = 'offline'")
    try:
        assert agent.model == "offline"
        plan = agent.plans("", "hi")[0]
        assert plan.runtime.model.name == "offline"
        assert not any("no provider key" in note for note in plan.notes)
    finally:
        agent.model = None
        # %config also wrote the shell's config, which an AgentMagics made later (a load
        # after %unload_ext in this worker) would read as its model.
        shell.config.AgentMagics.pop("model", None)


def test_dash_m_naming_nothing_is_a_clear_error(shell):
    with pytest.raises(UsageError, match="names neither a notebook variable"):
        magics(shell).plans("-m gpt4", "hi")
    shell.user_ns["x"] = 3
    with pytest.raises(UsageError, match="holds a int, not a model"):
        magics(shell).plans("-m x", "hi")
    with pytest.raises(UsageError, match="unknown provider 'nosuch'"):
        magics(shell).plans("-m nosuch:model", "hi")


def test_an_empty_cell_is_a_clear_error(shell):
    with pytest.raises(UsageError, match="the cell is empty"):
        magics(shell).plans("", "   \n  ")


def test_tools_by_name_must_exist(shell):
    with pytest.raises(UsageError, match="--tools names 'nope', which is no tool"):
        magics(shell).plans("--tools nope", "hi")


def test_sessions_continue_a_conversation_and_new_restarts_it(shell):
    shell.user_ns["m"] = op.ScriptedModel(["first answer", "second answer", "fresh answer"])
    assert shell.run_cell("%%agent -m m -s chat\nQuestion one").success
    assert shell.run_cell("%%agent -m m -s chat -o r\nQuestion two").success
    model = shell.user_ns["m"]
    second_request = [message.text for message in model.requests[1].messages]
    assert second_request == ["Question one", "first answer", "Question two"]
    assert shell.run_cell("%%agent -m m -s chat --new\nQuestion three").success
    assert [message.text for message in model.requests[2].messages] == ["Question three"]
    session = magics(shell).sessions.get("chat")
    assert len(session.runs) == 1 and len(session.messages) == 2


def test_agent_tools_lists_schema_and_hiding_layer(shell, capsys):
    @op.function
    def visible(a: int) -> int:
        """Visible tool."""
        return a

    @op.function(expose=False)
    def hidden(a: int) -> int:
        """Hidden tool."""
        return a

    shell.run_line_magic("agent", "tools")
    out = capsys.readouterr().out
    assert "visible: on the menu" in out
    assert "hidden: hidden by expose=False" in out
    assert '"type": "integer"' in out


def test_agent_line_magic_rejects_unknown_commands(shell):
    with pytest.raises(UsageError, match="expected one of"):
        shell.run_line_magic("agent", "frobnicate")
    with pytest.raises(UsageError, match="no variable 'zzz'"):
        shell.run_line_magic("agent", "show zzz")


def test_agent_show_prints_the_transcript_outside_a_kernel(shell, capsys):
    shell.user_ns["m"] = op.ScriptedModel(["shown again"])
    assert shell.run_cell("%%agent -m m -o r\nhi").success
    capsys.readouterr()
    shell.run_line_magic("agent", "show r")
    assert "shown again" in capsys.readouterr().out


def test_without_any_key_a_cell_runs_on_the_offline_model(shell):
    # The shell fixture clears every key variable; a cell naming no model still runs.
    assert not any(os.environ.get(k) for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"))
    assert shell.run_cell("%%agent -o r --toolset none\nHello?").success
    run = shell.user_ns["r"]
    assert (run.model, run.stop_reason, run.tool_results) == ("offline", "stop", [])
    assert run.text.startswith("This is the offline model: no language model ran")


def test_the_documented_usage_is_the_generated_one():
    from pathlib import Path

    from openprogram_jupyter.jupyter._options import USAGE

    notebook_doc = Path(__file__).resolve().parents[2] / "docs" / "notebook.md"
    assert USAGE in notebook_doc.read_text(), "docs/notebook.md shows an old %%agent usage: paste the new one"


def test_the_live_view_redraws_at_the_configured_rate(shell, monkeypatch):
    # The rate a cell actually uses (not one a widget test picks for itself): 10/s unless
    # %config AgentMagics.updates_per_second says otherwise.
    from openprogram_jupyter.jupyter import _cell

    made = []
    real = _cell.LiveRun

    def recording(*args, **kwargs):
        made.append(kwargs["max_hz"])
        return real(*args, **kwargs)

    monkeypatch.setattr(_cell, "LiveRun", recording)
    shell.user_ns["m"] = op.ScriptedModel(["hi", "hi"])
    shell.run_cell("%%agent -m m --toolset none\nHello?")
    shell.run_line_magic("config", "AgentMagics.updates_per_second = 4.0")
    try:
        shell.run_cell("%%agent -m m --toolset none\nHello?")
    finally:
        shell.run_line_magic("config", "AgentMagics.updates_per_second = 10.0")
    assert made == [10.0, 4.0]


@pytest.mark.parametrize("cap", ["0", "1", "3"])
def test_max_iterations_in_a_cell_means_what_it_means_in_python(shell, cap):
    """--max-iterations 0 meant no cap in a cell and one round in Python: one meaning now."""

    def model():
        return op.ScriptedModel([op.ToolCall(name="add", arguments={"a": i, "b": 1}) for i in range(10)])

    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    shell.user_ns["add"] = add
    shell.user_ns["m"] = cell_model = model()
    result = shell.run_cell(f"%%agent -m m -o r --tools add --max-iterations {cap}\nAdd forever.")
    assert result.success, result.error_in_exec
    python_model = model()
    python_run = op.Runtime(model=python_model).run("Add forever.", tools=[add], max_iterations=int(cap))
    assert len(cell_model.requests) == len(python_model.requests) == max(1, int(cap))
    assert shell.user_ns["r"].stop_reason == python_run.stop_reason == "max_iterations"


def test_running_a_scripted_cell_again_replays_its_rounds(shell):
    """Re-running a cell is normal notebook use; the script ran out ("round 3 was
    requested") the second time. Cells run in order still go on through the script."""
    shell.user_ns["m"] = op.ScriptedModel(["first answer", "second answer"])
    for _ in range(3):
        result = shell.run_cell("%%agent -m m -o r\nOne.")
        assert result.success, result.error_in_exec
        assert shell.user_ns["r"].text == "first answer"
    result = shell.run_cell("%%agent -m m -o r\nTwo.")  # another cell: the next item
    assert result.success and shell.user_ns["r"].text == "second answer"
    result = shell.run_cell("%%agent -m m -o r\nOne.")  # the first cell again
    assert result.success and shell.user_ns["r"].text == "first answer"
    call_ids = [
        c.id for request in shell.user_ns["m"].requests for m in request.messages for c in getattr(m, "tool_calls", [])
    ]
    assert len(call_ids) == len(set(call_ids))


def test_a_runtime_variable_in_m_runs_with_that_runtime(shell):
    """A local server is reached with op.Runtime(model=..., base_url=...): -m rt was refused
    ("holds a Runtime, not a model")."""
    shell.user_ns["m"] = model = op.ScriptedModel(["from the runtime"])
    shell.user_ns["x"] = rt = op.Runtime(model=model, system="Be brief.")
    result = shell.run_cell("%%agent -m x -o r\nHello.")
    assert result.success, result.error_in_exec
    assert shell.user_ns["r"].text == "from the runtime" and model.requests[0].system == "Be brief."
    assert rt.last_run is shell.user_ns["r"]


# -- settings as flags -----------------------------------------------------------------------


def test_help_shows_every_flag_with_its_help_as_written(shell):
    from openprogram_jupyter.jupyter._options import FLAGS, HelpRequested

    with pytest.raises(HelpRequested) as raised:
        parse_options("-h")
    shown = " ".join(raised.value.text.split())  # argparse wraps lines
    assert "%(" not in shown and "option_strings" not in shown
    for flag in FLAGS:
        assert flag.names[-1] in shown, flag
        assert " ".join(flag.help.split()[:6]) in shown, flag.help
    assert "see them with %agent wire VAR" in shown, "a % in a help string is text, not a format code"


def test_a_bad_flag_is_one_line(shell):
    with pytest.raises(UsageError) as raised:
        parse_options("--frobnicate")
    assert str(raised.value) == "%%agent: unrecognized arguments: --frobnicate (%%agent -h lists every option)"


def test_wire_and_record_keep_the_runtimes_other_settings(shell, tmp_path):
    @op.function
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    shell.user_ns["rt"] = op.Runtime(
        model=op.ScriptedModel([op.ToolCall(name="add", arguments={"a": 1, "b": 2}), "It is 3."]),
        text_tool_calls=True,
        max_iterations=7,
    )
    cassette = tmp_path / "c.json"
    assert shell.run_cell(f"%%agent -m rt -o r --wire --record {cassette} --tools add\nAdd.").success
    run = shell.user_ns["r"]
    assert run.spec.settings["text_tool_calls"] is True
    assert run.spec.settings["max_iterations"] == 7, "the cell's Runtime's own round cap applies"
    assert run.spec.settings["capture_wire"] is True and run.wire_log is not None
    assert len(json.loads(cassette.read_text())["rounds"]) == 2
    assert shell.user_ns["rt"].settings["capture_wire"] is False, "the notebook's Runtime is left as it was"
