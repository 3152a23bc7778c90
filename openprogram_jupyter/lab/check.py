"""``op.check(run)``: assertions about what a run did, for autograding and tests.

::

    op.check(run).called("celsius_to_fahrenheit", celsius=-5) \\
                 .called_before("celsius_to_fahrenheit", "is_freezing") \\
                 .called_in_order(("celsius_to_fahrenheit", {"celsius": -5}), "is_freezing") \\
                 .not_called("delete") \\
                 .at_most(3) \\
                 .returned("celsius_to_fahrenheit", 23.0) \\
                 .answer_contains("frozen") \\
                 .stopped("stop")

Each method checks one thing and returns the checker, so checks chain; the first that
fails raises ``AssertionError`` with a message that says what was expected and lists what
the run actually did (its picks, their results, how it ended and its answer), so nbgrader
and pytest show it as is. A checker that passed shows which checks it made.

The checks read the run's own picks — the calls the model made at the top level of the
run (nested runs' calls are theirs), whatever became of them: a denied, skipped or failed
pick still counts as called; ``ok=True`` counts only picks that ran and returned. Arguments
are the model's (for a pick the user edited, the edited ones count too) and match as a
subset: only the names given are compared, by ``==``, and :data:`ANY` equals anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, get_args

from ..core._json import JsonObject
from ..core._secrets import mask
from ..core.errors import SetupError
from ..core.messages import AssistantMessage, RunStopReason, ToolResultMessage

if TYPE_CHECKING:
    from ..engine.run import Run

__all__ = ["ANY", "RunCheck", "check"]

_STOP_REASONS = get_args(RunStopReason)
_PREVIEW = 100


class _Any:
    """Equal to everything: ``op.check(run).called("f", path=op.ANY)``."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "op.ANY"


ANY: Any = _Any()


@dataclass(frozen=True)
class _Pick:
    number: int
    round: int
    name: str
    arguments: JsonObject
    result: ToolResultMessage | None

    @property
    def edited(self) -> JsonObject | None:
        edited = self.result.details.get("edited_arguments") if self.result is not None else None
        return edited if isinstance(edited, dict) else None

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.status == "done"

    def matches(self, name: str, arguments: JsonObject, ok: bool) -> bool:
        if self.name != name or (ok and not self.ok):
            return False
        return any(
            all(k in given and given[k] == v for k, v in arguments.items())
            for given in (self.arguments, self.edited or self.arguments)
        )

    def describe(self) -> str:
        call = f"{self.name}({_arguments(self.arguments)})"
        if self.edited is not None:
            call += f" [the user edited it to ({_arguments(self.edited)})]"
        if self.result is None:
            return f"{self.number}. round {self.round}: {call} → no result"
        return f"{self.number}. round {self.round}: {call} → {self.result.status}: {_preview(self.result.text)}"


def check(run: Run) -> RunCheck:
    """A :class:`RunCheck` on ``run``: a ``Run`` (live, finished or replayed) or a
    ``RunHandle``, which is waited for first."""
    return RunCheck(run)


class RunCheck:
    """Chainable checks on one run; see the module docstring. Create with :func:`check`."""

    def __init__(self, run: Run) -> None:
        if hasattr(run, "wait") and hasattr(run, "abort"):  # a RunHandle: grade what it ends with
            run = run.wait()
        if not hasattr(run, "messages") or not hasattr(run, "stop_reason"):
            raise SetupError(
                f"op.check needs a Run or a RunHandle (e.g. the variable given to -o), not {type(run).__name__}"
            )
        self.run = run
        self.passed: list[str] = []
        self._picks = _picks(run.messages)

    # -- the checks -------------------------------------------------------------------

    def called(
        self,
        name: str,
        /,
        *,
        times: int | None = None,
        ok: bool = False,
        arguments: dict[str, Any] | None = None,
        **matching: object,
    ) -> RunCheck:
        """The model called ``name`` with at least these arguments (``**matching``, or
        ``arguments=`` for argument names such as ``times``): at least once, or exactly
        ``times`` times; with ``ok=True`` only picks that ran and returned count."""
        __tracebackhide__ = True
        wanted = {**(arguments or {}), **matching}
        count = sum(pick.matches(name, wanted, ok) for pick in self._picks)
        what = f"{name}({_arguments(wanted)})" if wanted else name
        what += " that ran and returned" if ok else ""
        if times is None and count == 0:
            self._fail(f"expected a call to {what}; the run made none")
        if times is not None and count != times:
            self._fail(f"expected {_times(times)} call(s) to {what}; the run made {_times(count)}")
        return self._pass(f"called {what}" + (f" exactly {_times(times)} time(s)" if times is not None else ""))

    def not_called(self, name: str, /, **matching: object) -> RunCheck:
        """The model never called ``name`` (with these arguments, if any are given)."""
        __tracebackhide__ = True
        found = [pick for pick in self._picks if pick.matches(name, matching, ok=False)]
        what = f"{name}({_arguments(matching)})" if matching else name
        if found:
            self._fail(f"expected no call to {what}; the run made {len(found)} (pick {found[0].number} first)")
        return self._pass(f"did not call {what}")

    def at_most(self, limit: int, /, name: str | None = None) -> RunCheck:
        """The model made at most ``limit`` calls in all — or, given ``name``, at most
        ``limit`` calls to that tool — whatever became of them. ``ValueError`` for a
        ``limit`` that is not an int of 0 or more."""
        __tracebackhide__ = True
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise SetupError(f"op.check(...).at_most({limit!r}): the limit must be an int of 0 or more")
        count = sum(name is None or pick.name == name for pick in self._picks)
        what = f"call(s) to {name}" if name is not None else "call(s)"
        if count > limit:
            self._fail(f"expected at most {limit} {what}; the run made {count}")
        return self._pass(f"≤ {limit} {'calls' if name is None else f'calls to {name}'}")

    def called_before(self, first: str, second: str, /) -> RunCheck:
        """Both were called, and the first call to ``first`` came before the first call to ``second``."""
        __tracebackhide__ = True
        numbers = {name: next((p.number for p in self._picks if p.name == name), None) for name in (first, second)}
        missing = [name for name, number in numbers.items() if number is None]
        if missing:
            self._fail(f"expected {first} to be called before {second}; the run never called {' or '.join(missing)}")
        if numbers[first] > numbers[second]:  # type: ignore[operator]  # both found above
            self._fail(
                f"expected {first} to be called before {second}; {second} came first "
                f"(pick {numbers[second]}, {first} at pick {numbers[first]})"
            )
        return self._pass(f"called {first} before {second}")

    def called_in_order(self, *picks: str | tuple[str, dict[str, Any]], ok: bool = False) -> RunCheck:
        """The run's picks are exactly these, in this order, and no others: each a tool name,
        or ``(name, arguments)`` whose arguments match as a subset; with ``ok=True`` each
        pick must also have run and returned."""
        __tracebackhide__ = True
        wanted = [(pick, {}) if isinstance(pick, str) else (pick[0], dict(pick[1])) for pick in picks]
        shown = "; ".join(f"{name}({_arguments(arguments)})" for name, arguments in wanted) or "no picks"
        for number, ((name, arguments), pick) in enumerate(zip(wanted, self._picks, strict=False), 1):
            if not pick.matches(name, arguments, ok):
                self._fail(
                    f"expected pick {number} to be {name}({_arguments(arguments)})"
                    + (" that ran and returned" if ok else "")
                    + f", in the order {shown}"
                )
        if len(wanted) != len(self._picks):
            self._fail(f"expected exactly {len(wanted)} pick(s), in the order {shown}; the run made {len(self._picks)}")
        return self._pass(f"picked, in order: {shown}")

    def returned(self, name: str, expected: object, /) -> RunCheck:
        """A call to ``name`` ran and returned ``expected``: at least one of its picks that
        ran and returned has a value equal to ``expected`` (``==``) — or, when ``expected``
        is callable, a value for which ``expected(value)`` is true.

        The value is what the tool returned, whole (``ToolResultMessage.returned``), while
        the run is in the process that ran it; for a run restored from a saved notebook or
        replayed elsewhere, and for a tool that returned ``None``, it is the result's text,
        what the model read. A string ``expected`` also matches that text exactly, so
        ``returned("to_f", "23.0")`` and ``returned("to_f", 23.0)`` both hold for a tool
        that returned ``23.0``. A predicate that raises fails the check, naming the error."""
        __tracebackhide__ = True
        done = [pick for pick in self._picks if pick.name == name and pick.ok]
        if callable(expected):
            label = getattr(expected, "__name__", type(expected).__name__)
            what = f"a value for which {label} is true"
        else:
            what = _short(expected)
        if not done:
            self._fail(f"expected a call to {name} that returned {what}; no call to {name} ran and returned")
        values = [_value(pick.result) for pick in done if pick.result is not None]  # pick.ok: it has one
        for pick, value in zip(done, values, strict=True):
            if callable(expected):
                try:
                    matched = bool(expected(value))
                except Exception as error:
                    self._fail(
                        f"expected a call to {name} that returned {what}; {label} raised "
                        f"{type(error).__name__} on pick {pick.number}'s value {_short(value)}"
                    )
            else:
                matched = value == expected or (
                    isinstance(expected, str) and _value(pick.result, text=True) == expected
                )
            if matched:
                return self._pass(f"{name} returned {what}")
        self._fail(
            f"expected a call to {name} that returned {what}; its calls returned {', '.join(map(_short, values))}"
        )

    def answer_contains(self, text: str, /, *, case_sensitive: bool = False) -> RunCheck:
        """The run's answer (``run.text``) contains ``text`` (ignoring case unless asked)."""
        __tracebackhide__ = True
        answer = self.run.text or ""
        found = text in answer if case_sensitive else text.casefold() in answer.casefold()
        if not found:
            self._fail(f"expected the answer to contain {text!r}" + ("" if case_sensitive else " (any case)"))
        return self._pass(f"answer contains {text!r}")

    def stopped(self, reason: str, /) -> RunCheck:
        """The run ended with ``stop_reason == reason`` (``"stop"``, ``"max_iterations"``,
        ``"error"`` or ``"aborted"``)."""
        __tracebackhide__ = True
        if reason not in _STOP_REASONS:
            raise SetupError(f"op.check(...).stopped({reason!r}): a run ends with one of {', '.join(_STOP_REASONS)}")
        if self.run.stop_reason != reason:
            self._fail(f"expected the run to end with {reason!r}")
        return self._pass(f"ended with {reason!r}")

    # -- reporting --------------------------------------------------------------------

    def _pass(self, what: str) -> RunCheck:
        self.passed.append(what)
        return self

    def _fail(self, expected: str) -> NoReturn:
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        raise CheckFailed(mask(f"op.check: {expected}.\n{self.summary()}"))

    def summary(self) -> str:
        """What the run did, in a few lines: how it ended, its picks, and its answer (every
        known secret masked, as in every other output)."""
        run = self.run
        ended = f"ended with {run.stop_reason!r}" if run.stop_reason else "has not ended"
        error = f" ({run.error})" if run.error else ""
        lines = [
            f"The run {ended}{error} after {run.rounds} round(s) and made "
            f"{len(self._picks)} call(s){':' if self._picks else '.'}"
        ]
        lines += [f"  {pick.describe()}" for pick in self._picks]
        lines.append(f"Its answer: {_preview(run.text)}" if run.text else "It gave no answer text.")
        return mask("\n".join(lines))

    def __repr__(self) -> str:
        if not self.passed:
            return f"<op.check: no checks yet on run {getattr(self.run, 'run_id', '?')}>"
        return mask(f"✓ {len(self.passed)} check(s) passed: " + "; ".join(self.passed))

    def _repr_html_(self) -> str:
        from html import escape

        from ..render._safe import safe_view

        return safe_view("text/html", f'<div style="color:#1a7f37">{escape(repr(self))}</div>')


class CheckFailed(AssertionError):
    """A check that did not hold. IPython shows its message alone — the frames are the
    package's, and the line that failed is the user's cell — while pytest and nbgrader
    see the ``AssertionError`` it is."""

    def _render_traceback_(self) -> list[str]:
        return [f"AssertionError: {self}"]


def _picks(messages: list[Any]) -> list[_Pick]:
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    picks: list[_Pick] = []
    rounds = 0
    for message in messages:
        if isinstance(message, AssistantMessage):
            rounds += 1
            for tool_call in message.tool_calls:
                picks.append(
                    _Pick(
                        len(picks) + 1,
                        rounds,
                        tool_call.name,
                        dict(tool_call.arguments),
                        results.get(tool_call.id or ""),
                    )
                )
    return picks


def _arguments(arguments: JsonObject) -> str:
    return ", ".join(
        f"{k}={v!r}" if v is ANY else f"{k}={json.dumps(v, ensure_ascii=False, default=repr)}"
        for k, v in arguments.items()
    )


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return json.dumps(text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…", ensure_ascii=False)


def _value(result: ToolResultMessage | None, text: bool = False) -> Any:
    """What a finished call returned: the tool's own value while this process holds it,
    else (or with ``text=True``) the result's text, what the model read."""
    if result is None:
        return None
    return result.text if text or result.returned is None else result.returned


def _short(value: object) -> str:
    """A value as a failure message shows it: its repr, cut to the preview length."""
    shown = repr(value)
    return shown if len(shown) <= _PREVIEW else shown[: _PREVIEW - 1] + "…"


def _times(count: int) -> str:
    return "no" if count == 0 else str(count)
