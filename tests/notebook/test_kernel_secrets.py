"""Real kernel: a key of an unusual shape, read from the environment, is echoed by a tool's
exception and by a provider's 401 — and is nowhere in the saved notebook (docs/faults.md,
"Secrets"). The provider is the real OpenAI client against the loopback fake server."""

from __future__ import annotations

import nbformat
import pytest
from fakeserver import Call, FakeServer, Turn

from .kernels import STATIC_MIMES, WIDGET_VIEW, live_kernel, outputs_mimes, plain_output

pytestmark = pytest.mark.slow

KEY = "gsk_live4Q9zXbT2mW7pLr8sVn3yHc6JdE"  # made up, shaped like no pattern the masker knows

SETUP = """\
import os
os.environ['OPENAI_BASE_URL'] = {url!r}
%load_ext openprogram_jupyter
import openprogram_jupyter as op

@op.function
def connect(host: str) -> str:
    '''Connect to a host.'''
    raise PermissionError(f"{{host}} refused the token {{os.environ['OPENAI_API_KEY']}}")
"""


async def test_a_key_echoed_by_a_tool_and_a_401_is_nowhere_in_the_saved_notebook(kernel_name, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the kernel inherits it: the key is never in a cell
    with FakeServer() as server:
        server.script(
            Turn(calls=[Call("connect", {"host": "db"})]), Turn.http_error(401, f"Incorrect API key provided: {KEY}.")
        )
        async with live_kernel(kernel_name) as kernel:
            await kernel.text(SETUP.format(url=server.openai_base_url))
            cell = await kernel.run("%%agent -m openai:gpt-4.1-mini -o r --tools connect\nConnect to db.")

            # The cell ended with the transcript at rest: static views only, no widget left.
            assert outputs_mimes(cell) and all(mimes == STATIC_MIMES for mimes in outputs_mimes(cell))
            assert all(WIDGET_VIEW not in o.get("data", {}) for o in cell.outputs)
            shown = plain_output(cell)
            assert "connect raised PermissionError: db refused the token ***" in shown
            assert "Incorrect API key provided: ***." in shown
            # What the model was sent in round 2 had the key masked too.
            assert server.bodies()[1]["messages"][-1]["content"].endswith("refused the token ***")

            # The kernel is alive, and the Run it keeps holds no key either.
            answer = await kernel.text(
                "kept = [str(r.error), repr(r), r._repr_html_(), r.tool_results[0].details['traceback'],\n"
                "        *(e.model_dump_json() for e in r.events)]\n"
                "print(r.stop_reason, any(os.environ['OPENAI_API_KEY'] in text for text in kept))"
            )
            assert answer.split() == ["error", "False"]

        saved = nbformat.writes(kernel.notebook)
        assert KEY not in saved and KEY[4:20] not in saved
        assert saved.count("***") >= 6  # the error and the tool's message, in each of the three views


TYPED = "sk-typed-in-kernel-4Q9zXbT2mW7pLr8s"  # reaches the kernel through its environment, never a cell

ASK_AND_SET = """\
import getpass, os
# ipykernel puts its own getpass in place for each cell (nbclient cannot answer it): answer here.
getpass.getpass = lambda prompt='': os.environ.pop('OPENPROGRAM_TEST_TYPED_KEY')
get_ipython().run_line_magic('agent', 'key openai')
"""


async def test_a_key_typed_with_agent_key_is_used_and_nowhere_in_the_saved_notebook(kernel_name, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENPROGRAM_TEST_TYPED_KEY", TYPED)
    with FakeServer() as server:
        server.expected_key = TYPED  # the fake API answers 401 to any other key
        server.script(Turn(text="Hello from the fake API."))
        async with live_kernel(kernel_name) as kernel:
            await kernel.text(SETUP.format(url=server.openai_base_url))
            asked = await kernel.run(ASK_AND_SET)
            assert "OPENAI_API_KEY is set for this kernel" in plain_output(asked), asked.outputs
            await kernel.run("%%agent -m openai:gpt-4.1-mini -o r --toolset none\nSay hello.")
            answer = await kernel.text("print(r.stop_reason, r.text)")
            assert answer.strip() == "stop Hello from the fake API."
        assert server.rejections == []
        saved = nbformat.writes(kernel.notebook)
        assert TYPED not in saved and TYPED[8:24] not in saved
