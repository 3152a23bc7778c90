"""Where each round's reply comes from, and what becomes of its calls: the loop's one variable.

The loop (:mod:`.loop`) runs rounds the same way whatever feeds them; a
:class:`RoundSource` decides, round by round, where the reply comes from and how its
calls are answered:

- :class:`LiveRounds` — the model streams each reply, the tools run each call;
- :class:`ForkRounds` — a forked run: the recorded rounds before the fork are played
  back (reply and results, no model request and no tool run), then live;
- :class:`RerunRounds` — a rerun: each recorded reply is played back while its calls run
  again with the tools as they are now, until a result parts from the recording (a
  :class:`~openprogram_jupyter.core.events.Divergence`); then the run ends ``"diverged"``, or,
  when the rerun is live, the model goes on from there.

A source works through the :class:`Round` the loop hands it, so it never touches the
loop's state; :func:`round_source` picks the source a :class:`~.spec.RunSpec` asks for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..core.events import Compaction, Divergence, DivergenceEvent, Event
from ..core.messages import AssistantMessage, ToolResultMessage
from ..tools.menu import Menu
from ._divergence import divergence_of, recording_ended, round_to_rerun
from ._limits import LimitReached
from .spec import ReplayedRound, RerunPlan, RunSpec

__all__ = ["ForkRounds", "LiveRounds", "RerunRounds", "Round", "RoundSource", "round_source"]


class Round(Protocol):
    """What the loop offers a source for the round under way (``number``, from 1)."""

    number: int
    menu: Menu

    @property
    def results(self) -> Sequence[ToolResultMessage]:
        """This round's results so far, in the calls' order."""
        ...

    def emit(self, event: Event) -> None: ...

    async def stream(self, final: LimitReached | None) -> AssistantMessage:
        """Ask the model for this round's reply (``final``: the tool-free answer at a limit)."""
        ...

    def play(self, reply: AssistantMessage, notice: str) -> AssistantMessage:
        """Announce a recorded ``reply`` as this round's, with ``notice`` saying where it came from."""
        ...

    async def run_calls(self, message: AssistantMessage) -> list[Any]:
        """Run ``message``'s calls in order; returns the messages steering brought meanwhile."""
        ...

    def play_results(self, results: Sequence[ToolResultMessage]) -> None:
        """Announce recorded ``results`` as this round's (no tool runs)."""
        ...

    def end(self, reason: str) -> None:
        """End the run after this round, for ``reason`` (``"diverged"``)."""
        ...

    def replay_compaction(self, compaction: Compaction) -> None:
        """Apply a recorded ``compaction`` to the conversation before this round's request."""
        ...


class RoundSource(Protocol):
    """Feeds the loop one round at a time (module docstring)."""

    def goes_on(self, round: Round) -> bool:
        """Whether round ``round.number`` may start; a source that says no has ended the run."""
        ...

    async def reply(self, round: Round, final: LimitReached | None = None) -> AssistantMessage:
        """This round's reply."""
        ...

    async def answer(self, round: Round, message: AssistantMessage) -> list[Any]:
        """Answer the calls of ``message`` (a reply that did not fail); returns the messages
        to deliver before the next round."""
        ...


class LiveRounds:
    """The model answers every round; the tools run every call."""

    def goes_on(self, round: Round) -> bool:
        return True

    async def reply(self, round: Round, final: LimitReached | None = None) -> AssistantMessage:
        return await round.stream(final)

    async def answer(self, round: Round, message: AssistantMessage) -> list[Any]:
        return await round.run_calls(message) if message.tool_calls else []


def replay_compactions(round: Round, compactions: Sequence[Compaction], last_round: int) -> None:
    """Apply the recorded ``compactions`` that preceded round ``round.number``'s request,
    while it is at most ``last_round`` (the recording's rounds and the first after them:
    the conversation is the recorded one until a live reply joins it)."""
    if round.number <= last_round:
        for compaction in compactions:
            if compaction.round == round.number:
                round.replay_compaction(compaction)


class ForkRounds(LiveRounds):
    """The ``recorded`` rounds of the run ``origin`` played back as rounds 1, 2, ..., then
    live; its ``compactions`` applied again before the rounds they preceded."""

    def __init__(
        self, recorded: Sequence[ReplayedRound], origin: str | None, compactions: Sequence[Compaction] = ()
    ) -> None:
        self.recorded = tuple(recorded)
        self.compactions = tuple(compactions)
        self.notice = f"replayed from {origin}: the recorded reply and results, no model request and no tool run"

    def _recorded(self, number: int) -> ReplayedRound | None:
        return self.recorded[number - 1] if number <= len(self.recorded) else None

    async def reply(self, round: Round, final: LimitReached | None = None) -> AssistantMessage:
        replay_compactions(round, self.compactions, len(self.recorded) + 1)
        recorded = self._recorded(round.number) if final is None else None
        return round.play(recorded.reply, self.notice) if recorded is not None else await round.stream(final)

    async def answer(self, round: Round, message: AssistantMessage) -> list[Any]:
        recorded = self._recorded(round.number)
        if recorded is None:
            return await super().answer(round, message)
        round.play_results(recorded.results)
        return list(recorded.then)


class RerunRounds(LiveRounds):
    """The rounds of ``plan`` played back while their calls run again, compared with the
    recording after each round (:mod:`._divergence`)."""

    def __init__(self, plan: RerunPlan, origin: str | None, compactions: Sequence[Compaction] = ()) -> None:
        self.plan = plan
        self.compactions = tuple(compactions)
        self.notice = f"rerun of {origin}: the recorded reply (no model request); its calls ran again"
        self.diverged = False

    def goes_on(self, round: Round) -> bool:
        divergence = recording_ended(self.plan, round.number - 1, self.diverged)
        return divergence is None or self._diverge(round, divergence)

    async def reply(self, round: Round, final: LimitReached | None = None) -> AssistantMessage:
        if not self.diverged:  # the conversation is still the recorded one
            replay_compactions(round, self.compactions, len(self.plan.rounds) + 1)
        recorded = round_to_rerun(self.plan, round.number, self.diverged)
        return round.play(recorded.reply, self.notice) if recorded is not None else await round.stream(final)

    async def answer(self, round: Round, message: AssistantMessage) -> list[Any]:
        recorded = round_to_rerun(self.plan, round.number, self.diverged)
        pending = await super().answer(round, message)
        if recorded is None:
            return pending
        divergence = divergence_of(round.number, recorded, round.results, round.menu, self.plan.same)
        if divergence is None:
            return [*recorded.then, *pending]  # what the recording delivered then comes first
        self._diverge(round, divergence)
        return pending

    def _diverge(self, round: Round, divergence: Divergence) -> bool:
        """Announce where the rerun parted from its recording; unless it is live, the run
        ends there. Returns whether it goes on."""
        self.diverged = True
        round.emit(DivergenceEvent(divergence=divergence))
        if not self.plan.live:
            round.end("diverged")
        return self.plan.live


def round_source(spec: RunSpec) -> RoundSource:
    """The source ``spec`` asks for: a rerun's, a fork's, else the live one."""
    if spec.rerun is not None:
        return RerunRounds(spec.rerun, spec.replayed_from, spec.compactions)
    if spec.replay or spec.compactions:
        return ForkRounds(spec.replay, spec.replayed_from, spec.compactions)
    return LiveRounds()
