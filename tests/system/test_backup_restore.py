"""The backup and restore docs/deploy.md describes, tried: a server with a master key answers a chat,
the database is dumped with ``pg_dump``, lost (its schema dropped), restored with ``pg_restore``,
and a new server (a new, empty home: nothing a session needs lives on a server's disk) with the same
master key shows the chat as it was and continues it with its history."""

import base64
import os
import subprocess
from pathlib import Path

import httpx
import psycopg
import pytest
from psycopg import sql

from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import FreshSchema, libpq_url, server_url, terminate_connections
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, user_messages

pytestmark = pytest.mark.postgres
PASSWORD = "backup-password-1"


def _server(home: Path, schema: FreshSchema, model: ScriptedModel, key: str) -> AppProcess:
    env = clean_environment(
        AGENT_ORCHESTRATOR_HOME=str(home),
        DATABASE_URL=schema.url,
        AGENT_PROVIDER_BASE_URL=model.base_url,
        AGENT_MODEL="scripted-model",
        AGENT_MASTER_KEY=key,
    )
    return AppProcess(env, log=home.with_suffix(".log")).start()


def _login(url: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=120)
    answer = client.post("/api/auth/login", json={"username": "analyst", "password": PASSWORD})
    client.headers["X-CSRF-Token"] = answer.raise_for_status().json()["csrf_token"]
    return client


def test_a_dumped_database_restored_after_a_loss_serves_every_chat_again(
    tmp_path: Path, scripted_model: ScriptedModel, postgres_schema: FreshSchema
) -> None:
    key = base64.b64encode(os.urandom(32)).decode()
    engine = make_engine(postgres_schema.url)
    migrate(engine)
    UserStore(engine).create("analyst", PASSWORD)
    engine.dispose()
    first = _server(tmp_path / "server-a", postgres_schema, scripted_model, key)
    try:
        client = _login(first.url)
        chat = client.post("/api/sessions", json={"title": "Quarterly review"}).json()["id"]
        for question, answer in [("Revenue in March?", "March: 41,200."), ("And April?", "April: 39,800.")]:
            scripted_model.script(Text(answer))
            assert (
                "event: done"
                in client.post(f"/api/sessions/{chat}/messages", json={"content": question}).text
            )
        before = client.get(f"/api/sessions/{chat}/messages").json()["messages"]
    finally:
        first.kill()

    dump = tmp_path / "backup.dump"
    database = libpq_url(server_url())
    subprocess.run(
        ["pg_dump", "--format=custom", f"--schema={postgres_schema.name}", f"--file={dump}", database],
        check=True,
    )
    terminate_connections(postgres_schema.name)
    with psycopg.connect(database, autocommit=True) as conn:  # the loss
        conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(postgres_schema.name)))
    subprocess.run(["pg_restore", "--exit-on-error", f"--dbname={database}", str(dump)], check=True)

    second = _server(tmp_path / "server-b", postgres_schema, scripted_model, key)
    try:
        client = _login(second.url)
        assert [c["title"] for c in client.get("/api/sessions").json()["items"]] == ["Quarterly review"]
        after = client.get(f"/api/sessions/{chat}/messages").json()["messages"]
        assert [(m["role"], m["content"]) for m in after] == [(m["role"], m["content"]) for m in before]
        assert client.get("/api/search", params={"q": "April"}).json()["messages"], (
            "the search index came back"
        )
        scripted_model.script(Text("May: 40,100."))
        assert (
            "event: done" in client.post(f"/api/sessions/{chat}/messages", json={"content": "And May?"}).text
        )
        asked = [text.strip().splitlines()[-1] for text in user_messages(scripted_model.requests[-1])]
        assert asked == ["Revenue in March?", "And April?", "And May?"], "the model saw the history"
    finally:
        second.kill()
