"""No ``$`` the package shows is typeset as math (issue 43, item 2).

JupyterLab, Notebook 7 and nbclassic typeset ``$…$`` in HTML and Markdown outputs: a
budget note ``(max_cost=$0.05; spent $0.0816)`` read ``max_cost=0.05;𝑠𝑝𝑒𝑛𝑡0.0816``. This
holds by construction: every producer of HTML or Markdown in the package is found by
reading its source, and each must go through the one marking step
(``render/_safe.py``: ``display_bundle``, ``update_bundle``, ``safe_view``,
``safe_bundle``; widgets through ``jupyter/_inert_widget.py``). The browser side is
``tests/browser/test_lab_math.py``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.render import render_bundle

PACKAGE = Path(op.__file__).parent
SAFE = PACKAGE / "render" / "_safe.py"
INERT_WIDGET = PACKAGE / "jupyter" / "_inert_widget.py"
MARKER = '<div class="mathjax_ignore tex2jax_ignore">'
# The names that mark: each returns its argument's views marked.
MARKING = {"safe_view", "safe_bundle", "inert_math_html"}
REPR_METHODS = {"_repr_html_", "_repr_markdown_", "_repr_mimebundle_", "_repr_latex_"}
OUTPUT_NAMES = {
    "display",
    "publish_display_data",
    "update_display",
    "HTML",
    "Markdown",
    "Math",
    "Latex",
    "display_html",
    "display_markdown",
}


def modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', '?')}"


def called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def test_every_display_the_package_makes_goes_through_display_bundle():
    """IPython's display functions are imported, and a display handle updated, only in
    render/_safe.py — so every displayed bundle is marked there."""
    found = []
    for path, tree in modules():
        if path == SAFE:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                ("IPython.display", "IPython.core.display")
            ):
                found += [where(path, node) + f" imports {a.name}" for a in node.names if a.name in OUTPUT_NAMES]
            elif isinstance(node, ast.Import):
                found += [where(path, node) for a in node.names if a.name.startswith("IPython.display")]
            elif (
                isinstance(node, ast.Call)
                and called_name(node) == "update"
                and any(k.arg == "raw" for k in node.keywords)
            ):
                found.append(where(path, node) + " updates a display handle")
    assert not found, "display outside render/_safe.display_bundle / update_bundle:\n" + "\n".join(found)


def module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path, tree: ast.Module) -> dict[str, str]:
    """Each name ``path`` imports with ``from X import name``: the module ``X`` it names."""
    package = module_of(path) if path.name == "__init__.py" else module_of(path).rpartition(".")[0]
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            names.update({alias.asname or alias.name: target for alias in node.names})
    return names


def marking_functions(trees: list[tuple[Path, ast.Module]]) -> set[tuple[str, str]]:
    """The functions that mark, as (module, name): :data:`MARKING`, and every function each
    of whose returns is a call to one that marks (to a fixpoint). A called name is looked
    up where its module imported it from, else in its own module; a method by its name."""
    functions = [
        (path, node, imported_names(path, tree))
        for path, tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
    ]
    marking = {(module_of(SAFE), name) for name in MARKING}
    while True:
        more = {
            (module_of(path), node.name)
            for path, node, names in functions
            if (module_of(path), node.name) not in marking and returns_marked(path, node, names, marking)
        }
        if not more:
            return marking
        marking |= more


def returns_marked(path: Path, function: ast.FunctionDef, names: dict[str, str], marking: set[tuple[str, str]]) -> bool:
    """Whether every ``return`` of ``function`` returns a call to a marking function."""

    def marks(value: ast.expr) -> bool:
        if not isinstance(value, ast.Call):
            return False
        name = called_name(value)
        if isinstance(value.func, ast.Name):
            return (names.get(name, module_of(path)), name) in marking
        return any(marked == name for _module, marked in marking)

    values = [n.value for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None]
    return bool(values) and all(marks(v) for v in values)


def test_every_repr_method_returns_a_marked_view():
    """Each ``_repr_html_`` / ``_repr_markdown_`` / ``_repr_mimebundle_`` returns a call to a
    function that marks (safe_view, or one that returns safe_view's text on every path)."""
    trees = list(modules())
    marking = marking_functions(trees)
    methods = [
        (path, node, imported_names(path, tree))
        for path, tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name in REPR_METHODS
    ]
    assert len(methods) >= 8, methods  # Run (2), check, rerun, evaluation (3), side by side
    unmarked = [
        where(path, node) + f" {node.name}"
        for path, node, names in methods
        if not returns_marked(path, node, names, marking)
    ]
    assert not unmarked, "repr methods that do not return a marked view:\n" + "\n".join(unmarked)


def widget_classes() -> set[str]:
    import ipywidgets

    return {
        name
        for name in dir(ipywidgets)
        if isinstance(getattr(ipywidgets, name), type) and issubclass(getattr(ipywidgets, name), ipywidgets.DOMWidget)
    }


def test_every_widget_is_made_by_inert_widget():
    """No ipywidgets DOM widget class is called anywhere but jupyter/_inert_widget.py (the
    live view's ``make`` calls it)."""
    classes = widget_classes()
    assert {"HTML", "VBox", "Button", "Text"} <= classes
    made = [
        where(path, node) + f" {called_name(node)}"
        for path, tree in modules()
        if path != INERT_WIDGET
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and called_name(node) in classes
    ]
    assert not made, "widgets made outside inert_widget:\n" + "\n".join(made)


# -- what the marking does --------------------------------------------------------------


def budget_run() -> op.Run:
    """A run over its max_cost of $0.05: two priced rounds with a tool call, then the answer."""

    @op.function(register_globally=False)
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    def priced(item: op.ToolCall | str) -> op.AssistantMessage:
        content = [op.TextContent(text=item)] if isinstance(item, str) else [item]
        return op.AssistantMessage(
            content=content, usage=op.Usage(input=900, output=100, total_tokens=1000, cost=0.0408)
        )

    call = op.ToolCall(name="add", arguments={"a": 1, "b": 2})
    model = op.ScriptedModel([priced(call), priced(call), priced("It costs $3 and `$x` stays code.")])
    return op.Runtime(model=model).run("Add, then say what $5 buys.", tools=[add], max_cost=0.05)


def unescaped_dollars(markdown: str) -> list[str]:
    """The lines of ``markdown`` outside code fences and code spans holding a ``$`` not
    written ``\\$``."""
    lines, fence = [], False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        prose = re.sub(r"(`+).*?\1", "", line)
        if not fence and re.search(r"(?<!\\)\$", prose):
            lines.append(line)
    return lines


def test_a_budget_runs_views_are_marked_and_its_markdown_escapes_dollars():
    run = budget_run()
    bundle = render_bundle(run)
    assert "$0.05" in bundle["text/plain"] and "max_cost=$0.05" in bundle["text/plain"]
    assert bundle["text/html"].startswith(MARKER) and bundle["text/html"].count(MARKER) == 1
    assert "max_cost=$0.05" in bundle["text/html"]  # HTML keeps its $: the class is what MathJax obeys
    markdown = bundle["text/markdown"]
    assert r"spent \$0.1224 of \$0.05" in markdown and r"\$3" in markdown and "`$x`" in markdown
    assert "`the run reached its cost limit (max_cost=$0.05; spent $0.0816)" in markdown  # code: kept
    assert not unescaped_dollars(markdown), unescaped_dollars(markdown)
    assert run._repr_html_().startswith(MARKER) and r"\$0.05" in run._repr_markdown_()


def test_every_widget_of_a_live_view_carries_the_classes():
    from openprogram_jupyter.jupyter._view import RunView

    run = budget_run()
    view = RunView()
    for event in run.events:
        view.feed(event)
    view.tick(force=True)
    widgets = view.pool.open_widgets()
    assert len(widgets) > 5
    assert all({"mathjax_ignore", "tex2jax_ignore"} <= set(w._dom_classes) for w in widgets)
    view.close()


@pytest.mark.parametrize(
    ("markdown", "escaped"),
    [
        ("spent $0.05 of $1", r"spent \$0.05 of \$1"),
        ("a `$x` b $ c", r"a `$x` b \$ c"),
        ("```\ncode $y\n```\nafter $z", "```\ncode $y\n```\nafter \\$z"),
        ("    indented $q\n\npara $r", "    indented $q\n\npara \\$r"),
        (r"already \$5", r"already \$5"),
        ("an open ` tick $1", r"an open ` tick \$1"),
        ("<https://example.com/$b> $c", r"<https://example.com/$b> \$c"),
        ("- item $1\n\n  ```\n  in $list\n  ```", "- item \\$1\n\n  ```\n  in $list\n  ```"),
        ("no dollar", "no dollar"),
    ],
)
def test_dollars_are_escaped_outside_code_only_and_twice_is_once(markdown, escaped):
    from openprogram_jupyter.render._markdown_inert import inert_dollars

    assert inert_dollars(markdown) == escaped
    assert inert_dollars(escaped) == escaped


def test_marking_html_twice_nests_nothing_and_a_sibling_is_marked_again():
    from openprogram_jupyter.render._safe import inert_math_html, safe_bundle

    once = inert_math_html("<p>$1 and $2</p>")
    assert once.startswith(MARKER) and inert_math_html(once) == once
    assert inert_math_html(once + "<p>$3</p>").count(MARKER) == 2
    assert safe_bundle({"text/html": once, "application/x": {"k": 1}})["application/x"] == {"k": 1}
