"""The package's errors: one base, and one class for each kind of failure.

Every error this package raises on purpose is an :class:`OpenProgramError`, so
``except op.OpenProgramError`` catches them all and nothing else. Each kind also keeps the
built-in type it has always been (a bad setting is still a ``ValueError`` or a
``TypeError``), so code written against the built-in types goes on working.

=====================  ================================================================
``SetupError``         a run could not start: a bad setting, prompt, menu or model
                       string (nothing ran; also a ``ValueError`` and a ``TypeError``)
``SchemaError``        a function cannot be a tool: its signature has no JSON Schema
``ArgumentError``      a tool's arguments fail its schema (the model is told why)
``RunError``           ``exec`` has no answer: the run ended with ``stop_reason "error"``
``DecisionError``      no valid pick among ``choices=``, also after one re-ask
``CassetteError``      a recorded cassette is missing, corrupt, or no longer matches
``ToolExit``           a tool raised ``SystemExit`` / ``KeyboardInterrupt`` (its call fails)
=====================  ================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._controls import visible_controls
from ._secrets import mask

if TYPE_CHECKING:
    from ._engine_shapes import RunRecord
    from .messages import ErrorKind, ReplyError

__all__ = [
    "PROVIDER_SAID",
    "ArgumentError",
    "AskError",
    "BudgetSpentError",
    "CassetteError",
    "DecisionError",
    "OpenProgramError",
    "ProviderError",
    "RunError",
    "SaveError",
    "SchemaError",
    "SetupError",
    "ToolExit",
    "ToolFailure",
    "UserMistake",
    "run_error",
    "split_model_error",
]


PROVIDER_SAID = "\n\nThe SDK said: "
"""Between a model error's one-line summary and the provider SDK's own words: an error it raised
before anything was sent (no key), so "the provider said" would claim a reply there was not."""


def split_model_error(text: str) -> tuple[str, str | None]:
    """``(summary, provider's own words or None)`` of a model error message: the views show
    the summary and keep the rest behind a collapsed detail."""
    summary, found, detail = text.partition(PROVIDER_SAID)
    return (summary, detail) if found else (text, None)


class OpenProgramError(Exception):
    """Base of every error this package raises on purpose."""


class ProviderError(OpenProgramError):
    """Why a round of the model failed: a provider's error reply, an SDK that refused
    before sending (no key), a connection that failed or broke, a refusal, a cassette that
    could not play. It is ``run.error`` of a run that ended in an error.

    ``str()`` is the one-line ``message`` the views show; ``detail`` the SDK's or
    provider's own words where they add something. ``status`` is the HTTP status
    (``None`` without one), ``code`` the provider's error type (``rate_limit_error``,
    ``ThrottlingException``, …), ``retryable`` whether trying again could succeed,
    ``retry_after`` the wait the server asked for, ``provider`` its name, ``body`` the
    error body it sent (parsed JSON or text; kept only while the run is in memory), and
    ``kind`` what kind of failure it is (:data:`~openprogram_jupyter.core.messages.ErrorKind`;
    from ``status`` and ``code`` unless given) — decide by it, never by the words.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        detail: str | None = None,
        body: object = None,
        provider: str | None = None,
        kind: ErrorKind | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.retryable = retryable
        self.retry_after = retry_after
        self.detail = detail
        self.body = body
        self.provider = provider
        self.kind: ErrorKind = kind or kind_of(status, code)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={value!r}"
            for name, value in (
                ("kind", self.kind),
                ("status", self.status),
                ("code", self.code),
                ("provider", self.provider),
            )
            if value is not None
        )
        return f"ProviderError({self.message!r}, {fields})"

    @classmethod
    def of_reply(cls, text: str, error: ReplyError | None) -> ProviderError:
        """The error of a failed reply: from its fields, or — a reply saved before they
        existed — from its text (summary and the provider's words)."""
        if error is None:
            summary, detail = split_model_error(text)
            return cls(summary, detail=detail, kind="other")
        return cls(
            error.summary or split_model_error(text)[0],
            status=error.status,
            code=error.code,
            retryable=error.retryable,
            detail=error.detail,
            provider=error.provider,
            kind=error.kind,
        )


def kind_of(status: int | None, code: str | None) -> ErrorKind:
    """The :data:`~openprogram_jupyter.core.messages.ErrorKind` an HTTP ``status`` and a
    provider's error ``code`` say (``"other"`` when neither says anything known)."""
    text = (code or "").lower()
    if status in (401, 403) or any(word in text for word in ("authentication", "permission", "unauthorized")):
        return "auth"
    if status == 429 or any(word in text for word in ("rate", "throttl", "exhausted", "quota")):
        return "rate_limit"
    if status == 529 or "overload" in text:
        return "overloaded"
    if "context_length" in text or "too_long" in text:
        return "context_length"
    if status == 408 or "timeout" in text:
        return "timeout"
    if status == 404 or "not_found" in text:
        return "not_found"
    if status in (400, 413, 422) or "invalid_request" in text or "validation" in text:
        return "bad_request"
    if status is not None and status >= 500:
        return "server"
    return "other"


class UserMistake:
    """Mixed into an error that reports something the user can fix (a setting, a path, a
    missing extra): IPython shows its message alone (``_render_traceback_``) — the frames
    are the package's and say nothing the message does not — while the cell still fails."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class SetupError(UserMistake, OpenProgramError, ValueError, TypeError):
    """A run could not start: nothing was sent to a model and no tool ran.

    Raised for a bad setting (``max_iterations="x"``), an empty or ill-typed prompt, a
    menu that names unknown tools or toolsets, a forced ``tool_choice`` that is not on the
    menu, a nesting depth past the cap, bad ``choices=``, or a model string that cannot
    be resolved. ``option`` names the run option at fault where there is one (so a face
    can say it in its own terms, e.g. ``%%agent``'s ``--tool-choice``).
    """

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


class SchemaError(OpenProgramError, TypeError):
    """A function cannot be described to a model (``*args``, an unannotated parameter, a
    type with no JSON Schema); the message names the function and the parameter."""


class ArgumentError(OpenProgramError, ValueError):
    """Arguments failed validation.

    ``problems`` holds one ``(field, reason)`` pair per problem; ``field`` is a dotted path
    (``"point.x"``, ``"items.2"``) or ``"(arguments)"`` for the whole object. ``str(error)``
    is what the model reads: ``invalid arguments:`` and one ``- field: reason`` line each.
    """

    def __init__(self, problems: Sequence[tuple[str, str]]) -> None:
        self.problems = list(problems)
        super().__init__("invalid arguments:\n" + "\n".join(f"- {where}: {why}" for where, why in self.problems))

    @property
    def fields(self) -> list[str]:
        """The dotted path of every bad field, in order."""
        return [where for where, _ in self.problems]


class RunError(OpenProgramError, RuntimeError):
    """``exec`` could not produce an answer: the run ended with ``stop_reason == "error"``.

    ``run`` is the full record (also at ``runtime.last_run``): nothing is lost. The message
    has every known secret masked and its control characters made visible (a terminal
    prints it as it is).
    """

    def __init__(self, run: RunRecord) -> None:
        message = f"the run failed after {run.rounds} round(s): {run.error or 'unknown error'}"
        super().__init__(visible_controls(mask(message)))
        self.run = run


class BudgetSpentError(UserMistake, RunError):
    """A :class:`RunError` (caught as one) for a run a gateway refused because the key's
    budget is spent (``run.error.kind == "budget"``): nothing in the notebook's code is
    wrong, so IPython shows its one line alone, never a traceback."""


def run_error(run: RunRecord) -> RunError:
    """What ``exec`` raises for ``run``, which ended in an error: a
    :class:`BudgetSpentError` when a spent budget ended it (by the error's kind), else a
    :class:`RunError`."""
    spent = run.error is not None and run.error.kind == "budget"
    return BudgetSpentError(run) if spent else RunError(run)


class DecisionError(OpenProgramError, ValueError):
    """The model did not end with a valid pick, also after one re-ask.

    ``attempts`` is how many picks were read, ``errors`` what was wrong with each,
    ``reply`` the text of the last reply (``""`` if it had none) and ``run`` the whole
    record (also at ``runtime.last_run``). The message, which may quote the reply, has
    every known secret masked and its control characters made visible.
    """

    def __init__(
        self, message: str, *, attempts: int, errors: list[str], reply: str, run: RunRecord | None = None
    ) -> None:
        super().__init__(visible_controls(mask(message)))
        self.attempts = attempts
        self.errors = errors
        self.reply = reply
        self.run = run


class ToolExit(OpenProgramError):
    """What a tool's body raised, carried to the call's result as an ordinary exception.

    Every exception a tool body raises travels wrapped: some cannot travel as themselves —
    ``SystemExit`` and ``KeyboardInterrupt`` would end the kernel, another
    ``BaseException`` (``GeneratorExit``, pytest's ``fail()``) would escape the run,
    ``StopIteration`` is refused by the future that carries a thread's result (the call
    never settled), and the tool's own ``CancelledError`` would pass for the user's Stop.
    ``original`` is the exception the tool raised; the call's result names it.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(type(original).__name__)
        self.original = original


class ToolFailure(OpenProgramError):
    """A tool's failure its message says in words (an MCP server's error, a dead server):
    the model reads ``Error: <tool> failed: <message>``, without a Python class name."""


class AskError(OpenProgramError, RuntimeError):
    """``ctx.ask(...)`` got no answer: no person can answer in this run (a run started from
    Python without a view, an evaluation, an ``op.serve`` call without a card), the run was stopped
    while the question waited, or its ``timeout=`` passed. A tool can catch it and go on."""


class ActionRefused(AskError):
    """What a call does on the run's behalf under a name of its own (an MCP server's
    sampling request, ``mcp_sampling:<server>``: :meth:`ToolContext.governed_action`) was
    refused: by the run's approval policy, by the user, or with no one to ask. Its text says
    which, in words."""


class SaveError(UserMistake, OpenProgramError, ValueError):
    """``run.save(path)`` cannot write that file: a suffix it does not know, or no such folder."""


class CassetteError(OpenProgramError, ValueError):
    """A cassette is missing, corrupt, truncated, or does not match what is replayed."""
