"""Child-process environments for tests and benchmarks: no stray routing variables from the caller."""

from agent_orchestrator.settings import TOKEN_VARIABLES, child_environment


def clean_environment(**extra: str) -> dict[str, str]:
    """This process's environment without model-routing variables (tokens, ``AGENT_*``, ``COPILOT_*``),
    plus ``extra`` — so a developer's ``GH_TOKEN`` never silently changes which model a test talks to."""
    return child_environment(drop=TOKEN_VARIABLES, drop_prefixes=("AGENT_", "COPILOT_"), **extra)
