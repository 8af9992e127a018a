"""Browser tests against servers of their own (child processes): the shared Chromium of
``tests/browser_fixtures.py``, and no app of this directory's to point pages at."""

from typing import Any

import pytest
from browser_fixtures import playwright_loop_for_this_test  # noqa: F401 (autouse in this directory)


@pytest.fixture
def browser_context_args() -> dict[str, Any]:
    """Each page opens its own server's full URL: no base URL. (A local fixture, so the session-wide
    one pytest-playwright caches, with tests/web/browser's app as base URL, is never built from here.)"""
    return {}
