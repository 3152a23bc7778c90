"""Build the API reference: one page for the public API, ``openprogram_jupyter.__all__``.

    python scripts/api_reference.py [OUTPUT]     # default: .venvs/api-reference

pdoc writes it from the docstrings and signatures of the public names: the package root,
and the page of each public name that is a module (``op.decision``); every other module is
private, whatever its name. Exit status 1 when pdoc warns — an annotation it cannot resolve, a name it cannot
import — or a public name has no entry, so the reference .ci/run builds is the one a
reader gets.
"""

from __future__ import annotations

import inspect
import sys
import warnings
from pathlib import Path

import pdoc
import pdoc.render

import openprogram_jupyter

ROOT = openprogram_jupyter.__name__


def module_pages() -> dict[str, str]:
    """The public names that are modules, and each module's name: pdoc gives each a page."""
    values = {name: getattr(openprogram_jupyter, name) for name in openprogram_jupyter.__all__}
    return {name: value.__name__ for name, value in values.items() if inspect.ismodule(value)}


def build(output: Path) -> list[str]:
    """Write the reference to ``output``; return pdoc's warnings (empty when clean)."""
    pdoc.render.configure(docformat="restructuredtext", search=True, show_source=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(ROOT, f"!{ROOT}.", *module_pages().values(), output_directory=output)
    return [str(warning.message) for warning in caught]


def has_entry(output: Path, name: str) -> bool:
    """Whether ``op.name`` is on the root page or has a page of its own."""
    module = module_pages().get(name)
    if module is not None:
        return (output / Path(*module.split("."))).with_suffix(".html").exists()
    return f'id="{name}"' in (output / f"{ROOT}.html").read_text(encoding="utf-8")


def main() -> int:
    output = Path(sys.argv[1] if len(sys.argv) > 1 else ".venvs/api-reference")
    problems = build(output)
    page = output / f"{ROOT}.html"
    missing = [name for name in openprogram_jupyter.__all__ if page.exists() and not has_entry(output, name)]
    for problem in problems:
        sys.stderr.write(f"pdoc: {problem}\n")
    for name in missing:
        sys.stderr.write(f"api reference: op.{name} has no entry\n")
    sys.stdout.write(f"API reference: {page} ({len(openprogram_jupyter.__all__)} public names)\n")
    return 1 if problems or missing or not page.exists() else 0


if __name__ == "__main__":
    sys.exit(main())
