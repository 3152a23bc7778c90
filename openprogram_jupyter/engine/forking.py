"""Forking a run: the spec of a run that replays another's first rounds, then goes on live.

A Run's messages are its prompt, then each round's reply followed by the results of its
calls and the user messages delivered before the next round. :func:`recorded_rounds`
cuts them back into rounds; :func:`fork_spec` builds the new run's spec with the rounds
before the fork as :class:`~openprogram_jupyter.engine.spec.ReplayedRound`\\ s, which the loop
plays back without asking the model or running a tool (``loop._replay_reply``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core import _viewer
from ..core.errors import SetupError
from ..core.messages import AssistantMessage, ToolResultMessage, UserMessage
from .spec import ReplayedRound, RunSpec, RuntimeDefaults, build_spec

if TYPE_CHECKING:
    from ._runtime_shape import EngineRuntime
    from .run import Run

__all__ = ["fork_spec", "prepare_within", "recorded_rounds", "reused_settings", "same_tools"]

# The ways of watching a run are the fork's own: step mode needs the approver of wherever it runs.
_NOT_REUSED = frozenset({"step"})


def recorded_rounds(messages: Sequence[Any]) -> tuple[list[UserMessage], list[ReplayedRound]]:
    """The prompt messages (before the first reply) and every round of ``messages``."""
    prompts: list[UserMessage] = []
    rounds: list[ReplayedRound] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            rounds.append(ReplayedRound(reply=message))
        elif not rounds:
            prompts.append(message)
        elif isinstance(message, ToolResultMessage):
            rounds[-1] = dataclasses.replace(rounds[-1], results=(*rounds[-1].results, message))
        else:
            rounds[-1] = dataclasses.replace(rounds[-1], then=(*rounds[-1].then, message))
    return prompts, rounds


def fork_spec(
    run: Run, round: Any, runtime: EngineRuntime, *, tools: Sequence[object] | None = None, **options: Any
) -> RunSpec:
    """The spec of ``run`` forked at ``round`` on ``runtime``.

    Rounds ``1 .. round-1`` are replayed; ``round`` is asked of ``runtime``'s model with
    the conversation so far. ``tools`` (default: the original run's tool names, each looked
    up in ``runtime``'s registry first, so a redefined tool is the new one) and
    ``options`` (``Runtime.run`` keywords; by default the original run's history and
    every setting but ``step``: system prompt, ``tool_choice``, caps, budgets,
    ``text_tool_calls``, ``capture_wire``…) apply from ``round`` on.
    The fork runs under the recorded run's context (:func:`prepare_within`).
    A ``round`` that is not one of the run's rounds, a run without a prompt, or a tool
    name nothing provides raises :class:`SetupError` naming it.
    """
    prompts, rounds = recorded_rounds(run.messages)
    if not isinstance(round, int) or isinstance(round, bool) or not 1 <= round <= len(rounds):
        span = f"between 1 and {len(rounds)}" if rounds else "impossible: the run has no rounds"
        raise SetupError(f"fork: round must be a round of run {run.run_id} ({span}), got {round!r}", option="round")
    if not prompts:
        raise SetupError(f"fork: run {run.run_id} has no prompt to start from")
    chosen = list(tools) if tools is not None else same_tools(run, runtime, "fork")
    spec = prepare_within(run, runtime, prompts[0], tools=chosen, **reused_settings(run, options))
    return dataclasses.replace(
        spec,
        prompts=tuple(prompts),
        replay=tuple(rounds[: round - 1]),
        replayed_from=_viewer.name_of(run) or run.run_id,
        compactions=tuple(compaction for compaction in run.compactions if compaction.round <= round),
    )


def prepare_within(run: Run, runtime: EngineRuntime, content: object, **options: Any) -> RunSpec:
    """``runtime.prepare(content, **options)`` for a run that derives its context from the
    recorded ``run``'s (:mod:`._run_context`): its menu leaves out what ``run``'s deny lists
    did, and the engine asks ``run``'s approvers (a view's asking left out) unless
    ``options`` gives an ``approve=`` of its own."""
    return build_spec(content, RuntimeDefaults.of(runtime, inherits=run.context), **options)


def reused_settings(run: Run, options: dict[str, Any]) -> dict[str, Any]:
    """``Runtime.run`` keywords that run as ``run`` did: its history and every setting but
    ``step``, with ``options`` over them."""
    settings: dict[str, Any] = {}
    if run.spec is not None:
        settings = {name: value for name, value in run.spec.settings.items() if name not in _NOT_REUSED}
        settings["messages"] = list(run.spec.history)
    settings.update(options)
    return settings


def same_tools(run: Run, runtime: EngineRuntime, doing: str, *, given: Sequence[object] = ()) -> list[Any]:
    """The tools ``run`` had, by name: each taken from ``given`` when a tool there has that
    name, else looked up in ``runtime``'s registry (so a tool redefined since is the new
    one), else the one the run ran with; the tools of ``given`` the run did not have come
    last. A name nothing provides raises :class:`SetupError` (``doing`` names the caller)."""
    from ..tools.menu import SEARCH_TOOL_NAME, as_tools

    replacements = {tool.name: tool for tool in as_tools(list(given))}
    found: list[Any] = []
    for name in run.tools:
        if name == SEARCH_TOOL_NAME:  # the package's search (no other tool may be named so): the menu adds it again
            continue
        tool = (
            replacements.pop(name, None)
            or runtime.registry.get(name)
            or (run.spec.menu.get(name) if run.spec is not None else None)
        )
        if tool is None:
            raise SetupError(
                f"{doing}: the run used the tool {name!r}, which is no longer registered; pass tools=[...]"
            )
        found.append(tool)
    return [*found, *replacements.values()]
