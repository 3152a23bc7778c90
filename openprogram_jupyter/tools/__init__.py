"""Tools: ``@function``, ``@agentic_function``, the registry and its gating layers."""

from ._schema import ArgumentError, SchemaError
from .base import Tool, ToolContext, ToolOptions
from .function import FunctionTool, agentic_function, function
from .menu import Menu, as_tool, resolve_menu
from .registry import Registry, default_registry
from .results import result_content

__all__ = [
    "ArgumentError",
    "FunctionTool",
    "Menu",
    "Registry",
    "SchemaError",
    "Tool",
    "ToolContext",
    "ToolOptions",
    "agentic_function",
    "as_tool",
    "default_registry",
    "function",
    "resolve_menu",
    "result_content",
]
