"""``python -m agent_orchestrator.terminal``: the same as the ``ao`` command."""

from agent_orchestrator.terminal.cli import main

main()
