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
