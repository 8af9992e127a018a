"""Live sessions across two app servers on one PostgreSQL, in real Chromium: a device on server B sees
an answer written through server A stream in (PostgreSQL LISTEN/NOTIFY), a reload on B mid-turn joins
it, and a stale tab on B is refused and then sends. Both servers end their live feeds every 2 s, so
the browsers also reconnect throughout; no message is lost or shown twice."""

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from browser_ui import (
    ASSISTANT,
    ASSISTANT_TEXT,
    PASSWORD,
    USER_TEXT,
    current_session,
    login,
    new_chat,
    send,
    send_refused,
)
from playwright.sync_api import BrowserContext, Page, expect

from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import FreshSchema
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

pytestmark = pytest.mark.postgres
ANSWER = "Germany leads with 31 % of revenue, then France with 18 %, then Spain with 9 %."
SESSION_FEED = "**/api/sessions/*/events**"


@pytest.fixture
def two_servers(
    tmp_path: Path, scripted_model: ScriptedModel, postgres_schema: FreshSchema
) -> Iterator[list[str]]:
    engine = make_engine(postgres_schema.sqlalchemy_url)
    try:
        migrate(engine)
        UserStore(engine).create("alice", PASSWORD)
    finally:
        engine.dispose()
    apps = [
        AppProcess(
            clean_environment(
                AGENT_ORCHESTRATOR_HOME=str(tmp_path / name),
                DATABASE_URL=postgres_schema.url,
                AGENT_PROVIDER_BASE_URL=scripted_model.base_url,
                AGENT_MODEL="scripted-model",
                AGENT_WEB_RETAIL="0",
                AGENT_WEB_LIVE_FEED_SECONDS="2",
                AGENT_SERVER_ID=f"server-{name}",
            )
        )
        for name in ("a", "b")
    ]
    try:
        for app in apps:
            app.start()
        yield [app.url for app in apps]
    finally:
        for app in apps:
            app.kill()


def _devices(new_context: Callable[..., BrowserContext], urls: list[str]) -> list[Page]:
    """A device (browser context) per server, signed in as alice."""
    pages = []
    for url in urls:
        page = new_context().new_page()
        login(page, "alice", url=url)
        pages.append(page)
    return pages


def test_devices_on_two_servers_see_each_others_turns_live(
    two_servers: list[str], new_context: Callable[..., BrowserContext], scripted_model: ScriptedModel
) -> None:
    phone, laptop = _devices(new_context, two_servers)
    new_chat(phone)
    expect(send(phone, "Hello")).to_have_text("OK")  # the chat's first message makes it
    session_id = current_session(phone)
    expect(laptop.get_by_test_id("session-item")).to_have_count(1)  # the list is live across servers
    laptop.get_by_test_id("session-item").locator(".session-open").click()
    assert current_session(laptop) == session_id

    # Written through server A, seen as it streams on server B, with nothing reloaded.
    scripted_model.script(Text(ANSWER, pace=0.5))
    phone.get_by_test_id("composer-input").fill("Which countries lead?")
    phone.get_by_test_id("composer-send").click()
    streaming = laptop.locator(f"{ASSISTANT} .message-body.streaming")
    expect(streaming).to_have_text(re.compile(r"^Germany leads"), timeout=30_000)
    partial = streaming.text_content()
    assert partial and ANSWER.startswith(partial) and partial != ANSWER

    # A reload on B mid-turn joins the turn where it is.
    laptop.reload()
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hello", "Which countries lead?"], timeout=30_000)
    expect(laptop.locator(ASSISTANT_TEXT)).to_have_text(["OK", ANSWER], timeout=30_000)
    expect(phone.locator(ASSISTANT_TEXT)).to_have_text(["OK", ANSWER])

    # And back: B's turn streams into A.
    scripted_model.script(Text("France grew fastest.", pace=0.3))
    expect(send(laptop, "Who grew fastest?")).to_have_text("France grew fastest.")
    for device in (phone, laptop):
        expect(device.locator(USER_TEXT)).to_have_text(
            ["Hello", "Which countries lead?", "Who grew fastest?"]
        )
        expect(device.locator(ASSISTANT_TEXT)).to_have_text(["OK", ANSWER, "France grew fastest."])


def test_a_stale_tab_on_the_other_server_is_refused_then_sends(
    two_servers: list[str], new_context: Callable[..., BrowserContext], scripted_model: ScriptedModel
) -> None:
    phone, laptop = _devices(new_context, two_servers)
    new_chat(phone)
    expect(send(phone, "Hi")).to_have_text("OK")  # the chat's first message makes it
    session_id = current_session(phone)
    laptop.route(SESSION_FEED, lambda route: route.abort())  # B's tab will fall behind
    laptop.get_by_test_id("session-item").locator(".session-open").click()
    assert current_session(laptop) == session_id
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hi"])
    expect(send(phone, "Hello")).to_have_text("OK")

    assert send_refused(laptop, "Anything new?") == 409
    composer = laptop.get_by_test_id("composer-input")
    expect(laptop.locator(USER_TEXT)).to_have_text(["Hi", "Hello"])
    expect(laptop.locator(".message-missed")).to_have_count(2)
    expect(composer).to_have_value("Anything new?")

    laptop.unroute(SESSION_FEED)
    expect(send(laptop, None)).to_have_text("OK")
    for device in (phone, laptop):
        expect(device.locator(USER_TEXT)).to_have_text(["Hi", "Hello", "Anything new?"])
        expect(device.locator(ASSISTANT_TEXT)).to_have_text(["OK", "OK", "OK"])
