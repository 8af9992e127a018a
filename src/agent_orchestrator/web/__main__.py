"""``python -m agent_orchestrator.web``: run the web app, or manage its users.

python -m agent_orchestrator.web serve [--host 127.0.0.1] [--port 8000] [--demo-user]
python -m agent_orchestrator.web create-user NAME [--admin]   (password from stdin or a prompt)

Settings come from the environment (``agent_orchestrator.settings``), read once here; flags win.
"""

import argparse
import getpass
import ipaddress
import os
import sys

from agent_orchestrator.errors import AgentOrchestratorError
from agent_orchestrator.home import owner_only_umask
from agent_orchestrator.settings import Settings, WebSettings, load_settings

DEMO_FILE = "demo-login.txt"


def _demo_account(web: WebSettings, *, enabled: bool) -> str:
    """Make the demo account usable (``enabled``) or not, and say so in one line for the banner.

    Usable: created, or given a new password if it was disabled; that password is printed this once
    and kept owner-only in ``<data>/demo-login.txt`` (later starts name the file, so the password is
    not in every start's log). Not usable (a server others can reach): an account made by an earlier
    loopback start would keep its known password, so its password is made unusable, its logins
    ended and the file removed."""
    from agent_orchestrator.sessions.store import UserStore, make_engine, migrate

    engine = make_engine(web.database_url)
    path = web.data_dir / DEMO_FILE
    try:
        migrate(engine)
        users = UserStore(engine)
        if not enabled:
            disabled = users.disable_demo_user()
            path.unlink(missing_ok=True)
            hint = "add accounts with `python -m agent_orchestrator.web create-user NAME`."
            if disabled:
                return f"The demo account is disabled: others can reach this server; {hint}"
            return f"No demo account on an address others can reach: {hint}"
        user, password = users.ensure_demo_user()
    finally:
        engine.dispose()
    if password is None:
        where = f"password in {path}" if path.exists() else "password printed when it was set"
        return f"Demo login: {user.username} ({where})"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(password)
    return f"Demo login: {user.username} / {password}"


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine (``localhost``, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to an address others can reach
        return False


def serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from agent_orchestrator.sessions import PostgresSessionFiles
    from agent_orchestrator.telemetry import configure_logging, configure_tracing
    from agent_orchestrator.web.app import create_app, print_banner
    from agent_orchestrator.web.draining import DrainingServer

    web = settings.web.model_copy(
        update={"host": args.host or settings.web.host, "port": args.port or settings.web.port}
    )
    # The demo account (known password, printed) is for trying the app on one's own machine: a server
    # others can reach gets its first account from create-user, unless --demo-user asks otherwise.
    configure_logging(web.log_format, verbose=args.verbose)
    configure_tracing(web.otlp_endpoint)
    demo = _demo_account(web, enabled=args.demo_user or is_loopback(web.host))
    # One PostgreSQL for everything: catalog, audit, leases and the runtime's session files, so any
    # server can resume any session. SQLite (the default) keeps the files on this server's disk.
    shared = PostgresSessionFiles.from_url(web.database_url) if web.is_postgres else None
    app = create_app(web, settings.runtime, session_files=shared, on_ready=lambda: print_banner(web, demo))
    # Idle keep-alive connections outlive a load balancer's (typically 60 s) so that the balancer, not
    # this server, closes them: otherwise a request can race the close and fail. uvloop and httptools
    # are named so that a missing one fails here rather than slowing every turn down unnoticed (a busy
    # server's CPU per turn is its throughput: docs/architecture.md#performance-budgets). Forwarded
    # headers are read only from the trusted proxies: uvicorn's own default believes 127.0.0.1, so any
    # process on this machine could claim to be any client.
    config = uvicorn.Config(
        app,
        host=web.host,
        port=web.port,
        loop="uvloop",
        http="httptools",
        proxy_headers=bool(web.trusted_proxies),
        forwarded_allow_ips=web.trusted_proxies or None,
        timeout_keep_alive=75,
        log_level="warning" if not args.verbose else "info",
        log_config=None,  # uvicorn's loggers go to ours (JSON lines with the request id)
    )
    DrainingServer(config, drain_seconds=web.drain_seconds, app=app).run()
    return 0


def create_user(args: argparse.Namespace, settings: Settings) -> int:
    from agent_orchestrator.sessions.store import UserStore, make_engine, migrate

    password = sys.stdin.readline().rstrip("\n") if not sys.stdin.isatty() else getpass.getpass("Password: ")
    engine = make_engine(settings.database_url)
    try:
        migrate(engine)
        user = UserStore(engine).create(args.username, password, admin=args.admin)
    finally:
        engine.dispose()
    print(f"Created user {user.username} ({user.role}).")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent_orchestrator.web")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve", help="run the web app")
    run.add_argument("--host")
    run.add_argument("--port", type=int)
    run.add_argument("-v", "--verbose", action="store_true")
    run.add_argument(
        "--demo-user", action="store_true", help="create and print the demo account even off loopback"
    )
    run.set_defaults(func=serve)
    add = commands.add_parser("create-user", help="create a local account")
    add.add_argument("username")
    add.add_argument(
        "--admin", action="store_true", help="may also manage the data (the first account always is)"
    )
    add.set_defaults(func=create_user)
    args = parser.parse_args(argv)
    owner_only_umask()  # docs/architecture.md#the-home-is-owner-only
    try:
        return args.func(args, load_settings())
    except (AgentOrchestratorError, ValueError) as error:  # ValueError: a malformed setting
        print("error: " + " ".join(str(error).split()), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
