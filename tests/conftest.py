"""What every test shares."""

from __future__ import annotations

import signal

import pytest


@pytest.fixture
def sigint_raises():
    """Ctrl-C raises ``KeyboardInterrupt`` in the main thread during the test, as in a
    terminal or a kernel — also when pytest was started with SIGINT ignored (as a shell
    starts a background job), where ``_thread.interrupt_main()`` would do nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture(autouse=True, scope="session")
def children_start_pytest_without_plugins():
    """Every process the tests start (a kernel, a written test run with ``python -m
    pytest``, a notebook's or a document's ``subprocess.run`` of pytest) inherits
    ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``: the files they test are plain synchronous tests,
    and loading the test environment's plugins would cost each pytest seconds (the
    notebook-regression plugin's ``nbformat`` imports ``jsonschema``, which builds a URI
    grammar at import). Set in the session, so pytest's own workers, started before it,
    keep their plugins."""
    import os

    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    yield
    if previous is None:
        os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    else:
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = previous


@pytest.fixture(autouse=True)
def secrets_known_as_before_the_test():
    """The secrets the process knows (``api_key=`` values remembered by any Runtime or
    model a test made) are put back as they were before each test: otherwise a key a test
    in the same worker made known earlier decides what a later test's streamed text holds
    back as a possible start of it, and a test passes or fails by the order tests run in."""
    from openprogram_jupyter.core import _secrets

    with _secrets._lock:
        saved = set(_secrets._remembered)
    yield
    with _secrets._lock:
        _secrets._remembered.clear()
        _secrets._remembered.update(saved)


@pytest.fixture(autouse=True)
def registry_as_before_the_test():
    """The tools registered globally (``@op.function`` without ``register_globally=False``)
    are put back as they were before each test: a run given no ``tools=`` offers every one
    of them, so a tool another test in the same worker registered would change what a later
    test's request carries (its size, its menu)."""
    from openprogram_jupyter.tools.registry import default_registry

    with default_registry._lock:
        tools, unavailable = dict(default_registry._tools), dict(default_registry._unavailable)
    yield
    with default_registry._lock:
        default_registry._tools.clear()
        default_registry._tools.update(tools)
        default_registry._unavailable.clear()
        default_registry._unavailable.update(unavailable)
