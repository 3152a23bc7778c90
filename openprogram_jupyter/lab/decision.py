"""Decisions: ``exec(choices=...)`` and :func:`make` (docs/decisions.md).

``runtime.exec(content, choices=options)`` lets the model work first — its tools stay on
the menu as usual — and then end with a pick among ``options``. The options are rendered
into the prompt as a menu; the model's last message must hold one JSON object
``{"call": "<option>", "args": {...}}`` (bare or in a fenced block). The pick is checked
against the option's schema; a bad pick gets one re-ask, in the same run, carrying the
problem; a second bad pick raises :class:`DecisionError`.

Options are a dict ``{name: option}`` or a list ``[option, ...]``. Each option is one of:

- a **function** (a ``@function``, any callable, or a ``{"spec", "execute"}`` tool): picked,
  it runs with the validated arguments and its return value is the result;
- a **value** (anything else, classes included): returned as is; arguments the model adds
  to a value pick are ignored;
- a **schema option** ``(description, schema)`` (dict form only): returns
  ``{"decision": name, **fields}``. ``schema`` maps field names to types: ``str``, ``int``,
  ``float``, ``bool``, ``[T]`` (a list of ``T``), a nested dict (an object), any type
  pydantic understands (``Literal[...]``, ``list[int]``, a model class), or
  ``(type, "description")``. Every field is required.

In the list form a function is named by its tool name, a value by ``str(value)`` (an
``Enum`` member by its ``name``). Function options that are registered tools are left
off the work menu (unless ``tools=`` names them): picking is how they run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.errors import DecisionError
from ..engine._decision_judge import Decision, Pick, parse_pick
from ..engine.runtime import ambient_runtime
from ..tools._decision_options import example_pick, render_menu

if TYPE_CHECKING:
    from ..engine.runtime import Runtime

__all__ = [
    "Decision",
    "DecisionError",
    "Pick",
    "amake",
    "example_pick",
    "make",
    "parse_pick",
    "render_menu",
]


# -- the public helpers ------------------------------------------------------------------


def _pick_runtime(runtime: Runtime | None) -> Runtime:
    return runtime if runtime is not None else ambient_runtime()


def make(prompt: str, options: Any, runtime: Runtime | None = None) -> Any:
    """Ask the model to pick one of ``options`` straight away (no tools) and return the result.

    ``runtime`` defaults to the ambient one: the Runtime of the run whose tool is
    executing (inside an ``@agentic_function`` body), else the notebook's default.
    Raises :class:`DecisionError` (a ``ValueError``) when no valid pick came after one
    re-ask; ``RunError`` when the model call failed.
    """
    return _pick_runtime(runtime).exec(prompt, choices=options, tools=[])


async def amake(prompt: str, options: Any, runtime: Runtime | None = None) -> Any:
    """:func:`make` for async code (an async tool body, a notebook's top-level ``await``)."""
    return await _pick_runtime(runtime).aexec(prompt, choices=options, tools=[])
