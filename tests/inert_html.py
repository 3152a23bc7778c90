"""What every HTML view must be, whatever a model or a tool put in it: tags from a short
list, no event handler, links only to web and mail addresses, images only embedded."""

from __future__ import annotations

from html.parser import HTMLParser

ALLOWED_TAGS = frozenset(
    {
        "p",
        "br",
        "hr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "strong",
        "b",
        "em",
        "i",
        "del",
        "s",
        "sup",
        "sub",
        "kbd",
        "code",
        "pre",
        "blockquote",
        "ul",
        "ol",
        "li",
        "a",
        "img",
        "span",
        "div",
        "table",
        "caption",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "th",
        "td",
        "details",
        "summary",
    }
)


class Tags(HTMLParser):
    """Every start tag of ``html`` with its attributes, in order."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def names(self) -> list[str]:
        return [tag for tag, _ in self.tags]


def assert_inert(html: str) -> None:
    """Fail, naming the tag, for anything a browser would run or fetch."""
    for tag, attrs in Tags(html).tags:
        assert tag in ALLOWED_TAGS, f"<{tag}> in {html[:2000]}"
        for name, value in attrs.items():
            assert not name.startswith("on"), f"<{tag} {name}=…>"
            if name == "href":
                assert (value or "").startswith(("http://", "https://", "mailto:")), f"<{tag} href={value!r}>"
            if name == "src":
                assert (value or "").startswith("data:image/"), f"<{tag} src={value!r}>"
