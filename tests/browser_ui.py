"""Driving the chat UI the way a person does: through its ``data-testid`` elements, never its internals."""

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, message_text

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core (pinned in package-lock.json), the accessibility checker run on every page and panel."""
PASSWORD = "correct horse battery"
PHONE = {"width": 390, "height": 844}
"""A phone's viewport, for the tests run at a desktop's and a phone's width."""
ASSISTANT = '[data-testid="message"][data-role="assistant"]'
USER = '[data-testid="message"][data-role="user"]'
# The text of each message, without the author label and the time.
ASSISTANT_TEXT = f"{ASSISTANT} .message-body"
USER_TEXT = f"{USER} .message-body"


def login(page: Page, username: str, password: str = PASSWORD, *, url: str = "/") -> None:
    """Open the app (at ``url``: another server's) and sign in through the login form; returns once the
    app shows the user."""
    page.goto(url)
    page.get_by_test_id("login-username").fill(username)
    page.get_by_test_id("login-password").fill(password)
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("current-user")).to_have_text(username)
    # The app's last step after sign-in (once the sidebar and the initial chat are loaded).
    expect(page.get_by_test_id("composer-input")).to_be_focused()


def new_chat(page: Page) -> None:
    """Start a chat from the sidebar: the empty start screen, no chat open (its first message makes
    it, and only then is it in the list; ``current_session`` gives its id after that)."""
    page.get_by_test_id("new-chat").click()
    page.wait_for_function("() => localStorage.getItem('ao.currentSession') === null")
    expect(page.get_by_test_id("message")).to_have_count(0)
    expect(page.get_by_test_id("start-screen")).to_be_visible()
    expect(page.locator('[data-testid="session-item"].active')).to_have_count(0)


def chat_action(item: Locator, testid: str) -> None:
    """Choose one of a chat's actions (``session-rename``, ``session-pin``…) from its "…" menu in the
    list, as a person does."""
    item.get_by_test_id("session-menu").click()
    item.get_by_test_id(testid).click()


def current_session(page: Page) -> str:
    """The open chat's id, as the page keeps it; waits for one (the app opens a chat after sign-in)."""
    return page.wait_for_function("() => localStorage.getItem('ao.currentSession')").json_value()


def send(page: Page, text: str | None) -> Locator:
    """Type (unless None: send what is there) and send a message; returns the answer once it is complete."""
    finished = page.locator(f"{ASSISTANT}:not([aria-busy])")
    count = finished.count()
    if text is not None:
        page.get_by_test_id("composer-input").fill(text)
    page.get_by_test_id("composer-send").click()
    expect(finished).to_have_count(count + 1, timeout=60_000)
    answer = finished.last.locator(".message-body")
    expect(answer).not_to_have_class(re.compile(r"\bstreaming\b"))
    return answer


def send_refused(page: Page, text: str) -> int:
    """Type and send a message the server is expected to refuse; returns the response's status."""
    with page.expect_response("**/messages") as response:
        page.get_by_test_id("composer-input").fill(text)
        page.get_by_test_id("composer-send").click()
    return response.value.status


def api(page: Page, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """A request from the page itself (its cookie, a fresh CSRF token): ``{"status", "body"}``."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const me = await (await fetch("/api/auth/me")).json();
            const response = await fetch(path, {
                method,
                headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf_token },
                body: body === null ? undefined : JSON.stringify(body),
            });
            const text = await response.text();
            let parsed = text;
            try { parsed = JSON.parse(text); } catch {}
            return { status: response.status, body: parsed };
        }""",
        [method, path, body],
    )


def last_tool_result(model: ScriptedModel) -> dict[str, Any]:
    """The tool result the model was given in its last request (what the runtime stored)."""
    tool_messages = [m for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    return json.loads(message_text(tool_messages[-1]))


def chart_points(figure: Locator) -> list[int]:
    """How many points or bars Chart.js drew per dataset of a chart ``<figure>``, once it is drawn."""
    canvas = figure.locator("canvas")
    expect(canvas).to_be_visible()
    canvas.page.wait_for_function(
        "(canvas) => window.Chart.getChart(canvas) !== undefined", arg=canvas.element_handle()
    )
    return canvas.evaluate(
        """(canvas) => {
            const chart = window.Chart.getChart(canvas);
            return chart.data.datasets.map((_, index) => chart.getDatasetMeta(index).data.length);
        }"""
    )


def chart_values(figure: Locator) -> list[list[float]]:
    """The values a drawn chart holds, per dataset."""
    chart_points(figure)
    return figure.locator("canvas").evaluate(
        "(canvas) => window.Chart.getChart(canvas).data.datasets.map((dataset) => dataset.data)"
    )


def accessibility_problems(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page as it shows now (WCAG 2.x A and AA and
    best practices), one line each with the elements concerned: empty when there are none. Run by
    evaluation, which the page's CSP does not govern (the app itself never loads it)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    return page.evaluate(
        """async () => {
            const { violations } = await axe.run(document, { resultTypes: ["violations"] });
            return violations
                .filter((v) => v.impact === "serious" || v.impact === "critical")
                .map((v) => {
                    const where = v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(", ");
                    return `${v.id} (${v.impact}): ${v.help} -- ${where}`;
                });
        }"""
    )
