"""Behind a load balancer every connection comes from the balancer: the client's own address is the
one the balancer forwards (``X-Forwarded-For``), believed only from ``AGENT_WEB_TRUSTED_PROXIES``
(none by default), for the login throttle and the audit trail (docs/architecture.md#login-throttling)."""

from pathlib import Path

import httpx
from sqlalchemy import select

from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.sessions.store.schema import login_throttle
from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.scripted_model import ScriptedModel


def _throttled_keys(data_dir: Path, scripted_model: ScriptedModel, **env: str) -> set[str]:
    """The throttle's address keys after one failed login from 127.0.0.1 forwarding for a client."""
    environment = clean_environment(
        AGENT_ORCHESTRATOR_HOME=str(data_dir),
        AGENT_PROVIDER_BASE_URL=scripted_model.base_url,
        AGENT_MODEL="scripted-model",
        AGENT_WEB_RETAIL="0",
        **env,
    )
    environment.pop("DATABASE_URL", None)
    data_dir.mkdir()
    app = AppProcess(environment, args=("--host", "127.0.0.1"))
    try:
        app.start()
        forwarded = {"X-Forwarded-For": "2001:db8:5:6::7", "X-Forwarded-Proto": "https"}
        answer = httpx.post(
            f"{app.url}/api/auth/login", json={"username": "x", "password": "y"}, headers=forwarded
        )
        assert answer.status_code == 401
    finally:
        app.stop()
    engine = make_engine(f"sqlite:///{data_dir / 'catalog.sqlite'}")
    try:
        with engine.connect() as conn:
            keys = conn.execute(select(login_throttle.c.key)).scalars()
            return {key for key in keys if key.startswith("address:")}
    finally:
        engine.dispose()


def test_a_forwarded_address_counts_only_from_a_trusted_proxy(
    tmp_path: Path, scripted_model: ScriptedModel
) -> None:
    assert _throttled_keys(tmp_path / "direct", scripted_model) == {"address:127.0.0.1"}
    behind = _throttled_keys(tmp_path / "behind", scripted_model, AGENT_WEB_TRUSTED_PROXIES="127.0.0.1")
    assert behind == {"address:2001:db8:5:6::/64"}
    other = _throttled_keys(tmp_path / "other", scripted_model, AGENT_WEB_TRUSTED_PROXIES="10.0.0.0/8")
    assert other == {"address:127.0.0.1"}
