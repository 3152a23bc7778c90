"""Every link of README.md and of the pages under docs/ leads somewhere: the file exists and
the ``#anchor`` is a heading's id as the docs site makes it; and every mention of another
page is a link (a page named in plain text is one a reader cannot follow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .links import Link, anchors, broken, links, plain_mentions, slugify

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
IDS = [str(p.relative_to(ROOT)) for p in PAGES]


@pytest.mark.parametrize("path", PAGES, ids=IDS)
def test_every_link_leads_to_a_file_and_heading_that_exist(path):
    problems = [f"{path.name}:{link.line}: {link.target}: {why}" for link in links(path) if (why := broken(link))]
    assert not problems, "\n".join(problems)


def _is_page(name: str, page: Path) -> bool:
    return any(c.is_file() and DOCS in c.resolve().parents for c in (ROOT / name, DOCS / name, page.parent / name))


@pytest.mark.parametrize("path", PAGES, ids=IDS)
def test_every_mention_of_another_page_is_a_link(path):
    plain = [f"{path.name}:{line}: {name}" for line, name in plain_mentions(path) if _is_page(name, path)]
    assert not plain, "\n".join(plain)


# -- the checks themselves fail on what they are meant to catch ---------------------------


def test_a_missing_file_and_a_missing_heading_are_broken(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## Usage and cost\n\n## Usage and cost\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#usage-and-cost) [twice](other.md#usage-and-cost_1) [here](#top-of-it)\n\n"
        "[gone](missing.md) [no such heading](other.md#prices) [web](https://example.org/x#y)\n\n# Top of it\n"
    )
    found = {link.target: broken(link) for link in links(page)}
    assert found == {
        "other.md#usage-and-cost": None,
        "other.md#usage-and-cost_1": None,
        "#top-of-it": None,
        "missing.md": "no file missing.md",
        "other.md#prices": "no heading with the id #prices in other.md",
        "https://example.org/x#y": None,
    }


def test_a_page_named_outside_a_link_is_a_plain_mention(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "See docs/replay.md, and `tools.md`; [replay.md](replay.md) is a link.\n\n```\nnot.md in code\n```\n"
    )
    assert plain_mentions(page) == [(1, "docs/replay.md"), (1, "tools.md")]


def test_anchors_are_made_as_mkdocs_makes_them(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# `%%agent`\n\n## `%agent`\n\n## 10. Trying tools out: side by side, forks\n\n## Café — prix\n")
    assert anchors(page) == {"agent", "agent_1", "10-trying-tools-out-side-by-side-forks", "cafe-prix"}
    assert slugify("What is rendered as Markdown, and what stays verbatim") == (
        "what-is-rendered-as-markdown-and-what-stays-verbatim"
    )
    assert isinstance(links(page), list) and all(isinstance(link, Link) for link in links(page))
