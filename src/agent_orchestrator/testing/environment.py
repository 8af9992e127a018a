"""Child-process environments for tests and benchmarks: no stray routing variables from the caller."""

import os

from agent_orchestrator.runtime.settings import TOKEN_VARIABLES


def clean_environment(**extra: str) -> dict[str, str]:
    """This process's environment without model-routing variables (tokens, ``AGENT_*``, ``COPILOT_*``),
    plus ``extra`` — so a developer's ``GH_TOKEN`` never silently changes which model a test talks to."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in TOKEN_VARIABLES and not key.startswith(("AGENT_", "COPILOT_"))
    }
    env.update(extra)
    return env
