"""What ``%%agent`` and ``%agent`` display is marked so no ``$`` is typeset as math
(issue 43, item 2; the producers are enumerated in tests/render/test_math_inert.py)."""

from __future__ import annotations

import pytest
from render.test_math_inert import MARKER, budget_run, unescaped_dollars


@pytest.fixture
def shown(monkeypatch) -> list[dict]:
    bundles: list[dict] = []
    monkeypatch.setattr("IPython.display.display", lambda bundle, **kwargs: bundles.append(bundle))
    return bundles


def assert_marked(bundles: list[dict]) -> None:
    htmls = [b["text/html"] for b in bundles if "text/html" in b]
    assert htmls and all(h.startswith(MARKER) for h in htmls), [h[:80] for h in htmls]
    assert all(not unescaped_dollars(b["text/markdown"]) for b in bundles if "text/markdown" in b)


def test_a_budget_cell_its_show_and_the_line_commands_display_marked_views(shell, shown):
    import openprogram_jupyter as op

    shell.user_ns["priced"] = op.ScriptedModel(
        [
            op.AssistantMessage(
                content=[op.TextContent(text="It costs $3.")],
                usage=op.Usage(input=900, output=100, total_tokens=1000, cost=0.0816),
            )
        ],
        name="priced",
    )
    shell.run_cell_magic("agent", "-m priced --max-cost 0.05 -o r", "What does $5 buy?")
    shell.user_ns["priced_run"] = budget_run()
    shell.run_line_magic("agent", "show priced_run")
    shell.run_line_magic("agent", "key")
    shell.run_line_magic("agent", "tools")
    shell.run_line_magic("agent", "sessions")
    assert_marked(shown)
    assert any(r"\$0.0816" in b.get("text/markdown", "") for b in shown)
    assert len(shown) >= 4


@pytest.fixture(autouse=True)
def _forget_variables(shell):
    yield
    for name in ("priced", "priced_run"):
        shell.user_ns.pop(name, None)
