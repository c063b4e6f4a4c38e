"""A real headless Chromium for the browser tests: the HTML replays and the web app (``mancala-envs serve``).

The browser is the system's (Debian's ``chromium`` package; ``.ci/run`` installs it), driven by Playwright from pip,
which never downloads a browser of its own here: :func:`chromium_executable` finds the system one and the tests launch
it by path. A test asks for the ``browser`` fixture (tests/conftest.py: one browser per test process, closed at its
end) and opens pages with :func:`open_page`, which records every console error and uncaught exception of the page so
that a test can assert there were none.

On a machine without Chromium the browser tests are skipped with a message saying how to install it; CI fails on any
skipped test, so there they always run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

#: where Debian's package puts the browser itself (``/usr/bin/chromium`` is a shell wrapper around it)
DEBIAN_CHROMIUM = "/usr/lib/chromium/chromium"
#: the skip reason on a machine without Chromium
NO_CHROMIUM = "needs a system Chromium for the browser tests: apt-get install chromium (Debian) or set CHROMIUM_PATH"


def chromium_executable() -> str | None:
    """The system Chromium's path: ``$CHROMIUM_PATH``, Debian's binary, or ``chromium`` on the PATH; None if none."""
    for candidate in (os.environ.get("CHROMIUM_PATH"), DEBIAN_CHROMIUM):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class WatchedPage:
    """A Playwright page with everything it complained about.

    Attributes:
        page: The Playwright ``Page``.
        errors: Every console message of type ``error`` and every uncaught exception, as text, in order.
    """

    page: Any
    errors: list[str] = field(default_factory=list)

    def assert_no_errors(self) -> None:
        """Fails with the page's complaints, if it had any."""
        assert not self.errors, "the page reported errors:\n" + "\n".join(self.errors)


@contextmanager
def open_page(browser: Any, url: str | None = None) -> Iterator[WatchedPage]:
    """A new page of ``browser`` (in a fresh context), watched for console errors, at ``url`` if given; closed after.

    Args:
        browser: The ``browser`` fixture (a Playwright ``Browser``).
        url: Where to go first (``file://...`` for a replay, ``http://127.0.0.1:PORT/`` for the web app), or None.
    """
    context = browser.new_context()
    page = context.new_page()
    watched = WatchedPage(page)
    page.on("console", lambda message: message.type == "error" and watched.errors.append(f"console: {message.text}"))
    page.on("pageerror", lambda error: watched.errors.append(f"uncaught: {error}"))
    try:
        if url is not None:
            page.goto(url)
        yield watched
    finally:
        context.close()
