"""Where a provider's key comes from, and finding one that is not set yet.

A key variable (``OPENAI_API_KEY``, ...) is read from the process environment by each
provider. Before a model is resolved, :func:`fill_missing_keys` looks for each key
variable that is not set, in order:

1. a ``.env`` file in the working directory — a notebook's kernel runs in the notebook's
   folder — read with python-dotenv (the ``dotenv`` extra; without it the file is not
   read, and :func:`origins` says so);
2. Colab's secrets (``google.colab.userdata``), when running in Colab and the notebook
   was given access to that secret.

A key found there, or typed in with ``%agent key`` (:func:`set_key`), is put in this
process's environment only — never in the notebook — and remembered as a secret, so it
is masked wherever text is recorded. :func:`origin_of` says where each key came from.
Only the key variables asked for are read from a ``.env`` file, not its other entries.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._secrets import remember

__all__ = ["MISSING_KEY_SOURCES", "fill_missing_keys", "origin_of", "origins", "set_key"]

MISSING_KEY_SOURCES = "in the environment, a .env file next to the notebook, Colab's secrets, or %agent key"
"""Where a key may come from, as the "no key" errors say it."""

_ORIGINS: dict[str, str] = {}
_LOCK = threading.Lock()
_dotenv_missing: Path | None = None  # a .env file seen while python-dotenv was not installed


def set_key(variable: str, value: str, origin: str) -> None:
    """Put ``value`` in this process's environment as ``variable``, remember it as a
    secret, and record ``origin`` (``"typed in with %agent key"``)."""
    remember(value, os.environ.get(variable))  # the value it replaces stays masked too
    os.environ[variable] = value
    with _LOCK:
        _ORIGINS[variable] = origin


def origin_of(variable: str) -> str | None:
    """Where ``variable``'s value came from: what :func:`set_key` recorded, ``"the
    environment"`` for a value that was there already, ``None`` when it is not set."""
    if not os.environ.get(variable):
        return None
    with _LOCK:
        return _ORIGINS.get(variable, "the environment")


def origins(variables: Iterable[str]) -> list[tuple[str, str]]:
    """``(variable, where it came from or "not set")`` for each of ``variables``; a
    ``.env`` file that could not be read (no python-dotenv) is named once at the end."""
    rows = [(name, origin_of(name) or "not set") for name in variables]
    if _dotenv_missing is not None:
        rows.append(
            (".env", f"{_dotenv_missing} was not read: pip install python-dotenv (or openprogram-jupyter[dotenv])")
        )
    return rows


def fill_missing_keys(variables: Iterable[str], folder: str | os.PathLike[str] | None = None) -> list[str]:
    """Set each of ``variables`` that is not set from ``folder``'s ``.env`` file (the
    working directory by default), else from Colab's secrets; returns the ones set.

    Never raises for a source that is missing or refuses (no file, no python-dotenv, not
    in Colab, no access to a secret): that source is skipped.
    """
    wanted = [name for name in dict.fromkeys(variables) if not os.environ.get(name)]
    if not wanted:
        return []
    found: list[str] = []
    dotenv_file = Path(folder if folder is not None else os.getcwd()) / ".env"
    for name, value in _from_dotenv(dotenv_file, wanted).items():
        set_key(name, value, f"the .env file {dotenv_file}")
        found.append(name)
    userdata = _colab_userdata()
    for name in [n for n in wanted if n not in found and userdata is not None]:
        secret = _from_colab(userdata, name)
        if secret:
            set_key(name, secret, "Colab's secrets")
            found.append(name)
    return found


def _from_dotenv(path: Path, wanted: list[str]) -> dict[str, str]:
    global _dotenv_missing
    if not path.is_file():
        return {}
    try:
        dotenv = importlib.import_module("dotenv")
    except ImportError:
        _dotenv_missing = path
        return {}
    try:
        values: dict[str, str | None] = dotenv.dotenv_values(path)
    except (OSError, UnicodeDecodeError):
        return {}
    return {name: str(values[name]) for name in wanted if values.get(name)}


def _colab_userdata() -> Any:
    """Colab's ``google.colab.userdata`` module, or ``None`` outside Colab."""
    try:
        return importlib.import_module("google.colab.userdata")
    except ImportError:
        return None


def _from_colab(userdata: Any, name: str) -> str | None:
    """``userdata.get(name)``; ``None`` without that secret or access to it."""
    try:
        value = userdata.get(name)
    except Exception:  # SecretNotFoundError, NotebookAccessError, a timeout: not this source
        return None
    return value if isinstance(value, str) and value else None
