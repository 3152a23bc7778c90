"""TypedBox: a text box that can deliver one text after another while an awaited cell runs
(the frontend sends each widget one update until the kernel reports idle, which it does
not while the cell runs; a fresh box takes the place of one that has delivered)."""

from __future__ import annotations

import ipywidgets as widgets

from openprogram_jupyter.jupyter._typed_box import TypedBox


def frontend_types(box, text: str) -> None:
    """What the kernel does with a state update from the browser."""
    box.set_state({"value": text})


def make_box(**kwargs):
    made, closed = [], []

    def make(cls, **traits):
        widget = cls(**traits)
        made.append(widget)
        return widget

    typed = TypedBox(make, closed.append, widgets.Text, layout=lambda: widgets.Layout(width="10px"), **kwargs)
    return typed, made, closed


def test_a_box_sends_once_on_enter_or_leaving_not_per_key():
    typed, _made, _ = make_box()
    assert typed.widget().continuous_update is False


def test_a_box_that_delivered_a_text_is_replaced_by_a_fresh_one_holding_it():
    texts = []
    typed, _made, closed = make_box(on_text=texts.append)
    first = typed.widget()
    assert typed.widget() is first  # nothing arrived: the same box
    frontend_types(first, "use metric units")
    assert (typed.value, texts) == ("use metric units", ["use metric units"])
    second = typed.widget()
    assert second is not first and second.value == "use metric units"
    assert second.layout is not first.layout  # closing the old box must not close the new one's layout
    assert closed == []  # the old box is still in its container until that redraw is sent
    assert typed.widget() is second and closed == [first]
    frontend_types(second, "and round")
    assert typed.value == "and round" and typed.widget() is not second


def test_a_text_from_a_box_already_replaced_is_ignored():
    typed, _, _ = make_box()
    first = typed.widget()
    frontend_types(first, "one")
    second = typed.widget()
    frontend_types(first, "stale")  # a late update of the box no longer on screen
    assert typed.value == "one" and typed.widget() is second


def test_replace_shows_a_new_text_in_a_fresh_box_and_never_writes_the_box_on_screen():
    typed, _, _ = make_box(value="draft")
    first = typed.widget()
    typed.replace("")
    assert first.value == "draft"  # the kernel side never sets the value of a box on screen
    fresh = typed.widget()
    assert fresh is not first and fresh.value == "" and typed.value == ""


def test_close_closes_the_box_on_screen_and_those_replaced():
    typed, _, closed = make_box()
    first = typed.widget()
    frontend_types(first, "x")
    second = typed.widget()
    typed.close()
    assert closed == [first, second]


def test_each_new_box_is_handed_to_on_box_to_hook_its_messages():
    hooked = []
    typed, _, _ = make_box(on_box=hooked.append)
    first = typed.widget()
    frontend_types(first, "x")
    second = typed.widget()
    assert hooked == [first, second]
