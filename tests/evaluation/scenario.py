"""The evaluation scenario the tests share: prompts "Add A and B." and two scripted models.

``careful`` calls ``add`` and answers its result; ``sloppy`` answers without a tool, and
gets every prompt with an odd A wrong. ``add`` counts how many calls run at
once (its lock keeps it in this process); ``plain_add``, the same tool without the count,
can be sent to other processes. So on N prompts the right table is known: careful
passes all, sloppy half (the even A's) — and picks nothing.
"""

from __future__ import annotations

import re
import threading
import time

import openprogram_jupyter as op

ACTIVE = {"now": 0, "most": 0}
_LOCK = threading.Lock()


@op.function(register_globally=False)
def add(a: int, b: int) -> int:
    """Add two numbers."""
    with _LOCK:
        ACTIVE["now"] += 1
        ACTIVE["most"] = max(ACTIVE["most"], ACTIVE["now"])
    time.sleep(0.05)
    with _LOCK:
        ACTIVE["now"] -= 1
    return a + b


@op.function(name="add", register_globally=False)
def plain_add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def prompts(count: int) -> list[str]:
    return [f"Add {i} and {i + 1}." for i in range(count)]


def numbers(request) -> tuple[int, int]:
    a, b = re.findall(r"\d+", request.messages[0].text)
    return int(a), int(b)


def careful() -> op.ScriptedModel:
    return op.ScriptedModel(
        [
            lambda request: op.ToolCall(name="add", arguments=dict(zip("ab", numbers(request), strict=True))),
            lambda request: f"The sum is {request.messages[-1].content[0].text}.",
        ],
        name="careful",
    )


def sloppy() -> op.ScriptedModel:
    def answer(request):
        a, b = numbers(request)
        return f"The sum is {a + b + (a % 2)}."

    return op.ScriptedModel([answer], name="sloppy")


def right_sum(run: op.Run) -> bool:
    a, b = (int(n) for n in re.findall(r"\d+", run.messages[0].text))
    return run.text == f"The sum is {a + b}."


def reset() -> None:
    ACTIVE.update(now=0, most=0)
