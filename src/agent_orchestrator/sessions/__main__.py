"""``python -m agent_orchestrator.sessions``: the operator's commands (:mod:`.ops.cli`)."""

import sys

from agent_orchestrator.sessions.ops.cli import main

if __name__ == "__main__":
    sys.exit(main())
