"""Runs saved in a notebook's outputs, and sessions rebuilt from them after a restart.

Every ``%%agent`` transcript carries, in its output's metadata under ``"openprogram"``,
the run as data: its id, model, session name, how many messages of history it was given,
when it started, and the messages it added (each secret the kernel knows masked). A
kernel restart loses the sessions; the saved notebook still has them. ``%agent restore
[NOTEBOOK]`` reads them back: each session's runs in the order they started, each run's
messages placed after the history it was given — exactly the kernel's session after that
run, as long as the outputs of the session's earlier cells are still in the notebook.

Where the notebook is: the frontend tells the kernel. JupyterLab and Notebook 7 start it
with ``JPY_SESSION_NAME`` (the notebook's path); VS Code sets ``__vsc_ipynb_file__`` in
the namespace. Elsewhere ``%agent restore PATH`` names it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._secrets import Secrets
from ..messages import dump_message, parse_message

__all__ = ["METADATA_KEY", "SavedRun", "notebook_path", "read_saved_runs", "restore_sessions", "saved_run_metadata"]

METADATA_KEY = "openprogram"
FORMAT = 1


@dataclass(frozen=True)
class SavedRun:
    """One run as a notebook saved it."""

    run_id: str
    session: str | None
    history_length: int
    started_at: float
    stop_reason: str | None
    messages: list[Any]
    cell: int  # the code cell's index in the notebook, for messages


def saved_run_metadata(run: Any, session: str | None, history_length: int) -> dict[str, Any]:
    """The output metadata that saves ``run`` (see the module docstring)."""
    secrets = Secrets.now()
    messages = [_masked(dump_message(message), secrets) for message in run.messages]
    return {METADATA_KEY: {
        "format": FORMAT, "run_id": run.run_id, "model": run.model, "session": session,
        "history_length": history_length, "started_at": run.started_at, "stop_reason": run.stop_reason,
        "messages": messages,
    }}


def _masked(value: Any, secrets: Secrets) -> Any:
    if isinstance(value, str):
        return secrets.mask(value)
    if isinstance(value, dict):
        return {key: _masked(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked(item, secrets) for item in value]
    return value


def notebook_path(shell: Any) -> Path | None:
    """The kernel's own notebook, where the frontend said (``JPY_SESSION_NAME``, or VS
    Code's ``__vsc_ipynb_file__``) and it exists; else ``None``."""
    candidates = [os.environ.get("JPY_SESSION_NAME"), getattr(shell, "user_ns", {}).get("__vsc_ipynb_file__")]
    for candidate in candidates:
        if candidate and str(candidate).endswith(".ipynb") and Path(candidate).is_file():
            return Path(candidate)
    return None


def read_saved_runs(path: Path) -> list[SavedRun]:
    """Every run saved in the notebook at ``path``, in notebook order. A notebook that
    cannot be read raises ``ValueError`` naming the problem."""
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise ValueError(f"{path} is not a notebook (not JSON: {error})") from None
    runs = []
    code_cells = [c for c in notebook.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]
    for index, cell in enumerate(code_cells):
        for output in cell.get("outputs", []):
            saved = (output.get("metadata") or {}).get(METADATA_KEY) if isinstance(output, dict) else None
            if isinstance(saved, dict) and saved.get("format") == FORMAT:
                runs.append(_saved_run(saved, index))
    return runs


def _saved_run(saved: dict[str, Any], cell: int) -> SavedRun:
    try:
        messages = [parse_message(m) for m in saved.get("messages", [])]
    except ValueError as error:
        raise ValueError(f"code cell {cell + 1}: its saved run cannot be read back ({error})") from None
    return SavedRun(str(saved.get("run_id", "")), saved.get("session"), int(saved.get("history_length", 0)),
                    float(saved.get("started_at", 0.0)), saved.get("stop_reason"), messages, cell)


def restore_sessions(sessions: Any, runs: list[SavedRun]) -> list[str]:
    """Rebuild each named session of ``runs`` into ``sessions`` (replacing a session of the
    same name); returns one line per session saying what was restored, and any gap."""
    by_session: dict[str, list[SavedRun]] = {}
    for run in runs:
        if run.session:
            by_session.setdefault(run.session, []).append(run)
    lines = []
    for name, saved in by_session.items():
        session = sessions.get(name, new=True)
        gaps = 0
        for run in sorted(saved, key=lambda r: r.started_at):
            if run.history_length > len(session.messages):
                gaps += 1  # an earlier cell's output is missing: keep what there is
            del session.messages[run.history_length:]
            session.messages.extend(run.messages)
            session.runs.append(_RestoredRun(run))
        line = f"session {name}: {len(session.messages)} message(s) from {len(saved)} run(s)"
        if gaps:
            line += (f"; {gaps} run(s) had more history than the notebook holds (an earlier cell's output "
                     "was cleared?), so the conversation has a gap")
        lines.append(line)
    return lines


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
