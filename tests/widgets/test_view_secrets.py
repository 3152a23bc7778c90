"""The live view masks every known secret too: the record's are masked already, and the
view catches what the record keeps as given — the prompt, and arguments copied from it
(docs/faults.md, "Secrets")."""

from __future__ import annotations

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._view import RunView

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

