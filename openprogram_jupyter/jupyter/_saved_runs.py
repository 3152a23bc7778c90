"""Runs saved in a notebook's outputs, and sessions rebuilt from them after a restart.

Every ``%%agent`` transcript carries, in its output's metadata under ``"openprogram"``,
the run as data: its id, model, session name, how many messages of history it was given,
where in the session its messages were appended, when it started, and the messages it
added (each secret the kernel knows masked). A kernel restart loses the sessions; the
saved notebook still has them. ``%agent restore [NOTEBOOK]`` reads them back: each
session's runs in the order their messages were appended, each placed where it was — so
two ``--background`` cells that ran side by side on one session come back one after the
other, as the live session had them — exactly the kernel's session after that run, as
long as the outputs of the session's earlier cells are still in the notebook.

A saved notebook is untrusted input (it may come from anyone): every saved run is checked
against :class:`SavedRunData` before anything is restored, and one that does not fit is
refused with one line naming its cell and field; restoring changes only the sessions the
saved runs name.

Where the notebook is: the frontend tells the kernel. JupyterLab and Notebook 7 start it
with ``JPY_SESSION_NAME`` (the notebook's path); VS Code sets ``__vsc_ipynb_file__`` in
the namespace. Elsewhere ``%agent restore PATH`` names it.
"""

from __future__ import annotations

import json
import math
import os
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from ..core._json import JsonObject, loads_valid
from ..core._secrets import Secrets
from ..core.errors import SetupError
from ..core.events import Compaction
from ..core.messages import Message, dump_message
from ..models._json_depth import nesting_past

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..engine.run import Run

__all__ = [
    "METADATA_KEY",
    "SavedRun",
    "notebook_path",
    "read_saved_runs",
    "remember_saved_data",
    "restore_sessions",
    "running_cell_id",
    "saved_data_of",
    "saved_run_metadata",
]

METADATA_KEY = "openprogram"
FORMAT = 1


MAX_NOTEBOOK_DEPTH = 512
"""A notebook nested deeper than this is refused before it is parsed (Python's JSON reader
recurses once per level)."""


class SavedRunData(BaseModel):
    """What a saved run must hold to be restored: strict types, no negative lengths, a
    finite start time, messages that parse. Unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    format: Literal[1]
    run_id: StrictStr = ""
    model: StrictStr | None = None
    session: StrictStr | None = None
    history_length: Annotated[StrictInt, Field(ge=0)] = 0
    appended_at: Annotated[StrictInt, Field(ge=0)] | None = None
    started_at: Annotated[float, Field(strict=True, allow_inf_nan=False)] = 0.0
    stop_reason: StrictStr | None = None
    messages: list[Message] = Field(default_factory=list)
    session_created_at: Annotated[float, Field(strict=True, allow_inf_nan=False)] | None = None
    compactions: list[Compaction] = Field(default_factory=list)


@dataclass(frozen=True)
class SavedRun:
    """One run as a notebook saved it."""

    run_id: str
    session: str | None
    history_length: int
    appended_at: int  # where its messages went in the session (its history length, in older notebooks)
    started_at: float
    stop_reason: str | None
    messages: list[Any]
    cell: int  # the code cell's index in the notebook, for messages
    session_created_at: float | None = None  # which start of its session it belongs to (None: older notebooks)
    cell_id: str | None = None  # its cell's notebook id (nbformat 4.5), if the notebook gives one
    compactions: tuple[Any, ...] = ()  # its Compaction records: the session keeps what they left


def saved_run_metadata(
    run: Run,
    session: str | None,
    history_length: int,
    appended_at: int | None = None,
    session_created_at: float | None = None,
) -> JsonObject:
    """The output metadata that saves ``run`` (see the module docstring); ``appended_at``
    is where the session put its messages (``None``: right after its history), and
    ``session_created_at`` when that session was started (``--new`` starts it again)."""
    secrets = Secrets.now()
    messages = [_masked(dump_message(message), secrets) for message in run.messages]
    compactions = [
        _masked(compaction.model_dump(mode="json"), secrets) for compaction in getattr(run, "compactions", ())
    ]
    return {
        METADATA_KEY: {
            "format": FORMAT,
            "run_id": run.run_id,
            "model": run.model,
            "session": session,
            "history_length": history_length,
            "appended_at": history_length if appended_at is None else appended_at,
            "started_at": run.started_at,
            "stop_reason": run.stop_reason,
            "messages": messages,
            "session_created_at": session_created_at,
            **({"compactions": compactions} if compactions else {}),
        }
    }


_SAVED_DATA: weakref.WeakKeyDictionary[Any, JsonObject] = weakref.WeakKeyDictionary()


def remember_saved_data(run: Run, metadata: JsonObject) -> None:
    """Keep ``metadata`` (:func:`saved_run_metadata` of ``run``, as its cell saved it) for
    as long as ``run`` lives, so ``%agent show`` saves the run as its cell did: a page
    reloaded mid-run never receives the cell's transcript, and the cell the user then runs
    ``%agent show`` in is where the notebook keeps it."""
    _SAVED_DATA[run] = metadata


def saved_data_of(run: Run) -> JsonObject | None:
    """The metadata :func:`remember_saved_data` kept for ``run``, or ``None``."""
    return _SAVED_DATA.get(run)


def _masked(value: object, secrets: Secrets) -> Any:
    if isinstance(value, str):
        return secrets.mask(value)
    if isinstance(value, dict):
        return {_masked(key, secrets): _masked(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item, secrets) for item in value]
    return value


def notebook_path(shell: InteractiveShell | None) -> Path | None:
    """The kernel's own notebook, where the frontend said (``JPY_SESSION_NAME``, or VS
    Code's ``__vsc_ipynb_file__``) and it exists; else ``None``."""
    candidates = [os.environ.get("JPY_SESSION_NAME"), getattr(shell, "user_ns", {}).get("__vsc_ipynb_file__")]
    for candidate in candidates:
        if candidate and str(candidate).endswith(".ipynb") and Path(candidate).is_file():
            return Path(candidate)
    return None


def read_saved_runs(path: Path) -> list[SavedRun]:
    """Every run saved in the notebook at ``path``, in notebook order, each once: a run
    saved again as it was (its cell's transcript and a ``%agent show`` of it: the same
    data) counts where it was first saved. A notebook that cannot be read, or a saved run that does not fit
    :class:`SavedRunData`, raises ``ValueError`` naming the problem (and the cell and field)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SetupError(f"cannot read {path}: {error.strerror or error}") from None
    too_deep = nesting_past(text, MAX_NOTEBOOK_DEPTH)
    if too_deep is not None:
        raise SetupError(
            f"{path} nests {too_deep.depth} levels deep (line {too_deep.line}), past what a notebook "
            f"holds ({MAX_NOTEBOOK_DEPTH}); it was not read"
        )
    try:
        notebook = loads_valid(text)  # a lone surrogate escaped in the file becomes U+FFFD
    except ValueError as error:
        raise SetupError(f"{path} is not a notebook (not JSON: {error})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells", []), list):
        raise SetupError(f"{path} is not a notebook (no list of cells at its top level)")
    runs, seen = [], set()
    code_cells = [c for c in notebook.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]
    for index, cell in enumerate(code_cells):
        outputs = cell.get("outputs")
        for output in outputs if isinstance(outputs, list) else []:
            metadata = output.get("metadata") if isinstance(output, dict) else None
            saved = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
            if isinstance(saved, dict) and saved.get("format") == FORMAT:
                same = json.dumps(saved, sort_keys=True, default=str)
                if same in seen:
                    continue
                seen.add(same)
                cell_id = cell.get("id")
                runs.append(_saved_run(saved, index, cell_id if isinstance(cell_id, str) else None))
    return runs


def _saved_run(saved: dict[str, Any], cell: int, cell_id: str | None) -> SavedRun:
    try:
        data = SavedRunData.model_validate(saved)
    except ValidationError as error:
        problem = error.errors()[0]
        field = ".".join(str(part) for part in problem["loc"]) or "its data"
        raise SetupError(
            f"code cell {cell + 1}: its saved run has a bad {field} ({problem['msg']}); nothing was restored"
        ) from None
    assert math.isfinite(data.started_at)
    appended_at = data.history_length if data.appended_at is None else data.appended_at
    return SavedRun(
        data.run_id,
        data.session,
        data.history_length,
        appended_at,
        data.started_at,
        data.stop_reason,
        list(data.messages),
        cell,
        data.session_created_at,
        cell_id,
        tuple(data.compactions),
    )


def running_cell_id(shell: InteractiveShell | None) -> str | None:
    """The notebook id of the cell the kernel is running, as JupyterLab and Notebook 7 send
    it (``cellId`` in the execute request's metadata); ``None`` where the frontend sends
    none (nbclient, a plain IPython shell) or the shell has no request to read it from."""
    get_parent = getattr(shell, "get_parent", None)
    try:
        request = get_parent() if callable(get_parent) else None
    except Exception:  # a shell whose parent is not a message is one that sent no id
        return None
    metadata = request.get("metadata") if isinstance(request, dict) else None
    cell_id = metadata.get("cellId") if isinstance(metadata, dict) else None
    return cell_id if isinstance(cell_id, str) and cell_id else None


def restore_sessions(sessions: Any, runs: list[SavedRun]) -> list[str]:
    """Rebuild each named session of ``runs`` into ``sessions`` (replacing a session of the
    same name); returns one line per session saying what was restored, and any gap.

    Only the session's latest start counts: runs saved before a ``--new`` started it again
    are left out (as the kernel had left them), and the rebuilt session keeps that start."""
    by_session: dict[str, list[SavedRun]] = {}
    for run in runs:
        if run.session:
            by_session.setdefault(run.session, []).append(run)
    lines = []
    for name, every in by_session.items():
        latest = max(run.session_created_at or 0.0 for run in every)
        saved = [run for run in every if (run.session_created_at or 0.0) == latest]
        messages: list[Any] = []
        gaps = 0
        in_order = sorted(saved, key=lambda r: (r.appended_at, r.started_at))
        for run in in_order:
            if run.appended_at > len(messages):
                gaps += 1  # an earlier cell's output is missing: keep what there is
            messages = _after(messages[: run.appended_at], run)
        session = sessions.get(name, new=True)  # replaced only once the saved runs fit together
        session.created_at = latest or session.created_at
        session.messages[:] = messages
        session.runs.extend(_RestoredRun(run) for run in in_order)
        line = f"session {name}: {len(session.messages)} message(s) from {len(saved)} run(s)"
        if len(saved) < len(every):
            line += f" ({len(every) - len(saved)} run(s) from before a --new left out)"
        if gaps:
            line += (
                f"; {gaps} run(s) had more history than the notebook holds (an earlier cell's output "
                "was cleared?), so the conversation has a gap"
            )
        lines.append(line)
    return lines


def _after(history: list[Any], run: SavedRun) -> list[Any]:
    """The session's messages after ``run``: ``history`` and its messages, compacted as the
    run compacted them (``ValueError`` naming the cell when its records do not fit)."""
    if not run.compactions:
        return history + run.messages
    from ..engine._compaction import compacted_history

    try:
        return compacted_history(history + run.messages, run.compactions)
    except ValueError as error:
        raise ValueError(f"code cell {run.cell + 1}: its saved run's {error}") from None


@dataclass(frozen=True)
class _RestoredRun:
    """A session's earlier run, as far as the notebook saved it (``%agent sessions`` lists it)."""

    saved: SavedRun

    @property
    def stop_reason(self) -> str:
        return f"{self.saved.stop_reason or '—'} (restored)"

    @property
    def messages(self) -> list[Any]:
        return self.saved.messages
