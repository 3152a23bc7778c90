"""``%agent course``: the course's rules in force, where each was set, and what is left."""

from __future__ import annotations

from IPython.core.error import UsageError

from ..core._course import CourseRules, installed, session_spend
from ..core._money import dollars

__all__ = ["course_command", "course_report"]


def course_command(rest: str) -> None:
    """Print :func:`course_report`; any argument is a ``UsageError`` (the command takes none)."""
    if rest.strip():
        raise UsageError(f"%agent course takes no arguments, not {rest.strip()!r}")
    print(course_report(installed()))


def course_report(rules: CourseRules) -> str:
    """One line per rule set — what it does and where it was set — then what the session
    has spent and has left; a line saying no course rules are set when none is."""
    if not rules.is_set():
        return "No course rules are set: the agent runs as configured in this notebook."
    lines = ["Course rules in force (a notebook can only tighten them):"]
    for text, rule in _rule_lines(rules):
        lines.append(f"  {text}  ({rules.source(rule)})")
    spent = session_spend()
    spent_cost = "unknown" if spent.cost is None else dollars(spent.cost)
    lines.append(f"This kernel's runs have spent {spent_cost} and {spent.tokens:,} tokens.")
    return "\n".join(lines)


def _rule_lines(rules: CourseRules) -> list[tuple[str, str]]:
    """``(what the rule says, its trait name)`` for each rule set."""
    spent = session_spend()
    found: list[tuple[str, str]] = []
    if rules.mode != "normal":
        said = "off: no run starts" if rules.mode == "off" else "replay-only: only replay: cassettes and offline"
        found.append((f"mode = {rules.mode!r} ({said})", "mode"))
    for globs in rules.allowed_models:
        found.append(
            (f"allowed_models = {list(globs)!r} (a model that sends requests must match one)", "allowed_models")
        )
    if rules.max_cost_per_session is not None:
        left = None if spent.cost is None else max(0.0, rules.max_cost_per_session - spent.cost)
        left_text = "unknown" if left is None else dollars(left)
        found.append(
            (f"max_cost_per_session = ${rules.max_cost_per_session:g} ({left_text} left)", "max_cost_per_session")
        )
    if rules.max_tokens_per_session is not None:
        left_tokens = max(0, rules.max_tokens_per_session - spent.tokens)
        found.append(
            (
                f"max_tokens_per_session = {rules.max_tokens_per_session:,} ({left_tokens:,} left)",
                "max_tokens_per_session",
            )
        )
    if rules.tools_deny:
        found.append((f"tools_deny = {list(rules.tools_deny)!r} (never offered, never run)", "tools_deny"))
    for course_policy in rules.policies:
        said = ", ".join(str(rule) for rule in course_policy.rules)
        default = f"; default {course_policy.default}" if course_policy.default else ""
        found.append(
            (f"require_approval: {said}{default} (checked before the notebook's own approver)", "require_approval")
        )
    for context in rules.context:
        found.append((f"course context: {context.name} ({context.tokens:,} tokens, {context.path})", "context_files"))
    return found
