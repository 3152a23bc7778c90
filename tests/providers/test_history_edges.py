"""The history as every provider sends it (``models/_history``): pictures left out for a
model that takes none, and the stand-in specs of tools the history used but the menu no
longer has."""

from __future__ import annotations

from openprogram_jupyter.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram_jupyter.models._history import (
    IMAGE_LEFT_OUT,
    MISSING_RESULT_TEXT,
    AssistantTurn,
    json_arguments,
    paired_history,
    result_parts,
    result_text,
    safe_tool_id,
    stub_specs_for_history,
    without_images,
)

PICTURE = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
LEFT_OUT = TextContent(text=IMAGE_LEFT_OUT)


def test_without_images_a_users_picture_becomes_the_note_in_its_place_and_the_rest_stays():
    asked = UserMessage(content=[TextContent(text="What is this?"), PICTURE, TextContent(text="Be brief.")])
    plain = UserMessage(content="hello")
    result = ToolResultMessage(tool_call_id="c1", tool_name="plot", content=[PICTURE, TextContent(text="a plot")])
    texts = ToolResultMessage(tool_call_id="c2", tool_name="add", content=[TextContent(text="3")])
    reply = AssistantMessage(content=[TextContent(text="ok")])

    shown = without_images([asked, plain, result, texts, reply])

    assert shown[0].content == [TextContent(text="What is this?"), LEFT_OUT, TextContent(text="Be brief.")]
    assert shown[2].content == [LEFT_OUT, TextContent(text="a plot")]
    assert shown[1] is plain and shown[3] is texts and shown[4] is reply
    listed = UserMessage(content=[TextContent(text="hi")])
    assert without_images([listed])[0] is listed
    assert asked.content[1] == PICTURE and result.content[0] == PICTURE  # nothing changed in place


def test_a_tool_the_history_used_off_the_menu_gets_one_stand_in_spec_that_takes_any_object():
    menu = [{"name": "add", "description": "Add.", "parameters": {"type": "object"}}]
    history = [
        UserMessage(content="go"),
        AssistantMessage(content=[ToolCall(name="add", id="1"), ToolCall(name="search", id="2")]),
        AssistantMessage(content=[ToolCall(name="search", id="3")]),
    ]
    assert stub_specs_for_history(history, menu) == [
        *menu,
        {
            "name": "search",
            "description": "A tool used earlier in this conversation; not available now.",
            "parameters": {"type": "object", "properties": {}},
        },
    ]


def test_a_results_text_field_says_when_it_holds_only_a_picture_or_nothing():
    def text_of(*blocks: TextContent | ImageContent) -> str:
        return result_text(ToolResultMessage(tool_call_id="c", tool_name="t", content=list(blocks)))

    assert text_of(PICTURE) == "(see the attached image)"
    assert text_of() == text_of(TextContent(text="")) == "(no output)"
    assert text_of(TextContent(text="3")) == "3"


def test_streamed_arguments_are_read_only_when_they_are_a_json_object():
    assert json_arguments('{"a": 1, "b": [2]}') == {"a": 1, "b": [2]}
    assert json_arguments("{}") == {}
    for text in (None, "", "[1, 2]", '"a"', "3", '{"a": 1', "{'a': 1}"):
        assert json_arguments(text) is None, text


def test_a_result_of_only_a_picture_is_sent_with_the_note_first():
    parts = result_parts(ToolResultMessage(tool_call_id="c", tool_name="plot", content=[PICTURE]))
    assert parts == [TextContent(text="(see the attached image)"), PICTURE]


def test_a_call_answered_twice_is_sent_with_its_first_result_and_a_result_before_any_call_is_dropped():
    early = ToolResultMessage(tool_call_id="1", tool_name="add", content=[TextContent(text="stray")])
    first = ToolResultMessage(tool_call_id="1", tool_name="add", content=[TextContent(text="first")])
    again = ToolResultMessage(tool_call_id="1", tool_name="add", content=[TextContent(text="again")])
    history = [early, UserMessage(content="go"), AssistantMessage(content=[ToolCall(name="add", id="1")]), first, again]
    [_, turn] = paired_history(history)
    assert isinstance(turn, AssistantTurn) and [r.text for r in turn.results] == ["first"]
    stray_first = [UserMessage(content="go"), early, AssistantMessage(content=[ToolCall(name="add", id="1")])]
    [_, turn] = paired_history(stray_first)
    assert turn.results[0].is_error and turn.results[0].text == MISSING_RESULT_TEXT


def test_a_call_id_is_made_safe_for_anthropic_and_bedrock_the_same_way_each_time():
    assert safe_tool_id("toolu_01.a/b c") == "toolu_01_a_b_c"
    assert safe_tool_id("x" * 70) == "x" * 64
    assert safe_tool_id("") == "call"
