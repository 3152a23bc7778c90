"""How to install an optional part of this package, as a line a user can paste."""

from __future__ import annotations

import importlib.metadata
import re

DISTRIBUTION = "openprogram-jupyter"


def package_version() -> str:
    """This package's installed version (``"0"`` when it is not installed, run from a bare tree)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "0"


def install_hint(extra: str) -> str:
    """``pip install '<requirement>' ...`` for the packages of ``extra``, read from this
    package's own metadata, so it is right whether the package came from a clone
    (``pip install -e '.[extra]'``) or an index. Falls back to naming the extra."""
    try:
        requirements = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        requirements = []
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    packages = [req.split(";")[0].strip() for req in requirements if marker.search(req)]
    if not packages:
        return f"install the [{extra}] extra of {DISTRIBUTION}"
    return "pip install " + " ".join(f"'{package}'" for package in packages)


def missing_dependency_message(provider: str, module: str, extra: str | None = None) -> str:
    """The error text for a provider whose optional dependency ``module`` is not installed,
    with the install line of ``extra`` (default: the extra named like ``provider``)."""
    hint = install_hint(extra or provider)
    return f"the {provider!r} provider needs {module!r}, which is not installed ({hint})"
