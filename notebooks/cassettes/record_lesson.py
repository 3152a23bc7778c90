"""Re-record ``lesson.json``, the cassette ``replay-lesson.ipynb`` plays back.

    python notebooks/cassettes/record_lesson.py

No real provider is reachable from the machine this project is built on, so the lesson is
recorded against the loopback fake server in ``tests/fakeserver``: the real ``openai``
client and our OpenAI provider talk HTTP to 127.0.0.1, and the server answers with the
scripted replies in :data:`TURNS`. Everything after the server — the client, the stream
parsing, the loop, the tools, the decision and its re-ask — is the real code path.

The notebook's cell tagged ``lesson-setup`` (the tool and the questions) is executed here,
so the recording and the lesson cannot disagree. Besides the cassette, the full transcript
of each recorded run is written to ``lesson.transcript.json``; the notebook test checks that
the replay in a real kernel gives the same transcript.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import nbformat

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE.parent / "replay-lesson.ipynb"
CASSETTE = HERE / "lesson.json"
TRANSCRIPT = HERE / "lesson.transcript.json"
REPO = HERE.parent.parent


def lesson_setup() -> dict[str, Any]:
    """Run the notebook's ``lesson-setup`` cell and return its namespace."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    namespace: dict[str, Any] = {}
    for cell in notebook.cells:
        if "lesson-setup" in cell.metadata.get("tags", []):
            exec(compile(cell.source, f"{NOTEBOOK.name}[lesson-setup]", "exec"), namespace)
    return namespace


def turns() -> list[Any]:
    from fakeserver import Call, Turn

    return [
        # QUESTION: one round of three calls, then the answer.
        Turn(
            text="I'll check all three cities.",
            calls=[
                Call("temperature", {"city": "Oslo"}, id="call_oslo"),
                Call("temperature", {"city": "Lisbon"}, id="call_lisbon"),
                Call("temperature", {"city": "Cairo"}, id="call_cairo"),
            ],
            input_tokens=182,
            output_tokens=61,
        ),
        Turn(
            text="Cairo is the warmest today at 31.0 °C (Lisbon 19.5 °C, Oslo 4.0 °C).",
            input_tokens=290,
            output_tokens=24,
        ),
        # PACKING_QUESTION with choices: a call, a pick with a wrong argument type, the re-ask's pick.
        Turn(calls=[Call("temperature", {"city": "Oslo"}, id="call_oslo_2")], input_tokens=301, output_tokens=17),
        Turn(
            text='It is 4.0 °C in Oslo, so pack warm.\n{"call": "pack", "args": {"layers": "two"}}',
            input_tokens=341,
            output_tokens=30,
        ),
        Turn(
            text='Sorry, layers is a number.\n```json\n{"call": "pack", "args": {"layers": 2}}\n```',
            input_tokens=420,
            output_tokens=22,
        ),
    ]


def record() -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from fakeserver import FakeServer

    import openprogram_jupyter as op

    lesson = lesson_setup()
    with FakeServer() as server:
        server.script(*turns())
        rt = op.Runtime(
            model="openai:gpt-4.1-mini",
            base_url=server.openai_base_url,
            api_key="sk-test-lesson-recording",
            record=CASSETTE,
        )
        first = rt.run(lesson["QUESTION"], tools=[lesson["temperature"]])
        second = rt.run(lesson["PACKING_QUESTION"], tools=[lesson["temperature"]], choices=lesson["PACKING_OPTIONS"])
    runs = [[m.model_dump(mode="json") for m in run.messages] for run in (first, second)]
    TRANSCRIPT.write_text(
        json.dumps({"runs": runs, "decision": second.result}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(
        f"recorded {CASSETTE.name} ({len(json.loads(CASSETTE.read_text())['rounds'])} rounds) "
        f"and {TRANSCRIPT.name}; decision: {second.result}"
    )


if __name__ == "__main__":
    record()
