"""One reply streamed into its message and settled: :func:`stream_into`.

Both a round's reply (:mod:`._reply`) and a compaction's summary (:mod:`._compaction`) stream
this way: a failure of the model becomes a failed reply rather than an exception (a stop
still cancels), and a reply that did not fail is finished with its own stop reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.events import AssistantUpdate
    from ..models import Model
    from ..models.base import MessageBuilder, ModelRequest

__all__ = ["stream_into"]


async def stream_into(
    model: Model,
    request: ModelRequest,
    builder: MessageBuilder,
    on_update: Callable[[AssistantUpdate], None] | None = None,
) -> None:
    """Stream ``model``'s reply to ``request`` into ``builder``, handing each update to
    ``on_update``; an exception (``CancelledError`` aside) fails the reply with its kind and
    words; a reply that neither failed nor was stopped is finished."""
    try:
        async for update in model.stream(request, builder):
            if on_update is not None:
                on_update(update)
    except asyncio.CancelledError:
        raise
    except Exception as error:
        builder.fail(f"{model.name}: {type(error).__name__}: {error}", kind="internal")
    settle(builder)


def settle(builder: MessageBuilder) -> None:
    """Finish ``builder``'s reply with its own stop reason unless it failed or was stopped."""
    message = builder.message
    if message.stop_reason not in ("error", "aborted"):
        builder.finish(message.stop_reason if message.stop_reason != "stop" else None)
