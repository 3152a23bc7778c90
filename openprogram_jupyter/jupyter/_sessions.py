"""Named conversations that continue across ``%%agent -s NAME`` cells."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine.run import Run

__all__ = ["Session", "Sessions"]


@dataclass
class Session:
    """One conversation: every message so far, and the runs that added them.

    Each run of the session is sent ``messages`` as its history and appends its own new
    messages when it ends — also when it was stopped or failed, since the core leaves every
    transcript valid to send again (each call has its result). A run that compacted its
    conversation (``--compact``) leaves it compacted instead: its history and messages
    with each of its compactions applied — the summaries, the pinned messages and the
    rounds kept — so the next cell does not compact the same rounds again.
    """

    name: str
    messages: list[Any] = field(default_factory=list)
    runs: list[Any] = field(default_factory=list)
    created_at: float = field(default_factory=time.time)
    _positions: dict[int, int] = field(default_factory=dict, repr=False)

    def add(self, run: Run, history_length: int | None = None) -> None:
        """Append ``run``'s messages (where they start is :meth:`appended_at`); a compacted
        run's history (its first ``history_length`` messages here, by default all) and
        messages are replaced by the conversation it compacted them to, and the messages
        other runs appended since it started follow."""
        self._positions[id(run)] = len(self.messages)
        compactions = getattr(run, "compactions", ())  # a stand-in of a run may have none
        if compactions:
            from ..engine._compaction import compacted_history

            given = len(self.messages) if history_length is None else history_length
            others = self.messages[given:]
            self.messages[:] = compacted_history(self.messages[:given] + list(run.messages), compactions) + others
        else:
            self.messages.extend(run.messages)
        self.runs.append(run)

    def appended_at(self, run: Run) -> int | None:
        """Where ``run``'s messages start in :attr:`messages` (``None``: not added here).
        Two runs started side by side share a history but not this position, which is
        what a notebook must save to be restored as it was."""
        return self._positions.get(id(run))

    @property
    def last_stop_reason(self) -> str | None:
        return getattr(self.runs[-1], "stop_reason", None) if self.runs else None


class Sessions:
    """The kernel's sessions by name. ``get(name, new=True)`` starts the name afresh."""

    def __init__(self) -> None:
        self._by_name: dict[str, Session] = {}

    def get(self, name: str, *, new: bool = False) -> Session:
        if new or name not in self._by_name:
            self._by_name[name] = Session(name)
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Session]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    def table(self) -> tuple[str, str]:
        """``%agent sessions`` as (plain text, HTML)."""
        if not self._by_name:
            text = "No sessions yet. Start one with %%agent -s NAME."
            return text, f"<p>{text}</p>"
        from html import escape

        from ..render._table import html_table

        rows = []
        lines = ["session   runs   messages   last ended"]
        for session in self._by_name.values():
            last = session.last_stop_reason or "—"
            lines.append(f"{session.name:<9} {len(session.runs):>4}   {len(session.messages):>8}   {last}")
            rows.append(
                [
                    f"<code>{escape(session.name)}</code>",
                    str(len(session.runs)),
                    str(len(session.messages)),
                    escape(last),
                ]
            )
        html = html_table(["session", "runs", "messages", "last ended"], rows, numbers={1, 2})
        return "\n".join(lines), html
