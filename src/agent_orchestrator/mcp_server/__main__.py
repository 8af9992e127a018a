"""``python -m agent_orchestrator.mcp_server --db PATH``: the retail-analytics MCP server on stdio.

The database path comes from ``--db``, else ``$RETAIL_DB``. stdout is the MCP channel, so
everything human-readable goes to stderr. A missing database does not stop the server: it
starts, warns on stderr, and every tool answers with an error that says how to create it, which
is what the model (and the person reading its reply) actually sees.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from agent_orchestrator.settings import SettingsError, load_settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent_orchestrator.mcp_server",
        description="Read-only 'retail-analytics' MCP server (stdio transport).",
    )
    parser.add_argument("--db", type=Path, help="retail SQLite file (default: $RETAIL_DB)")
    args = parser.parse_args(argv)
    try:
        db_path = args.db or load_settings().retail_db
    except SettingsError as error:
        parser.error(str(error))
    if db_path is None:
        parser.error("no database: pass --db PATH or set RETAIL_DB")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="retail-analytics: %(message)s")
    db_path = db_path.expanduser().resolve()
    if not db_path.is_file():
        logging.warning(
            "database %s not found; tools will report it. Create it with "
            "`python -m agent_orchestrator.retail generate --db %s`",
            db_path,
            db_path,
        )

    from agent_orchestrator.mcp_server.server import build_server  # after arg parsing: --help stays instant

    build_server(db_path).run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
