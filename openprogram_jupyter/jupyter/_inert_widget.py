"""Every widget the package draws is made here: :func:`inert_widget`.

A widget's HTML that a frontend typesets (nbclassic's MathJax 2 typesets a whole output
area; ipywidgets typesets a description) would turn ``$0.05 … $0.08`` into math. Each
widget carries the classes MathJax skips (:data:`..render._safe.MATH_INERT_CLASSES`), so
the live view reads its amounts as written; ``tests/render/test_math_inert.py`` fails for
a widget made anywhere else.
"""

from __future__ import annotations

from typing import Any

from ..render._safe import MATH_INERT_CLASSES

__all__ = ["inert_widget"]


def inert_widget(cls: Any, **traits: Any) -> Any:
    """``cls(**traits)`` (an ipywidgets DOM widget class) whose ``_dom_classes`` are the
    ones given, if any, then ``mathjax_ignore`` and ``tex2jax_ignore``."""
    classes = tuple(traits.pop("_dom_classes", ())) + MATH_INERT_CLASSES
    return cls(_dom_classes=classes, **traits)
