"""The certificates an SDK client verifies servers with, loaded once per process.

Each new ``httpx2`` client builds an SSL context and loads the system's CA certificates
into it (``load_verify_locations``): 20 ms on a quiet machine, several times that on a
busy one, on the event loop of whoever makes the client. A client belongs to one event
loop, so a process that runs on many loops (``op.evaluate`` once per evaluation, a run
started on a thread of its own, each job of an executor's worker) would load them again
every time. :func:`shared_ssl_context` loads them once and hands every client the same
context; an SSL context is safe to share between threads and connections.
"""

from __future__ import annotations

import os
import ssl
import threading

__all__ = ["shared_ssl_context"]

_lock = threading.Lock()
_contexts: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def shared_ssl_context() -> ssl.SSLContext:
    """The SSL context ``httpx2`` would build for a new client (``verify=True``, reading
    ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` as it does), built on the first call and returned
    again while those two variables keep the values they had then; a change builds (and
    keeps) another."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _lock:
        context = _contexts.get(key)
        if context is None:
            import httpx2

            context = _contexts[key] = httpx2.create_ssl_context()
        return context
