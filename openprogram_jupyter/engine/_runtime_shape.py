"""The Runtime as the engine's own modules use it: :class:`EngineRuntime`.

The Runtime (:mod:`.runtime`) is the engine's top: it builds a spec and hands itself to the
modules that run it (``execute``, ``spec``, ``forking``, ``rerun``, the decision judge, one
tool call) and to the Run it made. Those sit below it and annotate with this protocol
rather than importing the class, so no import in the engine points up, not even to
annotate. It holds exactly what they read: the configuration (approver, deny list, depth
cap, grace, registry, settings), the model, the last run, and the entry points a Run's
``fork`` and ``rerun`` go back through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..models import Model
    from ..tools.registry import Registry
    from .settings import RunSettings

__all__ = ["EngineRuntime"]


class EngineRuntime(Protocol):
    """What the engine's modules below the Runtime know of it (the Runtime satisfies it as it
    is; mypy checks that wherever one is passed). ``last_run`` is the run it ran last (a
    ``Run``, kept as ``Any`` here: the Run's module is above this one)."""

    last_run: Any

    @property
    def approve(self) -> Any: ...

    @property
    def tools_deny(self) -> Sequence[str]: ...

    @property
    def max_depth(self) -> int: ...

    @property
    def cancel_grace(self) -> float: ...

    @property
    def registry(self) -> Registry: ...

    @property
    def settings(self) -> RunSettings: ...

    @property
    def model(self) -> Model: ...

    @property
    def prepare(self) -> Callable[..., Any]: ...

    @property
    def exec(self) -> Callable[..., Any]: ...

    @property
    def arun(self) -> Callable[..., Any]: ...

    @property
    def replace(self) -> Callable[..., Any]: ...

    @property
    def fork(self) -> Callable[..., Any]: ...

    @property
    def rerun(self) -> Callable[..., Any]: ...

    def own(self, resource: Any) -> None: ...
