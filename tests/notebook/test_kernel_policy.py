"""Real kernels (both versions): "Always allow" clicked on a waiting card answers the tool's
later calls for the rest of the session, the saved transcript names the rule in every
format, and ``%agent policy`` lists and removes it."""

from __future__ import annotations

from .kernels import error_of, live_kernel, plain_output
from .test_kernel_teaching import card_button, wait_waiting

SETUP = """\
%load_ext openprogram_jupyter
import openprogram_jupyter as op
launched = []

@op.function(requires_approval=True)
def launch(n: int) -> str:
    '''Launch rocket n.'''
    launched.append(n)
    return f'rocket {n} launched'

m = op.ScriptedModel([op.ToolCall(name='launch', arguments={'n': 1}),
                      op.ToolCall(name='launch', arguments={'n': 2}), 'both up'])
"""


def saved(cell, mime: str) -> str:
    return "\n".join(o["data"].get(mime, "") for o in cell.outputs if "data" in o)


async def test_always_allow_clicked_answers_later_calls_and_agent_policy_removes_it(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP)
        cell, task = kernel.start("%%agent -m m -o r --tools launch\nLaunch two rockets.")
        await wait_waiting(kernel, "n=1")
        kernel.click(await card_button(kernel, cell, "Always allow"))
        await task
        assert error_of(cell) is None
        report = await kernel.text("print(launched)\nfor t in r.tool_results: print(t.details.get('approval_rule'))\n")
        assert report.splitlines() == ["[1, 2]", "None", "{'action': 'allow', 'pattern': 'launch', 'from': 'session'}"]
        assert "launch(n=1) → done · approved by the user" in saved(cell, "text/plain")
        assert "launch(n=2) → done · allowed by session rule launch" in saved(cell, "text/plain")
        assert "allowed by session rule `launch`" in saved(cell, "text/markdown")
        assert "allowed by session rule <code>launch</code>" in saved(cell, "text/html")

        listing = plain_output(await kernel.run("%agent policy"))
        assert "1. allow launch" in listing
        removed = plain_output(await kernel.run("%agent policy remove 1"))
        assert "Removed session rule 1: allow launch" in removed and "No session rules" in removed
        # The rule is gone: the tool asks again.
        await kernel.text("m2 = op.ScriptedModel([op.ToolCall(name='launch', arguments={'n': 3}), 'up'])")
        cell, task = kernel.start("%%agent -m m2 --tools launch\nOne more.")
        await wait_waiting(kernel, "n=3")
        kernel.click(await card_button(kernel, cell, "Deny"))
        await task
        assert "launch(n=3) → denied · denied by the user" in saved(cell, "text/plain")
