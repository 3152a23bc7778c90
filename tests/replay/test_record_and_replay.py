"""Recording a run to a cassette and replaying it with no network."""

from __future__ import annotations

import json

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.models.providers import SECRET_ENV_VARS
from openprogram_jupyter.models.replay import RecordingModel, ReplayModel

from .conftest import transcript


def make_add(calls: list | None = None) -> op.Tool:
    def add(a: int, b: int) -> int:
        """Add two integers."""
        if calls is not None:
            calls.append((a, b))
        return a + b

    return op.function(add, register_globally=False)


SCRIPT = [
    op.AssistantMessage(
        content=[
            op.ThinkingContent(thinking="Use the tool."),
            op.ToolCall(name="add", arguments={"a": 2, "b": 3}, id="call_a"),
        ],
        usage=op.Usage(input=10, output=4, total_tokens=14),
    ),
    [
        op.ToolCall(name="add", arguments={"a": 5, "b": 5}, id="call_b"),
        op.ToolCall(name="add", arguments={"a": "x", "b": 1}, id="call_c"),
    ],
    "2 + 3 = 5, and 5 + 5 = 10.",
]


def record(path, prompt="What is 2 + 3, then + 5?", script=SCRIPT, tools=None, **runtime_options) -> op.Run:
    rt = op.Runtime(model=op.ScriptedModel(list(script)), record=path, **runtime_options)
    return rt.run(prompt, tools=tools if tools is not None else [make_add()])


def replay(path, prompt="What is 2 + 3, then + 5?", tools=None) -> op.Run:
    return op.Runtime(model=f"replay:{path}").run(prompt, tools=tools if tools is not None else [make_add()])


# -- recording -----------------------------------------------------------------------------


def test_recording_saves_each_round_reply_with_the_request_tool_names_and_last_user_text(tmp_path):
    path = tmp_path / "run.json"
    run = record(path)
    cassette = json.loads(path.read_text())
    assert cassette["cassette"] == "openprogram-jupyter" and cassette["version"] == 1
    assert cassette["model"] == "scripted"
    assert [r["round"] for r in cassette["rounds"]] == [1, 2, 3]
    assert all(
        r["request"] == {"tools": ["add"], "last_user_text": "What is 2 + 3, then + 5?"} for r in cassette["rounds"]
    )
    replies = [m for m in run.messages if isinstance(m, op.AssistantMessage)]
    assert [r["reply"] for r in cassette["rounds"]] == [m.model_dump(mode="json") for m in replies]


def test_cassette_is_indented_readable_json(tmp_path):
    path = tmp_path / "run.json"
    record(path)
    text = path.read_text()
    assert text.startswith('{\n  "cassette": "openprogram-jupyter",')
    assert '"text": "2 + 3 = 5, and 5 + 5 = 10."' in text


def test_cassette_is_written_after_every_round(tmp_path):
    path = tmp_path / "run.json"
    seen = []

    def second_round(request):
        seen.append(len(json.loads(path.read_text())["rounds"]))
        return "done"

    record(path, script=[op.ToolCall(name="add", arguments={"a": 1, "b": 1}), second_round])
    assert seen == [1]


def test_recording_starts_a_fresh_cassette(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("old content")
    record(path, script=["hello"])
    assert len(json.loads(path.read_text())["rounds"]) == 1


def test_recording_model_is_invisible_to_the_run(tmp_path):
    plain = op.Runtime(model=op.ScriptedModel(list(SCRIPT))).run("What is 2 + 3, then + 5?", tools=[make_add()])
    recorded = record(tmp_path / "run.json")
    assert transcript(recorded) == transcript(plain)
    assert recorded.model == plain.model == "scripted"


def test_runtime_record_wraps_the_model(tmp_path):
    rt = op.Runtime(model=op.ScriptedModel(["hi"]), record=tmp_path / "x.json")
    assert isinstance(rt.model, RecordingModel) and rt.model.inner.name == "scripted"
    rt.exec("Say hi.", tools=[])
    [recorded] = json.loads((tmp_path / "x.json").read_text())["rounds"]
    assert recorded["reply"]["content"][0]["text"] == "hi"


# -- secrets ------------------------------------------------------------------------------


def test_the_runtime_api_key_is_never_written(tmp_path):
    from fakeserver import FakeServer, Turn

    key = "my-private-key-8c1f2e"
    path = tmp_path / "run.json"
    with FakeServer() as server:
        server.script(Turn(text=f"The key is {key}."))
        rt = op.Runtime(model="openai:gpt-4.1-mini", base_url=server.openai_base_url, api_key=key, record=path)
        rt.run(f"Use {key} please", tools=[make_add()])
    text = path.read_text()
    assert key not in text
    assert "The key is ***." in text and "Use *** please" in text


def test_a_model_object_refuses_the_runtimes_api_key_and_base_url():
    with pytest.raises(op.SetupError, match=r"^api_key and base_url configure a model string; the ScriptedModel "):
        op.Runtime(model=op.ScriptedModel(["hi"]), api_key="k", base_url="http://127.0.0.1:9/v1")


@pytest.mark.parametrize("variable", SECRET_ENV_VARS)
def test_provider_key_variables_are_never_written(variable, tmp_path, monkeypatch):
    value = f"value-of-{variable.lower()}-xyz"
    monkeypatch.setenv(variable, value)
    path = tmp_path / "run.json"
    record(path, script=[f"echo {value}"])
    assert value not in path.read_text()


@pytest.mark.parametrize(
    "secret",
    [
        "Authorization: Bearer abc.def.ghi",
        "authorization: Basic dXNlcjpwYXNz",
        "x-api-key: 0123456789abcdef",
        "x-goog-api-key=AIzaSyA-1234567890abcdef",
        "api_key=deadbeefcafe",
        "sk-proj-abcdefghijklmnop",
    ],
    ids=["bearer", "basic", "x-api-key", "goog", "api_key", "openai-shaped"],
)
def test_anything_shaped_like_a_key_or_auth_header_is_masked(secret, tmp_path):
    path = tmp_path / "run.json"
    record(path, script=[f"Headers were: {secret}"])
    text = path.read_text()
    masked = secret.split(":", 1)[-1].split("=", 1)[-1].strip().split()[-1]
    assert masked not in text
    assert "***" in text


# -- replaying -----------------------------------------------------------------------------


def test_replay_gives_the_same_transcript(tmp_path):
    path = tmp_path / "run.json"
    original = record(path)
    replayed = replay(path)
    assert replayed.stop_reason == "stop"
    assert transcript(replayed) == transcript(original)
    assert replayed.usage.input == original.usage.input == 10


def test_replay_runs_the_real_tools_again(tmp_path):
    path = tmp_path / "run.json"
    record(path)
    calls = []
    replay(path, tools=[make_add(calls)])
    assert calls == [(2, 3), (5, 5)]  # the third call fails validation, as when recorded


def test_replayed_round_streams_the_same_kinds_of_updates(tmp_path):
    path = tmp_path / "run.json"
    original = record(path)
    replayed = replay(path)

    def kinds(run):
        return [e.update.kind for e in run.events if e.type == "message_update"]

    assert kinds(replayed) == kinds(original)
    assert "toolcall_delta" in kinds(replayed) and "text_delta" in kinds(replayed)


def test_replay_is_named_for_its_cassette_and_remembers_the_recorded_model(tmp_path):
    path = tmp_path / "run.json"
    record(path)
    model = ReplayModel(str(path))
    assert model.name == f"replay:{path}"
    assert model.recorded_model == "scripted"
    assert model.remaining == 3


def test_error_round_replays_as_the_same_error(tmp_path):
    path = tmp_path / "run.json"
    failure = op.AssistantMessage(
        content=[op.TextContent(text="partial")], stop_reason="error", error_message="HTTP 529 overloaded"
    )
    record(path, script=[failure])
    run = replay(path)
    assert run.stop_reason == "error" and str(run.error) == "HTTP 529 overloaded"


def test_a_decision_with_a_reask_records_and_replays_to_the_same_result(tmp_path):
    path = tmp_path / "run.json"
    script = ['{"call": "maybe"}', 'Sorry: {"call": "rate", "args": {"stars": 4}}']
    options = {"rate": ("Rate it.", {"stars": int}), "skip": None}
    recorded = op.Runtime(model=op.ScriptedModel(script), record=path).exec("Rate it", choices=options, tools=[])
    replayed = op.Runtime(model=f"replay:{path}").exec("Rate it", choices=options, tools=[])
    assert replayed == recorded == {"decision": "rate", "stars": 4}


def test_nested_runs_record_and_replay_in_order(tmp_path):
    path = tmp_path / "run.json"

    def helper_tool():
        @op.agentic_function(register_globally=False)
        def helper(topic: str, runtime=None) -> str:
            """Ask a helper."""
            return runtime.exec(f"Say something about {topic}", tools=[])

        return helper

    script = [op.ToolCall(name="helper", arguments={"topic": "owls"}), "Owls hoot.", "The helper says: Owls hoot."]
    original = op.Runtime(model=op.ScriptedModel(script), record=path).run("Ask the helper", tools=[helper_tool()])
    replayed = op.Runtime(model=f"replay:{path}").run("Ask the helper", tools=[helper_tool()])
    assert replayed.text == original.text == "The helper says: Owls hoot."
    assert [r["request"]["last_user_text"] for r in json.loads(path.read_text())["rounds"]] == [
        "Ask the helper",
        "Say something about owls",
        "Ask the helper",
    ]


# -- a real client against the loopback server ---------------------------------------------


def test_run_recorded_through_the_openai_client_replays_with_the_server_gone(tmp_path):
    from fakeserver import Call, FakeServer, Turn

    path = tmp_path / "run.json"
    key = "sk-test-recording-0123456789"
    with FakeServer() as server:
        server.script(Turn(text="Adding.", calls=[Call("add", {"a": 2, "b": 3}, id="call_1")]), Turn(text="2 + 3 = 5."))
        rt = op.Runtime(model="openai:gpt-4.1-mini", base_url=server.openai_base_url, api_key=key, record=path)
        original = rt.run("What is 2 + 3?", tools=[make_add()])
        assert len(server.requests) == 2
    replayed = replay(path, prompt="What is 2 + 3?")
    assert original.stop_reason == replayed.stop_reason == "stop"
    assert transcript(replayed) == transcript(original)
    assert json.loads(path.read_text())["model"] == "openai:gpt-4.1-mini"
    assert key not in path.read_text()


def _nested(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels):
        value = {"x": value}
    return value


def test_arguments_nested_past_what_can_be_serialised_are_cut_when_saved_and_the_run_is_saved(tmp_path):
    """300 levels: pydantic refused to serialise the reply, so neither the notebook's saved
    run nor the cassette was written, and the cell stayed 'in progress'."""
    from openprogram_jupyter.jupyter._saved_runs import saved_run_metadata

    @op.function
    def take(data: dict) -> str:
        """Take."""
        return "ok"

    path = tmp_path / "deep.json"
    run = op.Runtime(
        model=op.ScriptedModel([op.ToolCall(name="take", arguments={"data": _nested(300)}), "done"]), record=path
    ).run("go", tools=[take])
    assert run.stop_reason == "stop"
    saved = json.dumps(saved_run_metadata(run, None, 0))
    assert "nested deeper than 64 levels: cut when saved" in saved
    cassette = json.loads(path.read_text())
    assert len(cassette["rounds"]) == 2
    assert "nested deeper than 64 levels: cut when saved" in json.dumps(cassette["rounds"][0]["reply"])
    shallow = op.Runtime(
        model=op.ScriptedModel([op.ToolCall(name="take", arguments={"data": _nested(40)}), "done"])
    ).run("go", tools=[take])
    assert "cut when saved" not in json.dumps(saved_run_metadata(shallow, None, 0))  # only what cannot be saved
