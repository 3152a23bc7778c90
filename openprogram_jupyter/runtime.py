"""``Runtime``: the entry points — ``exec``, ``run``, ``start``, ``aexec``, ``arun``.

All of them drive the one loop in :mod:`openprogram_jupyter.loop`. The async ones run it
as a task on the caller's event loop. The sync ones run it on a worker thread with its own
event loop and wait in short slices, so Ctrl-C / Kernel ▸ Interrupt lands promptly, aborts
the run cleanly and leaves the partial run on ``runtime.last_run`` (and they work inside
Jupyter, whose own event loop is already running).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ._context import current_call

# The loop, the tools layer and pydantic load with the first run, not with this module:
# `%load_ext` creates the notebook's Runtime and must stay fast.
if TYPE_CHECKING:
    from .messages import UserMessage
    from .models import Model
    from .run import Run
    from .tool_execution import Approver
    from .tools.registry import Registry

__all__ = ["RunHandle", "Runtime", "current_runtime", "default_runtime"]

_ABORT_POLL_SECONDS = 0.02
_DEFAULT = object()


class Runtime:
    """Runs the tool-calling loop with one model.

    ``model`` is a model string (``"openai:gpt-4.1-mini"``, ``"anthropic:…"``,
    ``"gemini:…"``, ``"bedrock:…"``, ``"offline"``), a :class:`Model` object, or ``None``
    for the default (``OPENPROGRAM_MODEL``, else the first provider whose key is set, else
    ``"offline"``). The model is resolved on first use, so constructing a Runtime is cheap
    and imports no SDK. ``api_key`` / ``base_url`` override the provider's environment
    variables. ``approve`` answers ``requires_approval`` tools (see
    :class:`~openprogram_jupyter.tool_execution.ApprovalRequest`). ``tools_deny`` is a
    session-level deny list. ``max_depth`` caps nested runs. ``cancel_grace`` is how long
    a stopped tool may take to notice before it is abandoned. ``record`` names a JSON
    cassette file that every reply of the model is saved to (``"replay:FILE"`` plays it
    back).
    """

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        system: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        approve: Approver | None = None,
        tools_deny: Sequence[str] = (),
        max_depth: int = 8,
        cancel_grace: float = 0.5,
        registry: Registry | None = None,
        record: str | os.PathLike[str] | None = None,
    ) -> None:
        self._model_spec = model
        self.record = record
        self._model: Model | None = None
        self.system = system
        self._api_key = api_key
        self._base_url = base_url
        self.approve = approve
        self.tools_deny = list(tools_deny)
        self.max_depth = max_depth
        self.cancel_grace = cancel_grace
        self._registry = registry
        self.last_run: Run | None = None

    @property
    def registry(self) -> Registry:
        """Where the default menu comes from (the global registry unless one was given)."""
        if self._registry is None:
            from .tools.registry import default_registry

            return default_registry
        return self._registry

    @property
    def model_spec(self) -> str | Model | None:
        """The model as given (``None``: the default chain decides on first use)."""
        return self._model_spec

    @property
    def model(self) -> Model:
        """The resolved model (resolving it on first access)."""
        if self._model is None:
            from .models import resolve_model

            model = resolve_model(self._model_spec, api_key=self._api_key, base_url=self._base_url)
            if self.record is not None:
                from .models.replay import RecordingModel

                model = RecordingModel(model, self.record, secrets=[self._api_key] if self._api_key else [])
            self._model = model
        return self._model

    @model.setter
    def model(self, value: str | Model | None) -> None:
        self._model_spec = value
        self._model = None  # resolved on next use

    def __repr__(self) -> str:
        name = self._model.name if self._model is not None else (self._model_spec or "default")
        return f"<Runtime model={name!s}>"

    # -- the async core -------------------------------------------------------------------

    async def arun(
        self,
        content: Any,
        *,
        messages: Sequence[Any] | None = None,
        system: str | None | object = _DEFAULT,
        tools: Sequence[object] | None = None,
        toolset: str | None = None,
        tools_source: str | None = None,
        tools_allow: Sequence[str] | None = None,
        tools_deny: Sequence[str] | None = None,
        tool_choice: Any = "auto",
        parallel_tool_calls: bool | None = None,
        max_iterations: int | None = 20,
        choices: Any = None,
        abort: threading.Event | None = None,
        on_event: Callable[[Any], None] | None = None,
        approve: Approver | None = None,
        get_steering_messages: Callable[[], Sequence[Any]] | None = None,
        get_follow_up_messages: Callable[[], Sequence[Any]] | None = None,
        _run_created: Callable[[Run], None] | None = None,
    ) -> Run:
        """Run the loop on the current event loop and return the :class:`Run`.

        ``messages`` is earlier conversation to continue (a session). Setting ``abort``
        stops the run gracefully: it returns with ``stop_reason == "aborted"``. If the
        task awaiting this is cancelled instead (a kernel interrupt), the run is finished
        the same way, stored on :attr:`last_run`, and ``CancelledError`` is re-raised.
        """
        if choices is not None:
            from .decision import arun_with_choices

            return await arun_with_choices(
                self, content, choices,
                dict(messages=messages, system=system, tools=tools, toolset=toolset,
                     tools_source=tools_source, tools_allow=tools_allow, tools_deny=tools_deny,
                     tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls,
                     max_iterations=max_iterations, abort=abort, on_event=on_event, approve=approve,
                     get_steering_messages=get_steering_messages,
                     get_follow_up_messages=get_follow_up_messages, _run_created=_run_created),
            )
        from .loop import LoopConfig, LoopState, run_loop
        from .messages import new_id
        from .models import normalize_tool_choice
        from .run import Run
        from .tool_execution import CallEnvironment
        from .tools.registry import resolve_menu

        parent = current_call.get()
        depth = parent.context.depth + 1 if parent is not None else 0
        if depth > self.max_depth:
            raise RecursionError(
                f"nested runs are capped at depth {self.max_depth} (Runtime(max_depth=...)); "
                "this call would open depth " + str(depth)
            )
        if tools is None and toolset is None and parent is not None:
            tools = parent.tools
        prompts = _as_prompts(content, allow_empty=bool(messages))
        menu = resolve_menu(
            self.registry, tools=tools, toolset=toolset, tools_source=tools_source,
            tools_allow=tools_allow, tools_deny=tools_deny, session_deny=self.tools_deny, runtime=self,
        )
        choice = normalize_tool_choice(tool_choice)
        if isinstance(choice, dict) and menu.get(choice["name"]) is None:
            raise ValueError(f"tool_choice forces {choice['name']!r}, which is not on this run's menu: {menu.names}")
        if max_iterations is not None and not isinstance(max_iterations, int):
            raise TypeError(f"max_iterations must be an int or None, got {max_iterations!r}")

        model = self.model
        run = Run(new_id("run"), model.name, menu.names, depth, parent.context.tool_call_id if parent else None)
        sink = _EventSink.for_run(run, on_event, parent.emit if parent is not None else None)
        calls = CallEnvironment(
            menu=menu, runtime=self, run_id=run.run_id, depth=depth, emit=sink.emit, forward=sink.forward,
            approve=approve or self.approve, inherited_tools=tools, cancel_grace=self.cancel_grace,
        )
        stop_signals = [s for s in (abort, parent.context.cancelled if parent else None) if s is not None]
        config = LoopConfig(
            stop_requested=(lambda: any(s.is_set() for s in stop_signals)) if stop_signals else None,
            model=model, calls=calls, system=self.system if system is _DEFAULT else system,  # type: ignore[arg-type]
            tool_choice=choice, parallel_tool_calls=parallel_tool_calls, max_iterations=max_iterations,
            get_steering_messages=get_steering_messages, get_follow_up_messages=get_follow_up_messages,
        )
        state = LoopState(context=[*_as_history(messages or ())])
        self.last_run = run if depth == 0 else self.last_run
        if _run_created is not None:
            _run_created(run)

        try:
            await _drive(asyncio.ensure_future(run_loop(config, state, prompts)), stop_signals,
                         grace=self.cancel_grace + 2.0)
        finally:
            run.pending_messages = list(state.undelivered)
        return run

    async def aexec(self, content: Any, **options: Any) -> Any:
        """Like :meth:`arun`, returning the answer (see :meth:`exec`)."""
        return _answer(await self.arun(content, **options))

    # -- sync entry points ----------------------------------------------------------------

    def start(self, content: Any, **options: Any) -> RunHandle:
        """Start a run on a worker thread and return its :class:`RunHandle` at once."""
        handle = RunHandle(self)
        handle._start(content, options)
        return handle

    def run(self, content: Any, **options: Any) -> Run:
        """Run to the end and return the :class:`Run` (works inside Jupyter too).

        A ``KeyboardInterrupt`` (Ctrl-C, Kernel ▸ Interrupt) while waiting aborts the run,
        waits briefly for it to close every open call, stores it on :attr:`last_run`
        and re-raises.
        """
        handle = self.start(content, **options)
        try:
            return handle.wait()
        except KeyboardInterrupt:
            handle.abort()
            handle._finished.wait(self.cancel_grace + 2.0)
            if handle.run is not None:
                self.last_run = handle.run
            raise

    def exec(self, content: Any, **options: Any) -> Any:
        """Run to the end and return the answer.

        The answer is the final text; with ``choices=`` it is the resolved decision. At
        the round cap (``max_iterations``) it is the last reply's text and the Run says
        ``"max_iterations"``; when stopped it is whatever text had arrived. If the run
        failed (``stop_reason == "error"``) :class:`RunError` is raised, carrying the Run.
        """
        return _answer(self.run(content, **options))


class RunHandle:
    """A run going on in the background.

    ``steer(text)`` queues a message the model sees before its next round (calls of the
    current round not yet started are skipped); ``follow_up(text)`` queues one for when
    it would otherwise finish; ``abort()`` stops it; ``wait()`` returns the :class:`Run`.
    ``events`` is the live list of events so far.
    """

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.run: Run | None = None
        self._abort = threading.Event()
        self._finished = threading.Event()
        self._steering: deque[Any] = deque()
        self._follow_ups: deque[Any] = deque()
        self._error: BaseException | None = None

    def _start(self, content: Any, options: dict[str, Any]) -> None:
        # The caller's abort event, if any, is the handle's: setting either stops the run.
        self._abort = options.pop("abort", None) or self._abort
        options.setdefault("get_steering_messages", lambda: _drain(self._steering))
        options.setdefault("get_follow_up_messages", lambda: _drain(self._follow_ups))

        async def main() -> Run:
            return await self.runtime.arun(content, abort=self._abort, _run_created=self._created, **options)

        context = contextvars.copy_context()

        def target() -> None:
            try:
                context.run(asyncio.run, main())
            except BaseException as error:  # re-raised by wait()
                self._error = error
            finally:
                self._finished.set()

        threading.Thread(target=target, name="openprogram-run", daemon=True).start()

    def _created(self, run: Run) -> None:
        self.run = run

    @property
    def events(self) -> list[Any]:
        return self.run.events if self.run is not None else []

    def __repr__(self) -> str:
        state = "done" if self.done else "running"
        run = f" {self.run.run_id}" if self.run is not None else ""
        return f"<RunHandle{run}: {state}, {len(self.events)} events>"

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def steer(self, text: str | UserMessage) -> None:
        self._steering.append(text)

    def follow_up(self, text: str | UserMessage) -> None:
        self._follow_ups.append(text)

    def abort(self) -> None:
        """Stop the run; safe to call from any thread, more than once, or after the end.

        A run started with ``abort=EVENT`` uses that event as its own, so this sets it.
        """
        self._abort.set()

    def wait(self, timeout: float | None = None) -> Run:
        """Block until the run ends (in 0.1 s slices, so an interrupt lands) and return it.

        Raises ``TimeoutError`` if ``timeout`` passes first, and re-raises an error that
        prevented the run from starting (bad arguments).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._finished.wait(0.1):
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"the run did not end within {timeout} s")
        if self._error is not None:
            raise self._error
        assert self.run is not None
        return self.run


# -- helpers ------------------------------------------------------------------------------


class _EventSink:
    """Builds this run's events and hands every event to the listeners, in order."""

    __slots__ = ("depth", "listeners", "parent_tool_call_id", "run_id")

    def __init__(self, run_id: str, depth: int, parent_tool_call_id: str | None,
                 listeners: list[Callable[[Any], None]]) -> None:
        self.run_id = run_id
        self.depth = depth
        self.parent_tool_call_id = parent_tool_call_id
        self.listeners = listeners

    @classmethod
    def for_run(cls, run: Run, on_event: Callable[[Any], None] | None,
                parent: Callable[[Any], None] | None) -> _EventSink:
        """The run's record first, then the user's watcher, then the parent run (if nested)."""
        listeners: list[Callable[[Any], None]] = [run.record]
        if on_event is not None:
            listeners.append(_guarded(on_event))
        if parent is not None:
            listeners.append(parent)
        return cls(run.run_id, run.depth, run.parent_tool_call_id, listeners)

    def emit(self, event_class: type, **fields: Any) -> Any:
        event = event_class(run_id=self.run_id, depth=self.depth,
                            parent_tool_call_id=self.parent_tool_call_id, **fields)
        self.forward(event)
        return event

    def forward(self, event: Any) -> None:
        for listener in self.listeners:
            listener(event)


def _guarded(listener: Callable[[Any], None]) -> Callable[[Any], None]:
    """A watcher that raises must not break the run: warn once and keep going."""
    warned = False

    def call(event: Any) -> None:
        nonlocal warned
        try:
            listener(event)
        except Exception as error:
            if not warned:
                warned = True
                warnings.warn(f"on_event raised {type(error).__name__}: {error}; the run goes on", stacklevel=2)

    return call


async def _drive(task: asyncio.Future[Any], stop_signals: list[threading.Event], *, grace: float) -> None:
    """Await the loop's task; a stop signal cancels it (the loop then ends the run itself).

    If the caller is cancelled instead (a kernel interrupt), the task is cancelled too and
    given ``grace`` seconds to close every open call before ``CancelledError`` re-raises.
    """
    watcher = asyncio.ensure_future(_cancel_when_set(task, stop_signals)) if stop_signals else None
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        task.cancel()
        try:
            await asyncio.wait({task}, timeout=grace)
        except asyncio.CancelledError:
            pass  # interrupted twice: keep what we have
        raise
    finally:
        if watcher is not None:
            watcher.cancel()


async def _cancel_when_set(task: asyncio.Future[Any], signals: list[threading.Event]) -> None:
    while not task.done():
        if any(signal.is_set() for signal in signals):
            task.cancel()
            return
        await asyncio.sleep(_ABORT_POLL_SECONDS)


def _drain(queue: deque[Any]) -> list[Any]:
    items = []
    while queue:
        items.append(queue.popleft())
    return items


def _as_prompts(content: Any, *, allow_empty: bool) -> list[UserMessage]:
    from .messages import ImageContent, TextContent, UserMessage

    if isinstance(content, UserMessage):
        return [content]
    if isinstance(content, str):
        if not content.strip():
            if allow_empty:
                return []
            raise ValueError("the prompt is empty: pass the task for the model as content")
        return [UserMessage(content=content)]
    if isinstance(content, (list, tuple)) and all(isinstance(b, (TextContent, ImageContent)) for b in content):
        return [UserMessage(content=list(content))]
    raise TypeError(
        f"content must be a str, an op.UserMessage or a list of TextContent/ImageContent, not {type(content).__name__}"
    )


def _as_history(messages: Sequence[Any]) -> list[Any]:
    from .messages import parse_message

    return [m if hasattr(m, "role") else parse_message(m) for m in messages]


def _answer(run: Run) -> Any:
    from .run import RunError

    if run.stop_reason == "error":
        raise RunError(run)
    if run.decision is not None:  # its value may be None
        return run.result
    return run.text


_default_runtime: Runtime | None = None


def default_runtime() -> Runtime:
    """The process-wide Runtime (the notebook's ``runtime``), created on first use."""
    global _default_runtime
    if _default_runtime is None:
        _default_runtime = Runtime()
    return _default_runtime


def current_runtime() -> Runtime | None:
    """The Runtime of the run whose tool is executing now, if any."""
    frame = current_call.get()
    return frame.context.runtime if frame is not None else None
