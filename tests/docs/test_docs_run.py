"""Every python and ipython block of README.md and docs/*.md runs as written, in document
order, and every output a document shows (a ``>>>`` doctest) is what the code prints.

Sybil reads the blocks (tests/docs/doc_blocks.py); a block marked ``<!-- not run: ... -->``
is left out, and their number is the one docs/testing.md states.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .claims import CLAIMS
from .doc_blocks import not_run_markers, parse, run_blocks
from .loopback import LOOPBACK_TURNS

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def run_document(path: Path, shell) -> int:
    """Run every block of ``path`` in order in ``shell``; return how many blocks ran."""
    document = parse(path, shell)
    blocks = set()
    for example in document.examples():
        example.evaluate()
        blocks.add(_block_of(document.text, example.start))
    return len(blocks)


def _block_of(text: str, position: int) -> int:
    """The number of the fence that opens the block ``position`` is in (doctest examples
    of one block share it)."""
    return len(re.findall(r"^ *```", text[:position], re.M))


@pytest.mark.parametrize("path", DOCUMENTS, ids=[str(p.relative_to(ROOT)) for p in DOCUMENTS])
def test_every_block_of_the_document_runs_as_written(path, doc_shell, loopback):
    server = loopback(path.name) if path.name in LOOPBACK_TURNS else None
    ran = run_document(path, doc_shell)
    assert ran == run_blocks(path)  # no block was left out by the parser
    if path.name in CLAIMS:
        CLAIMS[path.name](doc_shell.user_ns, server)


def test_blocks_not_run_are_marked_with_a_reason_and_counted_in_testing_md():
    markers = [m for path in DOCUMENTS for m in not_run_markers(path)]
    assert all(m.reason != "(marks no block)" for m in markers), markers
    testing = (ROOT / "docs" / "testing.md").read_text()
    stated = re.search(r"(\d+) blocks are marked `<!-- not run: REASON -->`", testing)
    assert stated is not None, "docs/testing.md states how many blocks are not run"
    assert int(stated.group(1)) == len(markers), [f"{m.path.name}:{m.line}: {m.reason}" for m in markers]
    ran = re.search(r"(\d+) blocks run\.", testing)
    assert ran is not None and int(ran.group(1)) == sum(run_blocks(p) for p in DOCUMENTS)


# -- the runner itself fails when a block breaks ------------------------------------------


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(text)
    return path


def test_a_block_that_raises_fails_its_document(tmp_path, doc_shell):
    path = _write(tmp_path, "```python\nx = 1\n```\n\n```python\nundefined_name + x\n```\n")
    with pytest.raises(NameError, match="undefined_name"):
        run_document(path, doc_shell)


def test_shown_output_that_differs_fails_its_document(tmp_path, doc_shell):
    from sybil.example import SybilFailure

    path = _write(tmp_path, "```python\n>>> 1 + 1\n3\n```\n")
    with pytest.raises(SybilFailure, match="Expected:\n    3\nGot:\n    2"):
        run_document(path, doc_shell)


def test_an_ipython_cell_that_fails_fails_its_document(tmp_path, doc_shell):
    from IPython.core.error import UsageError

    path = _write(
        tmp_path, "```ipython\n%load_ext openprogram_jupyter\n```\n\n```ipython\n%%agent --frobnicate\nhi\n```\n"
    )
    with pytest.raises(UsageError, match="frobnicate"):
        run_document(path, doc_shell)


def test_a_marked_block_is_not_run_and_the_others_are(tmp_path, doc_shell):
    path = _write(
        tmp_path, "<!-- not run: needs a server -->\n```python\nraise SystemExit\n```\n\n```python\nran = True\n```\n"
    )
    assert run_document(path, doc_shell) == 1 == run_blocks(path)
    assert doc_shell.user_ns["ran"] is True
    assert [m.reason for m in not_run_markers(path)] == ["needs a server"]
