"""The run-level fuzzer: random model rounds (text in any Unicode, one to three calls to
known or unknown tools with random JSON-like arguments, the planted key among them) and
tools that raise every kind of exception or return odd objects. Whatever happens, the
run ends with a known stop reason, every call has one result, the transcript saves, its
code compiles and the planted key never shows (:func:`.conftest.check_run`)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import Registry

from .conftest import PLANTED, check_run, counted, fuzz_settings
from .strategies import arguments, json_like, texts

registry = Registry()


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no words")


class _Odd:
    def __repr__(self) -> str:
        raise ValueError("no repr")


class _Base(BaseException):
    """Not an Exception: what a careless library may raise."""


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def _recursive() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


RAISED = [
    ValueError("bad"),
    TypeError(PLANTED),
    KeyError("k"),
    RecursionError("deep"),
    ZeroDivisionError(),
    UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad byte"),
    OSError(2, "gone", "/x\udcff"),
    _Unprintable(),
    RuntimeError("x" * 100_000),
    ArithmeticError("\ud83d"),
    StopIteration(),
    NotImplementedError(),
    AssertionError(f"key {PLANTED}"),
    _Base("base"),
    GeneratorExit(),
]
ODD = [
    lambda: None,
    object,
    lambda: {1, 2},
    lambda: b"\xff\x00",
    lambda: {"nan": math.nan, "inf": math.inf},
    lambda: 10**30,
    lambda: (x for x in range(3)),
    _Odd,
    lambda: {(1, 2): "tuple key"},
    _recursive,
    lambda: PLANTED,
    lambda: "\udcff",
    lambda: [op.TextContent(text="block \ud83d")],
    lambda: 1e30,
    lambda: _nested(200),
]


@op.function(registry=registry)
def echo(text: str) -> str:
    """Echo the text."""
    return text


@op.function(registry=registry)
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@op.function(registry=registry)
def boom(kind: int) -> str:
    """Raise one kind of exception."""
    raise RAISED[kind % len(RAISED)]


@op.function(registry=registry)
def odd(kind: int) -> Any:
    """Return an odd object."""
    return ODD[kind % len(ODD)]()


KNOWN = ["echo", "add", "boom", "odd"]
names = st.one_of(st.sampled_from([*KNOWN, "missing_tool", ""]), texts)
fitting = st.one_of(
    st.builds(lambda t: ("echo", {"text": t}), texts),
    st.builds(lambda a, b: ("add", {"a": a, "b": b}), json_like, json_like),
    st.builds(lambda k: ("boom", {"kind": k}), st.integers(0, len(RAISED) - 1)),
    st.builds(lambda k: ("odd", {"kind": k}), st.integers(0, len(ODD) - 1)),
)
calls = st.one_of(fitting, st.tuples(names, arguments))
rounds = st.lists(st.tuples(texts, st.lists(calls, min_size=1, max_size=3)), min_size=0, max_size=3)


def _reply(text: str, picks: list[tuple[str, dict[str, Any]]]) -> op.AssistantMessage:
    content: list[Any] = [op.TextContent(text=text)] if text else []
    content += [op.ToolCall(name=name, arguments=args) for name, args in picks]
    return op.AssistantMessage(content=content)


@fuzz_settings(short_examples=150)
@given(script=rounds, last=texts)
@example(script=[("\ud83d", [("echo", {"text": "x\ud83dy"})])], last="done \udcff").via("lone surrogates")
@example(script=[("", [("add", {"a": None, "b": {PLANTED: None}})])], last="").via("a key as an argument's key")
def test_any_model_rounds_and_tool_behaviour_keep_the_run_sound(script, last):
    counted("run")
    model = op.ScriptedModel([*(_reply(text, picks) for text, picks in script), last or "done"])
    run = op.Runtime(model=model, registry=registry, max_iterations=10).run("go")
    check_run(run)
