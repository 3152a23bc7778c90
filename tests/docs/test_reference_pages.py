"""The generated reference pages agree with what they are generated from: the API reference
has an entry for every public name (and no other), the %%agent flags page shows the table
of today's flags."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import openprogram_jupyter
from openprogram_jupyter.jupyter._options import FLAGS, flags_markdown_table

ROOT = Path(__file__).resolve().parents[2]
API_PAGE = ROOT / "docs" / "reference" / "api.md"


def test_the_api_reference_has_an_entry_for_every_public_name_and_no_other():
    entries = re.findall(r"^::: openprogram_jupyter\.(\w+)$", API_PAGE.read_text(encoding="utf-8"), re.M)
    assert sorted(entries) == sorted(openprogram_jupyter.__all__)


def test_the_api_reference_script_reports_a_page_that_is_out_of_date(tmp_path, monkeypatch):
    script = ROOT / "scripts" / "api_reference.py"
    assert subprocess.run([sys.executable, str(script), "--check"], check=False).returncode == 0
    sys.path.insert(0, str(script.parent))
    try:
        import api_reference
    finally:
        sys.path.remove(str(script.parent))
    stale = tmp_path / "api.md"
    stale.write_text(api_reference.page_text().replace("::: openprogram_jupyter.check\n", ""))
    monkeypatch.setattr(api_reference, "PAGE", stale)
    assert api_reference.main(["--check"]) == 1
    assert api_reference.main([]) == 0 and stale.read_text() == api_reference.page_text()


def test_the_flags_page_shows_every_flag_as_generated():
    page = (ROOT / "docs" / "reference" / "agent-flags.md").read_text(encoding="utf-8")
    assert flags_markdown_table() in page, (
        "docs/reference/agent-flags.md shows an old table: paste the output of _options.flags_markdown_table()"
    )
    for flag in FLAGS:
        assert f"`{flag.names[-1]}" in page, flag.names


def test_sphinx_roles_in_the_docstrings_read_as_code_on_the_api_reference():
    # mkdocstrings renders docstrings as Markdown, where ":class:`X`" is text, not markup:
    # the extension mkdocs.yml loads turns each role into inline code.
    import griffe

    extension = "scripts/griffe_sphinx_roles.py:SphinxRoles"
    assert extension in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    loaded = griffe.load(
        "openprogram_jupyter", extensions=griffe.load_extensions(str(ROOT / extension)), resolve_aliases=False
    )
    role = re.compile(r":(?:class|meth|func|attr|mod|data|exc|obj):`")
    shown = {name: loaded[name].docstring.value for name in openprogram_jupyter.__all__ if loaded[name].docstring}
    assert any("`Run`" in text for text in shown.values())
    assert [name for name, text in shown.items() if role.search(text)] == []
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from griffe_sphinx_roles import roles_as_code
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    written = ":class:`~op.lab.check.RunCheck`, :meth:`Run.show` and :func:`the evaluation <op.evaluate>`"
    assert roles_as_code(written) == "`RunCheck`, `Run.show` and `the evaluation`"
