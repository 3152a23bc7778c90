"""An httpx2 client whose response bodies come in ``bytes``, for the Anthropic SDK in a browser.

Under Pyodide httpx2's transport is httpx2-jsfetch's, and its response streams (1.0) hand
over each chunk the page's ``fetch`` read as a ``memoryview``. The openai SDK's event-stream
reader takes that; the anthropic SDK's (2.16) splits each chunk with ``bytes.splitlines``,
and a streamed reply failed at its first chunk: ``AttributeError: 'memoryview' object has no
attribute 'splitlines'``. Loaded only in a browser (it imports httpx2).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

__all__ = ["BytesBodies", "bytes_bodies_client"]


class _BytesChunks(httpx2.AsyncByteStream):
    """``stream``'s chunks, each as ``bytes``."""

    def __init__(self, stream: httpx2.AsyncByteStream) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield bytes(chunk)

    async def aclose(self) -> None:
        await self._stream.aclose()


class BytesBodies(httpx2.AsyncBaseTransport):
    """``inner``, with each response's body read as ``bytes`` chunks (whatever buffer type
    ``inner`` hands over)."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = _BytesChunks(response.stream)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def bytes_bodies_client(client_class: Callable[..., Any]) -> Any:
    """An SDK's httpx2 client class (``anthropic.DefaultAsyncHttpxClient``: its timeouts and
    redirects) on this Python's default transport — the page's ``fetch`` under Pyodide —
    wrapped in :class:`BytesBodies`."""
    return client_class(transport=BytesBodies(httpx2.AsyncHTTPTransport()))
