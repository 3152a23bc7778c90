"""``run.save(path)``: the transcript as a standalone file, as inert as the notebook's."""

from __future__ import annotations

import pytest
from inert_html import assert_inert
from markdown_it import MarkdownIt

from openprogram_jupyter.render import render_bundle
from openprogram_jupyter.render._save import DOCUMENT_HEAD, DOCUMENT_TAIL

from .test_static_transcript import hostile_run


def test_a_saved_html_file_is_the_notebooks_html_in_a_fixed_frame_and_passes_the_audit(tmp_path):
    run = hostile_run()
    path = run.save(tmp_path / "run.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(DOCUMENT_HEAD) and text.endswith(DOCUMENT_TAIL)
    body = text[len(DOCUMENT_HEAD) : -len(DOCUMENT_TAIL)]
    assert body == render_bundle(run)["text/html"]
    assert_inert(body)
    assert "<script" not in text.lower()
    assert "&lt;script&gt;" in body  # the hostile text is there, escaped


def test_a_saved_markdown_file_is_the_notebooks_markdown(tmp_path):
    run = hostile_run()
    text = run.save(str(tmp_path / "run.md")).read_text(encoding="utf-8")
    assert text.rstrip("\n") == render_bundle(run)["text/markdown"].rstrip("\n")
    viewer = MarkdownIt("commonmark", {"html": True}).enable("table")  # renders raw HTML, like most viewers
    assert_inert(viewer.render(text))


def test_an_unknown_suffix_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match=r"suffix '\.pdf'.*\.html, \.htm, \.md"):
        hostile_run().save(tmp_path / "run.pdf")
    assert list(tmp_path.iterdir()) == []


def _plain_run():
    import openprogram_jupyter as op

    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    model = op.ScriptedModel([op.ToolCall(name="add", arguments={"a": 2, "b": 3}), "**Five**, of course."])
    return op.Runtime(model=model).run("What is 2 + 3?", tools=[add])


@pytest.mark.parametrize("suffix", [".txt", ".TXT"])
def test_a_saved_txt_file_is_plain_text_not_markdown_or_html(tmp_path, suffix):
    text = _plain_run().save(tmp_path / f"run{suffix}").read_text(encoding="utf-8")
    assert text.startswith("agent run · model scripted · 2 rounds")
    assert "add(a=2, b=3)" in text and "**Five**, of course." in text  # the answer as written, not rendered
    assert "<" not in text and "```" not in text and not text.startswith("**")


@pytest.mark.parametrize("suffix", [".md", ".markdown"])
def test_a_saved_markdown_file_is_markdown(tmp_path, suffix):
    text = _plain_run().save(tmp_path / f"run{suffix}").read_text(encoding="utf-8")
    # the text/markdown as displayed: inside the one element MathJax leaves alone (issue 43, item 2)
    assert text.startswith('<div class="mathjax_ignore tex2jax_ignore">\n\n**agent run** · model `scripted` · 2 rounds')
    assert "```" in text and text.count("<div") == 1 and "<!DOCTYPE" not in text


@pytest.mark.parametrize("suffix", [".html", ".htm", ".HTML"])
def test_a_saved_html_file_is_a_page(tmp_path, suffix):
    text = _plain_run().save(tmp_path / f"run{suffix}").read_text(encoding="utf-8")
    assert text.lower().startswith("<!doctype html>") and text.rstrip().endswith("</html>")
    assert '<div class="openprogram-run"' in text and "<strong>Five</strong>" in text


def test_a_save_mistake_is_one_line_in_ipython_and_still_a_value_error(tmp_path):
    import openprogram_jupyter as op

    with pytest.raises(op.SaveError) as refused:
        _plain_run().save(tmp_path / "run.pdf")
    assert isinstance(refused.value, ValueError)
    assert refused.value._render_traceback_() == [f"SaveError: {refused.value}"]
    with pytest.raises(op.SaveError, match="cannot write it"):
        _plain_run().save(tmp_path / "no-such-folder" / "run.html")
