"""One Playwright driver and one chromium per test process, shared by the browser tests.

Started the first time a test asks for a browser (:func:`playwright_turn`, :func:`browser`)
and stopped by :func:`stop` at the end of the session. Playwright's sync API leaves its own
event loop marked as the thread's running loop after each call (its next call expects it
there); left so between tests, ``asyncio.run`` and pytest-asyncio in a later test of the
same process would refuse to start. So the driver's loop is the running loop only inside
:func:`playwright_turn`, and no loop is running when a turn starts or ends.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

_driver: Any = None  # playwright.sync_api.Playwright, once started
_browser: Any = None  # playwright.sync_api.Browser, once launched


def launch(playwright: Any, executable: str, args: list[str]) -> Any:
    """Headless chromium at ``executable`` with ``args``, on ``playwright``'s driver."""
    return playwright.chromium.launch(executable_path=executable, args=args, headless=True)


@contextlib.contextmanager
def playwright_turn() -> Iterator[Any]:
    """This process's Playwright driver (started on first use), its loop the thread's
    running loop until the block ends; raises if an asyncio loop runs in this thread, where
    Playwright's sync API cannot be used."""
    global _driver
    if asyncio.events._get_running_loop() is not None:
        raise RuntimeError("a browser page was asked for while an asyncio loop runs in this thread")
    try:
        if _driver is None:
            from playwright.sync_api import sync_playwright

            _driver = sync_playwright().start()
        else:
            asyncio.events._set_running_loop(_driver._loop)
        yield _driver
    finally:
        asyncio.events._set_running_loop(None)


def browser(playwright: Any, executable: str, args: list[str]) -> Any:
    """This process's chromium (``executable`` with ``args``), launched on first use or
    again if it has gone away; call inside :func:`playwright_turn`."""
    global _browser
    if _browser is None or not _browser.is_connected():
        _browser = launch(playwright, executable, args)
    return _browser


def stop() -> None:
    """Close this process's chromium and stop its driver, if they were started."""
    global _driver, _browser
    if _driver is None:
        return
    with playwright_turn():
        try:
            if _browser is not None and _browser.is_connected():
                _browser.close()
        finally:
            driver, _driver, _browser = _driver, None, None
            driver.stop()
