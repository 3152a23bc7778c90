"""The public API is ``openprogram_jupyter.__all__``: its names and their signatures are kept
in ``public_api.txt`` beside this file, so an accidental change fails here.

After an intended change, write the file again and commit it with the change:
``python tests/core/test_public_api.py``.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import openprogram_jupyter as op

SNAPSHOT = Path(__file__).with_name("public_api.txt")


def _signature(value: object) -> str:
    """``value``'s signature, a default that is a bare sentinel object written ``<sentinel>``
    (its repr holds an address)."""
    try:
        signature = inspect.signature(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    return str(
        signature.replace(
            parameters=[
                parameter.replace(default=_Sentinel()) if type(parameter.default) is object else parameter
                for parameter in signature.parameters.values()
            ]
        )
    )


class _Sentinel:
    def __repr__(self) -> str:
        return "<sentinel>"


def _own_and_inherited(cls: type) -> dict[str, object]:
    """``cls``'s members with those it inherits from the package's own classes (a mixin's
    methods are the class's API too); the nearest definition wins."""
    members: dict[str, object] = {}
    for klass in reversed(cls.__mro__):
        if klass is cls or klass.__module__.startswith("openprogram_jupyter."):
            members.update(vars(klass))
    return members


def _members(cls: type) -> list[str]:
    """A class's public methods and properties (the package's own bases' included), each
    with its signature, in name order."""
    lines = []
    for name, member in sorted(_own_and_inherited(cls).items()):
        if name.startswith("_") and name not in ("__init__", "__call__"):
            continue
        if isinstance(member, property):
            lines.append(f"    .{name} (property)")
        elif isinstance(member, (staticmethod, classmethod)):
            lines.append(f"    .{name}{_signature(member.__func__)}")
        elif inspect.isfunction(member):
            lines.append(f"    .{name}{_signature(member)}")
    return lines


def public_api() -> str:
    """Every name of ``op.__all__`` with its kind and signature; a class with its members."""
    lines = []
    for name in sorted(op.__all__):
        value = getattr(op, name)
        if inspect.ismodule(value):
            lines.append(f"{name}: module")
        elif inspect.isclass(value):
            bases = ", ".join(base.__name__ for base in value.__bases__)
            lines.append(f"{name}: class({bases})")
            lines += _members(value)
        elif callable(value):
            lines.append(f"{name}{_signature(value)}")
        else:
            lines.append(f"{name}: {type(value).__name__}")
    return "\n".join(lines) + "\n"


def test_the_public_api_is_the_one_recorded():
    assert public_api() == SNAPSHOT.read_text(encoding="utf-8"), (
        "the public API changed; if that was intended, run python tests/core/test_public_api.py and commit "
        "tests/core/public_api.txt (git diff shows what changed)"
    )


def test_every_public_name_is_importable_and_documented():
    for name in op.__all__:
        value = getattr(op, name)
        if callable(value) or inspect.ismodule(value):
            assert inspect.getdoc(value), f"op.{name} has no docstring"


if __name__ == "__main__":
    SNAPSHOT.write_text(public_api(), encoding="utf-8")
    sys.stdout.write(f"wrote {SNAPSHOT}\n")
