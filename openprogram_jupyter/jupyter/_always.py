"""**Always allow** / **Always deny** on a waiting call's card (the approval row and the
step controls): the click answers that call, and adds a session rule for its tool — by
its exact name, never a glob — that answers the later calls of the kernel session
without asking (:meth:`.LiveRun.decide`; ``%agent policy`` lists and removes the rules).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..render.tree import CallNode
from ._buttons import Always

if TYPE_CHECKING:
    from ._card_host import CardHost

__all__ = ["always_buttons"]


def always_buttons(view: CardHost, call: CallNode) -> dict[str, Any]:
    """The two buttons for ``call``, keyed ``"always_allow"`` and ``"always_deny"``; each
    answers ``call`` alone."""
    w = view.pool.widgets
    call_id, later = call.id, f"later calls to {call.name} in this kernel session"
    allow = view.pool.make(
        w.Button,
        description="Always allow",
        button_style="info",
        tooltip=f"Run this call, and {later} without asking (%agent policy lists the rule)",
    )
    deny = view.pool.make(
        w.Button,
        description="Always deny",
        tooltip=f"Deny this call, and {later} without asking (%agent policy lists the rule)",
    )
    allow.on_click(lambda _b: view.on_decide_click(call_id, Always(True)))
    deny.on_click(lambda _b: view.on_decide_click(call_id, Always(False)))
    return {"always_allow": allow, "always_deny": deny}
