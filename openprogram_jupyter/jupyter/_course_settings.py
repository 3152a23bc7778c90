"""A course's rules as ``AgentMagics`` traits: :class:`CourseSettings`.

A JupyterHub admin sets them in an IPython configuration file students cannot change (the
system-wide ``/etc/ipython/ipython_config.py``, or a profile's); ``%load_ext`` reads them and
installs them in the process-wide record every run obeys
(:mod:`openprogram_jupyter.core._course`), with where each came from. A later
``%config AgentMagics.<rule> = ...`` is installed the same way — tighter only: one that would
loosen a rule leaves it as it was, says so in one line, and the trait shows the rule in force.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traitlets import Dict, Enum, Float, Int, List, Unicode
from traitlets.config import Application, Configurable
from traitlets.config.loader import Config, PyFileConfigLoader

from ..core._course import MODES, RULE_NAMES, CourseContext, CourseRules, course_policy, install, installed

__all__ = ["CourseSettings", "find_context_files", "install_course", "rules_of"]

_CONTEXT_FILES = "context_files"


class CourseSettings(Configurable):
    """The course's rules (docs/teaching.md, "Setting up a course"); ``AgentMagics`` has them."""

    allowed_models = List(
        Unicode(),
        default_value=None,
        allow_none=True,
        config=True,
        help="Model globs a run may use (e.g. ['openai:gpt-4.1-mini']); None: any model.",
    )
    max_cost_per_session = Float(
        None, allow_none=True, config=True, help="Dollars all the runs of a kernel may spend together."
    )
    max_tokens_per_session = Int(
        None, allow_none=True, config=True, help="Tokens all the runs of a kernel may spend together."
    )
    tools_deny = List(Unicode(), config=True, help="Tool-name globs no run may offer or call.")
    require_approval = Dict(
        None,
        allow_none=True,
        config=True,
        help="A policy every call must pass first: {'deny': [...], 'ask': [...], 'allow': [...], 'default': ...}.",
    )
    mode = Enum(list(MODES), "normal", config=True, help="'normal', 'replay-only' or 'off'.")
    context_files = List(
        Unicode(), config=True, help="Files whose text every run's system prompt carries (e.g. ['COURSE.md'])."
    )


def rules_of(settings: CourseSettings, names: tuple[str, ...], source: str | dict[str, str]) -> CourseRules:
    """The rules ``settings`` sets among ``names`` (trait names), each with its source: one
    phrase for all, or one per rule. A bad ``require_approval`` raises ``SetupError``."""
    sources = {name: (source if isinstance(source, str) else source.get(name, _DEFAULT_SOURCE)) for name in names}
    given: dict[str, Any] = {}
    if "allowed_models" in names and settings.allowed_models is not None:
        given["allowed_models"] = (tuple(settings.allowed_models),)
    if "max_cost_per_session" in names:
        given["max_cost_per_session"] = settings.max_cost_per_session
    if "max_tokens_per_session" in names:
        given["max_tokens_per_session"] = settings.max_tokens_per_session
    if "tools_deny" in names:
        given["tools_deny"] = tuple(settings.tools_deny)
    if "require_approval" in names and settings.require_approval:
        given["policies"] = (course_policy(settings.require_approval),)
    if "mode" in names:
        given["mode"] = settings.mode
    return CourseRules(**given, sources={name: sources[name] for name in names})


_DEFAULT_SOURCE = "set in the IPython configuration"


def install_course(settings: CourseSettings, notify: Any = print) -> CourseRules:
    """Install the rules ``settings`` holds from the configuration (with the file each came
    from), then watch its traits: a later change (``%config``) is installed too, tighter
    only; ``notify`` is told, in one line, of a change that would have loosened a rule."""
    configured = tuple(name for name in RULE_NAMES if name != _CONTEXT_FILES and name in _section(settings.config))
    rules = install(rules_of(settings, configured, config_sources(configured)))
    if settings.context_files:
        found, missing = find_context_files(settings.context_files, Path.cwd())
        source = config_sources((_CONTEXT_FILES,)).get(_CONTEXT_FILES, _DEFAULT_SOURCE)
        rules = install(CourseRules(context=found, sources={_CONTEXT_FILES: source} if found else {}))
        for name in missing:
            notify(f"Course context file {name} not found beside the notebook or in a folder above it ({source}).")
    watch = _CourseWatch(settings, notify)
    watch.show_rules_in_force()
    settings.observe(watch.changed, names=[name for name in RULE_NAMES if name != _CONTEXT_FILES])
    return rules


class _CourseWatch:
    """Installs each later change of a rule's trait, and sets the traits back to the rules
    in force when a change would have loosened one."""

    def __init__(self, settings: CourseSettings, notify: Any) -> None:
        self.settings = settings
        self.notify = notify
        self.resetting = False  # the traits are being set to the rules in force: not a change

    def changed(self, change: dict[str, Any]) -> None:
        name = change["name"]
        if self.resetting:
            return
        before = installed()
        after = install(rules_of(self.settings, (name,), "set by %config in this notebook"))
        if name in ("allowed_models", "require_approval"):
            return  # added on top of the course's: a model must match both lists, a call pass both policies
        if _shown(after, name) != change["new"]:
            self.notify(
                f"AgentMagics.{name} = {change['new']!r}: the course's rule stays ({_shown(after, name)!r}, "
                f"{before.source(name)}); a notebook can only tighten a course's rules"
            )
            self.show_rules_in_force()

    def show_rules_in_force(self) -> None:
        """Set the caps, the deny list and the mode traits to the rules in force."""
        rules = installed()
        self.resetting = True
        try:
            for name in ("max_cost_per_session", "max_tokens_per_session", "tools_deny", "mode"):
                value = _shown(rules, name)
                if getattr(self.settings, name) != value:
                    setattr(self.settings, name, value)
        finally:
            self.resetting = False


def _section(config: Config) -> dict[str, Any]:
    return dict(config.get("AgentMagics", {}))


def _shown(rules: CourseRules, name: str) -> Any:
    """The value the trait ``name`` shows for ``rules`` in force (one that has no single
    value — several model lists, policies — shows what was set last)."""
    if name == "allowed_models":
        return list(rules.allowed_models[-1]) if rules.allowed_models else None
    if name == "tools_deny":
        return list(rules.tools_deny)
    if name == "require_approval":
        return None
    return getattr(rules, name)


def find_context_files(names: list[str], start: Path) -> tuple[tuple[CourseContext, ...], list[str]]:
    """The course context files ``names``, each looked for in ``start`` (the notebook's
    folder: the kernel's working directory), then each folder above it, the nearest found
    first; and the names found nowhere. A file is read as UTF-8 (bad bytes replaced); its
    tokens are estimated at four characters each."""
    found: list[CourseContext] = []
    missing: list[str] = []
    for name in names:
        path = next((folder / name for folder in (start, *start.parents) if (folder / name).is_file()), None)
        if path is None:
            missing.append(name)
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found.append(CourseContext(Path(name).name, str(path), text, max(1, len(text) // 4)))
    return tuple(found), missing


def config_sources(names: tuple[str, ...]) -> dict[str, str]:
    """For each rule in ``names``, the configuration file that set it (the last one loaded,
    as traitlets applies them), read from the running application's loaded files."""
    if not Application.initialized():
        return {}
    found: dict[str, str] = {}
    for loaded in Application.instance().loaded_config_files:
        path = Path(loaded)
        if path.suffix != ".py":
            continue
        try:
            config = PyFileConfigLoader(path.name, str(path.parent)).load_config()
        except Exception:  # a file that loaded once and fails now names no rule
            continue
        for name in names:
            if name in config.get("AgentMagics", {}):
                found[name] = f"set in {path}"
    return found
