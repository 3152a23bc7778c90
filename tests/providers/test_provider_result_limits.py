"""Tool output limits on the wire (issue 47, item 1): a result past ``max_result_chars``
reaches each provider cut, with the note saying how much was cut and how to read the
rest, while the run keeps the whole value; a DataFrame reaches it as its shape, dtypes,
head and tail. Asserted on the bodies the loopback server received, with the real SDK
clients of all five providers."""

from __future__ import annotations

import pandas as pd
import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES

HEAD = "a" * 3_000
TAIL = "z" * 3_000
NOTE = (
    "[... 5,000 characters cut of 6,000 (max_result_chars=1,000); the whole result stays in the run: "
    "to read the rest, call the tool again for a narrower part ...]"
)


def _dump_tool(**options: object) -> op.Tool:
    def dump() -> str:
        """Everything at once."""
        return HEAD + TAIL

    return op.function(dump, register_globally=False, **options)


def _table_tool() -> op.Tool:
    def cities() -> object:
        """Every city."""
        return pd.DataFrame(
            {
                "city": [f"c{n}" for n in range(200_000)],
                "pop": range(200_000),
                "share": [n / 8 for n in range(200_000)],
            }
        )

    return op.function(cities, register_globally=False)


def _second_round_result(case, server) -> str:
    """The text of the one tool result the second request carries."""
    [(_id, text, is_error)] = case.results(server.requests[1].body)
    assert not is_error
    return text


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_cut_result_reaches_the_model_with_its_note_and_stays_whole_in_the_run(case, server):
    server.script(Turn(calls=[Call("dump", {}, id="call_dump")]), Turn(text="Read."))
    run = await case.runtime(server).arun("Dump it.", tools=[_dump_tool()], max_result_chars=1_000)
    assert run.stop_reason == "stop", run.error
    sent = _second_round_result(case, server)
    assert sent == f"{'a' * 500}\n\n{NOTE}\n\n{'z' * 500}"
    [result] = run.tool_results
    assert run.results[result.tool_call_id] == HEAD + TAIL  # the whole value stays in the run
    assert result.details["full_text"] == HEAD + TAIL  # and in the card


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_tool_of_its_own_limit_is_cut_at_it_on_the_wire(case, server):
    server.script(Turn(calls=[Call("dump", {}, id="call_dump")]), Turn(text="Read."))
    await case.runtime(server).arun("Dump it.", tools=[_dump_tool(max_result_chars=2_000)], max_result_chars=1_000)
    sent = _second_round_result(case, server)
    assert sent.startswith("a" * 1_000 + "\n\n[... 4,000 characters cut of 6,000 (max_result_chars=2,000)")
    assert sent.endswith("\n\n" + "z" * 1_000)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_dataframe_reaches_the_model_as_shape_dtypes_head_and_tail(case, server):
    server.script(Turn(calls=[Call("cities", {}, id="call_cities")]), Turn(text="Read."))
    run = await case.runtime(server).arun("List the cities.", tools=[_table_tool()], max_result_chars=2_000)
    assert run.stop_reason == "stop", run.error
    sent = _second_round_result(case, server)
    lines = sent.splitlines()
    assert lines[0] == "pandas DataFrame: 200,000 rows × 3 columns"
    assert lines[1] in (
        "columns (dtype): city (object), pop (int64), share (float64)",
        "columns (dtype): city (str), pop (int64), share (float64)",  # pandas 3 names its strings str
    )
    assert lines[2] == "first 10 rows:"
    assert lines[4].split() == ["0", "c0", "0", "0.000"]  # after the column header line
    assert "[... 199,980 rows not shown: ask the tool for a filter, a range or an aggregate" in sent
    assert lines[-1].split() == ["199999", "c199999", "199999", "24999.875"]
    assert "c100000" not in sent and len(sent) <= 2_000
    [result] = run.tool_results
    assert result.details["rows"] == 200_000 and result.details["rows_shown"] == 20
    assert run.results[result.tool_call_id].shape == (200_000, 3)  # the frame itself stays in the run
