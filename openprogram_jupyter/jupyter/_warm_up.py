"""Loading, in the background after ``%load_ext``, what the first ``%%agent`` cell needs.

The first cell after a kernel start would otherwise pay, before anything shows, for the
core (pydantic, the loop, the tools layer), the live view (ipywidgets) and the provider's
SDK (``openai`` about 1.5 s of CPU, ``anthropic`` about 3.5 s). :func:`start_warm_up`
imports them on a daemon thread while the user reads or types, so ``%load_ext`` itself
stays as fast as before and the first cell finds them loaded. A cell that comes before
the warm-up is done takes the rest over (:func:`wait_for_warm_up`): it waits only for the
step under way, then imports what it still needs itself, when it needs it.

The provider warmed is the one the first plain ``%%agent`` cell would use:
``%config AgentMagics.model``, else the notebook ``runtime``'s model, else the default
chosen from the key variables (:func:`~openprogram_jupyter.models.default_model_name`).
Nothing is sent and no key is read beyond what choosing the default reads. It runs only in
a kernel (not in terminal IPython or a plain ``InteractiveShell``), and not at all when
``OPENPROGRAM_WARM_UP=0``. A failure is ignored: the cell that needs the module reports it.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import TYPE_CHECKING, Any

from ..core._threads import threads_available

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..engine.runtime import Runtime
    from ._magics import AgentMagics

__all__ = ["THREAD_NAME", "start_warm_up", "wait_for_warm_up", "warm_up"]

THREAD_NAME = "openprogram-warm-up"
_running: threading.Thread | None = None
_taken_over = threading.Event()  # set by a cell that takes the remaining imports over
# What the first cell needs before its request goes out, in that order (the SDK follows:
# see warm_up), then what it needs only once the reply is in.
_BEFORE_REQUEST = (
    "openprogram_jupyter.engine.loop",
    "openprogram_jupyter.engine.execute",
    "openprogram_jupyter.engine.run",
    "openprogram_jupyter.tools",
    "openprogram_jupyter.jupyter._foreground",
    "openprogram_jupyter.jupyter._view",
    "ipywidgets",
    "genai_prices.data",  # the model's context window, checked before sending (0.15-0.3 s to load)
    "anyio._backends._asyncio",  # what the SDKs' HTTP client loads on its first request
)
_AFTER_REPLY = (
    "openprogram_jupyter.render",
    "markdown_it",  # the answer's Markdown, rendered and sanitized
    "nh3",
)


def _enabled(shell: InteractiveShell) -> bool:
    if not threads_available():  # Pyodide: the imports happen in the first cell instead
        return False
    if os.environ.get("OPENPROGRAM_WARM_UP", "").strip().lower() in {"0", "false", "no", "off"}:
        return False
    return getattr(shell, "kernel", None) is not None


def _first_cell_model(magics: AgentMagics, runtime: Runtime) -> Any:
    """The model string (or Model) a plain ``%%agent`` cell would run on now."""
    from ..models import default_model_name

    if magics.model:
        return magics.model
    spec = runtime.model_spec
    return spec if spec is not None else default_model_name()


def warm_up(magics: AgentMagics, runtime: Runtime) -> None:
    """Import the first cell's modules and the SDK of the model it would use, in the order
    the cell needs them (see the module); stop at the next step once a cell has taken the
    rest over (:func:`wait_for_warm_up` with ``take_over``)."""
    for name in _BEFORE_REQUEST:
        if _taken_over.is_set():
            return
        importlib.import_module(name)
    from ..models import resolve_model

    prepare = getattr(resolve_model(_first_cell_model(magics, runtime)), "warm_up", None)
    if prepare is not None and not _taken_over.is_set():
        prepare()
    for name in _AFTER_REPLY:
        if _taken_over.is_set():
            return
        importlib.import_module(name)


def _quietly(magics: AgentMagics, runtime: Runtime) -> None:
    try:
        warm_up(magics, runtime)
    except Exception:  # the cell that needs the module reports the failure
        pass


def start_warm_up(shell: InteractiveShell, magics: AgentMagics, runtime: Runtime) -> threading.Thread | None:
    """Start :func:`warm_up` on a daemon thread and return it, or ``None`` when disabled."""
    global _running
    if not _enabled(shell):
        return None
    _taken_over.clear()
    thread = threading.Thread(target=_quietly, args=(magics, runtime), name=THREAD_NAME, daemon=True)
    thread.start()
    _running = thread
    return thread


def wait_for_warm_up(timeout: float = 60.0, *, take_over: bool = False) -> None:
    """Return once a running warm-up has finished its imports (at most ``timeout`` s).

    The package's entry points (``%%agent``, ``%agent``, the first use of a public name)
    call it first: two threads importing the same modules at once can each hold a module
    the other needs, and Python breaks that cycle by handing one of them a partly
    initialized module (``ImportError: cannot import name ... partially initialized``).

    ``take_over`` (an ``%%agent`` cell): the warm-up stops after the step it is in (a
    module and what it imports, or the SDK), and the caller imports the rest itself, as
    and when it needs them. So a cell sent the instant ``%load_ext`` returns waits for one
    step, not for modules it needs only after its request (the reply's rendering and cost)
    or not at all: it is never slower than without the warm-up."""
    thread = _running
    if thread is not None and thread.is_alive() and thread is not threading.current_thread():
        if take_over:
            _taken_over.set()
        thread.join(timeout)
