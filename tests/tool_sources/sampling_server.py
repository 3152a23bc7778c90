"""A stand-in MCP server (the SDK's ``MCPServer``; stdio) whose tool asks the client's model
for a reply with every field of ``sampling/createMessage`` the npm reference server leaves
out (``stopSequences``, ``modelPreferences``). The request is a resolver's ``Sample`` (the
SDK sends it as the protocol negotiated: a request mid-call, or an input-required result).

- ``ask_model(prompt, hints=[])``: a request with the system prompt ``"Answer briefly."``,
  ``maxTokens`` 42, ``temperature`` 0.3, ``stopSequences`` ``["STOP"]`` and the model
  ``hints`` given, in that order; it returns ``sampled <model>: <text>``. A client that
  answers with an error fails the call with that error;
- ``ask_about_audio()``: a request whose one user message is a 16,044-byte WAV (audio
  content) and then the text ``"What is this?"``; it returns what ``ask_model`` returns.
"""

from __future__ import annotations

import base64
from typing import Annotated

from mcp.server.mcpserver import MCPServer, Resolve, Sample
from mcp.types import AudioContent, CreateMessageResult, ModelHint, ModelPreferences, SamplingMessage, TextContent

server = MCPServer("sampler")


def _sample(prompt: str, hints: list[str] | None = None) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=42,
        system_prompt="Answer briefly.",
        temperature=0.3,
        stop_sequences=["STOP"],
        model_preferences=ModelPreferences(hints=[ModelHint(name=name) for name in hints or []]),
    )


@server.tool()
async def ask_model(
    prompt: str, result: Annotated[CreateMessageResult, Resolve(_sample)], hints: list[str] | None = None
) -> str:
    """Ask the client's model ``prompt`` and say what it answered."""
    text = result.content.text if isinstance(result.content, TextContent) else repr(result.content)
    return f"sampled {result.model}: {text}"


WAV = b"RIFF" + b"\0" * 16_040


def _sample_audio() -> Sample:
    audio = AudioContent(type="audio", data=base64.b64encode(WAV).decode(), mime_type="audio/wav")
    question = TextContent(type="text", text="What is this?")
    return Sample([SamplingMessage(role="user", content=[audio, question])], max_tokens=42)


@server.tool()
async def ask_about_audio(result: Annotated[CreateMessageResult, Resolve(_sample_audio)]) -> str:
    """Ask the client's model about a sound and say what it answered."""
    text = result.content.text if isinstance(result.content, TextContent) else repr(result.content)
    return f"sampled {result.model}: {text}"


if __name__ == "__main__":
    server.run()
