"""What a card may ask of the live view it is drawn in: :class:`CardHost`.

A call's line and card (:mod:`._call_card`) and a waiting call's controls
(:mod:`._step_card`) own their widgets, and reach the view only through this interface —
which the view (:class:`._view.RunView`) provides and the type checker holds them to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..core._secrets import Secrets
    from ..render.tree import RunNode
    from ._buttons import Controls

__all__ = ["CardHost"]


class CardHost(Protocol):
    """The view's side of a card.

    ``widgets`` is the ipywidgets module; ``secrets`` what every string drawn is masked
    with (taken again at each redraw); ``drawn`` what each call-line widget was last drawn
    from (a card skips a redraw that would change nothing); ``finished`` whether the run
    has ended; ``controls`` what the run lets the view do (whether a call can be answered);
    ``shown_result_chars`` and ``max_text_chars`` how much of a result or a text is drawn.
    ``make`` builds a widget the
    view will close; ``want`` asks for traits at the next flush (strings masked);
    ``widget_for`` is the widget kept for a node while it is on screen; ``close_widget``
    closes one, with its layout and style; ``run_widget`` draws a nested run;
    ``on_stop_click`` and ``on_decide_click`` are what the Stop button and a waiting call's
    answer do.
    """

    widgets: Any
    secrets: Secrets
    drawn: dict[Any, Any]
    finished: bool
    controls: Controls
    shown_result_chars: int
    max_text_chars: int

    def make(self, cls: object, **kwargs: object) -> Any: ...

    def want(self, widget: object, **traits: Any) -> None: ...

    def widget_for(self, key: object, build: Callable[[], Any], pool: str | None = None) -> Any: ...

    def close_widget(self, widget: object) -> None: ...

    def run_widget(self, run: RunNode, *, nested: bool) -> Any: ...

    def on_stop_click(self, _button: object = None) -> None: ...

    def on_decide_click(self, call_id: str, answer: object) -> str | None: ...
