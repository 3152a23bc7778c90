"""Small pieces every view formats the same way: numbers, statuses, arguments, results."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core._course import context_summary_text
from ..core._money import dollars
from ..core._result_text import result_blocks_text
from ..core._secrets import Secrets, mask
from ..core.approvals import without_edit_note
from ..core.messages import ImageContent, ToolResultMessage, Usage
from ._sanitize import is_base64
from .tree import CallNode, RetryNode, RoundNode, RunNode, elapsed

STATUS_LABEL = {
    "streaming": "streaming",
    "queued": "queued",
    "awaiting_approval": "awaiting approval",
    "running": "running",
    "done": "done",
    "error": "error",
    "skipped": "skipped",
    "cancelled": "cancelled",
    "interrupted": "interrupted",
    "denied": "denied",
}

STATUS_MARK = {
    "streaming": "…",
    "queued": "·",
    "awaiting_approval": "?",
    "running": "▶",
    "done": "✓",
    "error": "✗",
    "skipped": "↷",
    "cancelled": "■",
    "interrupted": "■",
    "denied": "⊘",
}

STATUS_COLOR = {
    "done": "#1a7f37",
    "error": "#cf222e",
    "skipped": "#9a6700",
    "cancelled": "#9a6700",
    "interrupted": "#9a6700",
    "denied": "#cf222e",
    "running": "#0969da",
    "awaiting_approval": "#8250df",
}

APPROVAL_LABEL = {
    "approved": "approved by the user",
    "denied": "denied by the user",
    "edited": "edited",
    "skipped": "skipped by the user",
}
"""What a call's line says of the user's answer, for a call that asked for one."""

RUN_END_LABEL = {
    "stop": "finished",
    "max_iterations": "stopped at the round cap (max_iterations)",
    "max_cost": "stopped at the cost limit (max_cost)",
    "max_tokens": "stopped at the token limit (max_tokens)",
    "error": "ended with an error",
    "aborted": "stopped (aborted); the transcript up to that point is kept",
    "diverged": "rerun stopped where it parted from the recording",
}


def run_end_label(run: RunNode) -> str:
    """The words for how ``run`` ended."""
    return RUN_END_LABEL.get(run.stop_reason or "", "ended")


def round_label(round_: RoundNode) -> str:
    """``round 4``; the last round at a limit adds ``last round, without tools (max_cost)``."""
    label = f"round {round_.number}"
    return label + f" · last round, without tools ({round_.final_for})" if round_.final_for else label


SAFE_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

DEFAULT_SHOWN_RESULT_CHARS = 4000
DEFAULT_MAX_TEXT_CHARS = 100_000
DEFAULT_MAX_TRANSCRIPT_CHARS = 1_000_000

RESULT_KEPT = "the full result is in run.messages"
TEXT_KEPT = "the full text is in run.messages"
ARGUMENTS_KEPT = "the full arguments are in run.messages"


class Budget:
    """The characters a transcript may still spend. ``spent`` counts what was drawn;
    ``exhausted`` once it reaches ``chars`` (a view then draws the rest as one line)."""

    def __init__(self, chars: int) -> None:
        self.chars = chars
        self.spent = 0

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.chars


@dataclass(frozen=True)
class Limits:
    """How much a view shows before cutting (the Run keeps everything whole):
    ``result_chars`` of a tool result, ``text_chars`` of what the model wrote (a text or
    thinking block, a call's arguments), ``transcript_chars`` of the whole transcript
    (spent from ``budget``, a fresh :class:`Budget` for each ``Limits``)."""

    result_chars: int = DEFAULT_SHOWN_RESULT_CHARS
    text_chars: int = DEFAULT_MAX_TEXT_CHARS
    transcript_chars: int = DEFAULT_MAX_TRANSCRIPT_CHARS
    budget: Budget = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "budget", Budget(self.transcript_chars))


def seconds(value: float | None) -> str:
    """``0.42 s``, ``12.3 s``, ``2 min 05 s`` — the one way durations are written."""
    if value is None:
        return ""
    if value < 60:
        return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"
    minutes, rest = divmod(round(value), 60)
    return f"{minutes} min {rest:02d} s"


def running_seconds(value: float) -> str:
    """How long a run has been going, in a header that redraws several times a second:
    tenths under 10 s (``3.4 s``), whole seconds under a minute (``42 s``), then as
    :func:`seconds` (``2 min 05 s``)."""
    if value < 10:
        return f"{math.floor(max(0.0, value) * 10) / 10:.1f} s"
    if value < 60:
        return f"{int(value)} s"
    return seconds(value)


def usage_summary(usage: Usage) -> str:
    """``1,234 tokens (1,000 in, 234 out) · $0.0012`` — with prompt caching ``(1,000 in,
    4,000 cache read, 500 cache write, 234 out)``; ``· price unknown`` for tokens of a
    model no price is known for (never $0)."""
    total = usage.total_tokens or (usage.input + usage.output + usage.cache_read + usage.cache_write)
    text = f"{total:,} tokens"
    cached = "".join(
        f", {count:,} cache {kind}"
        for kind, count in (("read", usage.cache_read), ("write", usage.cache_write))
        if count
    )
    if usage.input or usage.output or cached:
        text += f" ({usage.input:,} in{cached}, {usage.output:,} out)"
    if usage.cost is None and total:
        text += " · price unknown"
    if usage.cost:
        text += f" · {dollars(usage.cost)}"
    return text


METER_WARN_FRACTION = 0.8
"""A spending meter turns amber when this much of a budget is spent."""


def spend_meter(usage: Usage, max_cost: float | None, max_tokens: int | None) -> tuple[str, float] | None:
    """What a run has spent of its budgets — ``$0.0412 of $0.05 · 1,200 of 5,000 tokens``
    — and the largest fraction spent of any of them; ``None`` without a budget. An
    unknown cost reads ``cost unknown of $0.05`` and counts as nothing spent."""
    parts, fraction = [], 0.0
    if max_cost is not None:
        spent = "cost unknown" if usage.cost is None else dollars(usage.cost)
        parts.append(f"{spent} of ${max_cost:g}")
        fraction = max(fraction, (usage.cost or 0.0) / max_cost)
    if max_tokens is not None:
        tokens = usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write
        parts.append(f"{tokens:,} of {max_tokens:,} tokens")
        fraction = max(fraction, tokens / max_tokens)
    return (" · ".join(parts), fraction) if parts else None


def context_meter(run: RunNode) -> tuple[str, float] | None:
    """``context 41k of 200k`` — the tokens the latest request carried, as the provider
    counted them (prompt, cache reads and writes), against the model's context window —
    and that fraction; ``None`` without a known window or before the first reply."""
    if run.context_window is None:
        return None
    carried = next(
        (
            u.input + u.cache_read + u.cache_write
            for u in (r.usage for r in reversed(run.rounds))
            if u is not None and u.input + u.cache_read > 0
        ),
        None,
    )
    if carried is None:
        return None
    return f"context {compact_count(carried)} of {compact_count(run.context_window)}", carried / run.context_window


def compact_count(tokens: int) -> str:
    """``850``, ``41k``, ``1.0M``: a token count as a header has room for."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    return f"{round(tokens / 1000)}k" if tokens >= 1000 else str(tokens)


def all_usage(run: RunNode) -> Usage:
    """The run's usage plus that of every nested run (a live view's running total)."""
    total = run.usage
    for call in run.calls():
        for child in call.children:
            total = total + all_usage(child)
    return total


def course_context_line(run: RunNode) -> str | None:
    """``course context (COURSE.md, 1.2k tokens)`` for a run whose system prompt carries
    the course context files (:attr:`RunNode.course_context`); ``None`` otherwise."""
    files = run.course_context
    if not files:
        return None
    return context_summary_text([item.name for item in files], sum(item.tokens for item in files))


def header_parts(run: RunNode, *, now: float | None = None) -> list[str]:
    """Model, rounds, tokens, cost and time: the facts a header line shows."""
    parts = [f"model {run.model or '?'}"]
    rounds = len(run.rounds)
    parts.append(f"{rounds} round{'s' if rounds != 1 else ''}")
    parts.append(usage_summary(run.usage))
    context = context_meter(run)
    if context is not None:
        parts.append(context[0])
    took = elapsed(run, now)
    if took is not None:
        parts.append(seconds(took))
    return parts


def approval_label(call: CallNode) -> str | None:
    """``approved by the user`` or ``denied by the user`` for a call the user answered
    (:attr:`CallNode.approval`); ``None`` for a call that asked no one."""
    return APPROVAL_LABEL[call.approval] if call.approval is not None else None


def end_line(run: RunNode) -> str:
    """A sentence saying how the run ended, with the error's summary when there was one —
    unless a round above already shows that error (then it points there)."""
    if run.stop_reason is None:
        return "running"
    line = run_end_label(run)
    if run.divergence is not None:
        line += f" · {divergence_line(run)}"
    if run.error:
        shown_in = round_showing_error(run)
        line += f" (round {shown_in}, above)" if shown_in is not None else f": {run.error.message}"
    over = over_budget(run)
    return f"{line} · {over}" if over else line


def divergence_line(run: RunNode) -> str:
    """Where a rerun parted from its recording: ``round 3 (find_city): <why>`` when it
    stopped there, ``parted from the recording in round 3 (find_city): <why>; live from
    round 4 on`` when the model took over."""
    found = run.divergence
    if found is None:
        return ""
    line = f"round {found.round}" + (f" ({found.tool_name})" if found.tool_name else "") + f": {found.why}"
    return (
        line
        if run.stop_reason == "diverged"
        else (f"parted from the recording in {line}; live from round {found.round + 1} on")
    )


DIVERGED_LABEL = "differs from the recording"
"""What a call's line says when a rerun's result for it differs from the recorded one."""


def over_budget(run: RunNode) -> str | None:
    """``over budget: spent $0.0099 of $0.001`` when what ``run`` spent ended above its
    ``max_cost`` (or ``max_tokens``): a limit is checked before each round, so the round
    that crosses it can spend past it, and a finished run must not read as within it."""
    spent = run.usage
    if run.max_cost is not None and spent.cost is not None and spent.cost > run.max_cost:
        return f"over budget: spent {dollars(spent.cost)} of ${run.max_cost:g}"
    tokens = spent.total_tokens or spent.input + spent.output + spent.cache_read + spent.cache_write
    if run.max_tokens is not None and tokens > run.max_tokens:
        return f"over budget: spent {tokens:,} tokens of {run.max_tokens:,}"
    return None


def round_showing_error(run: RunNode) -> int | None:
    """The number of the round that already shows the run's error, if one does."""
    return next(
        (
            item.number
            for item in run.timeline
            if isinstance(item, RoundNode)
            and item.error is not None
            and run.error is not None
            and item.error.message == run.error.message
        ),
        None,
    )


def retry_line(wait: RetryNode, now: float | None = None) -> str:
    """A retry wait in one line. While it lasts, with ``now`` (wall-clock seconds) given:
    ``rate limited (HTTP 429) — retrying in 58 s (retry 1 of 3)``, counting down in whole
    seconds; without ``now``: ``… — waiting 60 s before retry 1 of 3``. Once over: ``… —
    waited 60 s, then retried (retry 1 of 3)``, or ``… — stopped during the 60 s wait
    before retry 1 of 3``."""
    of = f"retry {wait.retry} of {wait.max_retries}"
    if wait.outcome == "retried":
        return f"{wait.reason} — waited {seconds(wait.seconds)}, then retried ({of})"
    if wait.outcome == "stopped":
        return f"{wait.reason} — stopped during the {seconds(wait.seconds)} wait before {of}"
    if now is None:
        return f"{wait.reason} — waiting {seconds(wait.seconds)} before {of}"
    return f"{wait.reason} — retrying in {max(0, math.ceil(wait.until - now))} s ({of})"


def arguments_text(call: CallNode) -> str:
    """Pretty JSON once the arguments are complete; the raw fragments while streaming."""
    if call.arguments is not None and (call.arguments or not call.raw_arguments):
        return pretty_json(call.arguments)
    return call.raw_arguments_text


def pretty_json(value: object) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


def arguments_preview(call: CallNode, limit: int = 80) -> str:
    """One line: ``a=1, b="x"`` cut to ``limit`` characters — the arguments that ran, so
    the user's for a call the user edited (:attr:`CallNode.edited_arguments`)."""
    arguments = call.edited_arguments if call.edited_arguments is not None else call.arguments
    return "" if arguments is None else shorten(_pairs(arguments), limit)


def edited_preview(call: CallNode, limit: int = 120) -> str | None:
    """``arguments edited by the user before it ran; the model asked for a=1, b="x"`` for
    a call the user edited, cut to ``limit`` characters: the line under its summary (which
    shows the arguments that ran). ``None`` for any other call."""
    if call.edited_arguments is None:
        return None
    asked = _pairs(call.arguments) if call.arguments is not None else call.raw_arguments_text
    return shorten(f"{EDIT_NOTE}; the model asked for {asked or 'no arguments'}", limit)


EDIT_NOTE = "arguments edited by the user before it ran"
"""The note under an edited call's summary line."""


def _pairs(arguments: Mapping[str, object]) -> str:
    return ", ".join(f"{key}={json.dumps(value, ensure_ascii=False, default=repr)}" for key, value in arguments.items())


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters; every known secret is masked
    first, so a cut never leaves part of one. Of a long text only as much of its start is
    masked as the line needs (:meth:`~openprogram_jupyter.core._secrets.Secrets.mask_start`)."""
    secrets, wanted = Secrets.now(), max(limit, 1)
    while True:
        masked, end = secrets.mask_start(text, wanted)
        if end == len(text):
            line = " ".join(masked.split())
            return line if len(line) <= limit else line[: limit - 1] + "…"
        line = " ".join(masked[:wanted].split())
        if len(line) > limit:
            return line[: limit - 1] + "…"
        wanted *= 4  # mostly whitespace so far: the line needs more of the text


def result_text(result: ToolResultMessage) -> str:
    """A result's text as the model reads it: its blocks in order, apart, an image among
    them as ``[image N]`` (``core/_result_text``)."""
    return result_blocks_text(result.content)


def result_preview(result: ToolResultMessage, limit: int = 100) -> str:
    """A result in one line: its text (without the note an edited call's result starts
    with for the model, :func:`~openprogram_jupyter.core.approvals.edit_note`) with every
    run of whitespace made one space, cut to ``limit`` characters (``…`` marks a cut); a
    result without text names its images (``[image image/png, 0.1 KB]``), or is
    ``(empty)``."""
    text = without_edit_note(result_text(result))
    if text.strip():
        return shorten(text, limit)
    images = [block for block in result.content if isinstance(block, ImageContent)]
    return shorten(" ".join(image_label(image) for image in images), limit) if images else "(empty)"


def truncate(text: str, limit: int, kept: str = RESULT_KEPT) -> tuple[str, str | None]:
    """``text`` cut to ``limit`` characters, and a note saying how much was left out and
    where the whole is (``kept``); ``None`` for the note when nothing was cut (or
    ``limit <= 0``, no limit). Every known secret is masked first, so a cut never leaves
    part of one. Of a long text only as much of its start is masked as the cut needs
    (:meth:`~openprogram_jupyter.core._secrets.Secrets.mask_start`); the characters past
    that are counted in the note as they are."""
    if limit <= 0:
        return mask(text), None
    masked, end = Secrets.now().mask_start(text, limit)
    if len(masked) <= limit and end == len(text):
        return masked, None
    left_out = len(masked) - limit + len(text) - end
    return masked[:limit], f"… {left_out:,} more characters not shown ({kept})"


def result_images(result: ToolResultMessage) -> list[ImageContent]:
    """The result's images that are safe to embed: a known image type and real base64."""
    images = []
    for block in result.content:
        if isinstance(block, ImageContent) and block.mime_type in SAFE_IMAGE_TYPES and is_base64(block.data):
            images.append(block)
    return images


def image_label(image: ImageContent) -> str:
    """``[PNG image, 6.8 KB]``: an image where text stands in for it."""
    size = len(image.data) * 3 // 4
    return f"[{image.mime_type.removeprefix('image/').upper()} image, {size / 1024:.1f} KB]"


_PACKAGE_DIR = str(Path(__file__).resolve().parents[1])


def traceback_of(result: ToolResultMessage | None) -> str | None:
    """The tool's traceback without this package's own frames (they say nothing about the
    tool, and would change with every edit of the loop)."""
    if result is None:
        return None
    value = result.details.get("traceback")
    if not value:
        return None
    return _without_package_frames(str(value))


def _without_package_frames(traceback: str) -> str:
    kept: list[str] = []
    skipping = False
    for line in traceback.split("\n"):
        if line.startswith('  File "'):
            path = line[len('  File "') :].split('"', 1)[0]
            skipping = str(Path(path).resolve()).startswith(_PACKAGE_DIR)
            if skipping:
                continue
        elif skipping and line.startswith("    "):
            continue
        else:
            skipping = False
        kept.append(line)
    return "\n".join(kept)
