"""Where nh3 cannot be imported (a JupyterLite site serving its own packages), nothing from
outside becomes markup: an answer's Markdown shows as its escaped source, and any other
outside HTML as escaped text (issue 51 step 2)."""

from __future__ import annotations

import sys

import pytest

from openprogram_jupyter.render import _markdown_html, _sanitize


@pytest.fixture
def no_nh3(monkeypatch):
    """nh3 made unimportable, and the caches that hold what it built emptied (before and after)."""
    monkeypatch.setitem(sys.modules, "nh3", None)
    monkeypatch.setattr(_sanitize, "_cleaner", None)
    _markdown_html.markdown_html.cache_clear()
    yield
    _markdown_html.markdown_html.cache_clear()
    monkeypatch.setattr(_sanitize, "_cleaner", None)


def test_the_sanitizer_is_found_where_pip_installed_the_package():
    assert _sanitize.sanitizer_available() is True


def test_an_answer_shows_its_markdown_source_escaped_with_its_line_breaks(no_nh3):
    assert _sanitize.sanitizer_available() is False
    answer = "**Cairo** is warmest <script>alert(1)</script>\n- Oslo & Lisbon"
    assert _markdown_html.markdown_html(answer) == (
        '<div style="white-space:pre-wrap">**Cairo** is warmest &lt;script&gt;alert(1)&lt;/script&gt;\n'
        "- Oslo &amp; Lisbon</div>"
    )


def test_other_outside_html_is_escaped_text(no_nh3):
    assert _sanitize.clean_html('<b onclick="x()">bold</b>') == "&lt;b onclick=&quot;x()&quot;&gt;bold&lt;/b&gt;"
