"""The course's rules (:mod:`openprogram_jupyter.core._course`) applied to a run.

Every run goes through :func:`~.execute.execute`, which asks this module: whether the
course lets it run at all and on this model (:func:`check_run`), the run context with the
course's approvers first and its deny globs joined (:func:`governed`), and the run's cost
and token caps no higher than what the session has left (:func:`session_caps`); the engine
counts what each top-level run spent. A spec's menu leaves out the tools the course
denies (:func:`without_denied`, in ``build_spec``); a model string is checked where it is
resolved (:func:`check_model`), so ``%%agent -m`` fails before anything is shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core._course import CoursePolicy, CourseRefusal, installed, session_spend
from ..core._run_context import RunContext
from ..core.events import CourseContextFile
from ..models import Model
from ..models.offline import OfflineModel
from ..models.replay import ReplayModel
from ..models.scripted import ScriptedModel

if TYPE_CHECKING:
    from ..tools.menu import Menu

__all__ = [
    "check_model",
    "check_run",
    "context_shown",
    "course_system",
    "governed",
    "session_caps",
    "session_left",
    "without_denied",
]


def check_model(model: Model) -> None:
    """Raise :class:`CourseRefusal` (one line naming the rule) when the course does not let
    ``model`` run: the agent is off, the course is replay-only and ``model`` is not a
    ``replay:`` cassette or the offline model, or ``model`` sends requests and matches no
    glob of ``allowed_models``."""
    replayed = isinstance(model, (ReplayModel, OfflineModel))
    refusal = installed().model_refusal(
        model.name, replayed=replayed, sends_nothing=replayed or isinstance(model, ScriptedModel)
    )
    if refusal is not None:
        raise CourseRefusal(refusal)


def check_run(model: Model) -> None:
    """:func:`check_model`, then the session's budget: a run once the course's
    ``max_cost_per_session`` or ``max_tokens_per_session`` is spent raises
    :class:`CourseRefusal`; nothing is sent."""
    check_model(model)
    rules, spent = installed(), session_spend()
    if rules.max_tokens_per_session is not None and spent.tokens >= rules.max_tokens_per_session:
        raise CourseRefusal(
            f"the course's token budget for this session is spent (max_tokens_per_session = "
            f"{rules.max_tokens_per_session:,}, {rules.source('max_tokens_per_session')}; spent {spent.tokens:,})"
        )
    if rules.max_cost_per_session is not None and spent.cost is not None and spent.cost >= rules.max_cost_per_session:
        raise CourseRefusal(
            f"the course's budget for this session is spent (max_cost_per_session = "
            f"${rules.max_cost_per_session:g}, {rules.source('max_cost_per_session')}; spent ${spent.cost:.4f})"
        )


def session_left() -> tuple[float | None, int | None]:
    """What the course's session caps leave: dollars and tokens (``None``: no such cap, or
    the cost is unknown)."""
    rules, spent = installed(), session_spend()
    cost = None
    if rules.max_cost_per_session is not None and spent.cost is not None:
        cost = max(0.0, rules.max_cost_per_session - spent.cost)
    tokens = None if rules.max_tokens_per_session is None else max(0, rules.max_tokens_per_session - spent.tokens)
    return cost, tokens


def session_caps(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The ``max_cost`` and ``max_tokens`` a run of ``settings`` must take instead of its own
    so that neither is higher than what the course's session caps leave (empty when no cap
    is set or both are lower already)."""
    cost, tokens = session_left()
    changes: dict[str, Any] = {}
    if cost is not None and (settings["max_cost"] is None or settings["max_cost"] > cost):
        changes["max_cost"] = cost
    if tokens is not None and (settings["max_tokens"] is None or settings["max_tokens"] > tokens):
        changes["max_tokens"] = tokens
    return changes


def course_system(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The ``system`` a run of ``settings`` takes instead of its own: the course context
    files' text before it (empty when the course has none, or the prompt carries it)."""
    system = installed().system_with_context(settings["system"])
    return {} if system == settings["system"] else {"system": system}


def context_shown(settings: Mapping[str, Any]) -> list[CourseContextFile]:
    """The course context files the system prompt of a run of ``settings`` carries, as its
    ``agent_start`` event tells the views (empty: none)."""
    return [
        CourseContextFile(name=item.name, tokens=item.tokens, text=item.text.strip())
        for item in installed().context_carried_by(settings["system"])
    ]


def governed(context: RunContext) -> RunContext:
    """``context`` under the course: the course's approvers first (a policy denying its
    deny globs, then its ``require_approval`` policies), each asking whoever the run asks —
    the view's buttons, an ``approve=`` function; with no one, an ask is denied — and its
    deny globs joined to the context's, so runs started inside it keep them."""
    rules = installed()
    course = rules.approvers()
    if not course:
        return context
    own = tuple(approver for approver in context.approvers if not isinstance(approver, CoursePolicy))
    ask = next((_asker(approver) for approver in own if _asker(approver) is not None), None)
    first = tuple(approver.in_session(None, ask) for approver in course)
    deny = tuple(dict.fromkeys([*context.tools_deny, *rules.tools_deny]))
    return dataclasses.replace(context, approvers=(*first, *own), tools_deny=deny)


def _asker(approver: Any) -> Any:
    from ..core._run_context import RecordedAnswers
    from ..core.approval_policy import Policy

    if isinstance(approver, RecordedAnswers):
        return None
    return approver.ask_with if isinstance(approver, Policy) else approver


def without_denied(menu: Menu) -> Menu:
    """``menu`` without the tools whose names a glob of the course's ``tools_deny`` matches
    (the same menu when none does); a tool an MCP server adds during the run is held to
    them too."""
    from ..tools.menu import SEARCH_TOOL_NAME, Menu

    rules = installed()
    if not rules.tools_deny:
        return menu
    menu.refuse_added(rules.denies_tool)
    tools = [menu.get(name) for name in menu.names]
    kept = [tool for tool in tools if tool is not None and not rules.denies_tool(tool.name)]
    if len(kept) == len(tools):
        return menu
    return Menu([tool for tool in kept if tool.name != SEARCH_TOOL_NAME], explicit=menu.explicit, admits=menu.admits)
