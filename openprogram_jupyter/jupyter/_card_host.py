"""What a card may ask of the live view it is drawn in: :class:`CardHost`.

A call's line and card (:mod:`._call_card`) and a waiting call's controls
(:mod:`._step_card`) own their widgets, and reach the view only through this interface —
which the view (:class:`._view.RunView`) provides and the type checker holds them to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..render.tree import RunNode
    from ._buttons import Controls
    from ._widget_pool import WidgetPool

__all__ = ["CardHost"]


class CardHost(Protocol):
    """The view's side of a card.

    ``pool`` holds the view's widgets: a card makes its widgets there, asks for their
    traits at the next flush (strings masked), keeps one for a node while it is on screen
    and closes one with its layout and style (:class:`._widget_pool.WidgetPool`).
    ``finished`` says whether the run has ended; ``controls`` what the run lets the view do
    (whether a call can be answered); ``shown_result_chars`` and ``max_text_chars`` how
    much of a result or a text is drawn. ``run_widget`` draws a nested run;
    ``on_stop_click``, ``on_decide_click`` and ``on_answer_click`` are what the Stop button,
    a waiting call's answer and a tool question's answer do.
    """

    pool: WidgetPool
    finished: bool
    controls: Controls
    shown_result_chars: int
    max_text_chars: int

    def run_widget(self, run: RunNode, *, nested: bool) -> Any: ...

    def on_stop_click(self, _button: object = None) -> None: ...

    def on_decide_click(self, call_id: str, answer: object) -> str | None: ...

    def on_answer_click(self, call_id: str, text: str) -> str | None: ...
