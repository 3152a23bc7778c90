"""A griffe extension for the API reference: Sphinx roles in docstrings read as code.

The package's docstrings cross-reference with Sphinx roles (``:class:`~pkg.mod.Name```,
``:meth:`Run.show```): they read well in ``help()`` and in editors. mkdocstrings renders
docstrings as Markdown, where a role is not markup, so the site showed ``:class:`` as text
before each name. This extension, loaded by ``mkdocs.yml``'s mkdocstrings options, turns
each role into inline code: the target as written, its last part only after a ``~`` (as
Sphinx shows it), or the title of a ``title <target>`` reference.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = ["SphinxRoles", "roles_as_code"]

_ROLE = re.compile(r":(?:py:)?(?:class|meth|func|attr|mod|data|exc|obj|const):`([^`]+)`")
_TITLED = re.compile(r"(.*?)\s*<([^<>]+)>\Z", re.DOTALL)


def roles_as_code(text: str) -> str:
    """``text`` with every Sphinx cross-reference role replaced by inline code."""
    return _ROLE.sub(_as_code, text)


def _as_code(match: re.Match[str]) -> str:
    target = match.group(1).strip()
    titled = _TITLED.match(target)
    if titled is not None and titled.group(1):
        shown = titled.group(1)
    elif target.startswith("~"):
        shown = target[1:].rsplit(".", 1)[-1]
    else:
        shown = target
    return f"`{shown}`"


class SphinxRoles(griffe.Extension):
    """Rewrites every object's docstring with :func:`roles_as_code` once the tree is loaded."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = roles_as_code(obj.docstring.value)
