"""An MCP server whose tools ask the user (``elicitation/create``), built with the SDK's FastMCP
(``MCPServer``); stdio. Each tool's question is a resolver's ``Elicit`` (the SDK sends it
as the protocol negotiated: a request mid-call, or an input-required result). ``delete``
asks to confirm with a boolean field; ``book`` asks for a name (text), a seat count (an
integer) and a cabin (an enum); ``ping`` asks with no fields."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Elicit, MCPServer, Resolve
from pydantic import BaseModel, Field

server = MCPServer("eliciting")


class Confirm(BaseModel):
    sure: bool = Field(description="delete it for good")


class Booking(BaseModel):
    name: str
    seats: int
    cabin: Literal["economy", "business"]


class Nothing(BaseModel):
    pass


def _confirm(path: str) -> Elicit[Confirm]:
    return Elicit(f"Delete {path}?", Confirm)


def _booking() -> Elicit[Booking]:
    return Elicit("Who is travelling?", Booking)


def _go_on() -> Elicit[Nothing]:
    return Elicit("Go on?", Nothing)


@server.tool()
async def delete(path: str, answer: Annotated[ElicitationResult[Confirm], Resolve(_confirm)]) -> str:
    """Delete a file after the user confirms."""
    if answer.action != "accept":
        return f"not deleted: {answer.action}"
    return f"deleted {path}" if answer.data.sure else "kept"


@server.tool()
async def book(answer: Annotated[ElicitationResult[Booking], Resolve(_booking)]) -> str:
    """Book seats, asking who for."""
    if answer.action != "accept":
        return f"no booking: {answer.action}"
    return f"booked {answer.data.seats} {answer.data.cabin} for {answer.data.name}"


@server.tool()
async def ping(answer: Annotated[ElicitationResult[Nothing], Resolve(_go_on)]) -> str:
    """Ask to go on."""
    return answer.action


if __name__ == "__main__":
    server.run()
