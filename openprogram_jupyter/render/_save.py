"""Saving a run's transcript as a file of its own: ``run.save("run.html" | "run.md")``.

The file holds exactly what a notebook saves for the run (:func:`..render_bundle`: every
outside string escaped or sanitized, every known secret masked). An HTML file wraps that
fragment in a fixed document frame (:data:`DOCUMENT_HEAD`, :data:`DOCUMENT_TAIL`), which
holds no outside string, so the file is as inert as the notebook's HTML.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import SaveError

if TYPE_CHECKING:
    from ..core._engine_shapes import RunRecord

__all__ = ["DOCUMENT_HEAD", "DOCUMENT_TAIL", "SAVE_FORMATS", "save_transcript"]

DOCUMENT_HEAD = (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    "<title>agent run transcript</title>\n</head>\n<body>\n"
)
DOCUMENT_TAIL = "\n</body>\n</html>\n"

SAVE_FORMATS = {
    ".html": "text/html",
    ".htm": "text/html",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
}
"""The file suffixes :func:`save_transcript` writes, and the transcript each one holds."""


def save_transcript(run: RunRecord, path: str | os.PathLike[str]) -> Path:
    """Write ``run``'s transcript to ``path`` (UTF-8, replacing a file that is there) and
    return the path.

    The suffix picks the format (:data:`SAVE_FORMATS`: ``.html`` / ``.htm`` a standalone
    page, ``.md`` / ``.markdown`` Markdown, ``.txt`` plain text). Any other suffix raises
    :class:`~openprogram_jupyter.core.errors.SaveError` (a ``ValueError``) naming it and the ones
    that work, before anything is written; so does a path that cannot be written.
    """
    from . import render_bundle

    target = Path(path)
    mime = SAVE_FORMATS.get(target.suffix.lower())
    if mime is None:
        known = ", ".join(SAVE_FORMATS)
        raise SaveError(
            f"run.save({str(path)!r}): cannot tell the format from the suffix "
            f"{target.suffix or '(none)'!r}; use one of {known}"
        )
    text = render_bundle(run)[mime]
    if mime == "text/html":
        text = DOCUMENT_HEAD + text + DOCUMENT_TAIL
    try:
        target.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as error:
        raise SaveError(f"run.save({str(path)!r}): cannot write it ({error.strerror or error})") from None
    return target
