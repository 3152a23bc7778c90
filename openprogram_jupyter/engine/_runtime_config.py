"""What a Runtime is configured with, as one frozen record: :class:`RuntimeConfig`.

``Runtime(...)``'s keywords are kept here as given, the run settings among them in
``settings``. ``Runtime.replace(**changes)`` is :func:`dataclasses.replace` of this record,
so a keyword added to ``Runtime`` is a field added here, and no copy can leave it behind;
the attributes a user may set (``runtime.approve = op.policy(...)``) write a new record.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, overload

__all__ = ["Configured", "RuntimeConfig"]

Value = TypeVar("Value")


@dataclass(frozen=True)
class RuntimeConfig:
    """The keywords of ``Runtime(...)`` (its docstring says what each does)."""

    model: Any = None
    api_key: str | None = None
    base_url: str | None = None
    approve: Any = None
    tools_deny: tuple[str, ...] = ()
    max_depth: int = 8
    cancel_grace: float = 0.5
    registry: Any = None
    record: Any = None
    settings: Mapping[str, Any] = field(default_factory=dict)

    def with_changes(self, changes: Mapping[str, Any]) -> RuntimeConfig:
        """This record with ``changes`` — any keyword of ``Runtime(...)``; one that is not a
        field is a run setting, merged over this record's settings."""
        names = {f.name for f in dataclasses.fields(self)} - {"settings"}
        own = {name: value for name, value in changes.items() if name in names}
        if "tools_deny" in own:
            own["tools_deny"] = tuple(own["tools_deny"])
        settings = {name: value for name, value in changes.items() if name not in names}
        return dataclasses.replace(self, **own, settings={**self.settings, **settings})

    @functools.cached_property
    def run_settings(self) -> Mapping[str, Any]:
        """Every run setting as the runs of a Runtime so configured start from: the declared
        defaults with ``settings`` over them, checked (made once per record, on first use)."""
        from .settings import DEFAULTS, merge

        return merge(DEFAULTS, dict(self.settings))

    def keywords(self) -> dict[str, Any]:
        """The keywords that build a Runtime like this one."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "settings"}
        return {**values, "tools_deny": list(self.tools_deny), **self.settings}


class Configured(Generic[Value]):
    """A Runtime attribute that reads its configuration's field of the same name and, set,
    writes a new configuration with it (``tools_deny`` reads as a list, a copy)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, runtime: None, owner: type) -> Configured[Value]: ...

    @overload
    def __get__(self, runtime: object, owner: type) -> Value: ...

    def __get__(self, runtime: object, owner: type) -> Any:
        if runtime is None:
            return self
        value = getattr(runtime._config, self.name)  # type: ignore[attr-defined]  # noqa: SLF001 - the Runtime's own field
        return list(value) if isinstance(value, tuple) else value

    def __set__(self, runtime: object, value: Value) -> None:
        runtime._config = runtime._config.with_changes({self.name: value})  # type: ignore[attr-defined]  # noqa: SLF001
