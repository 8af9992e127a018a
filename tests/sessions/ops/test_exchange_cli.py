"""The sessions CLI's import, Markdown export and search reindex, in child processes as an operator
runs them; the imported sessions are then resumed by the real runtime and the model remembers."""

import json
import subprocess
import sys
from pathlib import Path

from argon2 import PasswordHasher

from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.sessions.search.index import SearchIndex
from agent_orchestrator.sessions.store import SessionCatalog, UserStore, make_engine, migrate
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, user_messages


def chatgpt_file(path: Path) -> Path:
    mapping = {
        "r": {"id": "r", "message": None, "parent": None, "children": ["u"]},
        "u": {
            "id": "u",
            "message": {
                "author": {"role": "user"},
                "content": {"content_type": "text", "parts": ["My code is 4711"]},
            },
            "parent": "r",
            "children": ["a"],
        },
        "a": {
            "id": "a",
            "message": {
                "author": {"role": "assistant"},
                "content": {"content_type": "text", "parts": ["Noted."]},
            },
            "parent": "u",
            "children": [],
        },
    }
    path.write_text(json.dumps([{"title": "Codes", "mapping": mapping, "current_node": "a"}]))
    return path


def run_cli(*args: str, data_dir: Path, model: ScriptedModel) -> subprocess.CompletedProcess[str]:
    env = clean_environment(
        AGENT_ORCHESTRATOR_HOME=str(data_dir),
        AGENT_PROVIDER_BASE_URL=model.base_url,
        AGENT_MODEL="scripted-model",
    )
    env.pop("DATABASE_URL", None)
    command = [sys.executable, "-m", "agent_orchestrator.sessions", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)


async def test_cli_imports_for_a_user_exports_markdown_and_reindexes(tmp_path: Path, scripted_model) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    migrate(engine)
    alice = UserStore(engine, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)).create(
        "alice", "correct horse battery"
    )
    try:
        bad = tmp_path / "bad.json"
        bad.write_text('[{"title": "x"}]')
        refused = run_cli("import", str(bad), "--user", "alice", data_dir=tmp_path, model=scripted_model)
        assert refused.returncode == 1
        assert refused.stderr == "error: Conversation 1 is not a ChatGPT conversation (no 'mapping').\n"

        done = run_cli(
            "import",
            str(chatgpt_file(tmp_path / "c.json")),
            "--user",
            "alice",
            data_dir=tmp_path,
            model=scripted_model,
        )
        assert done.returncode == 0, done.stderr
        [record] = SessionCatalog(engine).list_for_owner(alice.id).items
        assert (record.title, record.turn_count) == ("Codes", 1)

        assert record.public_id.startswith("chat-") and record.id != record.public_id
        assert done.stdout.splitlines()[0] == f"imported {record.public_id} (1 turns): Codes"
        markdown = run_cli(
            "export",
            record.public_id,
            "--user",
            "alice",
            "--markdown",
            data_dir=tmp_path,
            model=scripted_model,
        )
        assert markdown.returncode == 0 and "My code is 4711" in markdown.stdout

        index = SearchIndex(engine)
        index.replace(record.id, alice.id, [])
        assert index.search(alice.id, "4711") == []
        reindexed = run_cli("reindex", data_dir=tmp_path, model=scripted_model)
        assert reindexed.stdout == "Indexed 1 session(s) for search.\n"
        assert [hit.session_id for hit in index.search(alice.id, "4711")] == [record.public_id]

        scripted_model.default = lambda body: Text(" | ".join(user_messages(body)[:-1]))
        settings = RuntimeSettings(
            data_dir=tmp_path,
            provider_base_url=scripted_model.base_url,
            model="scripted-model",
            turn_timeout=60,
        )
        async with CopilotRuntime(settings) as runtime:
            session = await runtime.resume_session(record.id)
            assert await runtime.ask(session, "What is my code?") == "My code is 4711"
            await session.disconnect()
    finally:
        engine.dispose()
