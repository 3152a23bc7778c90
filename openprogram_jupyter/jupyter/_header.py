"""The live view's header line: model, round, tokens and cost, the spending meter, the
context meter, time, state, and how many steering messages are queued."""

from __future__ import annotations

from html import escape

from ..core._money import dollars
from ..core.messages import Usage
from ..engine._course_rules import session_left
from ..engine._limits import tokens_of
from ..render import _format as fmt
from ..render.tree import RoundNode, RunNode, TreeBuilder, elapsed

__all__ = ["header_html"]

_MUTED = "color:#57606a;font-size:12px;"


def header_html(root: RunNode | None, builder: TreeBuilder, wall_now: float, queued: int) -> str:
    """The header of the run ``root`` (``None``: not started yet); ``builder`` holds every
    run drawn, nested ones included, whose usage the header sums; ``wall_now`` is the time
    a running run's elapsed time is counted to; ``queued`` the steering messages waiting."""
    if root is None:
        return f'<span style="{_MUTED}">starting…</span>'
    parts = [f"<b>{escape(root.model or 'agent')}</b>"]
    rounds = _round_count(root)
    parts.append(f"round {rounds}" if not root.finished else f"{rounds} round{'s' if rounds != 1 else ''}")
    usage = sum((run.usage for run in builder.runs.values()), Usage(cost=0.0))
    parts.append(escape(fmt.usage_summary(usage)))
    meter = fmt.spend_meter(usage, root.max_cost, root.max_tokens)
    if meter is not None:
        parts.append(_meter_html(f"budget {meter[0]}", meter[1]))
    course = _course_left(usage, root.finished)
    if course is not None:
        parts.append(escape(course))
    context = fmt.context_meter(root)
    if context is not None:
        parts.append(_meter_html(*context))
    took = elapsed(root, wall_now) if root.ended_at is None else elapsed(root)
    if took is not None:
        parts.append(fmt.running_seconds(took) if not root.finished else fmt.seconds(took))
    parts.append("running" if not root.finished else escape(fmt.end_line(root)))
    if queued and not root.finished:
        parts.append(f"{queued} message{'s' if queued != 1 else ''} queued")
    return f'<span style="font-size:12px">{" · ".join(parts)}</span>'


def _course_left(usage: Usage, finished: bool) -> str | None:
    """What the course's session caps leave once this run's spending is counted (a finished
    run's is counted already); ``None`` when the course sets no cap."""
    cost, tokens = session_left()
    if cost is None and tokens is None:
        return None
    if not finished:
        cost = None if cost is None or usage.cost is None else max(0.0, cost - usage.cost)
        tokens = None if tokens is None else max(0, tokens - tokens_of(usage))
    left = ([dollars(cost)] if cost is not None else []) + ([f"{tokens:,} tokens"] if tokens is not None else [])
    return f"course: {' / '.join(left)} left this session"


def _meter_html(text: str, fraction: float) -> str:
    """A meter (spending, context): muted, amber from
    :data:`~..render._format.METER_WARN_FRACTION` of its limit, red once it is reached."""
    color = "#cf222e" if fraction >= 1.0 else "#9a6700" if fraction >= fmt.METER_WARN_FRACTION else "#57606a"
    weight = "font-weight:600;" if fraction >= fmt.METER_WARN_FRACTION else ""
    return f'<span class="openprogram-meter" style="color:{color};{weight}">{escape(text)}</span>'


def _round_count(run: RunNode) -> int:
    """The number of the run's latest round (how many it has had), found from the end."""
    for item in reversed(run.timeline):
        if isinstance(item, RoundNode):
            return item.number
    return 0
