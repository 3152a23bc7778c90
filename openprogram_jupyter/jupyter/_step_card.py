"""Step mode on a call's card: **Run**, **Edit**, **Skip** and **Stop** for a waiting pick.

``%%agent --step`` makes every pick wait in its open card (:mod:`._call_card`) with:

- **Run** — run the call as the model sent it;
- **Edit** — open the arguments as JSON in a text area; **Run edited** checks them (JSON
  that is an object, then the tool's schema, by :meth:`.LiveRun.decide`) and runs the
  call with them, or shows what is wrong and keeps waiting; **Cancel** closes the editor;
- **Skip** — do not run the call; the model reads the reason typed beside it;
- **Stop** — stop the run (the view's own Stop does the same).

The widgets are built once per card and answer whichever call the card shows now. Clicks
arrive on the kernel's comm thread: they only set plain values in the card's ``parts``
and call the view's controls; the next tick draws.
"""

from __future__ import annotations

import json
from html import escape
from typing import TYPE_CHECKING, Any

from ..approvals import Edit, Skip
from ..render import _format as fmt
from ..render.tree import CallNode

if TYPE_CHECKING:
    from ._view import RunView

__all__ = ["step_widgets"]

_TOOLTIPS = {
    "Run": "Run this call with the model's arguments",
    "Edit": "Change the arguments (as JSON) before the call runs",
    "Skip": "Do not run this call; the model reads the reason beside this button",
    "Stop": "Stop the run: the transcript so far is kept",
}


def step_widgets(view: RunView, parts: dict[str, Any], call: CallNode) -> list[Any]:
    """The step controls of ``call``'s card: the button row, and the editor while open."""
    step = parts.get("step")
    if step is None:
        step = parts["step"] = _build(view, parts)
    if step["editing"] != call.id:
        step["editing"] = None
    view._want(step["error"], value=f'<div style="color:#cf222e">{escape(step["message"])}</div>'
               if step["message"] and step["message_for"] == call.id else "")
    shown = [step["row"]]
    if step["editing"] == call.id:
        if step["filled_for"] != call.id:  # fill once, so a redraw never overwrites typing
            step["filled_for"] = call.id
            view._want(step["editor"], value=fmt.pretty_json(call.arguments or {}))
        shown.append(step["edit-box"])
    shown.append(step["error"])
    return shown


def _build(view: RunView, parts: dict[str, Any]) -> dict[str, Any]:
    w = view._w
    step: dict[str, Any] = {"editing": None, "filled_for": None, "message": "", "message_for": None}
    buttons = {name: view._make(w.Button, description=name, tooltip=tip,
                                button_style={"Run": "success", "Stop": "danger"}.get(name, ""))
               for name, tip in _TOOLTIPS.items()}
    step["reason"] = view._make(w.Text, placeholder="reason for skipping (the model reads it)",
                                layout=w.Layout(width="280px"))
    step["row"] = view._make(w.HBox, children=(*buttons.values(), step["reason"]))
    step["editor"] = view._make(w.Textarea, layout=w.Layout(width="100%", height="120px"))
    run_edited = view._make(w.Button, description="Run edited", button_style="success",
                            tooltip="Check these arguments against the tool's schema and run the call with them")
    cancel = view._make(w.Button, description="Cancel", tooltip="Close the editor; the call keeps waiting")
    step["edit-box"] = view._make(w.VBox, children=(step["editor"], view._make(w.HBox, children=(run_edited, cancel))))
    step["error"] = view._make(w.HTML)

    def answer(value: Any) -> None:
        error = value if isinstance(value, str) else view._on_decide_click(parts["call_id"], value)
        step["message"], step["message_for"] = error or "", parts["call_id"]

    def open_editor() -> None:
        step["editing"], step["filled_for"], step["message"] = parts["call_id"], None, ""

    def close_editor() -> None:
        step["editing"] = None

    buttons["Run"].on_click(lambda _b: answer(True))
    buttons["Edit"].on_click(lambda _b: open_editor())
    buttons["Skip"].on_click(lambda _b: answer(Skip(step["reason"].value.strip())))
    buttons["Stop"].on_click(lambda _b: view._on_stop_click())
    run_edited.on_click(lambda _b: answer(_edited(step["editor"].value)))
    cancel.on_click(lambda _b: close_editor())
    return step


def _edited(text: str) -> Edit | str:
    """The editor's text as an :class:`Edit`, or why it is not one (shown in the card)."""
    try:
        arguments = json.loads(text)
    except ValueError as error:
        return f"The arguments are not valid JSON: {error}. Nothing ran; fix them and press Run edited again."
    if not isinstance(arguments, dict):
        return (f"The arguments must be one JSON object ({{...}}), not {type(arguments).__name__}. "
                "Nothing ran; fix them and press Run edited again.")
    return Edit(arguments)
