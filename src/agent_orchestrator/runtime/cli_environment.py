"""The Copilot CLI's environment: an allow-list, never this process's whole environment.

Whatever the CLI is given is readable from its ``/proc/<pid>/environ`` by any process of the same
user, and every stdio MCP server it starts inherits it. The web app's process holds the master key,
the catalog's and the key store's URLs with their passwords, a BYOK key and whatever else its
deployment sets; none of that is the CLI's business. A deny-list would leak the next secret someone
adds, so the CLI gets only the variables below (see docs/architecture.md#runtime), plus the offline
recipe of a provider route. The SDK then adds its own (``COPILOT_HOME``, and the Copilot route's token
as ``COPILOT_SDK_AUTH_TOKEN``); a session's provider key travels in its session options, not here.
"""

from agent_orchestrator.runtime.routes import ModelRoute
from agent_orchestrator.settings import allowed_environment

CLI_VARIABLES = (
    # Finding programs, and who and where the user is: the CLI unpacks itself under its cache
    # (``~/.cache/copilot/pkg``) on first start.
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "COPILOT_CACHE_HOME",
    "COPILOT_PKG_CACHE_HOME",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    # A BYOK endpoint or Copilot's service behind a proxy or a private certificate authority.
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "NODE_USE_ENV_PROXY",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    # The stdio MCP server is this interpreter (``mcp_server.stdio_command``): a checkout run with
    # PYTHONPATH must import the same code in it.
    "PYTHONPATH",
    # What Node and Python need to start at all on Windows.
    "SYSTEMROOT",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
)
CLI_PREFIXES = ("LC_",)


def cli_environment(route: ModelRoute) -> dict[str, str]:
    """The CLI's environment on ``route``: the allow-list, plus the offline recipe for a provider."""
    env = allowed_environment(CLI_VARIABLES, CLI_PREFIXES)
    if route.offline and route.provider is not None:
        # Offline mode refuses to start without both variables, even though each session also
        # carries its provider block (docs/architecture.md#offline-route).
        env.update(
            COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL=route.provider["base_url"],
            COPILOT_MODEL=route.model,
        )
    return env
