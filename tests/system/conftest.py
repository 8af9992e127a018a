"""Multi-process scenarios: several app servers (child processes) on one PostgreSQL, a server killed
mid-turn or stopped past its lease, PostgreSQL restarted under running servers. Slow by nature: the
fast tier (``scripts/test --fast``) leaves this directory out. The fixtures are the suite's
(``tests/conftest.py``); the servers are ``agent_orchestrator.testing.app_process.AppProcess``."""
