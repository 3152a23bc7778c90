"""openprogram-jupyter: run and watch an LLM tool-calling agent inside a Jupyter notebook.

``%load_ext openprogram_jupyter`` registers the ``%%agent`` cell magic and puts a ready
``runtime`` in the namespace. From Python::

    import openprogram_jupyter as op

    @op.function
    def add(a: float, b: float) -> float:
        "Add two numbers."
        return a + b

    op.Runtime(model="offline").exec("What is 1 + 2?", tools=[add])

Importing this package imports no provider SDK; each loads when a run first needs it.
"""

from __future__ import annotations

# Nothing of the package is imported here, not even `typing` (≈ 7 ms of a fresh
# interpreter's start): every public name below loads on first use, so
# `import openprogram_jupyter` costs only this module (docs/benchmarks.md, "Import time").
# Type checkers treat a name TYPE_CHECKING as true whatever its value.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from IPython.core.interactiveshell import InteractiveShell

    from .core._pins import pin
    from .core.approval_policy import Policy, policy
    from .core.approvals import Edit, Skip, edit, skip
    from .core.errors import (
        ArgumentError,
        AskError,
        CassetteError,
        DecisionError,
        OpenProgramError,
        ProviderError,
        RunError,
        SaveError,
        SchemaError,
        SetupError,
    )
    from .core.events import AgentEvent, Divergence
    from .core.messages import (
        AssistantMessage,
        ImageContent,
        ReplyError,
        TextContent,
        ThinkingContent,
        ToolCall,
        ToolResultMessage,
        Usage,
        UserMessage,
    )
    from .engine.rerun import RerunReport, rerun_all
    from .engine.run import Run
    from .engine.runtime import RunHandle, Runtime, default_runtime
    from .engine.tool_execution import ApprovalRequest
    from .jupyter._serve import ServedTools, serve
    from .lab import decision
    from .lab.check import ANY, RunCheck, check
    from .lab.evaluation import (
        Evaluation,
        EvaluationInterrupted,
        EvaluationPlan,
        Judgement,
        PairedComparison,
        aevaluate,
        evaluate,
        judge,
    )
    from .models import Model, ScriptedModel
    from .models._wire_preview import wire_preview
    from .render._side_by_side import side_by_side
    from .tools import Tool, ToolContext, default_registry
    from .tools.function import agentic_function, function  # not via .tools: mypy mistakes the name for the submodule
    from .tools.mcp_source import McpError, McpServer, mcp

# Public names load on first use (PEP 562): `%load_ext` and `import openprogram_jupyter`
# stay fast, and pydantic, the tools layer and the loop load with the first cell that
# needs them.
_LAZY = {
    "decision": ".lab.decision",
    **dict.fromkeys(["Edit", "Skip", "edit", "skip"], ".core.approvals"),
    **dict.fromkeys(["Policy", "policy"], ".core.approval_policy"),
    "pin": ".core._pins",
    **dict.fromkeys(["ANY", "RunCheck", "check"], ".lab.check"),
    "wire_preview": ".models._wire_preview",
    "side_by_side": ".render._side_by_side",
    **dict.fromkeys(
        [
            "ArgumentError",
            "AskError",
            "CassetteError",
            "DecisionError",
            "OpenProgramError",
            "ProviderError",
            "RunError",
            "SaveError",
            "SchemaError",
            "SetupError",
        ],
        ".core.errors",
    ),
    **dict.fromkeys(["AgentEvent", "Divergence"], ".core.events"),
    **dict.fromkeys(["RerunReport", "rerun_all"], ".engine.rerun"),
    **dict.fromkeys(
        ["Evaluation", "EvaluationInterrupted", "EvaluationPlan", "PairedComparison", "aevaluate", "evaluate"],
        ".lab.evaluation",
    ),
    **dict.fromkeys(["Judgement", "judge"], ".lab.evaluation"),
    **dict.fromkeys(
        [
            "AssistantMessage",
            "ImageContent",
            "ReplyError",
            "TextContent",
            "ThinkingContent",
            "ToolCall",
            "ToolResultMessage",
            "Usage",
            "UserMessage",
        ],
        ".core.messages",
    ),
    "Model": ".models",
    "ScriptedModel": ".models",
    "Run": ".engine.run",
    "RunHandle": ".engine.runtime",
    "Runtime": ".engine.runtime",
    "default_runtime": ".engine.runtime",
    "ApprovalRequest": ".engine.tool_execution",
    **dict.fromkeys(["Tool", "ToolContext", "agentic_function", "default_registry", "function"], ".tools"),
    **dict.fromkeys(["McpError", "McpServer", "mcp"], ".tools.mcp_source"),
    **dict.fromkeys(["ServedTools", "serve"], ".jupyter._serve"),
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'openprogram_jupyter' has no attribute {name!r}")
    import importlib

    from .jupyter._warm_up import wait_for_warm_up

    wait_for_warm_up()
    # The runtime module gives the tools layer the default Runtime an agentic function falls
    # back to (`_ambient`), so it loads with the first public name, whichever that is.
    importlib.import_module(".engine.runtime", __name__)
    module = importlib.import_module(module_name, __name__)
    value = module if name == "decision" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "ANY",
    "AgentEvent",
    "ApprovalRequest",
    "ArgumentError",
    "AskError",
    "AssistantMessage",
    "CassetteError",
    "DecisionError",
    "Divergence",
    "Edit",
    "Evaluation",
    "EvaluationInterrupted",
    "EvaluationPlan",
    "ImageContent",
    "Judgement",
    "McpError",
    "McpServer",
    "Model",
    "OpenProgramError",
    "PairedComparison",
    "Policy",
    "ProviderError",
    "ReplyError",
    "RerunReport",
    "Run",
    "RunCheck",
    "RunError",
    "RunHandle",
    "Runtime",
    "SaveError",
    "SchemaError",
    "ScriptedModel",
    "ServedTools",
    "SetupError",
    "Skip",
    "TextContent",
    "ThinkingContent",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "aevaluate",
    "agentic_function",
    "check",
    "decision",
    "default_registry",
    "default_runtime",
    "edit",
    "evaluate",
    "function",
    "judge",
    "load_ipython_extension",
    "mcp",
    "pin",
    "policy",
    "rerun_all",
    "serve",
    "side_by_side",
    "skip",
    "wire_preview",
]


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """``%load_ext openprogram_jupyter``: the magics, the cell rewrite, and ``runtime``."""
    from .jupyter import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    from .jupyter import unload_ipython_extension as unload

    unload(ipython)
