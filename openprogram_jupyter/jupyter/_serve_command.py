"""``%agent serve``: start a server of notebook tools, list the servers, stop one.

- ``%agent serve --tools search,fetch [--port N] [--name NAME]`` starts one
  (:func:`._serve.serve`), prints the URL, the token and each client's configuration once,
  and shows a card that follows every call a client makes (tool, arguments, how it ended,
  time, the start of the result) — updated in place from the server's thread — and, under
  it where widgets can show, Approve / Deny (and Always allow / Always deny) for each call
  the approval policy asks about, and each question a served tool asks (:mod:`._serve_card`);
- ``%agent serve`` lists the running servers and their call counts;
- ``%agent serve stop [NAME]`` stops one (no NAME: every one).
"""

from __future__ import annotations

import shlex
from html import escape
from typing import Any

from IPython.core.error import UsageError

from ..core.approval_policy import SessionRules
from ..render._safe import display_bundle
from ..render._table import html_table
from ._serve import ServedTools, serve, served, stop_serving
from ._serve_card import show_card

__all__ = ["serve_command"]

_USAGE = "%agent serve --tools NAME[,NAME…] [--port N] [--name NAME] | %agent serve | %agent serve stop [NAME]"


def serve_command(rest: str, *, widgets: bool = False, session_rules: SessionRules | None = None) -> None:
    """Run ``%agent serve …`` (the text after ``serve``); bad input raises ``UsageError``.
    ``widgets``: the kernel has a widget frontend, so the card can ask Approve / Deny;
    ``session_rules``: where its "Always" buttons add rules (the notebook's)."""
    try:
        words = shlex.split(rest)
    except ValueError as error:
        raise UsageError(f"%agent serve: {error}; usage: {_USAGE}") from None
    if not words:
        display_bundle(_servers_bundle())
        return
    if words[0] == "stop":
        if len(words) > 2:
            raise UsageError(f"%agent serve stop takes at most one NAME; usage: {_USAGE}")
        try:
            names = stop_serving(words[1] if len(words) == 2 else None)
        except KeyError as error:
            raise UsageError(f"%agent serve stop: {error.args[0]}") from None
        print(f"stopped: {', '.join(names)}" if names else "no server was running")
        return
    options = _options(words)
    try:
        server = serve(options["tools"], port=options.get("port"), name=options.get("name"))
    except ValueError as error:
        raise UsageError(f"%agent serve: {error}") from None
    print(_introduction(server))
    show_card(server, widgets=widgets, session_rules=session_rules)


def _options(words: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    position = 0
    while position < len(words):
        flag = words[position]
        if flag not in ("--tools", "--port", "--name") or position + 1 >= len(words):
            raise UsageError(f"%agent serve: unexpected {flag!r}; usage: {_USAGE}")
        value = words[position + 1]
        if flag == "--port":
            if not value.isdigit():
                raise UsageError(f"%agent serve: --port takes a number, got {value!r}")
            options["port"] = int(value)
        else:
            options[flag[2:]] = value
        position += 2
    if "tools" not in options:
        raise UsageError(f"%agent serve: name the tools to serve with --tools; usage: {_USAGE}")
    return options


def _introduction(server: ServedTools) -> str:
    """The URL, the token (shown this once) and each client's configuration, as plain text."""
    lines = [
        f"Serving {', '.join(server.tool_names)} over MCP (streamable HTTP) at {server.url}",
        f"Bearer token (shown once; every request needs it): {server.token}",
        "",
    ]
    for client, snippet in server.client_config().items():
        lines += [f"{client}:", *("    " + line for line in snippet.split("\n")), ""]
    lines.append(f"Stop it with: %agent serve stop {server.name}")
    return "\n".join(lines)


def _servers_bundle() -> dict[str, str]:
    running = served()
    if not running:
        text = "No MCP server is running. Start one with %agent serve --tools NAME[,NAME…]"
        return {"text/plain": text, "text/html": f"<p>{escape(text)}</p>"}
    lines = [f"{s.name}: {s.url}, {len(s.calls)} call(s), tools {', '.join(s.tool_names)}" for s in running]
    rows = [[escape(s.name), escape(s.url), str(len(s.calls)), escape(", ".join(s.tool_names))] for s in running]
    return {
        "text/plain": "\n".join(lines),
        "text/html": html_table(["server", "url", "calls", "tools"], rows),
    }
