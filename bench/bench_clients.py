"""Every client on the same sessions, measured in one run (docs/architecture.md#api-tokens):

1. a bearer call's cost against a cookie call's: the same ``GET /api/sessions`` and
   ``GET /api/sessions/{id}/messages``, alternated, medians and their ratio (target ≤ 1.1);
2. ``ao ask`` (a new process, a new chat, the answer streamed) against the same question asked in
   Chromium (typed, sent, answer complete), wall times and their ratio.

The app runs for real (uvicorn, the Copilot CLI, SQLite) with the instant scripted model behind it.

    uv run python bench/bench_clients.py [--calls 300] [--asks 5]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from load_stats import ms
from web_users import PASSWORD, create_users

from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text

AO = Path(sys.executable).with_name("ao")
ANSWER = "Germany leads with 31 % of revenue."


def _alternated(cookie: httpx.Client, bearer: httpx.Client, path: str, calls: int) -> tuple[float, float]:
    """Median seconds of ``GET path`` by each client, calls interleaved so drift hits both alike."""
    samples: dict[str, list[float]] = {"cookie": [], "bearer": []}
    for client in (cookie, bearer):
        client.get(path).raise_for_status()  # warm
    for _ in range(calls):
        for name, client in (("cookie", cookie), ("bearer", bearer)):
            start = time.perf_counter()
            client.get(path).raise_for_status()
            samples[name].append(time.perf_counter() - start)
    return statistics.median(samples["cookie"]), statistics.median(samples["bearer"])


def _ao_ask(url: str, token: str, home: Path) -> float:
    env = {**os.environ, "AO_SERVER": url, "AO_TOKEN": token, "AO_CONFIG": str(home / "none.json")}
    start = time.perf_counter()
    done = subprocess.run([str(AO), "ask", "Which country leads?"], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0 and ANSWER in done.stdout, done.stderr
    return elapsed


def _browser_asks(url: str, asks: int) -> list[float]:
    from playwright.sync_api import expect, sync_playwright

    times = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--disable-gpu"])
        page = browser.new_page(base_url=url)
        page.goto("/")
        page.get_by_test_id("login-username").fill("user000")
        page.get_by_test_id("login-password").fill(PASSWORD)
        page.get_by_test_id("login-submit").click()
        expect(page.get_by_test_id("composer-input")).to_be_focused()
        for _ in range(asks):
            page.get_by_test_id("new-chat").click()
            done = page.locator('[data-testid="message"][data-role="assistant"]:not([aria-busy])')
            expect(done).to_have_count(0)
            start = time.perf_counter()
            page.get_by_test_id("composer-input").fill("Which country leads?")
            page.get_by_test_id("composer-send").click()
            expect(done).to_have_count(1, timeout=60_000)
            times.append(time.perf_counter() - start)
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--asks", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
        model.default = lambda body: Text(ANSWER)
        data = Path(tmp)
        database_url = f"sqlite:///{data / 'catalog.sqlite'}"
        create_users(database_url, ["user000"])
        env = clean_environment(
            AGENT_ORCHESTRATOR_HOME=str(data),
            AGENT_PROVIDER_BASE_URL=model.base_url,
            AGENT_MODEL="scripted-model",
            AGENT_TOKEN_BURST="100000",  # the bench measures the check, not the throttle
            AGENT_TOKEN_PER_SECOND="100000",
        )
        app = AppProcess(env).start()
        try:
            cookie = httpx.Client(base_url=app.url, timeout=300)
            login = cookie.post("/api/auth/login", json={"username": "user000", "password": PASSWORD}).json()
            cookie.headers["X-CSRF-Token"] = login["csrf_token"]
            token = cookie.post("/api/tokens", json={"name": "bench", "scopes": ["chat"]}).json()["secret"]
            bearer = httpx.Client(base_url=app.url, timeout=300, headers={"Authorization": f"Bearer {token}"})
            chat = cookie.post("/api/sessions", json={"title": "bench"}).json()["id"]
            cookie.post(f"/api/sessions/{chat}/messages", json={"content": "hello"}).raise_for_status()
            for path in ("/api/sessions?limit=50", f"/api/sessions/{chat}/messages"):
                by_cookie, by_bearer = _alternated(cookie, bearer, path, args.calls)
                print(
                    f"GET {path.split('?')[0].replace(chat, '{id}')}: cookie {ms(by_cookie)}, "
                    f"bearer {ms(by_bearer)} (ratio {by_bearer / by_cookie:.2f}, target 1.10)"
                )

            terminal = [_ao_ask(app.url, token, data) for _ in range(args.asks)]
            browser = _browser_asks(app.url, args.asks)
            ao_median, browser_median = statistics.median(terminal), statistics.median(browser)
            print(
                f"one question, new chat, instant model: ao ask {ms(ao_median)} (a new process each time), "
                f"browser {ms(browser_median)} (ratio {ao_median / browser_median:.2f})"
            )
        finally:
            app.stop()


if __name__ == "__main__":
    main()
