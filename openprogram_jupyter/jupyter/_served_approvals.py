"""Served calls that wait for Approve / Deny in the serving cell's card: :class:`ServedApprovals`.

A call an MCP client makes runs under the notebook Runtime's approver (:meth:`approver`):
a policy checks the notebook's session rules first (the "Always allow" / "Always deny"
clicks ``%agent policy`` lists) and, where it says *ask* — or a ``requires_approval`` tool
asks — :meth:`ask` waits for a click in the card. Nobody to click (the server was started
by ``op.serve`` and its card never shown) or no click within :attr:`ServedApprovals.timeout`
seconds denies the call; :meth:`refusal` then says why, and that sentence is what the
client reads.

:meth:`ask` runs on the server's event loop; :meth:`decide` is called from the kernel's comm
thread (a button click) and settles the waiting future on that loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.approval_policy import Policy, Rule, SessionRules
from ._buttons import Always
from ._card_listeners import CardListeners

__all__ = ["APPROVAL_TIMEOUT_SECONDS", "ServedApprovals", "WaitingCall"]

APPROVAL_TIMEOUT_SECONDS = 120.0
"""How long a served call waits for Approve / Deny before it is denied (the default)."""


@dataclass(frozen=True)
class WaitingCall:
    """A served call waiting for an answer: its id, its tool and the client's arguments."""

    call_id: str
    tool_name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class _Pending:
    call: WaitingCall
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]


class ServedApprovals:
    """The approvals of one server's calls.

    ``answerable``: a card with buttons is on screen (set by the card); until then a call
    that asks is denied at once. ``session_rules``: where an "Always" click adds its rule
    (``None``: no "Always" buttons, and no session rules are checked). ``timeout``: seconds a
    call waits for a click.
    """

    def __init__(self, timeout: float = APPROVAL_TIMEOUT_SECONDS) -> None:
        self.timeout = timeout
        self.answerable = False
        self.session_rules: SessionRules | None = None
        self._pending: dict[str, _Pending] = {}
        self._refusals: dict[str, str] = {}
        self._lock = threading.Lock()
        self._listeners = CardListeners()

    def approver(self, own: Any) -> Any:
        """The approver a served call runs under, given the notebook Runtime's ``own``: an
        approver function that is not a policy is kept as it is; a policy (or, without one,
        an empty policy) checks the session rules first and asks with :meth:`ask` when it
        has no ``ask_with`` of its own."""
        if own is not None and not isinstance(own, Policy):
            return own
        return (own if own is not None else Policy()).in_session(self.session_rules, self.ask)

    async def ask(self, request: Any) -> Any:
        """Wait for the card's answer about ``request`` (an ``ApprovalRequest``): ``True``,
        ``False``, or what an "Always" click answers. ``False`` at once when no card can
        answer, or after :attr:`timeout` seconds without a click; :meth:`refusal` says which."""
        call_id = request.tool_call.id or request.tool_name
        if not self.answerable:
            self._refused(
                call_id,
                f"{request.tool_name} needs approval, and no card can answer "
                "(show the server's card: %agent serve, or op.serve(...) on a cell's last line)",
            )
            return False
        loop = asyncio.get_running_loop()
        waiting = WaitingCall(call_id, request.tool_name, dict(request.arguments))
        pending = _Pending(waiting, loop, loop.create_future())
        with self._lock:
            self._pending[call_id] = pending
        self._changed()
        try:
            return await asyncio.wait_for(asyncio.shield(pending.future), self.timeout)
        except TimeoutError:
            self._refused(
                call_id,
                f"nobody approved {request.tool_name} in the notebook within {self.timeout:g} s "
                "(the serving cell's card asked Approve / Deny)",
            )
            return False
        finally:
            with self._lock:
                self._pending.pop(call_id, None)
            self._changed()

    def end(self, why: str) -> None:
        """Deny every waiting call now, ``why`` being what its client reads (the server is
        stopping), and every later one at once."""
        self.answerable = False
        with self._lock:
            pending = list(self._pending.values())
            for each in pending:
                self._refusals[each.call.call_id] = why
        for each in pending:
            each.loop.call_soon_threadsafe(_settle, each.future, False)

    def _refused(self, call_id: str, why: str) -> None:
        with self._lock:
            self._refusals[call_id] = why

    def refusal(self, call_id: str) -> str | None:
        """Why the call ``call_id`` was denied without a click (and forget it), else ``None``."""
        with self._lock:
            return self._refusals.pop(call_id, None)

    def waiting(self) -> list[WaitingCall]:
        """The calls waiting now, oldest first."""
        with self._lock:
            return [pending.call for pending in self._pending.values()]

    def decide(self, call_id: str, answer: bool | Always) -> bool:
        """Answer the waiting call ``call_id``: ``True`` / ``False``, or an :class:`Always`,
        which also adds the session rule allowing (denying) its tool by exact name. Returns
        whether a call was waiting (a second click, or one after the timeout, does nothing)."""
        with self._lock:
            pending = self._pending.get(call_id)
        if pending is None:
            return False
        if isinstance(answer, Always):
            if self.session_rules is not None:
                self.session_rules.add(Rule.for_tool("allow" if answer.allow else "deny", pending.call.tool_name))
            answer = answer.allow
        pending.loop.call_soon_threadsafe(_settle, pending.future, answer)
        return True

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` whenever a call starts or stops waiting."""
        self._listeners.add(listener)

    def _changed(self) -> None:
        self._listeners.notify()


def _settle(future: asyncio.Future[Any], value: object) -> None:
    if not future.done():
        future.set_result(value)
