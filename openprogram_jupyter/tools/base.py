"""What the loop knows about a tool: :class:`Tool`, its :class:`ToolOptions`, and the
:class:`ToolContext` a running call may ask for.

Every menu entry — a ``@function``, an ``@agentic_function``, a ``{"spec", "execute"}``
dict, any object with ``.spec`` and ``.execute`` — becomes a :class:`Tool` (see
:func:`~.menu.as_tool`), so the loop handles one shape only.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, overload

from ..core._json import JsonObject
from ..core._threads import threads_available
from ..core._tool_context import ToolContext
from ..core.errors import ArgumentError, SetupError, ToolExit
from ._jsonschema import validate_json_schema

__all__ = [
    "DICT_TOOL_KEYS",
    "SEARCH_TOOL_NAME",
    "ExternalTool",
    "Tool",
    "ToolContext",
    "ToolOptions",
    "checked_examples",
    "refuse_reserved_name",
    "run_in_daemon_thread",
]

SEARCH_TOOL_NAME = "tool_search"
"""The name of the package's own search tool, on the menu while any tool is deferred. No
other tool may hold it (:func:`refuse_reserved_name`): forks, reruns, written tests and
the providers' declarations leave the tool of this name out, taking it for the search."""


def refuse_reserved_name(name: object, error: type[Exception], fix: str) -> None:
    """Raise ``error`` saying that the name is reserved and then ``fix`` (what to do) when
    ``name`` is :data:`SEARCH_TOOL_NAME`; nothing otherwise."""
    if name == SEARCH_TOOL_NAME:
        raise error(
            f"{SEARCH_TOOL_NAME!r} is reserved for the package's own tool search (on the menu "
            f"while any tool is deferred); {fix}"
        )


@dataclass
class ToolOptions:
    """How a tool is gated and run. Every field narrows or guards; none is needed.

    See ``docs/tools.md`` for each layer. ``available_if`` is not here: it is decided once
    at decoration and an unavailable tool is simply not registered.
    """

    expose: bool = True
    toolset: tuple[str, ...] = ()
    unsafe_in: tuple[str, ...] = ()
    check_fn: Callable[[], bool] | None = None
    requires_env: tuple[str, ...] = ()
    can_use: Callable[..., bool] | None = None
    requires_approval: bool = False
    defer: bool = False
    timeout: float | None = None
    max_result_chars: int | None = None
    """The tool's own limit on what the model reads of a result; ``None``: the run's
    ``max_result_chars`` setting."""
    cache: bool = False
    render: Callable[[Any], Any] | None = None
    """Turns the return value into the rich form its card shows (``tools/_display.py``);
    the model still reads the value as text."""
    capture_output: bool = True
    """What the body writes — ``print()``, stderr, ``display()``, figures — is shown in the
    call's card (``_tool_output.py``); False: it lands wherever it would without us."""
    output_as_result: bool = True
    """A body that returns ``None`` after writing to stdout / stderr hands that text to the
    model as its result (cut like any result)."""
    figures_to_model: bool = False
    """The pictures its card shows from the body's output — figures it drew and left open,
    images it displayed — go to the model too, after the result (the run setting of the
    same name does this for every tool)."""
    strict: bool = False
    """Sent in the provider's strict mode, its schema made strict-compatible
    (docs/providers.md, "Tool features"); the run setting ``strict_tools`` does this for
    every tool."""
    examples: tuple[JsonObject, ...] = ()
    """Example arguments, each valid for the schema (checked when the tool is defined): sent
    as Anthropic's ``input_examples``, elsewhere as an "Examples" section of the description."""


class Tool:
    """A named, described, validated callable the model can pick.

    Subclasses provide :meth:`validate` and :meth:`call`. ``call`` returns the raw value
    (or an awaitable of it); rendering, timeouts, caching and error handling belong to the
    loop, so every kind of tool gets the same treatment.
    """

    name: str
    description: str
    parameters: JsonObject
    options: ToolOptions

    @property
    def spec(self) -> JsonObject:
        """``{"name", "description", "parameters"}`` — what providers send to the model —
        plus ``"strict": True`` for a strict tool and ``"input_examples"`` for a tool with
        examples (each provider declares them in its own way, models/_tool_features.py)."""
        spec: JsonObject = {"name": self.name, "description": self.description, "parameters": self.parameters}
        options = getattr(self, "options", None)
        if options is not None and options.strict:
            spec["strict"] = True
        if options is not None and options.examples:
            spec["input_examples"] = [dict(example) for example in options.examples]
        return spec

    @property
    def summary(self) -> str:
        """The first line of the description (used in the deferred-tool catalog)."""
        return (self.description.strip().splitlines() or [""])[0]

    def validate(self, arguments: JsonObject) -> dict[str, Any]:
        """Return the keyword arguments to call with; raise ``ArgumentError`` naming the problem."""
        raise NotImplementedError

    def call(self, kwargs: dict[str, Any], context: ToolContext) -> Awaitable[Any]:
        """Start the call; the awaitable resolves to the tool's return value."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class ExternalTool(Tool):
    """A ``{"spec": ..., "execute": ...}`` dict or an object with ``.spec`` and ``.execute``.

    Arguments are checked against ``spec["parameters"]`` (see ``_jsonschema``: types,
    required and unexpected fields, enums, bounds) and passed to ``execute`` as keyword
    arguments, sync or async. ``requires_approval``, ``timeout``, ``max_result_chars``,
    ``render``, ``capture_output``, ``output_as_result``, ``figures_to_model``, ``strict``
    and ``examples`` may be given as extra dict keys or attributes of the object; each
    example must be valid for the schema (``ValueError`` naming the problem).
    """

    def __init__(self, spec: Any, execute: Callable[..., Any], source: object) -> None:
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
            raise TypeError(f"tool spec must be a dict with a non-empty 'name': {spec!r}")
        if not callable(execute):
            raise TypeError(f"tool {spec['name']!r}: 'execute' is not callable")
        refuse_reserved_name(spec["name"], SetupError, "rename it")
        self.name = spec["name"]
        self.description = spec.get("description") or ""
        self.parameters = spec.get("parameters") or {"type": "object", "properties": {}}
        self.options = ToolOptions(
            requires_approval=bool(_option(source, "requires_approval", False)),
            timeout=_option(source, "timeout", None),
            max_result_chars=_option(source, "max_result_chars", None),
            render=_option(source, "render", None),
            capture_output=bool(_option(source, "capture_output", True)),
            output_as_result=bool(_option(source, "output_as_result", True)),
            figures_to_model=bool(_option(source, "figures_to_model", False)),
            strict=bool(_option(source, "strict", False)),
            examples=checked_examples(self.name, _option(source, "examples", ()), self.parameters),
        )
        self._execute = execute

    def validate(self, arguments: JsonObject) -> dict[str, Any]:
        problems = validate_json_schema(arguments, self.parameters)
        if problems:
            raise ArgumentError(problems)
        return dict(arguments)

    def call(self, kwargs: dict[str, Any], context: ToolContext) -> Awaitable[Any]:
        if inspect.iscoroutinefunction(self._execute):
            return self._execute(**kwargs)
        return run_in_daemon_thread(self._execute, kwargs, name=self.name)


DICT_TOOL_KEYS = {
    "spec",
    "execute",
    "requires_approval",
    "timeout",
    "max_result_chars",
    "render",
    "capture_output",
    "output_as_result",
    "figures_to_model",
    "strict",
    "examples",
}


def checked_examples(tool_name: str, examples: object, parameters: JsonObject) -> tuple[JsonObject, ...]:
    """``examples`` (a list of argument objects) as a tuple, each checked against
    ``parameters``. Raises ``TypeError`` when it is not a list of dicts and ``ValueError``
    naming the example and its problem when one is not valid for the schema."""
    if examples is None or examples == ():
        return ()
    if not isinstance(examples, (list, tuple)) or not all(isinstance(e, dict) for e in examples):
        raise TypeError(f"tool {tool_name!r}: examples must be a list of argument dicts, got {examples!r}")
    for number, example in enumerate(examples, 1):
        problems = validate_json_schema(example, parameters)
        if problems:
            said = "; ".join(f"{where}: {reason}" for where, reason in problems)
            raise ValueError(f"tool {tool_name!r}: example {number} does not fit the schema: {said}")
    return tuple(dict(example) for example in examples)


def _option(source: object, key: str, default: object) -> Any:
    if isinstance(source, dict):
        return source.get(key, default)
    return getattr(source, key, default)


def run_in_daemon_thread(fn: Callable[..., Any], kwargs: dict[str, Any], *, name: str) -> asyncio.Future[Any]:
    """Run ``fn(**kwargs)`` on a daemon worker thread, in a copy of the current context.

    Daemon threads rather than an executor: Python cannot kill a thread, and a tool that
    ignores cancellation must not hold a pool slot or block interpreter exit. Idle
    workers are reused (starting a thread costs more than a whole round of the loop);
    when none is idle a new one starts, so an abandoned call never starves the next. The
    copied context carries the contextvars (nesting, and ipykernel's output routing, so
    the tool's ``print()`` lands in its cell).

    Where this Python cannot start threads (Pyodide: ``core._threads``) ``fn`` runs here,
    on the event loop's thread, before the future is returned: a stop then waits for it.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(method: str, value: object) -> None:
        if not future.done():
            getattr(future, method)(value)

    def job() -> None:
        try:
            result = context.run(fn, **kwargs)
        except BaseException as error:  # wrapped: some exceptions cannot travel as themselves
            outcome: tuple[str, Any] = ("set_exception", ToolExit(error))
        else:
            outcome = ("set_result", result)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:
            pass  # the loop is gone: the run ended and abandoned this call

    if threads_available():
        _workers.submit(job)
    else:  # Pyodide: the body runs to its end here, before the caller can await it
        job()
    return future


class _DaemonWorkers:
    """Daemon threads that take one job at a time and wait a while for the next."""

    IDLE_SECONDS = 30.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Slot] = []

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            slot = self._idle.pop() if self._idle else None
        if slot is None:
            slot = _Slot()
            threading.Thread(target=self._work, args=(slot, job), name="openprogram-tool", daemon=True).start()
        else:
            slot.hand(job)

    def _work(self, slot: _Slot, job: Callable[[], None]) -> None:
        while True:
            job()
            with self._lock:
                self._idle.append(slot)
            next_job = slot.take(self.IDLE_SECONDS)
            if next_job is None:
                with self._lock:
                    if slot in self._idle:
                        self._idle.remove(slot)
                        return
                next_job = slot.take(None)  # handed a job just as we timed out
            job = next_job


class _Slot:
    """One worker's mailbox."""

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._job: Callable[[], None] | None = None

    def hand(self, job: Callable[[], None]) -> None:
        self._job = job
        self._ready.set()

    @overload
    def take(self, timeout: None) -> Callable[[], None]: ...
    @overload
    def take(self, timeout: float) -> Callable[[], None] | None: ...
    def take(self, timeout: float | None) -> Callable[[], None] | None:
        """The job handed to this slot, waiting up to ``timeout`` seconds for it (``None``:
        until it comes); ``None`` if none came in time."""
        if not self._ready.wait(timeout):
            return None
        self._ready.clear()
        job, self._job = self._job, None
        return job


_workers = _DaemonWorkers()
