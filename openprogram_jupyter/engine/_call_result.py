"""What the model reads of a finished call's value, made off the run's event loop.

Making a result can be long CPU work: a picture is encoded, decoded, scaled down and
encoded again (a second or two for a 3000×3000 photo), a large value is encoded as JSON, a
tool's ``render=`` draws its card. Done on the run's event loop, it would hold Stop until
it ended (docs/faults.md, "Nothing blocks Stop"). So :func:`made_result` does it on a
worker thread, and a stop does not wait for it: the awaiting call is cancelled at once,
and the worker gives up at its next checkpoint — before each picture is made or fitted.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..core._json import JsonObject
from ..core.errors import ToolExit
from ..core.messages import ImageContent, TextContent
from ..tools._display import result_display
from ..tools._images import fit_image
from ..tools.base import ToolOptions, run_in_daemon_thread
from ..tools.results import DEFAULT_MAX_RESULT_CHARS, result_content

__all__ = ["made_result"]


class _GaveUp(Exception):
    """Raised at a checkpoint once nobody waits for the result any more."""


async def made_result(
    name: str,
    value: object,
    output: Iterable[JsonObject],
    options: ToolOptions | None,
    settings: Mapping[str, Any] | None,
) -> tuple[list[TextContent | ImageContent], JsonObject]:
    """What the model reads of tool ``name``'s return ``value`` — its content, then the
    pictures of the body's ``output`` it asks for (:func:`_pictures_for_the_model`) — and
    the details the value adds (the card's ``display``).

    Made on a worker thread, but for a plain value (``None``, text, a number) with no
    picture in its output, which is made here at once. Cancelled, it raises
    ``CancelledError`` at once and the worker stops at its next checkpoint. Whatever
    making it raises is raised as itself."""
    gave_up = threading.Event()

    def checkpoint() -> None:
        if gave_up.is_set():
            raise _GaveUp

    def make() -> tuple[list[TextContent | ImageContent], JsonObject]:
        content, details = _result_content(value, options, _limit(options, settings), checkpoint)
        return content + _pictures_for_the_model(output, options, settings, checkpoint), details

    if _light(value, output):
        return make()
    try:
        return await run_in_daemon_thread(make, {}, name=f"{name} result")
    except asyncio.CancelledError:
        gave_up.set()
        raise
    except ToolExit as error:  # the worker's wrapping: what making the result raised
        raise error.original from None


def _light(value: object, output: Iterable[JsonObject]) -> bool:
    """Whether the result is quick to make: a plain value and no picture in the output."""
    plain = value is None or isinstance(value, (str, bool, int, float))
    return plain and not any(item.get("type") == "display" for item in output)


def _limit(options: ToolOptions | None, settings: Mapping[str, Any] | None) -> int | None:
    """How many characters of a result the model reads: the tool's own ``max_result_chars``,
    else the run's setting (``None``: no cut)."""
    if options is not None and options.max_result_chars is not None:
        return options.max_result_chars
    return (settings or {}).get("max_result_chars", DEFAULT_MAX_RESULT_CHARS)


def _result_content(
    value: object, options: ToolOptions | None, max_chars: int | None, checkpoint: Callable[[], None]
) -> tuple[list[TextContent | ImageContent], JsonObject]:
    """What the model reads of ``value`` (cut to ``max_chars``), and its details: the rich
    form its card shows (``details["display"]``, :func:`.tools._display.result_display`)
    among them."""
    content, details = result_content(value, max_chars, checkpoint)
    display = result_display(value, options.render if options is not None else None)
    if display is not None:
        details["display"] = display
    return content, details


def _pictures_for_the_model(
    output: Iterable[JsonObject],
    options: ToolOptions | None,
    settings: Mapping[str, Any] | None,
    checkpoint: Callable[[], None],
) -> list[TextContent | ImageContent]:
    """The pictures the call's card shows from the body's output (one per display: PNG
    if it has one, else JPEG), fitted for the model — when the tool or the run asks for
    them (``figures_to_model``); none otherwise. ``checkpoint()`` before each."""
    if not ((settings or {}).get("figures_to_model") or (options is not None and options.figures_to_model)):
        return []
    pictures: list[TextContent | ImageContent] = []
    for item in output:
        mime = next((m for m in ("image/png", "image/jpeg") if m in item.get("data", {})), None)
        if item["type"] == "display" and mime is not None and isinstance(item["data"][mime], str):
            checkpoint()
            pictures.append(fit_image(ImageContent(data=item["data"][mime], mime_type=mime)))
    return pictures
