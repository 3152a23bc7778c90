"""``%agent tools --lint``, in one process (no kernel): each tool on the menu in every
strict mode's form, what had to change to fit it, what strict mode cannot express and what
a provider would refuse; the expected text is written out by hand."""

from __future__ import annotations

from typing import Literal

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.menu import as_tool
from openprogram_jupyter.tools.registry import default_registry


@pytest.fixture(autouse=True)
def _fresh_registry(clean_registry):
    yield


def test_lint_shows_the_strict_forms_what_changed_and_what_strict_mode_cannot_express(shell, capsys):
    @op.function(strict=True)
    def weather(city: str, unit: Literal["c", "f"] = "c") -> str:
        """The weather in a city."""
        return city

    @op.function(defer=True)
    def tally(counts: dict[str, int]) -> int:
        """Sum the counts."""
        return sum(counts.values())

    @op.function(expose=False)
    def hidden(x: int) -> int:
        """Never on the menu."""
        return x

    shell.run_line_magic("agent", "tools --lint")
    out = capsys.readouterr().out
    assert "hidden" not in out, "only the tools on the menu are linted"
    weather_part, tally_part = out.split("\n\n")  # on the menu first, then the deferred
    assert tally_part.strip("\n") == "\n".join(
        [
            "tally: not strict; strict=True (or strict_tools=True) would send",
            "  OpenAI's strict form (Chat Completions, Responses): cannot be strict, sent without it — "
            "counts: an object with free-form keys (additionalProperties)",
            "  closed strict form (Anthropic, Bedrock): cannot be strict, sent without it — "
            "counts: an object with free-form keys (additionalProperties)",
            "  Gemini: no strict mode (strict is not sent; a notice says so)",
            "  no provider would refuse it",
        ]
    )
    assert weather_part.startswith("weather: strict=True\n  OpenAI's strict form (Chat Completions, Responses):\n")
    assert (
        "    changed: unit: optional, made required and nullable (null means not given); "
        "its default 'c' dropped (the tool's own applies)\n"
    ) in weather_part
    assert '"required": [\n        "city",\n        "unit"\n      ],' in weather_part
    closed = weather_part.split("  closed strict form (Anthropic, Bedrock):\n")[1]
    assert closed.startswith('    {\n      "additionalProperties": false,')
    assert "    changed: nothing but every object closed (additionalProperties: false)\n" in closed


def test_lint_names_the_keywords_strict_mode_leaves_out_and_what_a_provider_refuses(shell, capsys):
    default_registry.register(
        as_tool(
            {
                "spec": {
                    "name": "code.check",
                    "description": "Check a code.",
                    "parameters": {
                        "type": "object",
                        "properties": {"code": {"type": "string", "minLength": 3}},
                        "required": ["code"],
                    },
                },
                "execute": lambda code: code,
            }
        )
    )
    shell.run_line_magic("agent", "tools --lint")
    out = capsys.readouterr().out
    assert out.count("    cannot express: code: minLength (left out; still checked before the tool runs)\n") == 2
    assert "  a provider would refuse: openai: the tool name 'code.check' is refused" in out


def test_lint_with_no_tool_on_the_menu_says_so(shell, capsys):
    shell.run_line_magic("agent", "tools --lint")
    assert capsys.readouterr().out.strip() == "No tool is on the menu. Define one with @op.function in a cell."
