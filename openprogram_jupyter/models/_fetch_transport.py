"""The httpx2 client a provider's SDK gets in a browser, over the page's ``fetch``.

Under Pyodide httpx2's transport is httpx2-jsfetch's (1.0), and two things about its
response streams broke a run in JupyterLite:

- each chunk comes as the ``memoryview`` ``fetch`` read: the anthropic SDK (2.16) splits
  chunks with ``bytes.splitlines``, and a streamed reply failed at its first chunk
  (``AttributeError: 'memoryview' object has no attribute 'splitlines'``);
- closing the stream only drops its reader: the page's request goes on, so a run stopped
  mid-answer (Stop, a cancelled task) left the server streaming the rest of it — and a
  provider generating and billing it.

:class:`FetchBodies` hands each chunk over as ``bytes`` and aborts the request when its
body is closed. Loaded only in a browser (it imports httpx2).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

__all__ = ["FetchBodies", "fetch_client"]


class _FetchBody(httpx2.AsyncByteStream):
    """``stream``'s chunks, each as ``bytes``; closing it also aborts the request when
    ``stream`` has httpx2-jsfetch's ``abort_controller_js`` (a JavaScript
    ``AbortController``: aborting a request already read whole changes nothing)."""

    def __init__(self, stream: httpx2.AsyncByteStream) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield bytes(chunk)

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            controller = getattr(self._stream, "abort_controller_js", None)
            if controller is not None:
                controller.abort()


class FetchBodies(httpx2.AsyncBaseTransport):
    """``inner``, with each response's body a :class:`_FetchBody`."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = _FetchBody(response.stream)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def fetch_client(client_class: Callable[..., Any]) -> Any:
    """An SDK's httpx2 client class (``openai.DefaultAsyncHttpxClient``,
    ``anthropic.DefaultAsyncHttpxClient``: their timeouts and redirects) on this Python's
    default transport — the page's ``fetch`` under Pyodide — wrapped in :class:`FetchBodies`.
    The transport is built with its defaults, so httpx2-jsfetch has no ignored option to
    warn about."""
    return client_class(transport=FetchBodies(httpx2.AsyncHTTPTransport()))
