"""op.evaluate on a provider's model, against the loopback server: the runs share one SDK
client, in this process and on an executor's."""

from __future__ import annotations

import concurrent.futures
import re
import threading

import openai
from fakeserver import Call, FakeServer, Turn

import openprogram_jupyter as op
from openprogram_jupyter.lab.evaluation._job_loop import close_job_loop, job_loop
from openprogram_jupyter.models.openai_chat import OpenAIChatModel

from .scenario import plain_add, prompts, right_sum


def adds(recorded, wire) -> Turn:
    """Calls add with the prompt's two numbers, then answers with the result it got."""
    messages = recorded.body["messages"]
    if wire.result_count(recorded.body) == 0:
        a, b = (int(n) for n in re.findall(r"\d+", messages[-1]["content"]))
        return Turn(calls=[Call("add", {"a": a, "b": b})])
    return Turn(text=f"The sum is {messages[-1]['content']}.")


def evaluate_counting_clients(monkeypatch, executor=None):
    """``op.evaluate`` of 8 sums on ``openai:gpt-4.1-mini`` against the loopback server,
    concurrency 4, on ``executor``; returns the evaluation and the names of the threads each
    SDK client was made on, one per client. Checks the server got the 16 requests."""
    made = []
    make_client = OpenAIChatModel._make_client

    def counted(self):
        made.append(threading.current_thread().name)
        return make_client(self)

    monkeypatch.setattr(OpenAIChatModel, "_make_client", counted)
    with FakeServer() as server:
        server.responder = adds
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
        ev = op.evaluate(
            prompts(8),
            models=["openai:gpt-4.1-mini"],
            tools=[plain_add],
            expect=right_sum,
            concurrency=4,
            executor=executor,
            progress=False,
        )
        assert len(server.requests) == 16
    return ev, made


def test_the_runs_of_a_provider_model_share_one_sdk_client(monkeypatch):
    ev, made = evaluate_counting_clients(monkeypatch)
    assert [row.verdict for row in ev.rows] == ["pass"] * 8
    assert len(made) == 1  # one client for the evaluation's event loop, not one per run


def test_the_jobs_an_executor_runs_in_one_process_share_one_loop_and_one_sdk_client(monkeypatch):
    # Each job travels to the executor alone (a Dask worker unpickles a model of its own for
    # each); a process running several runs them on one loop with one model and one client.
    with concurrent.futures.ThreadPoolExecutor(4) as executor:
        ev, made = evaluate_counting_clients(monkeypatch, executor)
    assert [row.verdict for row in ev.rows] == ["pass"] * 8
    assert made == ["openprogram-evaluation-jobs"], made


def test_closing_the_job_loop_closes_the_client_made_on_it_once(monkeypatch):
    # What the interpreter's exit calls (atexit): the loop is stopped and closed, and the
    # client made on it is closed with it; a later job gets a loop of its own.
    assert close_job_loop() is True  # the loop of the tests before, and their clients
    closes = []
    original = openai.AsyncOpenAI.close

    async def close(self):
        await original(self)
        closes.append(type(self).__name__)

    monkeypatch.setattr(openai.AsyncOpenAI, "close", close)
    with FakeServer() as server, concurrent.futures.ThreadPoolExecutor(2) as executor:
        server.script(Turn(text="hello"), Turn(text="hello"))
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
        ev = op.evaluate(["hi", "hi again"], models=["openai:gpt-4.1-mini"], executor=executor, progress=False)
        loop = job_loop()
        assert [row.answer for row in ev.rows] == ["hello", "hello"] and closes == []
        assert close_job_loop() is True
    assert loop.is_closed() and closes == ["AsyncOpenAI"]
    assert job_loop() is not loop and close_job_loop() is True
