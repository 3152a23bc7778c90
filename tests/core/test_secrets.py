"""Secrets are masked by value wherever outside text enters a run's record, and in every
view of it (docs/faults.md, "Secrets"). The provider side (a 401 that echoes the key) is in
tests/providers/test_provider_secrets.py, the kernel side in tests/notebook/test_kernel_secrets.py."""

from __future__ import annotations

import json

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core._masking import ReplyMask
from openprogram_jupyter.core._secrets import MASK, Secrets, StreamMask, mask, mask_shapes, remember, watched_variables
from openprogram_jupyter.models.providers import SECRET_ENV_VARS
from openprogram_jupyter.render import render_bundle

from .conftest import call, results

# Made up for these tests; shaped like no pattern the masker knows (only their values can mask them).
GROQ_SHAPED = "gsk_live4Q9zXbT2mW7pLr8sVn3yHc6JdE"
LOCAL_TOKEN = "local-server-token-7f3a9c21"


def every_place(run: op.Run) -> list[str]:
    """Everything a run keeps or shows, as text."""
    places = [str(run.error or ""), repr(run), run._repr_html_(), run._repr_markdown_(), str(vars(run))]
    places += [e.model_dump_json() for e in run.events]
    places += [json.dumps(m.model_dump(mode="json")) for m in run.messages]
    places += list(render_bundle(run).values())
    return places


def assert_nowhere(secret: str, run: op.Run) -> None:
    for place in every_place(run):
        assert secret not in place
        assert secret[4:20] not in place, "not even a fragment of it"


def leaky_tool(secret: str) -> op.Tool:
    @op.function(register_globally=False)
    def connect(host: str) -> str:
        """Connect to a host."""
        raise PermissionError(f"{host} refused the token {secret}")

    return connect


# -- through the API ----------------------------------------------------------------------------


@pytest.mark.parametrize("variable", ["OPENAI_API_KEY", "GOOGLE_API_KEY", "AWS_SESSION_TOKEN"])
def test_a_tool_error_quoting_a_key_variable_is_masked_for_the_model_and_everywhere(variable, monkeypatch):
    monkeypatch.setenv(variable, GROQ_SHAPED)
    model = op.ScriptedModel([call("connect", host="db"), "It was refused."])
    run = op.Runtime(model=model).run("Connect.", tools=[leaky_tool(GROQ_SHAPED)])

    assert run.stop_reason == "stop"
    (result,) = results(run)
    assert result.content[0].text == f"Error: connect raised PermissionError: db refused the token {MASK}"
    assert f"PermissionError: db refused the token {MASK}" in result.details["traceback"]
    sent = model.requests[1].messages[-1]  # what the model read in the next round
    assert GROQ_SHAPED not in json.dumps(sent.model_dump(mode="json")) and MASK in sent.content[0].text
    assert_nowhere(GROQ_SHAPED, run)


def test_the_runtimes_own_api_key_is_masked_in_a_tool_error():
    # The offline model calls the one tool on its menu (with example arguments), then answers.
    runtime = op.Runtime(model="offline", api_key=LOCAL_TOKEN)
    run = runtime.run("Connect.", tools=[leaky_tool(LOCAL_TOKEN)])
    assert f"the token {MASK}" in results(run)[0].content[0].text
    assert_nowhere(LOCAL_TOKEN, run)


def test_a_reply_a_result_and_progress_quoting_a_key_are_masked(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", LOCAL_TOKEN)

    @op.function(register_globally=False)
    def settings(context: op.ToolContext) -> dict:
        """Read the settings."""
        context.report({"step": f"read token {LOCAL_TOKEN}"})
        return {"token": LOCAL_TOKEN, "region": "eu"}

    model = op.ScriptedModel([call("settings"), f"The token is {LOCAL_TOKEN}."])
    run = op.Runtime(model=model).run("Show the settings.", tools=[settings])

    assert run.text == f"The token is {MASK}."
    assert json.loads(results(run)[0].content[0].text) == {"token": MASK, "region": "eu"}
    progress = [e.data for e in run.events if e.type == "tool_execution_update" and e.status == "progress"]
    assert progress == [{"step": f"read token {MASK}"}]
    assert_nowhere(LOCAL_TOKEN, run)


def test_a_key_set_after_the_runtime_was_made_is_known_at_run_time(monkeypatch):
    runtime = op.Runtime(model=op.ScriptedModel([call("connect", host="db"), "done"]))
    monkeypatch.setenv("GEMINI_API_KEY", GROQ_SHAPED)
    assert_nowhere(GROQ_SHAPED, runtime.run("Connect.", tools=[leaky_tool(GROQ_SHAPED)]))


def test_the_run_error_and_runerror_hold_no_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", GROQ_SHAPED)
    failing = op.AssistantMessage(stop_reason="error", error_message=f"401: bad key {GROQ_SHAPED}")
    runtime = op.Runtime(model=op.ScriptedModel([failing]))
    with pytest.raises(op.RunError) as raised:
        runtime.exec("Hi.")
    assert GROQ_SHAPED not in str(raised.value) and f"bad key {MASK}" in str(raised.value)
    assert_nowhere(GROQ_SHAPED, raised.value.run)


def test_placeholder_values_are_not_secrets(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")  # what local servers are given
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ollama")
    run = op.Runtime(model=op.ScriptedModel(["EMPTY results from ollama."])).run("Hi.")
    assert run.text == "EMPTY results from ollama."


def test_a_hand_built_run_is_masked_in_its_views(monkeypatch):
    # The record of a real run holds no secret; a Run built by hand gets the second line.
    monkeypatch.setenv("OPENAI_API_KEY", GROQ_SHAPED)
    run = op.Run("run_1", "scripted", [])
    run.messages = [
        op.UserMessage(content=f"use {GROQ_SHAPED}"),
        op.AssistantMessage(content=[op.TextContent(text=f"ok {GROQ_SHAPED}")]),
    ]
    run.stop_reason = "stop"
    for view in [repr(run), run._repr_html_(), run._repr_markdown_(), *render_bundle(run).values()]:
        assert GROQ_SHAPED not in view and MASK in view


# -- the masker ---------------------------------------------------------------------------------


def test_every_registry_variable_is_watched():
    assert set(SECRET_ENV_VARS) <= set(watched_variables())
    assert "AWS_SECURITY_TOKEN" in SECRET_ENV_VARS


def test_a_value_is_masked_in_every_form_quoting_gives_it():
    secret = 'tok&en"with<odd>chars\\1'
    secrets = Secrets([secret])
    quoted = [secret, json.dumps(secret)[1:-1], repr(secret)[1:-1], "tok&amp;en&quot;with&lt;odd&gt;chars\\1"]
    for form in quoted:
        assert secrets.mask(f"[{form}]") == f"[{MASK}]", form
    assert "tok" not in repr(secrets) and "form(s) known" in repr(secrets)


def test_a_longer_secret_is_masked_whole_when_a_shorter_one_is_inside_it():
    assert Secrets(["abcdefgh", "abcdefgh-and-more"]).mask("x abcdefgh-and-more y") == f"x {MASK} y"


def test_remembered_values_are_masked_and_short_ones_ignored():
    remember("remembered-value-31337", "short", None)
    assert mask("a remembered-value-31337 b short") == f"a {MASK} b short"


def test_shapes_mask_the_value_after_api_key_not_the_words_after_it():
    hint = "no API key: set ANTHROPIC_API_KEY or pass api_key= (the SDK said: no config)"
    assert mask_shapes(hint) == hint
    assert mask_shapes("api_key=deadbeefcafe&x=1") == "api_key=***&x=1"
    assert mask_shapes("x-api-key: abc123def") == "x-api-key: ***"
    assert mask_shapes("Authorization: Bearer abc.def.ghi") == "Authorization: Bearer ***"


def test_a_stream_never_shows_part_of_a_secret_split_across_pieces():
    secrets = Secrets([GROQ_SHAPED])
    text = f"Your key is {GROQ_SHAPED}, keep it."
    for size in (1, 3, 5, 7, 40):
        stream = StreamMask(secrets)
        shown = [stream.feed(0, text[i : i + size]) for i in range(0, len(text), size)]
        shown += stream.flush().values()
        assert "".join(shown) == f"Your key is {MASK}, keep it.", size
        assert all("gsk" not in piece for piece in shown)


def test_a_stream_that_only_looked_like_a_secret_is_shown_whole():
    stream = StreamMask(Secrets([GROQ_SHAPED]))
    shown = stream.feed(0, "a gsk_li") + stream.feed(0, "ne of text")
    assert shown == "a gsk_line of text" and stream.flush() == {}


def test_a_signed_thinking_block_that_held_a_secret_loses_its_signature():
    reply = op.AssistantMessage(
        content=[
            op.ThinkingContent(thinking=f"the key is {LOCAL_TOKEN}", signature="sig"),
            op.ThinkingContent(thinking="nothing here", signature="sig2"),
        ]
    )
    ReplyMask(Secrets([LOCAL_TOKEN])).finish(reply)
    assert [(b.thinking, b.signature) for b in reply.content] == [
        (f"the key is {MASK}", None),
        ("nothing here", "sig2"),
    ]


def test_a_key_replaced_with_agent_key_stays_masked(monkeypatch):
    from openprogram_jupyter.core._key_sources import set_key
    from openprogram_jupyter.core._secrets import mask
    from openprogram_jupyter.models import providers  # noqa: F401 (watches the key variables)

    first, second = "first-" + "a1" * 10, "second-" + "b2" * 10
    monkeypatch.setenv("OPENAI_API_KEY", first)
    assert mask(f"used {first}") == "used ***"
    set_key("OPENAI_API_KEY", second, "typed in with %agent key")
    assert mask(f"{first} {second}") == "*** ***"


# -- what mutmut found unpinned in core/_masking.py (docs/testing.md, "Mutation tool") --------

SHAPED = "sk-" + "A1b2C3d4E5f6G7h8J9k0L1m2N3p4Q5r6"  # shaped like an OpenAI key, known to no one


def text_deltas(run: op.Run) -> list[str]:
    return [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "text_delta"]


def test_a_streamed_reply_shows_the_known_key_masked_in_every_piece_and_whole(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", GROQ_SHAPED)
    model = op.ScriptedModel([f"the key is {GROQ_SHAPED} and that is all"])
    run = op.Runtime(model=model).run("go")
    deltas = text_deltas(run)
    assert "".join(deltas) == run.text == f"the key is {MASK} and that is all"
    assert all(GROQ_SHAPED not in d for d in deltas)


def test_a_failed_reply_s_summary_and_detail_are_masked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", GROQ_SHAPED)
    error = op.ReplyError(kind="auth", summary=f"bad key {GROQ_SHAPED}", detail=f"sent {SHAPED}")
    model = op.ScriptedModel([op.AssistantMessage(content=[], stop_reason="error", error_message="x", error=error)])
    run = op.Runtime(model=model).run("go")
    reply = run.messages[-1]
    assert (reply.error.summary, reply.error.detail) == (f"bad key {MASK}", f"sent {mask_shapes(SHAPED)}")
    assert SHAPED not in reply.error.detail


def test_a_successful_result_keeps_key_shaped_text_and_a_failed_one_masks_it():
    @op.function(register_globally=False)
    def show() -> dict:
        """Return a key-shaped sample."""
        return {"sample": SHAPED}

    @op.function(register_globally=False)
    def fail() -> str:
        """Fail with a key-shaped text."""
        raise ValueError(SHAPED)

    model = op.ScriptedModel([[call("show"), call("fail")], "ok"])
    shown, failed = results(op.Runtime(model=model).run("go", tools=[show, fail]))
    assert SHAPED in shown.text  # data, not a secret anyone gave
    assert SHAPED not in failed.text and SHAPED not in failed.details["traceback"]


# -- what mutmut found unpinned in core/_secrets.py ---------------------------------------------

KEY = "abcd1234efgh5678"


def test_a_key_cut_across_pieces_is_masked_in_the_piece_where_it_starts():
    secrets = Secrets([KEY])
    pieces = ["before ab", "cd1234ef", "gh5678 after", " and ", KEY, " end"]
    assert secrets.mask_pieces(pieces) == ["before ***", "", " after", " and ", "***", " end"]
    assert secrets.mask_pieces(["no key", " here"]) == ["no key", " here"]
    assert secrets.mask_pieces([f"x{KEY}"]) == ["x***"]
    assert Secrets([]).mask_pieces(["a", "b"]) == ["a", "b"]


def test_two_keys_back_to_back_show_one_mask_and_one_at_the_start_shows_it():
    secrets = Secrets([KEY, "zyxw9876vuts5432"])
    assert secrets.mask_pieces([KEY[:5], KEY[5:] + "zyxw9876", "vuts5432!"]) == ["***", "", "!"]
    assert secrets.mask_pieces(["a", KEY[:3], KEY[3:], "b"]) == ["a", "***", "", "b"]


def test_masking_data_masks_every_string_of_dicts_lists_and_tuples_keys_included():
    secrets = Secrets([KEY])
    data = {KEY: [KEY, (f"in {KEY}", 3)], "shaped": SHAPED, "n": 1}
    assert secrets.mask_data(data) == {MASK: [MASK, (f"in {MASK}", 3)], "shaped": mask_shapes(SHAPED), "n": 1}
    assert secrets.mask_data(data, shapes=False)["shaped"] == SHAPED
    assert secrets.mask_data([SHAPED])[0] != SHAPED and secrets.mask_data({"k": (SHAPED,)})["k"][0] != SHAPED
    assert type(secrets.mask_data((KEY,))) is tuple and secrets.mask("") == ""


def test_a_value_of_exactly_the_shortest_secret_length_is_remembered():
    from openprogram_jupyter.core import _secrets

    remember("eight8ch")
    try:
        assert Secrets.now().mask("x eight8ch y") == "x *** y"
    finally:
        _secrets._remembered.discard("eight8ch")  # remembered for the process: not for the next test


def test_a_provider_notice_is_masked_whole_known_values_and_key_shapes():
    from openprogram_jupyter.core.events import AssistantUpdate

    shown = ReplyMask(Secrets([KEY])).update(AssistantUpdate(kind="notice", delta=f"retrying with {KEY} ({SHAPED})"))
    assert (shown.kind, shown.delta) == ("notice", f"retrying with {MASK} ({mask_shapes(SHAPED)})")


def test_a_reply_mask_uses_the_secrets_it_is_given_and_leaves_argument_json_alone():
    from openprogram_jupyter.core.events import AssistantUpdate

    replies = ReplyMask(Secrets([KEY]))
    arguments = AssistantUpdate(kind="toolcall_delta", content_index=1, delta=f'{{"key": "{KEY}"}}')
    assert replies.update(arguments) is arguments  # a call's arguments reach the tool as written
    first = replies.update(AssistantUpdate(kind="text_delta", content_index=2, delta=f"key {KEY[:6]}"))
    assert first.delta == "key "  # the end could begin the key: held back
    [held] = replies.held_back()
    assert (held.kind, held.content_index, held.delta) == ("text_delta", 2, KEY[:6])
    message = op.AssistantMessage(content=[op.TextContent(text=f"it is {KEY}")])
    replies.finish(message)
    assert message.content[0].text == f"it is {MASK}"
