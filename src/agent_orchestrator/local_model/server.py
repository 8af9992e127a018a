"""An offline, OpenAI-compatible server for the embedded model, run inside this process.

    with LocalModelServer(resolve_weights("0.5b", cache_dir=data_dir / "models")) as server:
        base_url = server.base_url        # http://127.0.0.1:<port>/v1, provider type "openai"
        api_key = server.token            # every request but /health sends it (``access``)
        ...

The app itself (routes, scheduling, wire format) is in ``app.py``; this module owns the process-level
concerns: loading the engine, binding a port, running uvicorn in a daemon thread, health-gated start.
"""

from __future__ import annotations

from pathlib import Path

from agent_orchestrator.background_server import BackgroundServer, BackgroundServerError
from agent_orchestrator.errors import AgentOrchestratorError

from .access import new_token
from .app import DEFAULT_MODEL_ID, create_app, default_output_limit
from .engine import EngineError, LocalEngine
from .guide import Guide
from .lexicon import NEUTRAL, Lexicon

__all__ = ["LocalModelServer", "LocalModelServerError", "create_app"]


ADVERTISED_PROMPT_TOKENS = 1_000_000


class LocalModelServerError(AgentOrchestratorError):
    """The local model server could not start. The message is one line, fit to show the user."""


class LocalModelServer:
    """The OpenAI-compatible server for one local model, in a daemon thread of this process.

    ``start()`` loads the model (a few seconds), binds ``host:port`` (0 = any free port) and returns
    the base URL (``…/v1``) once ``/health`` answers; it raises :class:`LocalModelServerError` with a
    one-line reason if the model cannot be loaded or the port bound. ``guide`` and ``lexicon`` are
    the domain's, from whoever starts the model (``create_app``). ``token`` is the API key clients must
    send (default: a new random one, :attr:`token`). ``max_prompt_tokens`` and
    ``max_output_tokens`` are the limits to give the runtime; the server windows the history itself
    (``history_window``), so a completion within the second always fits the context window.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        model_id: str = DEFAULT_MODEL_ID,
        n_ctx: int = 8192,
        host: str = "127.0.0.1",
        port: int = 0,
        max_waiting: int = 4,
        n_threads: int | None = None,
        guide: Guide | None = None,
        lexicon: Lexicon = NEUTRAL,
        token: str | None = None,
    ) -> None:
        self._model_path = Path(model_path)
        self._model_id = model_id
        self._n_ctx = n_ctx
        self._host, self._port = host, port
        self._max_waiting = max_waiting
        self._n_threads = n_threads
        self._guide = guide
        self._lexicon = lexicon
        self._token = token or new_token()
        self._engine: LocalEngine | None = None
        self._http: BackgroundServer | None = None
        self._base_url: str | None = None

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def token(self) -> str:
        """The API key every request but ``/health`` must carry (``Authorization: Bearer``)."""
        return self._token

    @property
    def base_url(self) -> str:
        if self._base_url is None:
            raise LocalModelServerError("the local model server is not started")
        return self._base_url

    @property
    def max_output_tokens(self) -> int:
        return default_output_limit(self._n_ctx)

    @property
    def max_prompt_tokens(self) -> int:
        """What we tell the runtime: more than any chat reaches, so it never compacts (a summary of
        the whole history per turn on two cores); the server windows the history instead."""
        return ADVERTISED_PROMPT_TOKENS

    @property
    def engine(self) -> LocalEngine:
        if self._engine is None:
            raise LocalModelServerError("the local model server is not started")
        return self._engine

    def start(self) -> str:
        if self._base_url is not None:
            return self._base_url
        try:
            self._engine = LocalEngine(self._model_path, n_ctx=self._n_ctx, n_threads=self._n_threads)
        except EngineError as exc:
            raise LocalModelServerError(f"local model failed to load: {exc}") from exc
        app = create_app(
            self._engine,
            token=self._token,
            bind_host=self._host,
            model_id=self._model_id,
            max_waiting=self._max_waiting,
            guide=self._guide,
            lexicon=self._lexicon,
        )
        self._http = BackgroundServer(app, host=self._host, port=self._port)
        try:
            root = self._http.start()
        except BackgroundServerError as exc:
            self.stop()
            raise LocalModelServerError(f"local model server: {exc}") from exc
        self._base_url = f"{root}/v1"
        return self._base_url

    def stop(self) -> None:
        if self._http is not None:
            self._http.stop()
            self._http = None
        self._base_url = None
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
