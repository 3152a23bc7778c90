"""Rewriting the parts of a type annotation: ``list[Literal[0, 1]] | None`` with its
``Literal`` (or any inner part) replaced, the outer shape kept."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["map_type_arguments"]


def map_type_arguments(annotation: Any, transform: Callable[[Any], Any]) -> Any:
    """``annotation`` with ``transform`` applied to each of its type arguments (to the
    annotated type of an ``Annotated``, keeping its metadata). Returns ``annotation``
    itself when nothing changed, when it has no arguments (or is a ``Literal``, whose
    arguments are values), or when the rebuilt form cannot be made (pydantic then says
    what it cannot handle)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is None or not args or origin is typing.Literal:
        return annotation
    if origin is typing.Annotated:
        inner = transform(args[0])
        if inner is args[0]:
            return annotation
        params = (inner, *annotation.__metadata__)
        return typing.Annotated[params]
    new_args = tuple(transform(arg) for arg in args)
    if all(new is old for new, old in zip(new_args, args, strict=True)):
        return annotation
    try:
        if origin is typing.Union or isinstance(annotation, types.UnionType):
            return typing.Union[new_args]  # noqa: UP007 - the members are only known at run time
        if isinstance(annotation, types.GenericAlias):
            return types.GenericAlias(origin, new_args)
        return annotation.copy_with(new_args)
    except Exception:
        return annotation
