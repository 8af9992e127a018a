"""``python -m sdk_labs LAB [options]``: a thin dispatcher that imports each lab only when it runs."""

import importlib
import sys

from agent_orchestrator.home import owner_only_umask

LABS = {
    "sessions": ("sdk_labs.sessions", "Lab 05: create, close and resume a session with a stable id"),
}


def usage() -> str:
    lines = ["usage: python -m sdk_labs LAB [options]", "", "labs:"]
    lines += [f"  {name:<10} {summary}" for name, (_, summary) in LABS.items()]
    lines += ["", "Run `python -m sdk_labs LAB --help` for a lab's options."]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    name, *rest = argv
    if name not in LABS:
        print(f"error: unknown lab {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    owner_only_umask()  # the labs write under the app's home: docs/architecture.md#the-home-is-owner-only
    module = importlib.import_module(LABS[name][0])
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
