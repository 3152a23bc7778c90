"""A stand-in MCP server (the SDK's FastMCP, ``MCPServer``; stdio) for the client features the
npm reference server lacks or shows only by chance:

- ``whoami``: the name and version the client introduced itself with;
- ``grow(name)`` / ``shrink(name)``: add a tool called ``name`` (it answers ``hi from NAME``)
  or remove one, and announce the change (``notifications/tools/list_changed``);
- ``wipe(path)`` (annotated destructive) and ``peek(path)`` (read-only, and destructive,
  which read-only overrides);
- ``chatty()``: two log messages (a warning from the logger ``feature``, then an info)
  and two progress reports without a total, between them;
- ``media()``: text, then an embedded PNG, an embedded WAV, an audio block and an embedded
  PDF-typed blob, then text;
"""

from __future__ import annotations

import base64
import struct
import zlib

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import AudioContent, BlobResourceContents, EmbeddedResource, TextContent, ToolAnnotations

server = MCPServer("feature")


@server.tool()
async def whoami(ctx: Context) -> str:
    """The client's name and version, as it introduced itself."""
    params = ctx.request_context.session.client_params
    return f"{params.client_info.name} {params.client_info.version}" if params else "not introduced"


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and tell the client its tools changed."""

    def added() -> str:
        return f"hi from {name}"

    server.add_tool(added, name=name, description=f"a tool grow added: {name}")
    await ctx.notify_tools_changed()
    return f"added {name}"


@server.tool()
async def shrink(name: str, ctx: Context) -> str:
    """Remove the tool called ``name`` and tell the client its tools changed."""
    server.remove_tool(name)
    await ctx.notify_tools_changed()
    return f"removed {name}"


@server.tool(annotations=ToolAnnotations(destructiveHint=True, openWorldHint=False))
async def wipe(path: str) -> str:
    """Delete a file (it says so; nothing is deleted)."""
    return f"wiped {path}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=True))
async def peek(path: str) -> str:
    """Read a file (it says so)."""
    return f"peeked at {path}"


@server.tool()
async def chatty(ctx: Context) -> str:
    """Log and report progress while it works."""
    await ctx.warning("careful: token sk-feature-secret-1234", logger_name="feature")
    await ctx.report_progress(1, None, "first half")
    await ctx.report_progress(2)
    await ctx.info({"done": True})
    return "chatted"


def _png() -> bytes:
    """A 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0\xff\0\0"))
        + chunk(b"IEND", b"")
    )


WAV = b"RIFF" + b"\0" * 16_040  # 16,044 bytes: the size is what matters here
PDF = b"%PDF-1.4 " + bytes(range(256)) * 4


def _embedded(uri: str, mime: str, data: bytes) -> EmbeddedResource:
    blob = BlobResourceContents(uri=uri, mime_type=mime, blob=base64.b64encode(data).decode())
    return EmbeddedResource(type="resource", resource=blob)


@server.tool()
async def media() -> list:
    """Every kind of binary content, between two texts."""
    return [
        TextContent(type="text", text="before"),
        _embedded("file:///red.png", "image/png", _png()),
        _embedded("file:///tone.wav", "audio/wav", WAV),
        AudioContent(type="audio", data=base64.b64encode(WAV).decode(), mime_type="audio/wav"),
        _embedded("file:///doc.pdf", "application/pdf", PDF),
        TextContent(type="text", text="after"),
    ]


if __name__ == "__main__":
    server.run()
