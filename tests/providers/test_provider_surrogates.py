"""A lone surrogate in what a provider sends (JSON allows ``"\\ud83d"``, and models do send
broken escapes) is made U+FFFD where the reply is built, on every provider: the run goes
on, and its transcript, the notebook's saved run, the wire capture and the cassette all
encode as UTF-8 (issue 53: ``run.save`` raised ``UnicodeEncodeError``, and the next
request failed)."""

from __future__ import annotations

import json

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._saved_runs import saved_run_metadata

from .cases import CASE_IDS, CASES

LONE = "\ud83d"  # a high surrogate with no pair; the fake server sends it escaped, as JSON allows
REPLACED = "\ufffd"


def utf8(value: object) -> str:
    """``value`` as JSON text that encodes as UTF-8 (raises ``UnicodeEncodeError`` if not)."""
    text = json.dumps(value, ensure_ascii=False)
    text.encode("utf-8")
    return text


def echo_tool(seen: list[str]) -> op.Tool:
    def echo(text: str) -> str:
        """Echo the text.

        Args:
            text: What to echo.
        """
        seen.append(text)
        return text

    return op.function(echo, register_globally=False)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_lone_surrogate_in_a_reply_and_its_call_becomes_a_replacement_character(case, server, tmp_path):
    server.script(Turn(text=f"hi {LONE} there", calls=[Call("echo", {"text": f"x{LONE}y"})]), Turn(text="done \udcff"))
    seen: list[str] = []
    cassette = tmp_path / "cassette.json"
    run = case.runtime(server, capture_wire=True, record=cassette).run("go", tools=[echo_tool(seen)])

    assert run.stop_reason == "stop", run.error
    assert seen == [f"x{REPLACED}y"]
    assert run.messages[1].text == f"hi {REPLACED} there" and run.messages[-1].text == f"done {REPLACED}"
    sent = json.dumps(server.bodies()[-1], ensure_ascii=False)  # the next request carried the result
    assert f"x{REPLACED}y" in sent and LONE not in sent


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_run_whose_reply_held_a_lone_surrogate_saves_everywhere(case, server, tmp_path):
    server.script(Turn(text=f"hi {LONE}", calls=[Call("echo", {"text": f"x{LONE}y"})]), Turn(text=f"ok {LONE}"))
    cassette = tmp_path / "cassette.json"
    run = case.runtime(server, capture_wire=True, record=cassette).run("go", tools=[echo_tool([])])

    for suffix in ("html", "md", "txt"):
        saved = run.save(tmp_path / f"run.{suffix}")
        assert f"x{REPLACED}y" in saved.read_text(encoding="utf-8")
    assert f"x{REPLACED}y" in utf8(saved_run_metadata(run, "s", 0))
    for number in run.wire_log.rounds if run.wire_log else []:
        request, reply = run.wire(number)
        utf8(request)
        assert LONE not in utf8(reply)
    assert run.wire_log is not None and len(run.wire_log.rounds) == 2
    assert REPLACED in utf8(run.wire(1)[1])  # the frames are kept as they arrived, made valid
    recorded = cassette.read_text(encoding="utf-8")
    assert f"x{REPLACED}y" in recorded and f"ok {REPLACED}" in recorded
