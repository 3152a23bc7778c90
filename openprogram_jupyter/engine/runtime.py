"""``Runtime``: the entry points — ``exec``, ``run``, ``start``, ``aexec``, ``arun``.

All drive the one loop of :mod:`openprogram_jupyter.engine.loop`: the async ones as a task on
the caller's event loop; the sync ones on a worker thread with a loop of its own, waited for
in short slices so that Ctrl-C / Kernel ▸ Interrupt aborts the run promptly and leaves it on
``runtime.last_run`` (inside Jupyter too). Without threads (Pyodide) ``start`` makes a task.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from ..core import _ambient
from ..core._stop import StopToken, waiting_time
from ..core._threads import refuse_without_threads, start_thread_or_task, threads_available
from ..core.errors import SetupError, run_error
from ._runtime_config import Configured, RuntimeConfig
from ._runtime_model import RuntimeModel

# The engine (and with it the loop, the tools layer and pydantic) loads with the first
# run, not with this module: `%load_ext` creates the notebook's Runtime and must stay fast.
# `engine` is the one module imported lazily here.
if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.messages import UserMessage
    from ..models import Model
    from ..tools.registry import Registry
    from .run import Run
    from .settings import RunSettings
    from .spec import AgainOptions, RunOptions, RunSpec, RuntimeKeywords
    from .tool_execution import Approver

__all__ = ["RunHandle", "Runtime", "current_runtime", "default_runtime"]


class Runtime:
    """Runs the tool-calling loop with one model.

    ``model`` is a model string (``"openai:gpt-4.1-mini"``, ``"anthropic:…"``,
    ``"gemini:…"``, ``"bedrock:…"``, ``"offline"``), a :class:`Model` object, or ``None``
    for the default (``OPENPROGRAM_MODEL``, else the first provider whose key is set, else
    ``"offline"``). The model is resolved on first use, so constructing a Runtime is cheap
    and imports no SDK. ``api_key`` / ``base_url`` override the provider's environment
    variables for a model string (a model object carries its own: giving them with one
    raises :class:`~openprogram_jupyter.core.errors.SetupError`). ``approve`` answers
    ``requires_approval`` tools (see
    :class:`~openprogram_jupyter.engine.tool_execution.ApprovalRequest`); an ``op.policy(...)``
    there decides every call by rule (:mod:`openprogram_jupyter.core.approval_policy`). ``tools_deny`` is a
    session-level deny list. ``max_depth`` caps nested runs. ``cancel_grace`` is how long
    a stopped tool may take to notice before it is abandoned. ``record`` names a JSON
    cassette file that every reply of the model through this Runtime is saved to
    (``"replay:FILE"`` plays it back; docs/replay.md).

    Any run setting (:class:`~openprogram_jupyter.engine.settings.RunSettings`: ``system``,
    ``max_iterations``, ``capture_wire``, ``text_tool_calls``, …; docs/settings.md) given
    here is the default of this Runtime's runs; a run's own keywords win. They are checked
    here and kept in :attr:`settings`.
    """

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        approve: Approver | None = None,
        tools_deny: Sequence[str] = (),
        max_depth: int = 8,
        cancel_grace: float = 0.5,
        registry: Registry | None = None,
        record: str | os.PathLike[str] | None = None,
        **settings: Unpack[RunSettings],
    ) -> None:
        _check_keys_are_for_a_string(model, api_key, base_url)
        self._config = RuntimeConfig(
            model,
            api_key,
            base_url,
            approve,
            tuple(tools_deny),
            max_depth,
            cancel_grace,
            registry,
            record,
            dict(settings),
        )
        self._model = RuntimeModel()
        if settings:  # checked now; a Runtime without settings (%load_ext's) imports nothing more
            self._config.run_settings  # noqa: B018 - reading it checks them
        self.last_run: Run | None = None
        self._resources = Resources()  # what close() ends: MCP servers connected for this Runtime

    @property
    def settings(self) -> RunSettings:
        """Every run setting as this Runtime's runs start from: the declared defaults with
        the Runtime's own keywords over them (a new dict each time; change a setting with
        :meth:`replace`)."""
        return dict(self._config.run_settings)  # type: ignore[return-value]

    def replace(self, **changes: Unpack[RuntimeKeywords]) -> Runtime:
        """A new Runtime like this one — model, keys, approver, deny list, caps, registry,
        cassette and settings — with ``changes`` (any keyword of ``Runtime(...)``) applied.
        It shares nothing that runs: its MCP servers and its resolved model are its own
        (a model object given as ``model`` is shared, as it would be). A ``model`` of another
        provider (or a model object) drops this Runtime's ``api_key`` and ``base_url``,
        which are for its own provider, unless ``changes`` gives them."""
        config = self._config
        if "model" in changes and not _same_provider(config.model, changes["model"]):
            config = config.with_changes({"api_key": None, "base_url": None})  # for its own provider only
        return Runtime(**config.with_changes(changes).keywords())

    # What a user may set (``runtime.approve = op.policy(...)``): each writes a new configuration.
    approve: Configured[Approver | None] = Configured()
    tools_deny: Configured[list[str]] = Configured()
    max_depth: Configured[int] = Configured()
    cancel_grace: Configured[float] = Configured()
    record: Configured[str | os.PathLike[str] | None] = Configured()

    def __getstate__(self) -> dict[str, Any]:
        # A Runtime travels as what it is configured with (op.evaluate's jobs on another
        # process): its resolved model, its open MCP servers and its last run stay here.
        return {**self.__dict__, "_model": RuntimeModel(), "_resources": Resources(), "last_run": None}

    def own(self, resource: Any) -> None:
        """Close ``resource`` (anything with ``close()``) when this Runtime closes."""
        self._resources.add(resource)

    def close(self) -> None:
        """End what this Runtime holds open: every MCP server connected with
        ``op.mcp(..., runtime=self)`` (the notebook's runtime by default) is closed and a
        stdio server's process ends. Safe to call twice; the Runtime can still run."""
        self._resources.close_all()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def registry(self) -> Registry:
        """Where the default menu comes from (the global registry unless one was given)."""
        if self._config.registry is None:
            from .execute import default_registry

            return default_registry
        return self._config.registry

    @property
    def model_spec(self) -> str | Model | None:
        """The model as given (``None``: the default chain decides on first use)."""
        return self._config.model

    @property
    def model(self) -> Model:
        """The resolved model: resolved on first access, and again whenever a variable a
        model string reads (a provider's key, base URL, region; ``OPENPROGRAM_MODEL``:
        :data:`~openprogram_jupyter.models.providers.CLIENT_ENV_VARS`) has changed since,
        so a corrected key is used by the next run. A model object is used as given."""
        return self._model.of(self._config)

    @model.setter
    def model(self, value: str | Model | None) -> None:
        self._config = self._config.with_changes({"model": value})
        self._model.forget()

    def __repr__(self) -> str:
        resolved = self._model.resolved
        name = resolved.name if resolved is not None else (self._config.model or "default")
        return f"<Runtime model={name!s}>"

    # -- the async core -------------------------------------------------------------------

    def prepare(self, content: object, **options: Unpack[RunOptions]) -> RunSpec:
        """Check ``content`` and the run ``options`` and return the :class:`RunSpec` a run
        would execute; raises :class:`~openprogram_jupyter.core.errors.SetupError` (naming the
        problem) before anything is sent. ``arun``, ``run``, ``start`` and ``exec`` accept
        the spec in place of ``content`` (then with no other options)."""
        from .execute import RuntimeDefaults, build_spec

        return build_spec(content, RuntimeDefaults.of(self), **options)

    async def arun(self, content: object, **options: Unpack[RunOptions]) -> Run:
        """Run the loop on the current event loop and return the :class:`Run`.

        ``content`` is the prompt (a str, an ``op.UserMessage`` or content blocks) or a
        :class:`RunSpec` from :meth:`prepare`. ``messages`` is earlier conversation to
        continue (a session). Setting ``abort`` stops the run gracefully: it returns with
        ``stop_reason == "aborted"``. If the task awaiting this is cancelled instead (a
        kernel interrupt), the run is finished the same way, stored on :attr:`last_run`,
        and ``CancelledError`` is re-raised.
        """
        return await self._execute(_spec_of(self, content, options))

    async def _execute(self, spec: RunSpec, on_created: Callable[[Run], None] | None = None) -> Run:
        from .execute import execute

        return await execute(self, spec, on_created=on_created)

    async def aexec(self, content: object, **options: Unpack[RunOptions]) -> Any:
        """Like :meth:`arun`, returning the answer (see :meth:`exec`)."""
        return _answer(await self.arun(content, **options))

    # -- sync entry points ----------------------------------------------------------------

    def start(self, content: object, **options: Unpack[RunOptions]) -> RunHandle:
        """Start a run on a worker thread and return its :class:`RunHandle` at once."""
        # Checked here, in the caller's context: a bad option raises from start(), and a
        # nested run started inside a tool body knows its parent.
        spec = _spec_of(self, content, dict(options))
        handle = RunHandle(self)
        handle.launch(spec, self._execute)
        return handle

    def run(self, content: object, **options: Unpack[RunOptions]) -> Run:
        """Run to the end and return the :class:`Run` (works inside Jupyter too).

        A ``KeyboardInterrupt`` (Ctrl-C, Kernel ▸ Interrupt) while waiting aborts the run,
        waits briefly for it to close every open call, stores it on :attr:`last_run`
        and re-raises.
        """
        refuse_without_threads(needed_by="Runtime.run", instead="await runtime.arun(...)")  # else start() is a task
        handle = self.start(content, **options)
        try:
            return handle.wait()
        except KeyboardInterrupt:
            handle.abort()
            handle.join(waiting_time(self.cancel_grace))
            if handle.run is not None:
                self.last_run = handle.run
            raise

    def exec(self, content: object, **options: Unpack[RunOptions]) -> Any:
        """Run to the end and return the answer.

        The answer is the final text; with ``choices=`` it is the resolved decision. At a
        limit it is the last reply's text and the Run's ``stop_reason`` names the limit
        (``"max_iterations"``, ``"max_cost"``, ``"max_tokens"``); when stopped it is
        whatever text had arrived. If the run
        failed (``stop_reason == "error"``) :class:`RunError` is raised, carrying the Run.
        """
        return _answer(self.run(content, **options))

    # -- forking ------------------------------------------------------------------------

    def fork(
        self,
        run: Run,
        round: int,
        *,
        model: str | Model | None = None,
        tools: Sequence[object] | None = None,
        **options: Unpack[AgainOptions],
    ) -> Run:
        """Run ``run`` again from ``round``: the rounds before it are replayed from the record
        (no model request, no tool run), then this Runtime's model — or ``model``, on a
        Runtime otherwise like this one — goes on live with ``tools`` and ``options``
        (see :func:`~openprogram_jupyter.engine.forking.fork_spec` for the defaults). Returns the
        new Run; it also becomes :attr:`last_run`."""
        from .forking import fork_spec

        runtime = self if model is None else self.replace(model=model)
        return runtime.run(fork_spec(run, round, runtime, tools=tools, **options))

    def rerun(
        self,
        run: Run,
        *,
        tools: Sequence[object] = (),
        live: bool = False,
        same: Any = None,
        **options: Unpack[AgainOptions],
    ) -> Run:
        """Run ``run`` again on this Runtime, its recorded replies played back while the
        tools run for real, until its results part from the recording (see
        :meth:`Run.rerun <openprogram_jupyter.engine.run.Run.rerun>`). Returns the new Run; it
        also becomes :attr:`last_run`."""
        from .rerun import rerun_spec

        return self.run(rerun_spec(run, self, tools=tools, live=live, same=same, **options))


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
        self._abort: threading.Event = StopToken()
        self._finished = threading.Event()
        self._steering: deque[Any] = deque()
        self._follow_ups: deque[Any] = deque()
        self._error: BaseException | None = None

    def launch(self, spec: RunSpec, execute: Callable[..., Awaitable[Run]]) -> None:
        """Run ``spec`` with ``execute`` (the Runtime's) on a run loop's thread (``_run_loops``:
        one run at a time on each loop, a loop kept for the next run), or a task of the
        running loop without threads (Pyodide); once, for ``start``."""
        # The caller's abort event, if any, is the handle's: setting either stops the run.
        hooks = spec.hooks
        self._abort = hooks.get("abort") or self._abort
        spec = spec.with_hooks(
            abort=self._abort,
            get_steering_messages=hooks.get("get_steering_messages") or (lambda: _drain(self._steering)),
            get_follow_up_messages=hooks.get("get_follow_up_messages") or (lambda: _drain(self._follow_ups)),
        )

        ending: Callable[[], None] = lambda: None  # noqa: E731 - a run loop's offer of its thread, below

        async def main() -> None:
            try:
                await execute(spec, on_created=self._created)
            except BaseException as error:  # re-raised by wait()
                self._error = error
            finally:  # said before the loop is tidied: a tool deaf to cancellation cannot hold wait()
                ending()  # first: a run started once wait() returns finds this loop's thread available
                self._finished.set()

        context = contextvars.copy_context()

        def on_loop(loop: asyncio.AbstractEventLoop, offer: Callable[[], None]) -> None:
            nonlocal ending
            ending = offer
            context.run(loop.run_until_complete, main())

        if threads_available():  # a run loop's thread, kept for the next run with its SDK clients
            from ._run_loops import start_on_a_run_loop

            start_on_a_run_loop(
                on_loop, grace=self.runtime.cancel_grace, needed_by="Runtime.run", instead="await runtime.arun(...)"
            )
            return
        start_thread_or_task(  # no threads (Pyodide): a task of the running loop
            lambda: None, main, name="openprogram-run", needed_by="Runtime.run", instead="await runtime.arun(...)"
        )

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

    def join(self, timeout: float | None = None) -> bool:
        """Block until the run ends or ``timeout`` seconds pass; return whether it has
        ended. Unlike :meth:`wait` it raises nothing: what ended the run is for ``wait``."""
        return self._finished.wait(timeout)

    def wait(self, timeout: float | None = None) -> Run:
        """Block until the run ends (in 0.1 s slices, so an interrupt lands) and return it.

        Raises ``TimeoutError`` if ``timeout`` passes first, and re-raises an error that
        prevented the run from starting (bad arguments).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        if not (self.done or threads_available()):  # the run is a task of the loop this would block
            raise SetupError("RunHandle.wait before the run ends needs threads; await asyncio.sleep until handle.done")
        while not self._finished.wait(0.1):
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"the run did not end within {timeout} s")
        if self._error is not None:
            raise self._error
        assert self.run is not None
        return self.run


# -- helpers ------------------------------------------------------------------------------


def _spec_of(runtime: Runtime, content: object, options: dict[str, Any] | RunOptions) -> RunSpec:
    """The spec a run of ``content`` with ``options`` executes on ``runtime``: ``content``
    itself when it is a :class:`RunSpec` (then with no other options), else prepared."""
    from .execute import RunSpec

    if isinstance(content, RunSpec):
        if options:
            raise SetupError(f"a RunSpec carries its options; got more: {', '.join(sorted(options))}")
        return content
    return runtime.prepare(content, **options)


def _check_keys_are_for_a_string(model: object, api_key: str | None, base_url: str | None) -> None:
    """``api_key`` and ``base_url`` configure a model string; with a model object they are refused."""
    if (api_key is not None or base_url is not None) and not isinstance(model, (str, type(None))):
        given = " and ".join(
            name for name, value in (("api_key", api_key), ("base_url", base_url)) if value is not None
        )
        raise SetupError(
            f"{given} configure a model string; the {type(model).__name__} object given as model= "
            f"was built with its own (pass {given} to its class instead)",
            option="model",
        )


class Resources:
    """What a Runtime closes when it closes (each with ``close()``), the last added first."""

    def __init__(self) -> None:
        self._open: list[Any] = []

    def add(self, resource: Any) -> None:
        self._open.append(resource)

    def close_all(self) -> None:
        """Close each; one that fails to close does not keep the others open."""
        while self._open:
            resource = self._open.pop()
            try:
                resource.close()
            except Exception:  # one stuck server must not keep the others open
                continue


def _same_provider(old: object, new: object) -> bool:
    """Whether the model strings ``old`` and ``new`` name the same provider (its prefix)."""
    return isinstance(old, str) and isinstance(new, str) and old.partition(":")[0] == new.partition(":")[0]


def _drain(queue: deque[Any]) -> list[Any]:
    return [queue.popleft() for _ in range(len(queue))]


def _answer(run: Run) -> Any:
    if run.stop_reason == "error":
        raise run_error(run)
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


# The core knows a Runtime only as a `RuntimeLike`; what it hands back is always one of
# these: the engine puts a Runtime in every tool's context and provides `default_runtime`.
def current_runtime() -> Runtime | None:
    """The Runtime of the run whose tool is executing now, if any."""
    return cast("Runtime | None", _ambient.current_runtime())


def ambient_runtime() -> Runtime:
    """The Runtime of the run whose tool is executing now, else the notebook's (:func:`default_runtime`)."""
    return cast(Runtime, _ambient.ambient_runtime())


# The tools layer asks `_ambient.ambient_runtime()` for an agentic function called without
# one; it cannot import this module (that would close an import cycle through the engine).
_ambient.provide_default_runtime(default_runtime)
