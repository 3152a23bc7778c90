"""How an ``%%agent`` cell ends when something goes wrong, in one process (no kernel).

The awaited form is what the cell rewrite runs in a kernel (``await
_openprogram_agent_cell(line, body)``, called here the same way); the blocking form is the
plain magic, which a terminal shell runs. Both must end alike: a failure fails the cell
after its transcript, an interrupt stops the run — even one that does not stop when
asked — and the Run stays in ``-o``, ``runtime.last_run`` and the saved transcript.
"""

from __future__ import annotations

import _thread
import asyncio
import sys
import threading
import time

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.core.errors import SetupError
from openprogram_jupyter.engine import execute as engine
from openprogram_jupyter.jupyter._cell import click_path
from openprogram_jupyter.jupyter._cell_errors import RunInterrupted
from openprogram_jupyter.jupyter._transformer import CELL_FUNCTION


@pytest.fixture(autouse=True)
def _fresh_registry(clean_registry):
    yield


@pytest.fixture
def notebook_runtime(shell):
    """The notebook's ``runtime`` (what a cell without ``-m`` runs), restored afterwards."""
    runtime = shell.user_ns["runtime"]
    model, grace, last_run = runtime.model_spec, runtime.cancel_grace, runtime.last_run
    yield runtime
    runtime.model, runtime.cancel_grace, runtime.last_run = model, grace, last_run


async def awaited(shell, line: str, body: str) -> None:
    """Run a cell as its rewrite in a kernel does."""
    await shell.user_ns[CELL_FUNCTION](line, body)


LET_GO = (
    "Interrupted (Kernel ▸ Interrupt): the run had not stopped when the cell stopped waiting "
    "(after {grace} s, or at a second interrupt); it was cancelled and ends on its own. "
    "The transcript up to that point is kept in r."
)


class StubbornModel(op.Model):
    """Streams a few words, then works on through the first ``swallow`` cancellations, as
    an SDK call that does not notice them would; it gives up at the next, or when released."""

    name = "stubborn"

    def __init__(self, swallow: int = 1) -> None:
        self.streaming = threading.Event()
        self.released = threading.Event()
        self.cancellations = 0
        self.swallow = swallow

    async def stream(self, request, out):
        yield out.text_delta("Working on it")
        self.streaming.set()
        while not self.released.is_set():
            try:
                await asyncio.sleep(0.02)
            except asyncio.CancelledError:
                self.cancellations += 1
                if self.cancellations > self.swallow:
                    raise
        out.finish()


async def until(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


@pytest.fixture(autouse=True)
def _ctrl_c_raises(sigint_raises):
    yield


def interrupt_main_when(ready: threading.Event, times: int = 1, gap: float = 0.3) -> threading.Thread:
    """Kernel ▸ Interrupt for a blocking cell: ``KeyboardInterrupt`` in the main thread,
    ``times`` times, once ``ready`` is set."""

    def interrupt() -> None:
        ready.wait(30)
        time.sleep(0.2)  # a person's click comes after the cell is waiting, not inside start()
        for _ in range(times):
            _thread.interrupt_main()
            time.sleep(gap)

    thread = threading.Thread(target=interrupt, daemon=True)
    thread.start()
    return thread


# -- failures ---------------------------------------------------------------------------------


async def test_an_awaited_cell_whose_decision_never_parses_fails_and_keeps_the_run(shell, capsys):
    shell.user_ns["options"] = ["a", "b"]
    shell.user_ns["m"] = op.ScriptedModel(["no idea", "still no idea"])
    with pytest.raises(op.DecisionError):
        await awaited(shell, "-m m --choices options -o r", "Pick one.")
    run = shell.user_ns["r"]  # no decision to store, so -o keeps the Run itself
    assert run is shell.user_ns["runtime"].last_run and run.decision is None
    assert [m.role for m in run.messages].count("assistant") == 2
    out = capsys.readouterr().out
    assert "The run failed: DecisionError:" in out and "still no idea" in out


async def test_an_awaited_cell_whose_picked_option_raises_fails_and_keeps_the_run(shell, capsys):
    def book(city: str) -> str:
        raise ValueError(f"no trains to {city}")

    shell.user_ns["options"] = {"book": book, "stay": "stay home"}
    shell.user_ns["m"] = op.ScriptedModel(['{"call": "book", "args": {"city": "Oslo"}}'])
    with pytest.raises(ValueError, match=r"^no trains to Oslo$"):
        await awaited(shell, "-m m --choices options -s awaited-trip -o r", "Book or stay?")
    run = shell.user_ns["r"]
    assert isinstance(run, op.Run) and run.stop_reason == "stop" and run is shell.user_ns["runtime"].last_run
    assert shell.magics_manager.registry["AgentMagics"].sessions.get("awaited-trip").runs == [run]
    assert "The run failed: ValueError: no trains to Oslo" in capsys.readouterr().out


def _fail_to_start(monkeypatch, error: BaseException) -> None:
    """A fault below the cell: the run raises before it exists (nothing was sent, no tool ran)."""

    async def execute(runtime, spec, *, on_created=None):
        raise error

    monkeypatch.setattr(engine, "execute", execute)


@pytest.mark.parametrize("form", ["awaited", "blocking"])
async def test_a_run_that_cannot_start_says_so_in_place_of_a_transcript(shell, capsys, monkeypatch, form):
    _fail_to_start(monkeypatch, SetupError("the menu changed under the run"))
    shell.user_ns["m"] = op.ScriptedModel(["never asked"])
    with pytest.raises(UsageError, match=r"^%%agent: the menu changed under the run$"):
        if form == "awaited":
            await awaited(shell, "-m m -o r", "Hi.")
        else:
            shell.run_cell_magic("agent", "-m m -o r", "Hi.")
    assert "The run could not start: the menu changed under the run" in capsys.readouterr().out
    assert "r" not in shell.user_ns and shell.user_ns["m"].requests == []


async def test_an_awaited_cell_whose_run_breaks_before_it_exists_reraises_and_says_so(shell, capsys, monkeypatch):
    _fail_to_start(monkeypatch, RuntimeError("a bug below the cell"))
    shell.user_ns["m"] = op.ScriptedModel(["never asked"])
    with pytest.raises(RuntimeError, match=r"^a bug below the cell$"):
        await awaited(shell, "-m m -o r", "Hi.")
    out = capsys.readouterr().out
    assert "The run failed: RuntimeError: a bug below the cell" in out
    assert "r" not in shell.user_ns


async def test_a_run_that_breaks_before_it_exists_does_not_show_the_runtimes_earlier_run(shell, capsys, monkeypatch):
    """The cell's Runtime (``-m rt``) ran before: a run of this cell that never began must
    not be taken for it — not shown, not stored in ``-o``."""
    shell.user_ns["rt"] = rt = op.Runtime(model=op.ScriptedModel(["The earlier answer."]))
    rt.run("Earlier.")
    _fail_to_start(monkeypatch, RuntimeError("a bug below the cell"))
    with pytest.raises(RuntimeError, match=r"^a bug below the cell$"):
        await awaited(shell, "-m rt -o r", "Hi.")
    out = capsys.readouterr().out
    assert "The run failed: RuntimeError: a bug below the cell" in out
    assert "The earlier answer." not in out and "r" not in shell.user_ns


def test_a_background_run_that_cannot_start_says_so_and_its_handle_raises_why(shell, capsys, monkeypatch):
    _fail_to_start(monkeypatch, RuntimeError("a bug below the cell"))
    shell.user_ns["m"] = op.ScriptedModel(["never asked"])
    try:
        shell.run_cell_magic("agent", "-m m --background -o r", "Hi.")  # no event loop: the view ticks on a thread
        handle = shell.user_ns["r"]
        with pytest.raises(RuntimeError, match=r"^a bug below the cell$"):
            handle.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(t.name == "openprogram-view" for t in threading.enumerate()) and time.monotonic() < deadline:
            time.sleep(0.05)
        out = capsys.readouterr().out
        assert "Running in the background: r holds the handle" in out
        assert "The run failed: RuntimeError: a bug below the cell" in out  # as an awaited cell says it
        assert handle.run is None and shell.user_ns["m"].requests == []
    finally:
        shell.user_ns.pop("r", None)


# -- interrupts -------------------------------------------------------------------------------


async def test_an_awaited_run_that_ignores_the_interrupt_is_let_go_after_the_grace(shell, notebook_runtime, capsys):
    model = StubbornModel()
    notebook_runtime.model, notebook_runtime.cancel_grace = model, 0.0  # grace: 0 + 3 s
    cell = asyncio.ensure_future(awaited(shell, "-o r", "Work."))
    try:
        await until(model.streaming.is_set, "the model to stream")
        interrupted = time.monotonic()
        cell.cancel()  # Kernel ▸ Interrupt, as an awaited cell receives it
        with pytest.raises(RunInterrupted, match="the Run is in r"):
            await cell
        waited = time.monotonic() - interrupted
        assert 2.5 <= waited < 20, f"the cell should wait out the 3 s grace, then stop waiting; waited {waited:.1f} s"
        run = shell.user_ns["r"]
        assert run is notebook_runtime.last_run
        out = capsys.readouterr().out
        assert "Working on it" in out and LET_GO.format(grace=3) in out
        # Let go, not abandoned: the second cancellation ends the run as aborted.
        await until(lambda: run.stop_reason is not None, "the run to end")
        assert (run.stop_reason, model.cancellations) == ("aborted", 2)
    finally:
        model.released.set()


async def test_a_second_interrupt_ends_an_awaited_cell_at_once(shell, notebook_runtime, capsys):
    model = StubbornModel()
    notebook_runtime.model, notebook_runtime.cancel_grace = model, 30.0  # grace: 33 s
    cell = asyncio.ensure_future(awaited(shell, "-o r", "Work."))
    try:
        await until(model.streaming.is_set, "the model to stream")
        interrupted = time.monotonic()
        cell.cancel()
        await asyncio.sleep(0.3)
        assert not cell.done(), "the first interrupt should wait for the stubborn run"
        cell.cancel()
        with pytest.raises(RunInterrupted):
            await cell
        assert time.monotonic() - interrupted < 15, "a second interrupt should not wait out the 33 s grace"
        run = shell.user_ns["r"]
        assert run is notebook_runtime.last_run
        out = capsys.readouterr().out
        assert "Working on it" in out and LET_GO.format(grace=33) in out
        await until(lambda: run.stop_reason is not None, "the run to end")
        assert run.stop_reason == "aborted"
    finally:
        model.released.set()


@pytest.mark.parametrize("interrupts, grace", [(1, 0.0), (2, 30.0)], ids=["grace-runs-out", "second-interrupt"])
def test_a_blocking_cell_interrupted_keeps_the_run_even_when_the_run_will_not_stop(
    shell, notebook_runtime, capsys, interrupts, grace
):
    model = StubbornModel()
    notebook_runtime.model, notebook_runtime.cancel_grace = model, grace
    interrupter = interrupt_main_when(model.streaming, times=interrupts)
    try:
        started = time.monotonic()
        result = shell.run_cell("%%agent -o r\nWork.")
        took = time.monotonic() - started
        interrupter.join(30)
        assert isinstance(result.error_in_exec, RunInterrupted), result.error_in_exec
        if interrupts == 1:
            assert 2.5 <= took < 20, f"the cell should wait out the 3 s grace, then stop waiting; took {took:.1f} s"
        else:
            assert took < 15, "a second interrupt should not wait out the 33 s grace"
        run = shell.user_ns["r"]
        assert run is notebook_runtime.last_run
        out = capsys.readouterr().out
        assert "Working on it" in out and LET_GO.format(grace=f"{grace + 3:g}") in out
    except KeyboardInterrupt:  # an interrupt that came after the cell ended
        pytest.fail("an interrupt arrived after the cell had ended")
    finally:
        model.released.set()


# -- where clicks cannot arrive ---------------------------------------------------------------


def test_a_terminal_cell_asks_for_approval_on_the_terminal_with_secrets_masked(shell, capsys, monkeypatch):
    @op.function(requires_approval=True)
    def send(text: str) -> str:
        """Send a message."""
        sent.append(text)
        return "sent"

    sent: list[str] = []
    questions: list[str] = []
    answers = iter(["y", "no"])
    monkeypatch.setattr("builtins.input", lambda question: questions.append(question) or next(answers))
    shell.user_ns["m"] = op.ScriptedModel(
        [
            op.ToolCall(name="send", arguments={"text": "hi with sk-abcdef1234567890"}),
            op.ToolCall(name="send", arguments={"text": "\x1b[2Jcleared"}),
            "Done.",
        ]
    )
    result = shell.run_cell("%%agent -m m -o r --tools send\nSend two messages.")
    assert result.success, result.error_in_exec
    assert sent == ["hi with sk-abcdef1234567890"]  # the first was allowed, the second refused
    assert questions[0] == "Allow send({'text': 'hi with sk-***'})? [y/N] "
    assert questions[1] == "Allow send({'text': '\\x1b[2Jcleared'})? [y/N] " and "\x1b" not in questions[1]
    results = [m.text for m in shell.user_ns["r"].tool_results]
    assert results == ["sent", "denied: the user did not approve this call to send"]


@pytest.mark.parametrize(
    "version, words",
    [
        ("7.2.1", "ipykernel 7.2.1 may hold clicks until the cell ends: use Kernel ▸ Interrupt to stop it"),
        ("6.29.5", "ipykernel 6.29.5 handles clicks only after a cell ends: use Kernel ▸ Interrupt to stop it"),
    ],
)
async def test_an_awaited_cell_on_an_older_ipykernel_says_how_to_stop_it(shell, capsys, monkeypatch, version, words):
    import ipykernel

    monkeypatch.setattr(ipykernel, "__version__", version)
    monkeypatch.setitem(sys.modules, "jupyter_ui_poll", None)  # the legacy-kernel extra is not installed
    assert click_path(shell, "awaited").note.startswith(words)
    shell.user_ns["m"] = op.ScriptedModel(["Hello."])
    await awaited(shell, "-m m -o r", "Hi.")
    assert words in capsys.readouterr().out  # the transcript's notes keep it
    assert click_path(shell, "blocking").clicks is False
    monkeypatch.setattr(ipykernel, "__version__", "7.4.0")
    assert click_path(shell, "awaited").note is None


# -- side by side -----------------------------------------------------------------------------

STOPPED = "Interrupted (Kernel ▸ Interrupt): the run was stopped; the transcript up to that point is kept in r."


@pytest.fixture
def one_stops_one_will_not(shell):
    """``-m a,b``: ``a`` stops when asked, ``b`` ignores the first cancellation."""
    shell.user_ns["a"], shell.user_ns["b"] = StubbornModel(swallow=0), StubbornModel(swallow=1)
    yield shell.user_ns["a"], shell.user_ns["b"]
    for name in ("a", "b"):
        shell.user_ns.pop(name).released.set()


def assert_each_run_says_how_it_ended(shell, out: str) -> None:
    runs = shell.user_ns["r"]
    assert list(runs) == ["a", "b"] and runs["a"].stop_reason == "aborted"
    part_a, part_b = out.split("== b ==")
    assert STOPPED in part_a and "had not stopped" not in part_a
    assert LET_GO.format(grace="3.5") in part_b  # each runtime's cancel_grace 0.5 + 3 s
    assert runs["b"].stop_reason is None, "b had not stopped when the cell stopped waiting"


async def test_an_interrupted_side_by_side_cell_lets_go_of_a_run_that_will_not_stop(
    shell, one_stops_one_will_not, capsys
):
    a, b = one_stops_one_will_not
    cell = asyncio.ensure_future(awaited(shell, "-m a,b -o r", "Work."))
    await until(lambda: a.streaming.is_set() and b.streaming.is_set(), "both models to stream")
    interrupted = time.monotonic()
    cell.cancel()
    with pytest.raises(RunInterrupted):
        await cell
    assert 3.0 <= time.monotonic() - interrupted < 20, "the cell waits out the grace for b, then stops waiting"
    assert_each_run_says_how_it_ended(shell, capsys.readouterr().out)
    run_b = shell.user_ns["r"]["b"]
    await until(lambda: run_b.stop_reason is not None, "b to end")
    assert (run_b.stop_reason, b.cancellations) == ("aborted", 2), "let go, b ends at the next cancellation"


def test_an_interrupted_blocking_side_by_side_cell_lets_go_of_a_run_that_will_not_stop(
    shell, one_stops_one_will_not, capsys
):
    a, b = one_stops_one_will_not
    both = threading.Event()
    threading.Thread(target=lambda: (a.streaming.wait(30), b.streaming.wait(30), both.set()), daemon=True).start()
    interrupter = interrupt_main_when(both)
    try:
        started = time.monotonic()
        result = shell.run_cell("%%agent -m a,b -o r\nWork.")
        took = time.monotonic() - started
        interrupter.join(30)
    except KeyboardInterrupt:
        pytest.fail("an interrupt arrived after the cell had ended")
    assert isinstance(result.error_in_exec, RunInterrupted), result.error_in_exec
    assert 3.0 <= took < 20, f"the cell waits out the grace for b, then stops waiting; took {took:.1f} s"
    assert_each_run_says_how_it_ended(shell, capsys.readouterr().out)
    b.released.set()  # b's call returns at last (its run's own thread was waiting on it)
    run_b = shell.user_ns["r"]["b"]
    deadline = time.monotonic() + 30
    while run_b.stop_reason is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert run_b.stop_reason == "aborted"


def test_step_mode_in_a_terminal_offers_run_edit_skip_and_stop(shell, monkeypatch):
    """It offered only y/N."""
    ran: list[tuple[int, int]] = []

    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        ran.append((a, b))
        return a + b

    questions: list[str] = []
    answers = iter(
        ["r", "e", "[1, 2]", "e", '{"a": "x", "b": 1}', "e", '{"a": 20, "b": 22}', "huh", "s", "three is plenty", "t"]
    )
    monkeypatch.setattr("builtins.input", lambda question: questions.append(question) or next(answers))
    shell.user_ns["m"] = op.ScriptedModel(
        [op.ToolCall(name="add", arguments={"a": i, "b": i}) for i in (1, 2, 3, 4)] + ["never"]
    )
    result = shell.run_cell("%%agent --step -m m -o r --tools add\nAdd some numbers.")
    assert result.success, result.error_in_exec
    run = shell.user_ns["r"]
    assert ran == [(1, 1), (20, 22)]
    assert [(t.status, t.details.get("approval")) for t in run.tool_results] == [
        ("done", "approved"),
        ("done", "edited"),
        ("skipped", "skipped"),
        ("cancelled", None),
    ]
    assert "three is plenty" in run.tool_results[2].text and run.stop_reason == "aborted"
    assert questions[0] == "add({'a': 1, 'b': 1}): [r]un, [e]dit, [s]kip or s[t]op? "
    assert questions.count("arguments as JSON: ") == 3  # a list, then a schema mistake, were asked again


@pytest.mark.parametrize("form", ["awaited", "blocking"])
async def test_a_side_by_side_run_that_breaks_is_shown_beside_the_other_and_fails_the_cell(
    shell, capsys, monkeypatch, form
):
    """One driver for every foreground cell: a run of a side-by-side cell that raises is
    reported in its column and re-raised, as a cell on one model does — not passed over
    as a run that "left no record"."""
    real = engine.execute

    async def execute(runtime, spec, *, on_created=None):
        if runtime.model.name == "b":
            raise RuntimeError("b broke below the cell")
        return await real(runtime, spec, on_created=on_created)

    monkeypatch.setattr(engine, "execute", execute)
    shell.user_ns["a"] = op.ScriptedModel(["A answers."], name="a")
    shell.user_ns["b"] = op.ScriptedModel(["never asked"], name="b")
    with pytest.raises(RuntimeError, match=r"^b broke below the cell$"):
        if form == "awaited":
            await awaited(shell, "-m a,b -o r", "Hi.")
        else:
            shell.run_cell_magic("agent", "-m a,b -o r", "Hi.")
    part_a, part_b = capsys.readouterr().out.split("== b ==")
    assert "A answers." in part_a and "The run failed" not in part_a
    assert "The run failed: RuntimeError: b broke below the cell" in part_b and "left no record" not in part_b
    runs = shell.user_ns["r"]
    assert runs["a"].text == "A answers." and runs["b"] is None
