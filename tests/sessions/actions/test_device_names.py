"""A session's activity names the devices and clients that used it as their owner knows them
(docs/architecture.md#session-activity), not by their raw User-Agent strings."""

import pytest

from agent_orchestrator.sessions.actions.activity import device_name


@pytest.mark.parametrize(
    ("agent", "named"),
    [
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 "
            "Safari/537.36",
            "Chrome on Linux",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            "Version/17.0 Mobile/15E148 Safari/604.1",
            "Mobile Safari on iPhone",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Firefox on Windows",
        ),
        ("ao (terminal client)", "ao (terminal client)"),
        ("python-httpx/0.28.1", "python-httpx"),
        ("OpenAI/Python 1.50.0", "OpenAI"),
        ("", "an unnamed client"),
    ],
)
def test_a_user_agent_is_named_as_its_owner_knows_it(agent: str, named: str) -> None:
    assert device_name(agent) == named
