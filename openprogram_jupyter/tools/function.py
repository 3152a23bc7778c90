"""``@function`` and ``@agentic_function``: Python callables that are also tools."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar, overload

from ..core._ambient import ambient_runtime
from ..core._json import JsonObject
from ._schema import SchemaError, build_signature_schema
from .base import Tool, ToolContext, ToolOptions, checked_examples, refuse_reserved_name, run_in_daemon_thread
from .registry import Registry, default_registry

__all__ = ["FunctionTool", "agentic_function", "function"]

F = TypeVar("F", bound=Callable[..., Any])

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


class FunctionTool(Tool):
    """A Python function that stays an ordinary callable and is also a tool.

    Calling it calls the function (``add(1, 2) == 3``). ``name`` and ``spec`` describe it
    to models; ``examples`` are example arguments, each checked against the schema here
    (``ValueError`` naming the one that does not fit). As a tool, its arguments are
    validated strictly against the schema first, a sync body runs on a worker thread, an
    async body is awaited.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None,
        description: str | None,
        options: ToolOptions,
        agentic: bool = False,
        examples: Iterable[JsonObject] = (),
    ) -> None:
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.agentic = agentic
        fn_name: str = getattr(fn, "__name__", "")  # a partial or a callable object has none
        self.name = name or fn_name
        if not _VALID_NAME.match(self.name):
            raise SchemaError(
                f"{self.name!r} is not a usable tool name: use letters, digits, '_' or '-', "
                "at most 64 characters, starting with a letter or '_' (pass name=...)"
            )
        refuse_reserved_name(self.name, SchemaError, "pass name=... to name the tool otherwise")
        self._schema = build_signature_schema(
            fn, name=self.name, description=description, injectable=self._injection_kind
        )
        self.description = self._schema.description
        self.parameters = self._schema.parameters
        given = examples if isinstance(examples, (list, tuple)) else list(examples)
        self.options = dataclasses.replace(options, examples=checked_examples(self.name, given, self.parameters))
        self.is_async = inspect.iscoroutinefunction(fn)
        self.cache: dict[str, Any] = {}

    def _injection_kind(self, param: inspect.Parameter, annotation: object) -> str | None:
        if annotation is ToolContext:
            return "context"
        if self.agentic and param.name == "runtime":
            return "runtime"
        return None

    def __call__(self, *args: object, **kwargs: object) -> Any:
        """Call the function. Injected parameters the caller leaves out are filled in: an
        agentic function's ``runtime`` with the ambient Runtime, a ``ToolContext`` (if it
        has no default) with a detached one whose ``report`` does nothing."""
        if not self._schema.injected:
            return self.fn(*args, **kwargs)
        signature = inspect.signature(self.fn)
        try:
            given = signature.bind_partial(*args, **kwargs).arguments
        except TypeError:
            return self.fn(*args, **kwargs)  # Python's own error for a bad call
        for parameter, kind in self._schema.injected.items():
            if parameter in given:
                continue
            if kind == "runtime":
                kwargs[parameter] = ambient_runtime()
            elif signature.parameters[parameter].default is inspect.Parameter.empty:
                kwargs[parameter] = ToolContext(tool_call_id="", tool_name=self.name, run_id="", depth=0, runtime=None)
        return self.fn(*args, **kwargs)

    def validate(self, arguments: JsonObject) -> dict[str, Any]:
        return self._schema.validate(arguments)

    def call(self, kwargs: dict[str, Any], context: ToolContext) -> Awaitable[Any]:
        for parameter, kind in self._schema.injected.items():
            kwargs[parameter] = context if kind == "context" else context.runtime
        if self.is_async:
            return self.fn(**kwargs)
        return run_in_daemon_thread(self.fn, kwargs, name=self.name)

    def __repr__(self) -> str:
        kind = "agentic_function" if self.agentic else "function"
        return f"<{kind} {self.name}{inspect.signature(self.fn)}>"


def _make_decorator(agentic: bool) -> Callable[..., Any]:
    def decorator(
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        expose: bool = True,
        toolset: str | Iterable[str] = (),
        unsafe_in: str | Iterable[str] = (),
        available_if: bool | Callable[[], bool] = True,
        check_fn: Callable[[], bool] | None = None,
        requires_env: str | Iterable[str] = (),
        can_use: Callable[..., bool] | None = None,
        requires_approval: bool = False,
        defer: bool = False,
        timeout: float | None = None,
        max_result_chars: int | None = None,
        cache: bool = False,
        render: Callable[[Any], Any] | None = None,
        capture_output: bool = True,
        output_as_result: bool = True,
        figures_to_model: bool = False,
        strict: bool = False,
        examples: Iterable[JsonObject] = (),
        register_globally: bool = True,
        registry: Registry | None = None,
    ) -> Any:
        _check_options(timeout=timeout, max_result_chars=max_result_chars, render=render, toolset=toolset)
        options = ToolOptions(
            expose=expose,
            toolset=_names(toolset),
            unsafe_in=_names(unsafe_in),
            check_fn=check_fn,
            requires_env=_names(requires_env),
            can_use=can_use,
            requires_approval=requires_approval,
            defer=defer,
            timeout=timeout,
            max_result_chars=max_result_chars,
            cache=cache,
            render=render,
            capture_output=capture_output,
            output_as_result=output_as_result,
            figures_to_model=figures_to_model,
            strict=bool(strict),
        )

        def wrap(target: Callable[..., Any]) -> FunctionTool:
            target = target.fn if isinstance(target, FunctionTool) else target
            if not callable(target):
                raise TypeError(f"@{'agentic_function' if agentic else 'function'} needs a callable, got {target!r}")
            tool = FunctionTool(
                target, name=name, description=description, options=options, agentic=agentic, examples=examples
            )
            _enter(tool, available_if, registry, register_globally)
            return tool

        return wrap(fn) if fn is not None else wrap

    return decorator


def _enter(
    tool: FunctionTool, available_if: bool | Callable[[], bool], registry: Registry | None, register_globally: bool
) -> None:
    """Register ``tool`` in ``registry`` (or the default one, if ``register_globally``), or
    mark it unavailable there when ``available_if`` says no (decided now, once)."""
    available = available_if() if callable(available_if) else bool(available_if)
    target_registry = registry if registry is not None else default_registry
    if not available:
        target_registry.mark_unavailable(tool)
    elif register_globally or registry is not None:
        target_registry.register(tool)


def _check_options(
    *, timeout: float | None, max_result_chars: int | None, render: object, toolset: str | Iterable[str]
) -> None:
    """Raise ``ValueError`` / ``TypeError`` for an option no tool can have."""
    if timeout is not None and timeout <= 0:
        raise ValueError(f"timeout must be positive seconds, got {timeout!r}")
    if max_result_chars is not None and max_result_chars < 100:
        raise ValueError(f"max_result_chars must be at least 100, got {max_result_chars!r}")
    if render is not None and not callable(render):
        raise TypeError(f"render must be a callable (value -> HTML or a displayable object), got {render!r}")
    if "none" in _names(toolset):
        raise ValueError("toolset 'none' is reserved: exec(toolset='none') means no tools")


def _names(value: str | Iterable[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@overload
def function(fn: F, **options: Any) -> FunctionTool: ...
@overload
def function(fn: None = None, **options: Any) -> Callable[[F], FunctionTool]: ...
def function(fn: Any = None, **options: Any) -> Any:
    """Make ``fn`` a tool the model can pick, and register it (unless told otherwise).

    Usable bare (``@function``), with options (``@function(timeout=5)``) or on a bound
    method (``function(obj.method)``). The schema comes from the signature (types,
    defaults) and the docstring (Google, NumPy or reST: summary and per-parameter
    descriptions). A function that cannot be described — ``*args``, ``**kwargs``, a
    parameter with neither annotation nor default — raises ``SchemaError`` here, naming
    the function and parameter. Decorating a function whose name is already registered
    replaces the old entry (notebook cells get re-run).

    Options: ``name``, ``description``, ``expose`` (False: never on the model's menu),
    ``toolset`` (preset names), ``unsafe_in`` (sources it is hidden from),
    ``available_if`` (decided now; False: not registered), ``check_fn`` / ``requires_env``
    / ``can_use`` (dropped from the menu when it cannot run now), ``requires_approval``,
    ``defer`` (schema loaded on demand through ``tool_search``), ``timeout`` (seconds),
    ``max_result_chars`` (what the model reads of a result at most; default: the run's
    setting of that name, 50,000 unless set), ``cache`` (same arguments → the earlier result, tool not run),
    ``render`` (``value -> HTML``, a DataFrame, a figure, an image…: the rich form the
    call's card shows, sanitized; the model still reads the value as text),
    ``capture_output`` (default True: what the body prints, displays or plots is shown in
    its call's card; False: it lands in the cell as usual), ``output_as_result`` (default
    True: a body that returns ``None`` hands what it printed to the model),
    ``figures_to_model`` (default False: True sends the pictures its card shows — figures
    the body drew and left open, images it displayed — to the model after the result),
    ``strict`` (sent in the provider's strict mode, its schema made strict-compatible;
    docs/providers.md, "Tool features"), ``examples`` (a list of example argument dicts,
    each checked against the schema here — ``ValueError`` naming the example and the
    problem — and sent as Anthropic's ``input_examples``, elsewhere as an "Examples"
    section of the description), ``register_globally`` (False: only usable through
    ``tools=[...]``), ``registry``.
    """
    return _make_decorator(agentic=False)(fn, **options)


def agentic_function(fn: Any = None, **options: Any) -> Any:
    """Like :func:`function`, for a function whose body runs the model (``runtime.exec``).

    A parameter named ``runtime`` is filled in by the framework and left out of the
    schema: the Runtime running the call when the model picked it, else the ambient one
    (the enclosing run's, or the notebook's default). Its ``exec`` opens a nested run
    whose events appear under the call that opened it; nesting deeper than the Runtime's
    ``max_depth`` ends that call with an error result.
    """
    return _make_decorator(agentic=True)(fn, **options)
