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
    body = text[len(DOCUMENT_HEAD):-len(DOCUMENT_TAIL)]
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
