"""Small models for tests that need a reply a ScriptedModel cannot script."""

from __future__ import annotations

import time

import openprogram_jupyter as op
from openprogram_jupyter.core.events import RetryWait


class NoticingModel(op.Model):
    """A provider notice, a retry wait (of no time) and a thinking block in the first reply
    with a call of ``report``, then the text ``all reported``: one run with every kind of
    thing a view draws."""

    name = "noticing"

    def __init__(self) -> None:
        self.replies = 0

    async def stream(self, request, out):
        self.replies += 1
        if self.replies == 1:
            yield out.notice("this provider cannot express parallel_tool_calls=False")
            yield out.retry_wait(
                RetryWait(seconds=0.0, until=time.time(), retry=1, max_retries=3, reason="rate limited (HTTP 429)")
            )
            yield out.thinking_delta("let me report")
            for update in out.tool_call("report", {}):
                yield update
        else:
            yield out.text_delta("all reported")
        out.finish()
