"""The one place that builds the Copilot client and the per-session configuration.

Labs and the web app both go through :class:`CopilotRuntime`. Two runtime behaviours shape it (verified,
see docs/architecture.md#copilot-sdk-and-runtime-facts):

* The system message, provider, tool allow-list, MCP servers and permission handler are **not persisted**
  with a session. A resume that omits them silently runs with Copilot's default 21 KB prompt and ~15
  tools, which also swamps a small local model. So :meth:`CopilotRuntime.session_options` builds one
  dict and both :meth:`create_session` and :meth:`resume_session` pass exactly that dict.
* Runtime failures surface as assorted exceptions (``JsonRpcError`` for an unknown id, ``TimeoutError``
  while the agent keeps working, a bare ``Exception("Session error: ...")`` for model errors). They are
  translated here into :mod:`agent_orchestrator.errors` so callers print one line.
"""

import asyncio
import logging
from pathlib import Path
from typing import Any

from copilot import CopilotClient, CopilotSession, RuntimeConnection, SessionMetadata
from copilot._jsonrpc import JsonRpcError, ProcessExitedError
from copilot.generated.rpc import HistoryTruncateRequest, SessionsSaveRequest
from copilot.session_events import AssistantMessageData

from agent_orchestrator.errors import (
    ModelUnavailableError,
    RuntimeFailure,
    SessionExistsError,
    SessionNotFoundError,
    TurnFailedError,
    TurnTimeoutError,
)
from agent_orchestrator.runtime import sdk_timestamps
from agent_orchestrator.runtime.cli_environment import cli_environment
from agent_orchestrator.runtime.cli_path import find_copilot_cli
from agent_orchestrator.runtime.permissions import permitted_tools_only
from agent_orchestrator.runtime.profile import PLAIN, SessionProfile
from agent_orchestrator.runtime.routes import (
    ModelRoute,
    byok_route,
    copilot_route,
    plan_route,
    provider_config,
)
from agent_orchestrator.runtime.session_files import SessionFileStore
from agent_orchestrator.settings import RuntimeSettings
from agent_orchestrator.telemetry import TRACER

logger = logging.getLogger(__name__)

# Under COPILOT_HOME: the CLI's per-session lock files (``<id>.lock``).
OPERATION_LOCKS = Path("session-state") / ".session-operation-locks"


class CopilotRuntime:
    """A started Copilot runtime on the chosen model route; use as ``async with``.

    Starting it resolves the route, starts the embedded model server when no other route is
    configured (and waits for its health), then starts the CLI with its state under
    ``settings.copilot_home`` rather than the user's ``~/.copilot``.
    """

    def __init__(
        self,
        settings: RuntimeSettings,
        *,
        profile: SessionProfile = PLAIN,
        session_files: SessionFileStore | None = None,
        streaming: bool = False,
        cli_path: Path | None = None,
    ) -> None:
        """``profile`` is what every session is for: its prompt, tools and permissions (the retail
        app's is ``mcp_server.profile.retail_profile``; :data:`PLAIN` has no tools). ``session_files``
        replaces the runtime's local session-state directory with a shared store. ``streaming`` asks
        for answer deltas (the web app); the labs wait for whole answers."""
        self.settings = settings
        self.profile = profile
        self._permissions = permitted_tools_only(profile)
        self.session_files = session_files
        self.streaming = streaming
        self._cli_path = cli_path
        self._local_server: Any = None
        self.route: ModelRoute | None = None
        self.client: CopilotClient | None = None

    async def __aenter__(self) -> "CopilotRuntime":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Resolve the route, start what it needs, and connect to the CLI."""
        cli = self._cli_path or find_copilot_cli(self.settings.copilot_cli_path)
        sdk_timestamps.install()
        self.route = await self._start_route()
        self.settings.copilot_home.mkdir(parents=True, exist_ok=True)
        self.client = CopilotClient(
            connection=RuntimeConnection.for_stdio(path=str(cli)),
            base_directory=str(self.settings.copilot_home),
            working_directory=str(self.settings.data_dir),
            env=cli_environment(self.route),
            github_token=self.route.github_token,
            use_logged_in_user=False,
            session_fs=self.session_files.client_config() if self.session_files else None,
            log_level="error",
        )
        try:
            await self.client.start()
        except (RuntimeError, OSError, ProcessExitedError) as error:
            await self.stop()
            raise RuntimeFailure(f"The Copilot runtime failed to start: {error}") from error

    async def stop(self) -> None:
        """Stop the CLI and the embedded model server; safe to call twice."""
        client, self.client = self.client, None
        if client is not None:
            try:
                await client.stop()
            except Exception as error:  # an ExceptionGroup of cleanup errors; shutdown must go on
                logger.debug("Copilot client stop reported: %s", error)
        server, self._local_server = self._local_server, None
        if server is not None:
            await asyncio.to_thread(server.stop)

    async def _start_route(self) -> ModelRoute:
        kind = plan_route(self.settings)
        if kind == "byok":
            return byok_route(self.settings)
        if kind == "copilot":
            return copilot_route(self.settings)
        return await self._start_embedded_model()

    async def _start_embedded_model(self) -> ModelRoute:
        """Assemble/verify weights, start the loopback server, wait until it is healthy. Its token
        (``AGENT_LOCAL_MODEL_TOKEN``, else a new random one) becomes the sessions' provider key."""
        from agent_orchestrator.local_model.lexicon import NEUTRAL
        from agent_orchestrator.local_model.server import LocalModelServer, LocalModelServerError
        from agent_orchestrator.local_model.weights import WeightsError, get_choice, resolve_weights

        try:
            choice = get_choice(self.settings.local_model)
            weights = await asyncio.to_thread(
                resolve_weights,
                choice,
                cache_dir=self.settings.models_dir,
                explicit_path=self.settings.local_model_path,
                hub=self.settings.hub,
            )
            server = LocalModelServer(
                weights,
                model_id=choice.model_id,
                n_ctx=self.settings.local_model_ctx,
                guide=self.profile.guide() if self.profile.guide else None,
                lexicon=self.profile.lexicon or NEUTRAL,
                token=self.settings.local_model_token,
            )
            base_url = await asyncio.to_thread(server.start)
        except (WeightsError, LocalModelServerError) as error:
            raise ModelUnavailableError(f"The embedded model could not start: {error}") from error
        self._local_server = server
        provider = provider_config(
            base_url,
            api_key=server.token,  # the server answers no one else (docs/architecture.md#offline-route)
            max_prompt_tokens=server.max_prompt_tokens,
            max_output_tokens=server.max_output_tokens,
        )
        return ModelRoute("embedded", self.settings.model or server.model_id, provider)

    def session_options(self) -> dict[str, Any]:
        """The configuration every create *and* resume passes, identical each time."""
        route = self._require_route()
        options: dict[str, Any] = {
            "model": route.model,
            # replace mode: a few hundred bytes instead of the runtime's ~21 KB coding-agent prompt
            "system_message": {"mode": "replace", "content": self.profile.prompt},
            "available_tools": list(self.profile.tool_ids),
            "on_permission_request": self._permissions,
            "skip_custom_instructions": True,
            # The cross-session store (session-store.db) would keep every prompt and answer on this
            # server's disk, outside the session's own files: deleting a session could not reach it.
            "enable_session_store": False,
            "streaming": self.streaming,
        }
        if self.profile.mcp_servers:
            options["mcp_servers"] = dict(self.profile.mcp_servers)
        if self.profile.tools:
            options["tools"] = list(self.profile.tools)
        if route.provider is not None:
            options["provider"] = dict(route.provider)
        if self.session_files is not None:
            options["create_session_fs_handler"] = self.session_files.provider_for
        return options

    async def create_session(self, session_id: str, **extra: Any) -> CopilotSession:
        """Create a session with an explicit id; refuses an id that is already stored."""
        client = self._require_client()
        # In shared mode the runtime's metadata only knows this server's disk: ask the store too.
        if await client.get_session_metadata(session_id) is not None or (
            self.session_files is not None and await self.session_files.has_session(session_id)
        ):
            raise SessionExistsError(f"Session {session_id} already exists; resume it instead.")
        return await client.create_session(session_id=session_id, **self.session_options(), **extra)

    async def resume_session(self, session_id: str, **extra: Any) -> CopilotSession:
        """Resume a stored session with the same configuration it was created with."""
        client = self._require_client()
        try:
            with TRACER.start_as_current_span(
                "runtime.resume_session", attributes={"session.id": session_id}
            ):
                return await client.resume_session(session_id, **self.session_options(), **extra)
        except JsonRpcError as error:
            if "not found" in error.message.lower():
                raise SessionNotFoundError(f"No stored session has the id {session_id}.") from error
            raise TurnFailedError(f"The runtime refused to resume {session_id}: {error.message}") from error

    async def truncate_history(self, session: CopilotSession, event_id: str) -> int:
        """Remove the event ``event_id`` and everything after it from a resumed session's history: the
        runtime's own ``session.history.truncate``, which rewrites the log through the session_fs
        hook too. Returns how many events went."""
        try:
            result = await session.rpc.history.truncate(HistoryTruncateRequest(event_id=event_id))
        except JsonRpcError as error:
            raise TurnFailedError(f"The runtime could not rewind the session: {error.message}") from error
        return result.events_removed

    async def save_session(self, session_id: str) -> None:
        """Write the session's pending events now. The runtime persists events in batches and may still
        hold a turn's last ones when it reports the turn idle; a session kept open between turns
        (docs/architecture.md#warm-sessions) saves them while its lease is still live."""
        await self._require_client().rpc.sessions.save(SessionsSaveRequest(session_id=session_id))

    async def ask(self, session: CopilotSession, prompt: str) -> str:
        """Send one turn and return the assistant's final text."""
        timeout = self.settings.turn_timeout
        try:
            event = await session.send_and_wait(prompt, timeout=timeout)
        except TimeoutError as error:
            raise TurnTimeoutError(
                f"No answer within {timeout:.0f} s (set AGENT_TURN_TIMEOUT to wait longer)."
            ) from error
        except JsonRpcError as error:
            raise TurnFailedError(f"The runtime rejected the turn: {error.message}") from error
        except RuntimeError as error:
            raise TurnFailedError(str(error)) from error
        except Exception as error:  # the SDK raises a bare Exception("Session error: ...")
            message = str(error)
            if message.startswith("Session error"):
                raise ModelUnavailableError(f"The model could not answer: {message}") from error
            raise
        if event is None or not isinstance(event.data, AssistantMessageData):
            raise TurnFailedError("The turn ended without an assistant message.")
        return (event.data.content or "").strip()

    async def list_sessions(self) -> list[SessionMetadata]:
        """Stored sessions, newest first."""
        sessions = await self._require_client().list_sessions()
        return sorted(sessions, key=lambda meta: meta.modified_time, reverse=True)

    async def get_metadata(self, session_id: str) -> SessionMetadata | None:
        """Metadata for one id, or ``None`` when it is unknown."""
        return await self._require_client().get_session_metadata(session_id)

    async def delete_session(self, session_id: str) -> None:
        """Remove a stored session and its files, including the CLI's lock file for it."""
        try:
            if await self.get_metadata(session_id) is None:
                raise SessionNotFoundError(f"No stored session has the id {session_id}.")
            await self._require_client().delete_session(session_id)
        finally:
            # The CLI serialises operations on a session with a lock file that its own delete leaves
            # behind (also when, in shared mode, the CLI's metadata does not know the session).
            locks = self.settings.copilot_home / OPERATION_LOCKS
            lock = locks / f"{session_id}.lock"
            if lock.parent == locks:
                await asyncio.to_thread(lock.unlink, missing_ok=True)

    def connected(self) -> bool:
        """Whether the CLI is still connected. The SDK (1.0.25) keeps this only privately: its client's
        ``_state`` turns ``"disconnected"`` when the CLI's pipe closes (the process died) and
        nothing fails the turns then waiting on it, so a turn asks this in its silences
        (``sessions/turns/stream.py``). Read defensively: a later SDK without the attribute counts as
        connected, as before."""
        return self.client is not None and getattr(self.client, "_state", "connected") != "disconnected"

    def _require_client(self) -> CopilotClient:
        if self.client is None:
            raise RuntimeFailure("The Copilot runtime is not started.")
        return self.client

    def _require_route(self) -> ModelRoute:
        if self.route is None:
            raise RuntimeFailure("The Copilot runtime is not started.")
        return self.route
