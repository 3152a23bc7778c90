"""Page mentions in generated docs text made into Markdown links.

Help texts and setting docs name the page that explains more (``docs/providers.md``,
optionally with a section: ``docs/providers.md, "Reasoning"``). The tables generated from
them for the docs site (docs/settings.md, docs/reference/agent-flags.md) must link every
page they name; :func:`link_page_mentions` does that, leaving the plain text (``%%agent -h``)
as it is.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["link_page_mentions", "slugify"]

# `docs/NAME.md`, then optionally `, "Section title"`.
_MENTION = re.compile(r'docs/(?P<page>[\w/-]+\.md)(?:, "(?P<section>[^"]+)")?')


def slugify(title: str) -> str:
    """A heading's anchor as the docs site (mkdocs' ``toc``) makes it: accents dropped,
    punctuation removed, lower case, runs of spaces and hyphens as one ``-``."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def link_page_mentions(text: str, prefix: str = "") -> str:
    """``text`` with each ``docs/NAME.md`` mention (and its ``, "Section"``) as a Markdown
    link to ``PREFIX + NAME.md`` (``#anchor`` for the section), ``prefix`` being the path
    from the page the text goes on to docs/ (``""`` for docs/, ``"../"`` below it)."""

    def link(match: re.Match[str]) -> str:
        anchor = f"#{slugify(match['section'])}" if match["section"] else ""
        return f"[{match.group()}]({prefix}{match['page']}{anchor})"

    return _MENTION.sub(link, text)
