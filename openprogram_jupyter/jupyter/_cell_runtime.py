"""Which Runtime a ``%%agent`` cell runs on: :class:`CellRuntimes`.

Every cell derives from the notebook's ``runtime`` variable as the user last bound it (its
approver, session rules, deny list, caps, registry and settings hold); ``-m`` puts another
model in place of its own (a variable holding a model, a model string, ``offline``), or
names a Runtime to use as it is; ``--base-url`` sends a model string to another endpoint;
``%config AgentMagics.model`` is the model of a cell without ``-m``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..engine.runtime import Runtime

__all__ = ["CellRuntimes", "offline_note"]


def offline_note() -> str:
    """What a cell says when it fell back to the offline model, naming the key variables
    the providers declare."""
    from ..models.providers import key_variables_text

    return (
        "Using the built-in offline model: no model was chosen and no provider key is set. "
        f"Set {key_variables_text()} (or OPENPROGRAM_MODEL), "
        "%config AgentMagics.model = 'provider:model', or pass -m."
    )


class CellRuntimes:
    """The Runtimes of one notebook's cells. ``namespace_runtime`` is the Runtime
    ``%load_ext`` made (``None`` outside a loaded notebook); ``configured_model`` reads
    ``%config AgentMagics.model``; ``offline_noted`` whether a cell of this notebook has
    already said in full that it runs on the offline model."""

    def __init__(
        self,
        shell: InteractiveShell,
        namespace_runtime: Runtime | None,
        configured_model: Callable[[], str | None],
    ) -> None:
        self._shell = shell
        self.namespace_runtime = namespace_runtime
        self._configured_model = configured_model
        self.offline_noted = False

    def base(self) -> Runtime:
        """The Runtime every cell derives from: the notebook's ``runtime`` variable as the user
        last bound it (``runtime = op.Runtime(approve=...)`` counts), else the one
        ``%load_ext`` made, else the process-wide default."""
        from ..engine.runtime import Runtime, default_runtime

        bound = self._shell.user_ns.get("runtime")
        if isinstance(bound, Runtime):
            return bound
        return self.namespace_runtime or default_runtime()

    def for_model(self, name: str | None, base_url: str | None = None) -> tuple[Runtime, list[str]]:
        """The Runtime for ``-m name`` (or the configured / default model), sent to
        ``base_url`` when given, and any notes. A model ``-m`` names — a variable holding a
        model, a model string, ``offline`` — runs on :meth:`base` with that model in
        place of its own (``replace``), so its approver, session rules, deny list, caps,
        registry and settings hold; a variable holding a Runtime is that Runtime."""
        from ..engine.runtime import Runtime
        from ..models import Model

        notes: list[str] = []
        namespace = self._shell.user_ns
        if name is not None:
            value = namespace.get(name)
            if isinstance(value, Model):
                if base_url is not None:
                    raise UsageError(
                        f"%%agent: --base-url applies to a model string; -m names a "
                        f"{type(value).__name__} object, built with its own endpoint"
                    )
                return self.base().replace(model=value), notes
            if isinstance(value, Runtime):  # e.g. op.Runtime(model="openai:…", base_url=…) for a local server
                return (value if base_url is None else self._at(value, base_url)), notes
            if name in namespace and ":" not in name:
                raise UsageError(
                    f"%%agent: -m {name}: the notebook variable {name!r} holds a "
                    f"{type(value).__name__}, not a model or a Runtime (e.g. op.ScriptedModel([...]), "
                    "or op.Runtime(model=..., base_url=...))"
                )
            if ":" not in name and name != "offline":
                raise UsageError(
                    f"%%agent: -m {name!r} names neither a notebook variable holding a model nor a "
                    "model string such as 'openai:gpt-4.1-mini', 'anthropic:claude-sonnet-5-5' or 'offline'"
                )
            if name == "offline":
                notes.append("Using the built-in offline model (-m offline).")
            return self._runtime_for_string(name, f"-m {name}", base_url), notes
        return self._runtime_by_default(notes, base_url), notes

    def _runtime_by_default(self, notes: list[str], base_url: str | None) -> Runtime:
        """The Runtime of a cell without ``-m``: :meth:`base`, on the model
        ``%config AgentMagics.model`` names when that is not its own."""
        from ..models import default_model_name

        configured = self._configured_model()
        runtime = self.base()
        spec = runtime.model_spec
        if configured and spec != configured:
            return self._runtime_for_string(configured, "%config AgentMagics.model", base_url)
        if not configured and spec is None:
            default = default_model_name()
            if default == "offline":
                notes.append(self._offline_note(os.environ.get("OPENPROGRAM_MODEL", "").strip() == "offline"))
            self._follow_the_default(runtime, default)
        self._resolve(runtime, "the default model")
        return runtime if base_url is None else self._at(runtime, base_url)

    @staticmethod
    def _follow_the_default(runtime: Runtime, default: str) -> None:
        """A key set (or ``OPENPROGRAM_MODEL`` changed) after the runtime resolved its
        default model: resolve it again, so the next cell runs on the model it names."""
        try:
            resolved = runtime.model.name
        except (ValueError, TypeError):
            resolved = None  # a bad default: resolving again reports it
        if resolved != default:
            runtime.model = None

    def _offline_note(self, chosen: bool) -> str:
        """The note for a cell that runs on the default offline model: in full in the first
        such cell of the notebook, one short line after that."""
        if self.offline_noted:
            return "Offline model (no provider key set)." if not chosen else "Offline model (OPENPROGRAM_MODEL)."
        self.offline_noted = True
        return "Using the built-in offline model (OPENPROGRAM_MODEL=offline)." if chosen else offline_note()

    def _at(self, runtime: Runtime, base_url: str) -> Runtime:
        """``runtime`` with its model string sent to ``base_url`` (its key and the rest kept)."""
        from ..core.errors import SetupError

        try:
            moved = runtime.replace(base_url=base_url)
        except SetupError:
            raise UsageError(
                f"%%agent: --base-url applies to a model string; -m names a "
                f"{type(runtime.model_spec).__name__} object, built with its own endpoint"
            ) from None
        self._resolve(moved, f"--base-url {base_url}")
        return moved

    def _runtime_for_string(self, name: str, what: str, base_url: str | None = None) -> Runtime:
        """:meth:`base` with the model string ``name`` (sent to ``base_url``) in place
        of its model, resolved now: a bad name is a ``UsageError`` naming ``what``. The
        string stays the Runtime's model, so a key set or corrected later is picked up."""
        changes: dict[str, Any] = {"model": name} if base_url is None else {"model": name, "base_url": base_url}
        runtime = self.base().replace(**changes)
        self._resolve(runtime, what)
        return runtime

    @staticmethod
    def _resolve(runtime: Runtime, what: str) -> None:
        try:
            runtime.model  # noqa: B018 - resolving raises a readable error for a bad model string
        except (ValueError, TypeError) as error:
            raise UsageError(f"%%agent: {what}: {error}") from None
