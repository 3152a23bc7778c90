"""Integer ``Literal`` choices that refuse booleans, as the JSON Schema does.

The schema of ``Literal[0, 1]`` is ``{"enum": [0, 1]}``, and in JSON Schema ``true`` is
not ``1``. pydantic accepts ``true`` for it (and passes ``1`` on), so the model could send
a boolean the schema forbids. :func:`refusing_bools` wraps every such ``Literal`` inside
an annotation with a check that refuses a boolean, naming the choices.
"""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BeforeValidator

from ..core.errors import SetupError
from ._annotations import map_type_arguments

__all__ = ["refusing_bools"]


def refusing_bools(annotation: object) -> Any:
    """``annotation`` with each all-integer ``Literal`` in it refusing ``True`` / ``False``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        if args and all(type(value) is int for value in args):
            return typing.Annotated[annotation, BeforeValidator(_no_bool(args))]
        return annotation
    return map_type_arguments(annotation, refusing_bools)


def _no_bool(choices: tuple[int, ...]) -> Any:
    listed = " or ".join(str(choice) for choice in choices)

    def check(value: object) -> Any:
        if isinstance(value, bool):
            raise SetupError(f"Input should be {listed}, not a boolean")
        return value

    return check
