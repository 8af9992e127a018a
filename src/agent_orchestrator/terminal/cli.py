"""The ``ao`` commands (docs/terminal.md): log in, ask (new chat, ``-c`` the latest, ``--chat ID``), list,
show, fork and export chats, log out. Every failure is one line on stderr and an exit code a script
can act on (:mod:`agent_orchestrator.terminal.api`); ``--json`` output is the API's own objects."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from agent_orchestrator.terminal import config, render
from agent_orchestrator.terminal.api import FAILED, NOT_FOUND, NOT_LOGGED_IN, Api, ApiError
from agent_orchestrator.terminal.config import Login

F = TypeVar("F", bound=Callable[..., Any])


def _said(function: F) -> F:
    """Run a command, ending any :class:`ApiError` as one line and its exit code."""

    @wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except ApiError as error:
            click.echo(f"ao: {error}", err=True)
            sys.exit(error.exit_code)
        except KeyboardInterrupt:
            click.echo("ao: interrupted", err=True)
            sys.exit(130)

    return run  # type: ignore[return-value]


def _api() -> Api:
    login = config.load()
    if login is None:
        raise ApiError("Not logged in: run 'ao login' (or set AO_TOKEN).", NOT_LOGGED_IN)
    return Api(login)


def _print_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agent-orchestrator", prog_name="ao")
def main() -> None:
    """Ask the retail assistant from a terminal; your chats are the ones in the browser."""


@main.command()
@click.option("--server", help="The app's address (default: AO_SERVER, the last one, or localhost:8000).")
@click.option("--token", help="Use this API token instead of approving a login in the browser.")
@click.option("--no-browser", is_flag=True, help="Do not try to open the approval page.")
@_said
def login(server: str | None, token: str | None, no_browser: bool) -> None:
    """Log in: approve this terminal in your browser (or give --token), then keep the token."""
    address = config.server_option(server)
    if token is None:
        token = _device_login(address, open_page=not no_browser)
    api = Api(Login(address, token))
    try:
        me = api.json("GET", "/api/auth/me")["user"]
    finally:
        api.close()
    path = config.save(Login(address, token, me["username"]))
    click.echo(f"Logged in to {address} as {me['username']} (token kept in {path}).")


def _device_login(server: str, *, open_page: bool) -> str:
    api = Api(Login(server, ""))
    try:
        name = f"ao on {socket.gethostname()}"[:60]
        started = api.json("POST", "/api/auth/device", json={"client_name": name})
        click.echo(f"Open {started['verification_uri_complete']}", err=True)
        click.echo(f"and approve the code {started['user_code']} (it expires in 10 minutes).", err=True)
        if open_page:
            click.launch(started["verification_uri_complete"])
        deadline = time.monotonic() + started["expires_in"]
        while time.monotonic() < deadline:
            time.sleep(started["interval"])
            response = api.call(
                "POST", "/api/auth/device/token", json={"device_code": started["device_code"]}
            )
            if response.status_code == 200:
                created = response.json()
                click.echo(f"Approved: token {created['token']['name']!r}.", err=True)
                return str(created["secret"])
        raise ApiError("Nobody approved the code in time; run 'ao login' again.", NOT_LOGGED_IN)
    finally:
        api.close()


@main.command()
@_said
def logout() -> None:
    """Revoke the kept token on the server and forget it here."""
    login = config.load()
    if login is None:
        click.echo("Not logged in.")
        return
    api = Api(login)
    try:
        api.call("DELETE", "/api/auth/token")
    except ApiError as error:
        if error.exit_code != NOT_LOGGED_IN:  # already revoked or expired: forgetting it is enough
            raise
    finally:
        api.close()
    config.forget()
    click.echo("Logged out: the token is revoked and forgotten.")


@main.command()
@click.argument("question")
@click.option("-c", "--continue", "continue_", is_flag=True, help="Continue your latest chat.")
@click.option("--chat", "chat_id", help="Continue this chat.")
@click.option("--title", help="The new chat's title.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON when it is done.")
@_said
def ask(question: str, continue_: bool, chat_id: str | None, title: str | None, as_json: bool) -> None:
    """Ask QUESTION in a new chat (or -c / --chat ID); the answer streams as it is written."""
    api = _api()
    try:
        if continue_ and chat_id is None:
            latest = api.json("GET", "/api/sessions", params={"limit": 1})["items"]
            if not latest:
                raise ApiError("You have no chat to continue; ask without -c to start one.", NOT_FOUND)
            chat_id = latest[0]["id"]
        if chat_id is None:
            chat_id = api.json("POST", "/api/sessions", json={"title": title} if title else {})["id"]
            seen = None
        else:
            seen = api.json("GET", f"/api/sessions/{chat_id}/messages")["last_event_id"]
        body = {"content": question, "last_event_id": seen}
        done = _answer(api.stream_turn(f"/api/sessions/{chat_id}/messages", body), quiet=as_json)
        if as_json:
            _print_json({"chat": chat_id, **done})
        else:
            click.echo(f"(chat {chat_id})", err=True)
    finally:
        api.close()


def _answer(events: Any, *, quiet: bool) -> dict[str, Any]:
    """Write the deltas as they come (unless ``quiet``), then the readings and charts; the ``done``."""
    written = False
    for event in events:
        if event.kind == "delta" and not quiet:
            click.echo(event.data["text"], nl=False)
            written = True
        elif event.kind == "tool" and event.data.get("status") == "started" and not quiet:
            click.echo(f"[{event.data['name']}]", err=True)
        elif event.kind == "error":
            raise ApiError(str(event.data.get("message", "The answer failed.")), FAILED)
        elif event.kind == "done":
            if not quiet:
                if not written:
                    click.echo(event.data["content"], nl=False)
                click.echo()
                for line in render.extras(event.data):
                    click.echo(line)
            return dict(event.data)
    raise ApiError("The answer ended without finishing; run 'ao show' to see what was kept.", FAILED)


@main.command()
@click.option("--search", "query", help="Only chats whose title or messages have these words.")
@click.option("--folder", help="Only chats in this folder.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 200))
@click.option("--json", "as_json", is_flag=True, help="The chats as JSON (the API's objects).")
@_said
def chats(query: str | None, folder: str | None, limit: int, as_json: bool) -> None:
    """List your chats, newest first."""
    api = _api()
    try:
        params: dict[str, Any] = {"limit": limit}
        if folder:
            params["case"] = folder
        if query:
            params["q"] = query
        items = api.json("GET", "/api/sessions", params=params)["items"]
    finally:
        api.close()
    if as_json:
        _print_json(items)
        return
    if not items:
        click.echo("No chats.")
    for chat in items:
        when = chat["updated_at"][:16].replace("T", " ")
        folder_name = f"  [{chat['folder']}]" if chat.get("folder") else ""
        click.echo(f"{chat['id']}  {when}  {chat['title']}{folder_name}")


@main.command()
@click.argument("chat_id")
@click.option("--json", "as_json", is_flag=True, help="The transcript as JSON (the API's object).")
@_said
def show(chat_id: str, as_json: bool) -> None:
    """Show a chat's conversation."""
    api = _api()
    try:
        transcript = api.json("GET", f"/api/sessions/{chat_id}/messages")
    finally:
        api.close()
    if as_json:
        _print_json(transcript)
        return
    click.echo(f"# {transcript['session']['title']}\n")
    for line in render.transcript(transcript["messages"]):
        click.echo(line)


@main.command()
@click.argument("chat_id")
@click.option("--at", "event_id", help="Branch after this message (default: the last).")
@click.option("--json", "as_json", is_flag=True)
@_said
def fork(chat_id: str, event_id: str | None, as_json: bool) -> None:
    """Branch a chat into a new one; prints the new chat's id."""
    api = _api()
    try:
        if event_id is None:
            messages = api.json("GET", f"/api/sessions/{chat_id}/messages")["messages"]
            if not messages:
                raise ApiError("That chat has no messages to branch from.", FAILED)
            event_id = messages[-1]["event_id"]
        forked = api.json("POST", f"/api/sessions/{chat_id}/fork", json={"event_id": event_id})
    finally:
        api.close()
    if as_json:
        _print_json(forked)
    else:
        click.echo(forked["id"])


@main.command()
@click.argument("chat_id")
@click.option("--format", "form", type=click.Choice(["json", "markdown"]), default="json", show_default=True)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not stdout."
)
@_said
def export(chat_id: str, form: str, output: Path | None) -> None:
    """Export a chat (JSON re-imports; Markdown reads well)."""
    api = _api()
    try:
        body = api.call("GET", f"/api/sessions/{chat_id}/export", params={"format": form}).text
    finally:
        api.close()
    if output is None:
        click.echo(body)
    else:
        output.write_text(body, encoding="utf-8")
        click.echo(f"Wrote {output}.", err=True)
