"""Real kernel: after ``%load_ext`` a background thread loads what the first ``%%agent``
cell needs — the core, the live view and the default provider's SDK — sending nothing
(``jupyter/_warm_up.py``); ``OPENPROGRAM_WARM_UP=0`` turns it off."""

from __future__ import annotations

import json

import pytest
from fakeserver import FakeServer, Turn

from .kernels import live_kernel, plain_output

pytestmark = pytest.mark.slow

SETUP = """\
import os, sys
for name in ('OPENPROGRAM_MODEL', 'OPENPROGRAM_WARM_UP', *(n for n in list(os.environ) if n.endswith('_API_KEY'))):
    os.environ.pop(name, None)
os.environ['OPENAI_API_KEY'] = 'sk-warm-up-test'
os.environ['OPENAI_BASE_URL'] = {url!r}
{switch}
%load_ext openprogram_jupyter
"""
LOADED = """\
import json, sys
from openprogram_jupyter.jupyter import _warm_up
thread = _warm_up._running
if thread is not None:
    thread.join(60)
print(json.dumps({{"thread": None if thread is None else thread.name,
                   "alive": thread is not None and thread.is_alive(),
                   "loaded": [m for m in {modules!r} if m in sys.modules]}}))
"""
MODULES = [
    "openai",
    "anthropic",
    "pydantic",
    "ipywidgets",
    "openprogram_jupyter.engine.loop",
    "openprogram_jupyter.jupyter._view",
    "openprogram_jupyter.models.openai_chat",
]


async def test_load_ext_warms_the_default_provider_in_the_background_and_sends_nothing(kernel_name):
    with FakeServer() as server:
        server.script(Turn(text="Hello from the fake server."))
        async with live_kernel(kernel_name) as kernel:
            await kernel.text(SETUP.format(url=server.openai_base_url, switch=""))
            state = json.loads(await kernel.text(LOADED.format(modules=MODULES)))
            assert state["thread"] == "openprogram-warm-up" and not state["alive"]
            # The default model is openai's (its key is set): its SDK is loaded, anthropic's is not.
            assert state["loaded"] == [m for m in MODULES if m != "anthropic"]
            assert server.requests == []

            # The first cell after the warm-up runs as ever.
            cell = await kernel.run("%%agent\nSay hello.")
            assert "Hello from the fake server." in plain_output(cell)
            assert len(server.requests) == 1


async def test_with_warm_up_off_load_ext_loads_no_sdk_and_no_view(kernel_name):
    with FakeServer() as server:
        async with live_kernel(kernel_name) as kernel:
            await kernel.text(
                SETUP.format(url=server.openai_base_url, switch="os.environ['OPENPROGRAM_WARM_UP'] = '0'")
            )
            state = json.loads(await kernel.text(LOADED.format(modules=MODULES)))
            assert state["thread"] is None
            assert "openai" not in state["loaded"] and "openprogram_jupyter.jupyter._view" not in state["loaded"]
            assert server.requests == []


async def test_on_the_offline_default_the_warm_up_loads_the_view_but_no_sdk(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(
            "import os\nfor name in [n for n in os.environ if n.endswith('_API_KEY')]:\n"
            "    del os.environ[name]\nos.environ['OPENPROGRAM_MODEL'] = 'offline'\n"
            "%load_ext openprogram_jupyter"
        )
        state = json.loads(await kernel.text(LOADED.format(modules=MODULES)))
        assert state["thread"] == "openprogram-warm-up"
        assert "openprogram_jupyter.jupyter._view" in state["loaded"]
        assert "openai" not in state["loaded"] and "anthropic" not in state["loaded"]
