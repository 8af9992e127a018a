"""The FastAPI application factory. Services are created in the lifespan, never at import.

``create_app`` wires: the session storage (catalog, audit, leases, users, session files) on SQLite or
PostgreSQL and, on it, the Copilot runtime (streaming, with the read-only retail MCP server) and the
session service, both built as every command builds them (``sessions.composition``); the routes, the
static UI with a strict Content Security Policy, one JSON error shape (``{"detail": ...}``), and the
purge of expired logins (at start, then hourly in the background).
"""

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from agent_orchestrator.home import prepare_home
from agent_orchestrator.hosts import HostPolicy, is_wildcard
from agent_orchestrator.mcp_server import SERVER_NAME
from agent_orchestrator.mcp_server.http import RetailMcpHttpServer
from agent_orchestrator.mcp_server.profile import analyst_profile, retail_profile
from agent_orchestrator.planner.data_guide import DataGuide
from agent_orchestrator.retail import ensure_dataset
from agent_orchestrator.retail.api import create_retail_router
from agent_orchestrator.retail.datasets import DatasetLibrary
from agent_orchestrator.retail.progress import StderrProgress
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.runtime.mcp_tools import McpTools
from agent_orchestrator.sessions import PostgresSessionFiles, compose, open_storage
from agent_orchestrator.sessions.actions.tokens import TokenAccess, TokenRate
from agent_orchestrator.sessions.store import LoginThrottle, UserStore
from agent_orchestrator.sessions.store.api_tokens import ApiTokens
from agent_orchestrator.sessions.store.device_grants import DeviceGrants
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.telemetry import SESSION_LEASES
from agent_orchestrator.web import STATIC_DIR, vendor
from agent_orchestrator.web.dataset_switch import DatasetSwitch
from agent_orchestrator.web.deps import Services, current_login
from agent_orchestrator.web.errors import install_error_handler
from agent_orchestrator.web.guard import GuardMiddleware
from agent_orchestrator.web.housekeeping import start_chores
from agent_orchestrator.web.import_jobs import ImportJobs
from agent_orchestrator.web.observability import install_observability
from agent_orchestrator.web.routes import (
    activity,
    auth,
    branching,
    data_model,
    datasets,
    exchange,
    feedback,
    live,
    messages,
    openai_compat,
    organising,
    readings,
    search,
    sessions,
    sharing,
    tokens,
    usage,
)
from agent_orchestrator.web.uploads import UPLOAD_MAX_BYTES, Uploads


def create_app(
    web: WebSettings,
    runtime_settings: RuntimeSettings,
    *,
    session_files: PostgresSessionFiles | None = None,
    on_ready: Callable[[], None] | None = None,
) -> FastAPI:
    """Build the app; nothing starts until the lifespan runs (then ``on_ready`` is called)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:  # stops everything in the reverse order of starting
            # docs/architecture.md#the-home-is-owner-only: before anything is written there.
            for home in dict.fromkeys((web.data_dir, runtime_settings.data_dir)):
                previous = await asyncio.to_thread(prepare_home, home)
                stack.callback(os.umask, previous)
            storage = await stack.enter_async_context(open_storage(web, session_files))
            # docs/architecture.md#dataset-versions: shared with the other servers on PostgreSQL.
            datasets = await asyncio.to_thread(
                DatasetLibrary, web.data_dir, engine=storage.engine if web.is_postgres else None
            )
            stack.callback(datasets.close)
            app.state.retail_db = datasets.current_path
            retail_tools = None
            if web.retail_dataset:
                await asyncio.to_thread(ensure_dataset, web.retail_db, progress=StderrProgress())
                retail_mcp = RetailMcpHttpServer(datasets.current_path)
                await asyncio.to_thread(retail_mcp.start)
                stack.push_async_callback(asyncio.to_thread, retail_mcp.stop)
                config = retail_mcp.copilot_config()
                retail_tools = McpTools(SERVER_NAME, config["url"], config["headers"])
                await stack.enter_async_context(retail_tools)
            profile = (
                retail_profile(tools=retail_tools.tools, data=datasets.current_path)
                if retail_tools
                else analyst_profile()
            )
            composed = await stack.enter_async_context(
                compose(storage, web, runtime_settings, profile=profile)
            )
            service = composed.service
            uploads = Uploads(web.data_dir / "uploads")
            # docs/architecture.md#crash-safety-and-restart-recovery: an import a crash cut off is
            # recorded as failed now (reading the audit log and the versions: in a worker thread).
            imports = await asyncio.to_thread(
                ImportJobs, datasets, service.audit, uploads, state_file=web.data_dir / "import-job.json"
            )
            stack.callback(imports.stop)  # first of these to run: the import's thread ends first
            users = UserStore(storage.engine)
            throttle = LoginThrottle(
                storage.engine,
                max_failures=web.login_max_failures,
                max_account_failures=web.login_max_account_failures,
                max_address_failures=web.login_max_address_failures,
                lockout=web.login_lockout,
            )
            await asyncio.to_thread(users.purge_expired_logins)
            SESSION_LEASES.set_function(service.turns.leases.count_live)
            switch = None
            if retail_tools is not None:
                switch = DatasetSwitch(datasets, retail_tools, service.turns.warm.retire_all)
                await switch.check()
                following = asyncio.create_task(switch.follow(), name="dataset-switch")
                stack.callback(following.cancel)
            for chore in start_chores(
                web,
                storage.engine,
                users=users,
                throttle=throttle,
                files=storage.files,
                evict=service.turns.warm.evict,
                live=service.live,
            ):
                stack.callback(chore.cancel)
            app.state.services = Services(
                settings=web,
                users=users,
                sessions=service,
                branching=composed.branching,
                exchange=composed.exchange,
                readings=composed.readings,
                sharing=composed.sharing,
                activity=composed.activity,
                organising=composed.organising,
                feedback=composed.feedback,
                throttle=throttle,
                usage=composed.usage,
                datasets=datasets,
                uploads=uploads,
                imports=imports,
                tokens=TokenAccess(
                    ApiTokens(storage.engine),
                    DeviceGrants(storage.engine),
                    users,
                    service.audit,
                    TokenRate(web.token_burst, web.token_per_second),
                ),
                start=DataGuide(datasets.current_path),
                dataset_switch=switch,
            )
            if on_ready is not None:
                on_ready()
            yield

    app = FastAPI(
        title="AgentOrchestrator",
        summary="Retail-analytics assistant on durable Copilot SDK sessions",
        lifespan=lifespan,
        # Our own /docs (vendor.py): FastAPI's pages load Swagger UI and ReDoc from CDNs, which the
        # CSP refuses and an offline machine cannot reach (docs/architecture.md#api-docs).
        docs_url=None,
        redoc_url=None,
    )
    app.include_router(auth.router)
    app.include_router(tokens.router)
    app.include_router(exchange.router)  # before sessions: /api/sessions/import is not a session id
    app.include_router(sessions.router)
    app.include_router(live.router)
    app.include_router(messages.router)
    app.include_router(branching.router)
    app.include_router(readings.router)
    app.include_router(sharing.router)
    app.include_router(activity.router)
    app.include_router(organising.router)
    app.include_router(feedback.router)
    app.include_router(search.router)
    app.include_router(usage.router)
    app.include_router(data_model.router)  # before datasets: /api/datasets/model is not a version
    app.include_router(datasets.router)
    app.include_router(vendor.router)
    app.include_router(openai_compat.router)
    app.include_router(
        create_retail_router(), prefix="/api/retail", tags=["retail"], dependencies=[Depends(current_login)]
    )
    app.state.retail_db = web.retail_db  # version zero until the lifespan sets the library's provider
    app.state.draining = False
    install_error_handler(app)
    app.add_middleware(
        GuardMiddleware,
        body_limits={exchange.IMPORT_PATH: exchange.IMPORT_MAX_BYTES, datasets.UPLOAD_PATH: UPLOAD_MAX_BYTES},
        https_only=web.secure_cookies,
        hosts=HostPolicy(web.host, web.host_names),
    )
    # Last: its middleware is then the outermost, so a refused request has its id too.
    install_observability(app, metrics_token=web.metrics_token)
    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/api/health", tags=["health"], summary="Liveness probe for load balancers")
    async def health() -> JSONResponse:
        # Draining before a shutdown (docs/deploy.md): still serving, but send nothing new here.
        if app.state.draining:
            return JSONResponse({"status": "draining"}, status_code=503)
        return JSONResponse({"status": "ok"})

    @app.get("/", include_in_schema=False)
    @app.get(tokens.DEVICE_PAGE, include_in_schema=False)  # the app approves a terminal's login there
    async def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    return app


def print_banner(web: WebSettings, demo: str) -> None:
    """What the main command prints once the app is ready: where it runs, and the demo account's line."""
    print(f"AgentOrchestrator is running at http://{web.host}:{web.port}/", file=sys.stderr, flush=True)
    print(demo, file=sys.stderr, flush=True)
    if is_wildcard(web.host) and not web.host_names:
        # docs/architecture.md#host-names: a public name must be named, or it is refused (421).
        print(
            "Answering only IP addresses and localhost: set AGENT_WEB_ALLOWED_HOSTS to the name(s) "
            "clients use (behind a proxy, its public name).",
            file=sys.stderr,
            flush=True,
        )
