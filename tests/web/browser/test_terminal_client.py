"""``ao``, the terminal client, driven in a real terminal (tmux) beside real Chromium
(docs/architecture.md#terminal-client): a device login approved in the browser, a chat started in the
terminal showing live in the browser and continued from both, a busy chat said in one line with its
exit code, and the kept token owner-only."""

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_ui import ASSISTANT_TEXT, current_session, login, new_chat, send
from playwright.sync_api import Page, expect

from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

AO = Path(sys.executable).with_name("ao")  # the command the project installs (uv run ao)


class Terminal:
    """One tmux session running a shell; commands typed with send-keys, the screen read back."""

    def __init__(self, name: str, env: dict[str, str]) -> None:
        self.name = name
        exports = " ".join(f"{key}={value}" for key, value in env.items())
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", name, "-x", "200", "-y", "50", f"env {exports} bash --norc"],
            check=True,
        )

    def type(self, line: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, line, "Enter"], check=True)

    def screen(self) -> str:
        shown = subprocess.run(
            ["tmux", "capture-pane", "-p", "-J", "-S", "-200", "-t", self.name],
            check=True,
            capture_output=True,
            text=True,
        )
        return shown.stdout

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.screen())
            if found:
                return found
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} never showed; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], check=False)


@pytest.fixture
def terminal(tmp_path: Path, browser_app) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is missing (apt-get install -y tmux)")
    env = {
        "AO_CONFIG": str(tmp_path / "ao" / "config.json"),
        "AO_SERVER": browser_app.url,
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PS1": "$ ",
    }
    shell = Terminal(f"ao-{os.getpid()}-{time.monotonic_ns()}", env)
    try:
        yield shell
    finally:
        shell.close()


def test_the_terminal_logs_in_through_the_browser_and_shares_its_chats_live(
    page: Page, user, terminal: Terminal, tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    alice = user("alice")
    login(page, alice)

    terminal.type(f"{AO} login --no-browser")
    code = terminal.wait_for(r"approve the code ([B-Z]{4}-[B-Z]{4})").group(1)
    page.goto(f"/device?code={code}")
    expect(page.get_by_test_id("device-code")).to_have_value(code)
    page.get_by_test_id("device-scope").select_option("chat")
    page.get_by_test_id("device-approve").click()
    expect(page.get_by_test_id("device-done")).to_contain_text("is logged in")
    terminal.wait_for(rf"Logged in to \S+ as {alice}")
    kept = tmp_path / "ao" / "config.json"
    assert kept.stat().st_mode & 0o777 == 0o600 and kept.parent.stat().st_mode & 0o777 == 0o700
    expect(page.get_by_test_id("token-row")).to_have_count(1)
    expect(page.get_by_test_id("token-row")).to_contain_text("chat")

    # A chat started in the terminal: its answer streams there, and the browser's list shows it live.
    page.get_by_test_id("nav-chat").click()
    scripted_model.script(Text("Germany leads with 31 % of revenue.", pace=0.2))
    terminal.type(f'{AO} ask "Which country leads?"')
    terminal.wait_for(r"Germany leads with 31 % of revenue\.")
    chat_id = terminal.wait_for(r"\(chat ([A-Za-z0-9._-]+)\)").group(1)
    item = page.locator(f'[data-testid="session-item"][data-session-id="{chat_id}"]')
    expect(item).to_have_count(1, timeout=30_000)
    item.click()
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(["Germany leads with 31 % of revenue."])

    # Continued in the browser, then in the terminal with -c: one conversation, seen by both.
    scripted_model.script(Text("France is second."))
    send(page, "And second?")
    scripted_model.script(Text("Spain is third."))
    terminal.type(f'{AO} ask -c "And third?"')
    terminal.wait_for(r"Spain is third\.")
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(
        ["Germany leads with 31 % of revenue.", "France is second.", "Spain is third."], timeout=30_000
    )
    terminal.type(f"{AO} show {chat_id}")
    terminal.wait_for(r"You:\nAnd third\?\n\nAssistant:\nSpain is third\.")

    # A chat busy elsewhere: one line and exit code 5, nothing written.
    scripted_model.script(Text("A slow answer that takes its time.", pace=1.0))
    asked = len(scripted_model.requests)  # counted before the click: the request may come at once
    page.get_by_test_id("composer-input").fill("Take your time")
    page.get_by_test_id("composer-send").click()
    scripted_model.wait_for_requests(asked + 1, timeout=30)
    terminal.type(f'{AO} ask -c "Me too"; echo "exit=$?"')
    busy = terminal.wait_for(r"ao: (.*)\nexit=(\d+)")
    assert busy.group(2) == "5", busy.group(0)
    assert "Traceback" not in terminal.screen()

    terminal.type(f"{AO} logout")
    terminal.wait_for("Logged out: the token is revoked and forgotten.")
    assert not kept.exists()
    page.get_by_test_id("nav-settings").click()
    expect(page.get_by_test_id("token-row")).to_have_count(0)


def test_an_openai_client_continues_a_browser_chat_and_the_browser_sees_it_live(
    page: Page, user, scripted_model: ScriptedModel, browser_app
) -> None:
    import openai

    alice = user("alice")
    login(page, alice)
    new_chat(page)
    scripted_model.script(Text("Noted: apples."))
    send(page, "I like apples")
    chat_id = current_session(page)  # made by its first message

    # The token is made on the Settings page, as a user would, and read from the box it is shown in once.
    page.get_by_test_id("nav-settings").click()
    page.get_by_test_id("token-name").fill("notebook")
    page.get_by_test_id("token-create").click()
    expect(page.get_by_test_id("token-secret-value")).to_have_value(re.compile(r"^aopat_\w{36}$"))
    secret = page.get_by_test_id("token-secret-value").input_value()
    page.get_by_test_id("nav-chat").click()

    client = openai.OpenAI(base_url=f"{browser_app.url}/v1", api_key=secret)
    scripted_model.script(Text("You like apples.", pace=0.2))
    reply = client.chat.completions.create(
        model="agent-orchestrator",
        messages=[{"role": "user", "content": "What do I like?"}],
        extra_headers={"X-Session-Id": chat_id},
    )
    assert reply.choices[0].message.content == "You like apples."
    expect(page.locator(ASSISTANT_TEXT)).to_have_text(["Noted: apples.", "You like apples."], timeout=30_000)
    page.get_by_test_id("activity-open").click()
    expect(page.get_by_test_id("activity-step").first).to_contain_text("via token 'notebook'")
