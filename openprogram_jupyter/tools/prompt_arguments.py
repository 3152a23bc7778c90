"""Arguments read from a prompt, for the offline model: "What is 2 + 3?" gives add(a=2, b=3).

No language model runs here. The prompt is split into values a reader would take for
arguments — numbers, quoted strings, the words ``true`` / ``false``, and words that are
the enum values of some parameter — and each tool's parameters, in their order, take the
first unused value that fits their schema's type. A value is used once across all the
tools of a round. A parameter no value fits gets an example value (:mod:`.examples`).

A tool with one number parameter takes the end of a range the prompt states, when it states
one ("the squares of 0 to 5", "up to 5", "1 through 10"): such a parameter is a count or a
limit far more often than a start ("0 to 5" gave ``plot_squares(n=0)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core._json import JsonObject
from .examples import example_value

__all__ = ["PromptValues", "arguments_from_prompt"]

_QUOTED = re.compile(r'"([^"\n]*)"|“([^”\n]*)”|\'([^\'\n]+)\'(?!\w)')
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*\w)")
_WORD = re.compile(r"[A-Za-z_][\w-]*")
_RANGE_END = re.compile(r"(?:\bup\s+to|\bthrough|\bto|\buntil|–)\s*(-?\d+(?:\.\d+)?)(?![\w.]*\w)", re.IGNORECASE)


@dataclass
class PromptValues:
    """The values found in one prompt, in order, and which of them are used up."""

    numbers: list[int | float] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    range_ends: list[int | float] = field(default_factory=list)  # "0 to 5", "up to 5": the 5

    @classmethod
    def read(cls, text: str) -> PromptValues:
        strings = [next(g for g in match.groups() if g is not None) for match in _QUOTED.finditer(text)]
        rest = _QUOTED.sub(" ", text)
        numbers = [float(n) if "." in n else int(n) for n in _NUMBER.findall(rest)]
        ends = [float(n) if "." in n else int(n) for n in _RANGE_END.findall(rest)]
        return cls(numbers, strings, _WORD.findall(rest), [end for end in ends if end in numbers])

    def take_number(self, integer: bool, *, range_end_first: bool = False) -> int | float | None:
        """The first unused number (a whole one for ``integer``); with ``range_end_first``,
        the end of a range the prompt states, if there is one that fits."""
        preferred = [n for n in self.range_ends if not integer or float(n).is_integer()] if range_end_first else []
        candidates = [self.numbers.index(preferred[0])] if preferred else range(len(self.numbers))
        for index in candidates:
            number = self.numbers[index]
            if not integer or float(number).is_integer():
                del self.numbers[index]
                if number in self.range_ends:
                    self.range_ends.remove(number)
                return int(number) if integer else number
        return None

    def take_word(self, choices: list[Any]) -> Any:
        by_text = {str(choice).lower(): choice for choice in choices}
        for index, word in enumerate(self.words):
            if word.lower() in by_text:
                del self.words[index]
                return by_text[word.lower()]
        return None

    def take_string(self) -> str | None:
        return self.strings.pop(0) if self.strings else None


def arguments_from_prompt(schema: JsonObject, values: PromptValues) -> JsonObject:
    """Arguments for an object ``schema``: each property, in order, takes the first unused
    value of ``values`` that fits it; a required property nothing fits gets an example
    value, an optional one is left out."""
    definitions = schema.get("$defs", {})
    required = set(schema.get("required", []))
    properties = {name: _resolved(sub, definitions) for name, sub in (schema.get("properties") or {}).items()}
    lone_number = sum(sub.get("type") in ("integer", "number") for sub in properties.values()) == 1
    arguments: JsonObject = {}
    for name, subschema in (schema.get("properties") or {}).items():
        value = _fitting(properties[name], values, range_end_first=lone_number)
        if value is not None:
            arguments[name] = value
        elif name in required:
            arguments[name] = example_value(subschema, definitions)
    return arguments


def _resolved(schema: JsonObject, definitions: JsonObject) -> JsonObject:
    if "$ref" in schema:
        return definitions.get(schema["$ref"].split("/")[-1], {})
    options = [o for o in schema.get("anyOf", []) if o.get("type") != "null"]
    return _resolved(options[0], definitions) if len(options) == 1 else schema


def _fitting(schema: JsonObject, values: PromptValues, *, range_end_first: bool = False) -> Any:
    if "enum" in schema:
        return values.take_word(schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        return values.take_number(integer=True, range_end_first=range_end_first)
    if kind == "number":
        return values.take_number(integer=False, range_end_first=range_end_first)
    if kind == "boolean":
        word = values.take_word(["true", "false"])
        return None if word is None else word == "true"
    if kind == "string":
        return values.take_string()
    return None
