"""Real headless Chromium (Debian's ``/usr/bin/chromium``) for every browser directory
(``tests/web/browser/``, ``tests/system/browser/``).

``tests/conftest.py`` imports the session-wide fixtures (one Chromium and one Playwright loop for the
whole run, whichever directory launches it); each browser directory's ``conftest.py`` imports
:func:`playwright_loop_for_this_test`, autouse there only. pytest-playwright supplies the sync
``browser``/``context``/``page``/``new_context`` fixtures; the tests are plain sync functions
(asyncio_mode=auto leaves them alone). Never ``playwright install``: docs/architecture.md#browser-tests
has the recipe.
"""

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_MISSING = f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)"
_SKIPPED = pytest.StashKey[bool]()


def chromium_required() -> bool:
    return os.environ.get("CI") == "true"


@pytest.fixture(scope="session")
def chromium_path(pytestconfig: pytest.Config) -> Path:
    """Chromium's path; the tests skip without it, except on CI (``CI=true``), where they fail."""
    if not CHROMIUM.exists():
        if chromium_required():
            pytest.fail(f"{CHROMIUM_MISSING}; CI needs it", pytrace=False)
        pytestconfig.stash[_SKIPPED] = True
        pytest.skip("Chromium missing")
    return CHROMIUM


def report_missing_chromium(terminalreporter: pytest.TerminalReporter) -> None:
    """Say once, not once per test, why the browser tests were skipped."""
    if terminalreporter.config.stash.get(_SKIPPED, False):
        terminalreporter.write_line(f"{CHROMIUM_MISSING}: browser tests skipped")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any], chromium_path: Path) -> dict[str, Any]:
    # Playwright adds --no-sandbox, --headless and the background-networking flags itself; the resolver
    # rule stops Chromium's own look-ups of Google hosts (there is no internet here, and CI needs none).
    return {
        **browser_type_launch_args,
        "executable_path": str(chromium_path),
        "args": [
            "--disable-gpu",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
        ],
    }


# Playwright's sync API runs its asyncio loop in a greenlet and, between calls, leaves that loop marked
# as the thread's running loop (playwright/_impl/_greenlets.py, wait_for_future). pytest-asyncio then
# refuses to run any async test later in the session ("Runner.run() cannot be called from a running
# event loop"), and the browser fixtures live for the whole session. So the mark is shown to browser
# tests only: set while one runs, cleared after it, and set again for the browser's own teardown.


@pytest.fixture(scope="session")
def playwright_loop(browser: Browser) -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio._get_running_loop()  # marked by the launch that just returned
    assert loop is not None, "Playwright's sync API no longer marks its loop; drop these fixtures"
    yield loop
    asyncio._set_running_loop(loop)  # browser.close() and playwright.stop() come next


@pytest.fixture(autouse=True)
def playwright_loop_for_this_test(playwright_loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """Autouse in the browser directories that import it (and it needs Chromium: skips without)."""
    asyncio._set_running_loop(playwright_loop)
    yield
    asyncio._set_running_loop(None)
