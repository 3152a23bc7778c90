"""The live view masks every known secret too: the record's are masked already, and the
view catches what the record keeps as given — the prompt, and arguments copied from it
(docs/faults.md, "Secrets")."""

from __future__ import annotations

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._view import RunView
from openprogram_jupyter.render import _format as fmt

TOKEN = "local-server-token-0c4e9b12"  # made up


def test_the_live_view_shows_no_secret_from_the_prompt_or_the_arguments(recorder, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", TOKEN)

    @op.function(register_globally=False)
    def login(token: str) -> str:
        """Log in."""
        return "ok"

    model = op.ScriptedModel([op.ToolCall(name="login", arguments={"token": TOKEN}), "Logged in."])
    view = RunView()
    op.Runtime(model=model).run(f"Log in with {TOKEN}.", tools=[login], on_event=view.feed)
    view.tick(force=True)

    sent = [m.data["state"]["value"] for m in recorder.updates() if "value" in m.data["state"]]
    assert sent and all(TOKEN not in value and TOKEN[4:20] not in value for value in sent)
    assert any("Log in with ***." in value for value in sent)


def test_a_cut_never_leaves_part_of_a_secret(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", TOKEN)
    text = "x" * 10 + TOKEN
    assert fmt.shorten(text, 20) == "x" * 10 + "***"
    assert fmt.truncate(text, 15)[0] == "x" * 10 + "***"
