"""Deferred tools on a 200-tool menu: no search, the package's own ``tool_search``, and the
provider's own tool search (``tool_search="provider"``), compared on what each request
sends, the rounds a task takes and the tools picked.

Against the loopback fake server of ``tests/fakeserver`` with the real ``anthropic`` and
``openai`` SDKs (Anthropic Messages and OpenAI Responses, the two providers with a tool
search of their own). The server is a fake: its replies are scripted, so the model's
choices are fixed — it searches for "track a shipment" and calls ``shipment_track`` — and
what is measured is the request side: each request body as the server received it, its
size, the tool declarations in it, and which of them reach the model's context (a deferred
tool the provider's search has not loaded is sent but, per the providers' documentation,
not put in the model's context). Tokens are estimated at 4 characters each (the package's
own estimate, ``engine/_context.CHARS_PER_TOKEN``), not counted by a tokenizer.

    python bench/tool_search_menu.py            # prints the Markdown table of docs/tools.md
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeserver import Call, FakeServer, Search, Turn

import openprogram_jupyter as op

NOUNS = (
    "invoice customer order shipment refund ticket user report payment product warehouse supplier "
    "contract meeting calendar email document folder project task budget expense employee payroll "
    "campaign lead coupon review survey subscription device alert backup server database deployment "
    "incident metric dashboard vendor"
).split()
VERBS = ("create", "list", "update", "delete", "track")
TARGET = "shipment_track"
QUERY = "track a shipment"
CHARS_PER_TOKEN = 4


def menu(*, defer: bool) -> list[op.Tool]:
    """200 tools (40 things × 5 actions), each with a few typed parameters and a docstring."""
    tools = []
    for noun in NOUNS:
        for verb in VERBS:

            def body(id: str, note: str = "", limit: int = 10) -> str:
                return "done"

            body.__name__ = f"{noun}_{verb}"
            body.__doc__ = (
                f"{verb.capitalize()} a {noun} in the company's records.\n\n"
                f"Args:\n    id: The {noun}'s identifier.\n    note: A note kept with the change.\n"
                f"    limit: At most this many {noun}s in the answer."
            )
            tools.append(op.function(body, register_globally=False, defer=defer))
    return tools


def tokens(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False)) // CHARS_PER_TOKEN


def in_context(body: dict, loaded: set[str]) -> list[dict]:
    """The tool declarations of ``body`` that reach the model's context."""
    tools = body.get("tools") or []
    return [t for t in tools if not t.get("defer_loading") or t.get("name") in loaded]


async def one(provider: str, variant: str) -> dict:
    model = {"anthropic": "anthropic:claude-sonnet-4-5", "openai-responses": "openai-responses:gpt-4.1-mini"}[provider]
    call = Call(TARGET, {"id": "SH-1"})
    scripts = {
        "no search": [Turn(calls=[call]), Turn(text="On its way.")],
        "package's tool_search": [
            Turn(calls=[Call("tool_search", {"query": QUERY})]),
            Turn(calls=[call]),
            Turn(text="On its way."),
        ],
        "provider's tool search": [Turn(search=Search(QUERY, [TARGET]), calls=[call]), Turn(text="On its way.")],
    }
    with FakeServer() as server:
        server.script(*scripts[variant])
        base = server.url if provider == "anthropic" else server.openai_base_url
        runtime = op.Runtime(model=model, api_key="sk-bench-not-a-key", base_url=base, prompt_cache=False)
        run = await runtime.arun(
            "Where is shipment SH-1?",
            tools=menu(defer=variant != "no search"),
            tool_search="provider" if variant == "provider's tool search" else "local",
        )
        assert run.stop_reason == "stop", run.error
        loaded: set[str] = set()
        requests = []
        for recorded in server.requests:
            body = recorded.body
            context = in_context(body, loaded)
            requests.append(
                {
                    "bytes": len(json.dumps(body, ensure_ascii=False)),
                    "declared": len(body.get("tools") or []),
                    "in_context": len(context),
                    "context_tokens": tokens({k: v for k, v in body.items() if k != "tools"}) + tokens(context),
                }
            )
            loaded.add(TARGET)  # from the next request on, the search has loaded it (either search)
        return {"rounds": run.rounds, "requests": requests, "picks": _picks(run)}


def _picks(run: op.Run) -> list[str]:
    return [
        call.name for message in run.messages if isinstance(message, op.AssistantMessage) for call in message.tool_calls
    ]


async def main() -> None:
    print(
        "| provider | search | rounds | picks | tools declared per request | in the model's context | "
        "request bytes | tokens the model reads (est.) |"
    )
    print("|---|---|---:|---|---|---|---|---|")
    for provider in ("anthropic", "openai-responses"):
        for variant in ("no search", "package's tool_search", "provider's tool search"):
            found = await one(provider, variant)
            requests = found["requests"]

            def cells(key: str, requests: list[dict] = requests) -> str:
                return " / ".join(f"{r[key]:,}" for r in requests)

            print(
                f"| {provider} | {variant} | {found['rounds']} | {', '.join(found['picks'])} | {cells('declared')} | "
                f"{cells('in_context')} | {cells('bytes')} | {cells('context_tokens')} |"
            )


if __name__ == "__main__":
    asyncio.run(main())
