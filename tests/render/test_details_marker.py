"""Every ``<summary>`` shows its ▶ marker, in nbclassic too (issue 43, item 11b).

nbclassic's stylesheet makes ``summary`` a block, which hides the disclosure marker a list
item has. One writer (``render/_details.py``) puts ``display:list-item`` on each summary;
this test finds, by reading the package's source, any other module that writes a
``<summary`` and fails for it. The browser side is ``tests/browser/test_nbclassic_styles.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from sample_models import NoticingModel

import openprogram_jupyter as op
from openprogram_jupyter.render import render_html
from openprogram_jupyter.render._details import SUMMARY_DISPLAY, details_html
from openprogram_jupyter.tools.registry import Registry

PACKAGE = Path(op.__file__).parent
WRITER = PACKAGE / "render" / "_details.py"


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring constants of ``tree``'s module, classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def summary_writers() -> list[str]:
    """``path:line`` of every string in the package's code (docstrings aside) that holds
    ``<summary``, outside the one writer."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == WRITER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and "<summary" in node.value.lower()
            ):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return found


def test_no_module_but_render_details_writes_a_summary():
    assert summary_writers() == [], "a <summary> written outside render/_details.details_html"


def test_the_scan_finds_a_summary_written_elsewhere(tmp_path, monkeypatch):
    """The scan itself can fail: a module writing its own summary is found, a docstring
    naming one is not."""
    package = tmp_path / "openprogram_jupyter"
    (package / "render").mkdir(parents=True)
    stray = '"""A <summary> in a docstring is no writer."""\nHTML = f"<details><Summary>{1}</summary>"\n'
    (package / "stray.py").write_text(stray)
    monkeypatch.setitem(globals(), "PACKAGE", package)
    monkeypatch.setitem(globals(), "WRITER", package / "render" / "_details.py")
    assert summary_writers() == ["openprogram_jupyter/stray.py:2"]


def test_every_summary_of_a_transcript_is_a_list_item():
    registry = Registry()

    @op.function(registry=registry)
    def report() -> str:
        """Report."""
        return "reported"

    html = render_html(op.Runtime(model=NoticingModel(), registry=registry).run("go", tools=[report]))
    summaries = re.findall(r"<summary[^>]*>", html)
    assert len(summaries) == 2, summaries  # the thinking and the call
    assert all(f'style="{SUMMARY_DISPLAY}' in tag for tag in summaries), summaries


def test_details_html_writes_what_it_is_given():
    html = details_html(
        "<b>s</b>",
        "<p>body</p>",
        open_=True,
        style="margin:2px",
        summary_style="color:red",
        attributes={"class": "row", "data-row": '3"'},
    )
    assert html == (
        '<details open class="row" data-row="3&quot;" style="margin:2px">'
        '<summary style="display:list-item;color:red"><b>s</b></summary><p>body</p></details>'
    )
    assert details_html("s", "b") == '<details><summary style="display:list-item">s</summary>b</details>'
