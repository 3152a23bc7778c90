"""Step mode on a call's card: **Run**, **Edit**, **Skip** and **Stop** for a waiting pick.

``%%agent --step`` makes every pick wait in its open card (:mod:`._call_card`) with:

- **Run** — run the call as the model sent it;
- **Edit** — open the arguments as JSON in a text area; **Run edited** checks them (JSON
  that is an object, then the tool's schema, by :meth:`.LiveRun.decide`) and runs the
  call with them, or shows what is wrong and keeps waiting; **Cancel** closes the editor;
- **Skip** — do not run the call; the model reads the reason typed beside it;
- **Stop** — stop the run (the view's own Stop does the same);
- **Always allow** / **Always deny** (where the session keeps rules: :mod:`._always`) —
  run / deny the call, and answer the tool's later calls the same way without asking.

Each waiting call gets controls of its own, which answer that call only; the text boxes
are :class:`~._typed_box.TypedBox` boxes, so what a person types arrives whole while
the cell runs.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from ..core._json import loads_valid
from ..core.approvals import Edit, Skip
from ..render import _format as fmt
from ..render.tree import CallNode
from ._always import always_buttons
from ._typed_box import TypedBox

if TYPE_CHECKING:
    from ._card_host import CardHost

__all__ = ["StepControls", "step_widgets"]

_TOOLTIPS = {
    "Run": "Run this call with the model's arguments",
    "Edit": "Change the arguments (as JSON) before the call runs",
    "Skip": "Do not run this call; the model reads the reason beside this button",
    "Stop": "Stop the run: the transcript so far is kept",
}


def step_widgets(view: CardHost, call: CallNode) -> list[Any]:
    """The step controls of ``call``'s card: the button row, and the editor while open.

    The controls belong to this one call (kept while it waits, closed after): a click
    can only ever answer the call it was shown with. Had a card's buttons answered
    whichever call the card showed at the time the click arrived, a double click on Run
    could run the next pick unseen.
    """
    controls = view.pool.widget_for(("step", call.id), lambda: StepControls(view, call))
    return controls.widgets()


class StepControls:
    """Run / Edit / Skip / Stop, the skip reason and the argument editor of one waiting call.

    Clicks arrive on the kernel's comm thread: they only set plain values here and call
    the view's controls; the view's writer draws (:meth:`widgets`).
    """

    def __init__(self, view: CardHost, call: CallNode) -> None:
        w = view.pool.widgets
        self._view = view
        self._call_id = call.id
        self._arguments = call.arguments or {}
        self.editing = False
        self.message = ""
        buttons = {
            name: view.pool.make(
                w.Button, description=name, tooltip=tip, button_style={"Run": "success", "Stop": "danger"}.get(name, "")
            )
            for name, tip in _TOOLTIPS.items()
        }
        always = always_buttons(view, call) if view.controls.always else {}
        self._buttons = (*buttons.values(), *always.values())
        self.reason = TypedBox(
            view.pool.make,
            view.pool.close_widget,
            w.Text,
            placeholder="reason for skipping (the model reads it)",
            # a flex item shrinks below its width when the row is full (nbclassic's narrower
            # cells); the row wraps instead.
            layout=lambda: w.Layout(width="280px", min_width="280px"),
        )
        self.editor = TypedBox(
            view.pool.make,
            view.pool.close_widget,
            w.Textarea,
            value=fmt.pretty_json(self._arguments),
            layout=lambda: w.Layout(width="100%", height="120px"),
        )
        run_edited = view.pool.make(
            w.Button,
            description="Run edited",
            button_style="success",
            tooltip="Check these arguments against the tool's schema and run the call with them",
        )
        cancel = view.pool.make(w.Button, description="Cancel", tooltip="Close the editor; the call keeps waiting")
        self._row = view.pool.make(w.HBox, layout=w.Layout(flex_flow="row wrap"))
        self._edit_buttons = view.pool.make(w.HBox, children=(run_edited, cancel))
        self._edit_box = view.pool.make(w.VBox)
        self._error = view.pool.make(w.HTML)
        self._widgets = [*self._buttons, run_edited, cancel, self._row, self._edit_buttons, self._edit_box, self._error]

        buttons["Run"].on_click(lambda _b: self._answer(True))
        buttons["Edit"].on_click(lambda _b: self._open_editor())
        buttons["Skip"].on_click(lambda _b: self._answer(Skip(self.reason.value.strip())))
        buttons["Stop"].on_click(lambda _b: view.on_stop_click())
        run_edited.on_click(lambda _b: self._answer(parse_edited(self.editor.value)))
        cancel.on_click(lambda _b: setattr(self, "editing", False))

    def _answer(self, value: object) -> None:
        error = value if isinstance(value, str) else self._view.on_decide_click(self._call_id, value)
        self.message = error or ""

    def _open_editor(self) -> None:
        self.editing, self.message = True, ""

    def widgets(self) -> list[Any]:
        """What the card shows of these controls now (called by the view's writer)."""
        view = self._view
        view.pool.want(self._row, children=(*self._buttons, self.reason.widget()))
        view.pool.want(
            self._error, value=f'<div style="color:#cf222e">{escape(self.message)}</div>' if self.message else ""
        )
        shown = [self._row]
        if self.editing:
            view.pool.want(self._edit_box, children=(self.editor.widget(), self._edit_buttons))
            shown.append(self._edit_box)
        shown.append(self._error)
        return shown

    def close_widgets(self) -> None:
        """Close every widget these controls made (the view calls it once the call stops waiting)."""
        self.reason.close()
        self.editor.close()
        for widget in self._widgets:
            self._view.pool.close_widget(widget)


def parse_edited(text: str) -> Edit | str:
    """The editor's text as an :class:`Edit`, or why it is not one (shown in the card)."""
    try:
        arguments = loads_valid(text)
    except ValueError as error:
        return f"The arguments are not valid JSON: {error}. Nothing ran; fix them and press Run edited again."
    if not isinstance(arguments, dict):
        return (
            f"The arguments must be one JSON object ({{...}}), not {type(arguments).__name__}. "
            "Nothing ran; fix them and press Run edited again."
        )
    return Edit(arguments)
