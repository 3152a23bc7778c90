"""``%agent key [PROVIDER]``: type a provider's key into the kernel, or see where each
key came from.

``%agent key openai`` asks for the key with a password field (``getpass``: nothing is
echoed, nothing reaches the notebook), puts it in this kernel's environment as the
provider's first key variable (``OPENAI_API_KEY``) and masks it in every transcript
(:func:`.._key_sources.set_key`). A key variable's own name works too (``%agent key
GOOGLE_API_KEY``). ``%agent key`` alone lists each key variable and where its value came
from — the environment, a ``.env`` file, Colab's secrets, typed in — without the value.
"""

from __future__ import annotations

import getpass
from html import escape
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ..core._key_sources import origins, set_key
from ..render._safe import display_bundle
from ..render._table import html_table

if TYPE_CHECKING:
    from ..engine.runtime import Runtime
    from ._magics import AgentMagics

__all__ = ["key_command"]

TYPED_IN = "typed in with %agent key (kept in this kernel's memory only)"


def key_command(magics: AgentMagics, rest: str) -> None:
    """Run ``%agent key REST`` (see the module docstring); ``UsageError`` for an unknown
    provider, a frontend that cannot ask for input, or an empty answer (nothing changes)."""
    if not rest:
        display_bundle(_origins_bundle())
        return
    variable = _variable_for(rest)
    value = _ask(f"{variable} for {rest}: ")
    set_key(variable, value, TYPED_IN)
    _follow_new_key(magics)
    text = (
        f"{variable} is set for this kernel ({TYPED_IN}); it is masked in every transcript "
        "and never written to the notebook."
    )
    display_bundle({"text/plain": text, "text/html": f"<p>{escape(text)}</p>"})


def _variable_for(name: str) -> str:
    """The key variable ``%agent key NAME`` sets: a provider's first one, or ``NAME`` itself
    when it is one of the providers' key variables."""
    from ..models.providers import PROVIDER_INFOS, SECRET_ENV_VARS

    for info in PROVIDER_INFOS:
        if info.prefix == name and info.key_variables:
            if not info.one_key:
                break  # its credentials come in pairs: the user names the variable
            return info.key_variables[0]
    if name in SECRET_ENV_VARS:
        return name
    providers = ", ".join(i.prefix for i in PROVIDER_INFOS if i.key_variables and i.one_key)
    raise UsageError(
        f"%agent key {name}: expected a provider ({providers}) or a key variable ({', '.join(sorted(SECRET_ENV_VARS))})"
    )


def _ask(prompt: str) -> str:
    """The key, typed into a password field; ``UsageError`` when none can be asked for or
    none was typed."""
    from IPython.core.error import StdinNotImplementedError

    try:
        value = getpass.getpass(prompt)  # looked up now: ipykernel puts its own in place
    except (StdinNotImplementedError, EOFError, OSError):
        raise UsageError(
            "%agent key: this frontend cannot ask for input; set the variable in the "
            "environment or in a .env file next to the notebook instead"
        ) from None
    value = (value or "").strip()
    if not value:
        raise UsageError("%agent key: no key was typed; nothing changed")
    return value


def _follow_new_key(magics: AgentMagics) -> None:
    """The notebook's ``runtime`` on the default model chooses again (a key may change it)."""
    runtime: Runtime | None = magics.runtimes.namespace_runtime
    if runtime is not None and runtime.model_spec is None:
        runtime.model = None


def _origins_bundle() -> dict[str, str]:
    from ..models.providers import SECRET_ENV_VARS

    rows = origins(sorted(SECRET_ENV_VARS))
    text = "\n".join(f"{name}: {origin}" for name, origin in rows)
    cells = [[f"<code>{escape(name)}</code>", escape(origin)] for name, origin in rows]
    return {"text/plain": text, "text/html": html_table(["variable", "where it comes from"], cells)}
