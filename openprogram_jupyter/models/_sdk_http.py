"""The HTTP client every OpenAI and Anthropic SDK client of the package is given.

Both SDKs send their requests through an httpx2 ``AsyncClient`` carrying their own
defaults (timeouts, connection limits, redirects); what differs is the transport under it:

- in a browser (JupyterLite), the page's ``fetch`` (:mod:`._fetch_transport`);
- where ``aiohttp`` is installed (the ``aiohttp`` extra), the SDK's own
  ``DefaultAioHttpClient``: the same httpx2 client over aiohttp's connection pool, which
  spends less CPU a round than httpx2's own async stack (httpcore2 on anyio) —
  docs/benchmarks.md measures it;
- otherwise httpx2's own transport.

``OPENPROGRAM_HTTP=httpx`` chooses httpx2's transport even where aiohttp is installed
(``aiohttp`` asks for aiohttp, and names the extra when it is missing); the variable is
read each time a client is made. Outside a browser every client verifies servers with
the process's one SSL context (:mod:`._tls`).
"""

from __future__ import annotations

import importlib.util
import os
from types import ModuleType
from typing import Any

from ._in_browser import in_browser
from ._tls import shared_ssl_context

__all__ = ["HTTP_VARIABLE", "sdk_http_client", "transport_name"]

HTTP_VARIABLE = "OPENPROGRAM_HTTP"
_TRANSPORTS = ("aiohttp", "httpx")


def transport_name() -> str:
    """``"fetch"`` in a browser; else the transport :envvar:`OPENPROGRAM_HTTP` names
    (``"aiohttp"`` or ``"httpx"``), or when it is unset or empty ``"aiohttp"`` if aiohttp
    can be imported and ``"httpx"`` if not.

    Raises :class:`ValueError` naming the variable for any other value, or for
    ``aiohttp`` when aiohttp is not installed.
    """
    if in_browser():
        return "fetch"
    asked = os.environ.get(HTTP_VARIABLE, "").strip().lower()
    installed = importlib.util.find_spec("aiohttp") is not None
    if not asked:
        return "aiohttp" if installed else "httpx"
    if asked not in _TRANSPORTS:
        raise ValueError(f"{HTTP_VARIABLE}={asked!r}: expected one of {', '.join(_TRANSPORTS)}")
    if asked == "aiohttp" and not installed:
        raise ValueError(
            f"{HTTP_VARIABLE}=aiohttp, but aiohttp is not installed: pip install 'openprogram-jupyter[aiohttp]'"
        )
    return asked


def sdk_http_client(sdk: ModuleType) -> Any:
    """The httpx2 client for a new client of ``sdk`` (the ``openai`` or ``anthropic``
    module), on the transport :func:`transport_name` chooses."""
    transport = transport_name()
    if transport == "fetch":
        from ._fetch_transport import fetch_client

        return fetch_client(sdk.DefaultAsyncHttpxClient)
    if transport == "aiohttp":
        return sdk.DefaultAioHttpClient(verify=shared_ssl_context())
    return sdk.DefaultAsyncHttpxClient(verify=shared_ssl_context())
