"""What a provider's SDK client needs in a browser: Pyodide (``sys.platform ==
"emscripten"``, the Python of JupyterLite), where httpx2 sends each request with the page's
``fetch`` (its httpx2-jsfetch transport) and the browser enforces CORS.

- :func:`in_browser`: whether a provider's client is built on :mod:`._fetch_transport`'s
  (response chunks as bytes, a closed stream aborting its request);
- :func:`anthropic_browser_headers`: Anthropic's API answers a browser only when the
  request says ``anthropic-dangerous-direct-browser-access: true``, and the SDK does not
  send it by itself under Pyodide (anthropic 2.16);
- :func:`cors_hint`: a browser tells the page only "Failed to fetch" both when nothing
  answers and when the server does not allow the page's origin, so a failed connection in
  a browser says both.

Each reads ``sys.platform`` at each call, so a test can set it.
"""

from __future__ import annotations

import sys

__all__ = ["ANTHROPIC_BROWSER_HEADER", "anthropic_browser_headers", "cors_hint", "in_browser"]

ANTHROPIC_BROWSER_HEADER = "anthropic-dangerous-direct-browser-access"


def in_browser() -> bool:
    """True under Pyodide (``sys.platform == "emscripten"``), where requests go through the
    browser's ``fetch``; False elsewhere (WASI included: it has no ``fetch``)."""
    return sys.platform == "emscripten"


def anthropic_browser_headers() -> dict[str, str]:
    """``{"anthropic-dangerous-direct-browser-access": "true"}`` in a browser (the header
    without which Anthropic's API refuses a page's request), ``{}`` elsewhere."""
    return {ANTHROPIC_BROWSER_HEADER: "true"} if in_browser() else {}


def cors_hint() -> str:
    """In a browser, the words a failed connection adds: the server may be up and not
    allow this page's origin (CORS), which the browser reports the same way; ``""``
    elsewhere."""
    if not in_browser():
        return ""
    return (
        "; in the browser a server that does not allow this page's origin (CORS) fails the same way: "
        "the provider or gateway must answer this site's origin"
    )
