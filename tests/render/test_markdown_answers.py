"""The model's Markdown: rendered to sanitized HTML for the HTML views, passed on inert for
``text/markdown``; every injection payload stays text."""

from __future__ import annotations

import sys

import pytest
from inert_html import Tags, assert_inert
from markdown_it import MarkdownIt

from openprogram_jupyter.render._markdown_html import markdown_html
from openprogram_jupyter.render._markdown_inert import inert_markdown
from openprogram_jupyter.render._sanitize import clean_html

ANSWER = """\
## Results

**Bold**, *italic* and `code`.

| city | temp |
|:-----|-----:|
| Oslo | 4 °C |

- first
- second

1. one
2. two

```python
print("<b>not bold</b>")
```
"""

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    '<div onclick="alert(1)">raw block</div>',
    "<img src=http://tracker.example/p.png>",
    "![pixel](http://tracker.example/p.png)",
    '<iframe src="http://evil.example"></iframe>',
    '<a href="javascript:alert(1)">x</a>',
    "<svg onload=alert(1)></svg>",
    "<style>body{display:none}</style>",
    '<!-- comment --><math><mi xlink:href="javascript:alert(1)">x</mi></math>',
]
HOSTILE = "Intro.\n\n" + "\n\n".join(PAYLOADS) + "\n\n| a | b |\n|---|---|\n| <script>x</script> | `<b>` |\n"


def test_answers_render_as_headings_tables_lists_and_code():
    tags = [tag for tag, _ in Tags(markdown_html(ANSWER)).tags]
    assert tags[0] == "h2"
    assert {"strong", "em", "code", "table", "th", "td", "ul", "ol", "li", "pre"} <= set(tags)
    html = markdown_html(ANSWER)
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html  # code stays code
    assert 'align="right"' in html  # a column's alignment survives without a style attribute


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_payload_stays_text_in_html(payload):
    html = markdown_html(f"before\n\n{payload}\n\nafter")
    assert_inert(html)
    assert "before" in html and "after" in html


def test_a_remote_image_is_a_link_and_an_embedded_one_an_image():
    html = markdown_html("![pixel](http://tracker.example/p.png) ![dot](data:image/png;base64,iVBORw0KGgo=)")
    tags = Tags(html).tags
    assert (
        "a",
        {"href": "http://tracker.example/p.png", "target": "_blank", "rel": "noopener noreferrer nofollow"},
    ) in tags
    assert [attrs["src"] for tag, attrs in tags if tag == "img"] == ["data:image/png;base64,iVBORw0KGgo="]
    assert "[image: pixel]" in html


def test_links_keep_only_web_and_mail_addresses():
    html = markdown_html("[a](https://example.com) [b](mailto:x@example.com) [c](file:///etc/passwd) [d](page.html)")
    hrefs = [attrs.get("href") for tag, attrs in Tags(html).tags if tag == "a"]
    assert hrefs == ["https://example.com", "mailto:x@example.com", None]  # file: is no link at all


def test_sanitizer_cleans_dataframe_html_and_keeps_the_table():
    frame = (
        "<style scoped>.dataframe tbody tr th {vertical-align: top;}</style>"
        '<table border="1" class="dataframe"><thead><tr style="text-align: right;"><th></th><th>a</th>'
        '</tr></thead><tbody><tr><th>0</th><td onmouseover="alert(1)">1</td></tr></tbody></table>'
        '<script>alert(1)</script><img src="http://example.com/x.png">'
    )
    html = clean_html(frame)
    assert_inert(html)
    assert "vertical-align" not in html and "alert" not in html
    assert [tag for tag, _ in Tags(html).tags][:3] == ["table", "thead", "tr"]


def test_markdown_is_parsed_once_per_text():
    markdown_html.cache_clear()
    markdown_html(ANSWER)
    markdown_html(ANSWER)
    assert markdown_html.cache_info().hits == 1


def test_inert_markdown_keeps_the_answer_as_markdown():
    assert inert_markdown(ANSWER) == ANSWER  # nothing in it to neutralize


@pytest.mark.parametrize("payload", PAYLOADS)
def test_inert_markdown_leaves_no_markup_for_a_viewer(payload):
    text = inert_markdown(f"before\n\n{payload}\n\nafter")
    viewer = MarkdownIt("commonmark", {"html": True}).enable("table")  # a viewer that renders raw HTML
    html = viewer.render(text)
    for tag, attrs in Tags(html).tags:
        assert tag in {"p", "a", "code", "em", "strong"}, (tag, html)
        assert not any(name.startswith("on") for name in attrs)
        assert not (attrs.get("href") or "").lower().startswith(("javascript:", "vbscript:")), html
    assert "<img" not in html


def test_inert_markdown_shows_tags_as_written_and_keeps_code():
    text = inert_markdown("Use <b>tags</b> & `a<b` and ``x``.\n\n    indented <i>\n\n```\n<kbd>\n```\n")
    assert text.startswith("Use &lt;b>tags&lt;/b> &amp; <code>a&lt;b</code> and ``x``.")
    assert "    indented <i>" in text and "```\n<kbd>\n```" in text
    html = MarkdownIt("commonmark", {"html": True}).render(text)
    assert "Use &lt;b&gt;tags&lt;/b&gt; &amp; <code>a&lt;b</code>" in html


def test_inert_markdown_closes_a_fence_the_answer_left_open():
    text = inert_markdown("Look:\n\n```python\nprint('<b>')")
    assert text.endswith("```python\nprint('<b>')\n```")
    rest = MarkdownIt("commonmark").render(text + "\n\n**after**")
    assert "<strong>after</strong>" in rest  # what follows the answer is no longer inside its code


def test_load_ext_and_the_view_modules_import_neither_markdown_it_nor_nh3():
    import subprocess

    code = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "InteractiveShell.instance().run_line_magic('load_ext', 'openprogram_jupyter')\n"
        "loaded = ['markdown_it' in sys.modules, 'nh3' in sys.modules]\n"
        "import openprogram_jupyter.jupyter._view, openprogram_jupyter.render.html\n"
        "loaded += ['markdown_it' in sys.modules, 'nh3' in sys.modules]\n"
        "from openprogram_jupyter.render._markdown_html import markdown_html\n"
        "markdown_html('# drawn')\n"
        "print(*loaded, 'markdown_it' in sys.modules, 'nh3' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"] * 4 + ["True"] * 2


def test_a_streaming_answer_is_drawn_in_cached_chunks_that_look_the_same():
    from openprogram_jupyter.render._markdown_html import STREAMING_CHUNK_CHARS, _chunks, streaming_markdown_html

    fenced = "```python\n" + "x = 1\n\n" * 400 + "```\n\n"  # blank lines inside a fence never cut it
    text = "".join(f"{ANSWER}\nPart {number}.\n\n{fenced}" for number in range(10))
    chunks = _chunks(text)
    assert "".join(chunks) == text and len(chunks) > 5
    assert all(chunk.count("```") % 2 == 0 for chunk in chunks)
    assert all(len(chunk) >= STREAMING_CHUNK_CHARS for chunk in chunks[:-1])
    assert streaming_markdown_html(text) == markdown_html(text)
    markdown_html.cache_clear()
    streaming_markdown_html(text[:-10])
    streaming_markdown_html(text[:-5])  # the next redraw: only the last chunk is parsed again
    assert markdown_html.cache_info().misses == len(chunks) + 1
